/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rate limiters: client-go's default_rate_limiters.go in integers.
 *
 * A queue's limiter is a max-of list (MaxOfRateLimiter) of the terms of a
 * struct wq_limiter: ItemExponentialFailureRateLimiter, the token bucket of
 * BucketRateLimiter (golang.org/x/time/rate Reserve().Delay()),
 * ItemFastSlowRateLimiter, and WithMaxWaitRateLimiter caps. In a max-of
 * list every limiter is asked on every When, so the per-key limiters all
 * count the same failures: one counter per key (kept in the key's record by
 * the caller) serves them all, and NumRequeues is that counter.
 *
 * Pure logic apart from the clock, which the caller passes in: the same
 * file is built into the module, its KUnit suite and a host unit test.
 * Locking: none of its own; the queue lock protects the bucket state.
 */
#ifndef _WQ_LIMITER_H
#define _WQ_LIMITER_H

#include <linux/bits.h>
#include <linux/types.h>

#include "../uapi/linux/wq.h"

/**
 * struct kwq_bucket - a token bucket as GCRA
 * @base_ns: a time no later than the last call (whole ns) ...
 * @base_frac: ... plus @base_frac / @rate ns
 * @owed: "full", when the bucket will be full again, is @owed intervals
 *	after the base
 * @rate: events per 10^9 s (qps * 10^9)
 * @step_ns: one event's interval, 10^18 / @rate (whole ns) ...
 * @step_frac: ... plus @step_frac / @rate ns
 * @burst: the bucket's size, events
 *
 * Each reservation moves "full" one interval later (tokens go negative when
 * it runs ahead of now); the delay is how far "full" is beyond now plus
 * the burst window: (@owed - @burst) intervals less the time from the base
 * to now. "full" and now plus the window can both be far beyond KTIME_MAX
 * (the window alone reaches 4.3e27 ns) when the delay is not, so only
 * differences are computed, saturating; each call moves the base up by the
 * whole intervals already past, keeping it within one interval of now.
 * Fractions of a nanosecond are kept exactly as remainders over @rate, so
 * fractional rates never drift.
 */
struct kwq_bucket {
	s64 base_ns;
	u64 base_frac;
	u64 owed;
	u64 rate;
	u64 step_ns;
	u64 step_frac;
	u64 burst;
};

/**
 * struct kwq_limiter - a queue's rate limiter
 * @desc: the validated description (for WQ_IOC_STAT)
 * @per_key: has a per-key term (exponential, fastslow): count failures
 * @max_wait: the smallest maxwait cap, or KTIME_MAX
 * @bucket: state of each BUCKET term, by term index
 */
struct kwq_limiter {
	struct wq_limiter desc;
	bool per_key;
	s64 max_wait;
	struct kwq_bucket bucket[WQ_LIMITER_TERMS_MAX];
};

/* Fastest bucket rate accepted, events per 10^9 s (2^62: ~4.6e9 qps). */
#define KWQ_BUCKET_RATE_MAX	BIT_ULL(62)

int kwq_limiter_check(const struct wq_limiter *desc);
int kwq_limiter_init(struct kwq_limiter *lim, const struct wq_limiter *desc);
s64 kwq_limiter_when(struct kwq_limiter *lim, u32 failures, s64 now);

#endif /* _WQ_LIMITER_H */
