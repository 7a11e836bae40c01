package priorityqueue

// The queue: controller-runtime's PriorityQueue over a private kernel
// queue made with priorities. Every call is one system call (Done and
// Forget ask what the kernel still holds, so items are let go of); the
// order, the dedup, the delays and a limiter of package workqueue's run
// in the kernel. What it shares with workqueue's queue (the kernel queue,
// its items, its life) is wq.dev/go/internal/base's.

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
	"wq.dev/go/workqueue"
)

// AddOpts describes the options for adding items to the queue.
type AddOpts struct {
	// After is a duration after which the item is ready; an item already
	// waiting keeps the earlier of its two times. 0 or less: ready now.
	After time.Duration
	// RateLimited asks the queue's rate limiter for a wait; with After
	// too, the shorter of the two is waited.
	RateLimited bool
	// Priority is the priority of the item. Higher values
	// indicate higher priority.
	// Defaults to zero if unset.
	Priority *int
}

// PriorityQueue is a priority queue for a controller. It
// internally de-duplicates all items that are added to
// it. It will use the max of the passed priorities and the
// min of possible durations.
//
// When an item that is already enqueued at a lower priority
// is re-enqueued with a higher priority, it will be placed at
// the end among items of the new priority, in order to
// preserve FIFO semantics within each priority level.
// The effective duration (i.e. the ready time) is still
// computed as the minimum across all enqueues.
type PriorityQueue[T comparable] interface {
	workqueue.TypedRateLimitingInterface[T]
	AddWithOpts(o AddOpts, Items ...T)
	GetWithPriority() (item T, priority int, shutdown bool)
}

// Opts contains the options for a PriorityQueue. controller-runtime's
// Log (a logr.Logger, which is not in the standard library) is not here:
// the queue logs only what the kernel refused, with the standard log
// package, as package workqueue does.
type Opts[T comparable] struct {
	// RateLimiter is used when AddRateLimited is called (or AddWithOpts
	// with RateLimited). Defaults to a per-item exponential backoff
	// limiter with an initial delay of five milliseconds and a max delay
	// of 1000 seconds. A limiter made of package workqueue's is the
	// kernel's limiter of the queue (exact; Forget and NumRequeues are
	// the kernel's); any other runs in Go.
	RateLimiter workqueue.TypedRateLimiter[T]
	// MetricProvider gets the queue's metrics (when the queue has a
	// name); nil is workqueue.SetProvider's. One that implements
	// MetricsProviderWithPriority gets the depth by priority.
	MetricProvider workqueue.MetricsProvider
	// StarveAfter, beyond controller-runtime: a ready item that has
	// waited longer than this is handed out before every item that has
	// not, whatever the priorities (oldest first among them), so that no
	// stream of higher items starves a lower one. 0: never.
	StarveAfter time.Duration
}

// Opt allows to configure a PriorityQueue.
type Opt[T comparable] func(*Opts[T])

// New constructs a new PriorityQueue: a private kernel queue made with
// priorities (no name in the kernel; name is the metrics'). If the
// kernel queue cannot be made (no /dev/wq, a module without priority
// queues, the queue quota), the queue is shut down from the start: Err
// (of the *Queue[T] it returns) says why, AddWithOpts does nothing and
// GetWithPriority returns shutdown.
func New[T comparable](name string, o ...Opt[T]) PriorityQueue[T] {
	opts := &Opts[T]{}
	for _, f := range o {
		f(opts)
	}
	if opts.RateLimiter == nil {
		opts.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
	}
	return newQueue(name, opts)
}

// Queue is the PriorityQueue New returns, with a few calls beyond
// controller-runtime's (Err, Refused, State, CancelAfter): reach them
// with q.(*priorityqueue.Queue[T]).
type Queue[T comparable] struct {
	b base.Queue[T, meta] // the kernel queue and its items

	limiter   workqueue.TypedRateLimiter[T]
	metrics   queueMetrics[T]
	metricsOn bool
	discarded atomic.Bool // ShutDown: Get returns shutdown at once
}

