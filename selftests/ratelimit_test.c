// SPDX-License-Identifier: GPL-2.0
/*
 * RateLimitingInterface: wq_add_rate_limited, wq_forget, wq_num_requeues and
 * the rate-limiter specs (spec/libwq.md). Ports client-go's
 * rate_limiting_queue_test.go R1 and default_rate_limiters_test.go L1-L5 to
 * the delays wq_add_rate_limited returns, then: the default limiter's
 * numbers, exponential overflow (saturation, never 0 or wrapped), the token
 * bucket (burst, refill, cap, fractional QPS, one bucket per queue, not per
 * key), "none", rate-limited keys really waiting, failures counted while
 * queued, waiting or processing, calls that fail changing nothing, failure
 * counts shared between handles and concurrent callers, and max_tracked
 * (least recently used idle failure records forgotten, held keys never).
 *
 * The guest runs under QEMU TCG: slow and noisy. Per-key delays are exact
 * numbers. Bucket delays depend on the time between calls (the bucket refills
 * meanwhile), so they are checked against the time measured around the calls:
 * a delay is never more than the no-refill value, and never less than that
 * value minus the elapsed time. A check whose premise needs two calls to be
 * close together skips when the guest stalled in between. A rate-limited key
 * is never handed out before its delay; upper bounds are seconds.
 */
#include "wq_test_util.h"
#include "wq_test_time.h"
#include "wq_test_ioctl.h"

#define ARL(fd, s, d)	wq_add_rate_limited(fd, s, strlen(s), d)
#define REQUEUES(fd, s)	wq_num_requeues(fd, s, strlen(s))
#define FORGET(fd, s)	wq_forget(fd, s, strlen(s))

/*
 * client-go's ItemExponentialFailureRateLimiter: the n-th failure (n >= 1)
 * waits base * 2^(n-1), capped at max; a product that does not fit (2^63 ns
 * or more, where Go's float64 arithmetic overflows) gives max.
 */
static uint64_t exp_ref(uint64_t base, uint64_t max, unsigned int n)
{
	unsigned int s = n - 1;
	uint64_t d;

	if (s >= 63 || base > (UINT64_MAX >> 1) >> s)
		return max;
	d = base << s;
	return d > max ? max : d;
}

/* One wq_add_rate_limited of s; checks it succeeds with delay want (ns). */
#define EXPECT_DELAY(fd, s, want) do {					\
		uint64_t _d = ~0ULL;					\
		int _r = ARL(fd, s, &_d);				\
		ASSERT_EQ(0, _r) TH_LOG("add_rate_limited(%s): %s", s,	\
					strerror(-_r));			\
		ASSERT_EQ((uint64_t)(want), _d)				\
			TH_LOG("add_rate_limited(%s): delay %llu ns, want %llu ns", \
			       s, (unsigned long long)_d,		\
			       (unsigned long long)(want));		\
	} while (0)

#define EXPECT_REQUEUES(fd, s, want)					\
	ASSERT_EQ(want, REQUEUES(fd, s)) TH_LOG("num_requeues(%s)", s)

/* Polls until no key waits any more (up to UPPER_MS); returns the last
 * waiting count, or a negative error. */
static int wait_no_waiting(int fd)
{
	int64_t end = now_ns() + UPPER_MS * MS;
	struct wq_stats st;
	int r;

	for (;;) {
		r = wqt_stat(fd, &st);
		if (r)
			return r;
		if (!st.waiting || now_ns() > end)
			return (int)st.waiting;
		wqt_sleep_ms(1);
	}
}

/* exponential:BASE:MAX as an ABI limiter description */
static struct wq_limiter exp_limiter(uint64_t base, uint64_t max)
{
	struct wq_limiter lim;

	memset(&lim, 0, sizeof(lim));
	lim.nr_terms = 1;
	lim.terms[0].kind = WQ_LIMITER_EXPONENTIAL;
	lim.terms[0].exponential.base_ns = base;
	lim.terms[0].exponential.max_ns = max;
	return lim;
}

/* ---- fixture: up to RL_QUEUES queues per test, all destroyed after ----- */

#define RL_QUEUES 4

FIXTURE(rl) {
	int n;
	int fd[RL_QUEUES];
	char name[RL_QUEUES][WQ_NAME_MAX];
};

FIXTURE_SETUP(rl)
{
	int i;

	self->n = 0;
	for (i = 0; i < RL_QUEUES; i++) {
		self->fd[i] = -1;
		self->name[i][0] = '\0';
	}
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
}

FIXTURE_TEARDOWN(rl)
{
	int i;

	wqt_reap_all();
	for (i = 0; i < self->n; i++) {
		if (self->fd[i] >= 0)
			close(self->fd[i]);
		if (self->name[i][0])
			wq_destroy(self->name[i]);
	}
}

/* A new queue with limiter spec (NULL: default) and max_items; its fd. */
static int rl_new(FIXTURE_DATA(rl) *self, const char *tag, const char *spec,
		  uint32_t max_items)
{
	struct wq_attr attr = { .limiter = spec, .max_items = max_items };
	int i = self->n, fd;

	if (i >= RL_QUEUES)
		return -ENOSPC;
	wqt_name(self->name[i], tag);
	fd = wq_create(self->name[i], spec || max_items ? &attr : NULL);
	if (fd < 0) {
		self->name[i][0] = '\0';
		return fd;
	}
	self->fd[i] = fd;
	self->n++;
	return fd;
}

