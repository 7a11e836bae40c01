package workqueue

// AddRateLimited: with a limiter of this package's constructors on a
// kernel queue, the kernel's limiter (exact; its failure counts are the
// kernel's, for Forget and NumRequeues too); with any other limiter, the
// limiter runs in Go and the item is added after its When, with the
// kernel's delay. A custom delaying queue or a fake clock gets
// client-go's in-process queue.

import (
	"k8s.io/client-go/util/workqueue"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/limiters"
)

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
// tracking failures forever. A kernel queue (config.DelayingQueue nil, or
// a kernel queue of this package), or client-go's in-process one
// (BackendOf says which, and why).
func NewTypedRateLimitingQueueWithConfig[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	var why error
	switch d := config.DelayingQueue.(type) {
	case nil:
		if why = kernelWhy(false, config.Clock); why == nil {
			lim, _ := limiters.Kernel(rateLimiter) // nil: the limiter runs in Go
			t, err := newKernelTyped(TypedQueueConfig[T]{Name: config.Name, MetricsProvider: config.MetricsProvider}, lim)
			if err == nil {
				return &rateLimitingType[T]{newDelaying(t, config.Name, config.MetricsProvider),
					rateLimiter, t.b.KernelLimiter}
			}
			why = err
		}
	case *delayingType[T]:
		return &rateLimitingType[T]{d, rateLimiter, false}
	case *rateLimitingType[T]: // its delays, with this limiter in Go
		return &rateLimitingType[T]{d.delayingType, rateLimiter, false}
	default:
		if _, why = BackendOf(d); why == nil || why == ErrNotOurs {
			why = ErrCustomQueue
		}
	}
	return &localRateLimiting[T]{workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter, config),
		inProcess(nil, config.Name, why)}
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

// rateLimitingType is a kernel queue with a limiter: the kernel's, or
// one that runs in Go.
type rateLimitingType[T comparable] struct {
	*delayingType[T]

	rateLimiter TypedRateLimiter[T]
	kernel      bool // the kernel applies rateLimiter
}

// AddRateLimited AddAfter's the item based on the time when the rate
// limiter says it's ok.
func (q *rateLimitingType[T]) AddRateLimited(item T) {
	if !q.kernel {
		q.AddAfter(item, q.rateLimiter.When(item))
		return
	}
	if q.ShuttingDown() {
		return
	}
	q.retries.retry()
	q.add(item, kq.AddRateLimited, 0)
}

// NumRequeues returns back how many times the item was requeued.
func (q *rateLimitingType[T]) NumRequeues(item T) int {
	if q.kernel {
		return q.b.NumRequeues(item)
	}
	return q.rateLimiter.NumRequeues(item)
}

// Forget indicates that an item is finished being retried. Doesn't
// matter whether it's for perm failing or for success, we'll stop the
// rate limiter from tracking it. This only clears the `rateLimiter`, you
// still have to call `Done` on the queue.
func (q *rateLimitingType[T]) Forget(item T) {
	if q.kernel {
		q.b.Forget(item)
		return
	}
	q.rateLimiter.Forget(item)
}

// localRateLimiting is client-go's rate-limiting queue, with why it is not
// the kernel's.
type localRateLimiting[T comparable] struct {
	TypedRateLimitingInterface[T]
	why error
}

// Backend is BackendInProcess, and why.
func (q *localRateLimiting[T]) Backend() (Backend, error) {
	return BackendInProcess, q.why
}
