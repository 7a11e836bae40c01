package workqueue

// AddAfter: on a queue of this package the delay is the kernel's (an
// hrtimer-driven heap; a key already waiting keeps the earlier of its two
// ready times, and ShutDown drops the waiting keys). With a custom queue
// or a fake clock, the delay runs in Go, on the clock, and the item is
// then added as by Add.

import (
	"sync"
	"time"

	"wq.dev/go/internal/kq"
)

// DelayingInterface is an Interface that can Add an item at a later time.
// This makes it easier to requeue items after failures without ending up
// in a hot-loop.
//
// Deprecated: use TypedDelayingInterface instead.
type DelayingInterface TypedDelayingInterface[any]

// TypedDelayingInterface is an Interface that can Add an item at a later
// time. This makes it easier to requeue items after failures without
// ending up in a hot-loop.
type TypedDelayingInterface[T comparable] interface {
	TypedInterface[T]
	// AddAfter adds an item to the workqueue after the indicated duration
	// has passed
	AddAfter(item T, duration time.Duration)
}

// DelayingQueueConfig specifies optional configurations to customize a
// DelayingInterface.
//
// Deprecated: use TypedDelayingQueueConfig instead.
type DelayingQueueConfig = TypedDelayingQueueConfig[any]

// TypedDelayingQueueConfig specifies optional configurations to customize
// a TypedDelayingInterface.
type TypedDelayingQueueConfig[T comparable] struct {
	// Name for the queue. If unnamed, the metrics will not be
	// registered.
	Name string

	// MetricsProvider optionally allows specifying a metrics provider to
	// use for the queue instead of the global provider.
	MetricsProvider MetricsProvider

	// Clock optionally allows injecting a real or fake clock for testing
	// purposes; a fake one runs the delays in Go.
	Clock WithTicker

	// Queue optionally allows injecting custom queue Interface instead of
	// the default one; its delays run in Go.
	Queue TypedInterface[T]
}

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
// to customize different properties.
func NewTypedDelayingQueueWithConfig[T comparable](config TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	return newDelaying(config, nil)
}

// newDelaying: with lim, the queue made here gets that kernel limiter.
func newDelaying[T comparable](config TypedDelayingQueueConfig[T], lim *kq.Limiter) *delayingType[T] {
	if config.Clock == nil {
		config.Clock = RealClock{}
	}
	d := &delayingType[T]{
		clock:   config.Clock,
		goDelay: fakeClock(config.Clock),
		stopCh:  make(chan struct{}),
		metrics: newRetryMetrics(config.Name, config.MetricsProvider),
	}
	if config.Queue == nil {
		d.base = newTyped(TypedQueueConfig[T]{
			Name:            config.Name,
			MetricsProvider: config.MetricsProvider,
			Clock:           config.Clock,
		}, lim)
		config.Queue = d.base
	} else if b, ok := config.Queue.(*Typed[T]); ok {
		d.base = b
	}
	if d.base == nil {
		d.goDelay = true
	}
	d.TypedInterface = config.Queue
	return d
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
// ability to inject real or fake clock for testing purposes.
//
// Deprecated: Use NewDelayingQueueWithConfig instead.
func NewDelayingQueueWithCustomClock(clock WithTicker, name string) DelayingInterface {
	return NewDelayingQueueWithConfig(DelayingQueueConfig{
		Name:  name,
		Clock: clock,
	})
}

// delayingType wraps an Interface and provides delayed re-enqueuing.
type delayingType[T comparable] struct {
	TypedInterface[T]

	base    *Typed[T] // the kernel queue, if the queue is this package's
	goDelay bool      // delays run in Go (custom queue, fake clock)
	clock   Clock

	stopCh   chan struct{}
	stopOnce sync.Once
	metrics  retryMetrics
}

// ShutDown stops the delays and shuts the queue down (once, as
// client-go's).
func (q *delayingType[T]) ShutDown() {
	q.stopOnce.Do(func() {
		q.TypedInterface.ShutDown()
		close(q.stopCh)
	})
}

// Err says why the kernel queue could not be made, or nil (a caller may
// ask it through interface{ Err() error }).
func (q *delayingType[T]) Err() error {
	if e, ok := q.TypedInterface.(interface{ Err() error }); ok {
		return e.Err()
	}
	return nil
}

// AddAfter adds the given item to the work queue after the given delay.
func (q *delayingType[T]) AddAfter(item T, duration time.Duration) {
	// don't add if we're already shutting down
	if q.ShuttingDown() {
		return
	}
	q.metrics.retry()
	if !q.goDelay {
		q.base.add(item, kq.AddAfter, duration)
		return
	}
	// immediately add things with no delay
	if duration <= 0 {
		q.Add(item)
		return
	}
	ch := q.clock.After(duration)
	go func() {
		select {
		case <-ch:
			q.Add(item)
		case <-q.stopCh:
		}
	}()
}
