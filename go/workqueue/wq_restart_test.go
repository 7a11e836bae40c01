package workqueue

// A restart-safe queue across a real process restart: a child process
// (this test binary again) takes a key and dies without its Done; the
// next process gets it back, with the failures and the delays the dead
// one left.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/kqtest"
)

type objectName struct{ Namespace, Name string } // as client-go's cache.ObjectName

const restartChildEnv = "WQ_RESTART_CHILD"

func restartSafeQueue(t *testing.T, name string) TypedRateLimitingInterface[objectName] {
	t.Helper()
	q, err := NewTypedRestartSafeQueue(NewTypedItemExponentialFailureRateLimiter[objectName](time.Millisecond, time.Hour),
		TypedRateLimitingQueueConfig[objectName]{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// The child: take a key, fail it twice (backoff), leave a delayed key,
// and die with the key in hand.
func TestWqRestartSafeChild(t *testing.T) {
	name := os.Getenv(restartChildEnv)
	if name == "" {
		t.Skip("run by TestWqRestartSafe")
	}
	q := restartSafeQueue(t, name)
	it, shut := q.Get()
	if shut || it != (objectName{"ns", "a"}) {
		t.Fatalf("child Get: %v %v", it, shut)
	}
	q.AddRateLimited(objectName{"ns", "b"}) // failures of b: 1, 2
	q.AddRateLimited(objectName{"ns", "b"})
	q.AddAfter(objectName{"ns", "later"}, 300*time.Millisecond)
	syscall.Exit(0) // no Done, no ShutDown: as a crash (os.Exit(0) in a test panics)
}

func TestWqRestartSafe(t *testing.T) {
	kqtest.NeedKernel(t)
	name := fmt.Sprintf("go.restartsafe.%d", os.Getpid())
	defer kq.DestroyNamed(name)
	q := restartSafeQueue(t, name)
	q.Add(objectName{"ns", "a"})
	q.ShutDown() // this process stops using it; the queue and "a" stay
	if it, shut := q.Get(); !shut {
		t.Fatalf("Get after ShutDown: %v", it)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestWqRestartSafeChild$")
	cmd.Env = append(os.Environ(), restartChildEnv+"="+name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}

	q = restartSafeQueue(t, name)
	defer q.ShutDown()
	if b, err := BackendOf(q); b != BackendKernel || err != nil {
		t.Errorf("BackendOf: %v %v", b, err)
	}
	got := map[objectName]bool{}
	for len(got) < 3 {
		it, shut := q.Get()
		if shut {
			t.Fatal("shutdown")
		}
		got[it] = true
		q.Done(it)
	}
	for _, want := range []string{"a", "b", "later"} {
		if !got[objectName{"ns", want}] {
			t.Errorf("%s did not come back: %v", want, got)
		}
	}
	if n := q.NumRequeues(objectName{"ns", "b"}); n != 2 {
		t.Errorf("NumRequeues of b after the restart: %d, want the dead process's 2", n)
	}
	q.Forget(objectName{"ns", "b"})
	if n := q.NumRequeues(objectName{"ns", "b"}); n != 0 {
		t.Errorf("NumRequeues after Forget: %d", n)
	}
}

// What cannot be kept by value, or without the kernel's backoff, is
// refused when the queue is made.
func TestWqRestartSafeRefuses(t *testing.T) {
	type unexported struct{ ns, name string }
	if _, err := NewTypedRestartSafeQueue[unexported](nil, TypedRateLimitingQueueConfig[unexported]{Name: "x"}); err == nil {
		t.Error("a struct of unexported fields")
	}
	if _, err := NewTypedRestartSafeQueue[*objectName](nil, TypedRateLimitingQueueConfig[*objectName]{Name: "x"}); err == nil {
		t.Error("a pointer")
	}
	if _, err := NewTypedRestartSafeQueue[string](foreignString{}, TypedRateLimitingQueueConfig[string]{Name: "x"}); err == nil {
		t.Error("a limiter that runs in Go")
	}
	if _, err := NewTypedRestartSafeQueue[string](nil, TypedRateLimitingQueueConfig[string]{}); err == nil {
		t.Error("no name")
	}
	c, err := newCodec[objectName]()
	if err != nil {
		t.Fatal(err)
	}
	k, _ := c.encode(objectName{"ns", "a"})
	if back, err := c.decode(k); err != nil || back != (objectName{"ns", "a"}) || string(k) != `{"Namespace":"ns","Name":"a"}` {
		t.Errorf("encode %s, decode %v %v", k, back, err)
	}
}

// A key another writer made, whose bytes decode to an item without being
// its encoding (another field order, as a C program may write it), is
// handed out and its Done ends that key in the kernel: nothing stays
// processing, the drain returns, and a new Add queues it again.
func TestWqRestartSafeForeignKeyIsDone(t *testing.T) {
	kqtest.NeedKernel(t)
	name := fmt.Sprintf("go.rsforeign.%d", os.Getpid())
	defer kq.DestroyNamed(name)
	q := restartSafeQueue(t, name)
	other, err := NewSharedRateLimitingQueue(SharedQueueConfig{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	other.Add(`{"Name":"a", "Namespace":"ns"}`)
	it, shut := q.Get()
	if shut || it != (objectName{"ns", "a"}) {
		t.Fatalf("Get: %v %v", it, shut)
	}
	q.Done(it)
	if qi, e := other.k.Stat(); e != 0 || qi.Processing != 0 || qi.Keys != 0 {
		t.Errorf("after the Done: processing %d, keys %d (%v), want 0 and 0", qi.Processing, qi.Keys, e)
	}
	drained := make(chan struct{})
	go func() { q.ShutDownWithDrain(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(20 * time.Second):
		t.Fatal("ShutDownWithDrain still waits 20 s after the Done")
	}
}

// Close releases a drain: the keys the handle held went back to the
// queue, whether or not their Done came after.
func TestWqRestartSafeCloseReleasesDrain(t *testing.T) {
	kqtest.NeedKernel(t)
	name := fmt.Sprintf("go.rsclose.%d", os.Getpid())
	defer kq.DestroyNamed(name)
	for _, doneAfterClose := range []bool{true, false} {
		q := restartSafeQueue(t, name)
		q.Add(objectName{"ns", "a"})
		it, _ := q.Get()
		q.(interface{ Close() error }).Close()
		if doneAfterClose {
			q.Done(it)
		}
		drained := make(chan struct{})
		go func() { q.ShutDownWithDrain(); close(drained) }()
		select {
		case <-drained:
		case <-time.After(20 * time.Second):
			t.Fatalf("ShutDownWithDrain after Close (Done after it: %v) still waits after 20 s", doneAfterClose)
		}
	}
}

// A create the kernel refuses for another reason than the name being
// taken returns that error (not the open's ENOENT).
func TestWqRestartSafeCreateError(t *testing.T) {
	kqtest.NeedKernel(t)
	_, err := NewTypedRestartSafeQueue[string](nil, TypedRateLimitingQueueConfig[string]{Name: "kernel.go.rs"})
	if !errors.Is(err, syscall.EACCES) {
		t.Errorf("a kernel. name: %v, want the create's EACCES", err)
	}
}