/* The same by the raw WQ_IOC_CREATE, with max_tracked. */
static int rl_new_raw(FIXTURE_DATA(rl) *self, const char *tag,
		      const struct wq_limiter *lim, uint32_t max_items,
		      uint32_t max_tracked)
{
	struct wq_create c;
	int i = self->n, fd;

	if (i >= RL_QUEUES)
		return -ENOSPC;
	fd = open("/dev/wq", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&c, 0, sizeof(c));
	wqt_name(self->name[i], tag);
	memcpy(c.name, self->name[i], strlen(self->name[i]));
	c.max_items = max_items;
	c.max_tracked = max_tracked;
	c.limiter = *lim;
	if (ioctl(fd, WQ_IOC_CREATE, &c) < 0) {
		int err = -errno;

		close(fd);
		self->name[i][0] = '\0';
		return err;
	}
	self->fd[i] = fd;
	self->n++;
	return fd;
}

#define NEWQ(fd, spec, max_items) do {					\
		fd = rl_new(self, _metadata->name, spec, max_items);	\
		ASSERT_LE(0, fd) TH_LOG("wq_create(limiter %s): %s",	\
			(const char *)(spec) ?: "NULL", strerror(-fd));	\
	} while (0)

#define NEWQ_RAW(fd, lim, max_items, max_tracked) do {			\
		fd = rl_new_raw(self, _metadata->name, lim, max_items,	\
				max_tracked);				\
		ASSERT_LE(0, fd) TH_LOG("WQ_IOC_CREATE: %s", strerror(-fd)); \
	} while (0)

/* ---- client-go R1 and L1-L5 ------------------------------------------- */

/* R1 TestRateLimitingQueue, with the delays wq_add_rate_limited returns. */
TEST_F(rl, r1_rate_limiting_queue)
{
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	EXPECT_DELAY(fd, "one", 1 * MS);
	EXPECT_DELAY(fd, "one", 2 * MS);
	EXPECT_REQUEUES(fd, "one", 2);
	EXPECT_DELAY(fd, "two", 1 * MS);
	EXPECT_DELAY(fd, "two", 2 * MS);
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

	NEWQ(fd, "exponential:1ms:1s", 0);
	EXPECT_DELAY(fd, "one", 1 * MS);
	EXPECT_DELAY(fd, "one", 2 * MS);
	EXPECT_DELAY(fd, "one", 4 * MS);
	EXPECT_DELAY(fd, "one", 8 * MS);
	EXPECT_DELAY(fd, "one", 16 * MS);
	EXPECT_REQUEUES(fd, "one", 5);
	EXPECT_DELAY(fd, "two", 1 * MS);
	EXPECT_DELAY(fd, "two", 2 * MS);
	EXPECT_REQUEUES(fd, "two", 2);
	ASSERT_EQ(0, FORGET(fd, "one"));
	EXPECT_REQUEUES(fd, "one", 0);
	EXPECT_DELAY(fd, "one", 1 * MS);
	/* ... up to the cap: 1ms * 2^10 > 1s */
	EXPECT_DELAY(fd, "three", 1 * MS);
	for (int i = 2; i <= 10; i++)
		EXPECT_DELAY(fd, "three", (1 * MS) << (i - 1));
	EXPECT_DELAY(fd, "three", 1 * SEC);
	EXPECT_DELAY(fd, "three", 1 * SEC);
	EXPECT_REQUEUES(fd, "three", 12);
}

/*
 * L2 TestItemExponentialFailureRateLimiterOverFlow. The key waits after its
 * first call, so the later calls coalesce with the waiting copy: each one
 * still counts a failure.
 */
TEST_F(rl, l2_exponential_overflow)
{
	struct wq_stats st;
	int fd, fd2, i;

	NEWQ(fd, "exponential:1ms:1000s", 0);
	for (i = 0; i < 5; i++)
		EXPECT_DELAY(fd, "one", (1 * MS) << i);
	EXPECT_DELAY(fd, "one", 32 * MS);
	for (i = 1; i <= 1000; i++) {
		uint64_t d = ~0ULL;

		ASSERT_EQ(0, ARL(fd, "overflow1", &d));
		ASSERT_EQ(exp_ref(1 * MS, 1000 * SEC, i), d) TH_LOG("call %d", i);
	}
	EXPECT_DELAY(fd, "overflow1", 1000 * SEC);
	EXPECT_REQUEUES(fd, "overflow1", 1001);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(2U, st.keys);
	EXPECT_EQ(2U, st.tracked);

	NEWQ(fd2, "exponential:1m:1000h", 0);
	EXPECT_DELAY(fd2, "two", 1 * MINUTE);
	EXPECT_DELAY(fd2, "two", 2 * MINUTE);
	EXPECT_DELAY(fd2, "two", 4 * MINUTE);
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, ARL(fd2, "overflow2", NULL));
	EXPECT_DELAY(fd2, "overflow2", 1000 * HOUR);
	EXPECT_REQUEUES(fd2, "overflow2", 1001);
}

/*
 * base 1ns: every delay is exact (2^(n-1) ns), never 0, never wrapped,
 * non-decreasing and saturating at max, also past 2^63 and 2^64.
 */
