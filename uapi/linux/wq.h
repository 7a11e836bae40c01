/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * wq: Kubernetes client-go's util/workqueue as a kernel module.
 *
 * The ioctl ABI of /dev/wq. Userspace normally uses libwq (wq.h) instead.
 *
 * Conventions (Documentation/driver-api/ioctl.rst, botching-up-ioctls.rst):
 * - Every command carries its argument size in the command number
 *   (_IOC_SIZE). The kernel accepts any size from the first version of a
 *   struct up (below it: -EINVAL): a shorter struct than its own is
 *   zero-extended (a size that ends inside a field keeps only the field's
 *   first bytes), a longer one must have a zero tail (else -E2BIG); the
 *   commands that only report (MODULE_INFO, STAT) zero the tail instead.
 *   Structs only ever grow at the end.
 * - Fixed-width fields, natural alignment, no implicit padding; user
 *   pointers travel as __u64. Every unknown flag bit, every reserved field
 *   and every output-only field ("out:" below) must be zero on input, or
 *   the call fails with -EINVAL and changes nothing: clear a struct before
 *   reusing it.
 * - Unknown commands, and known ones with the wrong direction, fail with
 *   -ENOTTY. A command on a queue (all but MODULE_INFO, CREATE, OPEN,
 *   DESTROY and LIST) on a /dev/wq file not bound to one (by CREATE or
 *   OPEN) fails with -EBADF; CREATE or OPEN on a bound one with -EBUSY.
 * - Time is CLOCK_MONOTONIC nanoseconds; deadlines are absolute, so a call
 *   restarted after a signal does not wait longer than asked. A deadline
 *   above 2^63 - 1 other than WQ_DEADLINE_NONE is -EINVAL.
 * - Errors: every command may fail with -EINVAL, -EFAULT (user memory it
 *   cannot read or write) and -EBADF, and one that reads its struct
 *   (_IOW, _IOWR) with -E2BIG, as above; the errors each command has
 *   beyond these are listed with its struct ("Errors:"), and it returns no
 *   others. A call that waits (GET, GET_BATCH, ADD with WQ_ADD_WAIT, a
 *   drain) fails with -EINTR when a signal handler runs, or is restarted
 *   if the handler has SA_RESTART (a drain never is: see struct
 *   wq_shutdown).
 * - A call that fails changes nothing. A call's results are written after
 *   it took effect, to fields and arrays found writable before it did; if
 *   another thread unmaps or protects them meanwhile, the call still
 *   succeeds and those results are lost, as they would be once the
 *   memory is gone anyway.
 * - Rights are the opener's: CREATE, OPEN, DESTROY, LIST and MODULE_INFO
 *   check permissions, capabilities and quotas with the credentials of
 *   the task that opened the /dev/wq file, whoever makes the call, as a
 *   write() to a file does: a descriptor passed to another process gives
 *   it the opener's rights, never its own.
 * - Names belong to IPC namespaces: a /dev/wq file sees the names of the
 *   IPC namespace of the task that opened it, wherever it is used later.
 *   The named queues of a namespace other than the initial one live as
 *   long as the namespace (see doc/security.md for when they go).
 * - A handle works with poll(), select() and epoll (level- and
 *   edge-triggered), also registered before CREATE or OPEN (it reports
 *   nothing until then, and its waiters are woken by the bind): EPOLLIN
 *   when a GET would not block (a key is queued, or the queue is
 *   shutting down and empty), EPOLLOUT when an ADD of a
 *   new key would not fail for capacity and the queue is not shutting
 *   down, EPOLLHUP when it is shutting down and empty. Every transition
 *   into a state wakes the waiters (the first key queued, by a delay
 *   firing too; the shutdown; the last key taken after it; room).
 * - Keys put back on the queue (a handle closed while it held them) go to
 *   the tail, as at done; a key whose GET failed with -EFAULT goes back to
 *   the head, where it was. A handle is an open file, not a process: it is
 *   closed when the last reference to that open file goes (its last file
 *   descriptor closed, dup()ed, fork-inherited and SCM_RIGHTS-passed copies
 *   included), so a consumer that forks and dies while its child keeps the
 *   fd open gets nothing put back until the child closes it or exits.
 */
#ifndef _UAPI_LINUX_WQ_H
#define _UAPI_LINUX_WQ_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define WQ_KEY_MAX		4096	/* longest key, in bytes */
#define WQ_NAME_MAX		64	/* queue name buffer, NUL included */
/*
 * Names beginning with this are the kernel API's (kwq_create()): a user's
 * WQ_IOC_CREATE of one is -EACCES, so no user can take a module's name
 * first. Users open them as any other (the queue's mode decides).
 */
#define WQ_KERNEL_PREFIX	"kernel."
#define WQ_LIMITER_TERMS_MAX	8	/* limiters in one max-of list */
/*
 * What a key costs its queue's owner against the key-bytes quota: its
 * length plus this (the record, its table and heap slots).
 */
#define WQ_KEY_COST		256

/* deadline_ns value that never expires */
#define WQ_DEADLINE_NONE	(~(__u64)0)

/* Rate limiter kinds (struct wq_limiter_term.kind), client-go's four. */
enum {
	WQ_LIMITER_EXPONENTIAL	= 1,	/* .exponential */
	WQ_LIMITER_BUCKET	= 2,	/* .bucket */
	WQ_LIMITER_FASTSLOW	= 3,	/* .fastslow and .count */
	WQ_LIMITER_MAXWAIT	= 4,	/* .maxwait: caps the final delay */
};

/**
 * struct wq_limiter_term - one rate limiter of a max-of list
 * @kind: WQ_LIMITER_*; says which member of the union is meant
 * @count: FASTSLOW: the number N of fast attempts; 0 for the other kinds
 * @exponential: ItemExponentialFailureRateLimiter: @exponential.base_ns *
 *	2^failures, capped at @exponential.max_ns
 * @bucket: BucketRateLimiter: @bucket.rate events per 10^9 s (qps * 10^9,
 *	so fractional rates are exact), @bucket.burst tokens (1..2^32-1)
 * @fastslow: ItemFastSlowRateLimiter: @fastslow.fast_ns for the first
 *	@count failures, then @fastslow.slow_ns
 * @maxwait: WithMaxWaitRateLimiter: the final delay is at most
 *	@maxwait.max_ns; @maxwait.reserved must be 0
 *
 * Fill it with designated initializers, kind first:
 * { .kind = WQ_LIMITER_BUCKET, .bucket = { .rate = ..., .burst = ... } }.
 */
