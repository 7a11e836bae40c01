package workqueue_test

// The package against client-go's own: the same types and signatures, a
// value of either package working with the other, and which backend a
// constructor gives (client-go's in-process queue where the kernel cannot
// serve it: a custom Queue, a fake clock, no /dev/wq). These run on the
// host and in the guests.

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"golang.org/x/time/rate"
	cg "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"wq.dev/go/internal/kqtest"
	"wq.dev/go/workqueue"
)

// Every function of client-go's package has its signature here (New,
// NewTyped and their config forms return this package's Typed, the one
// type of its own).
func TestWqSignaturesAreClientGos(t *testing.T) {
	same := []struct {
		name   string
		wq, cg any
	}{
		{"DefaultQueue", workqueue.DefaultQueue[string], cg.DefaultQueue[string]},
		{"SetProvider", workqueue.SetProvider, cg.SetProvider},
		{"ParallelizeUntil", workqueue.ParallelizeUntil, cg.ParallelizeUntil},
		{"WithChunkSize", workqueue.WithChunkSize, cg.WithChunkSize},
		{"NewDelayingQueue", workqueue.NewDelayingQueue, cg.NewDelayingQueue},
		{"NewDelayingQueueWithConfig", workqueue.NewDelayingQueueWithConfig, cg.NewDelayingQueueWithConfig},
		{"NewDelayingQueueWithCustomClock", workqueue.NewDelayingQueueWithCustomClock, cg.NewDelayingQueueWithCustomClock},
		{"NewDelayingQueueWithCustomQueue", workqueue.NewDelayingQueueWithCustomQueue, cg.NewDelayingQueueWithCustomQueue},
		{"NewNamedDelayingQueue", workqueue.NewNamedDelayingQueue, cg.NewNamedDelayingQueue},
		{"NewTypedDelayingQueue", workqueue.NewTypedDelayingQueue[int], cg.NewTypedDelayingQueue[int]},
		{"NewTypedDelayingQueueWithConfig", workqueue.NewTypedDelayingQueueWithConfig[int], cg.NewTypedDelayingQueueWithConfig[int]},
		{"TypedNewDelayingQueue", workqueue.TypedNewDelayingQueue[int], cg.TypedNewDelayingQueue[int]},
		{"NewRateLimitingQueue", workqueue.NewRateLimitingQueue, cg.NewRateLimitingQueue},
		{"NewRateLimitingQueueWithConfig", workqueue.NewRateLimitingQueueWithConfig, cg.NewRateLimitingQueueWithConfig},
		{"NewNamedRateLimitingQueue", workqueue.NewNamedRateLimitingQueue, cg.NewNamedRateLimitingQueue},
		{"NewRateLimitingQueueWithDelayingInterface", workqueue.NewRateLimitingQueueWithDelayingInterface, cg.NewRateLimitingQueueWithDelayingInterface},
		{"NewTypedRateLimitingQueue", workqueue.NewTypedRateLimitingQueue[int], cg.NewTypedRateLimitingQueue[int]},
		{"NewTypedRateLimitingQueueWithConfig", workqueue.NewTypedRateLimitingQueueWithConfig[int], cg.NewTypedRateLimitingQueueWithConfig[int]},
		{"DefaultControllerRateLimiter", workqueue.DefaultControllerRateLimiter, cg.DefaultControllerRateLimiter},
		{"DefaultItemBasedRateLimiter", workqueue.DefaultItemBasedRateLimiter, cg.DefaultItemBasedRateLimiter},
		{"DefaultTypedControllerRateLimiter", workqueue.DefaultTypedControllerRateLimiter[int], cg.DefaultTypedControllerRateLimiter[int]},
		{"DefaultTypedItemBasedRateLimiter", workqueue.DefaultTypedItemBasedRateLimiter[int], cg.DefaultTypedItemBasedRateLimiter[int]},
		{"NewItemExponentialFailureRateLimiter", workqueue.NewItemExponentialFailureRateLimiter, cg.NewItemExponentialFailureRateLimiter},
		{"NewItemFastSlowRateLimiter", workqueue.NewItemFastSlowRateLimiter, cg.NewItemFastSlowRateLimiter},
		{"NewMaxOfRateLimiter", workqueue.NewMaxOfRateLimiter, cg.NewMaxOfRateLimiter},
		{"NewWithMaxWaitRateLimiter", workqueue.NewWithMaxWaitRateLimiter, cg.NewWithMaxWaitRateLimiter},
		{"NewTypedItemExponentialFailureRateLimiter", workqueue.NewTypedItemExponentialFailureRateLimiter[int], cg.NewTypedItemExponentialFailureRateLimiter[int]},
		{"NewTypedItemFastSlowRateLimiter", workqueue.NewTypedItemFastSlowRateLimiter[int], cg.NewTypedItemFastSlowRateLimiter[int]},
		{"NewTypedMaxOfRateLimiter", workqueue.NewTypedMaxOfRateLimiter[int], cg.NewTypedMaxOfRateLimiter[int]},
		{"NewTypedWithMaxWaitRateLimiter", workqueue.NewTypedWithMaxWaitRateLimiter[int], cg.NewTypedWithMaxWaitRateLimiter[int]},
	}
	for _, c := range same {
		if a, b := reflect.TypeOf(c.wq), reflect.TypeOf(c.cg); a != b {
			t.Errorf("%s: %v, client-go's %v", c.name, a, b)
		}
	}
	// the queue's own type: client-go's method set
	var _ cg.TypedInterface[int] = workqueue.NewTyped[int]()
	var _ cg.Interface = workqueue.New()
	var _ cg.Interface = workqueue.NewNamed("")
	var _ cg.Interface = workqueue.NewWithConfig(cg.QueueConfig{})
}

