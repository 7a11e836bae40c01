// SPDX-License-Identifier: GPL-2.0
/*
 * The per-key rate limiters of wq_add_rate_limited, by the delays it
 * returns (wq_add(3)): ports client-go's rate_limiting_queue_test.go R1
 * and default_rate_limiters_test.go L1-L5, then the default limiter's
 * numbers, exponential overflow (saturation, never 0 or wrapped) and
 * "none". The expected delays are tables and series; every one is exact.
 *
 * The token bucket is ratelimit_bucket_test.c, the queue behind the
 * limiter ratelimit_queue_test.c, max_tracked ratelimit_tracked_test.c.
 */
#include "wq_test_util.h"
#include "wq_test_ratelimit.h"

/* ---- client-go R1 and L1-L5 ------------------------------------------- */

/*
 * L1, L3 and L4 of client-go, one table each: a limiter spec and the
 * delays of the first five failures of a key.
 */
struct five_failures {
	const char *spec;
	uint64_t delay[5];
};

static const struct five_failures l1 = {
	"exponential:1ms:1s", { 1 * MS, 2 * MS, 4 * MS, 8 * MS, 16 * MS },
};

static const struct five_failures l3 = {
	"fastslow:5ms:10s:3", { 5 * MS, 5 * MS, 5 * MS, 10 * SEC, 10 * SEC },
};

static const struct five_failures l4 = {
	"fastslow:5ms:3s:3,exponential:1ms:1s",
	{ 5 * MS, 5 * MS, 5 * MS, 3 * SEC, 3 * SEC },
};

/*
 * The steps those three tests share: "one" fails five times, "two" twice
 * (a count of its own: the first two delays), and Forget("one") starts it
 * over at the first delay.
 */
static void one_two_forget(struct __test_metadata *_metadata, int fd,
			   const struct five_failures *c)
{
	expect_delays(_metadata, fd, "one", c->delay, 5);
	EXPECT_REQUEUES(fd, "one", 5);
	expect_delays(_metadata, fd, "two", c->delay, 2);
	EXPECT_REQUEUES(fd, "two", 2);
	ASSERT_EQ(0, FORGET(fd, "one"));
	EXPECT_REQUEUES(fd, "one", 0);
	expect_delays(_metadata, fd, "one", c->delay, 1);
}

/* R1 TestRateLimitingQueue, with the delays wq_add_rate_limited returns. */
TEST_F(rl, r1_rate_limiting_queue)
{
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	EXPECT_DOUBLING(fd, "one", 1 * MS, 2);
	EXPECT_REQUEUES(fd, "one", 2);
	EXPECT_DOUBLING(fd, "two", 1 * MS, 2);
	ASSERT_EQ(0, FORGET(fd, "one"));
	EXPECT_REQUEUES(fd, "one", 0);
	EXPECT_DELAY(fd, "one", 1 * MS);
	EXPECT_REQUEUES(fd, "one", 1);
	EXPECT_REQUEUES(fd, "two", 2);
}

/* L1 TestItemExponentialFailureRateLimiter */
TEST_F(rl, l1_exponential)
{
	int fd;

	NEWQ(fd, l1.spec, 0);
	one_two_forget(_metadata, fd, &l1);
	/* ... up to the cap: 1ms * 2^10 > 1s */
	EXPECT_DOUBLING(fd, "three", 1 * MS, 10);
	EXPECT_SAME(fd, "three", 1 * SEC, 2);
	EXPECT_REQUEUES(fd, "three", 12);
}

/*
 * L2 TestItemExponentialFailureRateLimiterOverFlow. The key waits after its
 * first call, so the later calls coalesce with the waiting copy: each one
 * still counts a failure.
 */
