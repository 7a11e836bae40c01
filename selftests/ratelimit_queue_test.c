// SPDX-License-Identifier: GPL-2.0
/*
 * The queue behind the rate limiter: wq_add_rate_limited, wq_forget and
 * wq_num_requeues on keys in every state. A rate-limited key really waits
 * (never handed out before its delay; upper bounds are seconds); failures
 * are counted while a key is queued, waiting or processing, and Forget
 * removes no key; failure counts belong to the queue (shared between
 * handles, counted once each by concurrent callers); calls that fail
 * (shut down, full queue, bad key, bad raw arguments) change nothing.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_ratelimit.h"

/* ---- rate-limited keys wait ---------------------------------------------- */

TEST_F(rl, delayed_key_waits)
{
	const int64_t d = 300 * MS;
	struct wq_stats st;
	uint64_t got = 0;
	int64_t t0;
	char buf[16];
	int fd, n;

	NEWQ(fd, "exponential:300ms:10s", 0);
	t0 = now_ns();
	ASSERT_EQ(0, ARL(fd, "k", &got));
	ASSERT_EQ((uint64_t)d, got);
	n = wq_len(fd);
	if (STAT_BEFORE(fd, st, t0 + d)) {
		EXPECT_EQ(0, n);
		EXPECT_STATS_OF(st, STAT(waiting, 1), STAT(queued, 0),
				STAT(keys, 1));
		ASSERT_EQ(-EAGAIN, wq_get(fd, buf, sizeof(buf), 0));
	}
	EXPECT_EQ(1U, st.tracked);
	EXPECT_EQ((uint64_t)1, st.retries);
	EXPECT_GET_AFTER(fd, "k", t0 + d);
	EXPECT_REQUEUES(fd, "k", 1);
	ASSERT_EQ(0, DONE(fd, "k"));
	/* kept only for its failure count now */
	EXPECT_STATS(fd, STAT(keys, 0), STAT(waiting, 0), STAT(tracked, 1));
	EXPECT_REQUEUES(fd, "k", 1);
	/* the next failure waits twice as long, and is not handed out early */
	t0 = now_ns();
	EXPECT_DELAY(fd, "k", 2 * d);
	EXPECT_GET_AFTER(fd, "k", t0 + 2 * d);
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_EQ(0, FORGET(fd, "k"));
	EXPECT_STATS(fd, STAT(tracked, 0), STAT(keys, 0));
}

/* ---- failures count whatever the key's state; Forget removes nothing ---- */

TEST_F(rl, counts_while_queued)
{
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(0, ADD(fd, "k"));
	ASSERT_EQ(1, wq_len(fd));
	EXPECT_DOUBLING(fd, "k", 1 * MS, 3);
	EXPECT_REQUEUES(fd, "k", 3);
	/* the waiting copies fire into the queued one */
	ASSERT_LT(0, WAIT_STAT(fd, waiting, 0U)) TH_LOG("k still waits");
	EXPECT_STATS(fd, STAT(waiting, 0), STAT(queued, 1), STAT(keys, 1),
		     STAT(tracked, 1));
	/* Forget does not take the key off the queue */
	ASSERT_EQ(0, FORGET(fd, "k"));
	EXPECT_REQUEUES(fd, "k", 0);
	ASSERT_EQ(1, wq_len(fd));
	EXPECT_STATS(fd, STAT(tracked, 0), STAT(keys, 1));
	EXPECT_GET(fd, "k");
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_EQ(0, wq_len(fd));
	EXPECT_STATS(fd, STAT(keys, 0));
}

TEST_F(rl, counts_while_processing)
{
	struct wq_stats st;
	int64_t end;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(0, ADD(fd, "k"));
	EXPECT_GET(fd, "k");
	EXPECT_DOUBLING(fd, "k", 1 * MS, 2);
	EXPECT_REQUEUES(fd, "k", 2);
	/* fired while processing: dirty, queued again at done */
	end = now_ns() + UPPER_MS * MS;
	do {
		ASSERT_EQ(0, wqt_stat(fd, &st));
		if (st.dirty)
			break;
		wqt_sleep_ms(1);
	} while (now_ns() < end);
	ASSERT_EQ(1U, st.dirty);
	ASSERT_EQ(0, wq_len(fd));
	ASSERT_EQ(0, FORGET(fd, "k"));	/* does not cancel the re-queue */
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_EQ(1, wq_len(fd));
	EXPECT_GET(fd, "k");
	EXPECT_REQUEUES(fd, "k", 0);
	ASSERT_EQ(0, DONE(fd, "k"));
}

