package workqueue

// The ioctl ABI of /dev/wq, as uapi/linux/wq.h defines it: command
// numbers, flags and the structs the package passes, laid out as the C
// header lays them out on 64-bit Linux (wq_host_test.go checks sizes and
// offsets against the header). The user pointers of the structs are
// unsafe.Pointer (8 bytes, as the header's __u64), so that the garbage
// collector sees them and the memory they point to is never on a stack.

import "unsafe"

const (
	devPath    = "/dev/wq"
	keyMax     = 4096 // WQ_KEY_MAX
	nameMax    = 64   // WQ_NAME_MAX
	termsMax   = 8    // WQ_LIMITER_TERMS_MAX
	deadlineNo = ^uint64(0)

	limiterExponential = 1
	limiterBucket      = 2
	limiterFastSlow    = 3
	limiterMaxWait     = 4

	createPrivate = 1 << 0 // WQ_CREATE_PRIVATE

	addRateLimited = 1 << 0 // WQ_ADD_RATE_LIMITED
	addAfter       = 1 << 2 // WQ_ADD_AFTER

	addedQueued    = 0 // WQ_ADDED_QUEUED
	addedCoalesced = 1 // WQ_ADDED_COALESCED
	addedDirty     = 2 // WQ_ADDED_DIRTY

	getNonblock = 1 << 0 // WQ_GET_NONBLOCK

	keyResultState = 1 << 0 // WQ_KEY_RESULT_STATE

	shutdownDrain = 1 << 0 // WQ_SHUTDOWN_DRAIN

	stateShuttingDown = 1 << 0 // WQ_STATE_SHUTTING_DOWN
)

type wqLimiterTerm struct {
	Kind  uint32
	Count uint32
	A     uint64 // base_ns, rate, fast_ns, max_ns
	B     uint64 // max_ns, burst, slow_ns, reserved
}

type wqLimiter struct {
	NrTerms  uint32
	Reserved uint32
	Terms    [termsMax]wqLimiterTerm
}

type wqCreate struct {
	Flags      uint32
	MaxItems   uint32
	Mode       uint32
	MaxTracked uint32
	Name       [nameMax]byte
	Limiter    wqLimiter
}

type wqName struct {
	Flags    uint32
	Reserved uint32
	Name     [nameMax]byte
}

type wqAdd struct {
	Flags      uint32
	KeyLen     uint32
	Key        unsafe.Pointer
	DelayNs    uint64
	DeadlineNs uint64
	Outcome    uint32
	Reserved   uint32
}

type wqGet struct {
	Flags      uint32
	KeyLen     uint32
	Buf        unsafe.Pointer
	BufCap     uint32
	Reserved   uint32
	DeadlineNs uint64
}

type wqKey struct {
	Flags  uint32
	KeyLen uint32
	Key    unsafe.Pointer
	Value  uint64
}

type wqModuleInfo struct {
	ABIVersion        uint32
	KeyMax            uint32
	MaxQueues         uint32
	DefaultMaxItems   uint32
	MaxItemsLimit     uint32
	LimiterTermsMax   uint32
	AddFlags          uint32
	GetFlags          uint32
	ShutdownFlags     uint32
	DefaultMaxTracked uint32
	UserMaxQueues     uint32
	UnprivMaxItems    uint32
	UnprivMaxTracked  uint32
	KeyCost           uint32
	UserMaxKeyBytes   uint64
	UserQueues        uint32
	CreateFlags       uint32
	UserKeyBytes      uint64
	BatchMax          uint32
	Features          uint32
}

type wqShutdown struct {
	Flags      uint32
	Reserved   uint32
	DeadlineNs uint64
}

type wqQueueInfo struct {
	Name       [nameMax]byte
	State      uint32
	MaxItems   uint32
	Queued     uint32
	Processing uint32
	Waiting    uint32
	Dirty      uint32
	Keys       uint32
	Tracked    uint32
	UID        uint32
	GID        uint32
	Mode       uint32
	Handles    uint32
	Adds       uint64
	Retries    uint64
	Limiter    wqLimiter
	MaxTracked uint32
	Reserved   uint32
	Evicted    uint64
	ID         uint64
}

// The _IOC encoding of asm-generic/ioctl.h (x86, arm64, riscv).
const (
	iocWrite = 1
	iocRead  = 2
	iocMagic = 'Y'
)

func ioc(dir, nr, size uintptr) uintptr {
	return dir<<30 | size<<16 | iocMagic<<8 | nr
}

var (
	iocModuleInfo  = ioc(iocRead, 0x00, unsafe.Sizeof(wqModuleInfo{}))
	iocCreate      = ioc(iocWrite, 0x01, unsafe.Sizeof(wqCreate{}))
	iocDestroy     = ioc(iocWrite, 0x03, unsafe.Sizeof(wqName{}))
	iocOpen        = ioc(iocWrite, 0x02, unsafe.Sizeof(wqName{}))
	iocAdd         = ioc(iocWrite|iocRead, 0x10, unsafe.Sizeof(wqAdd{}))
	iocGet         = ioc(iocWrite|iocRead, 0x11, unsafe.Sizeof(wqGet{}))
	iocDone        = ioc(iocWrite, 0x12, unsafe.Sizeof(wqKey{}))
	iocShutdown    = ioc(iocWrite, 0x13, unsafe.Sizeof(wqShutdown{}))
	iocStat        = ioc(iocRead, 0x14, unsafe.Sizeof(wqQueueInfo{}))
	iocForget      = ioc(iocWrite, 0x15, unsafe.Sizeof(wqKey{}))
	iocNumRequeues = ioc(iocWrite|iocRead, 0x16, unsafe.Sizeof(wqKey{}))
)