TEST_F(rl, exponential_1ns_saturates)
{
	uint64_t d, prev = 0;
	int fd, i;

	NEWQ(fd, "exponential:1ns:1000s", 0);
	for (i = 1; i <= 200; i++) {
		d = 0;
		ASSERT_EQ(0, ARL(fd, "k", &d));
		ASSERT_NE(0ULL, d) TH_LOG("call %d", i);
		ASSERT_GE((uint64_t)(1000 * SEC), d) TH_LOG("call %d", i);
		ASSERT_LE(prev, d) TH_LOG("call %d: %llu after %llu", i,
					  (unsigned long long)d,
					  (unsigned long long)prev);
		ASSERT_EQ(exp_ref(1, 1000 * SEC, i), d) TH_LOG("call %d", i);
		prev = d;
	}
	/* 2^39 ns < 1000 s < 2^40 ns */
	ASSERT_EQ(0, FORGET(fd, "k"));
	for (i = 1; i <= 40; i++)
		EXPECT_DELAY(fd, "k", 1ULL << (i - 1));
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
	uint64_t d, prev = 0;
	int fd, i;

	NEWQ(fd, "exponential:1ns:2562047h", 0);
	for (i = 1; i <= 130; i++) {
		d = 0;
		ASSERT_EQ(0, ARL(fd, "k", &d));
		ASSERT_EQ(i <= 63 ? 1ULL << (i - 1) : max, d) TH_LOG("call %d", i);
		ASSERT_LE(prev, d);
		prev = d;
	}
	/* a base that is no power of two: its top bit passes 2^63 first */
	NEWQ(fd, "exponential:5ms:2562047h", 0);
	prev = 0;
	for (i = 1; i <= 130; i++) {
		d = 0;
		ASSERT_EQ(0, ARL(fd, "k", &d));
		ASSERT_EQ(exp_ref(5 * MS, max, i), d) TH_LOG("call %d", i);
		ASSERT_LE(prev, d);
		ASSERT_GE(max, d);
		prev = d;
	}
}

/* L3 TestItemFastSlowRateLimiter */
TEST_F(rl, l3_fastslow)
{
	int fd;

	NEWQ(fd, "fastslow:5ms:10s:3", 0);
	EXPECT_DELAY(fd, "one", 5 * MS);
	EXPECT_DELAY(fd, "one", 5 * MS);
	EXPECT_DELAY(fd, "one", 5 * MS);
	EXPECT_DELAY(fd, "one", 10 * SEC);
	EXPECT_DELAY(fd, "one", 10 * SEC);
	EXPECT_REQUEUES(fd, "one", 5);
	EXPECT_DELAY(fd, "two", 5 * MS);
	EXPECT_DELAY(fd, "two", 5 * MS);
	EXPECT_REQUEUES(fd, "two", 2);
	ASSERT_EQ(0, FORGET(fd, "one"));
	EXPECT_REQUEUES(fd, "one", 0);
	EXPECT_DELAY(fd, "one", 5 * MS);
}

/* L4 TestMaxOfRateLimiter: every term counts, the largest delay wins. */
TEST_F(rl, l4_max_of)
{
	int fd;

	NEWQ(fd, "fastslow:5ms:3s:3,exponential:1ms:1s", 0);
	EXPECT_DELAY(fd, "one", 5 * MS);
	EXPECT_DELAY(fd, "one", 5 * MS);
	EXPECT_DELAY(fd, "one", 5 * MS);
	EXPECT_DELAY(fd, "one", 3 * SEC);
	EXPECT_DELAY(fd, "one", 3 * SEC);
	EXPECT_REQUEUES(fd, "one", 5);
	EXPECT_DELAY(fd, "two", 5 * MS);
	EXPECT_DELAY(fd, "two", 5 * MS);
	EXPECT_REQUEUES(fd, "two", 2);
	ASSERT_EQ(0, FORGET(fd, "one"));
	EXPECT_REQUEUES(fd, "one", 0);
	EXPECT_DELAY(fd, "one", 5 * MS);

	/* the exponential term counts every call, also under the other one:
	 * 1ms * 2^(n-1) passes 3s at the 13th */
	NEWQ(fd, "fastslow:5ms:3s:3,exponential:1ms:1000s", 0);
	for (int i = 1; i <= 3; i++)
		EXPECT_DELAY(fd, "three", 5 * MS);
	for (int i = 4; i <= 12; i++)
		EXPECT_DELAY(fd, "three", 3 * SEC);
	EXPECT_DELAY(fd, "three", 4096 * MS);
	EXPECT_DELAY(fd, "three", 8192 * MS);
	EXPECT_REQUEUES(fd, "three", 14);
}

/*
 * L5 TestWithMaxWaitRateLimiter (client-go's test-only StepRateLimiter is
 * not a spec term: a per-key fastslow plays its part), and maxwait on
 * exponential and bucket terms.
 */
