// Package limiters recognises the rate limiters that package workqueue's
// constructors made, so that a queue can hand them to the kernel. The
// limiter types are client-go's (package workqueue aliases them), whose
// parameters are unexported: the constructors record each limiter they
// return here, with its kernel form, keyed by a weak pointer to it (an
// entry goes when its limiter is collected). A limiter that is not here
// (client-go's own constructors, a struct literal, a user's type) runs in
// Go.
package limiters

import (
	"math"
	"runtime"
	"sync"
	"time"
	"weak"

	"k8s.io/client-go/util/workqueue"

	"wq.dev/go/internal/kq"
)

// Spec is a limiter's kernel form: the max-of terms and at most one cap.
type Spec struct {
	Terms  []kq.LimiterTerm
	Cap    uint64 // with HasCap: the final delay's ceiling, ns
	HasCap bool
}

var registry sync.Map // weak.Pointer[X] (as any) -> Spec

// key returns l's registry key: a weak pointer to the limiter if it is one
// of client-go's limiter types (the only ones the constructors return).
func key[T comparable](l workqueue.TypedRateLimiter[T]) (any, bool) {
	switch p := l.(type) {
	case *workqueue.TypedItemExponentialFailureRateLimiter[T]:
		return weak.Make(p), p != nil
	case *workqueue.TypedItemFastSlowRateLimiter[T]:
		return weak.Make(p), p != nil
	case *workqueue.TypedMaxOfRateLimiter[T]:
		return weak.Make(p), p != nil
	case *workqueue.TypedWithMaxWaitRateLimiter[T]:
		return weak.Make(p), p != nil
	case *workqueue.TypedBucketRateLimiter[T]:
		return weak.Make(p), p != nil
	}
	return nil, false
}

// register records l (a pointer to one of client-go's limiter types) with
// its spec, until l is collected.
func register[P any](p *P, s Spec) {
	k := weak.Make(p)
	registry.Store(k, s)
	runtime.AddCleanup(p, func(k weak.Pointer[P]) { registry.Delete(k) }, k)
}

// Lookup returns the kernel form of l if this package's constructors made
// it (and it can be the kernel's); nil is no limiter (an empty spec).
func Lookup[T comparable](l workqueue.TypedRateLimiter[T]) (Spec, bool) {
	if l == nil {
		return Spec{}, true
	}
	k, ok := key(l)
	if !ok {
		return Spec{}, false
	}
	s, ok := registry.Load(k)
	if !ok {
		return Spec{}, false
	}
	return s.(Spec), true
}

// Kernel returns l as the kernel's struct wq_limiter, or false if l must
// run in Go. nil is no limiter.
func Kernel[T comparable](l workqueue.TypedRateLimiter[T]) (*kq.Limiter, bool) {
	s, ok := Lookup(l)
	if !ok {
		return nil, false
	}
	lim := &kq.Limiter{}
	n := copy(lim.Terms[:], s.Terms)
	if s.HasCap {
		lim.Terms[n] = kq.LimiterTerm{Kind: kq.LimiterMaxWait, A: s.Cap}
		n++
	}
	lim.NrTerms = uint32(n)
	return lim, true
}

func durNs(d time.Duration) uint64 {
	if d < 0 {
		return 0
	}
	return uint64(d)
}

// Exponential records an exponential limiter of base..max.
func Exponential[T comparable](l workqueue.TypedRateLimiter[T], base, max time.Duration) {
	if p, ok := l.(*workqueue.TypedItemExponentialFailureRateLimiter[T]); ok {
		register(p, Spec{Terms: []kq.LimiterTerm{{Kind: kq.LimiterExponential, A: durNs(base), B: durNs(max)}}})
	}
}

// FastSlow records a fast-slow limiter.
func FastSlow[T comparable](l workqueue.TypedRateLimiter[T], fast, slow time.Duration, maxFast int) {
	p, ok := l.(*workqueue.TypedItemFastSlowRateLimiter[T])
	if !ok || maxFast < 0 || int64(maxFast) > math.MaxUint32 {
		return
	}
	register(p, Spec{Terms: []kq.LimiterTerm{{Kind: kq.LimiterFastSlow, Count: uint32(maxFast),
		A: durNs(fast), B: durNs(slow)}}})
}

// Bucket records a token bucket of qps and burst (a rate the kernel
// cannot hold exactly is left to Go).
func Bucket[T comparable](p *workqueue.TypedBucketRateLimiter[T], qps float64, burst int) {
	rate := qps * 1e9
	if burst < 1 || int64(burst) > math.MaxUint32 || !(rate >= 1) || rate > math.MaxUint64/2 {
		return
	}
	register(p, Spec{Terms: []kq.LimiterTerm{{Kind: kq.LimiterBucket, A: uint64(math.Round(rate)),
		B: uint64(burst)}}})
}

// MaxOf records the worst of children, if each is recorded, none has a
// cap (a cap applies to its own terms only) and the terms fit.
func MaxOf[T comparable](l workqueue.TypedRateLimiter[T], children []workqueue.TypedRateLimiter[T]) {
	p, ok := l.(*workqueue.TypedMaxOfRateLimiter[T])
	if !ok {
		return
	}
	var terms []kq.LimiterTerm
	for _, c := range children {
		s, ok := Lookup(c)
		if !ok || c == nil || s.HasCap {
			return
		}
		terms = append(terms, s.Terms...)
	}
	if len(terms) == 0 || len(terms) > kq.TermsMax {
		return
	}
	register(p, Spec{Terms: terms})
}

// MaxWait records child capped at max, if child is recorded and leaves a
// term free for the cap.
func MaxWait[T comparable](l, child workqueue.TypedRateLimiter[T], max time.Duration) {
	p, ok := l.(*workqueue.TypedWithMaxWaitRateLimiter[T])
	if !ok || child == nil {
		return
	}
	s, ok := Lookup(child)
	if !ok || len(s.Terms) == 0 || len(s.Terms) >= kq.TermsMax {
		return
	}
	c := durNs(max)
	if s.HasCap && s.Cap < c {
		c = s.Cap
	}
	register(p, Spec{Terms: s.Terms, Cap: c, HasCap: true})
}
