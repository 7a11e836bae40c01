// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the rate limiters (kmod/wq_limiter.c, built as is
 * against selftests/host/shim) with a fake clock: client-go's
 * default_rate_limiters_test.go numbers and the x/time/rate bucket, from
 * the vectors the KUnit suite also runs (kmod/tests/wq_limiter_vectors.h).
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "wq_limiter.h"
#include "tests/wq_limiter_vectors.h"

TEST(client_go_vectors)
{
	size_t i;

	for (i = 0; i < sizeof(v_cases) / sizeof(v_cases[0]); i++) {
		struct kwq_limiter lim;
		u32 requeues = 0;
		s64 got = 0;
		int step = v_run(&v_cases[i], &lim, &got, &requeues);

		EXPECT_EQ(0, step)
			TH_LOG("%s: step %d: got %lld ns, %u requeues",
			       v_cases[i].name, step, (long long)got, requeues);
	}
}

TEST(check_rejects_bad_descriptions)
{
	struct wq_limiter l;

	memset(&l, 0, sizeof(l));
	EXPECT_EQ(0, kwq_limiter_check(&l));		/* none */
	l.nr_terms = 9;
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.nr_terms = 1;
	l.terms[0].kind = 99;
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.terms[0].kind = WQ_LIMITER_BUCKET;
	l.terms[0].bucket.rate = 1000000000;
	l.terms[0].bucket.burst = 0;				/* burst 0 */
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.terms[0].bucket.burst = 1;
	EXPECT_EQ(0, kwq_limiter_check(&l));
	l.terms[0].bucket.rate = KWQ_BUCKET_RATE_MAX + 1;
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.terms[0].bucket.rate = 1000000000;
	l.terms[1].kind = WQ_LIMITER_EXPONENTIAL;	/* beyond nr_terms */
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.terms[1].kind = 0;
	l.reserved = 1;
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.reserved = 0;
	memset(&l.terms[0], 0, sizeof(l.terms[0]));
	l.terms[0].kind = WQ_LIMITER_EXPONENTIAL;
	l.terms[0].exponential.max_ns = (u64)KTIME_MAX + 1;
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
	l.terms[0].exponential.max_ns = 5;
	EXPECT_EQ(0, kwq_limiter_check(&l));
	l.terms[0].count = 1;				/* not for exponential */
	EXPECT_EQ(-EINVAL, kwq_limiter_check(&l));
}

/* Tiny and huge rates: no overflow, delays stay in range. */
TEST(bucket_extremes)
{
	struct wq_limiter d;
	struct kwq_limiter lim;
	s64 a, b;

	memset(&d, 0, sizeof(d));
	d.nr_terms = 1;
	d.terms[0].kind = WQ_LIMITER_BUCKET;
	d.terms[0].bucket.rate = 1;			/* one event per 10^9 s */
	d.terms[0].bucket.burst = 0xffffffffU;
	ASSERT_EQ(0, kwq_limiter_init(&lim, &d));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));
	d.terms[0].bucket.burst = 1;
	ASSERT_EQ(0, kwq_limiter_init(&lim, &d));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));
	a = kwq_limiter_when(&lim, 0, 0);
	EXPECT_EQ(1000000000000000000LL, a);	/* 10^9 s */
	b = kwq_limiter_when(&lim, 0, 0);
	EXPECT_EQ(2000000000000000000LL, b);
	for (int i = 4; i <= 10; i++) {		/* the 10th: 9 * 10^9 s */
		b = kwq_limiter_when(&lim, 0, 0);
		EXPECT_EQ((i - 1) * 1000000000000000000LL, b)
			TH_LOG("call %d", i);
	}
	for (int i = 0; i < 13; i++)
		b = kwq_limiter_when(&lim, 0, 0);
	/* 10^19 ns and more are beyond KTIME_MAX: the delay saturates */
	EXPECT_EQ(KTIME_MAX, b);
	EXPECT_EQ(b, kwq_limiter_when(&lim, 0, 0));	/* and never wraps */

	d.terms[0].bucket.rate = KWQ_BUCKET_RATE_MAX;	/* ~4.6e9 qps */
	d.terms[0].bucket.burst = 1;
	ASSERT_EQ(0, kwq_limiter_init(&lim, &d));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));	/* interval < 1 ns */
	EXPECT_LE(0, kwq_limiter_when(&lim, 0, 0));
}

static int bucket_init(struct kwq_limiter *lim, u64 rate, u64 burst)
{
	const struct wq_limiter d = {
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_BUCKET,
			     .bucket = { .rate = rate, .burst = burst } } },
	};

	return kwq_limiter_init(lim, &d);
}

/*
 * bucket:0.000001:10000: one interval is 10^15 ns, the burst window 10^19
 * ns, beyond KTIME_MAX, and so is "full" once the burst is used up. The
 * delay, their difference, is representable: exact up to KTIME_MAX, then
 * KTIME_MAX, never 0.
 */
