package workqueue

// A queue's life against the kernel: let go of in a reference cycle, a
// Get that the kernel fails, queues of this package given to others.

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/kqtest"
)

// wqFiles counts this process's open /dev/wq files.
func wqFiles(t *testing.T) int {
	t.Helper()
	fds, err := filepath.Glob("/proc/self/fd/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && l == kq.DevPath {
			n++
		}
	}
	return n
}

// holder is an item that holds its queue: the queue is in a cycle.
type holder struct{ q *Typed[*holder] }

// A queue let go of is closed (its kernel queue freed) also when it is in
// a reference cycle, where a finalizer would never run.
func TestWqQueueInACycleIsLetGo(t *testing.T) {
	kqtest.NeedKernel(t)
	before := wqFiles(t)
	func() {
		q := NewTyped[*holder]()
		q.Add(&holder{q})
	}()
	for end := time.Now().Add(20 * time.Second); wqFiles(t) > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d /dev/wq files open 20 s after the queue was let go of, %d before", wqFiles(t), before)
		}
		runtime.GC()
	}
}

// A Get the kernel fails for good (a key longer than the queue's own)
// says shutdown instead of asking again forever.
func TestWqGetErrorEndsGets(t *testing.T) {
	kqtest.NeedKernel(t)
	q := NewTyped[int]()
	defer q.ShutDown()
	if _, _, e := q.b.K.Add(make([]byte, 64), 0, 0, 0); e != 0 {
		t.Fatal(e)
	}
	res := make(chan bool, 1)
	go func() { _, shut := q.Get(); res <- shut }()
	select {
	case shut := <-res:
		if !shut {
			t.Error("Get returned an item")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get still retries after 20 s")
	}
}

// A rate-limiting queue given as another's DelayingQueue, or a delaying
// queue as a Queue, is still the kernel's.
func TestWqQueuesGivenToOthersStayKernel(t *testing.T) {
	kqtest.NeedKernel(t)
	rl := NewTypedRateLimitingQueue[string](DefaultTypedControllerRateLimiter[string]())
	defer rl.ShutDown()
	d := NewTypedDelayingQueue[string]()
	defer d.ShutDown()
	for what, q := range map[string]any{
		"rate-limiting as DelayingQueue": NewTypedRateLimitingQueueWithConfig(foreignString{}, TypedRateLimitingQueueConfig[string]{DelayingQueue: rl}),
		"delaying as DelayingQueue":      NewTypedRateLimitingQueueWithConfig(foreignString{}, TypedRateLimitingQueueConfig[string]{DelayingQueue: d}),
		"rate-limiting as Queue":         NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[string]{Queue: rl}),
		"delaying as Queue":              NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[string]{Queue: d}),
	} {
		if b, err := BackendOf(q); b != BackendKernel {
			t.Errorf("%s: %v (%v)", what, b, err)
		}
	}
}
