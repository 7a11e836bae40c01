package priorityqueue_test

// A controller-runtime manager reconciling through this package's queue
// (controller.Options.NewQueue), fed by a channel source: no API server.
// controller-runtime takes the queue for its own priority queue, so the
// priorities its handler gives are kept, and its workqueue_* metrics
// count the queue. In the guests the queue is the kernel's.

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"wq.dev/go/internal/kqtest"
	"wq.dev/go/priorityqueue"
	wq "wq.dev/go/workqueue"
)

// runs counts the tests' runs: a queue's metrics stay in controller-runtime's
// registry, so each run (go test -count) names its queue anew.
var runs atomic.Int32

func runName(base string) string { return fmt.Sprintf("%s%d", base, runs.Add(1)) }

type prioritized struct {
	name     string
	priority int
}

// startManager starts a manager with one controller named name, of
// reconciler r, that takes this package's queue (NewQueue) and
// wq.dev/go/workqueue's limiter, and watches the channel it returns
// through h; stop ends it.
func startManager(t *testing.T, name string, r reconcile.Reconciler,
	h handler.TypedEventHandler[prioritized, reconcile.Request]) (chan<- event.TypedGenericEvent[prioritized], func()) {
	t.Helper()
	events := make(chan event.TypedGenericEvent[prioritized], 8)
	stop := startController(t, name, r,
		wq.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, 1000*time.Second),
		source.TypedChannel(events, h))
	return events, stop
}

// startController starts a manager with one controller named name, of
// reconciler r, that takes this package's queue (NewQueue) with
// rateLimiter (nil: controller-runtime's default) and watches src; stop
// ends it.
func startController(t *testing.T, name string, r reconcile.Reconciler,
	rateLimiter workqueue.TypedRateLimiter[reconcile.Request], src source.TypedSource[reconcile.Request]) (stop func()) {
	t.Helper()
	mgr, err := manager.New(&rest.Config{Host: "http://127.0.0.1:1"}, manager.Options{
		Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := controller.New(name, mgr, controller.Options{
		Reconciler:              r,
		MaxConcurrentReconciles: 1,
		NewQueue:                priorityqueue.NewQueue[reconcile.Request],
		RateLimiter:             rateLimiter,
		SkipNameValidation:      ptr.To(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestManagerReconcilesThroughThisQueue(t *testing.T) {
	name := runName("wqmanagertest")
	gate, started := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var order []string
	r := reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
		if req.Name == "first" {
			close(started)
			<-gate // the others are queued meanwhile
		}
		mu.Lock()
		order = append(order, req.Name)
		mu.Unlock()
		return reconcile.Result{}, nil
	})
	var backend wq.Backend
	var isPriorityQueue bool
	h := handler.TypedFuncs[prioritized, reconcile.Request]{
		GenericFunc: func(_ context.Context, e event.TypedGenericEvent[prioritized], q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			backend, _ = wq.BackendOf(q)
			pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request])
			isPriorityQueue = ok
			if ok {
				pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(e.Object.priority)},
					reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: e.Object.name}})
			}
		},
	}
	events, stop := startManager(t, name, r, h)
	defer stop()

	events <- event.TypedGenericEvent[prioritized]{Object: prioritized{"first", 0}}
	select { // the metrics alone can't say: adds counts before depth does
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("first was not handed out in a minute")
	}
	if w, a, d := count(name, "workqueue_work_duration_seconds"), adds(name), depth(name); w != 0 || a != 1 || d != 0 {
		t.Errorf("with first handed out: %d work durations, %v adds, depth %v; want 0, 1, 0", w, a, d)
	}
	for _, p := range []prioritized{{"low", -100}, {"mid", 0}, {"high", 10}} {
		events <- event.TypedGenericEvent[prioritized]{Object: p}
	}
	kqtest.WaitFor(t, "three queued", func() bool { return adds(name) == 4 })
	close(gate)
	kqtest.WaitFor(t, "four reconciled", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 4 })

	if !isPriorityQueue {
		t.Fatal("controller-runtime did not take the queue for a PriorityQueue")
	}
	if _, err := os.Stat("/dev/wq"); (err == nil || os.Getenv(kqtest.RequireEnv) != "") && backend != wq.BackendKernel {
		t.Errorf("the queue's backend is %v, with /dev/wq or %s", backend, kqtest.RequireEnv)
	}
	mu.Lock()
	if got := order; len(got) != 4 || got[1] != "high" || got[2] != "mid" || got[3] != "low" {
		t.Errorf("reconciled %v, want first, high, mid, low", got)
	}
	mu.Unlock()
	kqtest.WaitFor(t, "four work durations", func() bool { return count(name, "workqueue_work_duration_seconds") == 4 })
	if n := count(name, "workqueue_queue_duration_seconds"); n != 4 {
		t.Errorf("workqueue_queue_duration_seconds: %d observations, want 4", n)
	}
	for _, p := range []string{"10", "0", "-100"} {
		if v, ok := depthAt(name, p); !ok || v != 0 {
			t.Errorf("workqueue_depth at priority %s: %v (a series: %v), want a series at 0", p, v, ok)
		}
	}
	if n := adds(name); n != 4 {
		t.Errorf("workqueue_adds_total %v, want 4", n)
	}
	t.Logf("the queue's backend: %v", backend)
}

// series returns the metric family's series of the queue name.
func series(name, family string) []*dto.Metric {
	fams, _ := metrics.Registry.Gather()
	var out []*dto.Metric
	for _, f := range fams {
		if f.GetName() != family {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == name {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func adds(name string) float64 { return counter(name, "workqueue_adds_total") }

func depth(name string) float64 {
	var n float64
	for _, m := range series(name, "workqueue_depth") {
		n += m.GetGauge().GetValue()
	}
	return n
}

// depthAt returns the queue's depth at a priority, and whether there is a
// series of it.
func depthAt(name, priority string) (float64, bool) {
	for _, m := range series(name, "workqueue_depth") {
		for _, l := range m.GetLabel() {
			if l.GetName() == "priority" && l.GetValue() == priority {
				return m.GetGauge().GetValue(), true
			}
		}
	}
	return 0, false
}

func counter(name, family string) float64 {
	var n float64
	for _, m := range series(name, family) {
		n += m.GetCounter().GetValue()
	}
	return n
}

func count(name, family string) uint64 {
	var n uint64
	for _, m := range series(name, family) {
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}
