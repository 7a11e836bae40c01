package workqueue

// AddRateLimited: with a limiter of this package on a queue of this
// package, the kernel's limiter (exact; its failure counts are the
// kernel's, for Forget and NumRequeues too); otherwise the limiter runs in
// Go and the item is added after its When.

import "wq.dev/go/internal/kq"

// RateLimitingInterface is an interface that rate limits items being added
// to the queue.
//
// Deprecated: Use TypedRateLimitingInterface instead.
type RateLimitingInterface TypedRateLimitingInterface[any]

// TypedRateLimitingInterface is an interface that rate limits items being
// added to the queue.
type TypedRateLimitingInterface[T comparable] interface {
	TypedDelayingInterface[T]

	// AddRateLimited adds an item to the workqueue after the rate limiter
	// says it's ok
	AddRateLimited(item T)

	// Forget indicates that an item is finished being retried. Doesn't
	// matter whether it's for perm failing or for success, we'll stop the
	// rate limiter from tracking it. This only clears the `rateLimiter`,
	// you still have to call `Done` on the queue.
	Forget(item T)

	// NumRequeues returns back how many times the item was requeued
	NumRequeues(item T) int
}

// RateLimitingQueueConfig specifies optional configurations to customize a
// RateLimitingInterface.
//
// Deprecated: Use TypedRateLimitingQueueConfig instead.
type RateLimitingQueueConfig = TypedRateLimitingQueueConfig[any]

// TypedRateLimitingQueueConfig specifies optional configurations to
// customize a TypedRateLimitingInterface.
type TypedRateLimitingQueueConfig[T comparable] struct {
	// Name for the queue. If unnamed, the metrics will not be
	// registered.
	Name string

	// MetricsProvider optionally allows specifying a metrics provider to
	// use for the queue instead of the global provider.
	MetricsProvider MetricsProvider

	// Clock optionally allows injecting a real or fake clock for testing
	// purposes; a fake one runs the delays and the limiter in Go.
	Clock WithTicker

	// DelayingQueue optionally allows injecting custom delaying queue
	// DelayingInterface instead of the default one; the limiter then
	// runs in Go.
	DelayingQueue TypedDelayingInterface[T]
}

// NewRateLimitingQueue constructs a new workqueue with rateLimited
// queuing ability. Remember to call Forget! If you don't, you may end up
// tracking failures forever. It does not emit metrics.
//
// Deprecated: Use NewTypedRateLimitingQueue instead.
func NewRateLimitingQueue(rateLimiter RateLimiter) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{})
}

// NewTypedRateLimitingQueue constructs a new workqueue with rateLimited
// queuing ability. Remember to call Forget! If you don't, you may end up
// tracking failures forever. It does not emit metrics.
func NewTypedRateLimitingQueue[T comparable](rateLimiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return NewTypedRateLimitingQueueWithConfig(rateLimiter, TypedRateLimitingQueueConfig[T]{})
}

// NewRateLimitingQueueWithConfig constructs a new workqueue with
// rateLimited queuing ability with options to customize different
// properties. Remember to call Forget!
//
// Deprecated: Use NewTypedRateLimitingQueueWithConfig instead.
func NewRateLimitingQueueWithConfig(rateLimiter RateLimiter, config RateLimitingQueueConfig) RateLimitingInterface {
	return NewTypedRateLimitingQueueWithConfig(rateLimiter, config)
}

// NewTypedRateLimitingQueueWithConfig constructs a new workqueue with
// rateLimited queuing ability with options to customize different
// properties. Remember to call Forget! If you don't, you may end up
// tracking failures forever.
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	r := &rateLimitingType[T]{rateLimiter: rateLimiter}
	if config.DelayingQueue != nil {
		r.TypedDelayingInterface = config.DelayingQueue
		return r
	}
	dconf := TypedDelayingQueueConfig[T]{
		Name:            config.Name,
		MetricsProvider: config.MetricsProvider,
		Clock:           config.Clock,
	}
	var lim *kq.Limiter // none: the limiter runs in Go
	if l, ok := kernelLimiter(rateLimiter); ok && !fakeClock(config.Clock) {
		lim = l
	}
	d := newDelaying(dconf, lim)
	r.TypedDelayingInterface = d
	r.delaying = d
	if d.base != nil && d.base.b.KernelLimiter {
		r.kernel = d.base
	}
	return r
}

// NewNamedRateLimitingQueue constructs a new named workqueue with
// rateLimited queuing ability.
//
// Deprecated: Use NewRateLimitingQueueWithConfig instead.
func NewNamedRateLimitingQueue(rateLimiter RateLimiter, name string) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{
		Name: name,
	})
}

// NewRateLimitingQueueWithDelayingInterface constructs a new named
// workqueue with rateLimited queuing ability with the option to inject a
// custom delaying queue instead of the default one.
//
// Deprecated: Use NewRateLimitingQueueWithConfig instead.
func NewRateLimitingQueueWithDelayingInterface(di DelayingInterface, rateLimiter RateLimiter) RateLimitingInterface {
	return NewRateLimitingQueueWithConfig(rateLimiter, RateLimitingQueueConfig{
		DelayingQueue: di,
	})
}

// rateLimitingType wraps an Interface and provides rateLimited
// re-enqueuing.
type rateLimitingType[T comparable] struct {
	TypedDelayingInterface[T]

	rateLimiter TypedRateLimiter[T]
	delaying    *delayingType[T] // this package's, if not injected
	kernel      *Typed[T]        // applies rateLimiter itself, or nil
}

// AddRateLimited AddAfter's the item based on the time when the rate
// limiter says it's ok.
func (q *rateLimitingType[T]) AddRateLimited(item T) {
	if q.kernel == nil {
		q.TypedDelayingInterface.AddAfter(item, q.rateLimiter.When(item))
		return
	}
	if q.ShuttingDown() {
		return
	}
	q.delaying.metrics.retry()
	q.kernel.addRateLimited(item)
}

// NumRequeues returns back how many times the item was requeued.
func (q *rateLimitingType[T]) NumRequeues(item T) int {
	if q.kernel != nil {
		return q.kernel.numRequeues(item)
	}
	return q.rateLimiter.NumRequeues(item)
}

// Forget indicates that an item is finished being retried (by the
// kernel's limiter, and by the limiter object, which a caller may also
// have asked When).
func (q *rateLimitingType[T]) Forget(item T) {
	if q.kernel != nil {
		q.kernel.forget(item)
	}
	if q.rateLimiter != nil {
		q.rateLimiter.Forget(item)
	}
}

// Err says why the kernel queue could not be made, or nil (a caller may
// ask it through interface{ Err() error }).
func (q *rateLimitingType[T]) Err() error {
	if e, ok := q.TypedDelayingInterface.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}
