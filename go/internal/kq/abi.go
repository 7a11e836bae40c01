// Package kq is the /dev/wq plumbing the module's packages share: the
// ioctl ABI of uapi/linux/wq.h (numbers, flags, structs), a handle bound
// to a queue whose waits go through the runtime's poller, and the hooks
// by which package workqueue lends its limiters and metrics provider to
// the other packages. It is internal: nothing here is API.
package kq

// The ioctl ABI of /dev/wq, as uapi/linux/wq.h defines it: command
// numbers, flags and the structs the packages pass, laid out as the C
// header lays them out on 64-bit Linux (layout_test.go checks sizes and
// offsets against the header). The user pointers of the structs are
// unsafe.Pointer (8 bytes, as the header's __u64), so that the garbage
// collector sees them and the memory they point to is never on a stack.
// Only the structs the packages use are declared.

import "unsafe"

// Sizes and limits.
const (
	DevPath      = "/dev/wq"
	KeyMax       = 4096 // WQ_KEY_MAX
	NameMax      = 64   // WQ_NAME_MAX
	TermsMax     = 8    // WQ_LIMITER_TERMS_MAX
	DeadlineNone = ^uint64(0)
)

// struct wq_limiter_term.kind
const (
	LimiterExponential = 1
	LimiterBucket      = 2
	LimiterFastSlow    = 3
	LimiterMaxWait     = 4
)

// Flags and values of the calls.
const (
	CreatePrivate  = 1 << 0 // WQ_CREATE_PRIVATE
	CreatePriority = 1 << 1 // WQ_CREATE_PRIORITY

	AddRateLimited = 1 << 0 // WQ_ADD_RATE_LIMITED
	AddAfter       = 1 << 2 // WQ_ADD_AFTER
	AddPriority    = 1 << 3 // WQ_ADD_PRIORITY

	AddedQueued    = 0 // WQ_ADDED_QUEUED
	AddedCoalesced = 1 // WQ_ADDED_COALESCED
	AddedDirty     = 2 // WQ_ADDED_DIRTY
	AddedWaiting   = 3 // WQ_ADDED_WAITING
	AddedKept      = 4 // WQ_ADDED_KEPT

	GetNonblock = 1 << 0 // WQ_GET_NONBLOCK

	KeyResultState = 1 << 0 // WQ_KEY_RESULT_STATE

	KeyQueued     = 1 << 0 // WQ_KEY_QUEUED
	KeyProcessing = 1 << 1 // WQ_KEY_PROCESSING
	KeyDirty      = 1 << 2 // WQ_KEY_DIRTY
	KeyWaiting    = 1 << 3 // WQ_KEY_WAITING
	KeyTracked    = 1 << 4 // WQ_KEY_TRACKED

	ShutdownDrain   = 1 << 0 // WQ_SHUTDOWN_DRAIN
	ShutdownDiscard = 1 << 1 // WQ_SHUTDOWN_DISCARD

	StateShuttingDown = 1 << 0 // WQ_STATE_SHUTTING_DOWN

	FeatureAddOutcome = 1 << 0 // WQ_FEATURE_ADD_OUTCOME
	FeatureKeyState   = 1 << 1 // WQ_FEATURE_KEY_STATE
	FeaturePriority   = 1 << 2 // WQ_FEATURE_PRIORITY
	FeatureKeyCalls   = 1 << 3 // WQ_FEATURE_KEY_CALLS
)

// LimiterTerm is struct wq_limiter_term; A and B carry the union's two
// fields (base_ns and max_ns, rate and burst, fast_ns and slow_ns,
// max_ns and reserved).
type LimiterTerm struct {
	Kind  uint32
	Count uint32
	A     uint64
	B     uint64
}

// Limiter is struct wq_limiter.
type Limiter struct {
	NrTerms  uint32
	Reserved uint32
	Terms    [TermsMax]LimiterTerm
}

// Create is struct wq_create, second version (StarveNs).
type Create struct {
	Flags      uint32
	MaxItems   uint32
	Mode       uint32
	MaxTracked uint32
	Name       [NameMax]byte
	Limiter    Limiter
	StarveNs   uint64
}

// Name is struct wq_name.
type Name struct {
	Flags    uint32
	Reserved uint32
	Name     [NameMax]byte
}

// Add is struct wq_add, third version.
type Add struct {
	Flags      uint32
	KeyLen     uint32
	Key        unsafe.Pointer
	DelayNs    uint64
	DeadlineNs uint64
	Outcome    uint32
	Priority   int32
}

// Get is struct wq_get.
type Get struct {
	Flags      uint32
	KeyLen     uint32
	Buf        unsafe.Pointer
	BufCap     uint32
	Priority   int32
	DeadlineNs uint64
}

// Key is struct wq_key.
type Key struct {
	Flags  uint32
	KeyLen uint32
	Key    unsafe.Pointer
	Value  uint64
}

// KeyInfo is struct wq_key_info.
type KeyInfo struct {
	Flags    uint32
	KeyLen   uint32
	Key      unsafe.Pointer
	State    uint32
	Priority int32
	ReadyNs  uint64
	Requeues uint32
	Reserved uint32
}

// ModuleInfo is struct wq_module_info.
type ModuleInfo struct {
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

// Shutdown is struct wq_shutdown.
type Shutdown struct {
	Flags      uint32
	Reserved   uint32
	DeadlineNs uint64
}

// QueueInfo is struct wq_queue_info.
type QueueInfo struct {
	Name       [NameMax]byte
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
	Limiter    Limiter
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

// The commands.
var (
	IocModuleInfo  = ioc(iocRead, 0x00, unsafe.Sizeof(ModuleInfo{}))
	IocCreate      = ioc(iocWrite, 0x01, unsafe.Sizeof(Create{}))
	IocOpen        = ioc(iocWrite, 0x02, unsafe.Sizeof(Name{}))
	IocDestroy     = ioc(iocWrite, 0x03, unsafe.Sizeof(Name{}))
	IocAdd         = ioc(iocWrite|iocRead, 0x10, unsafe.Sizeof(Add{}))
	IocGet         = ioc(iocWrite|iocRead, 0x11, unsafe.Sizeof(Get{}))
	IocDone        = ioc(iocWrite, 0x12, unsafe.Sizeof(Key{}))
	IocShutdown    = ioc(iocWrite, 0x13, unsafe.Sizeof(Shutdown{}))
	IocStat        = ioc(iocRead, 0x14, unsafe.Sizeof(QueueInfo{}))
	IocForget      = ioc(iocWrite, 0x15, unsafe.Sizeof(Key{}))
	IocNumRequeues = ioc(iocWrite|iocRead, 0x16, unsafe.Sizeof(Key{}))
	IocKeyState    = ioc(iocWrite|iocRead, 0x1b, unsafe.Sizeof(KeyInfo{}))
	IocCancelAfter = ioc(iocWrite, 0x1c, unsafe.Sizeof(Key{}))
)
