package workqueue

// Clocks. client-go's configs take a clock of k8s.io/utils/clock; this
// package takes the same method sets, declared here (the standard library
// only). The kernel keeps time for a queue; a clock other than RealClock
// (a fake one, in tests) makes the queue run its delays in Go, on that
// clock, and hand the kernel plain adds.

import "time"

// PassiveClock tells the time.
type PassiveClock interface {
	Now() time.Time
	Since(time.Time) time.Duration
}

// Timer is a Clock's timer, as time.Timer.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
	Reset(d time.Duration) bool
}

// Ticker is a Clock's ticker, as time.Ticker.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// Clock tells the time and waits.
type Clock interface {
	PassiveClock
	After(d time.Duration) <-chan time.Time
	NewTimer(d time.Duration) Timer
	Sleep(d time.Duration)
	Tick(d time.Duration) <-chan time.Time
}

// WithTicker is a Clock that also makes tickers: the type of the configs'
// Clock field.
type WithTicker interface {
	Clock
	NewTicker(d time.Duration) Ticker
}

// RealClock is the time package's clock. A queue given it (or no clock)
// keeps its delays in the kernel.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Since returns time.Since(t).
func (RealClock) Since(t time.Time) time.Duration { return time.Since(t) }

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// NewTimer returns a time.Timer as a Timer.
func (RealClock) NewTimer(d time.Duration) Timer { return &realTimer{time.NewTimer(d)} }

// Sleep calls time.Sleep(d).
func (RealClock) Sleep(d time.Duration) { time.Sleep(d) }

// Tick returns time.Tick(d).
func (RealClock) Tick(d time.Duration) <-chan time.Time { return time.Tick(d) }

// NewTicker returns a time.Ticker as a Ticker.
func (RealClock) NewTicker(d time.Duration) Ticker { return &realTicker{time.NewTicker(d)} }

type realTimer struct{ t *time.Timer }

func (r *realTimer) C() <-chan time.Time        { return r.t.C }
func (r *realTimer) Stop() bool                 { return r.t.Stop() }
func (r *realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }

type realTicker struct{ t *time.Ticker }

func (r *realTicker) C() <-chan time.Time { return r.t.C }
func (r *realTicker) Stop()               { r.t.Stop() }

// fakeClock: a clock the kernel cannot follow.
func fakeClock(c WithTicker) bool {
	if c == nil {
		return false
	}
	switch c.(type) {
	case RealClock, *RealClock:
		return false
	}
	return true
}
