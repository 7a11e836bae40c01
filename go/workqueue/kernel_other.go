//go:build !(linux && (amd64 || arm64 || riscv64 || loong64))

package workqueue

// Where wq's module cannot be (not Linux) or its ABI is laid out
// otherwise (32-bit, another ioctl encoding), the package builds but every
// queue fails to be made: Err says why, the queue is shut down from the
// start.

import (
	"errors"
	"syscall"
	"time"
)

type kq struct{}

var errUnsupported = errors.New("workqueue: /dev/wq needs 64-bit little-endian Linux (amd64, arm64, riscv64, loong64)")

func module() *wqModuleInfo { return &wqModuleInfo{} }

func createKQ(string, uint32, uint32, *wqLimiter) (*kq, error) { return nil, errUnsupported }

func openNamedKQ(string) (*kq, error) { return nil, errUnsupported }

func destroyNamed(string) error { return errUnsupported }

func (k *kq) add([]byte, uint32, time.Duration) (int, time.Duration, syscall.Errno) {
	return 0, 0, syscall.ENOSYS
}

func (k *kq) keyCall(uintptr, []byte, uint32) (uint64, syscall.Errno) { return 0, syscall.ENOSYS }

func (k *kq) get([]byte) (int, syscall.Errno) { return 0, syscall.EBADF }

func (k *kq) shutdown(uint32, func() bool) syscall.Errno { return syscall.ENOSYS }

func (k *kq) stat() (*wqQueueInfo, syscall.Errno) { return &wqQueueInfo{}, syscall.ENOSYS }

func (k *kq) close() error { return nil }