TEST_F(rl, l5_max_wait)
{
	int64_t t0, t1;
	uint64_t d;
	int fd, i;

	NEWQ(fd, "exponential:1s:1000s,maxwait:10s", 0);
	EXPECT_DELAY(fd, "one", 1 * SEC);
	EXPECT_DELAY(fd, "one", 2 * SEC);
	EXPECT_DELAY(fd, "one", 4 * SEC);
	EXPECT_DELAY(fd, "one", 8 * SEC);
	EXPECT_DELAY(fd, "one", 10 * SEC);
	EXPECT_DELAY(fd, "one", 10 * SEC);
	EXPECT_REQUEUES(fd, "one", 6);

	NEWQ(fd, "fastslow:5ms:1000s:100,maxwait:500s", 0);
	for (i = 0; i < 100; i++)
		EXPECT_DELAY(fd, "step", 5 * MS);
	for (i = 0; i < 100; i++)
		EXPECT_DELAY(fd, "step", 500 * SEC);
	EXPECT_REQUEUES(fd, "step", 200);

	/* the cap applies to the max over the list, bucket included */
	NEWQ(fd, "bucket:10:1,maxwait:50ms", 0);
	t0 = now_ns();
	EXPECT_DELAY(fd, "a", 0);
	d = ~0ULL;
	ASSERT_EQ(0, ARL(fd, "b", &d));
	t1 = now_ns();
	ASSERT_GE((uint64_t)(50 * MS), d);
	if (t1 - t0 < 50 * MS)
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
		for (i = 1; i <= 18; i++)
			EXPECT_DELAY(fd, "one", (5 * MS) << (i - 1));
		EXPECT_DELAY(fd, "one", 1000 * SEC);	/* 19th */
		EXPECT_REQUEUES(fd, "one", 19);
		ASSERT_EQ(0, wqt_stat(fd, &st));
		EXPECT_EQ(1U, st.tracked);
		EXPECT_EQ(1U, st.keys);
	}
	/* 18th call: 655.36 s exactly */
	ASSERT_EQ(0, FORGET(fds[0], "one"));
	for (i = 1; i < 18; i++)
		ASSERT_EQ(0, ARL(fds[0], "one", NULL));
	EXPECT_DELAY(fds[0], "one", 655360 * MS);
}

/*
 * The bucket part of the default limiter: 100 new keys get 5ms each (the
 * bucket starts full), the 101st waits for the bucket (100ms less whatever
 * refilled since the first call).
 */
TEST_F(rl, default_bucket_part)
{
	char k[WQT_KEY_LEN + 1];
	int64_t t0, t1;
	uint64_t d;
	int fd, i;

	NEWQ(fd, NULL, 0);
	t0 = now_ns();
	for (i = 0; i < 100; i++) {
		d = ~0ULL;
		ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, i), &d));
		ASSERT_EQ((uint64_t)(5 * MS), d) TH_LOG("key %d", i);
	}
	d = ~0ULL;
	ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, 100), &d));
	t1 = now_ns();
	TH_LOG("101st key: delay %.3f ms, %.3f ms after the first",
	       ms_of(d), ms_of(t1 - t0));
	ASSERT_GE((uint64_t)(100 * MS), d);
	ASSERT_LE((uint64_t)(5 * MS), d);
	if (t1 - t0 < 100 * MS)
		ASSERT_LE((uint64_t)(100 * MS - (t1 - t0)), d);
	EXPECT_REQUEUES(fd, "k00100", 1);
}

/* ---- token bucket ------------------------------------------------------- */

/*
 * bucket:10:100: 100 distinct keys pass at once, then one token per 100ms:
 * the 101st waits up to 100ms, the 102nd up to 200ms, each less the time
 * since the first call (refill). No per-key state: NumRequeues 0.
 */
TEST_F(rl, bucket_burst)
{
	char k[WQT_KEY_LEN + 1];
	struct wq_stats st;
	int64_t t0, t1, t2, e1, e2;
	uint64_t d1 = ~0ULL, d2 = ~0ULL;
	int fd, i;

	NEWQ(fd, "bucket:10:100", 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_STREQ("bucket:10:100", st.limiter);
	t0 = now_ns();
	for (i = 0; i < 100; i++) {
		uint64_t d = ~0ULL;

		ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, i), &d));
		ASSERT_EQ(0ULL, d) TH_LOG("key %d", i);
	}
	ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, 100), &d1));
	t1 = now_ns();
	ASSERT_EQ(0, wq_add_rate_limited(fd, k, wqt_key(k, 101), &d2));
	t2 = now_ns();
	e1 = t1 - t0;
	e2 = t2 - t0;
	TH_LOG("101st: %.3f ms (%.3f ms in), 102nd: %.3f ms (%.3f ms in)",
	       ms_of(d1), ms_of(e1), ms_of(d2), ms_of(e2));
	ASSERT_GE((uint64_t)(100 * MS), d1);
	ASSERT_GE((uint64_t)(200 * MS), d2);
	ASSERT_LE((uint64_t)(e2 < 200 * MS ? 200 * MS - e2 : 0), d2);
	if (e1 < 100 * MS) {
		ASSERT_LT(0ULL, d1);
		ASSERT_LE((uint64_t)(100 * MS - e1), d1);
	}
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
	struct wq_stats st;
	int64_t t0, t1;
	uint64_t d = ~0ULL;
	int fd;

	NEWQ(fd, "bucket:10:2", 0);
	t0 = now_ns();
	EXPECT_DELAY(fd, "k", 0);
	EXPECT_DELAY(fd, "k", 0);	/* queued: coalesces, takes a token */
	ASSERT_EQ(0, ARL(fd, "k", &d));
	t1 = now_ns();
	ASSERT_GE((uint64_t)(100 * MS), d);
	if (t1 - t0 < 100 * MS)
		ASSERT_LE((uint64_t)(100 * MS - (t1 - t0)), d);
	EXPECT_REQUEUES(fd, "k", 0);
	ASSERT_EQ(1, wq_len(fd));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1U, st.keys);
	EXPECT_EQ(0U, st.tracked);
	/* one bucket per queue: a second queue's bucket is full */
	NEWQ(fd, "bucket:10:2", 0);
	EXPECT_DELAY(fd, "k", 0);
	EXPECT_DELAY(fd, "k", 0);
}

