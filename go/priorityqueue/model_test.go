package priorityqueue

// A model of the kernel's priority queue, in Go, for the tests: the
// semantics this package promises (doc.go), written out plainly. The
// host tests check it against controller-runtime's scenarios; the kernel
// tests check the kernel against it, step by step (fuzz_test.go).
//
// Time in the model is coarse: a delay is "short" (it passes before the
// next step: the test waits until the kernel shows it passed, then calls
// fire) or "long" (it never passes during a test).

import (
	"fmt"
	"sort"
	"time"
)

// longDelay: a delay that never passes during a test; shortDelay: one
// the test waits out at once.
const (
	longDelay  = time.Hour
	shortDelay = time.Millisecond
)

type mkey struct {
	queued     bool
	prio       int
	seq        uint64 // when it became ready: the FIFO order of its level
	processing bool
	handedPrio int
	// while processing: the highest priority of the adds made since it
	// was handed out (pset: there was one), plain or delayed, a cancelled
	// delay's too: it is queued again (dirty) or waits with it
	pset     bool
	pprio    int
	dirty    bool
	waiting  bool
	waitPrio int
	short    bool // the waiting copy's delay is short
	failures int
}

func (k *mkey) held() bool { return k.queued || k.processing || k.waiting }

type model struct {
	keys map[string]*mkey
	seq  uint64
	// the kernel's limiter: every rate-limited add waits longDelay
	kernelLimiter bool
}

func newModel() *model {
	return &model{keys: map[string]*mkey{}, kernelLimiter: true}
}

func (m *model) key(k string) *mkey {
	mk := m.keys[k]
	if mk == nil {
		mk = &mkey{}
		m.keys[k] = mk
	}
	return mk
}

func (m *model) ready(mk *mkey, prio int) {
	m.seq++
	mk.queued, mk.prio, mk.seq = true, prio, m.seq
}

// delayOf: the delay an add waits (0: none), as the queue computes it,
// counting a failure for a rate-limited add.
func (m *model) delayOf(mk *mkey, o AddOpts) time.Duration {
	after := o.After
	if o.RateLimited {
		mk.failures++
		if after == 0 || longDelay < after {
			after = longDelay
		}
	}
	return max(after, 0)
}

// add: AddWithOpts of one key.
func (m *model) add(k string, o AddOpts) {
	p := 0
	if o.Priority != nil {
		p = *o.Priority
	}
	mk := m.key(k)
	d := m.delayOf(mk, o)
	if mk.processing {
		if !mk.pset || p > mk.pprio {
			mk.pprio = p
		}
		mk.pset = true
		switch {
		case d == 0: // dirty; a waiting copy is dropped
			mk.dirty, mk.waiting = true, false
		case mk.dirty: // only the priority
		case mk.waiting:
			mk.short = mk.short || d < longDelay
		default:
			mk.waiting, mk.short = true, d < longDelay
		}
		return
	}
	switch {
	case mk.queued:
		if p > mk.prio {
			m.ready(mk, p) // a raise: the tail of the new level
		}
	case d == 0 && mk.waiting:
		mk.waiting = false
		m.ready(mk, max(p, mk.waitPrio))
	case d == 0:
		m.ready(mk, p)
	case mk.waiting:
		mk.waitPrio = max(mk.waitPrio, p)
		mk.short = mk.short || d < longDelay
	default:
		mk.waiting, mk.waitPrio, mk.short = true, p, d < longDelay
	}
}

// fire: k's short delay passed.
func (m *model) fire(k string) {
	mk := m.key(k)
	if !mk.waiting || !mk.short {
		return
	}
	mk.waiting = false
	if mk.processing {
		mk.dirty = true
		return
	}
	m.ready(mk, mk.waitPrio)
}

// head: the key a Get takes, or "" if none is queued.
func (m *model) head() string {
	best := ""
	for k, mk := range m.keys {
		if !mk.queued {
			continue
		}
		if b := m.keys[best]; best == "" || mk.prio > b.prio || (mk.prio == b.prio && mk.seq < b.seq) {
			best = k
		}
	}
	return best
}

func (m *model) get() (string, int, bool) {
	k := m.head()
	if k == "" {
		return "", 0, false
	}
	mk := m.keys[k]
	mk.queued, mk.processing, mk.handedPrio, mk.pset = false, true, mk.prio, false
	return k, mk.prio, true
}

func (m *model) done(k string) {
	mk := m.keys[k]
	if mk == nil || !mk.processing {
		return
	}
	mk.processing, mk.pset = false, false
	switch {
	case mk.dirty:
		mk.dirty = false
		m.ready(mk, mk.pprio)
	case mk.waiting:
		mk.waitPrio = mk.pprio
	}
}

func (m *model) forget(k string) { m.key(k).failures = 0 }

func (m *model) cancelAfter(k string) bool {
	mk := m.key(k)
	was := mk.waiting
	mk.waiting = false
	return was
}

func (m *model) len() int {
	n := 0
	for _, mk := range m.keys {
		if mk.queued || mk.dirty {
			n++
		}
	}
	return n
}

// state: what State should say of k (ReadyAt aside).
func (m *model) state(k string) ItemState {
	mk := m.key(k)
	s := ItemState{Queued: mk.queued, Processing: mk.processing, Dirty: mk.dirty,
		Waiting: mk.waiting, Requeues: mk.failures}
	switch {
	case mk.processing:
		s.Priority = mk.handedPrio
	case mk.queued:
		s.Priority = mk.prio
	case mk.waiting:
		s.Priority = mk.waitPrio
	}
	if !m.kernelLimiter {
		s.Requeues = 0
	}
	return s
}

func (m *model) processing() []string {
	var ks []string
	for k, mk := range m.keys {
		if mk.processing {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// modelQueue is the model behind the interface the scenarios use
// (scenarios_test.go).
type modelQueue struct {
	m     *model
	fatal func(string)
}

func (q *modelQueue) AddWithOpts(o AddOpts, items ...string) {
	if o.After > 0 {
		o.After = longDelay // the scenarios' delays never pass
	}
	for _, it := range items {
		q.m.add(it, o)
	}
}

func (q *modelQueue) GetWithPriority() (string, int, bool) {
	k, p, ok := q.m.get()
	if !ok {
		q.fatal("a Get of the model would wait forever")
	}
	return k, p, false
}

func (q *modelQueue) Done(k string) { q.m.done(k) }
func (q *modelQueue) Len() int      { return q.m.len() }

func (s ItemState) String() string {
	return fmt.Sprintf("{q%v p%v d%v w%v prio %d req %d}", s.Queued, s.Processing,
		s.Dirty, s.Waiting, s.Priority, s.Requeues)
}
