// SPDX-License-Identifier: GPL-2.0
/*
 * The end of handles and queues: closing a handle that holds keys; then
 * shutdown and drain (client-go Q7-Q10, adapted to wq's real drain). The
 * rest of the lifecycle: lifecycle_test.c.
 */
#include "wq_test_util.h"

WQT_FIXTURE(life);

/* ---- closing a handle that holds keys ------------------------------------ */

TEST_F(life, close_returns_processing_keys)
{
	int fd2 = wq_open(self->name);
	char buf[16];

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(0, ADD(self->fd, "d"));
	ASSERT_EQ(0, ADD(self->fd, "e"));
	EXPECT_GET(fd2, "a");			/* held by fd2 */
	EXPECT_GET(fd2, "b");			/* held by fd2, made dirty */
	EXPECT_GET(fd2, "c");			/* done by fd2 itself */
	EXPECT_GET(self->fd, "d");		/* held by the other handle */
	ASSERT_EQ(1, wq_get_detached(fd2, buf, sizeof(buf), 0));	/* "e" */
	ASSERT_EQ(0, DONE(fd2, "c"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, wq_len(self->fd));

	ASSERT_EQ(0, wq_close(fd2));
	/* a and b are queued again, b only once; d and e stay processing */
	ASSERT_EQ(2, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(queued, 2), STAT(processing, 2),
		     STAT(dirty, 0), STAT(keys, 4));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));
	ASSERT_TRUE(!strcmp(buf, "a") || !strcmp(buf, "b"));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 0));
	ASSERT_TRUE(!strcmp(buf, "a") || !strcmp(buf, "b"));
	ASSERT_EQ(-EAGAIN, wq_get(self->fd, buf, sizeof(buf), 0));
	/* the detached key waits for anyone's done */
	ASSERT_EQ(0, DONE(self->fd, "e"));
	ASSERT_EQ(0, DONE(self->fd, "d"));
	ASSERT_EQ(0, DONE(self->fd, "a"));
	ASSERT_EQ(0, DONE(self->fd, "b"));
	EXPECT_STATS(self->fd, STAT(keys, 0));
}

/* A second handle of the queue fd, name: it has got key "k", added by fd. */
static int other_got_k(struct __test_metadata *_metadata, int fd,
		       const char *name)
{
	int fd2 = wq_open(name);

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ADD(fd, "k"));
	EXPECT_GET(fd2, "k");
	return fd2;
}

/* A key got by one handle and done by another is not put back at close. */
TEST_F(life, close_after_foreign_done)
{
	int fd2 = other_got_k(_metadata, self->fd, self->name);

	ASSERT_EQ(0, DONE(self->fd, "k"));
	ASSERT_EQ(0, wq_close(fd2));
	ASSERT_EQ(0, wq_len(self->fd));
}

/* A key taken by fd2, done elsewhere, then taken again by fd1: closing fd2
 * must not put it back (fd1 holds it now). */
TEST_F(life, close_does_not_steal_regot_key)
{
	int fd2 = other_got_k(_metadata, self->fd, self->name);

	ASSERT_EQ(0, DONE(self->fd, "k"));
	ASSERT_EQ(0, ADD(self->fd, "k"));
	EXPECT_GET(self->fd, "k");
	ASSERT_EQ(0, wq_close(fd2));
	ASSERT_EQ(0, wq_len(self->fd));
	EXPECT_STATS(self->fd, STAT(processing, 1));
	ASSERT_EQ(0, DONE(self->fd, "k"));
}

/* Keys a closed handle held are handed out after shutdown like queued ones. */
TEST_F(life, close_after_shutdown_requeues)
{
	int fd2 = other_got_k(_metadata, self->fd, self->name);
	char buf[16];

	ASSERT_EQ(0, wq_shutdown(self->fd));
	ASSERT_EQ(0, wq_close(fd2));
	EXPECT_GET(self->fd, "k");
	ASSERT_EQ(0, DONE(self->fd, "k"));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
}

/* ---- shutdown ------------------------------------------------------------- */

