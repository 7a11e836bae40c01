package workqueue

// The queue: client-go's TypedInterface over a private kernel queue.
// Every constructor makes a queue of its own in the kernel (no name,
// reachable only through this process's handle; freed when the handle is
// closed), and every call is one system call: the dedup FIFO with its
// dirty and processing sets lives in the kernel, the items in the process
// (wq.dev/go/internal/intern). Where the kernel cannot serve the
// constructor (backend.go), the queue is client-go's own, in process.

import (
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
)

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
// different properties: a kernel queue, or client-go's in-process one if
// the config has a Queue or a Clock that is not the real one, or the
// kernel cannot serve it (BackendOf says which, and why).
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

// Typed is a work queue, with the method set of client-go's Typed and its
// behaviour: in the kernel, each call is one system call. The kernel
// queue holds as many distinct items as the module lets one queue hold
// (max_items_limit, or unpriv_max_items without CAP_SYS_RESOURCE: 262144
// by default); an add it has no room for (that limit, the owner's
// key-byte quota, memory) is not dropped, as client-go's Add never fails:
// it waits in the process, with the adds after it, in order, and goes to
// the kernel as room frees (as Done lets go of keys); Len counts it.
// Where the kernel cannot serve the constructor, a Typed is client-go's
// in-process queue (BackendOf).
//
// Typed is the one type of client-go's package this package has of its
// own: client-go's is a struct whose methods are its in-process queue.
type Typed[T comparable] struct {
	local *workqueue.Typed[T] // client-go's in-process queue, or nil
	why   error               // why in-process

	b base.Queue[T, meta] // the kernel queue and its items

	metrics   queueMetrics[T]
	metricsOn bool

	// ShutDownWithDrain waits for the items being processed (the
	// kernel's count), woken by Done and ShutDown.
	draining atomic.Int32
	cancels  atomic.Uint64
	wake     notifier
}

// meta: what the queue records of an item beyond its key (nothing: the
// metrics count pending keys, not items, metrics.go).
type meta struct{}

// kernelWhy says why a queue of this config cannot be the kernel's, or
// nil: custom storage, a clock the kernel cannot follow, no usable module.
func kernelWhy(custom bool, c clock.WithTicker) error {
	switch {
	case custom:
		return ErrCustomQueue
	case !realClock(c):
		return ErrFakeClock
	}
	return kernelReady()
}

// newTyped makes a kernel queue, or client-go's in-process queue (logged
// to logger, if not nil).
func newTyped[T comparable](config TypedQueueConfig[T], logger *klog.Logger) *Typed[T] {
	why := kernelWhy(config.Queue != nil, config.Clock)
	if why == nil {
		t, err := newKernelTyped(config, nil)
		if err == nil {
			return t
		}
		why = err
	}
	return &Typed[T]{local: workqueue.NewTypedWithConfig(config), why: inProcess(logger, config.Name, why)}
}

// privateMaxItems: how many keys a private kernel queue holds; 0: as many
// as the module lets it (a test makes it small, to fill it).
var privateMaxItems uint32

// newKernelTyped makes a kernel queue with limiter lim, or says why it
// cannot.
func newKernelTyped[T comparable](config TypedQueueConfig[T], lim *kq.Limiter) (*Typed[T], error) {
	t := &Typed[T]{metrics: newQueueMetrics[T](config.MetricsProvider, config.Name)}
	_, noop := t.metrics.(noMetrics[T])
	t.metricsOn = !noop
	o := base.Options{Pkg: "workqueue", Name: config.Name, Limiter: lim, MaxItems: privateMaxItems,
		NewTicker: func(d time.Duration) base.Ticker { return clock.RealClock{}.NewTicker(d) }}
	if t.metricsOn {
		m := t.metrics // not t: the goroutine must not hold the queue
		o.UnfinishedWork = func(qi *kq.QueueInfo) { m.update(pendingOf(qi)) }
	}
	if err := t.b.Init(o); err != nil {
		return nil, err
	}
	// an unreachable queue lets go of its kernel queue and its goroutine
	base.ReleaseWith(t, &t.b)
	return t, nil
}

// Backend says what serves the queue: the kernel (nil error), or
// client-go's in-process queue and why (see BackendOf).
func (q *Typed[T]) Backend() (Backend, error) {
	if q.local != nil {
		return BackendInProcess, q.why
	}
	return BackendKernel, nil
}

