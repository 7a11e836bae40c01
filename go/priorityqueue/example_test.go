package priorityqueue_test

import (
	"fmt"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"wq.dev/go/priorityqueue"
	wq "wq.dev/go/workqueue"
)

// syncObject stands for a controller's sync of one object.
func syncObject(key string) error { return nil }

// A controller's worker, as controller-runtime's: the item comes with its
// priority, and a retry keeps it.
func ExampleNew() {
	q := priorityqueue.New[string]("pods")
	defer q.ShutDown()

	low := -100
	q.AddWithOpts(priorityqueue.AddOpts{Priority: &low}, "ns/unchanged-1", "ns/unchanged-2")
	q.Add("ns/changed") // priority 0: handed out first

	for q.Len() > 0 {
		key, priority, shutdown := q.GetWithPriority()
		if shutdown {
			return
		}
		if err := syncObject(key); err != nil {
			q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true, Priority: &priority}, key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
		fmt.Println(key, priority)
	}
}

// The calls beyond controller-runtime's: what the kernel holds of an
// item, and cancelling its delay.
func ExampleQueue_State() {
	q, ok := priorityqueue.New[string]("").(*priorityqueue.Queue[string])
	if !ok {
		return // controller-runtime's in-process queue: no /dev/wq here
	}
	defer q.ShutDown()
	q.AddAfter("ns/pod-1", time.Minute)
	if s := q.State("ns/pod-1"); s.Waiting {
		fmt.Println("ready at", s.ReadyAt)
	}
	q.CancelAfter("ns/pod-1")
}

// A controller whose queue survives its container restarting: the
// controller's NewQueue option on wq.dev/go/workqueue's restart-safe
// queue, named for the controller. It is client-go's interface, so
// controller-runtime keeps no priorities on it. The limiter controller-
// runtime passes was made by client-go, whose state the kernel cannot
// take over: nil is wq's DefaultTypedControllerRateLimiter, client-go's
// default kept in the kernel.
func Example_restartSafe() {
	newQueue := func(name string, _ workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		q, err := wq.NewTypedRestartSafeQueue(nil,
			wq.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
		if err != nil {
			panic(err) // no /dev/wq: a restart-safe queue has no fallback
		}
		return q
	}
	_ = controller.Options{NewQueue: newQueue}
}
