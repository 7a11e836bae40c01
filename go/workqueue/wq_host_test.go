package workqueue

// Tests that need no kernel: which limiters are the kernel's and their
// kernel form (the ABI's layout is checked in wq.dev/go/internal/kq).

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/limiters"
)

func TestWqDefaultLimiterIsTheKernelDefault(t *testing.T) {
	lim, ok := limiters.Kernel(DefaultTypedControllerRateLimiter[string]())
	if !ok {
		t.Fatal("the default limiter cannot be the kernel's")
	}
	want := kq.Limiter{NrTerms: 2}
	want.Terms[0] = kq.LimiterTerm{Kind: kq.LimiterExponential, A: 5000000, B: 1000000000000}
	want.Terms[1] = kq.LimiterTerm{Kind: kq.LimiterBucket, A: 10000000000, B: 100}
	if *lim != want {
		t.Errorf("got %+v, want %+v (WQ_LIMITER_DEFAULT_INIT)", *lim, want)
	}
}

type foreign struct{}

func (foreign) When(any) time.Duration { return time.Second }
func (foreign) Forget(any)             {}
func (foreign) NumRequeues(any) int    { return 0 }

func TestWqLimiterKernelForms(t *testing.T) {
	exp := NewItemExponentialFailureRateLimiter(time.Millisecond, time.Second)
	fs := NewItemFastSlowRateLimiter(time.Millisecond, time.Minute, 3)
	nine := make([]TypedRateLimiter[any], 9)
	for i := range nine {
		nine[i] = exp
	}
	literal := &BucketRateLimiter{Limiter: rate.NewLimiter(1, 1)}
	cases := []struct {
		name  string
		l     RateLimiter
		terms int
		cap   uint64
		ok    bool
	}{
		{"none", nil, 0, 0, true},
		{"exponential", exp, 1, 0, true},
		{"fastslow", fs, 1, 0, true},
		{"max-of", NewMaxOfRateLimiter(exp, fs, NewBucketRateLimiter(0.5, 3)), 3, 0, true},
		{"capped max-of", NewWithMaxWaitRateLimiter(NewMaxOfRateLimiter(exp, fs), time.Minute), 2, uint64(time.Minute), true},
		{"two caps", NewWithMaxWaitRateLimiter(NewWithMaxWaitRateLimiter(exp, time.Minute), time.Second), 1, uint64(time.Second), true},
		{"a cap of 0", NewWithMaxWaitRateLimiter(exp, 0), 1, 0, true},
		{"a cap inside a max-of", NewMaxOfRateLimiter(NewWithMaxWaitRateLimiter(exp, time.Minute), fs), 0, 0, false},
		{"foreign", foreign{}, 0, 0, false},
		{"foreign inside", NewMaxOfRateLimiter(exp, foreign{}), 0, 0, false},
		{"nine terms", NewMaxOfRateLimiter(nine...), 0, 0, false},
		{"client-go's own", workqueue.NewItemExponentialFailureRateLimiter(time.Millisecond, time.Second), 0, 0, false},
		{"client-go's default", workqueue.DefaultControllerRateLimiter(), 0, 0, false},
		{"a bucket literal", literal, 0, 0, false},
		{"a bucket literal inside", NewMaxOfRateLimiter(exp, literal), 0, 0, false},
	}
	for _, c := range cases {
		var l TypedRateLimiter[any]
		if c.l != nil {
			l = c.l
		}
		lim, ok := limiters.Kernel(l)
		if ok != c.ok {
			t.Errorf("%s: the kernel's %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		n := int(lim.NrTerms)
		if c.cap != 0 || strings.Contains(c.name, "cap") {
			if n == 0 || lim.Terms[n-1].Kind != kq.LimiterMaxWait || lim.Terms[n-1].A != c.cap {
				t.Errorf("%s: no cap of %d in %+v", c.name, c.cap, lim)
			}
			n--
		}
		if n != c.terms {
			t.Errorf("%s: %d terms, want %d", c.name, n, c.terms)
		}
	}
	if lim, _ := limiters.Kernel[any](NewBucketRateLimiter(0.5, 3)); lim.Terms[0].A != 500000000 || lim.Terms[0].B != 3 {
		t.Errorf("bucket 0.5 qps, burst 3: %+v", lim.Terms[0])
	}
}

// The constructors return client-go's own limiters: the same types and,
// on their own, client-go's arithmetic (default_rate_limiters_test.go,
// client-go's, checks the numbers).
func TestWqLimitersAreClientGos(t *testing.T) {
	if _, ok := NewTypedItemExponentialFailureRateLimiter[int](time.Millisecond, time.Second).(*workqueue.TypedItemExponentialFailureRateLimiter[int]); !ok {
		t.Error("the exponential limiter is not client-go's")
	}
	if _, ok := DefaultTypedControllerRateLimiter[int]().(*workqueue.TypedMaxOfRateLimiter[int]); !ok {
		t.Error("the default limiter is not client-go's max-of")
	}
	b := NewTypedBucketRateLimiter[int](1, 2)
	if b.Limiter.Limit() != 1 || b.Limiter.Burst() != 2 {
		t.Errorf("bucket: %v qps, burst %d", b.Limiter.Limit(), b.Limiter.Burst())
	}
	if b.When(1) != 0 || b.When(2) != 0 {
		t.Error("a full bucket of 2 made a wait")
	}
	if d := b.When(3); d < 900*time.Millisecond || d > time.Second {
		t.Errorf("third token of 1 qps, burst 2: %v, want about 1s", d)
	}
}
