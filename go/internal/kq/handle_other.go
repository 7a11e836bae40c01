//go:build !(linux && (amd64 || arm64 || riscv64 || loong64))

package kq

// Where wq's module cannot be (not Linux) or its ABI is laid out
// otherwise (32-bit, another ioctl encoding), the packages build but
// every queue fails to be made, with this error.

import (
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Handle is a /dev/wq file bound to a queue (none here).
type Handle struct{}

// ErrUnsupported is why no queue can be made here.
var ErrUnsupported = errors.New("/dev/wq needs 64-bit little-endian Linux (amd64, arm64, riscv64, loong64)")

// Error wraps the kernel's errno with the call that got it.
func Error(call string, e syscall.Errno) error { return fmt.Errorf("%s: %w", call, e) }

// Module returns zero limits.
func Module() *ModuleInfo { return &ModuleInfo{} }

// ModuleErr is ErrUnsupported.
func ModuleErr() error { return ErrUnsupported }

func readModule() (*ModuleInfo, error) { return &ModuleInfo{}, ErrUnsupported }

// CreateOpts says what queue CreateQueue makes.
type CreateOpts struct {
	Name     string
	Flags    uint32
	MaxItems uint32
	Mode     uint32
	Limiter  *Limiter
	StarveNs uint64
}

// CreateQueue fails.
func CreateQueue(CreateOpts) (*Handle, error) { return nil, ErrUnsupported }

// OpenNamed fails.
func OpenNamed(string) (*Handle, error) { return nil, ErrUnsupported }

// DestroyNamed fails.
func DestroyNamed(string) error { return ErrUnsupported }

// Add fails.
func (h *Handle) Add([]byte, uint32, time.Duration, int32) (int, time.Duration, syscall.Errno) {
	return 0, 0, syscall.ENOSYS
}

// KeyCall fails.
func (h *Handle) KeyCall(uintptr, []byte, uint32) (uint64, syscall.Errno) { return 0, syscall.ENOSYS }

// KeyState fails.
func (h *Handle) KeyState([]byte) (KeyInfo, syscall.Errno) { return KeyInfo{}, syscall.ENOSYS }

// Get returns EBADF.
func (h *Handle) Get([]byte) (int, int32, syscall.Errno) { return 0, 0, syscall.EBADF }

// MonotonicNs is 0.
func MonotonicNs() uint64 { return 0 }

// Shutdown fails.
func (h *Handle) Shutdown(uint32, func() bool) syscall.Errno { return syscall.ENOSYS }

// Stat fails.
func (h *Handle) Stat() (*QueueInfo, syscall.Errno) { return &QueueInfo{}, syscall.ENOSYS }

// Interrupt does nothing.
func (h *Handle) Interrupt() {}

// Close does nothing.
func (h *Handle) Close() error { return nil }
