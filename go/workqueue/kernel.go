//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package workqueue

// kq: one /dev/wq handle bound to a queue, and the calls the package makes
// on it. The handle is non-blocking and registered with the runtime's
// poller (os.NewFile), so a goroutine waiting in Get parks instead of
// holding an OS thread: it asks for a key without waiting and, when there
// is none, waits for the handle to become readable (a key queued, or the
// queue shutting down). Waiting getters take turns on the file's read
// lock; the other calls go straight to the kernel.
//
// The kernel reads and writes keys through the structs' pointers (typed
// unsafe.Pointer: the garbage collector sees them, and what they point to
// is on the heap, never on a stack that may move); each is kept alive
// across its call. 64-bit little-endian Linux with the generic ioctl
// encoding only (kernel_other.go elsewhere).

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

type kq struct {
	f  *os.File
	rc syscall.RawConn
}

// ioctl runs one ioctl on fd; arg points to the command's struct.
func ioctl(fd uintptr, req uintptr, arg unsafe.Pointer) (int, syscall.Errno) {
	r, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	return int(r), e
}

// openKQ opens /dev/wq and binds it with req (iocCreate or iocOpen) and its
// struct.
func openKQ(call string, req uintptr, arg unsafe.Pointer) (*kq, error) {
	fd, err := syscall.Open(devPath, syscall.O_RDWR|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("workqueue: open %s: %w", devPath, err)
	}
	if _, e := ioctl(uintptr(fd), req, arg); e != 0 {
		syscall.Close(fd)
		return nil, kqError(call, e)
	}
	f := os.NewFile(uintptr(fd), devPath)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("workqueue: %s: %w", call, err)
	}
	return &kq{f: f, rc: rc}, nil
}

var (
	moduleInfoOnce sync.Once
	moduleInfo     wqModuleInfo
)

// module: the module's limits (zero if /dev/wq cannot say).
func module() *wqModuleInfo {
	moduleInfoOnce.Do(func() {
		fd, err := syscall.Open(devPath, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return
		}
		ioctl(uintptr(fd), iocModuleInfo, unsafe.Pointer(&moduleInfo))
		syscall.Close(fd)
	})
	return &moduleInfo
}

// createKQ makes a queue: private if name is "", else named.
func createKQ(name string, maxItems uint32, mode uint32, lim *wqLimiter) (*kq, error) {
	c := &wqCreate{MaxItems: maxItems, Mode: mode}
	call := "create"
	if name == "" {
		c.Flags = createPrivate
	} else {
		call = fmt.Sprintf("create %q", name)
		if len(name) >= nameMax {
			return nil, kqError(call, syscall.EINVAL)
		}
		copy(c.Name[:], name)
	}
	if lim != nil {
		c.Limiter = *lim
	}
	return openKQ(call, iocCreate, unsafe.Pointer(c))
}

// openNamedKQ opens the named queue for reading and writing.
func openNamedKQ(name string) (*kq, error) {
	call := fmt.Sprintf("open %q", name)
	if len(name) >= nameMax {
		return nil, kqError(call, syscall.EINVAL)
	}
	n := &wqName{}
	copy(n.Name[:], name)
	return openKQ(call, iocOpen, unsafe.Pointer(n))
}

// destroyNamed removes a queue's name (handles keep the queue).
func destroyNamed(name string) error {
	call := fmt.Sprintf("destroy %q", name)
	if len(name) >= nameMax {
		return kqError(call, syscall.EINVAL)
	}
	fd, err := syscall.Open(devPath, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("workqueue: open %s: %w", devPath, err)
	}
	defer syscall.Close(fd)
	n := &wqName{}
	copy(n.Name[:], name)
	if _, e := ioctl(uintptr(fd), iocDestroy, unsafe.Pointer(n)); e != 0 {
		return kqError(call, e)
	}
	return nil
}

