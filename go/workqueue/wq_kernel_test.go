package workqueue

// Tests against the kernel (they skip without /dev/wq): what this package
// adds to client-go's own tests, which run against it unchanged.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/kqtest"
	"wq.dev/go/internal/limiters"
)

// Items of any comparable type, keys the kernel could not hold as bytes
// (empty, longer than 4096) included, come back as they went in; the
// package lets go of each once the kernel does.
func TestWqItemsOfAnyType(t *testing.T) {
	kqtest.NeedKernel(t)
	type point struct{ x, y int }
	q := NewTyped[any]()
	defer q.ShutDown()
	big := strings.Repeat("x", 10000)
	p := &point{1, 2}
	items := []any{"", big, point{3, 4}, p, 42, 42.5}
	for _, it := range items {
		q.Add(it)
	}
	q.Add(point{3, 4}) // the same item: coalesced
	if n := q.Len(); n != len(items) {
		t.Fatalf("Len %d, want %d", n, len(items))
	}
	for _, want := range items {
		got, shut := q.Get()
		if shut || got != want {
			t.Fatalf("Get: %v (shutdown %v), want %v", got, shut, want)
		}
		q.Done(got)
	}
	if n := q.b.In.Size(); n != 0 {
		t.Errorf("%d items still kept after their Done", n)
	}
	if b, err := BackendOf(q); b != BackendKernel || err != nil {
		t.Errorf("BackendOf: %v %v", b, err)
	}
}

// Two queues are two kernel queues.
func TestWqQueuesAreApart(t *testing.T) {
	kqtest.NeedKernel(t)
	a, b := NewTyped[string](), NewTyped[string]()
	defer a.ShutDown()
	defer b.ShutDown()
	a.Add("k")
	if b.Len() != 0 || a.Len() != 1 {
		t.Fatalf("Len %d and %d, want 1 and 0", a.Len(), b.Len())
	}
}

// A dirty item is queued again at Done and kept until its last Done.
func TestWqDirtyItemIsKept(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTyped[*int]()
	defer q.ShutDown()
	v := new(int)
	q.Add(v)
	got, _ := q.Get()
	q.Add(v) // dirty
	q.Done(got)
	if q.b.In.Size() != 1 || q.Len() != 1 {
		t.Fatalf("after the first Done: %d kept, Len %d", q.b.In.Size(), q.Len())
	}
	got, _ = q.Get()
	q.Done(got)
	if q.b.In.Size() != 0 {
		t.Errorf("%d kept after the last Done", q.b.In.Size())
	}
}

func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "Threads:") {
			n, _ := strconv.Atoi(strings.TrimSpace(l[8:]))
			return n
		}
	}
	t.Fatal("no Threads: in /proc/self/status")
	return 0
}

// 200 goroutines waiting in Get hold a handful of OS threads, not 200;
// ShutDown wakes them all.
func TestWqBlockedGettersHoldNoThreads(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTyped[int]()
	before := threads(t)
	var wg sync.WaitGroup
	got := make(chan int, 200)
	for i := 0; i < 200; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				it, shut := q.Get()
				if shut {
					return
				}
				got <- it
				q.Done(it)
			}
		}()
	}
	time.Sleep(500 * time.Millisecond)
	if n := threads(t); n > before+runtime.GOMAXPROCS(0)+8 {
		t.Errorf("%d threads with 200 getters waiting (%d before)", n, before)
	}
	for i := 0; i < 50; i++ {
		q.Add(i)
	}
	for i := 0; i < 50; i++ {
		select {
		case <-got:
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d of 50 items handed out", i)
		}
	}
	q.ShutDown()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("getters still waiting 30 s after ShutDown")
	}
}

// AddAfter waits in the kernel, never less than asked.
func TestWqAddAfter(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTypedDelayingQueue[string]()
	defer q.ShutDown()
	start := time.Now()
	q.AddAfter("later", 100*time.Millisecond)
	q.AddAfter("later", time.Hour) // keeps the earlier time
	if q.Len() != 0 {
		t.Fatal("queued before its delay")
	}
	it, shut := q.Get()
	if shut || it != "later" {
		t.Fatalf("Get: %q %v", it, shut)
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("handed out after %v, before its 100 ms", d)
	}
	q.Done(it)
}

// This package's limiter is the kernel's; a foreign one runs in Go.
func TestWqRateLimiters(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTypedRateLimitingQueue[string](NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second))
	defer q.ShutDown()
	if r := q.(*rateLimitingType[string]); !r.kernel {
		t.Fatal("the exponential limiter is not the kernel's")
	}
	for i := 0; i < 3; i++ {
		q.AddRateLimited("k")
	}
	if n := q.NumRequeues("k"); n != 3 {
		t.Errorf("NumRequeues %d, want 3 (the kernel's count)", n)
	}
	it, _ := q.Get()
	q.Forget(it)
	if n := q.NumRequeues("k"); n != 0 {
		t.Errorf("NumRequeues %d after Forget", n)
	}
	q.Done(it)

	f := NewTypedRateLimitingQueue[any](foreign{})
	defer f.ShutDown()
	if r := f.(*rateLimitingType[any]); r.kernel {
		t.Fatal("a foreign limiter is the kernel's")
	}
	start := time.Now()
	f.AddRateLimited("x") // foreign{}: 1 s
	it2, _ := f.Get()
	if d := time.Since(start); d < time.Second {
		t.Errorf("foreign limiter: handed out after %v, before its 1 s", d)
	}
	f.Done(it2)
}

