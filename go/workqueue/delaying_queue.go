package workqueue

// AddAfter: on a kernel queue the delay is the kernel's (an hrtimer-driven
// heap; a key already waiting keeps the earlier of its two ready times,
// and ShutDown drops the waiting keys). A custom queue or a fake clock
// gets client-go's delaying queue, in process.

import (
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"wq.dev/go/internal/kq"
)

// NewDelayingQueue constructs a new workqueue with delayed queuing
// ability. It does not emit metrics.
//
// Deprecated: use NewTypedDelayingQueue instead.
func NewDelayingQueue() DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{})
}

// NewTypedDelayingQueue constructs a new workqueue with delayed queuing
// ability. It does not emit metrics.
func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{})
}

// NewDelayingQueueWithConfig constructs a new workqueue with options to
// customize different properties.
//
// Deprecated: use NewTypedDelayingQueueWithConfig instead.
func NewDelayingQueueWithConfig(config DelayingQueueConfig) DelayingInterface {
	return NewTypedDelayingQueueWithConfig[any](config)
}

// TypedNewDelayingQueue exists for backwards compatibility only.
//
// Deprecated: use NewTypedDelayingQueueWithConfig instead.
func TypedNewDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueue[T]()
}

// NewTypedDelayingQueueWithConfig constructs a new workqueue with options
// to customize different properties: a kernel queue (config.Queue nil, or
// a kernel queue of this package), or client-go's in-process delaying
// queue (a Queue of another kind, a Clock that is not the real one, no
// usable kernel; BackendOf says which, and why).
func NewTypedDelayingQueueWithConfig[T comparable](config TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	var why error
	switch q := config.Queue.(type) {
	case nil:
		if why = kernelWhy(false, config.Clock); why == nil {
			t, err := newKernelTyped(TypedQueueConfig[T]{Name: config.Name, MetricsProvider: config.MetricsProvider}, nil)
			if err == nil {
				return newDelaying(t, config.Name, config.MetricsProvider)
			}
			why = err
		}
	case *Typed[T], *delayingType[T], *rateLimitingType[T]:
		t := kernelTypedOf[T](q)
		if _, why = t.Backend(); why == nil {
			if !realClock(config.Clock) {
				why = ErrFakeClock
			} else {
				return newDelaying(t, config.Name, config.MetricsProvider)
			}
		}
	default:
		why = ErrCustomQueue
	}
	return &localDelaying[T]{workqueue.NewTypedDelayingQueueWithConfig(config),
		inProcess(config.Logger, config.Name, why)}
}

// NewDelayingQueueWithCustomQueue constructs a new workqueue with ability
// to inject custom queue Interface instead of the default one.
//
// Deprecated: Use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomQueue(q Interface, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{
		Name:  name,
		Queue: q,
	})
}

// NewNamedDelayingQueue constructs a new named workqueue with delayed
// queuing ability.
//
// Deprecated: Use NewDelayingQueueWithConfig instead.
func NewNamedDelayingQueue(name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{Name: name})
}

// NewDelayingQueueWithCustomClock constructs a new named workqueue with
// ability to inject real or fake clock for testing purposes (a fake one
// makes it client-go's in-process queue).
//
// Deprecated: Use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomClock(clock clock.WithTicker, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{
		Name:  name,
		Clock: clock,
	})
}

// kernelTypedOf: the *Typed under a queue of this package's kinds.
func kernelTypedOf[T comparable](q any) *Typed[T] {
	switch q := q.(type) {
	case *Typed[T]:
		return q
	case *delayingType[T]:
		return q.Typed
	case *rateLimitingType[T]:
		return q.Typed
	}
	return nil
}

// delayingType is a kernel queue with the kernel's delays.
type delayingType[T comparable] struct {
	*Typed[T]
	retries retryMetrics
}

func newDelaying[T comparable](t *Typed[T], name string, mp MetricsProvider) *delayingType[T] {
	return &delayingType[T]{Typed: t, retries: newRetryMetrics(name, mp)}
}

// AddAfter adds the given item to the work queue after the given delay
// (at once if it is not positive); an item already waiting keeps the
// earlier time.
func (q *delayingType[T]) AddAfter(item T, duration time.Duration) {
	// don't add if we're already shutting down
	if q.ShuttingDown() {
		return
	}
	q.retries.retry()
	q.add(item, kq.AddAfter, duration)
}

// localDelaying is client-go's delaying queue, with why it is not the
// kernel's.
type localDelaying[T comparable] struct {
	TypedDelayingInterface[T]
	why error
}

// Backend is BackendInProcess, and why.
func (q *localDelaying[T]) Backend() (Backend, error) {
	return BackendInProcess, q.why
}
