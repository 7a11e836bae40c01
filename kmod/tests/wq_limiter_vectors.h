/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test vectors of the rate limiters, shared by the KUnit suite (wq_kunit.c)
 * and the host unit test (selftests/host/limiter_test.c): client-go's
 * default_rate_limiters_test.go numbers, the x/time/rate bucket, and the
 * edges (overflow, fractional rates). Each case is a limiter and a script
 * run against a fake clock; a driver keeps one failure counter per key, as
 * the queue does.
 */
#ifndef _WQ_LIMITER_VECTORS_H
#define _WQ_LIMITER_VECTORS_H

#include <linux/ktime.h>

#include "../wq_limiter.h"

#define V_MS	1000000LL
#define V_S	1000000000LL
#define V_M	(60 * V_S)
#define V_H	(60 * V_M)

enum { V_END, V_WHEN, V_REPEAT, V_FORGET };

struct v_step {
	int op;		/* V_* */
	int key;	/* 0..3 */
	s64 at;		/* fake clock, ns */
	s64 want;	/* V_WHEN: expected delay; V_REPEAT: how many calls */
	/* V_WHEN: expected failures of the key afterwards;
	 * V_REPEAT: 1 to forget the key after each call
	 */
	u32 requeues;
};

struct v_case {
	const char *name;
	struct wq_limiter lim;
	struct v_step steps[24];
};

#define EXP(base, max) { .kind = WQ_LIMITER_EXPONENTIAL, \
	.exponential = { .base_ns = (base), .max_ns = (max) } }
#define FASTSLOW(f, s, n) { .kind = WQ_LIMITER_FASTSLOW, .count = (n), \
	.fastslow = { .fast_ns = (f), .slow_ns = (s) } }
#define BUCKET(qps_e9, b) { .kind = WQ_LIMITER_BUCKET, \
	.bucket = { .rate = (qps_e9), .burst = (b) } }
#define MAXWAIT(m) { .kind = WQ_LIMITER_MAXWAIT, .maxwait = { .max_ns = (m) } }
#define W(k, t, d, r) { V_WHEN, k, t, d, r }
#define R(k, t, n) { V_REPEAT, k, t, n, 0 }
#define RF(k, t, n) { V_REPEAT, k, t, n, 1 }	/* n fresh keys */
#define F(k) { V_FORGET, k, 0, 0, 0 }