TEST_F(rl, l2_exponential_overflow)
{
	int fd, fd2, i;

	NEWQ(fd, "exponential:1ms:1000s", 0);
	EXPECT_DOUBLING(fd, "one", 1 * MS, 6);
	for (i = 1; i <= 1000; i++) {
		uint64_t d = ~0ULL;

		ASSERT_EQ(0, ARL(fd, "overflow1", &d));
		ASSERT_EQ(exp_ref(1 * MS, 1000 * SEC, i), d) TH_LOG("call %d", i);
	}
	EXPECT_DELAY(fd, "overflow1", 1000 * SEC);
	EXPECT_REQUEUES(fd, "overflow1", 1001);
	EXPECT_STATS(fd, STAT(keys, 2), STAT(tracked, 2));

	NEWQ(fd2, "exponential:1m:1000h", 0);
	EXPECT_DOUBLING(fd2, "two", 1 * MINUTE, 3);
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, ARL(fd2, "overflow2", NULL));
	EXPECT_DELAY(fd2, "overflow2", 1000 * HOUR);
	EXPECT_REQUEUES(fd2, "overflow2", 1001);
}

/*
 * n failures in a row of key "k", call i (from 1) with delay want[i - 1]:
 * never 0, never more than max, never less than the delay before.
 */
static void expect_saturating(struct __test_metadata *_metadata, int fd,
			      const uint64_t *want, int n, uint64_t max)
{
	uint64_t d, prev = 0;
	int i;

	for (i = 1; i <= n; i++) {
		d = 0;
		ASSERT_EQ(0, ARL(fd, "k", &d));
		ASSERT_NE(0ULL, d) TH_LOG("call %d", i);
		ASSERT_GE(max, d) TH_LOG("call %d", i);
		ASSERT_LE(prev, d) TH_LOG("call %d: %llu after %llu", i,
					  (unsigned long long)d,
					  (unsigned long long)prev);
		ASSERT_EQ(want[i - 1], d) TH_LOG("call %d", i);
		prev = d;
	}
}

/*
 * base 1ns: every delay is exact (2^(n-1) ns), never 0, never wrapped,
 * non-decreasing and saturating at max, also past 2^63 and 2^64.
 */
TEST_F(rl, exponential_1ns_saturates)
{
	uint64_t want[200];
	int fd, i;

	for (i = 1; i <= 200; i++)
		want[i - 1] = exp_ref(1, 1000 * SEC, i);
	NEWQ(fd, "exponential:1ns:1000s", 0);
	expect_saturating(_metadata, fd, want, 200, 1000 * SEC);
	/* 2^39 ns < 1000 s < 2^40 ns */
	ASSERT_EQ(0, FORGET(fd, "k"));
	EXPECT_DOUBLING(fd, "k", 1, 40);
	EXPECT_DELAY(fd, "k", 1000 * SEC);
	EXPECT_REQUEUES(fd, "k", 41);
}

/*
 * The 2^63 edge (client-go #L2 note): with a max just below 2^63 ns, the
 * 63rd failure of a 1ns base is 2^62 ns, the 64th (exactly 2^63, where Go
 * returns a negative duration) must be max, and so is every later one.
 */
TEST_F(rl, exponential_2pow63_saturates)
{
	const uint64_t max = 2562047ULL * HOUR;	/* < 2^63 ns */
	uint64_t want[130];
	int fd, i;

	for (i = 1; i <= 130; i++)
		want[i - 1] = i <= 63 ? 1ULL << (i - 1) : max;
	NEWQ(fd, "exponential:1ns:2562047h", 0);
	expect_saturating(_metadata, fd, want, 130, max);
	/* a base that is no power of two: its top bit passes 2^63 first */
	for (i = 1; i <= 130; i++)
		want[i - 1] = exp_ref(5 * MS, max, i);
	NEWQ(fd, "exponential:5ms:2562047h", 0);
	expect_saturating(_metadata, fd, want, 130, max);
}

/* L3 TestItemFastSlowRateLimiter */
TEST_F(rl, l3_fastslow)
{
	int fd;

	NEWQ(fd, l3.spec, 0);
	one_two_forget(_metadata, fd, &l3);
}

