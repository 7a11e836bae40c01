package workqueue

// A limiter built from this package's types as the kernel's limiter of a
// queue (struct wq_limiter: the worst of up to 8 terms, and at most one
// cap), so that the kernel applies it exactly. A limiter that cannot be
// said so (a foreign one, a cap inside a max-of, more than 8 terms) runs
// in Go. The conversion needs no item type (each limiter type says its
// own terms), so the module's other packages use it too (kq.LimiterOf).

import (
	"math"
	"time"

	"wq.dev/go/internal/kq"
)

func init() {
	kq.LimiterOf = kernelLimiterOf
	kq.Provider = func(mp any) any {
		p, _ := mp.(MetricsProvider)
		if p = currentProvider(p); p == (noopMetricsProvider{}) {
			return nil
		}
		return p
	}
}

// kernelForm: a limiter of this package says its kernel terms, its cap
// (hasCap: it has one), and whether it can be the kernel's at all.
type kernelForm interface {
	kernelTerms() (terms []kq.LimiterTerm, capNs uint64, hasCap, ok bool)
}

func limiterTerms(l any) ([]kq.LimiterTerm, uint64, bool, bool) {
	if f, ok := l.(kernelForm); ok {
		return f.kernelTerms()
	}
	return nil, 0, false, false
}

func (r *TypedItemExponentialFailureRateLimiter[T]) kernelTerms() ([]kq.LimiterTerm, uint64, bool, bool) {
	return []kq.LimiterTerm{{Kind: kq.LimiterExponential,
		A: durNs(r.baseDelay), B: durNs(r.maxDelay)}}, 0, false, true
}

func (r *TypedItemFastSlowRateLimiter[T]) kernelTerms() ([]kq.LimiterTerm, uint64, bool, bool) {
	if r.maxFastAttempts < 0 || int64(r.maxFastAttempts) > math.MaxUint32 {
		return nil, 0, false, false
	}
	return []kq.LimiterTerm{{Kind: kq.LimiterFastSlow, Count: uint32(r.maxFastAttempts),
		A: durNs(r.fastDelay), B: durNs(r.slowDelay)}}, 0, false, true
}

func (r *TypedBucketRateLimiter[T]) kernelTerms() ([]kq.LimiterTerm, uint64, bool, bool) {
	rate := r.qps * 1e9
	if r.burst < 1 || int64(r.burst) > math.MaxUint32 || !(rate >= 1) ||
		rate > math.MaxUint64/2 {
		return nil, 0, false, false
	}
	return []kq.LimiterTerm{{Kind: kq.LimiterBucket, A: uint64(math.Round(rate)),
		B: uint64(r.burst)}}, 0, false, true
}

func (r *TypedMaxOfRateLimiter[T]) kernelTerms() ([]kq.LimiterTerm, uint64, bool, bool) {
	var terms []kq.LimiterTerm
	for _, c := range r.limiters {
		t, _, cp, ok := limiterTerms(c)
		if !ok || cp {
			return nil, 0, false, false // a cap applies to its own terms only
		}
		terms = append(terms, t...)
	}
	return terms, 0, false, len(terms) > 0 && len(terms) <= kq.TermsMax
}

// (a value receiver: the limiter and a pointer to it both have it)
func (w TypedWithMaxWaitRateLimiter[T]) kernelTerms() ([]kq.LimiterTerm, uint64, bool, bool) {
	t, cp, has, ok := limiterTerms(w.limiter)
	if !ok {
		return nil, 0, false, false
	}
	if c := durNs(w.maxDelay); !has || c < cp {
		cp = c
	}
	return t, cp, true, len(t) < kq.TermsMax
}

func durNs(d time.Duration) uint64 {
	if d < 0 {
		return 0
	}
	return uint64(d)
}

// kernelLimiter: l as a struct wq_limiter, or false if it must run in Go.
// nil is no limiter ("none").
func kernelLimiter[T comparable](l TypedRateLimiter[T]) (*kq.Limiter, bool) {
	return kernelLimiterOf(l) // a nil l is a nil any
}

func kernelLimiterOf(l any) (*kq.Limiter, bool) {
	lim := &kq.Limiter{}
	if l == nil {
		return lim, true
	}
	terms, cp, hasCap, ok := limiterTerms(l)
	if !ok {
		return nil, false
	}
	n := copy(lim.Terms[:], terms)
	if hasCap {
		lim.Terms[n] = kq.LimiterTerm{Kind: kq.LimiterMaxWait, A: cp}
		n++
	}
	lim.NrTerms = uint32(n)
	return lim, true
}
