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
	for (int i = 0; i < 20; i++)
		b = kwq_limiter_when(&lim, 0, 0);
	/* "full" saturates at KTIME_MAX: the delay stops growing there */
	EXPECT_EQ(KTIME_MAX - 1000000000000000000LL, b);
	EXPECT_EQ(b, kwq_limiter_when(&lim, 0, 0));	/* and never wraps */

	d.terms[0].bucket.rate = KWQ_BUCKET_RATE_MAX;	/* ~4.6e9 qps */
	d.terms[0].bucket.burst = 1;
	ASSERT_EQ(0, kwq_limiter_init(&lim, &d));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));
	EXPECT_EQ(0, kwq_limiter_when(&lim, 0, 0));	/* interval < 1 ns */
	EXPECT_LE(0, kwq_limiter_when(&lim, 0, 0));
}

TEST_HARNESS_MAIN
