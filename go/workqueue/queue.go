package workqueue

// The queue: client-go's Interface over a private kernel queue. Every
// constructor makes a queue of its own in the kernel (no name, reachable
// only through this process's handle; freed when the handle is closed),
// and every call is one system call: the dedup FIFO with its dirty and
// processing sets lives in the kernel, the items in the process
// (wq.dev/go/internal/intern). What this queue shares with package
// priorityqueue's (the kernel queue, its items, its life) is
// wq.dev/go/internal/base's.

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"time"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
)

// Interface is TypedInterface over any item.
//
// Deprecated: Interface is deprecated, use TypedInterface instead.
type Interface TypedInterface[any]

// TypedInterface is a work queue: a dedup FIFO whose items are processed
// by one worker at a time.
type TypedInterface[T comparable] interface {
	Add(item T)
	Len() int
	Get() (item T, shutdown bool)
	Done(item T)
	ShutDown()
	ShutDownWithDrain()
	ShuttingDown() bool
}

// Queue is client-go's pluggable storage for items. The kernel keeps the
// order here; a Queue given in a config gets Touch when an Add coalesces
// with an item already queued (not when it is processing), as client-go
// calls it, and nothing else.
type Queue[T comparable] interface {
	// Touch can be hooked when an existing item is added again.
	Touch(item T)
	// Push adds a new item.
	Push(item T)
	// Len tells the total number of items.
	Len() int
	// Pop retrieves an item.
	Pop() (item T)
}

// DefaultQueue is a slice based FIFO queue.
func DefaultQueue[T comparable]() Queue[T] {
	return new(queue[T])
}

// queue is a slice which implements Queue.
type queue[T comparable] []T

func (q *queue[T]) Touch(item T) {}

func (q *queue[T]) Push(item T) {
	*q = append(*q, item)
}

func (q *queue[T]) Len() int {
	return len(*q)
}

func (q *queue[T]) Pop() (item T) {
	item = (*q)[0]
	(*q)[0] = *new(T)
	*q = (*q)[1:]
	return item
}

// QueueConfig specifies optional configurations to customize an Interface.
//
// Deprecated: use TypedQueueConfig instead.
type QueueConfig = TypedQueueConfig[any]

// TypedQueueConfig specifies optional configurations to customize a
// TypedInterface.
type TypedQueueConfig[T comparable] struct {
	// Name for the queue. If unnamed, the metrics will not be
	// registered. (The kernel queue has no name either way.)
	Name string

	// MetricsProvider optionally allows specifying a metrics provider to
	// use for the queue instead of the global provider.
	MetricsProvider MetricsProvider

	// Clock for the metrics' times.
	Clock WithTicker

	// Queue gets Touch when an Add coalesces with a queued item; the
	// order is the kernel's.
	Queue Queue[T]
}

// New constructs a new work queue (see the package comment).
//
// Deprecated: use NewTyped instead.
func New() *Type {
	return NewWithConfig(QueueConfig{
		Name: "",
	})
}

// NewTyped constructs a new work queue (see the package comment).
func NewTyped[T comparable]() *Typed[T] {
	return NewTypedWithConfig(TypedQueueConfig[T]{
		Name: "",
	})
}

// NewWithConfig constructs a new workqueue with ability to customize
// different properties.
//
// Deprecated: use NewTypedWithConfig instead.
func NewWithConfig(config QueueConfig) *Type {
	return NewTypedWithConfig(config)
}

// NewTypedWithConfig constructs a new workqueue with ability to customize
// different properties.
func NewTypedWithConfig[T comparable](config TypedQueueConfig[T]) *Typed[T] {
	return newTyped(config, nil)
}

// NewNamed creates a new named queue (the name is the metrics').
//
// Deprecated: Use NewWithConfig instead.
func NewNamed(name string) *Type {
	return NewWithConfig(QueueConfig{
		Name: name,
	})
}

// Type is a work queue (see the package comment).
//
// Deprecated: Use Typed instead.
type Type = Typed[any]

// Typed is a work queue in the kernel: Add, Get, Done and the rest are
// one system call each. It holds as many distinct items as the module lets
// one queue hold (max_items_limit, or unpriv_max_items without
// CAP_SYS_RESOURCE: 262144 by default); an Add the kernel refuses (that
// limit, the owner's key-byte quota, memory) is counted (Refused) and
// logged once per kind, where client-go's Add never fails. If the kernel
// queue cannot be made (no /dev/wq, the queue quota), Err says why (and
// it is logged), and the queue is shut down from the start: Add does
// nothing and Get returns shutdown.
type Typed[T comparable] struct {
	b base.Queue[T, meta] // the kernel queue and its items

	touchMu sync.Mutex
	touch   Queue[T]

	metrics   queueMetrics[T]
	metricsOn bool
}

// kqError wraps the kernel's errno with the call that got it, so that
// errors.Is(err, syscall.EEXIST) works.
func kqError(call string, e syscall.Errno) error {
	return wrap(kq.Error(call, e))
}

