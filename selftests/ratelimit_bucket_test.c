// SPDX-License-Identifier: GPL-2.0
/*
 * The token bucket of the rate limiters ("bucket:QPS:BURST", and the bucket
 * of the default limiter): the burst, refill, the cap at BURST, fractional
 * QPS, one bucket per queue and not per key, max-of asking the bucket too,
 * keys really waiting for their token, a failed call taking none, and
 * concurrent callers sharing one bucket.
 *
 * Bucket delays depend on the time between calls (the bucket refills
 * meanwhile), so they are checked against the time measured around the
 * calls: a delay is never more than the no-refill value, and never less
 * than that value minus the elapsed time. A check whose premise needs two
 * calls to be close together skips when the guest stalled in between.
 */
#include "wq_test_util.h"
#include "wq_test_ratelimit.h"

/*
 * A delay d of the bucket, want without any refill, from a call that ended
 * elapsed ns after the bucket's state was known: never more than want, and
 * never less than want - elapsed.
 */
static void expect_bucket_delay(struct __test_metadata *_metadata,
				uint64_t d, int64_t want, int64_t elapsed)
{
	ASSERT_GE((uint64_t)want, d)
		TH_LOG("delay %.3f ms, more than %.3f ms", ms_of(d), ms_of(want));
	if (elapsed < want)
		ASSERT_LE((uint64_t)(want - elapsed), d)
			TH_LOG("delay %.3f ms, %.3f ms after: less than %.3f ms",
			       ms_of(d), ms_of(elapsed), ms_of(want - elapsed));
}

/* wq_add_rate_limited of n new keys (first, first + 1, ...): each delay want. */
static void expect_new_keys(struct __test_metadata *_metadata, int fd,
			    int first, int n, uint64_t want)
{
	char k[WQT_KEY_LEN + 1];
	int i;

	for (i = first; i < first + n; i++) {
		uint64_t d = ~0ULL;

		ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, i), &d));
		ASSERT_EQ(want, d) TH_LOG("key %d", i);
	}
}

/*
 * The bucket part of the default limiter: 100 new keys get 5ms each (the
 * bucket starts full), the 101st waits for the bucket (100ms less whatever
 * refilled since the first call).
 */
TEST_F(rl, default_bucket_part)
{
	int64_t t0, el;
	uint64_t d;
	int fd;

	NEWQ(fd, NULL, 0);
	t0 = now_ns();
	expect_new_keys(_metadata, fd, 0, 100, 5 * MS);
	d = arl_since(_metadata, fd, "k00100", t0, &el);	/* key 100 */
	TH_LOG("101st key: delay %.3f ms, %.3f ms after the first",
	       ms_of(d), ms_of(el));
	ASSERT_LE((uint64_t)(5 * MS), d);
	expect_bucket_delay(_metadata, d, 100 * MS, el);
	EXPECT_REQUEUES(fd, "k00100", 1);
}

/*
 * bucket:10:100: 100 distinct keys pass at once, then one token per 100ms:
 * the 101st waits up to 100ms, the 102nd up to 200ms, each less the time
 * since the first call (refill). No per-key state: NumRequeues 0.
 */
TEST_F(rl, bucket_burst)
{
	char k[WQT_KEY_LEN + 1];
	struct wq_stats st;
	int64_t t0, e1, e2;
	uint64_t d1, d2;
	int fd, i;

	NEWQ(fd, "bucket:10:100", 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_STREQ("bucket:10:100", st.limiter);
	t0 = now_ns();
	expect_new_keys(_metadata, fd, 0, 100, 0);
	d1 = arl_since(_metadata, fd, "k00100", t0, &e1);
	d2 = arl_since(_metadata, fd, "k00101", t0, &e2);
	TH_LOG("101st: %.3f ms (%.3f ms in), 102nd: %.3f ms (%.3f ms in)",
	       ms_of(d1), ms_of(e1), ms_of(d2), ms_of(e2));
	expect_bucket_delay(_metadata, d1, 100 * MS, e1);
	expect_bucket_delay(_metadata, d2, 200 * MS, e2);
	if (e1 < 100 * MS)
		ASSERT_LT(0ULL, d1);
	if (e2 < 100 * MS)
		ASSERT_LT((uint64_t)(100 * MS), d2);
	/* the 102nd reserved the token after the 101st's */
	if (e2 < 100 * MS)
		ASSERT_LT(d1, d2);

	for (i = 0; i < 102; i++) {
		wqt_key(k, i);
		ASSERT_EQ(0, wq_num_requeues(fd, k, WQT_KEY_LEN)) TH_LOG("%s", k);
	}
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.tracked);
	EXPECT_EQ(102U, st.keys);
	EXPECT_LE(100U, st.queued);
}

