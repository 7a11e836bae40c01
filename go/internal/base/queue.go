// Package base is what the typed queues of packages workqueue and
// priorityqueue are both made of: a private kernel queue (kq) whose items
// are interned (intern), with its life (made, shut down, let go of by a
// finalizer), its refused adds, its metrics goroutine (queue.go), and the
// item times of client-go's metrics (metrics.go). What differs between
// the two (the order, priorities, which metrics calls an event makes, how
// a shutdown treats what is queued) stays in each package.
package base

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/klog/v2"

	"wq.dev/go/internal/intern"
	"wq.dev/go/internal/kq"
)

// Queue is a private kernel queue of items of type T, each with a value M
// of its queue's own (intern). The zero value is unusable: call Init.
type Queue[T comparable, M any] struct {
	K             *kq.Handle // nil: the kernel queue could not be made
	In            *intern.Interner[T, M]
	KernelLimiter bool // the kernel applies the queue's limiter

	err          error
	refusals     Refusals
	refusedMsg   string // how a refusal is logged
	shuttingDown atomic.Bool
	cancels      atomic.Uint64 // ShutDown calls: a drain under way stops
	stopOnce     sync.Once
	stopCh       chan struct{}
	loopDone     chan struct{} // the metrics goroutine ended (or none)
	closeOnce    sync.Once
}

// Options says what kernel queue Init makes, and how its metrics
// goroutine runs.
type Options struct {
	Pkg, Name string // the package's name, the queue's: errors and logs
	Flags     uint32 // kq.NewPrivate's flags, starveNs and limiter
	StarveNs  uint64
	Limiter   *kq.Limiter

	// UnfinishedWork, if not nil, is called every
	// UnfinishedWorkUpdatePeriod, on a ticker NewTicker makes, by a
	// goroutine that runs until the queue shuts down or is let go of
	// (Finalize). The goroutine holds these two, never the queue, so that
	// the queue can be collected: neither may hold it.
	UnfinishedWork func()
	NewTicker      func(time.Duration) Ticker
}

// UnfinishedWorkUpdatePeriod: how often the metrics goroutine updates the
// unfinished-work gauges (client-go's and controller-runtime's period).
const UnfinishedWorkUpdatePeriod = 500 * time.Millisecond

// Ticker is a clock's ticker, as time.Ticker (workqueue.Ticker).
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Init makes the kernel queue (kq.NewPrivate) and starts the metrics
// goroutine. If the kernel queue cannot be made it returns why, and the
// queue must not be used: the caller makes an in-process queue instead.
func (b *Queue[T, M]) Init(o Options) error {
	b.In = intern.New[T, M]()
	b.stopCh = make(chan struct{})
	b.loopDone = make(chan struct{})
	b.refusedMsg = o.Pkg + ": an add was refused"
	if o.Name != "" {
		b.refusedMsg = fmt.Sprintf("%s: %q: an add was refused", o.Pkg, o.Name)
	}
	b.K, b.KernelLimiter, b.err = kq.NewPrivate(o.Flags, o.StarveNs, o.Limiter)
	if b.err != nil {
		return b.err
	}
	if o.UnfinishedWork == nil {
		close(b.loopDone)
		return nil
	}
	go unfinishedWorkLoop(o.UnfinishedWork, o.NewTicker, b.stopCh, b.loopDone)
	return nil
}

func unfinishedWorkLoop(update func(), newTicker func(time.Duration) Ticker, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := newTicker(UnfinishedWorkUpdatePeriod)
	defer t.Stop()
	for {
		select {
		case <-t.C():
			update()
		case <-stop:
			return
		}
	}
}

// Finalize is what a finalizer does for a queue no longer reachable: it
// ends the metrics goroutine and lets go of the kernel queue.
func (b *Queue[T, M]) Finalize() {
	b.stopOnce.Do(func() { close(b.stopCh) })
	b.closeOnce.Do(func() {
		if b.K != nil {
			b.K.Close()
		}
	})
}

// Err says why the kernel queue could not be made, or nil.
func (b *Queue[T, M]) Err() error {
	return b.err
}

// Refused returns how many adds the kernel refused.
func (b *Queue[T, M]) Refused() uint64 {
	return b.refusals.Count()
}

// ShuttingDown says whether Shutdown was called (or the kernel queue
// could not be made).
func (b *Queue[T, M]) ShuttingDown() bool {
	return b.shuttingDown.Load()
}

// Add adds item's key (kq.Handle.Add's flags, delay and priority), unless
// the queue is shutting down. If the kernel took it and then is not nil,
// then records the add on the entry's value (under the interner's lock,
// before a Get of the item records anything): out is what the kernel did
// (kq.Added*), used the delay a rate-limited add waits. A refused add is
// counted and its kind logged once. ok: the kernel took it.
func (b *Queue[T, M]) Add(item T, flags uint32, delay time.Duration, prio int32, then func(m *M, out int, used time.Duration)) (out int, ok bool) {
	if b.K == nil || b.shuttingDown.Load() {
		return 0, false
	}
	e := b.In.Acquire(item)
	out, used, errno := b.K.Add(e.Key[:], flags, delay, prio)
	var fn func(m *M)
	if errno == 0 && then != nil {
		fn = func(m *M) { then(m, out, used) }
	}
	b.In.AfterAdd(e, errno == 0, fn)
	if errno != 0 {
		b.refusals.Note(errno, b.refusedMsg, errno)
		return out, false
	}
	return out, true
}

