package base

// The adds a kernel queue has no room for (its limit of keys, the owner's
// key-byte quota, memory: EAGAIN, EDQUOT, ENOMEM), which client-go's queue
// never refuses: they wait here, in the order they were made, and go to
// the kernel as room frees: at a Done or Forget after which the kernel
// holds nothing of a key, at the next add, and every overflowRetry while
// any wait (room in the owner's quota frees elsewhere). While any wait,
// every add waits behind them, so that the order of the adds is kept. A
// plain add of an item already waiting here at the same priority is not
// kept twice.

import (
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"wq.dev/go/internal/kq"
)

// overflowRetry: how often the waiting adds are tried while any wait.
const overflowRetry = 100 * time.Millisecond

type overflow[T comparable, M any] struct {
	b *Queue[T, M]

	n     atomic.Int32 // len(adds): read without mu
	mu    sync.Mutex
	adds  []heldAdd[T, M]
	plain map[plainKey[T]]struct{} // the plain adds in adds
	ready int                      // how many of adds are plain
	timer *time.Timer
	armed bool // the timer will fire

	shutFlags uint32        // with emptied: the shutdown to make once empty
	emptied   chan struct{} // a shutdown waits for the adds: closed then
}

type heldAdd[T comparable, M any] struct {
	item  T
	flags uint32
	at    time.Time // with kq.AddAfter: when the delay ends
	prio  int32
	then  func(m *M, out int, used time.Duration)
}

type plainKey[T comparable] struct {
	item T
	prio int32
}

func isPlain(flags uint32) bool {
	return flags&^kq.AddPriority == 0
}

// active says whether any add waits.
func (o *overflow[T, M]) active() bool {
	return o.n.Load() > 0
}

func (o *overflow[T, M]) count() (all, ready int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.adds), o.ready
}

// hold keeps an add behind those that wait. noRoom: the kernel just had
// no room for it; else the waiting ones are tried first, and if none
// waits any more hold says false: the caller adds it to the kernel.
func (o *overflow[T, M]) hold(item T, flags uint32, delay time.Duration, prio int32, then func(m *M, out int, used time.Duration), noRoom bool) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.emptied != nil {
		return true // shutting down: an add is ignored
	}
	if !noRoom {
		if o.flushLocked(); len(o.adds) == 0 {
			return false
		}
	}
	a := heldAdd[T, M]{item: item, flags: flags, prio: prio, then: then}
	if flags&kq.AddAfter != 0 {
		a.at = time.Now().Add(max(delay, 0))
	}
	if isPlain(flags) {
		k := plainKey[T]{item, prio}
		if _, dup := o.plain[k]; dup {
			return true
		}
		if o.plain == nil {
			o.plain = map[plainKey[T]]struct{}{}
		}
		o.plain[k] = struct{}{}
		o.ready++
	}
	o.adds = append(o.adds, a)
	o.n.Store(int32(len(o.adds)))
	o.arm()
	return true
}

// flush gives the kernel the adds that wait, in order, until it has no
// room again.
func (o *overflow[T, M]) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

func (o *overflow[T, M]) flushLocked() {
	if len(o.adds) == 0 {
		return
	}
	now := time.Now()
	i := 0
	for ; i < len(o.adds); i++ {
		a := &o.adds[i]
		var delay time.Duration
		if a.flags&kq.AddAfter != 0 {
			delay = max(a.at.Sub(now), 0)
		}
		if e := o.b.kernelAdd(a.item, a.flags, delay, a.prio, a.then); noRoom(e) {
			break
		}
		if isPlain(a.flags) {
			delete(o.plain, plainKey[T]{a.item, a.prio})
			o.ready--
		}
	}
	clear(o.adds[:i]) // let go of the items
	o.adds = o.adds[i:]
	o.n.Store(int32(len(o.adds)))
	if len(o.adds) > 0 {
		o.arm()
		return
	}
	o.adds = nil
	if o.emptied != nil {
		o.b.K.Shutdown(o.shutFlags&^kq.ShutdownDrain, nil)
		close(o.emptied)
		o.emptied = nil
	}
}

// arm makes sure a retry comes (mu held). The timer holds the overflow
// weakly: a queue let go of with adds waiting is collected all the same.
func (o *overflow[T, M]) arm() {
	if o.armed {
		return
	}
	o.armed = true
	if o.timer != nil {
		o.timer.Reset(overflowRetry)
		return
	}
	w := weak.Make(o)
	o.timer = time.AfterFunc(overflowRetry, func() {
		if o := w.Value(); o != nil {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.armed = false
			o.flushLocked() // arms again if adds still wait
		}
	})
}

// shutdown: a shutdown of the queue with flags. A discarding one drops
// the waiting adds; another drops the delayed ones and, if plain ones
// still wait, returns a channel closed once they are in the kernel and
// the kernel queue is shut down (nil: none waits, the caller shuts it
// down now).
func (o *overflow[T, M]) shutdown(flags uint32) <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	discard := flags&kq.ShutdownDiscard != 0
	if o.emptied != nil && !discard {
		return o.emptied
	}
	kept := o.adds[:0]
	for _, a := range o.adds {
		if !discard && isPlain(a.flags) {
			kept = append(kept, a)
		}
	}
	clear(o.adds[len(kept):])
	o.adds, o.ready = kept, len(kept)
	o.n.Store(int32(len(o.adds)))
	if len(o.adds) == 0 {
		o.adds, o.plain = nil, nil
		if o.emptied != nil { // a discard after a shutdown that waited
			close(o.emptied)
			o.emptied = nil
		}
		return nil
	}
	o.shutFlags = flags
	o.emptied = make(chan struct{})
	ch := o.emptied
	o.flushLocked()
	return ch
}