struct wq_limiter_term {
	__u32 kind;
	__u32 count;
	union {
		struct {
			__u64 base_ns;
			__u64 max_ns;
		} exponential;
		struct {
			__u64 rate;
			__u64 burst;
		} bucket;
		struct {
			__u64 fast_ns;
			__u64 slow_ns;
		} fastslow;
		struct {
			__u64 max_ns;
			__u64 reserved;
		} maxwait;
	};
};

/**
 * struct wq_limiter - a queue's rate limiter: the maximum over its terms
 * @nr_terms: number of valid @terms; 0 means no delay ("none")
 * @reserved: must be 0
 * @terms: the limiters; unused terms must be all zero
 */
struct wq_limiter {
	__u32 nr_terms;
	__u32 reserved;
	struct wq_limiter_term terms[WQ_LIMITER_TERMS_MAX];
};

/*
 * client-go's DefaultControllerRateLimiter, the limiter of a queue created
 * without one: the maximum of exponential 5ms..1000s per key and a token
 * bucket of 10 qps with a burst of 100. The one definition, shared by the
 * module and libwq: struct wq_limiter l = WQ_LIMITER_DEFAULT_INIT;
 */
#define WQ_LIMITER_DEFAULT_INIT {					\
	.nr_terms = 2,							\
	.terms = {							\
		{ .kind = WQ_LIMITER_EXPONENTIAL,			\
		  .exponential = { .base_ns = 5000000ULL,		\
				   .max_ns = 1000000000000ULL } },	\
		{ .kind = WQ_LIMITER_BUCKET,				\
		  .bucket = { .rate = 10000000000ULL, .burst = 100 } },	\
	},								\
}

/* struct wq_create.flags */
#define WQ_CREATE_PRIVATE	_BITUL(0)	/* no name: this file's queue */
#define WQ_CREATE_PRIORITY	_BITUL(1)	/* hand keys out by priority */

/**
 * struct wq_create - WQ_IOC_CREATE: create a queue, bind this fd to it
 * @flags: WQ_CREATE_*
 * @max_items: most distinct keys held at once; 0 means the module default
 * @mode: permission bits, 07777; 0 means 0600. As with mq_open(), the
 *	caller's umask is applied
 * @max_tracked: most keys kept only for their rate-limiter failures (not
 *	queued, processing or waiting); beyond it the least recently used is
 *	forgotten. 0 means the module default
 * @name: [A-Za-z0-9._-]{1,63}, NUL-terminated, zero-padded; all zero with
 *	WQ_CREATE_PRIVATE
 * @limiter: the rate limiter of the queue
 * @starve_ns: with WQ_CREATE_PRIORITY: a ready key that has waited longer
 *	than this goes before every key that has not (0: never); otherwise 0.
 *	(Added in the struct's second version.)
 *
 * With WQ_CREATE_PRIORITY the queue hands out keys by priority, as
 * controller-runtime's priority queue does: higher first, equal ones in the
 * order they became ready (added, raised, a delay fired, queued again at
 * done). An add of a key the queue holds keeps the higher priority (a
 * raise moves the key to the tail of its new level); a key added while
 * processing is queued again at done with the highest priority given by
 * the adds made meanwhile; a plain add of a waiting key queues it at once
 * and drops its waiting copy; a delayed add of a queued key changes only
 * its priority. Among keys older than @starve_ns, the oldest goes first
 * whatever its priority, so no stream of higher keys starves a lower one
 * (the age runs from when the key became ready; a raise keeps it).
 *
 * With WQ_CREATE_PRIVATE the queue has no name, as a memfd has no path: it
 * is in no IPC namespace, never listed, and cannot be opened; it is shared
 * only by passing or inheriting this file (fork, SCM_RIGHTS,
 * pidfd_getfd()), and freed when the file's last reference goes. It is
 * charged to its creator's budget as any queue (user_max_queues), but not
 * counted as a name (max_queues, ns_max_queues); tracepoints name it
 * "private:ID" (@id of struct wq_queue_info); WQ_IOC_STAT reports an empty
 * name and WQ_STATE_PRIVATE.
 *
 * Errors: -EBUSY (the handle is bound already), -EBADF (the file is not
 * open for reading and writing), -EINVAL (a bad name, mode or limiter,
 * @max_items or @max_tracked above the module's limit, or above its
 * unprivileged ceiling without CAP_SYS_RESOURCE), -EACCES (a
 * WQ_KERNEL_PREFIX name), -EEXIST (the name is taken in the handle's IPC
 * namespace), -ENOSPC (the handle's IPC namespace has its most named
 * queues: wq_module_info.max_queues; not with CAP_SYS_RESOURCE), -EDQUOT
 * (the caller's queue budget), -ENOMEM.
 */
struct wq_create {
	__u32 flags;
	__u32 max_items;
	__u32 mode;
	__u32 max_tracked;
	char name[WQ_NAME_MAX];
	struct wq_limiter limiter;
	__u64 starve_ns;
};

/* struct wq_name.flags of WQ_IOC_OPEN: the handle's access (neither: both) */
#define WQ_OPEN_READ_ONLY	_BITUL(0)	/* a consumer: GET, DONE */
#define WQ_OPEN_WRITE_ONLY	_BITUL(1)	/* a producer: ADD, FORGET, SHUTDOWN */

/**
 * struct wq_name - WQ_IOC_OPEN and WQ_IOC_DESTROY argument
 * @flags: OPEN: WQ_OPEN_* (not both), checked against the queue's mode
 *	as mq_open() checks O_RDONLY/O_WRONLY/O_RDWR; DESTROY: 0
 * @reserved: must be 0
 * @name: queue name, NUL-terminated, zero-padded
 *
 * A handle's access is fixed when it is bound: GET and DONE need read
 * access, ADD, FORGET and SHUTDOWN write access, the rest either; a call
 * the handle may not make fails with -EBADF. The /dev/wq file must have
 * been opened with the access asked for (CREATE: both), else -EBADF.
 *
 * Errors: OPEN: -EBUSY (the handle is bound already), -EBADF (the file's
 * access), -ENOENT (no queue of that name in the handle's IPC namespace),
 * -EACCES (the queue's mode does not give the access asked, and no
 * CAP_IPC_OWNER). DESTROY: -ENOENT, -EACCES (not the owner, and no
 * CAP_IPC_OWNER).
 */