TEST_F(life, shutdown_basics)
{
	int fd2 = wq_open(self->name);
	char buf[16];
	int64_t t0;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, wq_shutting_down(self->fd));
	ASSERT_EQ(0, ADD(self->fd, "q1"));
	ASSERT_EQ(0, ADD(self->fd, "q2"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	ASSERT_EQ(1, wq_shutting_down(self->fd));
	ASSERT_EQ(1, wq_shutting_down(fd2));
	ASSERT_EQ(0, wq_shutdown(fd2));		/* idempotent */
	ASSERT_EQ(-ESHUTDOWN, ADD(self->fd, "late"));
	ASSERT_EQ(-ESHUTDOWN, ADD(fd2, "q1"));
	ASSERT_EQ(-ESHUTDOWN, wq_add_after(fd2, "late", 4, 1000000));
	ASSERT_EQ(2, wq_len(self->fd));
	/* queued keys are still handed out, then -ESHUTDOWN, at once */
	EXPECT_GET(fd2, "q1");
	EXPECT_GET(self->fd, "q2");
	t0 = wqt_now_ms();
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 10000));
	ASSERT_EQ(-ESHUTDOWN, wq_get(fd2, buf, sizeof(buf), -1));
	ASSERT_GT(t0 + 5000, wqt_now_ms());
	/* an add of a processing key is refused too: it does not become dirty */
	ASSERT_EQ(-ESHUTDOWN, ADD(self->fd, "q1"));
	ASSERT_EQ(0, DONE(self->fd, "q1"));
	ASSERT_EQ(0, DONE(self->fd, "q2"));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_len(self->fd));
	/* a new handle of a shut-down queue sees it shut down */
	wq_close(fd2);
	fd2 = wq_open(self->name);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(1, wq_shutting_down(fd2));
	wq_close(fd2);
}

/* Done after shutdown still re-queues a dirty key, and it is handed out. */
TEST_F(life, shutdown_dirty_key_requeued)
{
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "d"));
	EXPECT_GET(self->fd, "d");
	ASSERT_EQ(0, ADD(self->fd, "d"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, DONE(self->fd, "d"));
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_GET(self->fd, "d");
	ASSERT_EQ(0, DONE(self->fd, "d"));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
}

/* Shutdown drops delayed keys that have not fired. */
TEST_F(life, shutdown_drops_waiting_keys)
{
	char buf[16];

	ASSERT_EQ(0, wq_add_after(self->fd, "w", 1, 200ULL * 1000000ULL));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	wqt_sleep_ms(500);
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/* ---- drain ---------------------------------------------------------------- */

/* Waits until the drain has begun (the queue is shutting down). */
static bool wait_shutting_down(int fd, int ms)
{
	int64_t end = wqt_now_ms() + ms;

	while (wq_shutting_down(fd) != 1 && wqt_now_ms() < end)
		wqt_sleep_ms(5);
	return wq_shutting_down(fd) == 1;
}

/* Starts a drain of fd (no timeout) in d's thread; waits until it has begun. */
static void start_drain(struct __test_metadata *_metadata, struct wqt_bg *d,
			int fd)
{
	ASSERT_EQ(0, wqt_bg_start(d, WQT_DRAIN, fd, -1));
	ASSERT_TRUE(wait_shutting_down(fd, 5000));
}

/*
 * start_drain, then gets until one says -ESHUTDOWN: nothing is queued any
 * more. True if one did within 1000 gets.
 */
static bool start_drain_until_empty(struct __test_metadata *_metadata,
				    struct wqt_bg *d, int fd)
{
	char buf[16];
	int i;

	start_drain(_metadata, d, fd);
	for (i = 0; i < 1000; i++)
		if (wq_get(fd, buf, sizeof(buf), -1) == -ESHUTDOWN)
			break;
	return i < 1000;
}

/*
 * The drain d has not returned (what says why it must not have), and it
 * returns 0 once the last key k is got and done.
 */
static void drain_ends_with(struct __test_metadata *_metadata,
			    struct wqt_bg *d, int fd, const char *k,
			    const char *what)
{
	ASSERT_FALSE(wqt_bg_returned(d))
		TH_LOG("drain returned %zd %s", d->ret, what);
	EXPECT_GET(fd, k);
	ASSERT_EQ(0, DONE(fd, k));
	ASSERT_TRUE(wqt_bg_wait(d, 5000));
	ASSERT_EQ(0, d->ret);
}

/* Adds foo and bar and gets both: two keys processing (Q7, Q9). */
static void foo_bar_processing(struct __test_metadata *_metadata, int fd)
{
	ASSERT_EQ(0, ADD(fd, "foo"));
	ASSERT_EQ(0, ADD(fd, "bar"));
	EXPECT_GET(fd, "foo");
	EXPECT_GET(fd, "bar");
}

TEST_F(life, drain_empty_returns_at_once)
{
	char buf[16];
	int64_t t0 = wqt_now_ms();

	ASSERT_EQ(0, wq_shutdown_with_drain(self->fd, -1));
	ASSERT_GT(t0 + 5000, wqt_now_ms());
	ASSERT_EQ(1, wq_shutting_down(self->fd));
	ASSERT_EQ(-ESHUTDOWN, ADD(self->fd, "x"));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_shutdown_with_drain(self->fd, 1000));
}

/*
 * Q7 TestQueueDrainageUsingShutDownWithDrain: the drain waits for the keys
 * in processing; Get on the empty shut-down queue says -ESHUTDOWN at once.
 */
