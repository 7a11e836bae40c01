package workqueue

// Restart-safe queues, beyond client-go: a named kernel queue that
// outlives the process. The keys the process was processing when it died
// go back to the queue (the kernel puts back what a closed handle held),
// and the waiting delays and the limiter's failure counts stay in the
// kernel, so the next process (a restarted container, a new leader)
// carries on where it stopped. Items are stored by value (encoding.go).

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/limiters"
)

// NewTypedRestartSafeQueue is NewTypedRateLimitingQueueWithConfig for a
// queue that survives its process: the kernel queue named config.Name
// (also the metrics' name), created if absent and opened if not (a queue
// keeps the limiter it was created with). It needs /dev/wq (no in-process
// fallback: the error says why), a limiter made by this package's
// constructors (nil: DefaultTypedControllerRateLimiter), so that the
// kernel keeps its backoff, and no DelayingQueue nor fake Clock. Items are
// kept by value: strings as their bytes (what wqctl and libwq see),
// other types as their JSON, which must be canonical (EncodeKey).
//
// Its ShutDown and ShutDownWithDrain stop this process's use of the
// queue, not the queue: adds are ignored and Get returns shutdown at
// once, and what is queued stays for the next process (ShutDownWithDrain
// also waits until the keys this process took are Done). The queue lives
// until it is destroyed (wqctl destroy NAME), in a container until its
// pod's IPC namespace goes.
func NewTypedRestartSafeQueue[T comparable](rateLimiter TypedRateLimiter[T], config TypedRateLimitingQueueConfig[T]) (TypedRateLimitingInterface[T], error) {
	name := config.Name
	switch {
	case name == "" || len(name) >= kq.NameMax:
		return nil, kqError(fmt.Sprintf("restart-safe queue name %q", name), syscall.EINVAL)
	case config.DelayingQueue != nil || !realClock(config.Clock):
		return nil, kqError(fmt.Sprintf("restart-safe queue %q: a DelayingQueue or a fake Clock", name), syscall.EINVAL)
	}
	enc, err := newCodec[T]()
	if err != nil {
		return nil, kqError(fmt.Sprintf("restart-safe queue %q: %v", name, err), syscall.EINVAL)
	}
	if rateLimiter == nil {
		rateLimiter = DefaultTypedControllerRateLimiter[T]()
	}
	lim, ok := limiters.Kernel(rateLimiter)
	if !ok {
		return nil, kqError(fmt.Sprintf("restart-safe queue %q: the limiter must be made by this package's constructors", name), syscall.EINVAL)
	}
	if err := kernelReady(); err != nil {
		return nil, wrap(err)
	}
	k, err := kq.CreateQueue(kq.CreateOpts{Name: name, Limiter: lim})
	if err != nil {
		if k, err = kq.OpenNamed(name); err != nil {
			return nil, wrap(err)
		}
	}
	q := &restartSafe[T]{k: k, name: name, codec: enc,
		metrics: newQueueMetrics[T](config.MetricsProvider, name),
		retries: newRetryMetrics(name, config.MetricsProvider)}
	runtime.SetFinalizer(q, func(q *restartSafe[T]) { q.k.Close() })
	return q, nil
}

// restartSafe is a handle of a named queue, with items of type T.
type restartSafe[T comparable] struct {
	k       *kq.Handle
	name    string
	codec   codec[T]
	metrics queueMetrics[T]
	retries retryMetrics
	refused base.Refusals

	shuttingDown atomic.Bool
	mu           sync.Mutex
	held         int // keys taken and not Done
	drained      chan struct{}
}

// Backend is BackendKernel.
func (q *restartSafe[T]) Backend() (Backend, error) {
	return BackendKernel, nil
}

// Close closes this process's handle now (keys it holds go back to the
// queue); the finalizer of an unreachable queue does the same.
func (q *restartSafe[T]) Close() error {
	q.ShutDown()
	return q.k.Close()
}

