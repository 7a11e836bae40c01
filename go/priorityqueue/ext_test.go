package priorityqueue

// Against the kernel, what goes beyond controller-runtime's tests: the
// starvation guard, State and CancelAfter, the kernel's limiter with
// After, the two shutdowns, items of any type let go of.

import (
	"testing"
	"time"

	"wq.dev/go/internal/kqtest"
	"wq.dev/go/workqueue"
)

// A low item that waited past StarveAfter goes before fresher high ones;
// without StarveAfter it waits for them.
func TestStarveAfter(t *testing.T) {
	for _, starve := range []time.Duration{0, 100 * time.Millisecond} {
		q, _ := newTestQueue(t, WithStarveAfter[string](starve))
		q.AddWithOpts(AddOpts{Priority: prio(-1)}, "low")
		time.Sleep(300 * time.Millisecond)
		q.AddWithOpts(AddOpts{Priority: prio(5)}, "high")
		want := "high"
		if starve > 0 {
			want = "low"
		}
		if it, p, _ := q.GetWithPriority(); it != want {
			t.Errorf("StarveAfter %v: got %q at %d first, want %q", starve, it, p, want)
		}
	}
}

func TestStateAndCancelAfter(t *testing.T) {
	q, f := newTestQueue(t)
	if s := q.State("none"); s != (ItemState{}) || s.Held() {
		t.Errorf("an item never added: %v", s)
	}
	start := time.Now()
	q.AddWithOpts(AddOpts{After: time.Hour, Priority: prio(3)}, "w")
	s := q.State("w")
	if !s.Waiting || s.Queued || s.Priority != 3 || !s.Held() {
		t.Errorf("waiting: %v", s)
	}
	if at := s.ReadyAt.Sub(start); at < 59*time.Minute || at > 61*time.Minute {
		t.Errorf("ReadyAt in %v, want an hour", at)
	}
	if !q.CancelAfter("w") || q.CancelAfter("w") {
		t.Error("CancelAfter: not true once, then false")
	}
	if s := q.State("w"); s.Held() || q.b.In.Size() != 0 {
		t.Errorf("after CancelAfter: %v, %d items kept", s, q.b.In.Size())
	}
	// processing, added meanwhile (dirty) and with a delay (waiting)
	q.AddWithOpts(AddOpts{Priority: prio(2)}, "p")
	if s := q.State("p"); !s.Queued || s.Priority != 2 {
		t.Errorf("queued: %v", s)
	}
	q.Get()
	q.AddWithOpts(AddOpts{After: time.Hour, Priority: prio(7)}, "p")
	if s := q.State("p"); !s.Processing || !s.Waiting || s.Dirty || s.Priority != 2 {
		t.Errorf("processing with a waiting copy: %v", s)
	}
	if !q.CancelAfter("p") {
		t.Error("CancelAfter of a processing item's waiting copy: false")
	}
	q.Add("p")
	if s := q.State("p"); !s.Processing || !s.Dirty || s.Waiting {
		t.Errorf("processing, dirty: %v", s)
	}
	q.Done("p")
	// the highest priority of the adds made while processing: the
	// cancelled one's too
	if it, p, _ := q.GetWithPriority(); it != "p" || p != 7 {
		t.Errorf("after the cancel, the dirty item came back at %d (%q), want 7", p, it)
	}
	q.Done("p")
	if s := q.State("p"); s.Held() || q.b.In.Size() != 0 {
		t.Errorf("after its Done: %v, %d items kept", s, q.b.In.Size())
	}
	expectMetrics(t, f, map[int]int{2: 0, 7: 0}, 2, 2)
}

// RateLimited with After waits the shorter; a rate-limited add counts a
// failure either way.
func TestRateLimitedWithAfterWaitsTheShorter(t *testing.T) {
	lim := workqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Hour, time.Hour)
	q, _ := newTestQueue(t, func(o *Opts[string]) { o.RateLimiter = lim })
	if !q.b.KernelLimiter {
		t.Fatal("the exponential limiter is not the kernel's")
	}
	start := time.Now()
	q.AddWithOpts(AddOpts{RateLimited: true, After: 100 * time.Millisecond}, "after")
	q.AddWithOpts(AddOpts{RateLimited: true, After: 2 * time.Hour}, "limiter")
	q.AddWithOpts(AddOpts{RateLimited: true, After: -time.Second}, "now")
	if s := q.State("limiter"); !s.Waiting || s.ReadyAt.Sub(start) > 61*time.Minute {
		t.Errorf("RateLimited, After 2h, limiter 1h: %v, ready in %v", s, s.ReadyAt.Sub(start))
	}
	if it, _ := q.Get(); it != "now" {
		t.Errorf("first %q, want now (a negative After)", it)
	}
	if it, _ := q.Get(); it != "after" || time.Since(start) < 100*time.Millisecond {
		t.Errorf("second %q after %v, want after, after 100 ms", it, time.Since(start))
	}
	for _, k := range []string{"after", "limiter", "now"} {
		if n := q.NumRequeues(k); n != 1 {
			t.Errorf("NumRequeues(%s) %d, want 1", k, n)
		}
	}
	q.Forget("now")
	if n := q.NumRequeues("now"); n != 0 {
		t.Errorf("NumRequeues after Forget: %d", n)
	}
}