// idBufs: heap buffers for the keys Get receives (the kernel writes them).
var idBufs = sync.Pool{New: func() any { return new([8]byte) }}

// Get blocks until the kernel hands out a key (without holding an OS
// thread), and returns its entry and priority; ok false: the queue is
// shut down (or was never made). Memory the kernel lacks is asked for
// again.
func (b *Queue[T, M]) Get() (*intern.Entry[T, M], int32, bool) {
	if b.K == nil {
		return nil, 0, false
	}
	buf := idBufs.Get().(*[8]byte)
	defer idBufs.Put(buf)
	for {
		n, prio, errno := b.K.Get(buf[:])
		switch errno {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.ESHUTDOWN, syscall.EBADF:
			return nil, 0, false
		default: // ENOMEM: try again
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if e, ok := b.In.Lookup(buf[:n]); ok {
			return e, prio, true
		}
		// not one of ours (cannot be: the queue is private)
	}
}

// keyDone: DONE or FORGET of e's key, asking what the kernel still holds;
// an item it let go of is dropped. Memory is asked for again a few times.
// fn, if not nil, gets the entry's value and what the kernel still holds
// (kq.Key* bits), if it could say.
func (b *Queue[T, M]) keyDone(req uintptr, e *intern.Entry[T, M], fn func(m *M, state uint64)) {
	for i := 0; ; i++ {
		state, errno := b.K.KeyCall(req, e.Key[:], kq.KeyResultState)
		if errno == syscall.ENOMEM && i < 10 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		var after func(m *M)
		if errno == 0 && fn != nil {
			after = func(m *M) { fn(m, state) }
		}
		b.In.Release(e, errno == 0 && state == 0, after)
		return
	}
}

// Done ends item's processing (the kernel queues it again if it was added
// meanwhile); fn is keyDone's.
func (b *Queue[T, M]) Done(item T, fn func(m *M, state uint64)) {
	if b.K == nil {
		return
	}
	if e := b.In.Find(item); e != nil {
		b.keyDone(kq.IocDone, e, fn)
	}
}

// Forget makes the kernel's limiter forget item's failures.
func (b *Queue[T, M]) Forget(item T) {
	if b.K == nil {
		return
	}
	if e := b.In.Find(item); e != nil {
		b.keyDone(kq.IocForget, e, nil)
	}
}

// NumRequeues returns item's failures, as the kernel's limiter counts
// them.
func (b *Queue[T, M]) NumRequeues(item T) int {
	if b.K == nil {
		return 0
	}
	e := b.In.Find(item)
	if e == nil {
		return 0
	}
	n, errno := b.K.KeyCall(kq.IocNumRequeues, e.Key[:], 0)
	b.In.Release(e, false, nil)
	if errno != 0 {
		return 0
	}
	return int(n)
}

// Stat returns the kernel queue's counts; false if it cannot say.
func (b *Queue[T, M]) Stat() (*kq.QueueInfo, bool) {
	if b.K == nil {
		return nil, false
	}
	qi, e := b.K.Stat()
	return qi, e == 0
}

// Shutdown shuts the kernel queue down with flags (kq.Shutdown*), ends the
// metrics goroutine and waits for it to end. cancel: a ShutDown, which
// cuts short a drain under way (of an earlier call).
func (b *Queue[T, M]) Shutdown(flags uint32, cancel bool) {
	if cancel {
		b.cancels.Add(1)
	}
	defer func() { <-b.loopDone }()
	b.stopOnce.Do(func() { close(b.stopCh) })
	b.shuttingDown.Store(true)
	if b.K != nil {
		c := b.cancels.Load()
		b.K.Shutdown(flags, func() bool { return b.cancels.Load() != c })
	}
}

// Refusals counts the adds a kernel queue refused, and logs the first of
// each kind (errno). Adds refused because the queue is shut down
// (ESHUTDOWN, or EBADF: the handle is closed) are ignored, as client-go
// ignores adds after ShutDown.
type Refusals struct {
	n      atomic.Uint64
	logged sync.Map // syscall.Errno: logged
}

// Note counts a refusal of kind e unless it is a shutdown's; the first of
// its kind is logged as msg and err.
func (r *Refusals) Note(e syscall.Errno, msg string, err error) {
	if e == syscall.ESHUTDOWN || e == syscall.EBADF {
		return
	}
	r.n.Add(1)
	if _, seen := r.logged.LoadOrStore(e, struct{}{}); !seen {
		klog.Errorf("%s (further ones of this kind are only counted): %v", msg, err)
	}
}

// NoteError is Note for an error that wraps the errno (nil: nothing).
func (r *Refusals) NoteError(msg string, err error) {
	if err == nil {
		return
	}
	var e syscall.Errno
	errors.As(err, &e)
	r.Note(e, msg, err)
}

// Count returns how many refusals were counted.
func (r *Refusals) Count() uint64 {
	return r.n.Load()
}
