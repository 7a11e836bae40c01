package kq

// Private queues: what every constructor of the packages makes.

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"time"
)

// ErrNoPriorities: NewPrivate was asked for priorities (CreatePriority)
// by a module that has none.
var ErrNoPriorities = errors.New("the wq module has no priority queues (WQ_FEATURE_PRIORITY): load a newer wq")

// NewPrivate makes a private kernel queue (flags: CreatePriority or 0,
// with starveNs) holding maxItems keys, or if 0 as many as the module
// lets the caller's queue hold (its ceiling, or its unprivileged
// ceiling), with lim (nil: none); if the kernel refuses the limiter,
// without it: kernelLimiter says whether the kernel applies lim (else the
// caller runs it in Go). On EDQUOT it lets unreachable queues go (a
// collection runs their cleanups) and tries once more.
func NewPrivate(flags uint32, starveNs uint64, lim *Limiter, maxItems uint32) (h *Handle, kernelLimiter bool, err error) {
	mi := Module()
	if flags&CreatePriority != 0 && mi.ABIVersion != 0 && mi.Features&FeaturePriority == 0 {
		return nil, false, ErrNoPriorities
	}
	sizes := []uint32{mi.MaxItemsLimit, mi.UnprivMaxItems, 0}
	if maxItems != 0 {
		sizes = []uint32{maxItems}
	}
	for retried := false; ; {
		for _, n := range sizes {
			h, err = CreateQueue(CreateOpts{Flags: flags, MaxItems: n, Limiter: lim, StarveNs: starveNs})
			if err == nil {
				return h, lim != nil && lim.NrTerms > 0, nil
			}
			if !errors.Is(err, syscall.EINVAL) {
				break
			}
		}
		if errors.Is(err, syscall.EINVAL) && lim != nil && lim.NrTerms > 0 {
			lim = nil // the kernel refused the limiter: Go runs it
			continue
		}
		if !errors.Is(err, syscall.EDQUOT) || retried {
			return nil, false, err
		}
		retried = true
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // cleanups close handles
	}
}

// Ready says why this process cannot make kernel queues that need the
// features need (Feature* bits), or nil: no /dev/wq, not a wq module, a
// module without them.
func Ready(need uint32) error {
	mi, err := readModule()
	if err != nil {
		return err
	}
	if mi.Features&need != need {
		return fmt.Errorf("the wq module lacks features %#x (it has %#x): load a newer wq", need&^mi.Features, mi.Features)
	}
	return nil
}
