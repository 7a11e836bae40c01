// SPDX-License-Identifier: GPL-2.0
/*
 * Whom keys wake: a batch of keys wakes as many blocked consumers, a batch
 * consumer counted for as many keys as it asks (one that would find
 * nothing is not woken); a woken consumer that takes nothing (its buffer
 * too small) or fewer keys than it was woken for passes its wake-up on,
 * on the ring and through the ioctl, so no key stays queued while another
 * consumer sleeps. A batch parked on a ring counts for one key.
 */
#include "wq_test_util.h"
#include "wq_test_jobs.h"
#include "wq_test_uring.h"

WQT_RING_FIXTURE(wake)

/* A batch of three keys wakes three blocked consumers: none left asleep. */
TEST_F(wake, batch_wakes_as_many_consumers)
{
	struct iovec keys[] = { IOV("a"), IOV("b"), IOV("c") };
	struct wqt_job j[4];
	int i, woken = 0;

	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, wqt_job_start(&j[i], wqt_call_get, self->fd, -1));
		ASSERT_TRUE(wqt_job_asleep(&j[i]));
	}
	ASSERT_EQ(3, wq_add_batch(self->fd, keys, 3, NULL));
	EXPECT_LT(0, WAIT_STAT(self->fd, processing, 3))
		TH_LOG("a key stayed queued while consumers slept");
	for (int64_t end = wqt_now_ms() + UPPER_MS; wqt_now_ms() < end;) {
		for (woken = 0, i = 0; i < 4; i++)
			woken += wqt_job_returned(&j[i]);
		if (woken >= 3)
			break;
		wqt_sleep_ms(2);
	}
	wqt_sleep_ms(100);	/* the fourth has nothing to take */
	for (woken = 0, i = 0; i < 4; i++)
		woken += wqt_job_returned(&j[i]);
	EXPECT_EQ(3, woken);
	ASSERT_EQ(0, wq_shutdown(self->fd));
	for (i = 0; i < 4; i++)
		ASSERT_TRUE(wqt_job_wait(&j[i], UPPER_MS));
}

static long call_get_batch2(struct wqt_job *j)
{
	static char bufs[3][64];
	struct iovec got[2];
	int slot = j->key[0] - '0';

	return wq_get_batch(j->fd, bufs[slot], sizeof(bufs[slot]), got, 2,
			    j->timeout_ms);
}

/* The voluntary context switches of thread @tid so far, or -1. */
static long thread_switches(int tid)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * A batch consumer is woken for as many keys as it asks: three keys wake
 * the first two of three consumers of two keys each, and the third is not
 * woken at all (it would find nothing and sleep again), not even by a
 * pass-on. A fourth key then wakes it.
 */
TEST_F(wake, batch_consumer_counts_for_its_count)
{
	struct iovec keys[] = { IOV("a"), IOV("b"), IOV("c") };
	struct wqt_job j[3];
	long sw;
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(j[i].key, sizeof(j[i].key), "%d", i);
		ASSERT_EQ(0, wqt_job_start(&j[i], call_get_batch2, self->fd,
					   -1));
		ASSERT_TRUE(wqt_job_asleep(&j[i]));
		ASSERT_FALSE(wqt_job_returned(&j[i]));
	}
	sw = thread_switches(atomic_load(&j[2].tid));
	ASSERT_LE(0, sw);
	ASSERT_EQ(3, wq_add_batch(self->fd, keys, 3, NULL));
	ASSERT_TRUE(wqt_job_wait(&j[0], UPPER_MS));
	ASSERT_TRUE(wqt_job_wait(&j[1], UPPER_MS));
	EXPECT_EQ(3, j[0].ret + j[1].ret);
	wqt_sleep_ms(100);
	EXPECT_FALSE(wqt_job_returned(&j[2]));
	EXPECT_EQ(sw, thread_switches(atomic_load(&j[2].tid)))
		TH_LOG("the third consumer was woken for nothing");
	ASSERT_EQ(0, ADD(self->fd, "d"));
	ASSERT_TRUE(wqt_job_wait(&j[2], UPPER_MS));
	EXPECT_EQ(1, j[2].ret);
	EXPECT_STATS(self->fd, STAT(processing, 4), STAT(queued, 0));
}

