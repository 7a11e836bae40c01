package priorityqueue_test

import (
	"fmt"
	"time"

	"wq.dev/go/priorityqueue"
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