/* Tokens come back at QPS: after 150ms an empty bucket:10:1 has one. */
TEST_F(rl, bucket_refills)
{
	int64_t t0, t1;
	uint64_t d = ~0ULL;
	int fd;

	NEWQ(fd, "bucket:10:1", 0);
	EXPECT_DELAY(fd, "a", 0);
	wqt_sleep_ms(150);
	t0 = now_ns();
	EXPECT_DELAY(fd, "b", 0);
	ASSERT_EQ(0, ARL(fd, "c", &d));
	t1 = now_ns();
	ASSERT_GE((uint64_t)(100 * MS), d);
	if (t1 - t0 < 100 * MS)
		ASSERT_LE((uint64_t)(100 * MS - (t1 - t0)), d);
}

/* The refill stops at BURST: a second of idling gives 2 tokens, not 10. */
TEST_F(rl, bucket_capped_at_burst)
{
	int64_t t0, t1;
	uint64_t d = ~0ULL;
	int fd;

	NEWQ(fd, "bucket:10:2", 0);
	EXPECT_DELAY(fd, "a", 0);
	EXPECT_DELAY(fd, "b", 0);
	wqt_sleep_ms(1000);
	t0 = now_ns();
	EXPECT_DELAY(fd, "c", 0);
	EXPECT_DELAY(fd, "d", 0);
	ASSERT_EQ(0, ARL(fd, "e", &d));
	t1 = now_ns();
	TH_LOG("third key after the pause: %.3f ms (%.3f ms in)", ms_of(d),
	       ms_of(t1 - t0));
	ASSERT_GE((uint64_t)(100 * MS), d);
	SKIP_IF_STALLED(t1 - t0 >= 100 * MS, "100ms between the calls");
	ASSERT_LT(0ULL, d) TH_LOG("the bucket held more than BURST tokens");
	ASSERT_LE((uint64_t)(100 * MS - (t1 - t0)), d);
}

/* Fractional QPS: bucket:0.5:1 gives one token per 2 s. */
TEST_F(rl, bucket_fractional_qps)
{
	int64_t t0, t1, t2;
	uint64_t d1 = ~0ULL, d2 = ~0ULL;
	int fd;

	NEWQ(fd, "bucket:0.5:1", 0);
	t0 = now_ns();
	EXPECT_DELAY(fd, "a", 0);
	ASSERT_EQ(0, ARL(fd, "b", &d1));
	t1 = now_ns();
	ASSERT_EQ(0, ARL(fd, "c", &d2));
	t2 = now_ns();
	TH_LOG("second: %.3f ms, third: %.3f ms", ms_of(d1), ms_of(d2));
	ASSERT_GE((uint64_t)(2 * SEC), d1);
	ASSERT_LE((uint64_t)(2 * SEC - (t1 - t0)), d1);
	ASSERT_GE((uint64_t)(4 * SEC), d2);
	ASSERT_LE((uint64_t)(4 * SEC - (t2 - t0)), d2);
}

/* max-of asks every term: a bucket token is taken although the per-key
 * delay was larger. */
TEST_F(rl, max_of_asks_every_term)
{
	int64_t t0, t1;
	uint64_t d = ~0ULL;
	int fd;

	NEWQ(fd, "fastslow:1ms:1ms:1000,bucket:10:1", 0);
	t0 = now_ns();
	EXPECT_DELAY(fd, "a", 1 * MS);
	ASSERT_EQ(0, ARL(fd, "b", &d));
	t1 = now_ns();
	ASSERT_GE((uint64_t)(100 * MS), d);
	ASSERT_LE((uint64_t)(1 * MS), d);
	SKIP_IF_STALLED(t1 - t0 >= 99 * MS, "100ms between the calls");
	ASSERT_LE((uint64_t)(100 * MS - (t1 - t0)), d)
		TH_LOG("the first call did not take the bucket's token");
	EXPECT_REQUEUES(fd, "a", 1);
	EXPECT_REQUEUES(fd, "b", 1);
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
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.waiting);
	EXPECT_EQ(0U, st.tracked);
	EXPECT_EQ(1U, st.keys);
	EXPECT_GET(fd, "k");
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.keys);	/* nothing kept for failures */
	EXPECT_EQ(0U, st.tracked);
}

/* ---- rate-limited keys wait ---------------------------------------------- */

