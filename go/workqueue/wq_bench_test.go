package workqueue_test

// make bench's Go figures (bench/guest runs these with -test.bench): the
// package's single-key cycle and one producer with one consumer, against
// an in-process stand-in of client-go's queue (the same algorithm: a
// mutex, a condition variable, a slice and two sets), in the same guest.
// client-go itself cannot be vendored here; compare with it by putting
// its queue in place of the stand-in.

import (
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"wq.dev/go/internal/kq"
	"wq.dev/go/internal/kqtest"
	"wq.dev/go/workqueue"
)

// standin: client-go's Typed queue, reduced to what the figures use.
type standin struct {
	mu         sync.Mutex
	cond       *sync.Cond
	queue      []string
	dirty      map[string]struct{}
	processing map[string]struct{}
	shutdown   bool
}

func newStandin() *standin {
	s := &standin{dirty: map[string]struct{}{}, processing: map[string]struct{}{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

func (s *standin) Add(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.dirty[k]; ok || s.shutdown {
		return
	}
	s.dirty[k] = struct{}{}
	if _, ok := s.processing[k]; ok {
		return
	}
	s.queue = append(s.queue, k)
	s.cond.Signal()
}

func (s *standin) Get() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == 0 && !s.shutdown {
		s.cond.Wait()
	}
	if len(s.queue) == 0 {
		return "", true
	}
	k := s.queue[0]
	s.queue = s.queue[1:]
	s.processing[k] = struct{}{}
	delete(s.dirty, k)
	return k, false
}

func (s *standin) Done(k string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.processing, k)
	if _, ok := s.dirty[k]; ok {
		s.queue = append(s.queue, k)
		s.cond.Signal()
	}
}

func (s *standin) ShutDown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shutdown = true
	s.cond.Broadcast()
}

type benchQueue interface {
	Add(string)
	Get() (string, bool)
	Done(string)
	ShutDown()
}

func cycle(b *testing.B, q benchQueue) {
	defer q.ShutDown()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q.Add("ns/pod-1")
		k, _ := q.Get()
		q.Done(k)
	}
}

func kernelQueue(b *testing.B) *workqueue.Typed[string] {
	q := workqueue.NewTyped[string]()
	if _, err := workqueue.BackendOf(q); err != nil {
		b.Fatal(err)
	}
	return q
}

// The single-key cycle: Add, Get, Done of one key, one goroutine.
func BenchmarkWqBenchCycle(b *testing.B) {
	kqtest.NeedKernel(b)
	cycle(b, kernelQueue(b))
}

func BenchmarkWqBenchCycleStandin(b *testing.B) {
	cycle(b, newStandin())
}

func p1c1(b *testing.B, q benchQueue) {
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/pod-%d", i)
	}
	// at most 1024 keys in flight: every key added is new and handed out
	window := make(chan struct{}, 1024)
	done := make(chan struct{})
	b.ResetTimer()
	go func() {
		for n := 0; n < b.N; n++ {
			k, _ := q.Get()
			q.Done(k)
			<-window
		}
		close(done)
	}()
	for i := 0; i < b.N; i++ {
		window <- struct{}{}
		q.Add(keys[i%len(keys)])
	}
	<-done
	b.StopTimer()
	q.ShutDown()
}

// One producer and one consumer goroutine: time per key.
func BenchmarkWqBenchP1C1(b *testing.B) {
	kqtest.NeedKernel(b)
	p1c1(b, kernelQueue(b))
}

func BenchmarkWqBenchP1C1Standin(b *testing.B) {
	p1c1(b, newStandin())
}

// The cycle's layers, for the profile: the same Add, Get, Done through
// the internal handle (its gate and checks, no interner, no metrics),
// and as three bare ioctls on structs made once (Go's system call and
// nothing else).
func BenchmarkWqBenchCycleHandle(b *testing.B) {
	kqtest.NeedKernel(b)
	h, err := kq.CreateQueue(kq.CreateOpts{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	key, buf := []byte("ns/pod-1"), make([]byte, 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, e := h.Add(key, 0, 0, 0); e != 0 {
			b.Fatal("add: ", e)
		}
		n, _, e := h.Get(buf)
		if e != 0 {
			b.Fatal("get: ", e)
		}
		if _, e := h.KeyCall(kq.IocDone, buf[:n], kq.KeyResultState); e != 0 {
			b.Fatal("done: ", e)
		}
	}
}

func BenchmarkWqBenchCycleRaw(b *testing.B) {
	kqtest.NeedKernel(b)
	fd, err := syscall.Open(kq.DevPath, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer syscall.Close(fd)
	c := &kq.Create{Flags: kq.CreatePrivate}
	key, buf := []byte("ns/pod-1"), make([]byte, 8)
	a, g := &kq.Add{}, &kq.Get{}
	d := &kq.Key{Flags: kq.KeyResultState, KeyLen: 8, Key: unsafe.Pointer(&buf[0])}
	ioctl := func(req uintptr, arg unsafe.Pointer) syscall.Errno {
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg))
		return e
	}
	if e := ioctl(kq.IocCreate, unsafe.Pointer(c)); e != 0 {
		b.Fatal(e)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// the kernel writes results back into fields it wants zero
		*a = kq.Add{KeyLen: 8, Key: unsafe.Pointer(&key[0])}
		*g = kq.Get{Flags: kq.GetNonblock, Buf: unsafe.Pointer(&buf[0]), BufCap: 8}
		ea := ioctl(kq.IocAdd, unsafe.Pointer(a))
		eg := ioctl(kq.IocGet, unsafe.Pointer(g))
		if ed := ioctl(kq.IocDone, unsafe.Pointer(d)); ea|eg|ed != 0 {
			b.Fatal("add, get, done: ", ea, eg, ed)
		}
	}
	runtime.KeepAlive(key)
	runtime.KeepAlive(buf)
}