/* The bucket is the queue's, not the key's: one key drains it too. */
TEST_F(rl, bucket_not_per_key)
{
	int64_t t0, el;
	uint64_t d;
	int fd;

	NEWQ(fd, "bucket:10:2", 0);
	t0 = now_ns();
	EXPECT_DELAY(fd, "k", 0);
	EXPECT_DELAY(fd, "k", 0);	/* queued: coalesces, takes a token */
	d = arl_since(_metadata, fd, "k", t0, &el);
	expect_bucket_delay(_metadata, d, 100 * MS, el);
	EXPECT_REQUEUES(fd, "k", 0);
	ASSERT_EQ(1, wq_len(fd));
	EXPECT_STATS(fd, STAT(keys, 1), STAT(tracked, 0));
	/* one bucket per queue: a second queue's bucket is full */
	NEWQ(fd, "bucket:10:2", 0);
	EXPECT_DELAY(fd, "k", 0);
	EXPECT_DELAY(fd, "k", 0);
}

/* Tokens come back at QPS: after 150ms an empty bucket:10:1 has one. */
TEST_F(rl, bucket_refills)
{
	uint64_t d;
	int64_t el;
	int fd;

	NEWQ(fd, "bucket:10:1", 0);
	EXPECT_DELAY(fd, "a", 0);
	wqt_sleep_ms(150);
	d = arl_after(_metadata, fd, "b", 0, "c", &el);
	expect_bucket_delay(_metadata, d, 100 * MS, el);
}

/* The refill stops at BURST: a second of idling gives 2 tokens, not 10. */
TEST_F(rl, bucket_capped_at_burst)
{
	int64_t t0, el;
	uint64_t d;
	int fd;

	NEWQ(fd, "bucket:10:2", 0);
	EXPECT_DELAY(fd, "a", 0);
	EXPECT_DELAY(fd, "b", 0);
	wqt_sleep_ms(1000);
	t0 = now_ns();
	EXPECT_DELAY(fd, "c", 0);
	EXPECT_DELAY(fd, "d", 0);
	d = arl_since(_metadata, fd, "e", t0, &el);
	TH_LOG("third key after the pause: %.3f ms (%.3f ms in)", ms_of(d),
	       ms_of(el));
	ASSERT_GE((uint64_t)(100 * MS), d);
	SKIP_IF_STALLED(el >= 100 * MS, "100ms between the calls");
	ASSERT_LT(0ULL, d) TH_LOG("the bucket held more than BURST tokens");
	ASSERT_LE((uint64_t)(100 * MS - el), d);
}

/* Fractional QPS: bucket:0.5:1 gives one token per 2 s. */
TEST_F(rl, bucket_fractional_qps)
{
	int64_t t0, e1, e2;
	uint64_t d1, d2;
	int fd;

	NEWQ(fd, "bucket:0.5:1", 0);
	t0 = now_ns();
	EXPECT_DELAY(fd, "a", 0);
	d1 = arl_since(_metadata, fd, "b", t0, &e1);
	d2 = arl_since(_metadata, fd, "c", t0, &e2);
	TH_LOG("second: %.3f ms, third: %.3f ms", ms_of(d1), ms_of(d2));
	ASSERT_GE((uint64_t)(2 * SEC), d1);
	ASSERT_LE((uint64_t)(2 * SEC - e1), d1);
	ASSERT_GE((uint64_t)(4 * SEC), d2);
	ASSERT_LE((uint64_t)(4 * SEC - e2), d2);
}

/* max-of asks every term: a bucket token is taken although the per-key
 * delay was larger. */