// call runs a command that does not wait; EBADF once the handle is closed.
func (k *kq) call(req uintptr, arg unsafe.Pointer) (int, syscall.Errno) {
	var r int
	e := syscall.EBADF
	if err := k.rc.Control(func(fd uintptr) { r, e = ioctl(fd, req, arg) }); err != nil {
		return -1, syscall.EBADF
	}
	return r, e
}

// add adds key (flags addAfter with delay, addRateLimited): what the add
// did (added*), and the delay the limiter chose (addRateLimited).
func (k *kq) add(key []byte, flags uint32, delay time.Duration) (int, time.Duration, syscall.Errno) {
	if len(key) == 0 {
		return 0, 0, syscall.EINVAL
	}
	a := &wqAdd{Flags: flags, KeyLen: uint32(len(key)), Key: unsafe.Pointer(&key[0])}
	if flags&addAfter != 0 && delay > 0 {
		a.DelayNs = uint64(delay)
	}
	_, e := k.call(iocAdd, unsafe.Pointer(a))
	runtime.KeepAlive(key)
	return int(a.Outcome), time.Duration(a.DelayNs), e
}

// keyCall is DONE, FORGET (with the key's state after it as the result)
// or NUM_REQUEUES (the count).
func (k *kq) keyCall(req uintptr, key []byte, flags uint32) (uint64, syscall.Errno) {
	if len(key) == 0 {
		return 0, syscall.EINVAL
	}
	kk := &wqKey{Flags: flags, KeyLen: uint32(len(key)), Key: unsafe.Pointer(&key[0])}
	r, e := k.call(req, unsafe.Pointer(kk))
	runtime.KeepAlive(key)
	if req == iocNumRequeues {
		return kk.Value, e
	}
	return uint64(r), e
}

// get takes the head key into buf, waiting through the poller while the
// queue is empty; the key's length. ESHUTDOWN once it shuts down and is
// empty; EBADF once the handle is closed.
func (k *kq) get(buf []byte) (int, syscall.Errno) {
	g := &wqGet{}
	n, e := 0, syscall.Errno(0)
	err := k.rc.Read(func(fd uintptr) bool {
		*g = wqGet{Flags: getNonblock, Buf: unsafe.Pointer(&buf[0]), BufCap: uint32(len(buf))}
		n, e = ioctl(fd, iocGet, unsafe.Pointer(g))
		return e != syscall.EAGAIN
	})
	runtime.KeepAlive(buf)
	if err != nil {
		return 0, syscall.EBADF
	}
	return n, e
}

func monotonicNs() uint64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// drainSlice: how long one drain call waits before the caller looks again
// (whether a ShutDown meanwhile means it should stop, whether the handle
// is being closed: a call holds it open).
const drainSlice = 100 * time.Millisecond

// shutdown: flags 0 (ShutDown) or shutdownDrain, which waits until nothing
// is queued or processing, in slices, for as long as stop() says false; a
// kernel drain returns ECANCELED when a ShutDown came meanwhile.
func (k *kq) shutdown(flags uint32, stop func() bool) syscall.Errno {
	for {
		s := &wqShutdown{Flags: flags}
		if flags&shutdownDrain != 0 {
			s.DeadlineNs = monotonicNs() + uint64(drainSlice)
		}
		_, e := k.call(iocShutdown, unsafe.Pointer(s))
		switch e {
		case syscall.EINTR, syscall.ETIMEDOUT:
			if stop == nil || stop() {
				return syscall.ECANCELED
			}
			continue
		}
		return e
	}
}

// stat: the queue's numbers.
func (k *kq) stat() (*wqQueueInfo, syscall.Errno) {
	qi := &wqQueueInfo{}
	_, e := k.call(iocStat, unsafe.Pointer(qi))
	return qi, e
}

// close lets go of the handle: keys it took and did not finish go back to
// the queue, and a private queue is freed. Idempotent.
func (k *kq) close() error {
	if err := k.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}
