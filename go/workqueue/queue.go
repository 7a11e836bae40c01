package workqueue

// The queue: client-go's Interface over a private kernel queue. Every
// constructor makes a queue of its own in the kernel (no name, reachable
// only through this process's handle; freed when the handle is closed),
// and every call is one system call: the dedup FIFO with its dirty and
// processing sets lives in the kernel, the items in the process
// (intern.go).

import (
	"errors"
	"fmt"
	"log"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
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

const defaultUnfinishedWorkUpdatePeriod = 500 * time.Millisecond

// idBufs: heap buffers for the keys Get receives (kernel.go).
var idBufs = sync.Pool{New: func() any { return new([8]byte) }}

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
	k   *kq
	err error
	in  *interner[T]

	touchMu sync.Mutex
	touch   Queue[T]

	// the kernel applies the queue's rate limiter (limiter_spec.go)
	kernelLimiter bool

	metrics      queueMetrics[T]
	metricsOn    bool
	refused      atomic.Uint64
	logged       sync.Map // syscall.Errno: refusals logged
	shuttingDown atomic.Bool
	cancels      atomic.Uint64 // ShutDown calls: a drain under way stops
	stopOnce     sync.Once
	stopCh       chan struct{}
	loopDone     chan struct{} // the metrics goroutine ended (or none)
	closeOnce    sync.Once
}

// kqError wraps the kernel's errno with the call that got it, so that
// errors.Is(err, syscall.EEXIST) works.
func kqError(call string, e syscall.Errno) error {
	return fmt.Errorf("workqueue: %s: %w", call, e)
}

// newTypedKQ makes a private kernel queue holding as many items as the
// module lets (its ceiling for the caller), with lim (nil: none); if the
// kernel refuses the limiter, without it (the caller then runs the
// limiter in Go). On EDQUOT it lets unreachable queues go (a collection
// runs their finalizers) and tries once more.
func newTypedKQ(lim *wqLimiter) (*kq, bool, error) {
	mi := module()
	sizes := []uint32{mi.MaxItemsLimit, mi.UnprivMaxItems, 0}
	var err error
	for retried := false; ; {
		for _, n := range sizes {
			var k *kq
			k, err = createKQ("", n, 0, lim)
			if err == nil {
				return k, lim != nil && lim.NrTerms > 0, nil
			}
			if !errors.Is(err, syscall.EINVAL) {
				break
			}
		}
		if errors.Is(err, syscall.EINVAL) && lim != nil && lim.NrTerms > 0 {
			lim = nil // the kernel refused the limiter: Go runs it
			continue
		}
		if !errors.Is(err, syscall.EDQUOT) || retried {
			return nil, false, err
		}
		retried = true
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // finalizers close handles
	}
}

// newTyped makes the kernel queue with limiter lim (nil: none).
func newTyped[T comparable](config TypedQueueConfig[T], lim *wqLimiter) *Typed[T] {
	clock := config.Clock
	if clock == nil {
		clock = RealClock{}
	}
	t := &Typed[T]{
		in:       newInterner[T](),
		touch:    config.Queue,
		metrics:  newQueueMetrics[T](config.MetricsProvider, config.Name, clock),
		stopCh:   make(chan struct{}),
		loopDone: make(chan struct{}),
	}
	_, noop := t.metrics.(noMetrics[T])
	t.metricsOn = !noop
	t.k, t.kernelLimiter, t.err = newTypedKQ(lim)
	if t.err != nil {
		log.Printf("workqueue: the queue %q is shut down from the start: %v", config.Name, t.err)
		t.shuttingDown.Store(true)
	}
	if t.metricsOn {
		// the goroutine holds the metrics, not t: t can be collected
		go unfinishedWorkLoop(t.metrics, clock, t.stopCh, t.loopDone)
	} else {
		close(t.loopDone)
	}
	// an unreachable queue lets go of its kernel queue and its goroutine
	runtime.SetFinalizer(t, func(t *Typed[T]) {
		t.stopOnce.Do(func() { close(t.stopCh) })
		t.close()
	})
	return t
}

// Err says why the kernel queue could not be made, or nil.
func (q *Typed[T]) Err() error {
	return q.err
}

// Refused returns how many adds the kernel refused (not counting those
// after ShutDown, which client-go ignores too).
func (q *Typed[T]) Refused() uint64 {
	return q.refused.Load()
}

func (q *Typed[T]) refuse(e syscall.Errno) {
	if e == syscall.ESHUTDOWN || e == syscall.EBADF {
		return
	}
	q.refused.Add(1)
	if _, seen := q.logged.LoadOrStore(e, struct{}{}); !seen {
		log.Printf("workqueue: an add was refused (further ones of this kind are only counted): %v", e)
	}
}

// Add marks item as needing processing. When the queue is shut down new
// items will silently be ignored and not queued or marked as dirty for
// reprocessing.
func (q *Typed[T]) Add(item T) {
	q.add(item, 0, 0)
}

