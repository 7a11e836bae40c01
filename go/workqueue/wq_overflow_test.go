package workqueue

// Adds the kernel queue has no room for wait in the process, in order,
// and go to the kernel as Done frees room: none is dropped (client-go's
// Add never fails). The tests make the private queues small.

import (
	"testing"
	"time"

	"wq.dev/go/internal/kqtest"
)

func smallQueues(t *testing.T, n uint32) {
	t.Helper()
	kqtest.NeedKernel(t)
	privateMaxItems = n
	t.Cleanup(func() { privateMaxItems = 0 })
}

func getAll(t *testing.T, q TypedInterface[int], n int) []int {
	t.Helper()
	var got []int
	for len(got) < n {
		res := make(chan int, 1)
		go func() {
			it, shut := q.Get()
			if shut {
				it = -1
			}
			res <- it
		}()
		select {
		case it := <-res:
			if it < 0 {
				t.Fatalf("shutdown after %v, want %d items", got, n)
			}
			got = append(got, it)
			q.Done(it)
		case <-time.After(20 * time.Second):
			t.Fatalf("Get still waits after %v, want %d items", got, n)
		}
	}
	return got
}

func TestWqAddsBeyondTheKernelsRoomWait(t *testing.T) {
	smallQueues(t, 4)
	q := NewTyped[int]()
	defer q.ShutDown()
	for i := 0; i < 10; i++ {
		q.Add(i)
	}
	q.Add(7) // waiting already: kept once
	if n := q.Len(); n != 10 {
		t.Errorf("Len %d, want 10 (4 in the kernel, 6 waiting for room)", n)
	}
	got := getAll(t, q, 10)
	for i, it := range got {
		if it != i {
			t.Fatalf("handed out %v, want 0..9 in order", got)
		}
	}
	if q.Refused() != 0 || q.Len() != 0 {
		t.Errorf("Refused %d, Len %d after all were handed out", q.Refused(), q.Len())
	}
}

// A ShutDown with adds waiting hands them all out before Get says
// shutdown, as client-go's hands out what is queued; the delayed ones
// are dropped, as client-go drops its waiting items.
func TestWqShutDownHandsOutTheWaitingAdds(t *testing.T) {
	smallQueues(t, 2)
	q := NewTypedDelayingQueue[int]()
	for i := 0; i < 5; i++ {
		q.Add(i)
	}
	q.AddAfter(100, time.Millisecond)
	q.ShutDown()
	q.Add(200) // ignored
	got := getAll(t, q, 5)
	for i, it := range got {
		if it != i {
			t.Fatalf("handed out %v, want 0..4 in order", got)
		}
	}
	if it, shut := q.Get(); !shut {
		t.Errorf("Get after the last waiting add: %d, not shutdown", it)
	}
}

// The metrics count an add that waited when it goes to the kernel.
func TestWqWaitingAddsInTheMetrics(t *testing.T) {
	smallQueues(t, 2)
	p := newValueProvider()
	q := NewTypedWithConfig(TypedQueueConfig[int]{Name: "overflow", MetricsProvider: p})
	defer q.ShutDown()
	for i := 0; i < 4; i++ {
		q.Add(i)
	}
	expectValues(t, p, map[string]float64{"depth": 2, "adds": 2})
	getAll(t, q, 4)
	expectValues(t, p, map[string]float64{"depth": 0, "adds": 4})
}