// Refused returns how many adds the kernel refused for good (not those
// it had no room for, which wait; not those after ShutDown, which
// client-go ignores too); 0 in process.
func (q *Typed[T]) Refused() uint64 {
	if q.local != nil {
		return 0
	}
	return q.b.Refused()
}

// Add marks item as needing processing. When the queue is shut down new
// items will silently be ignored and not queued or marked as dirty for
// reprocessing.
func (q *Typed[T]) Add(item T) {
	if q.local != nil {
		q.local.Add(item)
		return
	}
	q.add(item, 0, 0)
}

// add: Add (flags 0), AddAfter (kq.AddAfter, d) or AddRateLimited. An
// add that made the key pending is counted (metrics.go).
func (q *Typed[T]) add(item T, flags uint32, d time.Duration) {
	var count func(m *meta, out int, _ time.Duration)
	if q.metricsOn {
		count = func(m *meta, out int, _ time.Duration) {
			if out == kq.AddedQueued || out == kq.AddedDirty {
				q.metrics.add(item)
			}
		}
	}
	q.b.Add(item, flags, d, 0, count)
}

// Len returns the current queue length, for informational purposes only
// (the kernel's queued keys, and the adds waiting for room in it).
func (q *Typed[T]) Len() int {
	if q.local != nil {
		return q.local.Len()
	}
	_, waiting := q.b.Overflow()
	qi, ok := q.b.Stat()
	if !ok {
		return waiting
	}
	return int(qi.Queued) + waiting
}

// Get blocks until it can return an item to be processed. If shutdown =
// true, the caller should end their goroutine. You must call Done with
// item when you have finished processing it. A goroutine waiting here
// holds no OS thread.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	if q.local != nil {
		return q.local.Get()
	}
	ent, _, ok := q.b.Get()
	if !ok {
		return item, true
	}
	item = ent.Item
	if q.metricsOn {
		// after what the adds of it under way record
		q.b.In.HandedOut(ent, func(*meta) { q.metrics.get(item) })
	}
	return item, false
}

// Done marks item as done processing, and if it has been marked as dirty
// again while it was being processed, it will be re-added to the queue
// for re-processing.
func (q *Typed[T]) Done(item T) {
	if q.local != nil {
		q.local.Done(item)
		return
	}
	q.metrics.done(item)
	q.b.Done(item, nil)
	if q.draining.Load() > 0 {
		q.wake.notify()
	}
}

// ShutDown will cause q to ignore all new items added to it. Worker
// goroutines will continue processing items in the queue until it is
// empty and then receive the shutdown signal. It also makes a
// ShutDownWithDrain under way return.
func (q *Typed[T]) ShutDown() {
	if q.local != nil {
		q.local.ShutDown()
		return
	}
	q.cancels.Add(1)
	q.b.Shutdown(0, false)
	q.wake.notify()
}

// ShutDownWithDrain is ShutDown, and then waits, as client-go's does,
// until every item handed out by Get has been Done (items still queued
// are not waited for: Get keeps handing them out). ShutDown can be called
// after ShutDownWithDrain to force ShutDownWithDrain to stop waiting.
// Workers must call Done on an item after processing it, otherwise
// ShutDownWithDrain will block indefinitely.
func (q *Typed[T]) ShutDownWithDrain() {
	if q.local != nil {
		q.local.ShutDownWithDrain()
		return
	}
	q.draining.Add(1)
	defer q.draining.Add(-1)
	c := q.cancels.Load()
	q.b.Shutdown(0, false)
	for {
		// the channel first: a ShutDown or Done after the checks
		// below closes it
		woken := q.wake.wait()
		if q.cancels.Load() != c {
			return
		}
		qi, ok := q.b.Stat()
		if !ok || qi.Processing == 0 {
			return
		}
		<-woken
	}
}

// ShuttingDown says whether ShutDown (or ShutDownWithDrain) was called.
func (q *Typed[T]) ShuttingDown() bool {
	if q.local != nil {
		return q.local.ShuttingDown()
	}
	return q.b.ShuttingDown()
}

// notifier wakes every goroutine that waits on it.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel that the next notify closes.
func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *notifier) notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}
