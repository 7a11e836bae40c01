package workqueue

// Which queue serves a constructor: the kernel's (a private /dev/wq
// queue), or, where the kernel cannot serve it, client-go's own
// in-process queue, never a queue that is dead from the start. The first
// queue made in process for each reason is logged through klog.

import (
	"errors"
	"fmt"
	"sync"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"wq.dev/go/internal/kq"
)

// Backend is what serves a queue of this package.
type Backend int

// The backends.
const (
	// BackendUnknown: not a queue of this package.
	BackendUnknown Backend = iota
	// BackendKernel: a /dev/wq queue (private, or named for a shared or
	// restart-safe queue).
	BackendKernel
	// BackendInProcess: client-go's own queue, in this process.
	BackendInProcess
)

// String returns "kernel", "in-process" or "unknown".
func (b Backend) String() string {
	switch b {
	case BackendKernel:
		return "kernel"
	case BackendInProcess:
		return "in-process"
	}
	return "unknown"
}

// Why a queue is client-go's in-process one rather than the kernel's
// (BackendOf's error wraps one of these, or the kernel's error).
var (
	// ErrCustomQueue: the config gives a Queue (storage) or a delaying
	// queue of its own, which the kernel cannot be.
	ErrCustomQueue = errors.New("the config gives a queue of its own")
	// ErrFakeClock: the config's Clock is not the real clock (a fake
	// one, in tests), which the kernel cannot follow.
	ErrFakeClock = errors.New("the config's Clock is not the real clock")
	// ErrNotOurs: BackendOf was given a value this package did not make.
	ErrNotOurs = errors.New("not a queue of wq.dev/go")
)

// backender is implemented by every queue this package (and
// wq.dev/go/priorityqueue) makes.
type backender interface {
	Backend() (Backend, error)
}

// BackendOf tells what serves q, a queue this package (or
// wq.dev/go/priorityqueue) made: BackendKernel with a nil error, or
// BackendInProcess with the reason (ErrCustomQueue, ErrFakeClock, or the
// kernel's error: no /dev/wq, a module without a needed feature, a quota).
// Any other value is BackendUnknown with ErrNotOurs.
func BackendOf(q any) (Backend, error) {
	if b, ok := q.(backender); ok {
		return b.Backend()
	}
	return BackendUnknown, ErrNotOurs
}

// realClock says whether c is the real clock, which the kernel's delays
// and times follow.
func realClock(c clock.WithTicker) bool {
	switch c.(type) {
	case nil, clock.RealClock, *clock.RealClock:
		return true
	}
	return false
}

var logged sync.Map // reason text -> logged

// inProcess logs, once per process and reason, that a queue is client-go's
// in-process one, and returns the reason as this package's error.
func inProcess(logger *klog.Logger, name string, why error) error {
	err := fmt.Errorf("workqueue: client-go's in-process queue: %w", why)
	if _, seen := logged.LoadOrStore(why.Error(), true); !seen {
		l := klog.Background()
		if logger != nil {
			l = *logger
		}
		l.Info("wq: a queue is client-go's in-process queue, not the kernel's (logged once per reason)",
			"queue", name, "reason", why.Error())
	}
	return err
}

// kernelReady says why the kernel cannot serve queues here, or nil.
func kernelReady() error {
	return kq.Ready(kq.FeatureAddOutcome | kq.FeatureKeyState)
}
