// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of libwq's Go-duration and rate-limiter spec parsing
 * (userspace/spec.c). Pure logic: runs on the build machine.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "wq.h"
#include "../wq_internal.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

static const struct {
	const char *text;
	uint64_t ns;
} good_durations[] = {
	{ "0", 0 }, { "250ns", 250 }, { "100us", 100000 },
	{ "100\xc2\xb5s", 100000 }, { "5ms", 5 * MS }, { "1.5s", 1500 * MS },
	{ ".5s", 500 * MS }, { "1.s", SEC }, { "2m", 120 * SEC },
	{ "1h", 3600 * SEC }, { "1h30m", 5400 * SEC },
	{ "1000s", 1000 * SEC }, { "0.000000001s", 1 },
	{ "1.0000000019s", SEC + 1 },	/* digits past 1 ns are dropped */
	{ "2562047h", 2562047ULL * 3600 * SEC },
};

static const char *const bad_durations[] = {
	"", "5", "ms", "5xs", "-1s", "1.5.5s", "s5", "5 s", "9999999999h",
	"2562048h", "5m5", "1e3s",
};

TEST(durations_parse)
{
	size_t i;

	for (i = 0; i < sizeof(good_durations) / sizeof(good_durations[0]); i++) {
		uint64_t ns = 12345;

		EXPECT_EQ(0, wq_parse_duration(good_durations[i].text, &ns))
			TH_LOG("%s", good_durations[i].text);
		EXPECT_EQ(good_durations[i].ns, ns)
			TH_LOG("%s", good_durations[i].text);
	}
	for (i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++) {
		uint64_t ns = 12345;

		EXPECT_EQ(-EINVAL, wq_parse_duration(bad_durations[i], &ns))
			TH_LOG("'%s' accepted as %llu", bad_durations[i],
			       (unsigned long long)ns);
		EXPECT_EQ(12345, ns);
	}
}

TEST(durations_format)
{
	char buf[32];

	wq_format_duration(buf, sizeof(buf), 5 * MS);
	EXPECT_STREQ("5ms", buf);
	wq_format_duration(buf, sizeof(buf), 1000 * SEC);
	EXPECT_STREQ("1000s", buf);
	wq_format_duration(buf, sizeof(buf), 3600 * SEC);
	EXPECT_STREQ("1h", buf);
	wq_format_duration(buf, sizeof(buf), 1500 * MS);
	EXPECT_STREQ("1500ms", buf);
	wq_format_duration(buf, sizeof(buf), 1001);
	EXPECT_STREQ("1001ns", buf);
	wq_format_duration(buf, sizeof(buf), 0);
	EXPECT_STREQ("0s", buf);
}

TEST(spec_default)
{
	struct wq_limiter a, b;

	ASSERT_EQ(0, wq_limiter_parse("default", &a));
	ASSERT_EQ(2, a.nr_terms);
	EXPECT_EQ(WQ_LIMITER_EXPONENTIAL, a.terms[0].kind);
	EXPECT_EQ(5 * MS, a.terms[0].exponential.base_ns);
	EXPECT_EQ(1000 * SEC, a.terms[0].exponential.max_ns);
	EXPECT_EQ(WQ_LIMITER_BUCKET, a.terms[1].kind);
	EXPECT_EQ(10 * SEC, a.terms[1].bucket.rate);	/* 10 events per second */
	EXPECT_EQ(100, a.terms[1].bucket.burst);
	ASSERT_EQ(0, wq_limiter_parse("exponential:5ms:1000s,bucket:10:100", &b));
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
}

TEST(spec_terms)
{
	struct wq_limiter l;

	ASSERT_EQ(0, wq_limiter_parse("none", &l));
	EXPECT_EQ(0, l.nr_terms);
	ASSERT_EQ(0, wq_limiter_parse("bucket:0.5:1", &l));
	EXPECT_EQ(SEC / 2, l.terms[0].bucket.rate);
	EXPECT_EQ(1, l.terms[0].bucket.burst);
	ASSERT_EQ(0, wq_limiter_parse("fastslow:5ms:10s:3,maxwait:1m", &l));
	ASSERT_EQ(2, l.nr_terms);
	EXPECT_EQ(WQ_LIMITER_FASTSLOW, l.terms[0].kind);
	EXPECT_EQ(5 * MS, l.terms[0].fastslow.fast_ns);
	EXPECT_EQ(10 * SEC, l.terms[0].fastslow.slow_ns);
	EXPECT_EQ(3, l.terms[0].count);
	EXPECT_EQ(WQ_LIMITER_MAXWAIT, l.terms[1].kind);
	EXPECT_EQ(60 * SEC, l.terms[1].maxwait.max_ns);
	ASSERT_EQ(0, wq_limiter_parse("default,maxwait:10s", &l));
	EXPECT_EQ(3, l.nr_terms);
}

TEST(spec_malformed)
{
	static const char *const bad[] = {
		"", "bogus", "exponential:5ms", "exponential:5ms:1s:3",
		"exponential:5xs:1s", "default,", ",default", "default,,none",
		"bucket:10", "bucket:10:0", "bucket:0:10", "bucket:-1:10",
		"bucket:0.0000000001:1", "fastslow:5ms:10s", "fastslow:5ms:10s:x",
		"maxwait", "maxwait:", "none:1", "Default", " default",
		"default,default,default,default,default",	/* 10 terms */
	};
	struct wq_limiter l;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *spec = bad[i];

		EXPECT_EQ(-EINVAL, wq_limiter_parse(spec, &l))
			TH_LOG("spec %zu was accepted", i);
	}
	EXPECT_EQ(-EINVAL, wq_limiter_check("exponential:5ms"));
	EXPECT_EQ(0, wq_limiter_check("exponential:1ns:1s"));
}

TEST(spec_round_trip)
{
	static const char *const specs[] = {
		"none", "exponential:5ms:1000s,bucket:10:100", "bucket:0.5:3",
		"fastslow:5ms:10s:3", "maxwait:1h,exponential:250ns:2m",
		"bucket:2.25:7",
	};
	struct wq_limiter a, b;
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		ASSERT_EQ(0, wq_limiter_parse(specs[i], &a));
		ASSERT_LT(0, wq_limiter_format(&a, text, sizeof(text)));
		EXPECT_STREQ(specs[i], text);
		ASSERT_EQ(0, wq_limiter_parse(text, &b));
		EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	}
}

TEST_HARNESS_MAIN
