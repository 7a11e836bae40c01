package workqueue

// Restart-safe queues, beyond client-go: a named kernel queue that
// outlives the process. The keys the process was processing when it died
// go back to the queue (the kernel puts back what a closed handle held),
// and the waiting delays and the limiter's failure counts stay in the
// kernel, so the next process (a restarted container, a new leader)
// carries on where it stopped. Items are stored by value (encoding.go).

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

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
	if errors.Is(err, syscall.EEXIST) {
		k, err = kq.OpenNamed(name)
	}
	if err != nil {
		return nil, wrap(err)
	}
	q := &restartSafe[T]{k: k, name: name, codec: enc,
		metrics:   newQueueMetrics[T](config.MetricsProvider, name),
		retries:   newRetryMetrics(name, config.MetricsProvider),
		handedOut: map[T][][]byte{}}
	var update func(qi *kq.QueueInfo)
	if _, noop := q.metrics.(noMetrics[T]); !noop {
		m := q.metrics // not q: the goroutine must not hold the queue
		update = func(qi *kq.QueueInfo) { m.update(pendingOf(qi)) }
	}
	q.res = base.NewResources(k, func(d time.Duration) base.Ticker { return clock.RealClock{}.NewTicker(d) }, update)
	base.ReleaseResourcesWith(q, q.res)
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
	res     *base.Resources // its handle k, its metrics goroutine

	shuttingDown atomic.Bool
	mu           sync.Mutex
	// handedOut: the keys this handle took and has not Done, by item, as
	// the kernel holds them (bytes another writer made may decode to the
	// item without being its encoding); held counts them
	handedOut map[T][][]byte
	held      int
	closed    bool
	drained   chan struct{}
	oddLogged sync.Once
}

// Backend is BackendKernel.
func (q *restartSafe[T]) Backend() (Backend, error) {
	return BackendKernel, nil
}

// Close closes this process's handle now: the keys it holds go back to
// the queue, a drain under way returns (nothing is held any more), and
// the queue shuts down for this process. The cleanup of an unreachable
// queue closes it too.
func (q *restartSafe[T]) Close() error {
	q.ShutDown()
	err := q.k.Close()
	q.mu.Lock()
	q.closed = true
	clear(q.handedOut)
	q.held = 0
	q.releaseDrainLocked()
	q.mu.Unlock()
	return err
}

func (q *restartSafe[T]) releaseDrainLocked() {
	if q.held <= 0 && q.drained != nil {
		close(q.drained)
		q.drained = nil
	}
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
	q.res.Gate.RLock()
	defer q.res.Gate.RUnlock()
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

// keyOf: the kernel key of item: the one this handle took, if it did
// (pop: and no longer holds it), else item's encoding. taken: it was one
// this handle took.
func (q *restartSafe[T]) keyOf(item T, pop bool) (key []byte, taken bool) {
	q.mu.Lock()
	if keys := q.handedOut[item]; len(keys) > 0 {
		key = keys[0]
		if pop {
			if len(keys) == 1 {
				delete(q.handedOut, item)
			} else {
				q.handedOut[item] = keys[1:]
			}
			q.held--
			q.releaseDrainLocked()
		}
		q.mu.Unlock()
		return key, true
	}
	q.mu.Unlock()
	key, err := q.codec.encode(item)
	if err != nil {
		return nil, false
	}
	return key, false
}

func (q *restartSafe[T]) keyCall(req uintptr, item T) (uint64, syscall.Errno) {
	key, _ := q.keyOf(item, false)
	if key == nil {
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
// logged. A key that decodes to an item without being its encoding (a C
// writer's, JSON of another field order) is handed out all the same, and
// Done ends that key (logged once).
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
		key := append([]byte(nil), buf[:n]...)
		it, err := q.codec.decode(key)
		if err != nil {
			q.refused.NoteError(fmt.Sprintf("workqueue: restart-safe queue %q: a key that is no item, dropped", q.name), err)
			q.k.KeyCall(kq.IocDone, key, 0)
			continue
		}
		if enc, err := q.codec.encode(it); err == nil && !bytes.Equal(enc, key) {
			q.oddLogged.Do(func() {
				klog.Infof("workqueue: restart-safe queue %q: key %q is not its item's encoding %q (another writer's); its Done ends it as it is", q.name, key, enc)
			})
		}
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return item, true
		}
		q.handedOut[it] = append(q.handedOut[it], key)
		q.held++
		q.mu.Unlock()
		if _, noop := q.metrics.(noMetrics[T]); !noop {
			q.res.Gate.Lock() // after what an add of it under way records
			q.metrics.get(it)
			q.res.Gate.Unlock()
		}
		return it, false
	}
	return item, true
}

// Done ends item's processing (it is queued again if added meanwhile):
// the key this handle took for it, else its encoding (a key another
// handle took). A key this handle took no longer counts for its drain,
// whatever the kernel says (a closed handle: EBADF).
func (q *restartSafe[T]) Done(item T) {
	q.metrics.done(item)
	key, _ := q.keyOf(item, true)
	if key != nil {
		q.k.KeyCall(kq.IocDone, key, 0)
	}
}

// ShutDown stops this process's use of the queue: adds are ignored, Get
// returns shutdown at once, and what is queued stays in the kernel queue.
func (q *restartSafe[T]) ShutDown() {
	q.shuttingDown.Store(true)
	q.res.Stop()
	q.k.Interrupt()
}

// ShutDownWithDrain is ShutDown, then waits until the keys this process
// took are Done (or its handle is closed).
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
