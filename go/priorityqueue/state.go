package priorityqueue

// Beyond controller-runtime, what the kernel can answer about one item:
// its state (kubernetes#119979 asks client-go for IsAdded and IsWaiting)
// and cancelling its delay (client-go#131).

import (
	"time"

	"wq.dev/go/internal/kq"
)

// ItemState is what the queue holds of an item, at one moment (it may be
// stale as soon as State returns).
type ItemState struct {
	Queued     bool // ready, not yet handed out
	Processing bool // handed out, not yet Done
	Dirty      bool // processing, and queued again at its Done
	Waiting    bool // waits for its delay (AddAfter, a rate limit)
	// Priority of a queued or waiting item; of a processing one, the
	// priority it was handed out with.
	Priority int
	// ReadyAt: when a waiting item becomes ready (zero if not waiting).
	ReadyAt time.Time
	// Requeues: its failures, as the kernel's limiter counts them (0
	// with a limiter that runs in Go: ask NumRequeues).
	Requeues int
}

// Held says whether the queue holds the item at all.
func (s ItemState) Held() bool {
	return s.Queued || s.Processing || s.Waiting
}

// State asks the kernel what it holds of item (a module without
// WQ_FEATURE_KEY_CALLS, or a queue that could not be made: the zero
// ItemState).
func (q *Queue[T]) State(item T) ItemState {
	if q.b.K == nil {
		return ItemState{}
	}
	e := q.b.In.Find(item)
	if e == nil {
		return ItemState{} // the kernel holds nothing of it
	}
	ks, errno := q.b.K.KeyState(e.Key[:])
	now, mono := time.Now(), kq.MonotonicNs()
	q.b.In.Release(e, errno == 0 && ks.State == 0, nil)
	if errno != 0 {
		return ItemState{}
	}
	s := ItemState{
		Queued:     ks.State&kq.KeyQueued != 0,
		Processing: ks.State&kq.KeyProcessing != 0,
		Dirty:      ks.State&kq.KeyDirty != 0,
		Waiting:    ks.State&kq.KeyWaiting != 0,
		Priority:   int(ks.Priority),
		Requeues:   int(ks.Requeues),
	}
	if s.Waiting {
		s.ReadyAt = now.Add(time.Duration(int64(ks.ReadyNs) - int64(mono)))
	}
	return s
}

// CancelAfter drops item's waiting copy (an AddAfter or rate-limited add
// not yet due): an item also queued or processing stays so, one held only
// by its delay is no longer held (its failures are kept). It says whether
// there was a waiting copy. The priority the cancelled add gave an item
// being processed stays: it is queued again at its Done (if added
// meanwhile) with the highest priority of the adds made while it was
// processed, the cancelled one included.
func (q *Queue[T]) CancelAfter(item T) bool {
	if q.b.K == nil {
		return false
	}
	e := q.b.In.Find(item)
	if e == nil {
		return false
	}
	r, errno := q.b.K.KeyCall(kq.IocCancelAfter, e.Key[:], 0)
	cancelled := errno == 0 && r == 1
	held, processing := true, false
	if cancelled {
		if ks, e2 := q.b.K.KeyState(e.Key[:]); e2 == 0 {
			held, processing = ks.State != 0, ks.State&kq.KeyProcessing != 0
		}
	}
	q.b.In.Release(e, !held, func(m *meta) {
		if cancelled && !processing {
			m.waiting = false
		}
	})
	return cancelled
}