// ShutDown drops what is queued and waiting; a processing item may still
// be Done, and its re-add meanwhile is dropped too.
func TestShutDownDiscards(t *testing.T) {
	q, _ := newTestQueue(t)
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "busy", "queued")
	q.AddAfter("waiting", time.Hour)
	if it, _ := q.Get(); it != "busy" {
		t.Fatalf("got %q", it)
	}
	q.Add("busy")
	q.ShutDown()
	if !q.ShuttingDown() || q.Len() != 0 {
		t.Errorf("ShuttingDown %v, Len %d", q.ShuttingDown(), q.Len())
	}
	q.Done("busy")
	if s := q.State("busy"); s.Held() {
		t.Errorf("busy after ShutDown and Done: %v", s)
	}
	for _, k := range []string{"queued", "waiting"} {
		if s := q.State(k); s.Held() {
			t.Errorf("%s after ShutDown: %v", k, s)
		}
	}
}

// ShutDownWithDrain is controller-runtime's: a ShutDown, which returns at
// once with items queued and no worker left.
func TestShutDownWithDrainIsShutDown(t *testing.T) {
	q, _ := newTestQueue(t)
	q.Add("a")
	q.Add("b")
	drained := make(chan struct{})
	go func() { q.ShutDownWithDrain(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(20 * time.Second):
		t.Fatal("ShutDownWithDrain still waits 20 s after it was called, with no worker")
	}
	if it, shut := q.Get(); !shut {
		t.Errorf("Get after ShutDownWithDrain: %q, not shutdown", it)
	}
}

// ShutDownWithKernelDrain hands out what is queued and returns once it is
// all done; adds meanwhile are ignored.
func TestShutDownWithKernelDrain(t *testing.T) {
	q, _ := newTestQueue(t)
	q.AddWithOpts(AddOpts{Priority: prio(1)}, "a")
	q.Add("b")
	drained := make(chan struct{})
	go func() { q.ShutDownWithKernelDrain(); close(drained) }()
	kqtest.WaitFor(t, "shutting down", q.ShuttingDown)
	q.Add("c")
	for _, want := range []string{"a", "b"} {
		it, shut := q.Get()
		if it != want || shut {
			t.Errorf("Get while draining: %q %v, want %q", it, shut, want)
		}
		select {
		case <-drained:
			t.Fatal("the drain returned with an item processing")
		case <-time.After(50 * time.Millisecond):
		}
		q.Done(it)
	}
	select {
	case <-drained:
	case <-time.After(20 * time.Second):
		t.Fatal("the drain still waits 20 s after the last Done")
	}
	if _, shut := q.Get(); !shut {
		t.Error("Get after the drain: not shutdown")
	}
}

// Items of any comparable type go through the kernel, and are let go of
// after their last Done.
func TestItemsOfAnyType(t *testing.T) {
	kqtest.NeedKernel(t)
	type req struct{ ns, name string }
	q := New[req]("").(*Queue[req])
	defer q.ShutDown()
	if b, err := workqueue.BackendOf(q); b != workqueue.BackendKernel {
		t.Fatal(b, err)
	}
	q.AddWithOpts(AddOpts{Priority: prio(-100)}, req{"ns", "old"})
	q.AddWithOpts(AddOpts{}, req{"ns", "new"}, req{"ns", "old"}) // old: raised to 0, behind new
	for _, want := range []req{{"ns", "new"}, {"ns", "old"}} {
		it, p, _ := q.GetWithPriority()
		if it != want || p != 0 {
			t.Errorf("got %v at %d, want %v at 0", it, p, want)
		}
		q.Done(it)
	}
	if n := q.b.In.Size(); n != 0 {
		t.Errorf("%d items kept after their Done", n)
	}
}

func newBenchQueue(b *testing.B) *Queue[int] {
	kqtest.NeedKernel(b)
	q := New[int]("").(*Queue[int])
	if _, err := workqueue.BackendOf(q); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(q.ShutDown)
	return q
}

func BenchmarkAddGetDone(b *testing.B) {
	q := newBenchQueue(b)
	for i := 0; i < b.N; i++ {
		for j := 0; j < 1000; j++ {
			q.Add(j)
		}
		for j := 0; j < 1000; j++ {
			it, _ := q.Get()
			q.Done(it)
		}
	}
}

func BenchmarkAddOnly(b *testing.B) {
	q := newBenchQueue(b)
	for i := 0; i < b.N; i++ {
		for j := 0; j < 1000; j++ {
			q.Add(j)
		}
	}
}
