package priorityqueue

// The queue: controller-runtime's PriorityQueue over a private kernel
// queue made with priorities. Every call is one system call (Done and
// Forget ask what the kernel still holds, so items are let go of); the
// order, the dedup, the delays and a limiter of wq.dev/go/workqueue's run
// in the kernel. What it shares with workqueue's queue (the kernel queue,
// its items, its life) is wq.dev/go/internal/base's. Where the kernel
// cannot serve New, the queue is controller-runtime's own, in process.

import (
	"math"
	"sync/atomic"
	"time"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	crpq "sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/limiters"
	wq "wq.dev/go/workqueue"
)

// AddOpts is controller-runtime's AddOpts: After, RateLimited, Priority.
type AddOpts = crpq.AddOpts

// PriorityQueue is controller-runtime's PriorityQueue: client-go's
// TypedRateLimitingInterface plus AddWithOpts and GetWithPriority. A
// controller given a queue of this package through
// controller.Options.NewQueue sees one of its own, and hands it
// priorities.
type PriorityQueue[T comparable] = crpq.PriorityQueue[T]

// Opts is controller-runtime's Opts: RateLimiter, MetricProvider, Log.
type Opts[T comparable] = crpq.Opts[T]

// Opt is controller-runtime's Opt, a function that sets Opts.
type Opt[T comparable] = crpq.Opt[T]

// New constructs a new PriorityQueue, as controller-runtime's New: a
// private kernel queue made with priorities (no name in the kernel; name
// is the metrics'), or, where the kernel cannot serve it (no /dev/wq, a
// module without priority queues, the queue quota), controller-runtime's
// own in-process queue, logged once to o.Log (or klog) with the reason;
// wq.dev/go/workqueue's BackendOf tells which. The default RateLimiter is
// controller-runtime's (exponential, 5 ms to 1000 s), made by
// wq.dev/go/workqueue so that the kernel applies it; the default
// MetricProvider is the one of client-go's SetProvider, which in a
// program that links controller-runtime is controller-runtime's, unless
// another package (k8s.io/component-base's legacyregistry, say) called
// SetProvider first: controller-runtime's own queue reports to its own
// provider in any case (give MetricProvider to choose).
func New[T comparable](name string, o ...Opt[T]) PriorityQueue[T] {
	opts := &Opts[T]{}
	for _, f := range o {
		f(opts)
	}
	x := takeExtras(opts)
	if opts.RateLimiter == nil {
		opts.RateLimiter = wq.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second)
	}
	why := kq.Ready(kq.FeatureAddOutcome | kq.FeatureKeyState | kq.FeaturePriority)
	if why == nil {
		q, err := newQueue(name, opts, x)
		if err == nil {
			return q
		}
		why = err
	}
	inner := *opts
	return &localQueue[T]{crpq.New(name, func(o *Opts[T]) { *o = inner }), inProcess(opts, name, why)}
}

// NewQueue is New for controller.Options.NewQueue (and a builder's
// WithOptions), as controller-runtime's default NewQueue makes its
// priority queue: a queue named after the controller, with the
// controller's rate limiter (give the controller one of
// wq.dev/go/workqueue's for the kernel to apply it; controller-runtime's
// default is client-go's, which runs in Go) and a logger with the
// controller's name:
//
//	ctrl.NewControllerManagedBy(mgr).
//		For(&corev1.Pod{}).
//		WithOptions(controller.Options{NewQueue: priorityqueue.NewQueue[reconcile.Request]}).
//		Complete(r)
func NewQueue[T comparable](controllerName string, rateLimiter workqueue.TypedRateLimiter[T]) workqueue.TypedRateLimitingInterface[T] {
	return New(controllerName, func(o *Opts[T]) {
		o.Log = logf.Log.WithValues("controller", controllerName)
		o.RateLimiter = rateLimiter
	})
}