TEST_F(life, drain_waits_for_processing)
{
	struct wqt_bg d;
	struct wq_stats st;

	foo_bar_processing(_metadata, self->fd);
	ASSERT_TRUE(start_drain_until_empty(_metadata, &d, self->fd));
	wqt_sleep_ms(200);
	ASSERT_FALSE(wqt_bg_returned(&d)) TH_LOG("drain returned %zd early", d.ret);
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_TRUE(st.draining);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	wqt_sleep_ms(100);
	ASSERT_FALSE(wqt_bg_returned(&d)) TH_LOG("drain returned %zd with bar processing", d.ret);
	ASSERT_EQ(0, DONE(self->fd, "bar"));
	ASSERT_TRUE(wqt_bg_wait(&d, 5000));
	ASSERT_EQ(0, d.ret);
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_FALSE(st.draining);
}

/* A real drain: queued keys must be taken and done before it returns, and
 * consumers keep taking them while it waits. */
TEST_F(life, drain_waits_for_queued)
{
	const char *keys[] = { "a", "b", "c" };
	struct wqt_bg d;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ADD(self->fd, keys[i]));
	start_drain(_metadata, &d, self->fd);
	wqt_sleep_ms(200);
	ASSERT_FALSE(wqt_bg_returned(&d))
		TH_LOG("drain returned %zd with 3 keys queued", d.ret);
	ASSERT_EQ(3, wq_len(self->fd));
	for (i = 0; i < 3; i++) {
		EXPECT_GET(self->fd, keys[i]);
		wqt_sleep_ms(50);
		ASSERT_FALSE(wqt_bg_returned(&d))
			TH_LOG("drain returned with %s processing", keys[i]);
		ASSERT_EQ(0, DONE(self->fd, keys[i]));
	}
	ASSERT_TRUE(wqt_bg_wait(&d, 5000));
	ASSERT_EQ(0, d.ret);
}

/* Q8 TestNoQueueDrainageUsingShutDown: plain shutdown does not wait. */
TEST_F(life, shutdown_does_not_wait)
{
	char buf[16];
	int64_t t0;

	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_EQ(0, ADD(self->fd, "bar"));
	ASSERT_EQ(0, ADD(self->fd, "baz"));
	EXPECT_GET(self->fd, "foo");
	EXPECT_GET(self->fd, "bar");
	t0 = wqt_now_ms();
	ASSERT_EQ(0, wq_shutdown(self->fd));
	ASSERT_GT(t0 + 5000, wqt_now_ms());
	EXPECT_GET(self->fd, "baz");
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
}

/* Q9 TestForceQueueShutdownUsingShutDown: a plain shutdown from another
 * caller cuts the drain short with -ECANCELED. */
TEST_F(life, shutdown_cancels_drain)
{
	int fd2 = wq_open(self->name);
	struct wqt_bg d;

	ASSERT_LE(0, fd2);
	foo_bar_processing(_metadata, self->fd);
	start_drain_until_empty(_metadata, &d, self->fd);
	wqt_sleep_ms(100);
	ASSERT_FALSE(wqt_bg_returned(&d));
	ASSERT_EQ(0, wq_shutdown(fd2));
	ASSERT_TRUE(wqt_bg_wait(&d, 5000)) TH_LOG("shutdown did not end the drain");
	ASSERT_EQ(-ECANCELED, d.ret);
	/* the keys are still processing; done still works */
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	ASSERT_EQ(0, DONE(fd2, "bar"));
	wq_close(fd2);
}

/*
 * A drain is never restarted after a signal: a restarted drain would start
 * a new wait, and a plain shutdown made in between (here by the handler
 * itself, between the interruption and the restart) would not cut it
 * short. The drain says -EINTR also under SA_RESTART, and the caller
 * decides. Handlers with and without SA_RESTART, with and without a
 * shutdown in the handler.
 */
static atomic_int drain_sig_count;
/* the handle the handler shuts the queue down with, or -1 for none */
static volatile sig_atomic_t drain_sig_fd = -1;

static void drain_on_sigusr1(int sig)
{
	(void)sig;
	atomic_fetch_add(&drain_sig_count, 1);
	if (drain_sig_fd >= 0)
		wq_shutdown(drain_sig_fd);	/* one ioctl: async-signal-safe */
}