/* Whether the blocked get bg returns; if not, a shutdown ends it. */
static bool bg_woken(struct wqt_bg *bg, int fd)
{
	if (wqt_bg_wait(bg, UPPER_MS))
		return true;
	wq_shutdown(fd);
	wqt_bg_join(bg);
	return false;
}

/*
 * A parked get first in line with a buffer too small for the key it is
 * woken for (-EMSGSIZE, nothing taken) passes the wake-up on: the
 * blocked WQ_IOC_GET behind it gets the key.
 */
TEST_F_TIMEOUT(wake, a_woken_get_that_fails_passes_its_wake_up_on, 60)
{
	static char small[4], key[101];
	struct wqt_bg bg;
	struct wqt_cqe c;

	PREP_GET(&self->ring, self->fd, small, sizeof(small), 1);
	SUBMIT(&self->ring, 1);
	ASSERT_TRUE(wqt_parked(0, 1));
	/* no time limit: a get's own deadline would take the key too */
	ASSERT_EQ(0, wqt_bg_start(&bg, WQT_GET, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 2));
	memset(key, 'x', sizeof(key) - 1);
	ASSERT_EQ(0, ADD(self->fd, key));
	wqt_reap(&self->ring, UPPER_MS, &c);
	EXPECT_EQ(-EMSGSIZE, c.res);
	ASSERT_TRUE(bg_woken(&bg, self->fd)) TH_LOG("the blocked get slept on");
	EXPECT_EQ(100, bg.ret);
	EXPECT_STREQ(key, bg.buf);
	ASSERT_EQ(0, DONE(self->fd, key));
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* A blocking wq_get into 200 bytes, more than the module's probe takes. */
static long get_small(struct wqt_job *j)
{
	static char buf[200];

	return wq_get(j->fd, buf, sizeof(buf), -1);
}

/* The ioctl twin: the first get's buffer beyond the probe's, below the key. */
TEST_F_TIMEOUT(wake, an_ioctl_get_that_fails_passes_its_wake_up_on, 60)
{
	static char key[301];
	struct wqt_job g;
	struct wqt_bg bg;

	ASSERT_EQ(0, wqt_job_start(&g, get_small, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, wqt_bg_start(&bg, WQT_GET, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 2));
	memset(key, 'y', sizeof(key) - 1);
	ASSERT_EQ(0, ADD(self->fd, key));
	ASSERT_TRUE(wqt_job_wait(&g, UPPER_MS)) TH_LOG("the first get slept on");
	EXPECT_EQ(-EMSGSIZE, g.ret);
	ASSERT_TRUE(bg_woken(&bg, self->fd)) TH_LOG("the second get slept on");
	EXPECT_EQ(300, bg.ret);
	ASSERT_EQ(0, DONE(self->fd, key));
}

/*
 * A batch get parked on a ring is counted for one key, as its try waits
 * for the submitter's task work: on a ring with IORING_SETUP_DEFER_TASKRUN,
 * which runs it only when the task waits for completions, two keys added
 * wake the blocked get behind it, which takes the first at once; the
 * parked batch takes the second once the ring is reaped.
 */
TEST_F_TIMEOUT(wake, a_parked_batch_counts_for_one_key, 60)
{
	static char buf[64];
	static struct iovec got[8];
	struct iovec keys[] = { { "k1", 2 }, { "k2", 2 } };
	struct io_uring ring;
	struct wqt_bg bg;
	struct wqt_cqe c;

	WQT_RING_INIT(&ring, IORING_SETUP_SINGLE_ISSUER |
			     IORING_SETUP_DEFER_TASKRUN);
	wq_prep_get_batch(wqt_sqe(&ring, 1), self->fd, buf, sizeof(buf), got,
			  8);
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, wqt_bg_start(&bg, WQT_GET, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 2));
	ASSERT_EQ(2, wq_add_batch(self->fd, keys, 2, NULL));
	/* the ring not entered: the parked batch has taken nothing yet */
	EXPECT_TRUE(bg_woken(&bg, self->fd))
		TH_LOG("the blocked get slept while the parked batch waited");
	EXPECT_EQ(2, bg.ret);
	EXPECT_STREQ("k1", bg.buf);
	wqt_reap(&ring, UPPER_MS, &c);
	EXPECT_EQ(1, c.res);
	EXPECT_STATS(self->fd, STAT(processing, 2), STAT(queued, 0));
	io_uring_queue_exit(&ring);
}

/* A blocking wq_get_batch of 8 keys into room for one. */
static long get_batch_small(struct wqt_job *j)
{
	static char buf[3];
	static struct iovec got[8];

	return wq_get_batch(j->fd, buf, sizeof(buf), got, 8, -1);
}

TEST_F_TIMEOUT(wake, an_ioctl_batch_that_takes_fewer_passes_its_wake_up_on,
	       60)
{
	struct iovec keys[] = { { "k1", 2 }, { "k2", 2 } };
	struct wqt_job g;
	struct wqt_bg bg;

	ASSERT_EQ(0, wqt_job_start(&g, get_batch_small, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, wqt_bg_start(&bg, WQT_GET, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 2));
	ASSERT_EQ(2, wq_add_batch(self->fd, keys, 2, NULL));
	ASSERT_TRUE(wqt_job_wait(&g, UPPER_MS)) TH_LOG("the batch slept on");
	EXPECT_EQ(1, g.ret);
	ASSERT_TRUE(bg_woken(&bg, self->fd)) TH_LOG("the blocked get slept on");
	EXPECT_EQ(2, bg.ret);
	EXPECT_STREQ("k2", bg.buf);
}

/* A blocking wq_get_batch of 8 keys into room for one key of 100 bytes. */
static long get_batch_one_long(struct wqt_job *j)
{
	static char buf[100];
	static struct iovec got[8];

	return wq_get_batch(j->fd, buf, sizeof(buf), got, 8, -1);
}

/*
 * A batch that takes fewer keys than it was woken for wakes consumers for
 * every key left, not one: three long keys wake the batch first in line
 * for all three; it takes one, and the two gets behind it (each trying a
 * small buffer first, then again with room for the key) take the others.
 */
TEST_F_TIMEOUT(wake, a_pass_on_wakes_for_every_key_left, 60)
{
	static char k[3][101];
	struct iovec keys[3];
	struct wqt_bg a, x;
	struct wqt_job b;
	int i;

	for (i = 0; i < 3; i++) {
		memset(k[i], 'a' + i, 100);
		keys[i] = (struct iovec){ k[i], 100 };
	}
	ASSERT_EQ(0, wqt_job_start(&b, get_batch_one_long, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 1));
	ASSERT_EQ(0, wqt_bg_start(&a, WQT_GET, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 2));
	ASSERT_EQ(0, wqt_bg_start(&x, WQT_GET, self->fd, -1));
	ASSERT_TRUE(wqt_parked(0, 3));
	ASSERT_EQ(3, wq_add_batch(self->fd, keys, 3, NULL));
	EXPECT_LT(0, WAIT_STAT(self->fd, processing, 3))
		TH_LOG("a key stayed queued while a consumer slept");
	ASSERT_TRUE(wqt_job_wait(&b, UPPER_MS));
	EXPECT_EQ(1, b.ret);
	EXPECT_TRUE(bg_woken(&a, self->fd));
	EXPECT_TRUE(bg_woken(&x, self->fd)) TH_LOG("the last get slept on");
	EXPECT_EQ(100, a.ret);
	EXPECT_EQ(100, x.ret);
}

TEST_HARNESS_MAIN