/* L4 TestMaxOfRateLimiter: every term counts, the largest delay wins. */
TEST_F(rl, l4_max_of)
{
	int fd;

	NEWQ(fd, l4.spec, 0);
	one_two_forget(_metadata, fd, &l4);

	/* the exponential term counts every call, also under the other one:
	 * 1ms * 2^(n-1) passes 3s at the 13th */
	NEWQ(fd, "fastslow:5ms:3s:3,exponential:1ms:1000s", 0);
	EXPECT_SAME(fd, "three", 5 * MS, 3);
	EXPECT_SAME(fd, "three", 3 * SEC, 9);
	EXPECT_DOUBLING(fd, "three", 4096 * MS, 2);
	EXPECT_REQUEUES(fd, "three", 14);
}

/*
 * L5 TestWithMaxWaitRateLimiter (client-go's test-only StepRateLimiter is
 * not a spec term: a per-key fastslow plays its part), and maxwait on
 * exponential and bucket terms.
 */
TEST_F(rl, l5_max_wait)
{
	uint64_t d;
	int64_t el;
	int fd;

	NEWQ(fd, "exponential:1s:1000s,maxwait:10s", 0);
	EXPECT_DOUBLING(fd, "one", 1 * SEC, 4);
	EXPECT_SAME(fd, "one", 10 * SEC, 2);
	EXPECT_REQUEUES(fd, "one", 6);

	NEWQ(fd, "fastslow:5ms:1000s:100,maxwait:500s", 0);
	EXPECT_SAME(fd, "step", 5 * MS, 100);
	EXPECT_SAME(fd, "step", 500 * SEC, 100);
	EXPECT_REQUEUES(fd, "step", 200);

	/* the cap applies to the max over the list, bucket included */
	NEWQ(fd, "bucket:10:1,maxwait:50ms", 0);
	d = arl_after(_metadata, fd, "a", 0, "b", &el);
	ASSERT_GE((uint64_t)(50 * MS), d);
	if (el < 50 * MS)
		ASSERT_EQ((uint64_t)(50 * MS), d)
			TH_LOG("bucket wait (~100ms) not capped to 50ms");
	EXPECT_REQUEUES(fd, "b", 0);
}

/* ---- the default limiter ------------------------------------------------ */

/* DefaultControllerRateLimiter: 5ms, 10ms, ... 655.36s, then 1000s. */
TEST_F(rl, default_limiter)
{
	static const char expanded[] = "exponential:5ms:1000s,bucket:10:100";
	struct wq_stats st;
	int fds[2], q, i;

	NEWQ(fds[0], NULL, 0);
	NEWQ(fds[1], "default", 0);
	for (q = 0; q < 2; q++) {
		int fd = fds[q];

		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_STREQ(expanded, st.limiter);
		EXPECT_DOUBLING(fd, "one", 5 * MS, 18);
		EXPECT_DELAY(fd, "one", 1000 * SEC);	/* 19th */
		EXPECT_REQUEUES(fd, "one", 19);
		EXPECT_STATS(fd, STAT(tracked, 1), STAT(keys, 1));
	}
	/* 18th call: 655.36 s exactly */
	ASSERT_EQ(0, FORGET(fds[0], "one"));
	for (i = 1; i < 18; i++)
		ASSERT_EQ(0, ARL(fds[0], "one", NULL));
	EXPECT_DELAY(fds[0], "one", 655360 * MS);
}

/* ---- none ---------------------------------------------------------------- */

TEST_F(rl, none_limiter)
{
	struct wq_stats st;
	int fd;

	NEWQ(fd, "none", 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_STREQ("none", st.limiter);
	EXPECT_DELAY(fd, "k", 0);
	ASSERT_EQ(1, wq_len(fd));	/* queued at once */
	EXPECT_REQUEUES(fd, "k", 0);
	EXPECT_DELAY(fd, "k", 0);
	ASSERT_EQ(1, wq_len(fd));
	EXPECT_REQUEUES(fd, "k", 0);
	EXPECT_STATS(fd, STAT(waiting, 0), STAT(tracked, 0), STAT(keys, 1));
	EXPECT_GET(fd, "k");
	ASSERT_EQ(0, DONE(fd, "k"));
	/* nothing kept for failures */
	EXPECT_STATS(fd, STAT(keys, 0), STAT(tracked, 0));
}

TEST_HARNESS_MAIN