struct wq_name {
	__u32 flags;
	__u32 reserved;
	char name[WQ_NAME_MAX];
};

#define WQ_ADD_RATE_LIMITED	_BITUL(0)	/* delay from the limiter */
#define WQ_ADD_WAIT		_BITUL(1)	/* wait for room, not -EAGAIN */
#define WQ_ADD_AFTER		_BITUL(2)	/* an AddAfter, also of 0 ns */
#define WQ_ADD_PRIORITY		_BITUL(3)	/* @priority is given */
#define WQ_ADD_OUTCOME		_BITUL(4)	/* ADD_BATCH: results say WQ_ADDED_* */

/* struct wq_add.outcome: what an add did */
#define WQ_ADDED_QUEUED		0	/* newly queued */
#define WQ_ADDED_COALESCED	1	/* already queued: kept its place */
#define WQ_ADDED_DIRTY		2	/* processing: queued again at done */
#define WQ_ADDED_WAITING	3	/* waits for its delay */
#define WQ_ADDED_KEPT		4	/* waits already, not later: unchanged */

/**
 * struct wq_add - WQ_IOC_ADD: Add, AddAfter and AddRateLimited
 * @flags: WQ_ADD_*
 * @key_len: 1..WQ_KEY_MAX
 * @key: user pointer to the key bytes
 * @delay_ns: in: the delay (0 adds at once; must be 0 with
 *	WQ_ADD_RATE_LIMITED); out: the delay used
 * @deadline_ns: with WQ_ADD_WAIT: absolute CLOCK_MONOTONIC time to stop
 *	waiting for room (-ETIMEDOUT), or WQ_DEADLINE_NONE; otherwise 0.
 *	(Added in the struct's second version.)
 * @outcome: out: what the add did, WQ_ADDED_* (an add of a waiting key
 *	without a delay queues it: WQ_ADDED_QUEUED; an AddRateLimited whose
 *	delay is 0 is reported as an Add). Written, like @delay_ns, only by a
 *	module with WQ_FEATURE_ADD_OUTCOME (struct wq_module_info); it is
 *	checked writable before the add. (Added in the third version.)
 * @priority: with WQ_ADD_PRIORITY (a queue made with WQ_CREATE_PRIORITY
 *	only, else -EINVAL): the key's priority, any __s32, higher first. An
 *	add without it is an add at 0, as controller-runtime's: a new key
 *	gets 0, a held one below 0 is raised to 0. Otherwise 0. (Was a
 *	reserved field.)
 *
 * On a priority queue: WQ_ADD_RATE_LIMITED with WQ_ADD_AFTER waits the
 * shorter of @delay_ns and the limiter's delay (@delay_ns out: the one
 * used); a plain add of a waiting key queues it now and drops the waiting
 * copy (WQ_ADDED_QUEUED); a delayed add of a queued key only raises its
 * priority (WQ_ADDED_COALESCED); a delayed add of a waiting key keeps the
 * earlier time (WQ_ADDED_KEPT if it was earlier already).
 *
 * WQ_ADD_AFTER says the call is an AddAfter: it counts in the retries
 * metric also when @delay_ns is 0 (client-go counts every AddAfter; an
 * AddAfter of 0 is otherwise an Add). Not with WQ_ADD_RATE_LIMITED.
 *
 * A queue holding max_items keys refuses a new key with -EAGAIN; with
 * WQ_ADD_WAIT the call waits until a key stops being held (one freed slot
 * wakes one waiting producer), and fails with -ESHUTDOWN if the queue
 * shuts down meanwhile, -EINTR on a signal. An add of a key the queue
 * already holds never waits. A file opened with O_NONBLOCK never waits.
 *
 * Errors: -ESHUTDOWN (the queue is shutting down), -EAGAIN (full),
 * -ETIMEDOUT and -EINTR (WQ_ADD_WAIT), -EDQUOT (the queue owner's key
 * budget; with a delay or WQ_ADD_RATE_LIMITED also for the memory of the
 * queue's waiting heap), -ENOMEM.
 */
struct wq_add {
	__u32 flags;
	__u32 key_len;
	__u64 key;
	__u64 delay_ns;
	__u64 deadline_ns;
	__u32 outcome;
	__s32 priority;
};

#define WQ_GET_NONBLOCK		_BITUL(0)	/* -EAGAIN instead of waiting */
#define WQ_GET_DETACH		_BITUL(1)	/* key not returned on close */

/**
 * struct wq_get - WQ_IOC_GET: take the head key and mark it processing
 * @flags: WQ_GET_*
 * @key_len: out: length of the key; with -EMSGSIZE the length needed
 * @buf: user pointer to the buffer for the key
 * @buf_cap: size of @buf
 * @priority: out: the key's priority (written by a priority queue only:
 *	0 on any other); must be 0 on input. (Was a reserved field.)
 * @deadline_ns: absolute CLOCK_MONOTONIC time to give up (-ETIMEDOUT);
 *	WQ_DEADLINE_NONE waits without limit. A file opened with O_NONBLOCK
 *	never waits (-EAGAIN), as WQ_GET_NONBLOCK
 *
 * The ioctl returns the key length (> 0). A key taken by a handle is put
 * back on the queue when the handle is closed (the last reference to the
 * open file goes, see above) before the key is done, unless WQ_GET_DETACH
 * was given (for tools such as wqctl, whose process exits between get and
 * done).
 *
 * Errors: -EAGAIN (nothing queued, and the call may not wait), -ETIMEDOUT,
 * -EINTR, -ESHUTDOWN (the queue is shutting down and nothing is queued,
 * or the key it was about to take was discarded),
 * -EMSGSIZE (the head key is longer than @buf_cap; it stays queued, and
 * @key_len says how long it is), -ENOMEM.
 */
struct wq_get {
	__u32 flags;
	__u32 key_len;
	__u64 buf;
	__u32 buf_cap;
	__s32 priority;
	__u64 deadline_ns;
};

