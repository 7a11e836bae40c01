package workqueue

// A queue's life against the kernel: let go of in a reference cycle, a
// Get that the kernel fails, queues of this package given to others, a
// handle interrupted or closed under its calls.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
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

// An interrupted handle's Get returns EBADF even with a key ready (it does
// not take it), and its other calls go on.
func TestWqHandleInterruptWithKeyReady(t *testing.T) {
	kqtest.NeedKernel(t)
	h, err := kq.CreateQueue(kq.CreateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, _, e := h.Add([]byte("k"), 0, 0, 0); e != 0 {
		t.Fatal(e)
	}
	h.Interrupt()
	if _, _, e := h.Get(make([]byte, 8)); e != syscall.EBADF {
		t.Fatalf("Get after Interrupt: %v, want EBADF", e)
	}
	qi, e := h.Stat()
	if e != 0 || qi.Queued != 1 {
		t.Fatalf("Stat after Interrupt: %v, %d queued, want the key", e, qi.Queued)
	}
}

// Close while other goroutines call: each call either runs or returns
// EBADF, and none runs on the descriptor once Close has returned: not on
// a queue opened next, which likely gets the same descriptor number.
func TestWqHandleCloseUnderCalls(t *testing.T) {
	kqtest.NeedKernel(t)
	h, err := kq.CreateQueue(kq.CreateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	closed := make(chan struct{})
	bad := make(chan string, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(k []byte) {
			defer wg.Done()
			buf := make([]byte, 8)
			for {
				_, _, ea := h.Add(k, 0, 0, 0)
				_, _, eg := h.Get(buf)
				_, ed := h.KeyCall(kq.IocDone, k, 0)
				select {
				case <-closed:
					// Close returned before these calls began
					_, _, ea = h.Add(k, 0, 0, 0)
					_, _, eg = h.Get(buf)
					_, ed = h.KeyCall(kq.IocDone, k, 0)
					if ea != syscall.EBADF || eg != syscall.EBADF || ed != syscall.EBADF {
						bad <- fmt.Sprintf("after Close: add %v, get %v, done %v", ea, eg, ed)
					}
					return
				default:
				}
				for _, e := range []syscall.Errno{ea, eg, ed} {
					if e != 0 && e != syscall.EBADF && e != syscall.ENOENT {
						bad <- fmt.Sprintf("call: %v", e)
						return
					}
				}
			}
		}([]byte{byte('a' + i)})
	}
	time.Sleep(50 * time.Millisecond)
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	h2, err := kq.CreateQueue(kq.CreateOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer h2.Close()
	close(closed)
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("calls still running 10s after Close")
	}
	if qi, e := h2.Stat(); e != 0 || qi.Queued != 0 || qi.Keys != 0 {
		t.Errorf("the queue opened after Close: %v, %d queued, %d keys; want none", e, qi.Queued, qi.Keys)
	}
	close(bad)
	for m := range bad {
		t.Error(m)
	}
}