TEST_F(rl, delayed_key_waits)
{
	const int64_t d = 300 * MS;
	struct wq_stats st;
	uint64_t got = 0;
	int64_t t0, t1;
	char buf[16];
	int fd, n;

	NEWQ(fd, "exponential:300ms:10s", 0);
	t0 = now_ns();
	ASSERT_EQ(0, ARL(fd, "k", &got));
	ASSERT_EQ((uint64_t)d, got);
	n = wq_len(fd);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	t1 = now_ns();
	if (t1 < t0 + d) {
		EXPECT_EQ(0, n);
		EXPECT_EQ(1U, st.waiting);
		EXPECT_EQ(0U, st.queued);
		EXPECT_EQ(1U, st.keys);
		ASSERT_EQ(-EAGAIN, wq_get(fd, buf, sizeof(buf), 0));
	}
	EXPECT_EQ(1U, st.tracked);
	EXPECT_EQ((uint64_t)1, st.retries);
	EXPECT_GET_AFTER(fd, "k", t0 + d);
	EXPECT_REQUEUES(fd, "k", 1);
	ASSERT_EQ(0, DONE(fd, "k"));
	/* kept only for its failure count now */
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.keys);
	EXPECT_EQ(0U, st.waiting);
	EXPECT_EQ(1U, st.tracked);
	EXPECT_REQUEUES(fd, "k", 1);
	/* the next failure waits twice as long, and is not handed out early */
	t0 = now_ns();
	EXPECT_DELAY(fd, "k", 2 * d);
	EXPECT_GET_AFTER(fd, "k", t0 + 2 * d);
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_EQ(0, FORGET(fd, "k"));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.tracked);
	EXPECT_EQ(0U, st.keys);
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

/* ---- failures count whatever the key's state; Forget removes nothing ---- */

TEST_F(rl, counts_while_queued)
{
	struct wq_stats st;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(0, ADD(fd, "k"));
	ASSERT_EQ(1, wq_len(fd));
	EXPECT_DELAY(fd, "k", 1 * MS);
	EXPECT_DELAY(fd, "k", 2 * MS);
	EXPECT_DELAY(fd, "k", 4 * MS);
	EXPECT_REQUEUES(fd, "k", 3);
	/* the waiting copies fire into the queued one */
	ASSERT_EQ(0, wait_no_waiting(fd));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.waiting);
	EXPECT_EQ(1U, st.queued);
	EXPECT_EQ(1U, st.keys);
	EXPECT_EQ(1U, st.tracked);
	/* Forget does not take the key off the queue */
	ASSERT_EQ(0, FORGET(fd, "k"));
	EXPECT_REQUEUES(fd, "k", 0);
	ASSERT_EQ(1, wq_len(fd));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.tracked);
	EXPECT_EQ(1U, st.keys);
	EXPECT_GET(fd, "k");
	ASSERT_EQ(0, DONE(fd, "k"));
	ASSERT_EQ(0, wq_len(fd));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.keys);
}

TEST_F(rl, counts_while_processing)
{
	struct wq_stats st;
	int64_t end;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(0, ADD(fd, "k"));
	EXPECT_GET(fd, "k");
	EXPECT_DELAY(fd, "k", 1 * MS);
	EXPECT_DELAY(fd, "k", 2 * MS);
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
	struct wq_stats st;
	int fd;

	NEWQ(fd, "exponential:1h:10h", 0);
	EXPECT_DELAY(fd, "w", 1 * HOUR);
	EXPECT_DELAY(fd, "w", 2 * HOUR);
	EXPECT_DELAY(fd, "w", 4 * HOUR);
	EXPECT_REQUEUES(fd, "w", 3);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1U, st.waiting);
	EXPECT_EQ(1U, st.keys);
	EXPECT_EQ(0, wq_len(fd));
	/* Forget does not cancel the wait */
	ASSERT_EQ(0, FORGET(fd, "w"));
	EXPECT_REQUEUES(fd, "w", 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1U, st.waiting);
	EXPECT_EQ(1U, st.keys);
	EXPECT_EQ(0U, st.tracked);
	EXPECT_DELAY(fd, "w", 1 * HOUR);
}

/* Forget of a key the queue does not know: 0, and nothing is created. */
TEST_F(rl, forget_unknown_key)
{
	struct wq_stats st;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	ASSERT_EQ(0, FORGET(fd, "nobody"));
	EXPECT_REQUEUES(fd, "nobody", 0);
	ASSERT_EQ(0, ADD(fd, "plain"));
	ASSERT_EQ(0, FORGET(fd, "plain"));	/* held, no failures */
	EXPECT_REQUEUES(fd, "plain", 0);
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1U, st.keys);
	EXPECT_EQ(0U, st.tracked);
	EXPECT_EQ(1U, st.queued);
}

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

/* ---- calls that fail change nothing -------------------------------------- */

TEST_F(rl, error_after_shutdown)
{
	struct wq_stats st;
	uint64_t d = 12345;
	int fd;

	NEWQ(fd, "exponential:1ms:1s", 0);
	EXPECT_DELAY(fd, "k", 1 * MS);
	EXPECT_DELAY(fd, "k", 2 * MS);
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
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(0U, st.tracked);
}

