package workqueue

// Tests that need no kernel: the limiters' kernel form, the bucket's
// arithmetic, and the ABI's layout against the C header (the layout file
// is written by a C program the build runs: WQ_LAYOUT_FILE).

import (
	"bufio"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestWqDefaultLimiterIsTheKernelDefault(t *testing.T) {
	lim, ok := kernelLimiter(DefaultTypedControllerRateLimiter[string]())
	if !ok {
		t.Fatal("the default limiter cannot be the kernel's")
	}
	want := wqLimiter{NrTerms: 2}
	want.Terms[0] = wqLimiterTerm{Kind: limiterExponential, A: 5000000, B: 1000000000000}
	want.Terms[1] = wqLimiterTerm{Kind: limiterBucket, A: 10000000000, B: 100}
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
			if n == 0 || lim.Terms[n-1].Kind != limiterMaxWait || lim.Terms[n-1].A != c.cap {
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

// The struct layouts against the C header's, as a C program printed them:
// "struct NAME SIZE" and "field NAME.FIELD OFFSET" lines.
func TestWqLayoutMatchesTheHeader(t *testing.T) {
	path := os.Getenv("WQ_LAYOUT_FILE")
	if path == "" {
		t.Skip("WQ_LAYOUT_FILE not set (make go-test writes it)")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	types := map[string]reflect.Type{
		"wq_limiter_term": reflect.TypeOf(wqLimiterTerm{}),
		"wq_limiter":      reflect.TypeOf(wqLimiter{}),
		"wq_create":       reflect.TypeOf(wqCreate{}),
		"wq_name":         reflect.TypeOf(wqName{}),
		"wq_add":          reflect.TypeOf(wqAdd{}),
		"wq_get":          reflect.TypeOf(wqGet{}),
		"wq_key":          reflect.TypeOf(wqKey{}),
		"wq_shutdown":     reflect.TypeOf(wqShutdown{}),
		"wq_queue_info":   reflect.TypeOf(wqQueueInfo{}),
		"wq_module_info":  reflect.TypeOf(wqModuleInfo{}),
	}
	checked := 0
	s := bufio.NewScanner(f)
	for s.Scan() {
		w := strings.Fields(s.Text())
		if len(w) != 3 {
			continue
		}
		want, _ := strconv.Atoi(w[2])
		switch w[0] {
		case "struct":
			typ, ok := types[w[1]]
			if !ok {
				t.Errorf("no Go type for struct %s", w[1])
				continue
			}
			if int(typ.Size()) != want {
				t.Errorf("struct %s: Go size %d, C size %d", w[1], typ.Size(), want)
			}
		case "field":
			sf := strings.SplitN(w[1], ".", 2)
			typ, ok := types[sf[0]]
			if !ok {
				t.Errorf("no Go type for struct %s", sf[0])
				continue
			}
			goName := strings.ReplaceAll(sf[1], "_", "")
			fld, ok := typ.FieldByNameFunc(func(n string) bool {
				return strings.EqualFold(n, goName)
			})
			if !ok {
				t.Errorf("struct %s: no Go field for %s", sf[0], sf[1])
				continue
			}
			if int(fld.Offset) != want {
				t.Errorf("%s: Go offset %d, C offset %d", w[1], fld.Offset, want)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d layout lines checked", checked)
	}
	if unsafe.Sizeof(wqAdd{}) != 40 {
		t.Errorf("struct wq_add: %d bytes", unsafe.Sizeof(wqAdd{}))
	}
}
