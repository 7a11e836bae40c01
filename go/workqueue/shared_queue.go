package workqueue

// Shared queues, beyond client-go: a named /dev/wq queue that this
// process shares with others (Go, C programs using libwq, wqctl, kernel
// modules). Its keys are the strings' bytes, so every one of them sees the
// same keys.

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"wq.dev/go/internal/base"
	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/limiters"
)

// kqError wraps the kernel's errno with the call that got it, so that
// errors.Is(err, syscall.EEXIST) works.
func kqError(call string, e syscall.Errno) error {
	return wrap(kq.Error(call, e))
}

// wrap says an error of the kernel plumbing is this package's.
func wrap(err error) error {
	return fmt.Errorf("workqueue: %w", err)
}

// keyBufs: heap buffers for the keys Get receives (the kernel writes them).
var keyBufs = sync.Pool{New: func() any { return new([kq.KeyMax]byte) }}

// SharedQueueConfig says which named queue NewSharedRateLimitingQueue
// opens, or how it creates it.
type SharedQueueConfig struct {
	Name     string                   // the /dev/wq queue name
	Create   bool                     // create it if absent (else open it)
	MaxItems int                      // with Create: most keys; 0: the module's default
	Mode     uint32                   // with Create: permission bits; 0: 0600
	Limiter  TypedRateLimiter[string] // with Create: nil is the default; one of this package's
}

// SharedQueue is a handle of a named queue: a
// TypedRateLimitingInterface[string] plus Close and TryAdd. Its limiter is
// the queue's, fixed when the queue was created. Add has no error result
// (client-go's signature): an add the kernel refuses (EAGAIN at MaxItems,
// EDQUOT, a key of 0 or more than 4096 bytes) is counted (Refused) and
// logged once per kind; TryAdd returns the error.
type SharedQueue struct {
	k       *kq.Handle
	name    string
	closed  atomic.Bool
	cancels atomic.Uint64 // ShutDown calls: a drain under way stops
	refused base.Refusals
}

var _ TypedRateLimitingInterface[string] = &SharedQueue{}

// NewSharedRateLimitingQueue opens the named queue, or creates it if
// cfg.Create says so and it is absent (an existing queue keeps the
// limiter, MaxItems and Mode it was created with). Errors are the
// kernel's syscall.Errno, wrapped with the call (errors.Is(err,
// syscall.ENOENT) works): EINVAL for a bad name, a negative or too large
// MaxItems, a Limiter, MaxItems or Mode with Create false, or a Limiter
// not made of this package's limiters.
func NewSharedRateLimitingQueue(cfg SharedQueueConfig) (*SharedQueue, error) {
	name := cfg.Name
	if name == "" || len(name) >= kq.NameMax {
		return nil, kqError(fmt.Sprintf("queue name %q", name), syscall.EINVAL)
	}
	if !cfg.Create {
		if cfg.Limiter != nil || cfg.MaxItems != 0 || cfg.Mode != 0 {
			return nil, kqError(fmt.Sprintf("open %q: Limiter, MaxItems and Mode are fixed at create", name), syscall.EINVAL)
		}
		k, err := kq.OpenNamed(name)
		if err != nil {
			return nil, wrap(err)
		}
		return &SharedQueue{k: k, name: name}, nil
	}
	if cfg.MaxItems < 0 || int64(cfg.MaxItems) > math.MaxUint32 {
		return nil, kqError(fmt.Sprintf("create %q: MaxItems %d", name, cfg.MaxItems), syscall.EINVAL)
	}
	l := cfg.Limiter
	if l == nil {
		l = DefaultTypedControllerRateLimiter[string]()
	}
	lim, ok := limiters.Kernel(l)
	if !ok {
		return nil, kqError(fmt.Sprintf("create %q: the limiter must be made of this package's", name), syscall.EINVAL)
	}
	k, err := kq.CreateQueue(kq.CreateOpts{Name: name, MaxItems: uint32(cfg.MaxItems), Mode: cfg.Mode, Limiter: lim})
	if errors.Is(err, syscall.EEXIST) {
		k, err = kq.OpenNamed(name)
	}
	if err != nil {
		return nil, wrap(err)
	}
	return &SharedQueue{k: k, name: name}, nil
}

// Backend is BackendKernel: a shared queue is the kernel's or none.
func (q *SharedQueue) Backend() (Backend, error) {
	return BackendKernel, nil
}