TEST_F(rl, error_full_queue)
{
	struct wq_stats st;
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
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_EQ(1U, st.keys);
	EXPECT_EQ(1U, st.tracked);
	EXPECT_EQ(0U, st.waiting);
	EXPECT_EQ(1U, st.queued);
	/* a key the queue holds never fails for capacity */
	EXPECT_DELAY(fd, "a", 1 * MS);
	EXPECT_REQUEUES(fd, "a", 1);
	/* a's waiting copy fires into the queued one; take a, let it go */
	ASSERT_EQ(0, wait_no_waiting(fd));
	EXPECT_GET(fd, "a");
	ASSERT_EQ(0, DONE(fd, "a"));
	ASSERT_EQ(0, wq_len(fd));
	/* room again: b's count goes on from 1 */
	EXPECT_DELAY(fd, "b", 2 * MS);
	EXPECT_REQUEUES(fd, "b", 2);
	EXPECT_REQUEUES(fd, "a", 1);
	EXPECT_REQUEUES(fd, "c", 0);
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

/* ---- concurrency ------------------------------------------------------- */

struct arl_job {
	int fd;
	int first;	/* key index of distinct keys, or -1: one key "k" */
	int n;
	uint64_t *out;
	int err;
};

static void *arl_thread(void *p)
{
	struct arl_job *j = p;
	char k[WQT_KEY_LEN + 1];
	int i, r;

	for (i = 0; i < j->n; i++) {
		if (j->first < 0)
			r = wq_add_rate_limited(j->fd, "k", 1, &j->out[i]);
		else
			r = wq_add_rate_limited(j->fd, k,
						wqt_key(k, j->first + i),
						&j->out[i]);
		if (r) {
			j->err = r;
			break;
		}
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Concurrent failures of one key are each counted once: the delays
 * handed out are exactly those of calls 1..N, in some order. */
TEST_F(rl, concurrent_failures_of_one_key)
{
	enum { T = 4, PER = 250, N = T * PER };
	static uint64_t out[N];
	struct arl_job job[T];
	pthread_t th[T];
	int fd, i;

	NEWQ(fd, "exponential:1ns:1000s", 0);
	for (i = 0; i < T; i++) {
		job[i] = (struct arl_job){ fd, -1, PER, out + i * PER, 0 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, arl_thread, &job[i]));
	}
	for (i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < T; i++)
		ASSERT_EQ(0, job[i].err) TH_LOG("thread %d", i);
	EXPECT_REQUEUES(fd, "k", N);
	qsort(out, N, sizeof(out[0]), cmp_u64);
	for (i = 0; i < N; i++)
		ASSERT_EQ(exp_ref(1, 1000 * SEC, i + 1), out[i])
			TH_LOG("sorted delay %d", i);
}

/* Concurrent callers share one bucket: no more than BURST plus the refill
 * pass without delay, and at least BURST. */
TEST_F(rl, concurrent_bucket)
{
	enum { T = 4, PER = 100, N = T * PER };
	static uint64_t out[N];
	struct arl_job job[T];
	pthread_t th[T];
	int64_t t0, el;
	int fd, i, zero = 0;

	NEWQ(fd, "bucket:10:100", 0);
	t0 = now_ns();
	for (i = 0; i < T; i++) {
		job[i] = (struct arl_job){ fd, i * PER, PER, out + i * PER, 0 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, arl_thread, &job[i]));
	}
	for (i = 0; i < T; i++)
		pthread_join(th[i], NULL);
	el = now_ns() - t0;
	for (i = 0; i < T; i++)
		ASSERT_EQ(0, job[i].err) TH_LOG("thread %d", i);
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
	for (i = 100; i < N; i++)
		ASSERT_GE((uint64_t)(i - 99) * 100 * MS, out[i]) TH_LOG("%d", i);
}

/* ---- max_tracked --------------------------------------------------------- */

/*
 * Fails key s once (exponential:1ns:2ns: it waits a nanosecond or two), takes
 * it and marks it done: afterwards the queue keeps it only for its failures.
 * 0, or a negative error / -1000 for a wrong key.
 */
static int make_idle(int fd, const char *s)
{
	char buf[WQ_KEY_MAX + 1];
	ssize_t n;
	int r = ARL(fd, s, NULL);

	if (r)
		return r;
	n = get_str(fd, buf, sizeof(buf), UPPER_MS);
	if (n < 0)
		return (int)n;
	if (strcmp(buf, s))
		return -1000;
	return DONE(fd, s);
}

#define MAKE_IDLE(fd, s)						\
	ASSERT_EQ(0, make_idle(fd, s)) TH_LOG("make_idle(%s)", s)

#define EXPECT_TRACKED(fd, want_tracked, want_evicted) do {		\
		struct wq_queue_info _qi;				\
		ASSERT_EQ(0, raw_stat(fd, &_qi));			\
		EXPECT_EQ((uint32_t)(want_tracked), _qi.tracked);	\
		EXPECT_EQ((uint64_t)(want_evicted), (uint64_t)_qi.evicted); \
	} while (0)

TEST_F(rl, max_tracked_default)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	struct wq_module_info mi;
	struct wq_queue_info qi;
	int fd;

	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_LT(0U, mi.default_max_tracked);
	NEWQ_RAW(fd, &lim, 0, 0);
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(mi.default_max_tracked, qi.max_tracked);
	EXPECT_EQ(0ULL, (unsigned long long)qi.evicted);
	NEWQ_RAW(fd, &lim, 0, 2);
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(2U, qi.max_tracked);
	/* libwq's queues get the default */
	NEWQ(fd, "exponential:1ns:2ns", 0);
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(mi.default_max_tracked, qi.max_tracked);
}

