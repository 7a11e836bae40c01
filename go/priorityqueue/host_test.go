package priorityqueue

// Tests that need no kernel.

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/kqtest"
	"wq.dev/go/internal/limiters"
	wq "wq.dev/go/workqueue"
)

func TestPriority32Clamps(t *testing.T) {
	for _, c := range []struct {
		in   int
		want int32
	}{
		{0, 0}, {-100, -100}, {math.MaxInt32, math.MaxInt32}, {math.MinInt32, math.MinInt32},
		{math.MaxInt, math.MaxInt32}, {math.MinInt, math.MinInt32},
	} {
		if got := priority32(c.in); got != c.want {
			t.Errorf("priority32(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

type goLimiter struct{ n map[string]int }

func (l *goLimiter) When(it string) time.Duration {
	l.n[it]++
	return time.Duration(l.n[it]) * time.Second
}
func (l *goLimiter) Forget(it string)          { delete(l.n, it) }
func (l *goLimiter) NumRequeues(it string) int { return l.n[it] }

// The default limiter and workqueue's are the kernel's; others run in Go.
func TestLimitersOfWorkqueueAreTheKernels(t *testing.T) {
	var opts Opts[string]
	if lim, ok := limiters.Kernel(wq.DefaultTypedControllerRateLimiter[string]()); !ok || lim.NrTerms != 2 {
		t.Errorf("the default controller limiter: %+v %v", lim, ok)
	}
	type item struct{ ns, name string }
	if _, ok := limiters.Kernel(wq.NewTypedItemExponentialFailureRateLimiter[item](time.Millisecond, time.Second)); !ok {
		t.Error("an exponential limiter of a struct item is not the kernel's")
	}
	if _, ok := limiters.Kernel[string](&goLimiter{}); ok {
		t.Error("a foreign limiter is the kernel's")
	}
	if _, ok := limiters.Kernel(opts.RateLimiter); !ok {
		t.Error("no limiter cannot be the kernel's (none)")
	}
}

// Without /dev/wq the queue is controller-runtime's own, in process: it
// works, keeps priorities, and says why it is not the kernel's.
func TestNoKernelIsControllerRuntimes(t *testing.T) {
	kqtest.NoKernel(t)
	q := New[string]("nokernel", func(o *Opts[string]) { o.MetricProvider = newFakeMetrics() })
	if b, err := wq.BackendOf(q); b != wq.BackendInProcess || err == nil || !strings.Contains(err.Error(), kq.DevPath) {
		t.Fatalf("BackendOf without /dev/wq: %v %v", b, err)
	}
	if _, ok := q.(*Queue[string]); ok {
		t.Fatal("a kernel queue without /dev/wq")
	}
	q.AddWithOpts(AddOpts{Priority: prio(-1)}, "low")
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "a")
	kqtest.WaitFor(t, "two items", func() bool { return q.Len() == 2 })
	if it, p, shut := q.GetWithPriority(); shut || it != "a" || p != 3 {
		t.Errorf("GetWithPriority: %q %d %v, want a at 3", it, p, shut)
	}
	q.Done("a")
	q.ShutDown()
	if it, _, shut := q.GetWithPriority(); !shut {
		t.Errorf("GetWithPriority after ShutDown: %q", it)
	}
}

// WithStarveAfter given to controller-runtime's own New (which ignores
// it) leaves nothing behind once its Opts is collected.
func TestStarveAfterLeavesNothing(t *testing.T) {
	count := func() int {
		n := 0
		extraOpts.Range(func(any, any) bool { n++; return true })
		return n
	}
	before := count()
	func() {
		o := &Opts[string]{}
		WithStarveAfter[string](time.Second)(o)
		WithStarveAfter[string](2 * time.Second)(o)
		if count() != before+1 {
			t.Fatalf("%d entries, want %d", count(), before+1)
		}
	}()
	for end := time.Now().Add(20 * time.Second); count() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d entries 20 s after the Opts was let go of, %d before", count(), before)
		}
		runtime.GC()
	}
}
