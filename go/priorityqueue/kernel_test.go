package priorityqueue

// controller-runtime's tests of its priority queue, against the kernel
// (they skip without /dev/wq). Its fake clock becomes real time: a delay
// is waited out (short ones), or never passes (an hour). Where the kernel
// counts an item that became ready by its delay later than
// controller-runtime (doc.go), the check of the depth in between is left
// out and the final one kept.

import (
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"testing"
	"time"

	"wq.dev/go/internal/kqtest"
	"wq.dev/go/workqueue"
)

// newTestQueue: a queue named "test" reporting to a fake provider, shut
// down at the end of the test.
func newTestQueue(t testing.TB, o ...Opt[string]) (*Queue[string], *fakeMetrics) {
	t.Helper()
	kqtest.NeedKernel(t)
	f := newFakeMetrics()
	opts := append([]Opt[string]{func(o *Opts[string]) { o.MetricProvider = f }}, o...)
	pq := New("test", opts...)
	q, ok := pq.(*Queue[string])
	if !ok {
		_, err := workqueue.BackendOf(pq)
		t.Fatalf("not a kernel queue: %v", err)
	}
	t.Cleanup(q.ShutDown)
	return q, f
}

func expectMetrics(t *testing.T, f *fakeMetrics, depth map[int]int, adds, retries int) {
	t.Helper()
	d, a, r := f.snapshot()
	if fmt.Sprint(d) != fmt.Sprint(depth) || a != adds || r != retries {
		t.Errorf("metrics: depth %v adds %d retries %d, want %v, %d, %d", d, a, r, depth, adds, retries)
	}
	f.expectNoNegative(t)
}

func TestScenarios(t *testing.T) {
	kqtest.NeedKernel(t)
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			q, f := newTestQueue(t)
			s.run(t, q, func() map[int]int { d, _, _ := f.snapshot(); return d })
			expectMetrics(t, f, s.depth, s.adds, s.retries)
		})
	}
}

// ref: https://github.com/kubernetes-sigs/controller-runtime/issues/3239
func TestGetAfterShutDownReturnsShutdown(t *testing.T) {
	q, _ := newTestQueue(t)
	q.Add("baz")
	q.ShutDown()
	q.AddWithOpts(AddOpts{After: time.Second}, "foo")
	for i := 0; i < 2; i++ {
		if it, p, shut := q.GetWithPriority(); it != "" || p != 0 || !shut {
			t.Errorf("GetWithPriority after ShutDown: %q %d %v", it, p, shut)
		}
	}
}

// A large queue drains without trouble, many getters at once.
func TestReturnsManyItems(t *testing.T) {
	q, _ := newTestQueue(t)
	for round := 0; round < 20; round++ {
		for i := 0; i < 1000; i++ {
			rn := rand.Intn(100)
			if rn < 10 {
				q.AddWithOpts(AddOpts{After: time.Duration(rn) * time.Millisecond}, fmt.Sprintf("foo%d", i))
			} else {
				q.AddWithOpts(AddOpts{Priority: &rn}, fmt.Sprintf("foo%d", i))
			}
		}
		var wg sync.WaitGroup
		for g := 0; g < 100; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < 10; j++ {
					obj, _, _ := q.GetWithPriority()
					q.Done(obj)
				}
			}()
		}
		wg.Wait()
	}
	if n := q.b.In.Size(); n != 0 {
		t.Errorf("%d items kept after all were done", n)
	}
}

func TestHighPriorityItemsAreReturnedBeforeLowPriorityItemMultipleTimes(t *testing.T) {
	kqtest.NeedKernel(t)
	for _, after := range []time.Duration{-time.Second, 0, 200 * time.Millisecond} {
		t.Run(fmt.Sprintf("after=%v", after), func(t *testing.T) {
			q, f := newTestQueue(t)
			const perPriority = 1000
			levels := []struct {
				name string
				p    int
			}{{"high", 10}, {"upperMiddle", 5}, {"middle", 0}, {"lowMiddle", -5}, {"low", -10}}
			for i := 0; i < perPriority; i++ {
				for _, l := range levels {
					q.AddWithOpts(AddOpts{Priority: prio(l.p), After: after}, l.name+"-"+strconv.Itoa(i))
				}
			}
			kqtest.WaitFor(t, "all ready", func() bool { return q.Len() == perPriority*len(levels) })
			for _, l := range levels {
				for i := 0; i < perPriority; i++ {
					key, p, _ := q.GetWithPriority()
					if want := l.name + "-" + strconv.Itoa(i); key != want || p != l.p {
						t.Fatalf("got %q at %d, want %q at %d", key, p, want, l.p)
					}
				}
			}
			retries := 0
			if after > 0 {
				retries = perPriority * len(levels)
			}
			expectMetrics(t, f, map[int]int{-10: 0, -5: 0, 0: 0, 5: 0, 10: 0}, perPriority*len(levels), retries)
		})
	}
}

