package priorityqueue_test

// controller-runtime's own sources of priorities, under a manager, on
// this package's queue with controller-runtime's default limiter
// (client-go's, which runs in Go): WithLowPriorityWhenUnchanged (an
// object of the initial list, an update that changed nothing), a
// reconciler's Result.Priority on an error's requeue and on a
// RequeueAfter. In the guests the queue is the kernel's.

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"wq.dev/go/internal/kqtest"
	"wq.dev/go/priorityqueue"
	wq "wq.dev/go/workqueue"
)

// sourcesReconciler: "gate" and "hold" wait for their channel; "errs"
// fails once, asking priority 7 for its retry, and at the retry records
// what the queue says of it; "later" asks to come back in an hour at
// priority 7. It records the order.
type sourcesReconciler struct {
	gate, hold  chan struct{}
	reconciling chan string
	mu          sync.Mutex
	q           priorityqueue.PriorityQueue[reconcile.Request]
	order       []string
	failed      bool
	requeues    int                      // NumRequeues of errs at its retry
	state       *priorityqueue.ItemState // the kernel's, then
}

func (r *sourcesReconciler) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.reconciling <- req.Name
	switch req.Name {
	case "gate":
		<-r.gate
	case "hold":
		<-r.hold
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order = append(r.order, req.Name)
	switch {
	case req.Name == "errs" && !r.failed:
		r.failed = true
		return reconcile.Result{Priority: ptr.To(7)}, errors.New("the first try fails")
	case req.Name == "errs":
		r.requeues = r.q.NumRequeues(req)
		if k, ok := r.q.(*priorityqueue.Queue[reconcile.Request]); ok {
			s := k.State(req)
			r.state = &s
		}
	case req.Name == "later":
		return reconcile.Result{RequeueAfter: time.Hour, Priority: ptr.To(7)}, nil
	}
	return reconcile.Result{}, nil
}

func configMap(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func request(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// startSources starts the controller with controller-runtime's default
// limiter and a source that hands its queue over.
func startSources(t *testing.T, name string, r reconcile.Reconciler) (priorityqueue.PriorityQueue[reconcile.Request], func()) {
	t.Helper()
	queues := make(chan workqueue.TypedRateLimitingInterface[reconcile.Request], 1)
	src := source.TypedFunc[reconcile.Request](func(_ context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
		queues <- q
		return nil
	})
	stop := startController(t, name, r, nil, src)
	q := <-queues
	pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request])
	if !ok {
		stop()
		t.Fatalf("controller-runtime gave the source a %T, not a PriorityQueue", q)
	}
	if b, err := wq.BackendOf(pq); (kernelThere() && b != wq.BackendKernel) || b == wq.BackendUnknown {
		stop()
		t.Fatalf("the queue's backend is %v (%v)", b, err)
	}
	return pq, stop
}

func kernelThere() bool {
	_, err := os.Stat("/dev/wq")
	return err == nil || os.Getenv(kqtest.RequireEnv) != ""
}

