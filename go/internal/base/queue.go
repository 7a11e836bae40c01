// Package base is what the typed queues of packages workqueue and
// priorityqueue are both made of: a private kernel queue (kq) whose items
// are interned (intern), with its life (made, shut down, let go of by a
// cleanup), its refused adds, the adds waiting for room (overflow.go),
// its metrics goroutine (resources.go), and the
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
	res          *Resources
	ov           *overflow[T, M]
	refusals     Refusals
	refusedMsg   string // how a refusal is logged
	getMsg       string // how a failed Get is
	shuttingDown atomic.Bool
	cancels      atomic.Uint64 // ShutDown calls: a drain under way stops
}

// Options says what kernel queue Init makes, and how its metrics
// goroutine runs.
type Options struct {
	Pkg, Name string // the package's name, the queue's: errors and logs
	Flags     uint32 // kq.NewPrivate's flags, starveNs, limiter, maxItems
	StarveNs  uint64
	Limiter   *kq.Limiter
	MaxItems  uint32 // 0: as many as the module lets the queue hold

	// UnfinishedWork, if not nil, is called every
	// UnfinishedWorkUpdatePeriod, on a ticker NewTicker makes, by a
	// goroutine that runs until the queue shuts down or is let go of,
	// with the kernel queue's counts (nil if it could not say), while no
	// add is under way (adds wait meanwhile). The goroutine holds these
	// two, never the queue, so that the queue can be collected: neither
	// may hold it.
	UnfinishedWork func(qi *kq.QueueInfo)
	NewTicker      func(time.Duration) Ticker
}

// Init makes the kernel queue (kq.NewPrivate) and starts the metrics
// goroutine. If the kernel queue cannot be made it returns why, and the
// queue must not be used: the caller makes an in-process queue instead.
// The caller then calls ReleaseWith on the value that holds the queue.
func (b *Queue[T, M]) Init(o Options) error {
	b.In = intern.New[T, M]()
	b.ov = &overflow[T, M]{b: b}
	who := o.Pkg
	if o.Name != "" {
		who = fmt.Sprintf("%s: %q", o.Pkg, o.Name)
	}
	b.refusedMsg = who + ": an add was refused"
	b.getMsg = who + ": a Get failed, reported as shutdown"
	b.K, b.KernelLimiter, b.err = kq.NewPrivate(o.Flags, o.StarveNs, o.Limiter, o.MaxItems)
	b.res = NewResources(b.K, o.NewTicker, o.UnfinishedWork)
	return b.err
}

// ReleaseWith lets go of b's kernel queue and ends its goroutine once
// owner, the value that holds b, is unreachable (ReleaseResourcesWith).
func ReleaseWith[O any, T comparable, M any](owner *O, b *Queue[T, M]) {
	ReleaseResourcesWith(owner, b.res)
}

// Finalize ends the metrics goroutine and lets go of the kernel queue now.
func (b *Queue[T, M]) Finalize() {
	b.res.Release()
}

// Err says why the kernel queue could not be made, or nil.
func (b *Queue[T, M]) Err() error {
	return b.err
}

// Refused returns how many adds the kernel refused for good (not those
// it had no room for: they wait in process, Overflow).
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
// (kq.Added*), used the delay a rate-limited add waits. An add the kernel
// has no room for (its limit of keys, the owner's key-byte quota, memory)
// waits in process and is made when room frees (overflow.go), as are the
// adds after it; one it refuses for good is counted and its kind logged
// once.
func (b *Queue[T, M]) Add(item T, flags uint32, delay time.Duration, prio int32, then func(m *M, out int, used time.Duration)) {
	if b.K == nil || b.shuttingDown.Load() {
		return
	}
	if b.ov.active() && b.ov.hold(item, flags, delay, prio, then, false) {
		return
	}
	if errno := b.kernelAdd(item, flags, delay, prio, then); noRoom(errno) {
		b.ov.hold(item, flags, delay, prio, then, true)
	}
}