type countingProvider struct {
	mu sync.Mutex
	n  map[string]int
}

type cm struct {
	p    *countingProvider
	name string
}

func (c cm) bump(what string) {
	c.p.mu.Lock()
	c.p.n[c.name+"."+what]++
	c.p.mu.Unlock()
}
func (c cm) Inc()            { c.bump("inc") }
func (c cm) Dec()            { c.bump("dec") }
func (c cm) Set(float64)     { c.bump("set") }
func (c cm) Observe(float64) { c.bump("observe") }

func (p *countingProvider) NewDepthMetric(string) GaugeMetric            { return cm{p, "depth"} }
func (p *countingProvider) NewAddsMetric(string) CounterMetric           { return cm{p, "adds"} }
func (p *countingProvider) NewLatencyMetric(string) HistogramMetric      { return cm{p, "latency"} }
func (p *countingProvider) NewWorkDurationMetric(string) HistogramMetric { return cm{p, "work"} }
func (p *countingProvider) NewRetriesMetric(string) CounterMetric        { return cm{p, "retries"} }
func (p *countingProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return cm{p, "unfinished"}
}
func (p *countingProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return cm{p, "longest"}
}

// A named queue reports client-go's calls for what the process did.
func TestWqMetrics(t *testing.T) {
	kqtest.NeedKernel(t)
	p := &countingProvider{n: map[string]int{}}
	q := NewTypedRateLimitingQueueWithConfig[string](DefaultTypedControllerRateLimiter[string](),
		TypedRateLimitingQueueConfig[string]{Name: "m", MetricsProvider: p})
	q.Add("a")
	q.Add("a") // coalesced: not counted
	it, _ := q.Get()
	q.Add("a") // dirty: counted
	q.Done(it) // queued again
	it, _ = q.Get()
	q.Done(it)
	q.AddAfter("b", time.Millisecond) // a retry; counted when handed out
	it, _ = q.Get()
	q.Done(it)
	// a delay that passes while the item is processing: queued at Done,
	// counted when handed out again
	q.Add("c")
	it, _ = q.Get()
	q.AddAfter("c", time.Millisecond)
	time.Sleep(20 * time.Millisecond)
	q.Done(it)
	it, _ = q.Get()
	q.Done(it)
	q.ShutDown()
	want := map[string]int{"adds.inc": 5, "depth.inc": 5, "depth.dec": 5,
		"latency.observe": 5, "work.observe": 5, "retries.inc": 2}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, v := range want {
		if p.n[k] != v {
			t.Errorf("%s: %d calls, want %d (all: %v)", k, p.n[k], v, p.n)
		}
	}
}

// Many goroutines add, take, finish and forget the same few items at
// once: the kernel hands out only items the process knows, and once all
// is done the package keeps none.
func TestWqInternerUnderConcurrency(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTypedRateLimitingQueue[int](NewTypedItemExponentialFailureRateLimiter[int](time.Microsecond, time.Millisecond))
	base := q.(*rateLimitingType[int]).Typed
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				if i%3 == 0 {
					q.AddRateLimited(i % 7)
				} else {
					q.Add((i + p) % 7)
				}
			}
		}(p)
	}
	var consumers sync.WaitGroup
	for c := 0; c < 4; c++ {
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			for {
				it, shut := q.Get()
				if shut {
					return
				}
				if it < 0 || it >= 7 {
					t.Errorf("Get: %d, not an item added", it)
				}
				q.Forget(it)
				q.Done(it)
			}
		}()
	}
	wg.Wait()
	close(stop)
	q.ShutDownWithDrain()
	consumers.Wait()
	for i := 0; i < 7; i++ { // what the last Forgets raced with
		q.Forget(i)
	}
	if n := base.b.In.Size(); n != 0 {
		t.Errorf("%d items kept after everything was done and forgotten", n)
	}
}

// The kernel's delays of this package's limiter are client-go's When.
func TestWqKernelLimiterIsClientGos(t *testing.T) {
	kqtest.NeedKernel(t)
	lim := NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 40*time.Millisecond),
		NewTypedItemFastSlowRateLimiter[string](3*time.Millisecond, 30*time.Millisecond, 2))
	kl, ok := limiters.Kernel(lim)
	if !ok {
		t.Fatal("not the kernel's")
	}
	k, err := kq.CreateQueue(kq.CreateOpts{Limiter: kl})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	golim := NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 40*time.Millisecond),
		NewTypedItemFastSlowRateLimiter[string](3*time.Millisecond, 30*time.Millisecond, 2))
	key := keyBytes("k")
	for i := 0; i < 10; i++ {
		_, d, e := k.Add(key, kq.AddRateLimited, 0, 0)
		if e != 0 {
			t.Fatal(e)
		}
		if want := golim.When("k"); d != want {
			t.Errorf("failure %d: the kernel waits %v, client-go %v", i+1, d, want)
		}
	}
}