TEST_F(rl, max_of_asks_every_term)
{
	uint64_t d;
	int64_t el;
	int fd;

	NEWQ(fd, "fastslow:1ms:1ms:1000,bucket:10:1", 0);
	d = arl_after(_metadata, fd, "a", 1 * MS, "b", &el);
	ASSERT_GE((uint64_t)(100 * MS), d);
	ASSERT_LE((uint64_t)(1 * MS), d);
	SKIP_IF_STALLED(el >= 99 * MS, "100ms between the calls");
	ASSERT_LE((uint64_t)(100 * MS - el), d)
		TH_LOG("the first call did not take the bucket's token");
	EXPECT_REQUEUES(fd, "a", 1);
	EXPECT_REQUEUES(fd, "b", 1);
}

/*
 * Keys that wait for the bucket (bucket:20:1, one token per 50ms) are
 * never handed out before the delay their call returned, and come out in
 * the order of their ready times.
 */
TEST_F(rl, bucket_keys_wait_their_turn)
{
	enum { N = 24 };
	char k[WQT_KEY_LEN + 1];
	int64_t ready[N], end;
	uint64_t d;
	int fd, i, got = 0;

	NEWQ(fd, "bucket:20:1", 0);
	for (i = 0; i < N; i++) {
		int64_t t = now_ns();

		d = ~0ULL;
		ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, i), &d));
		ASSERT_GE((uint64_t)i * 50 * MS, d) TH_LOG("key %d", i);
		ready[i] = t + (int64_t)d;
		/* a key added at once could pass a late timer of an earlier one */
		SKIP_IF_STALLED(i && !d, "a token refilled during the adds");
	}
	end = now_ns() + UPPER_MS * MS;
	while (got < N && now_ns() < end) {
		i = wqt_get_i(fd, 200);
		if (i == -ETIMEDOUT)
			continue;
		ASSERT_LE(0, i);
		ASSERT_EQ(got, i) TH_LOG("out of order");
		ASSERT_LE(ready[i], now_ns())
			TH_LOG("key %d handed out %.3f ms early", i,
			       ms_of(ready[i] - now_ns()));
		got++;
		ASSERT_EQ(0, wqt_done_i(fd, i));
	}
	ASSERT_EQ(N, got);
}

/* A failed call takes no token: bucket:0.1:1 has one token per 10 s. */
TEST_F(rl, error_takes_no_token)
{
	int64_t t0, t1;
	uint64_t d = ~0ULL;
	int fd;

	NEWQ(fd, "bucket:0.1:1", 1);
	ASSERT_EQ(0, ADD(fd, "a"));
	t0 = now_ns();
	ASSERT_EQ(-EAGAIN, ARL(fd, "b", &d));
	EXPECT_GET(fd, "a");
	ASSERT_EQ(0, DONE(fd, "a"));
	ASSERT_EQ(0, ARL(fd, "b", &d));
	t1 = now_ns();
	SKIP_IF_STALLED(t1 - t0 >= 9 * SEC, "a token refilled meanwhile");
	ASSERT_EQ(0ULL, d) TH_LOG("the failed call took the token");
	/* b holds the queue's one slot; the bucket is empty now */
	ASSERT_EQ(0, ARL(fd, "b", &d));
	ASSERT_LT(0ULL, d);
	ASSERT_GE((uint64_t)(10 * SEC), d);
}

/* Concurrent callers share one bucket: no more than BURST plus the refill
 * pass without delay, and at least BURST. */
TEST_F(rl, concurrent_bucket)
{
	enum { T = 4, PER = 100, N = T * PER };
	static uint64_t out[N];
	int64_t t0, el;
	int fd, i, zero = 0;

	NEWQ(fd, "bucket:10:100", 0);
	t0 = now_ns();
	arl_at_once(_metadata, fd, T, PER, true, out);
	el = now_ns() - t0;
	for (i = 0; i < N; i++) {
		if (!out[i])
			zero++;
		ASSERT_GE((uint64_t)(N - 100) * 100 * MS, out[i]);
	}
	TH_LOG("%d of %d without delay in %.3f ms", zero, N, ms_of(el));
	ASSERT_LE(100, zero);
	ASSERT_GE(100 + 1 + el / (100 * MS), zero);
	/* the k-th reservation past the burst waits at most k * 100ms */
	qsort(out, N, sizeof(out[0]), cmp_u64);
	for (i = 100; i < N; i++) {
		ASSERT_GE((uint64_t)(i - 99) * 100 * MS, out[i]) TH_LOG("%d", i);
	}
}

TEST_HARNESS_MAIN