func (q *restartSafe[T]) add(item T, flags uint32, d time.Duration) {
	if q.shuttingDown.Load() {
		return
	}
	key, err := q.codec.encode(item)
	if err != nil {
		q.refused.NoteError(fmt.Sprintf("workqueue: restart-safe queue %q: an item", q.name), err)
		return
	}
	out, _, e := q.k.Add(key, flags, d, 0)
	if e != 0 {
		q.refused.NoteError(fmt.Sprintf("workqueue: restart-safe queue %q refused an add", q.name), kq.Error("add", e))
		return
	}
	if out == kq.AddedQueued || out == kq.AddedDirty {
		q.metrics.add(item)
	}
}

// Add marks item as needing processing (ignored after ShutDown).
func (q *restartSafe[T]) Add(item T) { q.add(item, 0, 0) }

// AddAfter adds item after duration (the kernel's delay).
func (q *restartSafe[T]) AddAfter(item T, duration time.Duration) {
	if q.shuttingDown.Load() {
		return
	}
	q.retries.retry()
	q.add(item, kq.AddAfter, duration)
}

// AddRateLimited adds item after the queue's limiter says so.
func (q *restartSafe[T]) AddRateLimited(item T) {
	if q.shuttingDown.Load() {
		return
	}
	q.retries.retry()
	q.add(item, kq.AddRateLimited, 0)
}

func (q *restartSafe[T]) keyCall(req uintptr, item T) (uint64, syscall.Errno) {
	key, err := q.codec.encode(item)
	if err != nil {
		return 0, syscall.EINVAL
	}
	return q.k.KeyCall(req, key, 0)
}

// Forget makes the queue's limiter forget item's failures.
func (q *restartSafe[T]) Forget(item T) { q.keyCall(kq.IocForget, item) }

// NumRequeues returns item's failures, as the queue's limiter counts them.
func (q *restartSafe[T]) NumRequeues(item T) int {
	n, e := q.keyCall(kq.IocNumRequeues, item)
	if e != 0 {
		return 0
	}
	return int(n)
}

// Len returns how many keys are queued.
func (q *restartSafe[T]) Len() int {
	qi, e := q.k.Stat()
	if e != 0 {
		return 0
	}
	return int(qi.Queued)
}

// Refused returns how many adds the kernel refused (and keys dropped).
func (q *restartSafe[T]) Refused() uint64 { return q.refused.Count() }

// Get blocks until a key is queued, or ShutDown is called (shutdown
// true). A key whose bytes are not an item of T is dropped (Done) and
// logged.
func (q *restartSafe[T]) Get() (item T, shutdown bool) {
	buf := keyBufs.Get().(*[kq.KeyMax]byte)
	defer keyBufs.Put(buf)
	for !q.shuttingDown.Load() {
		n, _, e := q.k.Get(buf[:])
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		default:
			return item, true
		}
		it, err := q.codec.decode(buf[:n])
		if err != nil {
			q.refused.NoteError(fmt.Sprintf("workqueue: restart-safe queue %q: a key that is no item, dropped", q.name), err)
			q.k.KeyCall(kq.IocDone, append([]byte(nil), buf[:n]...), 0)
			continue
		}
		q.mu.Lock()
		q.held++
		q.mu.Unlock()
		q.metrics.get(it)
		return it, false
	}
	return item, true
}

// Done ends item's processing (it is queued again if added meanwhile).
func (q *restartSafe[T]) Done(item T) {
	q.metrics.done(item)
	if _, e := q.keyCall(kq.IocDone, item); e != 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.held--; q.held <= 0 && q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
}

// ShutDown stops this process's use of the queue: adds are ignored, Get
// returns shutdown at once, and what is queued stays in the kernel queue.
func (q *restartSafe[T]) ShutDown() {
	q.shuttingDown.Store(true)
	q.k.Interrupt()
}

// ShutDownWithDrain is ShutDown, then waits until the keys this process
// took are Done.
func (q *restartSafe[T]) ShutDownWithDrain() {
	q.ShutDown()
	q.mu.Lock()
	if q.held <= 0 {
		q.mu.Unlock()
		return
	}
	if q.drained == nil {
		q.drained = make(chan struct{})
	}
	ch := q.drained
	q.mu.Unlock()
	<-ch
}

// ShuttingDown says whether ShutDown was called.
func (q *restartSafe[T]) ShuttingDown() bool { return q.shuttingDown.Load() }