// add: Add (flags 0), AddAfter (addAfter, d) or AddRateLimited.
func (q *Typed[T]) add(item T, flags uint32, d time.Duration) {
	if q.k == nil || q.shuttingDown.Load() {
		return
	}
	e := q.in.acquire(item)
	out, _, errno := q.k.add(e.key[:], flags, d)
	var count func()
	if errno == 0 && q.metricsOn && (out == addedQueued || out == addedDirty) {
		count = func() { q.metrics.add(item) }
	}
	q.in.afterAdd(e, errno == 0, count)
	if errno != 0 {
		q.refuse(errno)
		return
	}
	if out == addedCoalesced && q.touch != nil {
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
	if q.k == nil {
		return 0
	}
	qi, e := q.k.stat()
	if e != 0 {
		return 0
	}
	return int(qi.Queued)
}

// Get blocks until it can return an item to be processed. If shutdown =
// true, the caller should end their goroutine. You must call Done with
// item when you have finished processing it. A goroutine waiting here
// holds no OS thread.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	if q.k == nil {
		return item, true
	}
	buf := idBufs.Get().(*[8]byte)
	defer idBufs.Put(buf)
	for {
		n, e := q.k.get(buf[:])
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.ESHUTDOWN, syscall.EBADF:
			return item, true
		default: // ENOMEM: try again
			time.Sleep(10 * time.Millisecond)
			continue
		}
		ent, ok := q.in.lookup(buf[:n])
		if !ok {
			continue // not one of ours (cannot be: the queue is private)
		}
		item = ent.item
		if q.metricsOn {
			q.in.handedOut(ent, func() { q.metrics.add(item) })
			q.metrics.get(item)
		}
		return item, false
	}
}

// keyDone: DONE or FORGET of e's key, asking what the kernel still holds;
// an item it let go of is dropped. Memory is asked for again a few times.
func (q *Typed[T]) keyDone(req uintptr, e *entry[T]) {
	for i := 0; ; i++ {
		state, errno := q.k.keyCall(req, e.key[:], keyResultState)
		if errno == syscall.ENOMEM && i < 10 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		q.in.done(e, errno == 0 && state == 0)
		return
	}
}

// Done marks item as done processing, and if it has been marked as dirty
// again while it was being processed, it will be re-added to the queue
// for re-processing.
func (q *Typed[T]) Done(item T) {
	if q.k == nil {
		return
	}
	q.metrics.done(item)
	if e := q.in.find(item); e != nil {
		q.keyDone(iocDone, e)
	}
}

// forget: the kernel limiter forgets item.
func (q *Typed[T]) forget(item T) {
	if q.k == nil {
		return
	}
	if e := q.in.find(item); e != nil {
		q.keyDone(iocForget, e)
	}
}

// addRateLimited: the kernel limiter's delay.
func (q *Typed[T]) addRateLimited(item T) {
	q.add(item, addRateLimited, 0)
}

// numRequeues: the kernel limiter's count of item's failures.
func (q *Typed[T]) numRequeues(item T) int {
	if q.k == nil {
		return 0
	}
	e := q.in.find(item)
	if e == nil {
		return 0
	}
	n, errno := q.k.keyCall(iocNumRequeues, e.key[:], 0)
	q.in.done(e, false)
	if errno != 0 {
		return 0
	}
	return int(n)
}

// ShutDown will cause q to ignore all new items added to it. Worker
// goroutines will continue processing items in the queue until it is
// empty and then receive the shutdown signal. It also cuts short a
// ShutDownWithDrain.
func (q *Typed[T]) ShutDown() {
	q.cancels.Add(1)
	q.shutdown(0)
}

// ShutDownWithDrain is equivalent to ShutDown but waits until all items
// in the queue have been processed: the kernel's drain, which waits until
// nothing is queued or processing (client-go waits only for the items
// being processed). ShutDown can be called after ShutDownWithDrain to
// force ShutDownWithDrain to stop waiting. Workers must call Done on an
// item after processing it, otherwise ShutDownWithDrain will block
// indefinitely.
func (q *Typed[T]) ShutDownWithDrain() {
	q.shutdown(shutdownDrain)
}

func (q *Typed[T]) shutdown(flags uint32) {
	defer func() { <-q.loopDone }()
	q.stopOnce.Do(func() { close(q.stopCh) })
	q.shuttingDown.Store(true)
	if q.k != nil {
		c := q.cancels.Load()
		q.k.shutdown(flags, func() bool { return q.cancels.Load() != c })
	}
}

// ShuttingDown says whether ShutDown (or ShutDownWithDrain) was called.
func (q *Typed[T]) ShuttingDown() bool {
	return q.shuttingDown.Load()
}

// close lets go of the kernel queue (a finalizer does it for a queue no
// longer reachable).
func (q *Typed[T]) close() {
	q.closeOnce.Do(func() {
		if q.k != nil {
			q.k.close()
		}
	})
}

// unfinishedWorkLoop: client-go's update of the unfinished-work gauges,
// every half second until stop is closed.
func unfinishedWorkLoop[T comparable](m queueMetrics[T], clock WithTicker, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := clock.NewTicker(defaultUnfinishedWorkUpdatePeriod)
	defer t.Stop()
	for {
		select {
		case <-t.C():
			m.updateUnfinishedWork()
		case <-stop:
			return
		}
	}
}
