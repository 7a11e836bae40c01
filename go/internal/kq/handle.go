//go:build linux && (amd64 || arm64 || riscv64 || loong64)

package kq

// Handle: one /dev/wq file bound to a queue, and the calls the packages
// make on it. The file is non-blocking and registered with the runtime's
// poller (os.NewFile), so a goroutine waiting in Get parks instead of
// holding an OS thread: it asks for a key without waiting and, when there
// is none, waits for the file to become readable (a key queued, or the
// queue shutting down). Waiting getters take turns on the file's read
// lock; the other calls, and a Get's first try, go straight to the kernel
// on the descriptor (held open by the handle's gate, not by a closure
// through the poller: no allocation).
//
// The kernel reads and writes keys through the structs' pointers (typed
// unsafe.Pointer: the garbage collector sees them); a struct and what it
// points to may be on the calling goroutine's stack, which does not move
// during a system call, and each is kept alive across its call. 64-bit
// little-endian Linux with the generic ioctl encoding only
// (handle_other.go elsewhere).

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// Handle is a /dev/wq file bound to a queue.
type Handle struct {
	f  *os.File
	rc syscall.RawConn
	fd uintptr

	// gate is read-held by each direct call, which checks closing under
	// it; Close sets closing, then takes the gate to wait for the calls
	// already in, so that the descriptor is never used once closed.
	gate        sync.RWMutex
	closing     atomic.Bool // Close began: new calls return EBADF
	interrupted atomic.Bool // Interrupt: Gets return EBADF
}

// Error wraps the kernel's errno with the call that got it, so that
// errors.Is(err, syscall.EEXIST) works.
func Error(call string, e syscall.Errno) error {
	return fmt.Errorf("%s: %w", call, e)
}

// ioctl runs one ioctl on fd; arg points to the command's struct. arg
// stays an unsafe.Pointer up to the system call's own argument list, so
// that what it points to is kept alive and in place (a uintptr would not).
func ioctl(fd uintptr, req uintptr, arg unsafe.Pointer) (int, syscall.Errno) {
	r, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	return int(r), e
}

// open opens /dev/wq and binds it with req (IocCreate or IocOpen) and its
// struct.
func open(call string, req uintptr, arg unsafe.Pointer) (*Handle, error) {
	fd, err := syscall.Open(DevPath, syscall.O_RDWR|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", DevPath, err)
	}
	if _, e := ioctl(uintptr(fd), req, arg); e != 0 {
		syscall.Close(fd)
		return nil, Error(call, e)
	}
	f := os.NewFile(uintptr(fd), DevPath)
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", call, err)
	}
	return &Handle{f: f, rc: rc, fd: uintptr(fd)}, nil
}

// devPath is DevPath, where the module's information is read (a test
// points it elsewhere).
var devPath = DevPath

// The module's information, read from /dev/wq: once it was read it is
// kept (the module's limits and features do not change while it is
// loaded); until then each call tries again, so that a process started
// before the module was loaded makes kernel queues once it is.
var (
	moduleMu   sync.Mutex
	moduleRead bool
	moduleInfo ModuleInfo
)

func readModule() (*ModuleInfo, error) {
	moduleMu.Lock()
	defer moduleMu.Unlock()
	if moduleRead {
		return &moduleInfo, nil
	}
	fd, err := syscall.Open(devPath, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &ModuleInfo{}, fmt.Errorf("open %s: %w", devPath, err)
	}
	defer syscall.Close(fd)
	mi := &ModuleInfo{}
	if _, e := ioctl(uintptr(fd), IocModuleInfo, unsafe.Pointer(mi)); e != 0 {
		return &ModuleInfo{}, Error(devPath+": module info", e)
	}
	moduleInfo, moduleRead = *mi, true
	return &moduleInfo, nil
}

// Module returns the module's limits and features (zero if /dev/wq
// cannot say: ModuleErr tells why).
func Module() *ModuleInfo {
	mi, _ := readModule()
	return mi
}

// ModuleErr says why /dev/wq could not tell its module's information
// (not there, not a wq module), or nil.
func ModuleErr() error {
	_, err := readModule()
	return err
}

