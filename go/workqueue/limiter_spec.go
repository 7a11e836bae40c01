package workqueue

// A limiter built from this package's types as the kernel's limiter of a
// queue (struct wq_limiter: the worst of up to 8 terms, and at most one
// cap), so that the kernel applies it exactly. A limiter that cannot be
// said so (a foreign one, a cap inside a max-of, more than 8 terms) runs
// in Go.

import (
	"math"
	"time"
)

// limiterTerms: l's terms, its cap (hasCap: it has one), and whether it
// can be the kernel's at all.
func limiterTerms[T comparable](l TypedRateLimiter[T]) (terms []wqLimiterTerm, capNs uint64, hasCap, ok bool) {
	switch r := l.(type) {
	case *TypedItemExponentialFailureRateLimiter[T]:
		return []wqLimiterTerm{{Kind: limiterExponential,
			A: durNs(r.baseDelay), B: durNs(r.maxDelay)}}, 0, false, true
	case *TypedItemFastSlowRateLimiter[T]:
		if r.maxFastAttempts < 0 || int64(r.maxFastAttempts) > math.MaxUint32 {
			return nil, 0, false, false
		}
		return []wqLimiterTerm{{Kind: limiterFastSlow, Count: uint32(r.maxFastAttempts),
			A: durNs(r.fastDelay), B: durNs(r.slowDelay)}}, 0, false, true
	case *TypedBucketRateLimiter[T]:
		rate := r.qps * 1e9
		if r.burst < 1 || int64(r.burst) > math.MaxUint32 || !(rate >= 1) ||
			rate > math.MaxUint64/2 {
			return nil, 0, false, false
		}
		return []wqLimiterTerm{{Kind: limiterBucket, A: uint64(math.Round(rate)),
			B: uint64(r.burst)}}, 0, false, true
	case *TypedMaxOfRateLimiter[T]:
		for _, c := range r.limiters {
			t, _, cp, ok := limiterTerms(c)
			if !ok || cp {
				return nil, 0, false, false // a cap applies to its own terms only
			}
			terms = append(terms, t...)
		}
		return terms, 0, false, len(terms) > 0 && len(terms) <= termsMax
	case *TypedWithMaxWaitRateLimiter[T]:
		return withCap(r.limiter, r.maxDelay)
	case TypedWithMaxWaitRateLimiter[T]:
		return withCap(r.limiter, r.maxDelay)
	}
	return nil, 0, false, false
}

func withCap[T comparable](inner TypedRateLimiter[T], max time.Duration) ([]wqLimiterTerm, uint64, bool, bool) {
	t, cp, has, ok := limiterTerms(inner)
	if !ok {
		return nil, 0, false, false
	}
	if c := durNs(max); !has || c < cp {
		cp = c
	}
	return t, cp, true, len(t) < termsMax
}

func durNs(d time.Duration) uint64 {
	if d < 0 {
		return 0
	}
	return uint64(d)
}

// kernelLimiter: l as a struct wq_limiter, or false if it must run in Go.
// nil is no limiter ("none").
func kernelLimiter[T comparable](l TypedRateLimiter[T]) (*wqLimiter, bool) {
	lim := &wqLimiter{}
	if l == nil {
		return lim, true
	}
	terms, cp, hasCap, ok := limiterTerms(l)
	if !ok {
		return nil, false
	}
	n := copy(lim.Terms[:], terms)
	if hasCap {
		lim.Terms[n] = wqLimiterTerm{Kind: limiterMaxWait, A: cp}
		n++
	}
	lim.NrTerms = uint32(n)
	return lim, true
}