var _ PriorityQueue[string] = &Queue[string]{}

func newQueue[T comparable](name string, opts *Opts[T]) *Queue[T] {
	q := &Queue[T]{
		limiter: opts.RateLimiter,
		metrics: newQueueMetrics[T](opts.MetricProvider, name),
	}
	_, noop := q.metrics.(noMetrics[T])
	q.metricsOn = !noop
	o := base.Options{Pkg: "priorityqueue", Name: name, Flags: kq.CreatePriority,
		NewTicker: func(d time.Duration) base.Ticker { return workqueue.RealClock{}.NewTicker(d) }}
	if lim, ok := kq.LimiterOf(opts.RateLimiter); ok {
		o.Limiter = lim // else it runs in Go
	}
	if opts.StarveAfter > 0 {
		o.StarveNs = uint64(opts.StarveAfter)
	}
	if q.metricsOn {
		o.UnfinishedWork = q.metrics.updateUnfinishedWork
	}
	q.b.Init(o)
	if q.b.Err() != nil {
		q.discarded.Store(true)
	}
	// an unreachable queue lets go of its kernel queue and its goroutine
	runtime.SetFinalizer(q, func(q *Queue[T]) { q.b.Finalize() })
	return q
}

// Err says why the kernel queue could not be made, or nil.
func (q *Queue[T]) Err() error {
	return q.b.Err()
}

// Refused returns how many adds the kernel refused (its limit of items
// of a queue, the owner's key-byte quota, memory); each kind is logged
// once. Adds after a shutdown are ignored, not refused.
func (q *Queue[T]) Refused() uint64 {
	return q.b.Refused()
}

// priority32: the kernel's priorities are 32-bit; beyond, they are
// clamped.
func priority32(p int) int32 {
	switch {
	case p > math.MaxInt32:
		return math.MaxInt32
	case p < math.MinInt32:
		return math.MinInt32
	}
	return int32(p)
}

// AddWithOpts adds items with the options o: each is ready after
// o.After (and, with o.RateLimited, its limiter's delay: the shorter of
// the two), at priority *o.Priority (0 if nil; 32-bit, larger values are
// clamped). An item the queue holds keeps the higher of its priorities
// and the earlier of its ready times; an item being processed is queued
// again at its Done. After ShutDown it does nothing.
func (q *Queue[T]) AddWithOpts(o AddOpts, items ...T) {
	if q.b.ShuttingDown() {
		return
	}
	for _, item := range items {
		q.add(o, item)
	}
}

// add: one item of AddWithOpts. Every add gives the kernel a priority
// (a nil one is 0), so that an add without one raises a negative
// priority to 0, as controller-runtime's does.
func (q *Queue[T]) add(o AddOpts, item T) {
	p := 0
	if o.Priority != nil {
		p = *o.Priority
	}
	flags := uint32(kq.AddPriority)
	after := o.After
	var delay time.Duration
	switch {
	case o.RateLimited && q.b.KernelLimiter:
		flags |= kq.AddRateLimited
		if after != 0 { // the kernel waits the shorter
			flags |= kq.AddAfter
			delay = max(after, 0)
		}
	case o.RateLimited:
		if rl := q.limiter.When(item); after == 0 || rl < after {
			after = rl
		}
		fallthrough
	default:
		if after > 0 {
			flags |= kq.AddAfter
			delay = after
		}
	}
	var record func(m *meta, out int, used time.Duration)
	if q.metricsOn {
		record = func(m *meta, out int, used time.Duration) {
			waited := delay
			if flags&kq.AddRateLimited != 0 {
				waited = used
			}
			if waited > 0 {
				q.metrics.retry()
			}
			report(q.metrics, item, m.added(int(priority32(p)), out))
		}
	}
	q.b.Add(item, flags, delay, priority32(p), record)
}

