package workqueue

// Tests that need no kernel: the limiters' kernel form and the bucket's
// arithmetic (the ABI's layout is checked in wq.dev/go/internal/kq).

import (
	"math"
	"strings"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
)

func TestWqDefaultLimiterIsTheKernelDefault(t *testing.T) {
	lim, ok := kernelLimiter(DefaultTypedControllerRateLimiter[string]())
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
	}
	for _, c := range cases {
		var l TypedRateLimiter[any]
		if c.l != nil {
			l = c.l
		}
		lim, ok := kernelLimiter(l)
		if ok != c.ok {
			t.Errorf("%s: convertible %v, want %v", c.name, ok, c.ok)
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
	if lim, _ := kernelLimiter(NewBucketRateLimiter(0.5, 3)); lim.Terms[0].A != 500000000 || lim.Terms[0].B != 3 {
		t.Errorf("bucket 0.5 qps, burst 3: %+v", lim.Terms[0])
	}
}

func TestWqBucketArithmetic(t *testing.T) {
	b := NewTypedBucketRateLimiter[int](1, 2)
	if d := b.When(1); d != 0 {
		t.Errorf("first token: %v", d)
	}
	if d := b.When(2); d != 0 {
		t.Errorf("second token: %v", d)
	}
	if d := b.When(3); d < 900*time.Millisecond || d > time.Second {
		t.Errorf("third token of 1 qps, burst 2: %v, want about 1s", d)
	}
	if b.NumRequeues(3) != 0 {
		t.Error("a bucket counts no item")
	}
	if d := NewTypedBucketRateLimiter[int](0, 0).When(1); d != infDuration {
		t.Errorf("burst 0: %v, want the longest Duration", d)
	}
	slow := NewTypedBucketRateLimiter[int](1e-10, 1)
	slow.When(1)
	if d := slow.When(1); d != infDuration {
		t.Errorf("1e-10 qps: %v, want the longest Duration (no overflow)", d)
	}
	if d := NewTypedBucketRateLimiter[int](math.Inf(1), 0).When(1); d != 0 {
		t.Errorf("infinite rate: %v", d)
	}
}