// Queue is the kernel queue New returns, with a few calls beyond
// controller-runtime's (Backend, Refused, State, CancelAfter): reach them
// with q.(*priorityqueue.Queue[T]).
type Queue[T comparable] struct {
	b base.Queue[T, meta] // the kernel queue and its items

	limiter   workqueue.TypedRateLimiter[T]
	metrics   queueMetrics[T]
	metricsOn bool
	discarded atomic.Bool // ShutDown: Get returns shutdown at once
}

var _ PriorityQueue[string] = &Queue[string]{}

func newQueue[T comparable](name string, opts *Opts[T], x extras) (*Queue[T], error) {
	q := &Queue[T]{
		limiter: opts.RateLimiter,
		metrics: newQueueMetrics[T](opts.MetricProvider, name),
	}
	_, noop := q.metrics.(noMetrics[T])
	q.metricsOn = !noop
	o := base.Options{Pkg: "priorityqueue", Name: name, Flags: kq.CreatePriority,
		NewTicker: func(d time.Duration) base.Ticker { return clock.RealClock{}.NewTicker(d) }}
	if lim, ok := limiters.Kernel(opts.RateLimiter); ok {
		o.Limiter = lim // else it runs in Go
	}
	if x.starveAfter > 0 {
		o.StarveNs = uint64(x.starveAfter)
	}
	if q.metricsOn {
		m := q.metrics // not q: the goroutine must not hold the queue
		o.UnfinishedWork = func(*kq.QueueInfo) { m.updateUnfinishedWork() }
	}
	if err := q.b.Init(o); err != nil {
		return nil, err
	}
	// an unreachable queue lets go of its kernel queue and its goroutine
	base.ReleaseWith(q, &q.b)
	return q, nil
}

// Backend is wq.dev/go/workqueue's BackendKernel.
func (q *Queue[T]) Backend() (wq.Backend, error) {
	return wq.BackendKernel, nil
}

// Refused returns how many adds the kernel refused for good; each kind is
// logged once. An add it has no room for (its limit of items of a queue,
// the owner's key-byte quota, memory) is not refused: it waits in the
// process until there is room. Adds after a shutdown are ignored.
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
// again meanwhile (queued at their Done), and the adds waiting in process
// for room in the kernel queue. It does not include items that are not
// yet ready.
func (q *Queue[T]) Len() int {
	_, waiting := q.b.Overflow()
	qi, ok := q.b.Stat()
	if !ok {
		return waiting
	}
	return int(qi.Queued) + int(qi.Dirty) + waiting
}

// ShutDown shuts the queue down as controller-runtime's does: adds are
// ignored, GetWithPriority returns shutdown at once (a waiting one
// too), and what is queued or waiting is dropped (the kernel's
// discarding shutdown); items being processed may still be Done. It
// also cuts short a ShutDownWithKernelDrain.
func (q *Queue[T]) ShutDown() {
	q.discarded.Store(true)
	q.b.Shutdown(kq.ShutdownDiscard, true)
}

// ShutDownWithDrain is ShutDown, as controller-runtime's (whose
// controllers do not drain): it returns at once, whether or not items
// are queued or being processed.
func (q *Queue[T]) ShutDownWithDrain() {
	q.ShutDown()
}

// ShutDownWithKernelDrain, beyond controller-runtime, is the kernel's
// stricter drain: it shuts the queue down and waits until nothing is
// queued or processing; adds are ignored, the queued items are still
// handed out, the waiting ones are dropped. A ShutDown meanwhile cuts it
// short. Workers must call Done on an item after processing it, and keep
// calling Get until it says shutdown, otherwise it blocks indefinitely.
func (q *Queue[T]) ShutDownWithKernelDrain() {
	q.b.Shutdown(kq.ShutdownDrain, false)
}

// ShuttingDown says whether ShutDown (or ShutDownWithDrain) was called.
func (q *Queue[T]) ShuttingDown() bool {
	return q.b.ShuttingDown()
}