// kernelAdd: one add in the kernel, through the gate, and what it
// records; a refusal for good is counted, one for want of room returned.
func (b *Queue[T, M]) kernelAdd(item T, flags uint32, delay time.Duration, prio int32, then func(m *M, out int, used time.Duration)) syscall.Errno {
	b.res.Gate.RLock()
	defer b.res.Gate.RUnlock()
	e := b.In.Acquire(item)
	out, used, errno := b.K.Add(e.Key[:], flags, delay, prio)
	var fn func(m *M)
	if errno == 0 && then != nil {
		fn = func(m *M) { then(m, out, used) }
	}
	b.In.AfterAdd(e, errno == 0, fn)
	if errno != 0 && !noRoom(errno) {
		b.refusals.Note(errno, b.refusedMsg, errno)
	}
	return errno
}

// noRoom: the kernel refused an add for want of room, which may free.
func noRoom(e syscall.Errno) bool {
	return e == syscall.EAGAIN || e == syscall.EDQUOT || e == syscall.ENOMEM
}

// Overflow returns how many adds wait in process for room in the kernel
// queue, and how many of them are plain adds (neither delayed nor rate
// limited: ready, as client-go's Len counts them).
func (b *Queue[T, M]) Overflow() (all, ready int) {
	if b.K == nil {
		return 0, 0
	}
	return b.ov.count()
}

// idBufs: buffers for the keys Get receives (the kernel writes them).
var idBufs = sync.Pool{New: func() any { return new([8]byte) }}

// Get blocks until the kernel hands out a key (without holding an OS
// thread), and returns its entry and priority; ok false: the queue is
// shut down (or was never made). Memory the kernel lacks is asked for
// again; any other error ends the queue's Gets (logged once).
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
		case syscall.ENOMEM:
			time.Sleep(10 * time.Millisecond)
			continue
		case syscall.ESHUTDOWN, syscall.EBADF:
			return nil, 0, false
		default:
			b.refusals.logOnce(errno, b.getMsg)
			return nil, 0, false
		}
		if e, ok := b.In.Lookup(buf[:n]); ok {
			return e, prio, true
		}
		// not one of ours (cannot be: the queue is private)
	}
}

// keyDone: DONE or FORGET of e's key, asking what the kernel still holds;
// an item it let go of is dropped (and room for an add waiting in process
// is there). Memory is asked for again a few times. fn, if not nil, gets
// the entry's value and what the kernel still holds (kq.Key* bits), if it
// could say.
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
		gone := errno == 0 && state == 0
		b.In.Release(e, gone, after)
		if gone && b.ov.active() {
			b.ov.flush()
		}
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
// cuts short a drain under way (of an earlier call). Adds waiting in
// process for room are dropped by a discarding shutdown; otherwise the
// kernel queue shuts down once they are in (adds are ignored from now on,
// and the delayed ones among them dropped, as client-go drops its waiting
// items), a drain waiting for that first.
func (b *Queue[T, M]) Shutdown(flags uint32, cancel bool) {
	if cancel {
		b.cancels.Add(1)
	}
	if b.res == nil { // Init was not called
		b.shuttingDown.Store(true)
		return
	}
	defer func() { <-b.res.Stopped() }()
	b.res.Stop()
	b.shuttingDown.Store(true)
	if b.K == nil {
		return
	}
	c := b.cancels.Load()
	stop := func() bool { return b.cancels.Load() != c }
	emptied := b.ov.shutdown(flags)
	if emptied == nil {
		b.K.Shutdown(flags, stop)
		return
	}
	if flags&kq.ShutdownDrain == 0 {
		return // the last add waiting in process shuts the kernel queue down
	}
	for !stop() {
		select {
		case <-emptied:
			b.K.Shutdown(flags, stop)
			return
		case <-time.After(100 * time.Millisecond):
		}
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

// logOnce logs msg with e, the first time of e's kind (not counted).
func (r *Refusals) logOnce(e syscall.Errno, msg string) {
	if _, seen := r.logged.LoadOrStore(e, struct{}{}); !seen {
		klog.Errorf("%s: %v", msg, e)
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