func TestItemIsOnlyReturnedAfterAfterHasPassed(t *testing.T) {
	q, f := newTestQueue(t)
	got := make(chan time.Time)
	go func() {
		q.GetWithPriority()
		got <- time.Now()
	}()
	start := time.Now()
	q.AddWithOpts(AddOpts{After: 300 * time.Millisecond}, "foo")
	select {
	case at := <-got:
		if d := at.Sub(start); d < 300*time.Millisecond {
			t.Errorf("handed out after %v, before its 300 ms", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("not handed out 20 s after its 300 ms")
	}
	expectMetrics(t, f, map[int]int{0: 0}, 1, 1)
}

func TestHighPriorityItemThatBecameReadyIsReturnedBeforeLowPriorityItem(t *testing.T) {
	q, f := newTestQueue(t)
	q.AddWithOpts(AddOpts{After: 0, Priority: prio(-100)}, "foo")
	q.AddWithOpts(AddOpts{After: 200 * time.Millisecond, Priority: prio(0)}, "prio")
	kqtest.WaitFor(t, "both ready", func() bool { return q.Len() == 2 })
	key, p, _ := q.GetWithPriority()
	if key != "prio" || p != 0 {
		t.Errorf("got %q at %d, want prio at 0", key, p)
	}
	expectMetrics(t, f, map[int]int{-100: 1, 0: 0}, 2, 1)
}

// getAsync: a GetWithPriority in a goroutine, its item on the channel.
func getAsync(q *Queue[string]) <-chan string {
	ch := make(chan string, 1)
	go func() {
		it, _, _ := q.GetWithPriority()
		ch <- it
	}()
	return ch
}

// expectFrom: the next item on ch is want (an error if not), or t fails
// with why it did not come within 20 s.
func expectFrom(t *testing.T, ch <-chan string, want, why string) {
	t.Helper()
	select {
	case it := <-ch:
		if it != want {
			t.Errorf("got %q", it)
		}
	case <-time.After(20 * time.Second):
		t.Fatal(why)
	}
}

func TestItemIsReturnedAsSoonAsPossible(t *testing.T) {
	q, f := newTestQueue(t)
	ch := getAsync(q)
	time.Sleep(50 * time.Millisecond) // the getter waits
	q.AddWithOpts(AddOpts{}, "foo")
	expectFrom(t, ch, "foo", "a waiting getter did not get the item added")
	expectMetrics(t, f, map[int]int{0: 0}, 1, 0)
}

func TestWaitingItemIsReturnedRightAfterReadWithoutAfter(t *testing.T) {
	q, f := newTestQueue(t)
	ch := getAsync(q)
	q.AddWithOpts(AddOpts{After: time.Minute}, "foo")
	select {
	case it := <-ch:
		t.Fatalf("got %q before its minute", it)
	case <-time.After(200 * time.Millisecond):
	}
	q.AddWithOpts(AddOpts{}, "foo")
	expectFrom(t, ch, "foo", "a plain add of a waiting item did not make it ready")
	q.Done("foo")
	if s := q.State("foo"); s.Held() {
		t.Errorf("after its Done: %v (the waiting copy was not dropped)", s)
	}
	expectMetrics(t, f, map[int]int{0: 0}, 1, 1)
}

func TestMultipleItemsWithAfterAreReturnedInCorrectOrder(t *testing.T) {
	q, f := newTestQueue(t)
	q.AddWithOpts(AddOpts{After: 600 * time.Millisecond}, "foo")
	q.AddWithOpts(AddOpts{After: 200 * time.Millisecond}, "bar")
	if first, _, _ := q.GetWithPriority(); first != "bar" {
		t.Errorf("first %q, want bar", first)
	}
	if second, _, _ := q.GetWithPriority(); second != "foo" {
		t.Errorf("second %q, want foo", second)
	}
	expectMetrics(t, f, map[int]int{0: 0}, 2, 2)
}

func TestGetFromPriorityQueueIsUnblockedOnShutdown(t *testing.T) {
	q, _ := newTestQueue(t)
	type res struct {
		it   string
		p    int
		shut bool
	}
	ch := make(chan res, 1)
	go func() {
		it, p, shut := q.GetWithPriority()
		ch <- res{it, p, shut}
	}()
	select {
	case r := <-ch:
		t.Fatalf("Get returned before ShutDown: %+v", r)
	case <-time.After(100 * time.Millisecond):
	}
	q.ShutDown()
	select {
	case r := <-ch:
		if r != (res{"", 0, true}) {
			t.Errorf("Get after ShutDown: %+v", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get still blocked 20 s after ShutDown")
	}
}

func TestItemsAreIncludedInLenAndMetricsOnceTheyAreReady(t *testing.T) {
	q, f := newTestQueue(t)
	for round := 0; round < 2; round++ {
		q.AddWithOpts(AddOpts{After: time.Second}, "foo")
		q.AddWithOpts(AddOpts{}, "baz")
		q.AddWithOpts(AddOpts{After: time.Second}, "bar")
		q.AddWithOpts(AddOpts{}, "bal")
		if n := q.Len(); n != 2 {
			t.Errorf("round %d: Len %d before the delays passed, want 2", round, n)
		}
		if d, _, _ := f.snapshot(); d[0] != 2 {
			t.Errorf("round %d: depth %v before the delays passed, want 2 at 0", round, d)
		}
		kqtest.WaitFor(t, "4 ready", func() bool { return q.Len() == 4 })
		for i := 0; i < 4; i++ {
			it, _ := q.Get()
			q.Done(it)
		}
		if n := q.Len(); n != 0 {
			t.Errorf("round %d: Len %d after draining", round, n)
		}
		expectMetrics(t, f, map[int]int{0: 0}, 4*(round+1), 2*(round+1))
	}
}

func TestMetricsAreUpdatedForItemWhoseRequeueAfterExpiredThatGetsAddedAgainWithoutRequeueAfter(t *testing.T) {
	q, f := newTestQueue(t)
	q.AddWithOpts(AddOpts{After: 50 * time.Millisecond}, "foo")
	kqtest.WaitFor(t, "ready", func() bool { return q.Len() == 1 })
	q.AddWithOpts(AddOpts{}, "foo")
	if n := q.Len(); n != 1 {
		t.Errorf("Len %d", n)
	}
	if d, _, _ := f.snapshot(); fmt.Sprint(d) != fmt.Sprint(map[int]int{0: 1}) {
		t.Errorf("depth %v after the add, want 1 at 0", d)
	}
	if it, _ := q.Get(); it != "foo" {
		t.Errorf("got %q", it)
	}
	expectMetrics(t, f, map[int]int{0: 0}, 1, 1)
}

// goOnly hides a limiter of package workqueue, so that it runs in Go.
type goOnly struct {
	workqueue.TypedRateLimiter[string]
}

func TestWhenAddingMultipleItemsWithRatelimitTrueTheyDontAffectEachOther(t *testing.T) {
	kqtest.NeedKernel(t)
	exp := func() workqueue.TypedRateLimiter[string] {
		return workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	}
	for _, kernel := range []bool{false, true} {
		t.Run(fmt.Sprintf("kernel limiter %v", kernel), func(t *testing.T) {
			var lim workqueue.TypedRateLimiter[string] = goOnly{exp()}
			if kernel {
				lim = exp()
			}
			q, f := newTestQueue(t, func(o *Opts[string]) { o.RateLimiter = lim })
			if q.b.KernelLimiter != kernel {
				t.Fatalf("the limiter is the kernel's: %v", q.b.KernelLimiter)
			}
			retries := 2
			if kernel { // 7 failures of bar, counted by the kernel
				for i := 0; i < 7; i++ {
					q.AddRateLimited("bar")
				}
				if it, _ := q.Get(); it != "bar" {
					t.Fatalf("got %q", it)
				}
				q.Done("bar")
				retries += 7
			} else { // after 7 calls, the next When("bar") is 640 ms
				for i := 0; i < 7; i++ {
					lim.When("bar")
				}
			}
			start := time.Now()
			q.AddWithOpts(AddOpts{RateLimited: true}, "foo", "bar")
			if it, _ := q.Get(); it != "foo" || time.Since(start) > 600*time.Millisecond {
				t.Errorf("first %q after %v, want foo after 5 ms", it, time.Since(start))
			}
			if it, _ := q.Get(); it != "bar" || time.Since(start) < 640*time.Millisecond {
				t.Errorf("second %q after %v, want bar after 640 ms", it, time.Since(start))
			}
			if n := q.NumRequeues("bar"); n != 8 {
				t.Errorf("NumRequeues(bar) %d, want 8", n)
			}
			_, adds, _ := f.snapshot()
			expectMetrics(t, f, map[int]int{0: 0}, adds, retries)
		})
	}
}

// ref: https://github.com/kubernetes-sigs/controller-runtime/issues/3538
func TestPriorityQueueDoesNotDeadlockOnShutdownWhileHandingOutItems(t *testing.T) {
	kqtest.NeedKernel(t)
	for round := 0; round < 50; round++ {
		q := New[string]("test")
		var wg sync.WaitGroup
		for w := 0; w < 20; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					q.AddWithOpts(AddOpts{Priority: prio(rand.Intn(100))}, strconv.Itoa(rand.Intn(1000)))
					if _, _, shutdown := q.GetWithPriority(); shutdown {
						return
					}
				}
			}()
		}
		time.Sleep(time.Millisecond)
		q.ShutDown()
		returned := make(chan struct{})
		go func() { wg.Wait(); close(returned) }()
		select {
		case <-returned:
		case <-time.After(10 * time.Second):
			t.Fatalf("workers did not return within 10s after ShutDown in round %d", round)
		}
	}
}