// A client-go limiter on a queue of this package runs in Go with
// client-go's arithmetic; a limiter of this package on client-go's queue
// is client-go's; a queue of this package is client-go's interface.
func TestWqValuesOfEitherPackage(t *testing.T) {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(cg.NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		cg.TypedRateLimitingQueueConfig[string]{})
	defer q.ShutDown()
	var viaClientGo cg.TypedRateLimitingInterface[string] = q
	for i := 0; i < 3; i++ {
		viaClientGo.AddRateLimited("a")
	}
	if n := q.NumRequeues("a"); n != 3 {
		t.Errorf("NumRequeues of client-go's limiter on this queue: %d, want 3", n)
	}
	start := time.Now()
	if it, shut := q.Get(); shut || it != "a" {
		t.Fatalf("Get: %q %v", it, shut)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 1 ms delay took %v", d)
	}
	q.Forget("a")
	q.Done("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Errorf("NumRequeues after Forget: %d", n)
	}

	c := cg.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	defer c.ShutDown()
	c.AddRateLimited("b")
	if it, _ := c.Get(); it != "b" || c.NumRequeues("b") != 1 {
		t.Errorf("client-go's queue with this package's limiter: %q, %d requeues", it, c.NumRequeues("b"))
	}
	c.Done("b")

	// sample-controller's limiter: a bucket literal, run in Go
	lim := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second),
		&workqueue.TypedBucketRateLimiter[string]{Limiter: rate.NewLimiter(rate.Limit(50), 300)},
	)
	s := workqueue.NewTypedRateLimitingQueueWithConfig(lim, workqueue.TypedRateLimitingQueueConfig[string]{Name: "Foos"})
	defer s.ShutDown()
	s.AddRateLimited("ns/foo")
	if it, _ := s.Get(); it != "ns/foo" || s.NumRequeues("ns/foo") != 1 {
		t.Errorf("sample-controller's limiter: %q, %d requeues", it, s.NumRequeues("ns/foo"))
	}
}

type tracing struct {
	workqueue.Queue[string]
	touched int
}

func (q *tracing) Touch(item string) { q.touched++; q.Queue.Touch(item) }

