package workqueue_test

import (
	"errors"
	"fmt"
	"sync"

	"wq.dev/go/workqueue"
)

// reconcile stands for a controller's sync of one object.
func reconcile(key string) error {
	if key == "ns/broken" {
		return errors.New("not yet")
	}
	return nil
}

// A controller's loop, as with client-go's queue: workers take keys, a
// failure is retried with the rate limiter's backoff, a success forgets
// the key's failures, and the shutdown drains what is in flight.
func Example_controller() {
	q := workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "pods"})

	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if err := reconcile(key); err != nil && q.NumRequeues(key) < 5 {
					q.AddRateLimited(key) // retry, backing off
				} else {
					q.Forget(key)
				}
				q.Done(key)
			}
		}()
	}

	q.Add("ns/pod-1")
	q.Add("ns/pod-2")
	q.Add("ns/pod-1") // queued already: coalesced
	q.ShutDownWithDrain()
	wg.Wait()
	fmt.Println("drained")
	// Output: drained
}

// A queue shared with C programs (libwq), wqctl and kernel modules.
func ExampleNewSharedRateLimitingQueue() {
	q, err := workqueue.NewSharedRateLimitingQueue(workqueue.SharedQueueConfig{
		Name: "jobs", Create: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.Close()
	if err := q.TryAdd("ns/pod-1"); err != nil { // `wqctl get jobs` sees it
		fmt.Println(err)
	}
}