TEST_F(rl, counts_while_waiting)
{
	int fd;

	NEWQ(fd, "exponential:1h:10h", 0);
	EXPECT_DOUBLING(fd, "w", 1 * HOUR, 3);
	EXPECT_REQUEUES(fd, "w", 3);
	EXPECT_STATS(fd, STAT(waiting, 1), STAT(keys, 1));
	EXPECT_EQ(0, wq_len(fd));
	/* Forget does not cancel the wait */
	ASSERT_EQ(0, FORGET(fd, "w"));
	EXPECT_REQUEUES(fd, "w", 0);
	EXPECT_STATS(fd, STAT(waiting, 1), STAT(keys, 1), STAT(tracked, 0));
	EXPECT_DELAY(fd, "w", 1 * HOUR);
}

/* Forget of a key the queue does not know: 0, and nothing is created. */
TEST_F(rl, forget_unknown_key)
{
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(0, FORGET(fd, "nobody"));
	EXPECT_REQUEUES(fd, "nobody", 0);
	ASSERT_EQ(0, ADD(fd, "plain"));
	ASSERT_EQ(0, FORGET(fd, "plain"));	/* held, no failures */
	EXPECT_REQUEUES(fd, "plain", 0);
	EXPECT_STATS(fd, STAT(keys, 1), STAT(tracked, 0), STAT(queued, 1));
}

/* ---- failure counts belong to the queue ----------------------------------- */

/* Failure counts belong to the queue, not to a handle. */
TEST_F(rl, shared_between_handles)
{
	int fd, fd2;

	NEWQ(fd, "exponential:1ms:1s", 0);
	fd2 = wq_open(self->name[0]);
	ASSERT_LE(0, fd2);
	EXPECT_DELAY(fd, "k", 1 * MS);
	EXPECT_DELAY(fd2, "k", 2 * MS);
	EXPECT_REQUEUES(fd2, "k", 2);
	EXPECT_REQUEUES(fd, "k", 2);
	ASSERT_EQ(0, wq_close(fd2));
	EXPECT_REQUEUES(fd, "k", 2);
	/* the queue outlives its handles, and so do the counts */
	ASSERT_EQ(0, wq_close(fd));
	self->fd[0] = -1;
	fd = wq_open(self->name[0]);
	ASSERT_LE(0, fd);
	self->fd[0] = fd;
	EXPECT_REQUEUES(fd, "k", 2);
	fd2 = wq_open(self->name[0]);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, FORGET(fd2, "k"));
	ASSERT_EQ(0, wq_close(fd2));
	EXPECT_REQUEUES(fd, "k", 0);
}

/* Concurrent failures of one key are each counted once: the delays
 * handed out are exactly those of calls 1..N, in some order. */
TEST_F(rl, concurrent_failures_of_one_key)
{
	enum { T = 4, PER = 250, N = T * PER };
	static uint64_t out[N];
	int fd, i;

	NEWQ(fd, "exponential:1ns:1000s", 0);
	arl_at_once(_metadata, fd, T, PER, false, out);
	EXPECT_REQUEUES(fd, "k", N);
	qsort(out, N, sizeof(out[0]), cmp_u64);
	for (i = 0; i < N; i++) {
		ASSERT_EQ(exp_ref(1, 1000 * SEC, i + 1), out[i])
			TH_LOG("sorted delay %d", i);
	}
}

/* ---- calls that fail change nothing -------------------------------------- */

TEST_F(rl, error_after_shutdown)
{
	struct wq_stats st;
	uint64_t d = 12345;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	EXPECT_DOUBLING(fd, "k", 1 * MS, 2);
	ASSERT_EQ(0, wq_shutdown(fd));
	ASSERT_EQ(-ESHUTDOWN, ARL(fd, "k", &d));
	EXPECT_REQUEUES(fd, "k", 2);	/* client-go would count a 3rd */
	ASSERT_EQ(-ESHUTDOWN, ARL(fd, "new", &d));
	ASSERT_EQ(-ESHUTDOWN, ARL(fd, "new", NULL));
	EXPECT_REQUEUES(fd, "new", 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1U, st.tracked);
	EXPECT_EQ(0U, st.waiting);	/* dropped by the shutdown */
	/* Forget and NumRequeues still answer */
	ASSERT_EQ(0, FORGET(fd, "k"));
	EXPECT_REQUEUES(fd, "k", 0);
	EXPECT_STATS(fd, STAT(tracked, 0));
}

