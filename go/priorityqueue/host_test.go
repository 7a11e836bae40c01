package priorityqueue

// Tests that need no kernel.

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
	"wq.dev/go/workqueue"
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
	if lim, ok := kq.LimiterOf(workqueue.DefaultTypedControllerRateLimiter[string]()); !ok || lim.NrTerms != 2 {
		t.Errorf("the default controller limiter: %+v %v", lim, ok)
	}
	type item struct{ ns, name string }
	if _, ok := kq.LimiterOf(workqueue.NewTypedItemExponentialFailureRateLimiter[item](time.Millisecond, time.Second)); !ok {
		t.Error("an exponential limiter of a struct item is not the kernel's")
	}
	if _, ok := kq.LimiterOf(&goLimiter{}); ok {
		t.Error("a foreign limiter is the kernel's")
	}
	if _, ok := kq.LimiterOf(opts.RateLimiter); !ok {
		t.Error("no limiter cannot be the kernel's (none)")
	}
}

// Without /dev/wq the queue is shut down from the start, and says why.
func TestNoKernelShutsDown(t *testing.T) {
	if _, err := os.Stat(kq.DevPath); err == nil {
		t.Skip("/dev/wq is there")
	}
	q := New[string]("nokernel", func(o *Opts[string]) { o.MetricProvider = newFakeMetrics() })
	pq := q.(*Queue[string])
	if err := pq.Err(); err == nil || !strings.HasPrefix(err.Error(), "priorityqueue: ") {
		t.Fatalf("Err without /dev/wq: %v", err)
	}
	q.AddWithOpts(AddOpts{Priority: prio(3)}, "a", "b")
	q.Add("c")
	q.AddRateLimited("d")
	if !q.ShuttingDown() || q.Len() != 0 {
		t.Errorf("ShuttingDown %v, Len %d", q.ShuttingDown(), q.Len())
	}
	if it, p, shut := q.GetWithPriority(); !shut || it != "" || p != 0 {
		t.Errorf("GetWithPriority: %q %d %v", it, p, shut)
	}
	if s := pq.State("a"); s.Held() || pq.CancelAfter("a") {
		t.Errorf("State %v", s)
	}
	q.Done("a")
	q.Forget("a")
	q.ShutDown()
	q.ShutDownWithDrain()
}