/**
 * struct wq_done_get - WQ_IOC_DONE_GET: Done of one key, then Get
 * @get: the Get, as WQ_IOC_GET's struct (its out fields written as GET
 *	writes them)
 * @prev: user pointer to the key to end first (Done), or 0
 * @prev_len: its length, 1..WQ_KEY_MAX; 0 (with @prev 0) for no Done
 * @reserved: must be 0
 *
 * A worker loop's two calls in one: Done of @prev, then Get. Every field
 * is checked before either happens. If the Done fails (-ENOENT: @prev is
 * not being processed; -EFAULT: its bytes) nothing else happens and that
 * is the result; else the Get's, as WQ_IOC_GET's. Once the Done is made
 * the kernel zeroes @prev and @prev_len in the caller's struct, so a call
 * restarted after a signal (or a stop) only gets, and a caller that sees
 * an error of the Get knows the Done was made (@prev_len is 0). Once the
 * Done is made the call does not fail for memory: if the struct or the
 * key buffer could not be written (another thread took them away, or
 * @get.buf is bad), the key goes back and the call returns 0: the Done
 * made, nothing got (a GET alone then says what is wrong). A consumer's
 * call (read access). (WQ_FEATURE_DONE_GET.)
 *
 * Errors: those of WQ_IOC_DONE and WQ_IOC_GET.
 */
struct wq_done_get {
	struct wq_get get;
	__u64 prev;
	__u32 prev_len;
	__u32 reserved;
};

/* struct wq_key.flags */
#define WQ_KEY_RESULT_STATE	_BITUL(0)	/* DONE, FORGET: return the state */

/* The state of a key in a queue: what the queue holds of it */
#define WQ_KEY_QUEUED		_BITUL(0)	/* queued */
#define WQ_KEY_PROCESSING	_BITUL(1)	/* handed out, not done */
#define WQ_KEY_DIRTY		_BITUL(2)	/* processing, queued again at done */
#define WQ_KEY_WAITING		_BITUL(3)	/* waits for its delay */
#define WQ_KEY_TRACKED		_BITUL(4)	/* the limiter counts its failures */

/**
 * struct wq_key - WQ_IOC_DONE, WQ_IOC_FORGET, WQ_IOC_NUM_REQUEUES
 * @flags: WQ_KEY_RESULT_STATE (DONE and FORGET only), or 0
 * @key_len: 1..WQ_KEY_MAX
 * @key: user pointer to the key bytes
 * @value: out: the result (NUM_REQUEUES), otherwise 0
 *
 * With WQ_KEY_RESULT_STATE, a DONE or FORGET that succeeds returns the
 * key's state just after it (WQ_KEY_*, read in a second hold of the
 * queue's lock: another caller's call may come between; 0: the queue
 * neither holds the key nor counts its failures any more), so that a
 * binding that maps its items to keys knows when to let an item go. Any
 * handle may ask it, as any handle may see the queue's numbers.
 * (WQ_FEATURE_KEY_STATE; a module without it fails the call with -EINVAL.)
 *
 * Errors: DONE: -ENOENT (the key is not being processed), -ENOMEM. FORGET
 * and NUM_REQUEUES: -ENOMEM.
 */
struct wq_key {
	__u32 flags;
	__u32 key_len;
	__u64 key;
	__u64 value;
};

/**
 * struct wq_key_info - WQ_IOC_KEY_STATE: what the queue holds of a key
 * @flags: 0
 * @key_len: 1..WQ_KEY_MAX
 * @key: user pointer to the key bytes
 * @state: out: WQ_KEY_* (0: the queue neither holds the key nor counts its
 *	failures)
 * @priority: out: a queued or waiting key's priority; a key in processing
 *	reports the one it was handed out with; 0 on a plain queue
 * @ready_ns: out: with WQ_KEY_WAITING, the CLOCK_MONOTONIC time the key
 *	becomes ready; else 0
 * @requeues: out: the limiter's failures of the key (NumRequeues)
 * @reserved: must be 0
 *
 * One look, under the queue's lock: the answer may be stale as soon as the
 * call returns. Any handle may ask it. Returns 0.
 *
 * Errors: -ENOMEM.
 */
struct wq_key_info {
	__u32 flags;
	__u32 key_len;
	__u64 key;
	__u32 state;
	__s32 priority;
	__u64 ready_ns;
	__u32 requeues;
	__u32 reserved;
};

/*
 * WQ_IOC_CANCEL_AFTER (struct wq_key, @flags 0, @value 0): drop the key's
 * waiting copy (an AddAfter or AddRateLimited not yet due). A key also
 * queued or processing stays so; a key held only by its delay stops being
 * held (its failures are kept). On a priority queue the priority the
 * delayed add gave the key stays (a key in processing dirty at done is
 * queued again at it). Needs write access (-EBADF). Returns 1 if a waiting
 * copy was dropped, 0 if the key was not waiting (or the queue is shutting
 * down: its waiting keys are the shutdown's to drop).
 *
 * Errors: -ENOMEM.
 */

#define WQ_SHUTDOWN_DRAIN	_BITUL(0)	/* wait until drained */
#define WQ_SHUTDOWN_DISCARD	_BITUL(1)	/* drop what is not in flight */

/**
 * struct wq_shutdown - WQ_IOC_SHUTDOWN: ShutDown and ShutDownWithDrain
 * @flags: WQ_SHUTDOWN_* (DRAIN and DISCARD exclude each other)
 * @reserved: must be 0
 * @deadline_ns: with WQ_SHUTDOWN_DRAIN: absolute CLOCK_MONOTONIC time to
 *	stop waiting (-ETIMEDOUT), or WQ_DEADLINE_NONE; otherwise 0
 *
 * WQ_SHUTDOWN_DISCARD shuts down and drops every queued and waiting key
 * and the dirty mark of every processing key (processing keys finish
 * normally); the ioctl returns the number of queued and waiting keys
 * dropped.
 *
 * Errors of a drain (WQ_SHUTDOWN_DRAIN; the others have none but those
 * of every command): -ETIMEDOUT, -ECANCELED (a shutdown without
 * WQ_SHUTDOWN_DRAIN cut the wait short), -EINTR (a signal; never
 * restarted, also with SA_RESTART: the queue stays shut down, and a new
 * drain waits again).
 */
struct wq_shutdown {
	__u32 flags;
	__u32 reserved;
	__u64 deadline_ns;
};

#define WQ_BATCH_MAX		1024	/* most keys in one batch call */

/**
 * struct wq_iov - one key of a batch; the layout of struct iovec on LP64
 * @base: user pointer to the key bytes
 * @len: the key length
 */
struct wq_iov {
	__u64 base;
	__u64 len;
};