/* Beyond max_tracked idle records, the oldest is forgotten and counted. */
TEST_F(rl, max_tracked_evicts_oldest)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	struct wq_queue_info qi;
	uint64_t d = 0;
	int fd;

	NEWQ_RAW(fd, &lim, 0, 2);
	MAKE_IDLE(fd, "a");
	MAKE_IDLE(fd, "b");
	EXPECT_TRACKED(fd, 2, 0);
	MAKE_IDLE(fd, "c");
	EXPECT_TRACKED(fd, 2, 1);
	EXPECT_REQUEUES(fd, "a", 0);
	EXPECT_REQUEUES(fd, "b", 1);
	EXPECT_REQUEUES(fd, "c", 1);
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(0U, qi.keys);
	EXPECT_EQ(0U, qi.waiting);
	/* a starts again from its first failure (1ns), b goes now */
	ASSERT_EQ(0, ARL(fd, "a", &d));
	ASSERT_EQ(1ULL, d);
	EXPECT_TRACKED(fd, 3, 1);	/* a is held: not capped */
	ASSERT_EQ(1, wait_len(fd, 1));
	EXPECT_GET(fd, "a");
	ASSERT_EQ(0, DONE(fd, "a"));
	EXPECT_TRACKED(fd, 2, 2);
	EXPECT_REQUEUES(fd, "b", 0);
	EXPECT_REQUEUES(fd, "c", 1);
	EXPECT_REQUEUES(fd, "a", 1);
	/* Forget of an idle record is not an eviction */
	ASSERT_EQ(0, FORGET(fd, "c"));
	EXPECT_TRACKED(fd, 1, 2);
	MAKE_IDLE(fd, "d");
	EXPECT_TRACKED(fd, 2, 2);
	EXPECT_REQUEUES(fd, "a", 1);
	EXPECT_REQUEUES(fd, "d", 1);
}

/* Least recently used: a key that was held again goes to the back. */
TEST_F(rl, max_tracked_lru_order)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	int fd;

	NEWQ_RAW(fd, &lim, 0, 2);
	MAKE_IDLE(fd, "a");
	MAKE_IDLE(fd, "b");
	MAKE_IDLE(fd, "a");	/* a: 2 failures, now newer than b */
	EXPECT_TRACKED(fd, 2, 0);
	MAKE_IDLE(fd, "c");
	EXPECT_TRACKED(fd, 2, 1);
	EXPECT_REQUEUES(fd, "b", 0);
	EXPECT_REQUEUES(fd, "a", 2);
	EXPECT_REQUEUES(fd, "c", 1);
}

/* Keys that are processing, waiting or queued are never evicted. */
TEST_F(rl, max_tracked_held_never_evicted)
{
	struct wq_limiter lim = exp_limiter(1, 2);
	struct wq_queue_info qi;
	char buf[16];
	int fd;

	NEWQ_RAW(fd, &lim, 0, 1);
	/* p: processing */
	ASSERT_EQ(0, ARL(fd, "p", NULL));
	ASSERT_EQ(1, get_str(fd, buf, sizeof(buf), UPPER_MS));
	ASSERT_STREQ("p", buf);
	/* w: waiting (an hour) */
	ASSERT_EQ(0, ARL(fd, "w", NULL));
	ASSERT_EQ(1, get_str(fd, buf, sizeof(buf), UPPER_MS));
	ASSERT_STREQ("w", buf);
	ASSERT_EQ(0, wq_add_after(fd, "w", 1, 1 * HOUR));
	ASSERT_EQ(0, DONE(fd, "w"));
	/* a: idle, within max_tracked */
	MAKE_IDLE(fd, "a");
	EXPECT_TRACKED(fd, 3, 0);
	/* q: queued behind b; b goes idle and pushes a out */
	ASSERT_EQ(0, ARL(fd, "b", NULL));
	ASSERT_EQ(1, wait_len(fd, 1));
	ASSERT_EQ(0, ARL(fd, "q", NULL));
	ASSERT_EQ(2, wait_len(fd, 2));
	EXPECT_GET(fd, "b");
	ASSERT_EQ(0, DONE(fd, "b"));
	EXPECT_TRACKED(fd, 4, 1);	/* p, w, q held; b idle */
	EXPECT_REQUEUES(fd, "a", 0);
	EXPECT_REQUEUES(fd, "b", 1);
	EXPECT_REQUEUES(fd, "p", 1);
	EXPECT_REQUEUES(fd, "w", 1);
	EXPECT_REQUEUES(fd, "q", 1);
	/* churn more idle keys through the cap: held keys stay */
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(3U, qi.keys);
	EXPECT_EQ(1U, qi.queued);
	EXPECT_EQ(1U, qi.processing);
	EXPECT_EQ(1U, qi.waiting);
	EXPECT_GET(fd, "q");		/* q: processing now */
	MAKE_IDLE(fd, "c");
	MAKE_IDLE(fd, "d");
	MAKE_IDLE(fd, "e");
	EXPECT_TRACKED(fd, 4, 4);
	EXPECT_REQUEUES(fd, "p", 1);
	EXPECT_REQUEUES(fd, "w", 1);
	EXPECT_REQUEUES(fd, "q", 1);
	EXPECT_REQUEUES(fd, "e", 1);
	EXPECT_REQUEUES(fd, "d", 0);
	/* once done, p and q are idle too and the cap applies to them */
	ASSERT_EQ(0, DONE(fd, "p"));
	ASSERT_EQ(0, DONE(fd, "q"));
	EXPECT_TRACKED(fd, 2, 6);	/* w held, q idle */
	EXPECT_REQUEUES(fd, "q", 1);
	EXPECT_REQUEUES(fd, "p", 0);
	EXPECT_REQUEUES(fd, "e", 0);
	EXPECT_REQUEUES(fd, "w", 1);
}

TEST_HARNESS_MAIN