func TestManagerKeepsControllerRuntimesPriorities(t *testing.T) {
	name := runName("wqprioritysources")
	r := &sourcesReconciler{gate: make(chan struct{}), hold: make(chan struct{}), reconciling: make(chan string, 16)}
	q, stop := startSources(t, name, r)
	defer stop()
	r.mu.Lock()
	r.q = q
	r.mu.Unlock()
	h := handler.WithLowPriorityWhenUnchanged(&handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{})
	ctx := context.Background()

	h.Create(ctx, event.TypedCreateEvent[*corev1.ConfigMap]{Object: configMap("gate", "1")}, q)
	waitReconciling(t, r, "gate")
	h.Create(ctx, event.TypedCreateEvent[*corev1.ConfigMap]{Object: configMap("init", "1"), IsInInitialList: true}, q)
	h.Update(ctx, event.TypedUpdateEvent[*corev1.ConfigMap]{ObjectOld: configMap("same", "1"), ObjectNew: configMap("same", "1")}, q)
	h.Update(ctx, event.TypedUpdateEvent[*corev1.ConfigMap]{ObjectOld: configMap("changed", "1"), ObjectNew: configMap("changed", "2")}, q)
	for _, n := range []string{"errs", "hold", "later"} {
		h.Create(ctx, event.TypedCreateEvent[*corev1.ConfigMap]{Object: configMap(n, "1")}, q)
	}
	kqtest.WaitFor(t, "six queued", func() bool { return q.Len() == 6 })
	expectDepths(t, name, map[string]float64{"0": 4, "-100": 2})

	close(r.gate) // changed, errs (fails: its retry at 7, after the limiter's 5 ms), hold
	waitReconciling(t, r, "changed", "errs")
	for seen := map[string]bool{}; len(seen) < 2; { // hold, and the retry, in either order
		n := nextReconcile(t, r)
		if n == "hold" {
			if !seen["errs"] { // hold until the retry is ready: later, init, same, errs
				kqtest.WaitFor(t, "the retry ready", func() bool { return q.Len() == 4 })
			}
			close(r.hold)
		}
		if seen[n] || (n != "hold" && n != "errs") {
			t.Fatalf("reconciling %s, want the retry of errs and hold", n)
		}
		seen[n] = true
	}
	waitReconciling(t, r, "later", "init", "same")
	kqtest.WaitFor(t, "eight reconciled", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.order) == 8 })

	r.mu.Lock()
	// the retry at 7 goes ahead of what was queued at 0 and -100
	if got := strings.Join(r.order, " "); got != "gate changed errs errs hold later init same" &&
		got != "gate changed errs hold errs later init same" {
		t.Errorf("reconciled %s, want gate changed errs, errs and hold, later init same", got)
	}
	if r.requeues != 1 {
		t.Errorf("NumRequeues at the retry: %d, want 1 (controller-runtime's limiter, in Go)", r.requeues)
	}
	if s := r.state; kernelThere() && (s == nil || !s.Processing || s.Priority != 7 || s.Requeues != 0) {
		t.Errorf("the retry in the kernel: %+v, want processing at 7, no failures of a kernel limiter", s)
	}
	r.mu.Unlock()
	kqtest.WaitFor(t, "eight work durations", func() bool { return count(name, "workqueue_work_duration_seconds") == 8 })
	expectDepths(t, name, map[string]float64{"0": 0, "-100": 0, "7": 0})
	if a, rt := adds(name), counter(name, "workqueue_retries_total"); a != 8 || rt != 2 {
		t.Errorf("workqueue_adds_total %v, workqueue_retries_total %v, want 8 and 2", a, rt)
	}
	if k, ok := q.(*priorityqueue.Queue[reconcile.Request]); ok {
		if s := k.State(request("later")); !s.Waiting || s.Priority != 7 {
			t.Errorf("the RequeueAfter in the kernel: %+v, want waiting at 7", s)
		}
	}
}

// waitReconciling waits for the reconciles of names to start, in order.
func waitReconciling(t *testing.T, r *sourcesReconciler, names ...string) {
	t.Helper()
	for _, want := range names {
		if got := nextReconcile(t, r); got != want {
			t.Fatalf("reconciling %s, want %s", got, want)
		}
	}
}

func nextReconcile(t *testing.T, r *sourcesReconciler) string {
	t.Helper()
	select {
	case got := <-r.reconciling:
		return got
	case <-time.After(20 * time.Second):
		t.Fatal("no reconcile starts after 20 s")
	}
	return ""
}

func expectDepths(t *testing.T, name string, want map[string]float64) {
	t.Helper()
	for p, w := range want {
		if v, ok := depthAt(name, p); !ok || v != w {
			t.Errorf("workqueue_depth at priority %s: %v (a series: %v), want %v", p, v, ok, w)
		}
	}
}