/**
 * struct wq_batch - WQ_IOC_ADD_BATCH, WQ_IOC_GET_BATCH, WQ_IOC_DONE_BATCH
 * @flags: ADD: WQ_ADD_PRIORITY, WQ_ADD_OUTCOME, or 0; GET: WQ_GET_*;
 *	DONE: 0
 * @count: number of @keys, 1..WQ_BATCH_MAX
 * @keys: user pointer to @count struct wq_iov: ADD and DONE: in; GET: out,
 *	each pointing into @buf (GET may zero entries it does not fill, also
 *	when it fails; failing with -EFAULT, it may leave them partly
 *	written)
 * @results: ADD and DONE: user pointer to @count __s32, each key's result
 *	(0 or -errno; with WQ_ADD_OUTCOME an added key's WQ_ADDED_*), or 0
 *	for none; GET: user pointer to @count __s32 that receive each taken
 *	key's priority (0 on a plain queue; entries not filled as @keys'),
 *	or 0 for none
 * @buf: GET: user pointer to the buffer the keys are packed into; else 0
 * @buf_cap: GET: size of @buf; else 0
 * @deadline_ns: GET: absolute CLOCK_MONOTONIC time to stop waiting for the
 *	first key, or WQ_DEADLINE_NONE; else 0
 * @priority: ADD with WQ_ADD_PRIORITY: every key's priority (as struct
 *	wq_add's); else 0. (Added in the struct's second version.)
 * @reserved: must be 0
 *
 * ADD adds each key in order as WQ_IOC_ADD (no flags) would, DONE ends
 * each key as WQ_IOC_DONE would; one bad key (its length, its memory, the
 * queue full) does not stop the others, and the ioctl returns how many
 * succeeded. GET waits as WQ_IOC_GET for the first key, then takes the
 * queued keys in the order WQ_IOC_GET would, up to @count and as many as
 * fit in @buf, and
 * returns how many it took (-EMSGSIZE, taking nothing, if the first does
 * not fit). Errors of the call itself (-EINVAL, -EFAULT on @keys or
 * @results, -EBADF) change nothing in the queue. The lock of the queue is
 * taken once per chunk of keys, not once per key (twice for a chunk of ADD
 * whose new keys need memory: other callers may add or take keys in
 * between, and the batch keeps its order).
 *
 * Errors: ADD and DONE: -ENOMEM. GET: those of WQ_IOC_GET (-EMSGSIZE
 * reports no length: a @buf_cap of WQ_KEY_MAX always fits one key). A
 * key's result of ADD: -EINVAL (its length), -EFAULT (its memory), -ENOMEM,
 * or what WQ_IOC_ADD returns for it (-ESHUTDOWN, -EAGAIN, -EDQUOT); of
 * DONE: -EINVAL, -EFAULT or -ENOENT.
 */
struct wq_batch {
	__u32 flags;
	__u32 count;
	__u64 keys;
	__u64 results;
	__u64 buf;
	__u64 buf_cap;
	__u64 deadline_ns;
	__s32 priority;
	__u32 reserved;
};

/**
 * struct wq_done_get_batch - WQ_IOC_DONE_GET_BATCH: Done of keys, then Get
 * @get: the Get, as WQ_IOC_GET_BATCH's struct
 * @done_keys: user pointer to @n_done struct wq_iov, the keys to end
 *	first, as WQ_IOC_DONE_BATCH ends them; 0 with @n_done 0
 * @n_done: 0..WQ_BATCH_MAX
 * @reserved: must be 0
 * @done_results: user pointer to @n_done __s32, each Done's result (0 or
 *	-errno), or 0 for none
 *
 * WQ_IOC_DONE_BATCH then WQ_IOC_GET_BATCH in one call: a key that was not
 * being processed does not stop the others (its result says -ENOENT), and
 * the Get follows. The call's result is the Get's; an error of the Done
 * call itself (-EINVAL, -EFAULT on @done_keys or @done_results, -ENOMEM)
 * ends it before the Get, as does a bad field of @get, found first. Once
 * the Dones are made the kernel zeroes @done_keys, @n_done and
 * @done_results in the caller's struct, so a call restarted after a
 * signal (or a stop) only gets; once the Dones are made the call does not
 * fail for memory, as WQ_IOC_DONE_GET: keys that could not be delivered go
 * back, and it returns 0. (WQ_FEATURE_DONE_GET.)
 *
 * Errors: those of WQ_IOC_DONE_BATCH and WQ_IOC_GET_BATCH.
 */
struct wq_done_get_batch {
	struct wq_batch get;
	__u64 done_keys;
	__u32 n_done;
	__u32 reserved;
	__u64 done_results;
};

/* struct wq_queue_info.state bits */
#define WQ_STATE_SHUTTING_DOWN	_BITUL(0)
#define WQ_STATE_DRAINING	_BITUL(1)	/* a drain is waiting */
#define WQ_STATE_UNLINKED	_BITUL(2)	/* name destroyed, handles open */
#define WQ_STATE_PRIVATE	_BITUL(3)	/* no name (WQ_CREATE_PRIVATE) */
#define WQ_STATE_PRIORITY	_BITUL(4)	/* by priority (WQ_CREATE_PRIORITY) */

/**
 * struct wq_queue_info - WQ_IOC_STAT result, and one WQ_IOC_LIST entry
 * @name: queue name
 * @state: WQ_STATE_*
 * @max_items: the queue's limit of distinct keys
 * @queued: keys ready to be handed out (Len)
 * @processing: keys handed out and not yet done
 * @waiting: keys waiting for their AddAfter delay
 * @dirty: processing keys that will be queued again at done
 * @keys: distinct keys held (queued, processing or waiting)
 * @tracked: keys with rate limiter state
 * @uid: owner (in the caller's user namespace)
 * @gid: group (in the caller's user namespace)
 * @mode: permission bits
 * @handles: open /dev/wq handles (kernel users are not counted)
 * @adds: keys that became pending (client-go workqueue_adds_total)
 * @retries: AddAfter calls (with a delay, or WQ_ADD_AFTER) and
 *	AddRateLimited calls (client-go workqueue_retries_total)
 * @limiter: the queue's rate limiter
 * @max_tracked: the queue's limit of keys kept only for their failures
 * @reserved: 0
 * @evicted: keys whose failures were forgotten to stay within @max_tracked
 * @id: the queue's identity: 1, 2, ... in order of creation, the same
 *	through every handle, never given to another queue while the module
 *	stays loaded (a name is, once destroyed). A handle opened by name
 *	compares it to learn whether it reached the queue it knew or a new
 *	one of the same name. (Added in the struct's second version; 0 from
 *	a module without it.)
 *
 * Errors of WQ_IOC_STAT: none but those of every command.
 */
