// SPDX-License-Identifier: GPL-2.0
/*
 * Rate limiters: see wq_limiter.h. Delays are nanoseconds, never negative,
 * at most KTIME_MAX.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "wq_limiter.h"

#define NS_PER_GIGASECOND	1000000000000000000ULL	/* 10^18 */

/**
 * kwq_limiter_check() - validate a limiter description from userspace
 * @desc: the description
 *
 * Return: 0, or -EINVAL for an unknown kind, a value out of range, or
 * garbage in reserved fields or unused terms.
 */
int kwq_limiter_check(const struct wq_limiter *desc)
{
	static const struct wq_limiter_term zero;
	u32 i;

	if (desc->reserved || desc->nr_terms > WQ_LIMITER_TERMS_MAX)
		return -EINVAL;
	for (i = 0; i < WQ_LIMITER_TERMS_MAX; i++) {
		const struct wq_limiter_term *t = &desc->terms[i];

		if (i >= desc->nr_terms) {
			if (memcmp(t, &zero, sizeof(zero)))
				return -EINVAL;
			continue;
		}
		switch (t->kind) {
		case WQ_LIMITER_EXPONENTIAL:
			if (t->count || t->exponential.base_ns > KTIME_MAX ||
			    t->exponential.max_ns > KTIME_MAX)
				return -EINVAL;
			break;
		case WQ_LIMITER_FASTSLOW:
			if (t->fastslow.fast_ns > KTIME_MAX ||
			    t->fastslow.slow_ns > KTIME_MAX)
				return -EINVAL;
			break;
		case WQ_LIMITER_BUCKET:
			if (t->count || !t->bucket.rate ||
			    t->bucket.rate > KWQ_BUCKET_RATE_MAX ||
			    !t->bucket.burst || t->bucket.burst > U32_MAX)
				return -EINVAL;
			break;
		case WQ_LIMITER_MAXWAIT:
			if (t->count || t->maxwait.reserved ||
			    t->maxwait.max_ns > KTIME_MAX)
				return -EINVAL;
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

/* (ns, frac) += (add_ns, add_frac), all fractions over @rate; saturates. */
static void kwq_frac_add(s64 *ns, u64 *frac, s64 add_ns, u64 add_frac,
			 u64 rate)
{
	s64 carry = 0;

	*frac += add_frac;
	if (*frac >= rate) {
		*frac -= rate;
		carry = 1;
	}
	if (check_add_overflow(*ns, add_ns, ns) ||
	    check_add_overflow(*ns, carry, ns))
		*ns = KTIME_MAX;
}

static void kwq_bucket_init(struct kwq_bucket *b, u64 rate, u64 burst)
{
	u64 step = div64_u64(NS_PER_GIGASECOND, rate);
	u64 step_frac = NS_PER_GIGASECOND - step * rate;
	u64 extra, burst_ns;

	memset(b, 0, sizeof(*b));
	b->rate = rate;
	b->step_ns = min_t(u64, step, KTIME_MAX);
	b->step_frac = step_frac;
	b->full_ns = KTIME_MIN;		/* full since long ago */
	/* burst * (step + step_frac / rate), exactly */
	extra = mul_u64_u64_div_u64(burst, step_frac, rate);
	b->burst_frac = burst * step_frac - extra * rate;	/* mod 2^64 ok */
	if (check_mul_overflow(burst, step, &burst_ns) ||
	    check_add_overflow(burst_ns, extra, &burst_ns) ||
	    burst_ns > KTIME_MAX)
		burst_ns = KTIME_MAX;
	b->burst_ns = burst_ns;
}

/*
 * Reserve one token at @now (x/time/rate Reserve().Delay()): returns how
 * long to wait for it. Go computes the same in float64 and truncates the
 * duration; this is the exact value rounded down, so the two agree except
 * where Go's float rounding is off by a nanosecond.
 */
static s64 kwq_bucket_take(struct kwq_bucket *b, s64 now)
{
	s64 due_ns, delay;
	u64 due_frac;

	/* Refill: tokens = min(burst, tokens + elapsed * rate). */
	if (b->full_ns < now || (b->full_ns == now && !b->full_frac)) {
		b->full_ns = now;
		b->full_frac = 0;
	}
	kwq_frac_add(&b->full_ns, &b->full_frac, b->step_ns, b->step_frac,
		     b->rate);
	/* The token is ours once "full" is no more than a burst ahead. */
	due_ns = now;
	due_frac = 0;
	kwq_frac_add(&due_ns, &due_frac, b->burst_ns, b->burst_frac, b->rate);
	if (b->full_ns < due_ns ||
	    (b->full_ns == due_ns && b->full_frac <= due_frac))
		return 0;
	delay = b->full_ns - due_ns;
	if (b->full_frac < due_frac)
		delay--;
	return delay;
}

/**
 * kwq_limiter_init() - set a limiter up from a description
 * @lim: the limiter
 * @desc: the description (validated here again)
 *
 * Return: 0 or -EINVAL.
 */
int kwq_limiter_init(struct kwq_limiter *lim, const struct wq_limiter *desc)
{
	u32 i;

	if (kwq_limiter_check(desc))
		return -EINVAL;
	memset(lim, 0, sizeof(*lim));
	lim->desc = *desc;
	lim->max_wait = KTIME_MAX;
	for (i = 0; i < desc->nr_terms; i++) {
		const struct wq_limiter_term *t = &desc->terms[i];

		switch (t->kind) {
		case WQ_LIMITER_EXPONENTIAL:
		case WQ_LIMITER_FASTSLOW:
			lim->per_key = true;
			break;
		case WQ_LIMITER_BUCKET:
			kwq_bucket_init(&lim->bucket[i], t->bucket.rate,
					t->bucket.burst);
			break;
		case WQ_LIMITER_MAXWAIT:
			lim->max_wait = min_t(s64, lim->max_wait,
					      t->maxwait.max_ns);
			break;
		}
	}
	return 0;
}

/* ItemExponentialFailureRateLimiter: base * 2^(n-1), saturating at max. */
static s64 kwq_exponential(u64 base, u64 max, u32 failures)
{
	u64 d;

	if (!failures || !base)
		return 0;
	if (failures - 1 >= 64 || check_shl_overflow(base, failures - 1, &d) ||
	    d > max)
		return max;
	return d;
}

/**
 * kwq_limiter_when() - When: the delay for a key's next failure
 * @lim: the limiter
 * @failures: the key's failure count including this one (1 on the first
 *	call after a Forget); ignored unless @lim->per_key
 * @now: CLOCK_MONOTONIC now, ns (the buckets take a token at this time)
 *
 * Every term is asked (each bucket takes a token); the result is the
 * largest delay, capped by the smallest maxwait.
 *
 * Return: the delay in ns, 0..KTIME_MAX.
 */
s64 kwq_limiter_when(struct kwq_limiter *lim, u32 failures, s64 now)
{
	s64 delay = 0;
	u32 i;

	for (i = 0; i < lim->desc.nr_terms; i++) {
		const struct wq_limiter_term *t = &lim->desc.terms[i];
		s64 d = 0;

		switch (t->kind) {
		case WQ_LIMITER_EXPONENTIAL:
			d = kwq_exponential(t->exponential.base_ns,
					    t->exponential.max_ns, failures);
			break;
		case WQ_LIMITER_FASTSLOW:
			d = failures <= t->count ? t->fastslow.fast_ns :
						 t->fastslow.slow_ns;
			break;
		case WQ_LIMITER_BUCKET:
			d = kwq_bucket_take(&lim->bucket[i], now);
			break;
		}
		delay = max(delay, d);
	}
	return min(delay, lim->max_wait);
}