static const struct v_case v_cases[] = {
	{ "L1 exponential 1ms:1s", { 1, 0, { EXP(1 * V_MS, 1 * V_S) } }, {
		W(0, 0, 1 * V_MS, 1), W(0, 0, 2 * V_MS, 2), W(0, 0, 4 * V_MS, 3),
		W(0, 0, 8 * V_MS, 4), W(0, 0, 16 * V_MS, 5),
		W(1, 0, 1 * V_MS, 1), W(1, 0, 2 * V_MS, 2),
		F(0), W(0, 0, 1 * V_MS, 1) } },
	{ "L2 exponential overflow 1ms:1000s", { 1, 0, { EXP(1 * V_MS, 1000 * V_S) } }, {
		R(0, 0, 5), W(0, 0, 32 * V_MS, 6),
		R(1, 0, 1000), W(1, 0, 1000 * V_S, 1001) } },
	{ "L2 exponential overflow 1m:1000h", { 1, 0, { EXP(1 * V_M, 1000 * V_H) } }, {
		R(0, 0, 2), W(0, 0, 4 * V_M, 3),
		R(1, 0, 1000), W(1, 0, 1000 * V_H, 1001) } },
	{ "exponential 1ns saturates, never wraps", { 1, 0, { EXP(1, KTIME_MAX) } }, {
		R(0, 0, 62), W(0, 0, 1LL << 62, 63), W(0, 0, KTIME_MAX, 64),
		W(0, 0, KTIME_MAX, 65), R(0, 0, 200), W(0, 0, KTIME_MAX, 266) } },
	{ "L3 fastslow 5ms:10s:3", { 1, 0, { FASTSLOW(5 * V_MS, 10 * V_S, 3) } }, {
		W(0, 0, 5 * V_MS, 1), W(0, 0, 5 * V_MS, 2), W(0, 0, 5 * V_MS, 3),
		W(0, 0, 10 * V_S, 4), W(0, 0, 10 * V_S, 5),
		W(1, 0, 5 * V_MS, 1), W(1, 0, 5 * V_MS, 2),
		F(0), W(0, 0, 5 * V_MS, 1) } },
	{ "L4 max-of fastslow 5ms:3s:3, exponential 1ms:1s",
	  { 2, 0, { FASTSLOW(5 * V_MS, 3 * V_S, 3), EXP(1 * V_MS, 1 * V_S) } }, {
		W(0, 0, 5 * V_MS, 1), W(0, 0, 5 * V_MS, 2), W(0, 0, 5 * V_MS, 3),
		W(0, 0, 3 * V_S, 4), W(0, 0, 3 * V_S, 5),
		W(1, 0, 5 * V_MS, 1), W(1, 0, 5 * V_MS, 2),
		F(0), W(0, 0, 5 * V_MS, 1) } },
	{ "L5 maxwait caps the delay", { 2, 0, { EXP(1 * V_S, 1000 * V_S), MAXWAIT(10 * V_S) } }, {
		W(0, 0, 1 * V_S, 1), W(0, 0, 2 * V_S, 2), W(0, 0, 4 * V_S, 3),
		W(0, 0, 8 * V_S, 4), W(0, 0, 10 * V_S, 5), W(0, 0, 10 * V_S, 6) } },
	{ "bucket 10:100 at one instant", { 1, 0, { BUCKET(10 * V_S, 100) } }, {
		R(0, 0, 100), W(0, 0, 100 * V_MS, 0), W(1, 0, 200 * V_MS, 0),
		W(2, 0, 300 * V_MS, 0) } },
	{ "bucket 10:100 refills 10/s, never above the burst",
	  { 1, 0, { BUCKET(10 * V_S, 100) } }, {
		R(0, 0, 100), W(0, 0, 100 * V_MS, 0),	/* one token owed */
		W(0, 1 * V_S, 0, 0),	/* 10 refilled, 1 owed: takes the 9th */
		R(0, 1 * V_S, 7), W(0, 1 * V_S, 0, 0),	/* the last one */
		W(0, 1 * V_S, 100 * V_MS, 0),
		/* an hour idle refills to 100, not more */
		R(0, 3600 * V_S, 100), W(0, 3600 * V_S, 100 * V_MS, 0) } },
	{ "bucket 0.5:1 (fractional qps)", { 1, 0, { BUCKET(V_S / 2, 1) } }, {
		W(0, 0, 0, 0), W(0, 0, 2 * V_S, 0), W(0, 0, 4 * V_S, 0),
		W(0, 1 * V_S, 5 * V_S, 0) } },
	{ "bucket 3:1 rounds down like Go", { 1, 0, { BUCKET(3 * V_S, 1) } }, {
		W(0, 0, 0, 0), W(0, 0, 333333333, 0), W(0, 0, 666666666, 0),
		W(0, 0, 1 * V_S, 0), W(0, 1, 1 * V_S + 333333332, 0) } },
	/* the burst window, 10^19 ns, is beyond KTIME_MAX: 10^15 ns a call */
	{ "bucket 0.000001:10000 (saturated window)",
	  { 1, 0, { BUCKET(1000, 10000) } }, {
		R(0, 0, 9999), W(0, 0, 0, 0),		/* the 10000th: free */
		W(0, 0, 1000000 * V_S, 0), W(0, 0, 2000000 * V_S, 0),
		W(0, 1000000 * V_S, 2000000 * V_S, 0),	/* one refilled */
		R(0, 1000000 * V_S, 9220),
		W(0, 1000000 * V_S, 9223000000 * V_S, 0),
		W(0, 1000000 * V_S, KTIME_MAX, 0),
		W(0, 1000000 * V_S, KTIME_MAX, 0),
		W(0, 1000000000 * V_S, 8227000000 * V_S, 0) } },
	{ "bucket 0.000000001:1 saturates, never wraps", { 1, 0, { BUCKET(1, 1) } }, {
		W(0, 0, 0, 0), R(0, 0, 8), W(0, 0, 9000000000 * V_S, 0),
		W(0, 0, KTIME_MAX, 0), W(0, 0, KTIME_MAX, 0),
		W(0, 3000000000 * V_S, 9000000000 * V_S, 0) } },
	{ "default: exponential 5ms:1000s, bucket 10:100",
	  { 2, 0, { EXP(5 * V_MS, 1000 * V_S), BUCKET(10 * V_S, 100) } }, {
		W(0, 0, 5 * V_MS, 1), W(0, 0, 10 * V_MS, 2), W(0, 0, 20 * V_MS, 3),
		R(0, 0, 14), W(0, 0, 655360 * V_MS, 18), W(0, 0, 1000 * V_S, 19),
		W(0, 0, 1000 * V_S, 20),
		/* 20 tokens used; 79 fresh keys use all but one */
		RF(1, 0, 79), W(2, 0, 5 * V_MS, 1),	/* the 100th: free */
		W(3, 0, 100 * V_MS, 1) } },		/* the 101st */
	{ "none: no delay, no failures", { 0, 0, {} }, {
		W(0, 0, 0, 0), W(0, 0, 0, 0) } },
	{ "maxwait alone", { 1, 0, { MAXWAIT(1 * V_S) } }, {
		W(0, 0, 0, 0) } },
};

#undef EXP
#undef FASTSLOW
#undef BUCKET
#undef MAXWAIT
#undef W
#undef R
#undef RF
#undef F

/*
 * Runs one case; on a mismatch returns the failing step's index + 1 and
 * sets *got, else 0.
 */
static int v_run(const struct v_case *c, struct kwq_limiter *lim, s64 *got,
		 u32 *got_requeues)
{
	u32 failures[4] = { 0 };
	int i;

	if (kwq_limiter_init(lim, &c->lim))
		return -1;
	for (i = 0; c->steps[i].op != V_END; i++) {
		const struct v_step *s = &c->steps[i];
		s64 n;

		switch (s->op) {
		case V_FORGET:
			failures[s->key] = 0;
			break;
		case V_REPEAT:
			for (n = 0; n < s->want; n++) {
				if (lim->per_key)
					failures[s->key]++;
				kwq_limiter_when(lim, failures[s->key], s->at);
				if (s->requeues)
					failures[s->key] = 0;
			}
			break;
		case V_WHEN:
			if (lim->per_key)
				failures[s->key]++;
			*got = kwq_limiter_when(lim, failures[s->key], s->at);
			*got_requeues = failures[s->key];
			if (*got != s->want || *got_requeues != s->requeues)
				return i + 1;
			break;
		}
	}
	return 0;
}

#endif /* _WQ_LIMITER_VECTORS_H */