struct wq_queue_info {
	char name[WQ_NAME_MAX];
	__u32 state;
	__u32 max_items;
	__u32 queued;
	__u32 processing;
	__u32 waiting;
	__u32 dirty;
	__u32 keys;
	__u32 tracked;
	__u32 uid;
	__u32 gid;
	__u32 mode;
	__u32 handles;
	__u64 adds;
	__u64 retries;
	struct wq_limiter limiter;
	__u32 max_tracked;
	__u32 reserved;
	__u64 evicted;
	__u64 id;
};

/* sizeof(struct wq_queue_info) in its first version (ABI 1) */
#define WQ_QUEUE_INFO_SIZE_VER0	344
/* the largest @entry_size WQ_IOC_LIST accepts, on every architecture */
#define WQ_QUEUE_INFO_SIZE_MAX	4096

/**
 * struct wq_list - WQ_IOC_LIST: snapshot of every named queue
 * @flags: must be 0
 * @entry_size: sizeof(struct wq_queue_info) as the caller knows it, from
 *	WQ_QUEUE_INFO_SIZE_VER0 up to WQ_QUEUE_INFO_SIZE_MAX
 * @count: in: capacity of @entries; out: number of entries written
 * @total: out: number of named queues
 * @entries: user pointer to @count entries of @entry_size bytes
 *
 * Errors: -ENOMEM.
 */
struct wq_list {
	__u32 flags;
	__u32 entry_size;
	__u32 count;
	__u32 total;
	__u64 entries;
};

/* struct wq_module_info.features: what a module older than them lacks */
#define WQ_FEATURE_ADD_OUTCOME	_BITUL(0)	/* struct wq_add.outcome */
#define WQ_FEATURE_KEY_STATE	_BITUL(1)	/* WQ_KEY_RESULT_STATE */
#define WQ_FEATURE_PRIORITY	_BITUL(2)	/* WQ_CREATE_PRIORITY, WQ_ADD_PRIORITY */
#define WQ_FEATURE_KEY_CALLS	_BITUL(3)	/* KEY_STATE, CANCEL_AFTER */
#define WQ_FEATURE_DONE_GET	_BITUL(4)	/* DONE_GET, DONE_GET_BATCH */
#define WQ_FEATURE_URING	_BITUL(5)	/* io_uring commands, below */
#define WQ_FEATURE_URING_PARK	_BITUL(6)	/* parked; URING_CANCEL */

/**
 * struct wq_module_info - WQ_IOC_MODULE_INFO: what this module supports
 * @abi_version: WQ_ABI_VERSION of the module
 * @key_max: WQ_KEY_MAX
 * @max_queues: most named queues of the handle's IPC namespace (the
 *	module's max_queues, or ns_max_queues in a namespace other than the
 *	initial one)
 * @default_max_items: max_items of a queue created with 0 here (the
 *	module's default_max_items, capped at @max_items_limit and
 *	@unpriv_max_items)
 * @max_items_limit: largest max_items (and max_tracked) accepted
 * @limiter_terms_max: WQ_LIMITER_TERMS_MAX
 * @add_flags: WQ_ADD_* bits understood
 * @get_flags: WQ_GET_* bits understood
 * @shutdown_flags: WQ_SHUTDOWN_* bits understood
 * @default_max_tracked: max_tracked of a queue created with 0 here
 *	(capped as @default_max_items is, at @unpriv_max_tracked)
 * @user_max_queues: queues one user may have (destroyed-but-open included)
 * @unpriv_max_items: largest max_items without CAP_SYS_RESOURCE
 * @unpriv_max_tracked: largest max_tracked without CAP_SYS_RESOURCE
 * @key_cost: WQ_KEY_COST: what a key costs beyond its bytes
 * @user_max_key_bytes: key bytes plus @key_cost per key one user's queues
 *	may hold
 * @user_queues: the caller's queues charged now
 * @create_flags: WQ_CREATE_* bits understood (0 from a module without
 *	private queues)
 * @user_key_bytes: the caller's key bytes (plus @key_cost each) charged now
 * @batch_max: WQ_BATCH_MAX
 * @features: WQ_FEATURE_* (0 from a module older than them)
 *
 * A quota exceeded is -EDQUOT; CAP_SYS_RESOURCE at create time exempts a
 * queue from its owner's limits (it is still counted).
 *
 * Errors of WQ_IOC_MODULE_INFO: none but those of every command.
 */
struct wq_module_info {
	__u32 abi_version;
	__u32 key_max;
	__u32 max_queues;
	__u32 default_max_items;
	__u32 max_items_limit;
	__u32 limiter_terms_max;
	__u32 add_flags;
	__u32 get_flags;
	__u32 shutdown_flags;
	__u32 default_max_tracked;
	__u32 user_max_queues;
	__u32 unpriv_max_items;
	__u32 unpriv_max_tracked;
	__u32 key_cost;
	__u64 user_max_key_bytes;
	__u32 user_queues;
	__u32 create_flags;
	__u64 user_key_bytes;
	__u32 batch_max;
	__u32 features;
};

#define WQ_HIST_MAX		32	/* most buckets of a histogram */

/**
 * struct wq_hist_info - a histogram of durations (WQ_IOC_METRICS)
 * @count: observations
 * @sum_ns: their sum, in nanoseconds
 * @nbuckets: entries used in @le_ns and @bucket (<= WQ_HIST_MAX)
 * @reserved: 0
 * @le_ns: upper bounds, ascending, in nanoseconds; the last is
 *	~(__u64)0 (+Inf)
 * @bucket: cumulative counts: observations <= @le_ns[i]; the last is
 *	@count
 *
 * The layout of libwq's struct wq_histogram.
 */
struct wq_hist_info {
	__u64 count;
	__u64 sum_ns;
	__u32 nbuckets;
	__u32 reserved;
	__u64 le_ns[WQ_HIST_MAX];
	__u64 bucket[WQ_HIST_MAX];
};

#define WQ_LEVELS_MAX		16	/* priority levels WQ_IOC_METRICS reports */

/**
 * struct wq_level_info - one priority level's depth (WQ_IOC_METRICS)
 * @priority: the level
 * @reserved: 0
 * @depth: keys queued at it, and processing keys dirty to be queued at it
 */