static void drain_signal_case(struct __test_metadata *_metadata,
			      int sa_flags, bool shutdown)
{
	struct sigaction sa = { .sa_handler = drain_on_sigusr1,
				.sa_flags = sa_flags };
	char name[WQ_NAME_MAX];
	struct wqt_bg d;
	int fd, fd2;

	fd = wqt_create_bounded(name, "drain-signal", 0);
	ASSERT_LE(0, fd);
	fd2 = wq_open(name);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, wq_destroy(name));	/* gone with its handles */
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	atomic_store(&drain_sig_count, 0);
	drain_sig_fd = shutdown ? fd2 : -1;

	ASSERT_EQ(0, ADD(fd, "k"));
	EXPECT_GET(fd, "k");
	start_drain(_metadata, &d, fd);
	wqt_sleep_ms(100);
	ASSERT_FALSE(wqt_bg_returned(&d)) TH_LOG("drain returned %zd early", d.ret);
	ASSERT_EQ(0, pthread_kill(d.th, SIGUSR1));
	ASSERT_TRUE(wqt_bg_wait(&d, 5000))
		TH_LOG("the drain went on after the signal (%s, %s)",
		       sa_flags ? "SA_RESTART" : "no SA_RESTART",
		       shutdown ? "shutdown in the handler" : "no shutdown");
	ASSERT_EQ(1, atomic_load(&drain_sig_count));
	ASSERT_EQ(-EINTR, d.ret);
	drain_sig_fd = -1;

	/* the queue stays shut down, k processing; a new drain ends at done */
	ASSERT_EQ(1, wq_shutting_down(fd));
	ASSERT_EQ(-ETIMEDOUT, wq_shutdown_with_drain(fd, 0));
	ASSERT_EQ(0, wqt_bg_start(&d, WQT_DRAIN, fd, -1));
	wqt_sleep_ms(100);
	ASSERT_FALSE(wqt_bg_returned(&d))
		TH_LOG("drain returned %zd with k processing", d.ret);
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_TRUE(wqt_bg_wait(&d, 5000));
	ASSERT_EQ(0, d.ret);
	wq_close(fd2);
	wq_close(fd);
}

TEST_F(life, drain_signal_eintr)
{
	drain_signal_case(_metadata, 0, false);
	drain_signal_case(_metadata, SA_RESTART, false);
	drain_signal_case(_metadata, 0, true);
	drain_signal_case(_metadata, SA_RESTART, true);
}

/* A drain started after a plain shutdown still waits for the drain. */
TEST_F(life, drain_after_shutdown_waits)
{
	struct wqt_bg d;

	ASSERT_EQ(0, ADD(self->fd, "k"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	ASSERT_EQ(0, wqt_bg_start(&d, WQT_DRAIN, self->fd, -1));
	wqt_sleep_ms(200);
	drain_ends_with(_metadata, &d, self->fd, "k", "with k queued");
}

TEST_F(life, drain_timeout)
{
	int64_t t0 = wqt_now_ms(), dt;
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "stuck"));
	ASSERT_EQ(-ETIMEDOUT, wq_shutdown_with_drain(self->fd, 300));
	dt = wqt_now_ms() - t0;
	ASSERT_LE(300, dt);
	ASSERT_GT(10000, dt);
	/* it did shut the queue down; the key is still there */
	ASSERT_EQ(1, wq_shutting_down(self->fd));
	ASSERT_EQ(1, wq_len(self->fd));
	/* and timeout 0 does not wait at all */
	EXPECT_GET(self->fd, "stuck");
	ASSERT_EQ(-ETIMEDOUT, wq_shutdown_with_drain(self->fd, 0));
	ASSERT_EQ(0, DONE(self->fd, "stuck"));
	ASSERT_EQ(0, wq_shutdown_with_drain(self->fd, 0));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
}

/*
 * Q10 TestQueueDrainageUsingShutDownWithDrainWithDirtyItem: a key dirty at
 * shutdown is queued again by Done, handed out, and the drain waits for it.
 */
TEST_F(life, drain_with_dirty_key)
{
	struct wqt_bg d;
	char buf[16];

	ASSERT_EQ(0, ADD(self->fd, "foo"));
	EXPECT_GET(self->fd, "foo");
	ASSERT_EQ(0, ADD(self->fd, "foo"));
	ASSERT_TRUE(start_drain_until_empty(_metadata, &d, self->fd));
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	EXPECT_GET(self->fd, "foo");
	wqt_sleep_ms(100);
	ASSERT_FALSE(wqt_bg_returned(&d))
		TH_LOG("drain returned %zd while the re-queued foo was processing", d.ret);
	ASSERT_EQ(0, DONE(self->fd, "foo"));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_TRUE(wqt_bg_wait(&d, 5000));
	ASSERT_EQ(0, d.ret);
}

/* Closing the handle that holds the last key also ends the drain: the key
 * goes back to the queue and another consumer finishes it. */
TEST_F(life, drain_survives_consumer_close)
{
	int fd2 = other_got_k(_metadata, self->fd, self->name);
	struct wqt_bg d;

	start_drain(_metadata, &d, self->fd);
	ASSERT_EQ(0, wq_close(fd2));
	wqt_sleep_ms(100);
	drain_ends_with(_metadata, &d, self->fd, "k", "with k re-queued");
}

TEST_HARNESS_MAIN
