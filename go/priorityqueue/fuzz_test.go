package priorityqueue

// Random adds with priorities and delays against the kernel:
// controller-runtime's TestFuzzPriorityQueue (many producers and
// consumers, its invariants), and a step-by-step comparison with the
// model (model_test.go) of every item's state after every call. The seed
// is logged; WQ_FUZZ_SEED=N replays one, WQ_FUZZ_STEPS=N sets the length
// of the model fuzz.

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"wq.dev/go/internal/kqtest"
	"wq.dev/go/workqueue"
)

func fuzzSeed(t *testing.T) int64 {
	seed := time.Now().UnixNano()
	if s := os.Getenv("WQ_FUZZ_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed: %d (WQ_FUZZ_SEED=%d replays it)", seed, seed)
	return seed
}

// TestFuzzPriorityQueue validates a set of basic invariants that should
// always be true:
//
//   - The queue is threadsafe when multiple producers and consumers
//     are involved
//   - There are no deadlocks
//   - An item is never handed out again before it is returned
//   - Items in the queue are de-duplicated
//   - max(existing priority, new priority) is used
func TestFuzzPriorityQueue(t *testing.T) {
	q, f := newTestQueue(t)
	rng := rand.New(rand.NewSource(fuzzSeed(t)))
	var rngLock sync.Mutex
	randOpts := func() (AddOpts, string) {
		rngLock.Lock()
		defer rngLock.Unlock()
		o := AddOpts{Priority: randPrio(rng, 5, 3)}
		switch r := rng.Intn(10); {
		case r < 5:
		case r < 6:
			o.After = -time.Duration(rng.Intn(1e6))
		default:
			o.After = time.Duration(rng.Int63n(int64(200 * time.Millisecond)))
		}
		if o.After > 100*time.Millisecond {
			o.After = 10 * time.Millisecond
		}
		return o, "item-" + strconv.Itoa(rng.Intn(200))
	}

	inQueue := map[string]int{}
	var inQueueLock sync.Mutex
	handedOut := map[string]bool{}
	var handedOutLock sync.Mutex

	var wg sync.WaitGroup
	for p := 0; p < 10; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				o, item := randOpts()
				inQueueLock.Lock()
				q.AddWithOpts(o, item)
				p := 0
				if o.Priority != nil {
					p = *o.Priority
				}
				if old, exists := inQueue[item]; !exists || old < p {
					inQueue[item] = p
				}
				inQueueLock.Unlock()
			}
		}()
	}
	for c := 0; c < 100; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				inQueueLock.Lock()
				if len(inQueue) == 0 {
					inQueueLock.Unlock()
					return
				}
				item, p, _ := q.GetWithPriority()
				if want, ok := inQueue[item]; !ok || want != p {
					t.Errorf("%s: got priority %d, expected %d (added since its last Get: %v)", item, p, want, ok)
				}
				delete(inQueue, item)
				inQueueLock.Unlock()

				handedOutLock.Lock()
				if handedOut[item] {
					t.Errorf("item %s got handed out more than once", item)
				}
				handedOut[item] = true
				handedOutLock.Unlock()

				f.expectNoNegative(t)

				handedOutLock.Lock()
				delete(handedOut, item)
				q.Done(item)
				handedOutLock.Unlock()
			}
		}()
	}
	wg.Wait()
}

// randPrio: an add's priority, nil one time in nilOneIn, else from -most
// to most.
func randPrio(rng *rand.Rand, nilOneIn, most int) *int {
	if rng.Intn(nilOneIn) == 0 {
		return nil
	}
	return prio(rng.Intn(2*most+1) - most)
}

// fuzzKeys: few keys, so that adds meet every state.
var fuzzKeys = []string{"a", "b", "c", "d", "e", "f"}

// randAdd: an add's options: priority nil (one in 4) or -2..2; no delay, a
// negative, a short or a long one; rate limited now and then (the
// queue's limiter waits longDelay).
func randAdd(rng *rand.Rand) AddOpts {
	o := AddOpts{Priority: randPrio(rng, 4, 2)}
	switch r := rng.Intn(20); {
	case r < 8:
	case r < 9:
		o.After = -time.Millisecond
	case r < 14:
		o.After = shortDelay
	default:
		o.After = longDelay
	}
	o.RateLimited = rng.Intn(5) == 0
	return o
}