struct wq_level_info {
	__s32 priority;
	__u32 reserved;
	__u64 depth;
};

/**
 * struct wq_metrics_info - a queue's metrics (WQ_IOC_METRICS, kwq_metrics())
 * @depth: client-go workqueue_depth: keys added and not yet handed out
 *	(queued, and processing keys marked dirty)
 * @adds_total: workqueue_adds_total: adds that made a key newly dirty
 * @retries_total: workqueue_retries_total: every AddAfter and
 *	AddRateLimited that did not fail
 * @unfinished_work_ns: workqueue_unfinished_work_seconds, in ns: the sum
 *	of the ages of the keys in processing
 * @longest_running_ns: workqueue_longest_running_processor_seconds, in
 *	ns: the age of the oldest key in processing
 * @queue_duration: workqueue_queue_duration_seconds: from the add that
 *	made the key dirty (or the put back of its handle) to the get
 * @work_duration: workqueue_work_duration_seconds: from the get to the done
 * @queued: keys queued (Len)
 * @processing: keys handed out and not done
 * @waiting: keys waiting for their AddAfter delay
 * @tracked: keys with rate-limiter failures
 * @refused_total: adds refused with -EAGAIN for capacity
 * @requeued_on_close_total: keys put back because their handle closed
 * @discarded_total: keys dropped by a shutdown (waiting keys) or a
 *	discarding shutdown (queued and waiting keys), each once
 * @nr_levels: entries of @levels used (a priority queue's levels with a
 *	depth, highest first; 0 on a plain queue). (@nr_levels and what
 *	follows were added in the struct's second version.)
 * @levels_summed: levels beyond the first WQ_LEVELS_MAX - 1, whose depths
 *	the last entry sums (its @priority is the highest of them); 0 if none
 * @levels: depth (queued, and dirty keys to be queued at done) by priority
 *
 * Counters (*_total and the histograms) are 64-bit and never go back while
 * the queue exists, except that a histogram's sum_ns wraps modulo 2^64
 * (after 584 years of summed waiting: ~200 days at an average depth of
 * 1000 keys). A get undone because its key could not be copied out still
 * counts in queue_duration. The gauges are exact at the time of the call (one
 * hold of the queue's lock). With the module loaded with metrics=N nothing
 * is timed: the histograms stay empty and @unfinished_work_ns and
 * @longest_running_ns 0, while the counters and the other gauges count as
 * ever (/sys/module/wq/parameters/metrics tells). The layout of libwq's
 * struct wq_metrics; later versions only append.
 */
struct wq_metrics_info {
	__u64 depth;
	__u64 adds_total;
	__u64 retries_total;
	__u64 unfinished_work_ns;
	__u64 longest_running_ns;
	struct wq_hist_info queue_duration;
	struct wq_hist_info work_duration;
	__u64 queued;
	__u64 processing;
	__u64 waiting;
	__u64 tracked;
	__u64 refused_total;
	__u64 requeued_on_close_total;
	__u64 discarded_total;
	__u32 nr_levels;
	__u32 levels_summed;
	struct wq_level_info levels[WQ_LEVELS_MAX];
};

/* sizeof(struct wq_metrics_info) in its first version */
#define WQ_METRICS_INFO_SIZE_VER0	1168
/* the largest struct wq_metrics_info size WQ_IOC_METRICS accepts */
#define WQ_METRICS_INFO_SIZE_MAX	4096

/**
 * struct wq_metrics_req - WQ_IOC_METRICS: the bound queue's metrics
 * @flags: must be 0
 * @size: sizeof(struct wq_metrics_info) as the caller knows it (at least
 *	WQ_METRICS_INFO_SIZE_VER0, at most WQ_METRICS_INFO_SIZE_MAX): the
 *	kernel writes that many
 *	bytes, zeroing what it does not know
 * @metrics: user pointer to @size bytes
 *
 * Either access mode may ask.
 *
 * Errors: -ENOMEM.
 */
struct wq_metrics_req {
	__u32 flags;
	__u32 size;
	__u64 metrics;
};