// Add adds item at priority 0 (keeping a higher one it has).
func (q *Queue[T]) Add(item T) {
	q.AddWithOpts(AddOpts{}, item)
}

// AddAfter adds item after the duration (the kernel's delay).
func (q *Queue[T]) AddAfter(item T, after time.Duration) {
	q.AddWithOpts(AddOpts{After: after}, item)
}

// AddRateLimited adds item after its rate limiter's delay.
func (q *Queue[T]) AddRateLimited(item T) {
	q.AddWithOpts(AddOpts{RateLimited: true}, item)
}

// GetWithPriority blocks until it can return an item to be processed,
// with its priority (the highest given by the adds since it was last
// handed out). If shutdown = true, the caller should end their
// goroutine; after ShutDown that is at once. You must call Done with
// item when you have finished processing it. A goroutine waiting here
// holds no OS thread.
func (q *Queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	if q.discarded.Load() {
		return item, 0, true
	}
	ent, prio, ok := q.b.Get()
	if !ok {
		return item, 0, true
	}
	item = ent.Item
	if q.metricsOn {
		q.b.In.HandedOut(ent, func(m *meta) { report(q.metrics, item, m.handedOut(int(prio))) })
	}
	return item, int(prio), false
}

// Get is GetWithPriority without the priority.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	item, _, shutdown = q.GetWithPriority()
	return item, shutdown
}

// Done marks item as done processing: if it was added meanwhile, it is
// queued again, at the highest priority those adds gave.
func (q *Queue[T]) Done(item T) {
	if q.b.K == nil {
		return
	}
	q.metrics.done(item)
	// a waiting copy outlives the Done only if the kernel says so
	q.b.Done(item, func(m *meta, state uint64) { m.waiting = m.waiting && state&kq.KeyWaiting != 0 })
}

// Forget makes the rate limiter forget item's failures (the kernel's, if
// it is the kernel's; the limiter object's in any case).
func (q *Queue[T]) Forget(item T) {
	if q.b.KernelLimiter {
		q.b.Forget(item)
	}
	q.limiter.Forget(item)
}

// NumRequeues returns how many failures the rate limiter counts of item.
func (q *Queue[T]) NumRequeues(item T) int {
	if !q.b.KernelLimiter {
		return q.limiter.NumRequeues(item)
	}
	return q.b.NumRequeues(item)
}

// Len returns the number of items that are ready to be picked up, as
// controller-runtime counts them: queued, and being processed and added
// again meanwhile (queued at their Done). It does not include items that
// are not yet ready.
func (q *Queue[T]) Len() int {
	qi, ok := q.b.Stat()
	if !ok {
		return 0
	}
	return int(qi.Queued) + int(qi.Dirty)
}

// ShutDown shuts the queue down as controller-runtime's does: adds are
// ignored, GetWithPriority returns shutdown at once (a waiting one
// too), and what is queued or waiting is dropped (the kernel's
// discarding shutdown); items being processed may still be Done. It
// also cuts short a ShutDownWithDrain.
func (q *Queue[T]) ShutDown() {
	q.discarded.Store(true)
	q.b.Shutdown(kq.ShutdownDiscard, true)
}

// ShutDownWithDrain shuts the queue down and waits until nothing is
// queued or processing (the kernel's drain; controller-runtime's only
// shuts down): adds are ignored, the queued items are still handed out,
// the waiting ones are dropped. A ShutDown meanwhile cuts it short.
// Workers must call Done on an item after processing it, otherwise it
// blocks indefinitely.
func (q *Queue[T]) ShutDownWithDrain() {
	q.b.Shutdown(kq.ShutdownDrain, false)
}

// ShuttingDown says whether ShutDown (or ShutDownWithDrain) was called.
func (q *Queue[T]) ShuttingDown() bool {
	return q.b.ShuttingDown()
}
