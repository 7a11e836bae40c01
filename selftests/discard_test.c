// SPDX-License-Identifier: GPL-2.0
/*
 * The discarding shutdown (wq_add_batch(3)): shuts down and
 * drops at once every queued and waiting key (never handed out) and the
 * dirty mark of every processing key; returns how many queued and waiting
 * keys it dropped (dirty marks not counted); keys in processing finish
 * normally and are not queued again at their done; blocked getters and
 * producers are woken with -ESHUTDOWN; it needs write access.
 */
#include "wq_test_util.h"
#include "wq_test_jobs.h"

WQT_FIXTURE(discard);

/* Queued, waiting, processing and processing + dirty keys at once. */
TEST_F(discard, drops_queued_waiting_and_dirty_marks)
{
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "p1"));
	ASSERT_EQ(0, ADD(self->fd, "p2"));
	EXPECT_GET(self->fd, "p1");
	EXPECT_GET(self->fd, "p2");
	ASSERT_EQ(0, ADD(self->fd, "p2"));		/* dirty */
	ASSERT_EQ(0, ADD(self->fd, "q1"));
	ASSERT_EQ(0, ADD(self->fd, "q2"));
	ASSERT_EQ(0, ADD(self->fd, "q3"));
	ASSERT_EQ(0, AFTER(self->fd, "w1", LONG_DELAY));
	ASSERT_EQ(0, AFTER(self->fd, "w2", LONG_DELAY));
	EXPECT_STATS(self->fd, STAT(queued, 3), STAT(waiting, 2),
		     STAT(processing, 2), STAT(dirty, 1), STAT(keys, 7));

	EXPECT_EQ(5, wq_shutdown_discard(self->fd));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(waiting, 0),
		     STAT(processing, 2), STAT(dirty, 0), STAT(keys, 2));
	EXPECT_EQ(1, wq_shutting_down(self->fd));
	EXPECT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_EQ(-ESHUTDOWN, ADD(self->fd, "new"));
	EXPECT_EQ(-ESHUTDOWN, ADD(self->fd, "p1"));

	/* in-flight keys finish; the dirty one is not queued again */
	EXPECT_EQ(0, DONE(self->fd, "p2"));
	EXPECT_EQ(0, DONE(self->fd, "p1"));
	EXPECT_EQ(-ENOENT, DONE(self->fd, "p1"));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 0), STAT(keys, 0));
	EXPECT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), -1));
	EXPECT_EQ(0, wq_shutdown_with_drain(self->fd, 1000));
}

/*
 * After a discard, a key whose handle closes is dropped, not put back, and
 * a drain waiting for it ends then (not at its deadline).
 */
TEST_F(discard, closed_handle_ends_drain)
{
	struct wqt_bg drain;
	int fd;

	fd = wq_open(self->name);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ADD(self->fd, "held"));
	EXPECT_GET(fd, "held");
	EXPECT_EQ(0, wq_shutdown_discard(self->fd));
	ASSERT_EQ(0, wqt_bg_start(&drain, WQT_DRAIN, self->fd, 60000));
	wqt_sleep_ms(200);
	EXPECT_FALSE(wqt_bg_returned(&drain));	/* "held" is in flight */

	wq_close(fd);				/* the consumer goes away */
	ASSERT_TRUE(wqt_bg_wait(&drain, 20000));
	EXPECT_EQ(0, drain.ret);
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 0),
		     STAT(keys, 0));
}

/* Nothing to drop: 0; and a second discard finds nothing. */
TEST_F(discard, empty_and_twice)
{
	EXPECT_EQ(0, wq_shutdown_discard(self->fd));
	EXPECT_EQ(1, wq_shutting_down(self->fd));
	EXPECT_EQ(0, wq_shutdown_discard(self->fd));
}

/* After a plain shutdown the queued keys are still there to discard. */
TEST_F(discard, after_shutdown)
{
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	EXPECT_EQ(2, wq_shutdown_discard(self->fd));
	EXPECT_EQ(0, wq_len(self->fd));
}

/* Blocked getters and producers wake with -ESHUTDOWN. */
TEST_F(discard, wakes_getters_and_producers)
{
	struct wq_attr attr = { .limiter = "none", .max_items = 1 };
	struct wqt_job g, p;
	char name[WQ_NAME_MAX];
	int fd;

	wqt_name(name, "wake");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ADD(fd, "a"));
	EXPECT_GET(fd, "a");					/* full */
	ASSERT_EQ(0, wqt_job_start(&g, wqt_call_get, fd, -1));
	ASSERT_EQ(0, wqt_start_add_wait(&p, fd, "b", -1));
	ASSERT_TRUE(wqt_job_asleep(&g));
	ASSERT_TRUE(wqt_job_asleep(&p));
	EXPECT_EQ(0, wq_shutdown_discard(fd));
	ASSERT_TRUE(wqt_job_wait(&g, UPPER_MS));
	ASSERT_TRUE(wqt_job_wait(&p, UPPER_MS));
	EXPECT_EQ(-ESHUTDOWN, g.ret);
	EXPECT_EQ(-ESHUTDOWN, p.ret);
	EXPECT_EQ(0, DONE(fd, "a"));
	wq_close(fd);
	wq_destroy(name);
}

/* Many more keys than one hold of the lock drops: all of them, counted. */
TEST_F_TIMEOUT(discard, many_keys, 120)
{
	static struct iovec keys[WQ_BATCH_MAX];
	static char text[WQ_BATCH_MAX * (WQT_KEY_LEN + 1)];
	int i, b;

	for (b = 0; b < 5; b++) {
		wqt_iov_keys(keys, text, b * WQ_BATCH_MAX, WQ_BATCH_MAX);
		ASSERT_EQ(WQ_BATCH_MAX, wq_add_batch(self->fd, keys, WQ_BATCH_MAX, NULL));
	}
	for (i = 0; i < 3000; i++) {
		char k[WQT_KEY_LEN + 1];

		ASSERT_EQ(0, wq_add_after(self->fd, k, wqt_key(k, 10000 + i),
					  LONG_DELAY));
	}
	EXPECT_STATS(self->fd, STAT(queued, 5 * WQ_BATCH_MAX), STAT(waiting, 3000));
	EXPECT_EQ(5 * WQ_BATCH_MAX + 3000, wq_shutdown_discard(self->fd));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(waiting, 0), STAT(keys, 0));
}

/* A consumer may not discard: -EBADF, nothing changes. */
TEST_F(discard, needs_write_access)
{
	int ro;

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ro = wq_open_flags(self->name, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, wq_shutdown_discard(ro));
	EXPECT_EQ(0, wq_shutting_down(self->fd));
	EXPECT_EQ(1, wq_len(self->fd));
	wq_close(ro);
	EXPECT_EQ(-EBADF, wq_shutdown_discard(-1));
}

TEST_HARNESS_MAIN