// ---- shared queues ---------------------------------------------------------

func sharedName(t *testing.T) string {
	return fmt.Sprintf("go.%s.%d", strings.ToLower(t.Name()[6:]), os.Getpid())
}

func TestWqSharedQueue(t *testing.T) {
	kqtest.NeedKernel(t)
	name := sharedName(t)
	_, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name})
	if !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("open of an absent queue: %v, want ENOENT", err)
	}
	_, err = NewSharedRateLimitingQueue(SharedQueueConfig{Name: name, Create: true,
		Limiter: NewTypedMaxOfRateLimiter[string](foreignString{})})
	if !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("a foreign limiter: %v, want EINVAL", err)
	}
	q, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name, Create: true, MaxItems: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer destroy(name)
	defer q.Close()
	if err := q.TryAdd(""); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("empty key: %v", err)
	}
	if err := q.TryAdd(strings.Repeat("k", 4097)); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("4097-byte key: %v", err)
	}
	q.Add("a")
	q.Add("b")
	if err := q.TryAdd("c"); !errors.Is(err, syscall.EAGAIN) {
		t.Errorf("third key of MaxItems 2: %v, want EAGAIN", err)
	}
	q.Add("c")
	if q.Refused() != 1 {
		t.Errorf("Refused %d, want 1", q.Refused())
	}
	// a second handle of the same queue sees the same keys
	o, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := o.Get()
	if k != "a" {
		t.Errorf("other handle got %q", k)
	}
	o.Close() // held: put back
	o.Close() // idempotent
	if k, shut := o.Get(); !shut {
		t.Errorf("Get after Close: %q, not shutdown", k)
	}
	if q.Len() != 2 {
		t.Errorf("Len %d after the other handle closed holding a", q.Len())
	}
}

type foreignString struct{}

func (foreignString) When(string) time.Duration { return 0 }
func (foreignString) Forget(string)             {}
func (foreignString) NumRequeues(string) int    { return 0 }

func destroy(name string) {
	kq.DestroyNamed(name)
}

// Go, wqctl (C, libwq) and the queue: the same keys.
func TestWqSharedWithWqctl(t *testing.T) {
	kqtest.NeedKernel(t)
	wqctl, err := exec.LookPath("wqctl")
	if err != nil {
		t.Skip("no wqctl in PATH")
	}
	name := sharedName(t)
	q, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name, Create: true, Mode: 0600})
	if err != nil {
		t.Fatal(err)
	}
	defer destroy(name)
	defer q.Close()
	if out, err := exec.Command(wqctl, "add", name, "from-c").CombinedOutput(); err != nil {
		t.Fatalf("wqctl add: %v: %s", err, out)
	}
	if k, _ := q.Get(); k != "from-c" {
		t.Errorf("Go got %q", k)
	} else {
		q.Done(k)
	}
	q.Add("from-go")
	out, err := exec.Command(wqctl, "get", name, "--done").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "from-go" {
		t.Errorf("wqctl get: %v: %q", err, out)
	}
}

// A Get blocked on a shared handle returns shutdown when it is closed.
func TestWqSharedCloseWakesGet(t *testing.T) {
	kqtest.NeedKernel(t)
	name := sharedName(t)
	q, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer destroy(name)
	res := make(chan bool)
	go func() { _, shut := q.Get(); res <- shut }()
	time.Sleep(200 * time.Millisecond)
	q.Close()
	select {
	case shut := <-res:
		if !shut {
			t.Error("Get returned a key")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Get still blocked 30 s after Close")
	}
	runtime.KeepAlive(q)
}

// ShutDownWithDrain waits, as client-go's, for the items handed out, not
// for the queued ones: with the workers gone it returns at once, and Get
// still hands out what is queued.
func TestWqDrainWaitsForProcessingOnly(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTyped[string]()
	q.Add("a")
	q.Add("b")
	q.Add("c")
	it, _ := q.Get()
	drained := make(chan struct{})
	go func() { q.ShutDownWithDrain(); close(drained) }()
	select {
	case <-drained:
		t.Fatal("ShutDownWithDrain returned while an item was being processed")
	case <-time.After(100 * time.Millisecond):
	}
	q.Done(it)
	select {
	case <-drained:
	case <-time.After(20 * time.Second):
		t.Fatal("ShutDownWithDrain did not return after the last Done, with items queued")
	}
	if q.Len() != 2 {
		t.Errorf("Len %d after the drain, want the 2 queued", q.Len())
	}
	for _, want := range []string{"b", "c"} {
		if got, shut := q.Get(); shut || got != want {
			t.Errorf("Get after the drain: %q %v, want %q", got, shut, want)
		}
		q.Done(want)
	}
	if _, shut := q.Get(); !shut {
		t.Error("Get of an empty queue after the drain: not shutdown")
	}
}