// keyBytes: key as bytes the kernel may read (kq.Handle keeps them alive
// and in place across the call).
func keyBytes(key string) []byte {
	b := make([]byte, len(key))
	copy(b, key)
	return b
}

// TryAdd adds key and returns the kernel's error, wrapped.
func (q *SharedQueue) TryAdd(key string) error {
	return q.add("add", key, 0, 0)
}

func (q *SharedQueue) add(call, key string, flags uint32, d time.Duration) error {
	if len(key) == 0 {
		return kqError(call, syscall.EINVAL)
	}
	if _, _, e := q.k.Add(keyBytes(key), flags, d, 0); e != 0 {
		return kqError(fmt.Sprintf("%s %q", call, key), e)
	}
	return nil
}

// refuse counts a refused add (not after ShutDown: client-go ignores
// those silently) and logs its kind once.
func (q *SharedQueue) refuse(err error) {
	if err == nil {
		return
	}
	q.refused.NoteError(fmt.Sprintf("workqueue: shared queue %q refused an add", q.name), err)
}

// Refused returns how many adds the kernel refused (Add, AddAfter,
// AddRateLimited; not those after a shutdown).
func (q *SharedQueue) Refused() uint64 {
	return q.refused.Count()
}

// Add marks key as needing processing; see TryAdd for the error.
func (q *SharedQueue) Add(key string) {
	q.refuse(q.TryAdd(key))
}

// AddAfter adds key after duration (the kernel's delay).
func (q *SharedQueue) AddAfter(key string, duration time.Duration) {
	q.refuse(q.add("add after", key, kq.AddAfter, duration))
}

// AddRateLimited adds key after the queue's limiter says so.
func (q *SharedQueue) AddRateLimited(key string) {
	q.refuse(q.add("add rate limited", key, kq.AddRateLimited, 0))
}

// Forget makes the queue's limiter forget key's failures.
func (q *SharedQueue) Forget(key string) {
	if len(key) > 0 {
		q.k.KeyCall(kq.IocForget, keyBytes(key), 0)
	}
}

// NumRequeues returns key's failures, as the queue's limiter counts them.
func (q *SharedQueue) NumRequeues(key string) int {
	if len(key) == 0 {
		return 0
	}
	n, e := q.k.KeyCall(kq.IocNumRequeues, keyBytes(key), 0)
	if e != 0 {
		return 0
	}
	return int(n)
}

// Len returns how many keys are queued.
func (q *SharedQueue) Len() int {
	qi, e := q.k.Stat()
	if e != 0 {
		return 0
	}
	return int(qi.Queued)
}

// Get blocks until a key is queued (this handle then holds it until its
// Done, or until Close puts it back), or the queue is shut down and
// empty, or the handle is closed (shutdown true).
func (q *SharedQueue) Get() (key string, shutdown bool) {
	buf := keyBufs.Get().(*[kq.KeyMax]byte)
	defer keyBufs.Put(buf)
	for {
		n, _, e := q.k.Get(buf[:])
		switch e {
		case 0:
			return string(buf[:n]), false
		case syscall.EINTR:
			continue
		}
		return "", true
	}
}

// Done ends key's processing (any handle of the queue may).
func (q *SharedQueue) Done(key string) {
	if len(key) > 0 {
		q.k.KeyCall(kq.IocDone, keyBytes(key), 0)
	}
}

// ShutDown shuts the queue down, for every process: new keys are refused,
// queued ones are still handed out. It cuts short a drain of any process.
func (q *SharedQueue) ShutDown() {
	q.cancels.Add(1)
	q.k.Shutdown(0, nil)
}

// ShutDownWithDrain shuts the queue down and waits until nothing is
// queued or processing; a ShutDown (of any process), or this handle's
// Close, cuts it short.
func (q *SharedQueue) ShutDownWithDrain() {
	c := q.cancels.Load()
	q.k.Shutdown(kq.ShutdownDrain, func() bool {
		return q.cancels.Load() != c || q.closed.Load()
	})
}

// ShuttingDown says whether the queue is shutting down (by any process),
// or this handle is closed.
func (q *SharedQueue) ShuttingDown() bool {
	qi, e := q.k.Stat()
	return e != 0 || qi.State&kq.StateShuttingDown != 0
}

// Close closes this handle: keys it holds (got and not done) go back to
// the queue, a Get blocked on it returns shutdown, and later calls return
// shutdown or EBADF. The queue and its name stay. Idempotent.
func (q *SharedQueue) Close() error {
	if q.closed.Swap(true) {
		return nil
	}
	return q.k.Close()
}