// A custom Queue or a fake clock cannot be the kernel's: the queue is
// client-go's, and it behaves as client-go's (the Queue is used, the fake
// clock's delays pass when it steps, an earlier AddAfter wins).
func TestWqInProcessForACustomQueueOrAFakeClock(t *testing.T) {
	tq := &tracing{Queue: workqueue.DefaultQueue[string]()}
	q := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[string]{Queue: tq})
	if b, err := workqueue.BackendOf(q); b != workqueue.BackendInProcess || !errors.Is(err, workqueue.ErrCustomQueue) {
		t.Errorf("a custom Queue: %v %v", b, err)
	}
	q.Add("a")
	q.Add("a")
	if tq.touched != 1 || q.Len() != 1 {
		t.Errorf("custom Queue: touched %d times, Len %d", tq.touched, q.Len())
	}
	q.ShutDown()

	fc := clocktesting.NewFakeClock(time.Now())
	d := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: fc})
	defer d.ShutDown()
	if b, err := workqueue.BackendOf(d); b != workqueue.BackendInProcess || !errors.Is(err, workqueue.ErrFakeClock) {
		t.Errorf("a fake clock: %v %v", b, err)
	}
	d.AddAfter("x", 50*time.Millisecond)
	d.AddAfter("x", 10*time.Millisecond) // the earlier wins
	kqtest.WaitFor(t, "the fake clock's waiter", fc.HasWaiters)
	time.Sleep(20 * time.Millisecond)
	if d.Len() != 0 {
		t.Fatal("a delay passed before the fake clock stepped")
	}
	fc.Step(20 * time.Millisecond)
	kqtest.WaitFor(t, "x queued", func() bool { return d.Len() == 1 })
	it, _ := d.Get()
	d.Done(it)
	fc.Step(time.Second) // the later AddAfter was merged away: nothing more
	time.Sleep(20 * time.Millisecond)
	if d.Len() != 0 {
		t.Errorf("Len %d after the merged AddAfter's time: handed out twice", d.Len())
	}
	for _, c := range []clock.WithTicker{nil, clock.RealClock{}, &clock.RealClock{}} {
		r := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[int](),
			workqueue.TypedRateLimitingQueueConfig[int]{Clock: c})
		if b, err := workqueue.BackendOf(r); errors.Is(err, workqueue.ErrFakeClock) {
			t.Errorf("clock %T: %v %v", c, b, err)
		}
		r.ShutDown()
	}
}

// Without /dev/wq every constructor works, as client-go's queue; BackendOf
// says why; a shared queue's constructor returns the error.
func TestWqWithoutTheKernelIsClientGos(t *testing.T) {
	kqtest.NoKernel(t)
	q := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "nokernel"})
	b, err := workqueue.BackendOf(q)
	if b != workqueue.BackendInProcess || err == nil {
		t.Fatalf("BackendOf: %v %v", b, err)
	}
	t.Log(err)
	q.Add("a")
	q.AddAfter("b", time.Millisecond)
	for _, want := range []string{"a", "b"} {
		if it, shut := q.Get(); shut || it != want {
			t.Fatalf("Get: %q %v, want %q", it, shut, want)
		}
		q.Done(want)
	}
	q.ShutDown()
	if _, err := workqueue.NewSharedRateLimitingQueue(workqueue.SharedQueueConfig{Name: "x", Create: true}); err == nil {
		t.Error("a shared queue without /dev/wq")
	}
	if b, err := workqueue.BackendOf(42); b != workqueue.BackendUnknown || !errors.Is(err, workqueue.ErrNotOurs) {
		t.Errorf("BackendOf(42): %v %v", b, err)
	}
}

// With /dev/wq the plain constructors are the kernel's.
func TestWqWithTheKernelIsTheKernels(t *testing.T) {
	kqtest.NeedKernel(t)
	for name, q := range map[string]any{
		"NewTyped":                    workqueue.NewTyped[int](),
		"NewDelayingQueue":            workqueue.NewDelayingQueue(),
		"NewRateLimitingQueue":        workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter()),
		"with client-go's limiter":    workqueue.NewRateLimitingQueue(cg.DefaultControllerRateLimiter()),
		"over this package's queue":   workqueue.NewDelayingQueueWithCustomQueue(workqueue.New(), "q"),
		"NewDelayingQueueWithConfig":  workqueue.NewDelayingQueueWithConfig(workqueue.DelayingQueueConfig{Clock: clock.RealClock{}}),
		"NewNamedRateLimitingQueue":   workqueue.NewNamedRateLimitingQueue(workqueue.DefaultControllerRateLimiter(), "q"),
		"NewTypedRateLimitingQueue[]": workqueue.NewTypedRateLimitingQueue[int](nil),
	} {
		if b, err := workqueue.BackendOf(q); b != workqueue.BackendKernel || err != nil {
			t.Errorf("%s: %v %v", name, b, err)
		}
		q.(interface{ ShutDown() }).ShutDown()
	}
}