/*
 * io_uring passthrough. A /dev/wq handle takes IORING_OP_URING_CMD
 * submissions of nine of the commands below: WQ_IOC_ADD, WQ_IOC_GET,
 * WQ_IOC_DONE, WQ_IOC_DONE_GET, WQ_IOC_ADD_BATCH, WQ_IOC_GET_BATCH,
 * WQ_IOC_DONE_BATCH, WQ_IOC_DONE_GET_BATCH and WQ_IOC_URING_CANCEL.
 *
 * @cmd_op of the SQE is the command number; the SQE's command area
 * (sqe->cmd) holds the command's struct, _IOC_SIZE(cmd_op) bytes, as the
 * ioctl takes it (a longer struct with its unknown tail zeroed, a shorter
 * one of an older version). The area is 16 bytes in a plain ring and
 * WQ_URING_CMD_MAX in a ring set up with IORING_SETUP_SQE128: every
 * command's struct needs the latter (a struct that does not fit: -EINVAL).
 * The struct is copied when the command is issued and nothing is written
 * back into it; the keys, buffers and arrays it points at must stay valid
 * until the completion. (From 6.10 to 6.13, io_uring issues a command
 * linked behind another from its SQE's slot: leave such an SQE alone
 * until it completes.) The same checks, quotas, access modes, metrics
 * and tracepoints apply as to the ioctl.
 *
 * The completion's res is the ioctl's result: for WQ_IOC_ADD what the add
 * did (WQ_ADDED_*; a WQ_ADD_RATE_LIMITED add's delay is not reported), for
 * WQ_IOC_GET the key length (with -EMSGSIZE the head key's length is not
 * reported, nor a priority queue's priority: WQ_IOC_GET_BATCH's @results
 * has it).
 *
 * Commands of one submission are tried in submission order. A command
 * that would wait (a GET, GET_BATCH, DONE_GET or DONE_GET_BATCH with
 * nothing queued, an ADD with WQ_ADD_WAIT of a full queue) is parked: it
 * takes no thread, not even one of io_uring's workers, and waits in line
 * with blocked WQ_IOC_GET callers and other parked commands (by when each
 * started waiting). The wake-up that hands it a key or room queues its
 * completion in the submitting task (task work: it runs when that task
 * enters io_uring_enter(), or returns to userspace), which tries it again:
 * it completes as the ioctl would, or waits on if another consumer was
 * first. A parked command completes with -ETIMEDOUT at its deadline,
 * -ESHUTDOWN when the queue shuts down, and -ECANCELED when
 * WQ_IOC_URING_CANCEL ends it, when the process that submitted it closes
 * a descriptor of the handle (as a close drops that process's POSIX
 * locks), when its ring is torn down, or when its task exits (from 6.7 a
 * task's exit reaches them through the close of its files or the teardown
 * of its ring: a thread that exits while others share its files and ring
 * leaves its commands parked until those go). Where the kernel cannot
 * cancel a command a driver parked (before 6.7: no
 * io_uring_cmd_mark_cancelable()), the module watches its parked commands
 * instead: those of an exiting task end within a second (-ECANCELED), and
 * every command parked for 10 s completes with -EINTR, to be submitted
 * again, so that a ring torn down while its task lives (or an exec(),
 * which waits for them) is released within 11 s; a command woken in that
 * window may take its key into the torn-down ring, where it is held by
 * the handle until the handle is closed. A parked command that ends this
 * way has taken nothing, but the dones of a DONE_GET or DONE_GET_BATCH
 * were made when it was first tried: submit it again without them. Keys a
 * get took are held by the handle as WQ_IOC_GET's are (put back when it
 * is closed). io_uring's own IORING_OP_ASYNC_CANCEL does not reach a
 * command a driver holds: WQ_IOC_URING_CANCEL does. At most 65536
 * commands are parked on one handle (more: -EBUSY). A parked command's
 * wake-up is its task's to use: a task that does not enter the kernel
 * (with IORING_SETUP_DEFER_TASKRUN: does not wait for completions) holds
 * up the key it was woken for, which other consumers do not get
 * meanwhile.
 *
 * Errors, beyond the ioctl's: -ENOTTY (another command), -EINVAL (the
 * struct does not fit the command area; IORING_URING_CMD_FIXED or
 * _MULTISHOT), -ECANCELED, -EINTR (parked too long where the kernel
 * cannot cancel it: submit again), -EBUSY. io_uring itself answers
 * -EOPNOTSUPP for a file without passthrough commands; a command that
 * would wait in an IORING_SETUP_IOPOLL ring (which nothing would wake)
 * fails with -EOPNOTSUPP. (WQ_FEATURE_URING; parking and
 * WQ_IOC_URING_CANCEL: WQ_FEATURE_URING_PARK.)
 */
#define WQ_URING_CMD_MAX	80	/* command area of an SQE128 ring */

#define WQ_URING_CANCEL_ALL	_BITUL(0)	/* every parked command */

/**
 * struct wq_uring_cancel - WQ_IOC_URING_CANCEL: end parked io_uring
 *	commands of this handle
 * @flags: WQ_URING_CANCEL_ALL, or 0 to end those of @addr only
 * @reserved: must be 0
 * @addr: with @flags 0: the buffer (@buf of a GET, GET_BATCH, DONE_GET or
 *	DONE_GET_BATCH) or key (@key of an ADD) of the parked command to end
 *	(the one thing of its own an in-flight command has); 0 with
 *	WQ_URING_CANCEL_ALL
 *
 * Each command it ends completes with -ECANCELED, having taken nothing;
 * one whose key or room came at the same moment may complete with it
 * instead (no key is lost). Through any bound handle of the queue, as an
 * ioctl or an io_uring command. Returns how many commands end.
 * (WQ_FEATURE_URING_PARK.)
 */
struct wq_uring_cancel {
	__u32 flags;
	__u32 reserved;
	__u64 addr;
};

#define WQ_ABI_VERSION		1

#define WQ_IOC_MAGIC		'Y'

#define WQ_IOC_MODULE_INFO	_IOR(WQ_IOC_MAGIC, 0x00, struct wq_module_info)
#define WQ_IOC_CREATE		_IOW(WQ_IOC_MAGIC, 0x01, struct wq_create)
#define WQ_IOC_OPEN		_IOW(WQ_IOC_MAGIC, 0x02, struct wq_name)
#define WQ_IOC_DESTROY		_IOW(WQ_IOC_MAGIC, 0x03, struct wq_name)
#define WQ_IOC_LIST		_IOWR(WQ_IOC_MAGIC, 0x04, struct wq_list)
#define WQ_IOC_ADD		_IOWR(WQ_IOC_MAGIC, 0x10, struct wq_add)
#define WQ_IOC_GET		_IOWR(WQ_IOC_MAGIC, 0x11, struct wq_get)
#define WQ_IOC_DONE		_IOW(WQ_IOC_MAGIC, 0x12, struct wq_key)
#define WQ_IOC_SHUTDOWN		_IOW(WQ_IOC_MAGIC, 0x13, struct wq_shutdown)
#define WQ_IOC_STAT		_IOR(WQ_IOC_MAGIC, 0x14, struct wq_queue_info)
#define WQ_IOC_FORGET		_IOW(WQ_IOC_MAGIC, 0x15, struct wq_key)
#define WQ_IOC_NUM_REQUEUES	_IOWR(WQ_IOC_MAGIC, 0x16, struct wq_key)
#define WQ_IOC_ADD_BATCH	_IOW(WQ_IOC_MAGIC, 0x17, struct wq_batch)
#define WQ_IOC_GET_BATCH	_IOW(WQ_IOC_MAGIC, 0x18, struct wq_batch)
#define WQ_IOC_DONE_BATCH	_IOW(WQ_IOC_MAGIC, 0x19, struct wq_batch)
#define WQ_IOC_METRICS		_IOW(WQ_IOC_MAGIC, 0x1a, struct wq_metrics_req)
#define WQ_IOC_KEY_STATE	_IOWR(WQ_IOC_MAGIC, 0x1b, struct wq_key_info)
#define WQ_IOC_CANCEL_AFTER	_IOW(WQ_IOC_MAGIC, 0x1c, struct wq_key)
#define WQ_IOC_DONE_GET		_IOWR(WQ_IOC_MAGIC, 0x1d, struct wq_done_get)
#define WQ_IOC_DONE_GET_BATCH	_IOWR(WQ_IOC_MAGIC, 0x1e, struct wq_done_get_batch)
#define WQ_IOC_URING_CANCEL	_IOW(WQ_IOC_MAGIC, 0x1f, struct wq_uring_cancel)

#endif /* _UAPI_LINUX_WQ_H */
