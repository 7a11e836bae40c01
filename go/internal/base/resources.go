package base

// What a kernel queue holds beyond Go's heap, for the private queues
// (Queue) and package workqueue's restart-safe ones alike.

import (
	"runtime"
	"sync"
	"time"

	"wq.dev/go/internal/kq"
)

// Resources is what a kernel queue holds beyond Go's heap (its handle,
// its metrics goroutine) and the gate of its metrics, allocated apart
// from the queue so that the goroutine and the queue's cleanup can hold
// them without holding the queue (which could then never be collected).
type Resources struct {
	k         *kq.Handle
	stopOnce  sync.Once
	stopCh    chan struct{}
	loopDone  chan struct{} // the metrics goroutine ended (or none)
	closeOnce sync.Once

	// Gate: adds (a kernel add and what it records) hold it shared; the
	// metrics goroutine holds it alone while it compares the kernel's
	// counts with what the adds recorded, so that no add is half done
	// (nor a Get's record of an item that an add under way records).
	Gate sync.RWMutex
}

// UnfinishedWorkUpdatePeriod: how often the metrics goroutine updates the
// unfinished-work gauges (client-go's and controller-runtime's period).
const UnfinishedWorkUpdatePeriod = 500 * time.Millisecond

// Ticker is a clock's ticker, as time.Ticker (workqueue.Ticker).
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// NewResources returns k's resources (k nil: a queue that could not be
// made, with nothing to let go of). If k and update are not nil, it
// starts the metrics goroutine: update is called every
// UnfinishedWorkUpdatePeriod, on a ticker newTicker makes, with k's
// counts (nil if it could not say), while no add holds the Gate, until
// Stop or Release. The goroutine holds update and newTicker, never the
// queue, so that the queue can be collected: neither may hold it.
func NewResources(k *kq.Handle, newTicker func(time.Duration) Ticker, update func(qi *kq.QueueInfo)) *Resources {
	r := &Resources{k: k, stopCh: make(chan struct{}), loopDone: make(chan struct{})}
	if k == nil || update == nil {
		close(r.loopDone)
		return r
	}
	go runEvery(UnfinishedWorkUpdatePeriod, newTicker, r.stopCh, r.loopDone, func() {
		r.Gate.Lock()
		defer r.Gate.Unlock()
		qi, e := r.k.Stat()
		if e != 0 {
			qi = nil
		}
		update(qi)
	})
	return r
}

// runEvery calls fn every period, on a ticker newTicker makes, until stop
// is closed; then it closes done.
func runEvery(period time.Duration, newTicker func(time.Duration) Ticker, stop <-chan struct{}, done chan<- struct{}, fn func()) {
	defer close(done)
	t := newTicker(period)
	defer t.Stop()
	for {
		select {
		case <-t.C():
			fn()
		case <-stop:
			return
		}
	}
}

// Stop tells the metrics goroutine to end (it may still be running when
// Stop returns: Stopped).
func (r *Resources) Stop() { r.stopOnce.Do(func() { close(r.stopCh) }) }

// Stopped is closed once the metrics goroutine has ended (at once if
// there is none).
func (r *Resources) Stopped() <-chan struct{} { return r.loopDone }

// Release ends the metrics goroutine and lets go of the kernel queue
// (once).
func (r *Resources) Release() {
	r.Stop()
	r.closeOnce.Do(func() {
		if r.k != nil {
			r.k.Close()
		}
	})
}

// ReleaseResourcesWith releases r once owner, the value that holds it, is
// unreachable (a cleanup, which unlike a finalizer also runs for an owner
// in a reference cycle: r must not hold owner).
func ReleaseResourcesWith[O any](owner *O, r *Resources) {
	runtime.AddCleanup(owner, (*Resources).Release, r)
}