// wrap says an error of the kernel plumbing is this package's.
func wrap(err error) error {
	return fmt.Errorf("workqueue: %w", err)
}

// meta: what a queue with metrics records of an item: counted as added
// and not yet handed out (metrics.go).
type meta struct{ counted bool }

// newTyped makes the kernel queue with limiter lim (nil: none).
func newTyped[T comparable](config TypedQueueConfig[T], lim *kq.Limiter) *Typed[T] {
	clock := config.Clock
	if clock == nil {
		clock = RealClock{}
	}
	t := &Typed[T]{
		touch:   config.Queue,
		metrics: newQueueMetrics[T](config.MetricsProvider, config.Name, clock),
	}
	_, noop := t.metrics.(noMetrics[T])
	t.metricsOn = !noop
	o := base.Options{Pkg: "workqueue", Name: config.Name, Limiter: lim,
		NewTicker: func(d time.Duration) base.Ticker { return clock.NewTicker(d) }}
	if t.metricsOn {
		o.UnfinishedWork = t.metrics.updateUnfinishedWork
	}
	t.b.Init(o)
	// an unreachable queue lets go of its kernel queue and its goroutine
	runtime.SetFinalizer(t, func(t *Typed[T]) { t.b.Finalize() })
	return t
}

// Err says why the kernel queue could not be made, or nil.
func (q *Typed[T]) Err() error {
	return q.b.Err()
}

// Refused returns how many adds the kernel refused (not counting those
// after ShutDown, which client-go ignores too).
func (q *Typed[T]) Refused() uint64 {
	return q.b.Refused()
}

// Add marks item as needing processing. When the queue is shut down new
// items will silently be ignored and not queued or marked as dirty for
// reprocessing.
func (q *Typed[T]) Add(item T) {
	q.add(item, 0, 0)
}

// add: Add (flags 0), AddAfter (addAfter, d) or AddRateLimited.
func (q *Typed[T]) add(item T, flags uint32, d time.Duration) {
	var count func(m *meta, out int, _ time.Duration)
	if q.metricsOn {
		count = func(m *meta, out int, _ time.Duration) {
			if (out == kq.AddedQueued || out == kq.AddedDirty) && !m.counted {
				m.counted = true
				q.metrics.add(item)
			}
		}
	}
	if out, ok := q.b.Add(item, flags, d, 0, count); ok && out == kq.AddedCoalesced && q.touch != nil {
		q.touchItem(item)
	}
}

func (q *Typed[T]) touchItem(item T) {
	q.touchMu.Lock()
	defer q.touchMu.Unlock()
	q.touch.Touch(item)
}

// Len returns the current queue length, for informational purposes only.
func (q *Typed[T]) Len() int {
	qi, ok := q.b.Stat()
	if !ok {
		return 0
	}
	return int(qi.Queued)
}

// Get blocks until it can return an item to be processed. If shutdown =
// true, the caller should end their goroutine. You must call Done with
// item when you have finished processing it. A goroutine waiting here
// holds no OS thread.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	ent, _, ok := q.b.Get()
	if !ok {
		return item, true
	}
	item = ent.Item
	if q.metricsOn {
		q.b.In.HandedOut(ent, func(m *meta) {
			if !m.counted {
				q.metrics.add(item)
			}
			m.counted = false
		})
		q.metrics.get(item)
	}
	return item, false
}

// Done marks item as done processing, and if it has been marked as dirty
// again while it was being processed, it will be re-added to the queue
// for re-processing.
func (q *Typed[T]) Done(item T) {
	if q.b.K == nil {
		return
	}
	q.metrics.done(item)
	q.b.Done(item, nil)
}

// forget: the kernel limiter forgets item.
func (q *Typed[T]) forget(item T) {
	q.b.Forget(item)
}

// addRateLimited: the kernel limiter's delay.
func (q *Typed[T]) addRateLimited(item T) {
	q.add(item, kq.AddRateLimited, 0)
}

// numRequeues: the kernel limiter's count of item's failures.
func (q *Typed[T]) numRequeues(item T) int {
	return q.b.NumRequeues(item)
}

// ShutDown will cause q to ignore all new items added to it. Worker
// goroutines will continue processing items in the queue until it is
// empty and then receive the shutdown signal. It also cuts short a
// ShutDownWithDrain.
func (q *Typed[T]) ShutDown() {
	q.b.Shutdown(0, true)
}

// ShutDownWithDrain is equivalent to ShutDown but waits until all items
// in the queue have been processed: the kernel's drain, which waits until
// nothing is queued or processing (client-go waits only for the items
// being processed). ShutDown can be called after ShutDownWithDrain to
// force ShutDownWithDrain to stop waiting. Workers must call Done on an
// item after processing it, otherwise ShutDownWithDrain will block
// indefinitely.
func (q *Typed[T]) ShutDownWithDrain() {
	q.b.Shutdown(kq.ShutdownDrain, false)
}

// ShuttingDown says whether ShutDown (or ShutDownWithDrain) was called.
func (q *Typed[T]) ShuttingDown() bool {
	return q.b.ShuttingDown()
}