func optsString(o AddOpts) string {
	p := "nil"
	if o.Priority != nil {
		p = strconv.Itoa(*o.Priority)
	}
	return fmt.Sprintf("{After %v RateLimited %v Priority %s}", o.After, o.RateLimited, p)
}

// The kernel against the model, one call at a time: after each, Len, and
// State and NumRequeues of every key, must be the model's; each Get must
// hand out the model's head at its priority. At the end everything is
// drained, and the depth of every level is back to 0.
func TestFuzzAgainstTheModel(t *testing.T) {
	lim := workqueue.NewTypedItemExponentialFailureRateLimiter[string](longDelay, longDelay)
	q, f := newTestQueue(t, func(o *Opts[string]) { o.RateLimiter = lim })
	m := newModel()
	rng := rand.New(rand.NewSource(fuzzSeed(t)))
	steps := 2000
	if s, err := strconv.Atoi(os.Getenv("WQ_FUZZ_STEPS")); err == nil {
		steps = s
	}
	var history []string
	fail := func(format string, a ...any) {
		t.Helper()
		if len(history) > 30 {
			history = history[len(history)-30:]
		}
		for _, h := range history {
			t.Log(h)
		}
		t.Fatalf(format, a...)
	}
	check := func() {
		t.Helper()
		if got, want := q.Len(), m.len(); got != want {
			fail("Len %d, model %d", got, want)
		}
		for _, k := range fuzzKeys {
			got, want := q.State(k), m.state(k)
			got.ReadyAt = time.Time{}
			if got != want {
				fail("State(%s) %v, model %v", k, got, want)
			}
			if got, want := q.NumRequeues(k), m.key(k).failures; got != want {
				fail("NumRequeues(%s) %d, model %d", k, got, want)
			}
		}
	}
	for i := 0; i < steps; i++ {
		k := fuzzKeys[rng.Intn(len(fuzzKeys))]
		switch r := rng.Intn(100); {
		case r < 50:
			o := randAdd(rng)
			history = append(history, fmt.Sprintf("%d: add %s %s", i, k, optsString(o)))
			q.AddWithOpts(o, k)
			m.add(k, o)
			if mk := m.key(k); mk.waiting && mk.short {
				kqtest.WaitFor(t, "past its short delay ("+k+")", func() bool { return !q.State(k).Waiting })
				m.fire(k)
			}
		case r < 72:
			want, wp, ok := m.get()
			if !ok {
				continue
			}
			history = append(history, fmt.Sprintf("%d: get", i))
			if got, gp, shut := q.GetWithPriority(); got != want || gp != wp || shut {
				fail("GetWithPriority: %q at %d (shutdown %v), model %q at %d", got, gp, shut, want, wp)
			}
		case r < 92:
			ps := m.processing()
			if len(ps) == 0 {
				continue
			}
			k = ps[rng.Intn(len(ps))]
			history = append(history, fmt.Sprintf("%d: done %s", i, k))
			q.Done(k)
			m.done(k)
		case r < 96:
			history = append(history, fmt.Sprintf("%d: forget %s", i, k))
			q.Forget(k)
			m.forget(k)
		default:
			history = append(history, fmt.Sprintf("%d: cancel %s", i, k))
			if got, want := q.CancelAfter(k), m.cancelAfter(k); got != want {
				fail("CancelAfter(%s) %v, model %v", k, got, want)
			}
		}
		check()
	}
	// drain: no waiting copies, nothing processing, nothing queued
	for _, k := range fuzzKeys {
		q.CancelAfter(k)
		m.cancelAfter(k)
	}
	for {
		for _, k := range m.processing() {
			q.Done(k)
			m.done(k)
		}
		want, _, ok := m.get()
		if !ok {
			break
		}
		if got, _, _ := q.GetWithPriority(); got != want {
			fail("draining: got %q, model %q", got, want)
		}
	}
	check()
	depth, _, _ := f.snapshot()
	for p, d := range depth {
		if d != 0 {
			t.Errorf("depth %d at level %d once drained (all: %v)", d, p, depth)
		}
	}
	f.expectNoNegative(t)
}