// CreateOpts says what queue CreateQueue makes.
type CreateOpts struct {
	Name     string // "": a private queue (CreatePrivate is added)
	Flags    uint32 // Create*
	MaxItems uint32
	Mode     uint32
	Limiter  *Limiter // nil: none
	StarveNs uint64   // with CreatePriority
}

// CreateQueue makes a queue and binds a new handle to it.
func CreateQueue(o CreateOpts) (*Handle, error) {
	c := &Create{Flags: o.Flags, MaxItems: o.MaxItems, Mode: o.Mode, StarveNs: o.StarveNs}
	call := "create"
	if o.Name == "" {
		c.Flags |= CreatePrivate
	} else {
		call = fmt.Sprintf("create %q", o.Name)
		if len(o.Name) >= NameMax {
			return nil, Error(call, syscall.EINVAL)
		}
		copy(c.Name[:], o.Name)
	}
	if o.Limiter != nil {
		c.Limiter = *o.Limiter
	}
	return open(call, IocCreate, unsafe.Pointer(c))
}

// OpenNamed opens the named queue for reading and writing.
func OpenNamed(name string) (*Handle, error) {
	call := fmt.Sprintf("open %q", name)
	if len(name) >= NameMax {
		return nil, Error(call, syscall.EINVAL)
	}
	n := &Name{}
	copy(n.Name[:], name)
	return open(call, IocOpen, unsafe.Pointer(n))
}

// DestroyNamed removes a queue's name (handles keep the queue).
func DestroyNamed(name string) error {
	call := fmt.Sprintf("destroy %q", name)
	if len(name) >= NameMax {
		return Error(call, syscall.EINVAL)
	}
	fd, err := syscall.Open(DevPath, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", DevPath, err)
	}
	defer syscall.Close(fd)
	n := &Name{}
	copy(n.Name[:], name)
	if _, e := ioctl(uintptr(fd), IocDestroy, unsafe.Pointer(n)); e != 0 {
		return Error(call, e)
	}
	return nil
}

// call runs a command that does not wait for the poller; EBADF once the
// handle is closed.
func (h *Handle) call(req uintptr, arg unsafe.Pointer) (int, syscall.Errno) {
	if h.closing.Load() {
		return -1, syscall.EBADF
	}
	h.gate.RLock()
	defer h.gate.RUnlock()
	if h.closing.Load() { // Close began after the check above
		return -1, syscall.EBADF
	}
	return ioctl(h.fd, req, arg)
}

// Add adds key with flags (Add*): delay with AddAfter, prio with
// AddPriority. It returns what the add did (Added*) and the delay the
// kernel used (the limiter's with AddRateLimited).
func (h *Handle) Add(key []byte, flags uint32, delay time.Duration, prio int32) (int, time.Duration, syscall.Errno) {
	if len(key) == 0 {
		return 0, 0, syscall.EINVAL
	}
	a := &Add{Flags: flags, KeyLen: uint32(len(key)), Key: unsafe.Pointer(&key[0])}
	if flags&AddAfter != 0 && delay > 0 {
		a.DelayNs = uint64(delay)
	}
	if flags&AddPriority != 0 {
		a.Priority = prio
	}
	_, e := h.call(IocAdd, unsafe.Pointer(a))
	runtime.KeepAlive(key)
	return int(a.Outcome), time.Duration(a.DelayNs), e
}

// KeyCall is DONE, FORGET (with KeyResultState: the key's state after it
// as the result), NUM_REQUEUES (the count) or CANCEL_AFTER (1 if a
// waiting copy was dropped).
func (h *Handle) KeyCall(req uintptr, key []byte, flags uint32) (uint64, syscall.Errno) {
	if len(key) == 0 {
		return 0, syscall.EINVAL
	}
	kk := &Key{Flags: flags, KeyLen: uint32(len(key)), Key: unsafe.Pointer(&key[0])}
	r, e := h.call(req, unsafe.Pointer(kk))
	runtime.KeepAlive(key)
	if req == IocNumRequeues {
		return kk.Value, e
	}
	return uint64(r), e
}