TEST_F(rl, error_full_queue)
{
	char buf[16];
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 1);
	/* b: idle, kept for one failure */
	EXPECT_DELAY(fd, "b", 1 * MS);
	ASSERT_EQ(1, get_str(fd, buf, sizeof(buf), UPPER_MS));
	ASSERT_STREQ("b", buf);
	ASSERT_EQ(0, DONE(fd, "b"));
	ASSERT_EQ(0, ADD(fd, "a"));	/* full */
	ASSERT_EQ(-EAGAIN, ARL(fd, "c", NULL));
	EXPECT_REQUEUES(fd, "c", 0);
	/* an idle key is not held: it needs room too, and keeps its count */
	ASSERT_EQ(-EAGAIN, ARL(fd, "b", NULL));
	EXPECT_REQUEUES(fd, "b", 1);
	EXPECT_STATS(fd, STAT(keys, 1), STAT(tracked, 1), STAT(waiting, 0),
		     STAT(queued, 1));
	/* a key the queue holds never fails for capacity */
	EXPECT_DELAY(fd, "a", 1 * MS);
	EXPECT_REQUEUES(fd, "a", 1);
	/* a's waiting copy fires into the queued one; take a, let it go */
	ASSERT_LT(0, WAIT_STAT(fd, waiting, 0U)) TH_LOG("a still waits");
	EXPECT_GET(fd, "a");
	ASSERT_EQ(0, DONE(fd, "a"));
	ASSERT_EQ(0, wq_len(fd));
	/* room again: b's count goes on from 1 */
	EXPECT_DELAY(fd, "b", 2 * MS);
	EXPECT_REQUEUES(fd, "b", 2);
	EXPECT_REQUEUES(fd, "a", 1);
	EXPECT_REQUEUES(fd, "c", 0);
}

TEST_F(rl, error_bad_key)
{
	char big[WQ_KEY_MAX + 1];
	struct wq_stats st;
	uint64_t d = 12345;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	memset(big, 'x', sizeof(big));
	ASSERT_EQ(-EINVAL, wq_add_rate_limited(fd, "", 0, &d));
	ASSERT_EQ(-EINVAL, wq_add_rate_limited(fd, big, WQ_KEY_MAX + 1, &d));
	ASSERT_EQ(-EINVAL, wq_forget(fd, "", 0));
	ASSERT_EQ(-EINVAL, wq_num_requeues(fd, "", 0));
	ASSERT_EQ(-EINVAL, wq_forget(fd, big, WQ_KEY_MAX + 1));
	ASSERT_EQ(-EINVAL, wq_num_requeues(fd, big, WQ_KEY_MAX + 1));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.keys);
	EXPECT_EQ(0U, st.tracked);
	EXPECT_EQ((uint64_t)0, st.retries);
	/* the longest key is fine, and not the same as its prefix */
	d = 0;
	ASSERT_EQ(0, wq_add_rate_limited(fd, big, WQ_KEY_MAX, &d));
	ASSERT_EQ((uint64_t)(1 * MS), d);
	ASSERT_EQ(1, wq_num_requeues(fd, big, WQ_KEY_MAX));
	ASSERT_EQ(0, wq_num_requeues(fd, big, WQ_KEY_MAX - 1));
}

/* The raw ABI: WQ_ADD_RATE_LIMITED with a delay is -EINVAL, counts nothing. */
TEST_F(rl, error_raw_delay_with_rate_limited)
{
	struct wq_add a = { .flags = WQ_ADD_RATE_LIMITED, .key_len = 1,
			    .key = (uintptr_t)"k", .delay_ns = 1000 };
	struct wq_queue_info qi;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(-1, ioctl(fd, WQ_IOC_ADD, &a));
	ASSERT_EQ(EINVAL, errno);
	EXPECT_REQUEUES(fd, "k", 0);
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(0U, qi.keys);
	EXPECT_EQ(0U, qi.tracked);
	a.delay_ns = 0;
	ASSERT_EQ(0, ioctl(fd, WQ_IOC_ADD, &a));
	EXPECT_EQ((uint64_t)(1 * MS), (uint64_t)a.delay_ns);
	EXPECT_REQUEUES(fd, "k", 1);
}

TEST_HARNESS_MAIN