TEST(bucket_saturated_burst_window)
{
	const s64 step = 1000000000000000LL;
	struct kwq_limiter lim;
	s64 t = KTIME_MAX - 3 * step;
	int i;

	ASSERT_EQ(0, bucket_init(&lim, 1000, 10000));
	for (i = 1; i <= 10000; i++) {
		ASSERT_EQ(0, kwq_limiter_when(&lim, 0, 0))
			TH_LOG("call %d", i);
	}
	EXPECT_EQ(step, kwq_limiter_when(&lim, 0, 0));		/* 10001st */
	EXPECT_EQ(2 * step, kwq_limiter_when(&lim, 0, 0));
	EXPECT_EQ(3 * step, kwq_limiter_when(&lim, 0, 0));
	for (i = 4; i <= 9300; i++) {
		s64 want = i <= KTIME_MAX / step ? i * step : KTIME_MAX;

		ASSERT_EQ(want, kwq_limiter_when(&lim, 0, 0))
			TH_LOG("call %d after the burst", i);
	}
	/* 1000 intervals later: the 9301st is 9301 intervals less those */
	EXPECT_EQ(8301 * step, kwq_limiter_when(&lim, 0, 1000 * step));
	/* a clock read before the last call's: the delay counts from it */
	EXPECT_EQ(8802 * step, kwq_limiter_when(&lim, 0, 500 * step));

	/* near the clock's end: now plus the window is beyond KTIME_MAX too */
	ASSERT_EQ(0, bucket_init(&lim, 1000, 10000));
	for (i = 1; i <= 10000; i++) {
		ASSERT_EQ(0, kwq_limiter_when(&lim, 0, t))
			TH_LOG("call %d", i);
	}
	EXPECT_EQ(step, kwq_limiter_when(&lim, 0, t));
	EXPECT_EQ(2 * step, kwq_limiter_when(&lim, 0, t));
	EXPECT_EQ(2 * step, kwq_limiter_when(&lim, 0, t + step));
	/* 2 intervals on, 2 of the 2 tokens owed are back; this call owes 1 */
	EXPECT_EQ(step, kwq_limiter_when(&lim, 0, KTIME_MAX));
	EXPECT_EQ(2 * step, kwq_limiter_when(&lim, 0, KTIME_MAX));
}

/* The other corners: after the burst the delay grows by one interval a call. */
TEST(bucket_extreme_growth)
{
	const s64 sec9 = 1000000000000000000LL;		/* 10^9 s */
	struct kwq_limiter lim;
	s64 d, prev = 0;
	int i;

	/* rate 1 (one event per 10^9 s), burst 2^32 - 1: a 4.3e27 ns window */
	ASSERT_EQ(0, bucket_init(&lim, 1, 0xffffffffU));
	for (i = 1; i <= 1000; i++) {
		ASSERT_EQ(0, kwq_limiter_when(&lim, 0, 0))
			TH_LOG("call %d", i);
	}
	/* as 2^32 - 2 calls at 0 leave it (making them takes a minute) */
	lim.bucket[0].owed = 0xffffffffU - 1;
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));	/* the last token */
	for (i = 1; i <= 12; i++) {
		d = kwq_limiter_when(&lim, 0, 0);
		ASSERT_EQ(i <= 9 ? i * sec9 : KTIME_MAX, d)
			TH_LOG("call %d after the burst", i);
	}
	/* 5 * 10^9 s later the 13th is representable again: 8 * 10^9 s */
	EXPECT_EQ(8 * sec9, kwq_limiter_when(&lim, 0, 5 * sec9));

	/*
	 * KWQ_BUCKET_RATE_MAX, burst 1: one interval is 10^18 / 2^62 ns, so
	 * the n-th call at one instant waits (n - 1) * 5^18 / 2^44 ns: 0 for
	 * the 2nd to 5th (under a nanosecond, truncated as Go does), 1 from
	 * the 6th, then never less.
	 */
	ASSERT_EQ(0, bucket_init(&lim, KWQ_BUCKET_RATE_MAX, 1));
	for (i = 1; i <= 1000000; i++) {
		d = kwq_limiter_when(&lim, 0, 0);
		ASSERT_EQ((s64)((u64)(i - 1) * 3814697265625ULL >> 44), d)
			TH_LOG("call %d", i);
		ASSERT_LE(prev, d);
		ASSERT_EQ(i >= 6, d > 0)
			TH_LOG("call %d", i);
		prev = d;
	}
	/* 10^5 ns later: 10^6 intervals (216840.43 ns) less those */
	EXPECT_EQ(216840 - 100000, kwq_limiter_when(&lim, 0, 100000));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 1000000));	/* refilled */
}

TEST_HARNESS_MAIN
