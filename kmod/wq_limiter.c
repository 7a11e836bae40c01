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

/* (*ns, *frac) += (add_ns, add_frac), fractions over @rate; true on overflow */
static bool kwq_frac_add(u64 *ns, u64 *frac, u64 add_ns, u64 add_frac,
			 u64 rate)
{
	u64 carry = 0;

	*frac += add_frac;
	if (*frac >= rate) {
		*frac -= rate;
		carry = 1;
	}
	return check_add_overflow(*ns, add_ns, ns) ||
	       check_add_overflow(*ns, carry, ns);
}

/* floor(a - b), 0 if a <= b; fractions over the same rate */
static u64 kwq_frac_sub_floor(u64 a_ns, u64 a_frac, u64 b_ns, u64 b_frac)
{
	if (a_ns < b_ns || (a_ns == b_ns && a_frac <= b_frac))
		return 0;
	return a_ns - b_ns - (a_frac < b_frac);
}

/* (*ns, *frac) = @k intervals, exactly; true if that is 2^64 ns or more */
static bool kwq_steps(const struct kwq_bucket *b, u64 k, u64 *ns, u64 *frac)
{
	u64 q = mul_u64_u64_div_u64(k, b->step_frac, b->rate);	/* <= k */

	*frac = k * b->step_frac - q * b->rate;		/* mod 2^64 ok */
	return check_mul_overflow(k, b->step_ns, ns) ||
	       check_add_overflow(*ns, q, ns);
}

/*
 * The whole intervals in (ns + frac / rate) ns: floor((ns * rate + frac) /
 * 10^18). The caller makes sure the result fits in a u64.
 */
static u64 kwq_whole_steps(const struct kwq_bucket *b, u64 ns, u64 frac)
{
	u64 q = mul_u64_u64_div_u64(ns, b->rate, NS_PER_GIGASECOND);
	u64 r = ns * b->rate - q * NS_PER_GIGASECOND;	/* mod 2^64 ok */

	return q + div64_u64(r + frac, NS_PER_GIGASECOND);
}

static void kwq_bucket_init(struct kwq_bucket *b, u64 rate, u64 burst)
{
	u64 step = div64_u64(NS_PER_GIGASECOND, rate);

	memset(b, 0, sizeof(*b));
	b->rate = rate;
	b->step_ns = step;
	b->step_frac = NS_PER_GIGASECOND - step * rate;
	b->burst = burst;
	b->base_ns = KTIME_MIN;		/* full since long ago */
}

/*
 * Reserve one token at @now (x/time/rate Reserve().Delay()): returns how
 * long to wait for it. Go computes the same in float64 and truncates the
 * duration; this is the exact value rounded down, so the two agree except
 * where Go's float rounding is off by a nanosecond. A delay of 2^63 ns or
 * more gives KTIME_MAX.
 *
 * The delay is "full" - (now + burst window) = (owed - burst) intervals -
 * (now - base). Its positive terms are summed in @late, its negative ones
 * in @early, each saturating; the delay is their difference.
 */
static s64 kwq_bucket_take(struct kwq_bucket *b, s64 now)
{
	u64 late_ns = 0, late_frac = 0, early_ns = 0, early_frac = 0;
	bool late_ovf = false, early_ovf = false;
	u64 e_ns, e_frac, j, j_ns, j_frac;
	bool behind;

	/* e = |now - base| */
	behind = now < b->base_ns || (now == b->base_ns && b->base_frac);
	if (behind) {
		/* a clock read before the last call's: "full" is that much later */
		e_ns = (u64)b->base_ns - (u64)now;
		e_frac = b->base_frac;
	} else {
		e_ns = (u64)now - (u64)b->base_ns;
		e_frac = 0;
		if (b->base_frac) {
			e_ns--;
			e_frac = b->rate - b->base_frac;
		}
	}
	if (!behind) {
		/* Refill: tokens = min(burst, tokens + elapsed * rate). */
		if (!kwq_steps(b, b->owed, &j_ns, &j_frac) &&
		    (j_ns < e_ns || (j_ns == e_ns && j_frac <= e_frac))) {
			/* "full" <= now: full */
			b->base_ns = now;
			b->base_frac = 0;
			b->owed = 0;
			e_ns = 0;
			e_frac = 0;
		} else {
			/*
			 * Move the base up by the whole intervals from it to
			 * now: fewer than @owed, as "full" is beyond now.
			 */
			j = kwq_whole_steps(b, e_ns, e_frac);
			kwq_steps(b, j, &j_ns, &j_frac);	/* <= e */
			b->owed -= j;
			if (e_frac < j_frac) {
				e_frac += b->rate;
				e_ns--;
			}
			e_frac -= j_frac;
			e_ns -= j_ns;			/* e < one interval */
			b->base_ns = now - (s64)e_ns - (e_frac ? 1 : 0);
			b->base_frac = e_frac ? b->rate - e_frac : 0;
		}
	}
	/* Take a token: "full" moves one interval later. */
	if (b->owed != ~0ULL)
		b->owed++;
	if (b->owed > b->burst)
		late_ovf = kwq_steps(b, b->owed - b->burst, &late_ns,
				     &late_frac);
	else
		early_ovf = kwq_steps(b, b->burst - b->owed, &early_ns,
				      &early_frac);
	if (behind)
		late_ovf |= kwq_frac_add(&late_ns, &late_frac, e_ns, e_frac,
					 b->rate);
	else
		early_ovf |= kwq_frac_add(&early_ns, &early_frac, e_ns, e_frac,
					  b->rate);
	/* At most one overflows; each is then beyond the other. */
	if (early_ovf)
		return 0;
	if (late_ovf)
		return KTIME_MAX;
	return min_t(u64, kwq_frac_sub_floor(late_ns, late_frac, early_ns,
					     early_frac), KTIME_MAX);
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