// KeyState asks what the queue holds of key.
func (h *Handle) KeyState(key []byte) (KeyInfo, syscall.Errno) {
	if len(key) == 0 {
		return KeyInfo{}, syscall.EINVAL
	}
	ks := &KeyInfo{KeyLen: uint32(len(key)), Key: unsafe.Pointer(&key[0])}
	_, e := h.call(IocKeyState, unsafe.Pointer(ks))
	runtime.KeepAlive(key)
	ks.Key = nil
	return *ks, e
}

// Get takes the head key into buf, waiting through the poller while the
// queue is empty: the key's length and priority. ESHUTDOWN once the queue
// shuts down and is empty; EBADF once the handle is closed or interrupted.
// A Get that finds a key ready takes it without the poller, so it may
// come before Gets already waiting.
func (h *Handle) Get(buf []byte) (int, int32, syscall.Errno) {
	if h.interrupted.Load() {
		return 0, 0, syscall.EBADF
	}
	g := Get{Flags: GetNonblock, Buf: unsafe.Pointer(&buf[0]), BufCap: uint32(len(buf))}
	n, e := h.call(IocGet, unsafe.Pointer(&g))
	runtime.KeepAlive(buf)
	if e != syscall.EAGAIN {
		return n, g.Priority, e
	}
	return h.waitGet(buf)
}

// waitGet is Get of an empty queue: its tries, between waits for the
// file to be readable, go through the poller.
func (h *Handle) waitGet(buf []byte) (int, int32, syscall.Errno) {
	g := &Get{}
	n, e := 0, syscall.Errno(0)
	err := h.rc.Read(func(fd uintptr) bool {
		*g = Get{Flags: GetNonblock, Buf: unsafe.Pointer(&buf[0]), BufCap: uint32(len(buf))}
		n, e = ioctl(fd, IocGet, unsafe.Pointer(g))
		return e != syscall.EAGAIN
	})
	runtime.KeepAlive(buf)
	if err != nil {
		return 0, 0, syscall.EBADF
	}
	return n, g.Priority, e
}

// MonotonicNs reads CLOCK_MONOTONIC, the kernel's clock of deadlines and
// ready times.
func MonotonicNs() uint64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}

// drainSlice: how long one drain call waits before the caller looks again
// (whether a ShutDown meanwhile means it should stop, whether the handle
// is being closed: a call holds it open).
const drainSlice = 100 * time.Millisecond

// Shutdown: flags 0 (ShutDown), ShutdownDiscard, or ShutdownDrain, which
// waits until nothing is queued or processing, in slices, for as long as
// stop() says false; a kernel drain returns ECANCELED when a shutdown
// without ShutdownDrain came meanwhile.
func (h *Handle) Shutdown(flags uint32, stop func() bool) syscall.Errno {
	for {
		s := &Shutdown{Flags: flags}
		if flags&ShutdownDrain != 0 {
			s.DeadlineNs = MonotonicNs() + uint64(drainSlice)
		}
		_, e := h.call(IocShutdown, unsafe.Pointer(s))
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

// Stat returns the queue's numbers.
func (h *Handle) Stat() (*QueueInfo, syscall.Errno) {
	qi := &QueueInfo{}
	_, e := h.call(IocStat, unsafe.Pointer(qi))
	return qi, e
}

// Interrupt makes every Get waiting on the handle, and every later one,
// return EBADF at once, a key ready or not (the handle stays open for the
// other calls): how a queue that leaves its kernel queue running stops
// its getters.
func (h *Handle) Interrupt() {
	h.interrupted.Store(true)
	h.f.SetReadDeadline(time.Unix(1, 0))
}

// Close lets go of the handle: keys it took and did not finish go back to
// the queue, and a private queue is freed. Idempotent.
func (h *Handle) Close() error {
	// no new calls, and waiting Gets woken, while a drain's slice ends
	h.closing.Store(true)
	h.f.SetReadDeadline(time.Unix(1, 0))
	h.gate.Lock() // the calls already in have ended
	h.gate.Unlock()
	if err := h.f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}
