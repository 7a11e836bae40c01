/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libwq: client-go's util/workqueue, served by the wq kernel module.
 *
 * The contract is this header and its man pages (libwq(3) and one a call,
 * e.g. wq_get(3)). Every function returns >= 0 on success and
 * -errno on failure; errno is not the channel. A queue handle is a file
 * descriptor of /dev/wq bound to one named queue; every call is thread-safe.
 *
 * Keys a handle got from wq_get and has not done are put back on the queue
 * when the handle's open file is released: when its last file descriptor is
 * closed, dup()ed and fork-inherited copies included (handles are opened
 * O_CLOEXEC, so exec() drops them). This is per open file, not per process:
 * a consumer that forks and dies while its child keeps the fd open does not
 * get its keys put back until the child closes it or exits.
 */
#ifndef LIBWQ_WQ_H
#define LIBWQ_WQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>	/* struct iovec, for the batches */
#include <linux/const.h>	/* _BITUL: the flags below as <linux/wq.h> has them */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header and of the libwq it came with, as liburing's
 * IO_URING_VERSION_*: the minor grows with each new call or struct field
 * (the newest symbol version of libwq.so is WQ_MAJOR.MINOR), the major
 * only if the soname does. wq_version() is the library's at run time.
 */
#define WQ_VERSION_MAJOR	1
#define WQ_VERSION_MINOR	6
#define WQ_VERSION_PATCH	0
/* True when this header is at least MAJOR.MINOR. */
#define WQ_VERSION_AT_LEAST(major, minor)				\
	(WQ_VERSION_MAJOR > (major) ||					\
	 (WQ_VERSION_MAJOR == (major) && WQ_VERSION_MINOR >= (minor)))

#define WQ_KEY_MAX	4096	/* longest key, in bytes */
#define WQ_NAME_MAX	64	/* queue name buffer, NUL included */
#define WQ_DEV_PATH	"/dev/wq"	/* there when the module is loaded */
#define WQ_BATCH_MAX	1024	/* most keys in one batch call */

/*
 * The flags and results below are the ioctl ABI's (<linux/wq.h>), spelled
 * as it spells them, so that a program may include both headers.
 */

/* ---- Queues ---------------------------------------------------------- */

struct wq_attr {
	const char *limiter;	/* rate-limiter spec; NULL means "default" */
	uint32_t max_items;	/* most distinct keys held at once (queued,
				 * processing or waiting); 0: module default */
	mode_t mode;		/* permission bits, like mq_open(); 0: 0600 */
	int priority;		/* 1: keys handed out by priority (below);
				 * 0: client-go's FIFO (libwq 1.3) */
	uint64_t starve_ns;	/* with priority: a ready key that has waited
				 * longer goes first, whatever its priority;
				 * 0: never (libwq 1.3) */
};

/*
 * wq_create: a new named queue; attr NULL means all defaults. With
 * attr->priority 1 the queue hands keys out by priority, as
 * controller-runtime's priority queue does: higher first, equal ones in
 * the order they became ready (added, raised, their delay fired, queued
 * again at done); an add keeps the higher of two priorities, and a raise
 * moves the key to the tail of its new level (see wq_add_opts). Returns
 * the fd, or -EEXIST, -EINVAL (a bad name, spec, mode, priority other
 * than 0 or 1, starve_ns without priority, or priority on a module
 * without priority queues), -EACCES, -ENOSPC, -EDQUOT, -ENOMEM.
 */
int wq_create(const char *name, const struct wq_attr *attr);
/*
 * wq_create_private: a new queue with no name, as memfd_create() makes a
 * file with no path: in no IPC namespace, never listed, not openable by
 * name; shared only by passing or inheriting the returned fd (fork,
 * SCM_RIGHTS, pidfd_getfd), and freed when the fd's open file is last
 * closed. Every call below works on it; it counts against the creator's
 * queue budget until freed. attr as wq_create (mode is kept but nobody
 * opens the queue by it). Returns the fd, or -errno (-EINVAL from a
 * module without private queues).
 */
int wq_create_private(const struct wq_attr *attr);
int wq_open(const char *name);
/*
 * wq_open_flags: O_RDONLY (a consumer: get, done), O_WRONLY (a producer:
 * add, add_after, add_rate_limited, forget, shutdown) or O_RDWR (both; what
 * wq_open and wq_create give), optionally | O_NONBLOCK (a get that would
 * wait returns -EAGAIN at once). The queue's mode is checked for the access
 * asked, as mq_open() does (CAP_IPC_OWNER overrides). A call the handle's
 * access does not allow fails with -EBADF; wq_len, wq_stat,
 * wq_shutting_down and wq_num_requeues work with either.
 * Returns the fd, or -ENOENT, -EACCES, -EINVAL (unknown flags), -ENOMEM.
 */
int wq_open_flags(const char *name, int flags);
/*
 * wq_destroy: unlinks the name (handles open keep working until closed).
 * Returns 0, or -ENOENT (no queue of that name in the caller's IPC
 * namespace), -EACCES (not the owner, without CAP_IPC_OWNER).
 *
 * wq_create, wq_open, wq_open_flags, wq_destroy and wq_list open /dev/wq
 * first, which can also fail: -ENOENT (the module is not loaded), -EACCES,
 * -EMFILE, -ENFILE.
 */
int wq_destroy(const char *name);
int wq_close(int fd);

/* ---- Interface (client-go Interface) --------------------------------- */

int wq_add(int fd, const void *key, size_t len);
ssize_t wq_get(int fd, void *buf, size_t cap, int timeout_ms);
int wq_done(int fd, const void *key, size_t len);
int wq_len(int fd);
int wq_shutdown(int fd);
/*
 * wq_shutdown_with_drain: shuts down, then waits until nothing is queued,
 * processing or waiting (timeout_ms < 0: no limit). Returns 0, or
 * -ETIMEDOUT, -ECANCELED (another caller's wq_shutdown, or a discard),
 * -EINTR (a signal handler ran; the call is not restarted, and the queue
 * stays shut down: call it again to go on waiting), -EBADF.
 */
int wq_shutdown_with_drain(int fd, int timeout_ms);
int wq_shutting_down(int fd);

/* ---- DelayingInterface ------------------------------------------------ */

int wq_add_after(int fd, const void *key, size_t len, uint64_t delay_ns);

/* ---- RateLimitingInterface ------------------------------------------- */

int wq_add_rate_limited(int fd, const void *key, size_t len,
			uint64_t *delay_ns);
int wq_forget(int fd, const void *key, size_t len);
int wq_num_requeues(int fd, const void *key, size_t len);

/* ---- Job-queue practice ------------------------------------------------ */

/*
 * Readiness: a handle works with poll(), select() and epoll, level- and
 * edge-triggered. POLLIN: a get would not block (a key is queued, or the
 * queue is shutting down and empty). POLLOUT: an add of a new key would
 * not fail for capacity and the queue is not shutting down. POLLHUP: the
 * queue is shutting down and empty. Every transition into a state wakes
 * the waiters: the first key queued (also by a delay firing), the
 * shutdown, the last key taken after it, room appearing.
 */

/*
 * wq_add_wait: wq_add, but where the add would fail with -EAGAIN for
 * capacity it waits for room: timeout_ms < 0 without limit, 0 not at all
 * (then it is wq_add: -EAGAIN), > 0 at most that long. Room appears when a
 * key stops being held (a done without re-queue, a discard); one freed
 * slot wakes one waiting producer. An add of a key the queue already holds
 * never waits. An O_NONBLOCK handle never waits (-EAGAIN).
 * Returns 0, or -ETIMEDOUT, -EINTR (a signal), -ESHUTDOWN (before or while
 * waiting), -EINVAL (empty or oversize key), -EBADF (no write access),
 * -EDQUOT, -ENOMEM.
 */
int wq_add_wait(int fd, const void *key, size_t len, int timeout_ms);

/*
 * wq_add_opts: one add of any kind that says what it did. flags:
 * WQ_ADD_AFTER (wait delay_ns first; an AddAfter also of 0),
 * WQ_ADD_RATE_LIMITED (the queue's limiter says how long; with
 * WQ_ADD_AFTER, on a priority queue only, the shorter of the two),
 * WQ_ADD_WAIT (wait for room as wq_add_wait, timeout_ms as there),
 * WQ_ADD_PRIORITY (a priority queue only, else -EINVAL: the key's
 * priority, any int32_t, higher first; a new key added without it has 0).
 * Fields a flag does not use must be 0. o NULL is a plain add.
 *
 * On a priority queue an add of a key the queue holds keeps the higher
 * priority, never lowers it (a raise moves the key to the tail of its new
 * level); a key added while processing is queued again at done with the
 * highest priority the adds made meanwhile gave (0 for an add without
 * WQ_ADD_PRIORITY; not the one it was handed out with); an add without a
 * delay of a waiting key queues it at once and drops the waiting copy; a
 * delayed add of a queued key only raises its priority (WQ_ADDED_COALESCED).
 *
 * Returns what the add did, >= 0:
 *   WQ_ADDED_QUEUED     newly queued
 *   WQ_ADDED_COALESCED  queued already: it kept its place (or was raised)
 *   WQ_ADDED_DIRTY      being processed: queued again at its done
 *   WQ_ADDED_WAITING    waits for its delay
 *   WQ_ADDED_KEPT       waits already, for an earlier time: unchanged
 * (an add of a waiting key without a delay queues it: WQ_ADDED_QUEUED; a
 * rate-limited add whose delay is 0 reports as an add), or the errors of
 * the calls above. A module without add outcomes reports 0 for all.
 */
#define WQ_ADD_RATE_LIMITED	_BITUL(0)	/* delay from the limiter */
#define WQ_ADD_WAIT		_BITUL(1)	/* wait for room, not -EAGAIN */
#define WQ_ADD_AFTER		_BITUL(2)	/* an AddAfter, also of 0 ns */
#define WQ_ADD_PRIORITY		_BITUL(3)	/* @priority is given */

#define WQ_ADDED_QUEUED		0	/* newly queued */
#define WQ_ADDED_COALESCED	1	/* already queued: kept its place */
#define WQ_ADDED_DIRTY		2	/* processing: queued again at done */
#define WQ_ADDED_WAITING	3	/* waits for its delay */
#define WQ_ADDED_KEPT		4	/* waits already, not later: unchanged */

struct wq_add_opts {
	uint32_t flags;		/* WQ_ADD_AFTER, WQ_ADD_RATE_LIMITED,
				 * WQ_ADD_WAIT, WQ_ADD_PRIORITY */
	int32_t priority;	/* with WQ_ADD_PRIORITY; else 0 */
	uint64_t delay_ns;	/* with WQ_ADD_AFTER */
	int timeout_ms;		/* with WQ_ADD_WAIT */
};

int wq_add_opts(int fd, const void *key, size_t len,
		const struct wq_add_opts *o);

/*
 * wq_get_priority: wq_get, and *priority (if not NULL) receives the key's
 * priority: the one it is handed out with (0 on a plain queue, and from a
 * module without priority queues).
 */
ssize_t wq_get_priority(int fd, void *buf, size_t cap, int timeout_ms,
			int *priority);

/*
 * wq_key_state: what the queue holds of a key, in one look (stale as soon
 * as it returns). st->flags: WQ_KEY_QUEUED, WQ_KEY_PROCESSING, WQ_KEY_DIRTY
 * (processing, queued again at done), WQ_KEY_WAITING (for a delay; also
 * with another of them); 0 for a key the queue does not hold (whose
 * failures it may still count: requeues). priority: a queued or waiting
 * key's, a processing key's as it was handed out (0 on a plain queue);
 * ready_ns: with WQ_KEY_WAITING, the CLOCK_MONOTONIC time it becomes
 * ready, else 0; requeues: the limiter's failure count (wq_num_requeues).
 * Any handle may ask. Returns 0, or -EINVAL (empty or oversize key),
 * -EFAULT (st NULL), -EBADF, -ENOMEM, -EOPNOTSUPP (a module older than
 * the call).
 */
#define WQ_KEY_QUEUED		_BITUL(0)	/* queued */
#define WQ_KEY_PROCESSING	_BITUL(1)	/* handed out, not done */
#define WQ_KEY_DIRTY		_BITUL(2)	/* processing, queued again at done */
#define WQ_KEY_WAITING		_BITUL(3)	/* waits for its delay */

struct wq_key_state {
	uint32_t flags;		/* WQ_KEY_*; 0: not held */
	int32_t priority;
	uint64_t ready_ns;	/* WQ_KEY_WAITING: CLOCK_MONOTONIC time it becomes ready */
	uint32_t requeues;	/* the limiter's failure count */
};

int wq_key_state(int fd, const void *key, size_t len, struct wq_key_state *st);

/*
 * wq_cancel_after: drops the key's waiting copy (a wq_add_after or
 * wq_add_rate_limited not yet due). A key also queued or processing stays
 * so; one held only by its delay stops being held (its failures are
 * kept). Needs write access. Returns 1 if a waiting copy was dropped, 0
 * if the key was not waiting, or -EINVAL, -EBADF, -ENOMEM, -EOPNOTSUPP
 * (a module older than the call).
 */
int wq_cancel_after(int fd, const void *key, size_t len);

/*
 * Batches: one system call for up to WQ_BATCH_MAX keys. A call-level error
 * changes nothing: -EINVAL (n == 0 or n > WQ_BATCH_MAX), -EFAULT (keys,
 * errs or buf not readable or writable), -EBADF (not a handle, or its
 * access does not allow the call), -ENOMEM.
 *
 * wq_add_batch: adds keys[0..n) in order, each exactly as wq_add would (a
 * key repeated within the batch coalesces). errs, if not NULL, receives
 * each key's result: 0, or -EINVAL (empty or oversize key), -EFAULT (its
 * bytes unreadable), -EAGAIN (no room), -ESHUTDOWN, -EDQUOT, -ENOMEM. A bad
 * key does not stop the others. Returns how many keys succeeded.
 */
int wq_add_batch(int fd, const struct iovec *keys, unsigned int n, int *errs);

/*
 * wq_add_batch_opts: wq_add_batch that says what each add did: results,
 * if not NULL, receives each key's WQ_ADDED_* (>= 0, as wq_add_opts
 * returns) or -errno. o may be NULL; o->flags may hold WQ_ADD_PRIORITY
 * only (every key gets o->priority; a priority queue only), the other
 * fields must be 0 (-EINVAL). Returns how many keys succeeded.
 */
int wq_add_batch_opts(int fd, const struct iovec *keys, unsigned int n,
		      const struct wq_add_opts *o, int *results);

/*
 * wq_get_batch: takes up to n queued keys in FIFO order, each processing
 * as by wq_get. Waits (timeout_ms as for wq_get) only until the first key
 * is available, then takes whatever is queued, up to n and as many as fit
 * in buf[0..cap): the keys are packed into buf and keys[i] points into it.
 * Returns the number of keys taken (at least 1), or -EMSGSIZE if the first
 * key alone does not fit (nothing is taken), or wq_get's errors: -EAGAIN,
 * -ETIMEDOUT, -EINTR, -ESHUTDOWN (shutting down and nothing queued).
 */
ssize_t wq_get_batch(int fd, void *buf, size_t cap, struct iovec *keys,
		     unsigned int n, int timeout_ms);

/*
 * wq_get_batch_priority: wq_get_batch, and priorities (if not NULL)
 * receives each taken key's priority, priorities[i] that of keys[i] (0 on
 * a plain queue). A priority queue hands the keys out in its order.
 */
ssize_t wq_get_batch_priority(int fd, void *buf, size_t cap,
			      struct iovec *keys, unsigned int n,
			      int timeout_ms, int *priorities);

/*
 * wq_done_batch: wq_done for each of keys[0..n); errs as for wq_add_batch
 * (-ENOENT: that key was not being processed). Returns how many succeeded.
 */
int wq_done_batch(int fd, const struct iovec *keys, unsigned int n, int *errs);

/*
 * wq_shutdown_discard: the "cancel: exit now" of a job queue. Shuts down as
 * wq_shutdown and at once drops every queued and waiting key (never handed
 * out) and the dirty mark of every processing key (it will not be queued
 * again). Keys in processing finish normally: wq_done still works.
 * Returns the number of queued and waiting keys dropped (dirty marks are
 * not counted); -EBADF without write access. Idempotent (a second call
 * finds nothing to drop).
 */
int wq_shutdown_discard(int fd);

/*
 * The worker loop in one call (libwq 1.4): a worker ends the key it
 * finished and takes its next one in one system call instead of two.
 *
 * wq_done_get: wq_done(prev) then wq_get(buf), timeout_ms as for wq_get.
 * prev_len 0 skips the done (prev is not read). prev may point into buf
 * (it is read before buf is written): a worker passes back the key it
 * got. If the done fails, nothing else happens and its error is returned
 * (-ENOENT: prev is not being processed); otherwise the result is
 * wq_get's: the key's length, or -EAGAIN, -ETIMEDOUT, -EINTR, -ESHUTDOWN,
 * -EMSGSIZE (the done stays done; the head key stays queued). A dirty
 * prev is queued again by the done and may be the key this call takes.
 * -EINVAL (prev_len over WQ_KEY_MAX) and -EFAULT (prev or buf NULL with a
 * length) change nothing; after -ENOMEM or another -EFAULT the done may
 * have happened or not, as after a wq_done and a wq_get that failed.
 *
 * wq_done_get_batch: wq_done_batch(done_keys, n_done) then
 * wq_get_batch(buf, cap, keys, max), timeout_ms as for wq_get. n_done 0
 * skips the done; a key of done_keys that was not being processed does
 * not stop the others nor the get (wq_done_batch reports each key's
 * result; this call does not). An error of the done call itself (-EINVAL,
 * -EFAULT, -ENOMEM) ends the call before the get; otherwise the result is
 * wq_get_batch's.
 *
 * On a module without them (older than libwq 1.4's), both make the two
 * calls, with the same results, two system calls instead of one.
 */
ssize_t wq_done_get(int fd, const void *prev, size_t prev_len, void *buf,
		    size_t cap, int timeout_ms);
ssize_t wq_done_get_batch(int fd, const struct iovec *done_keys,
			  unsigned int n_done, void *buf, size_t cap,
			  struct iovec *keys, unsigned int max,
			  int timeout_ms);

/*
 * The worker pool: client-go's controller loop on N threads.
 *
 * Each worker loops: wq_get (blocking), handler(key, len, arg), then as
 * processNextWorkItem: a result >= 0 is success and forgets the key; a
 * negative result re-adds it with wq_add_rate_limited while
 * wq_num_requeues(key) is below max_retries (no limit if max_retries < 0),
 * and otherwise forgets it and calls give_up(key, len, result, arg); then
 * wq_done, made with the get of the next key in one call (wq_done_get). So
 * a key that always fails is handled max_retries + 1 times and given up
 * once. NumRequeues counts the failures of the limiter's per-key
 * terms: with a queue whose limiter is "none" or "bucket" alone it stays
 * 0 and max_retries never ends the retries (as in client-go).
 *
 * The handler and give_up run in the workers, several at once for
 * different keys (never for one key in two threads at once: the queue
 * guarantees it), with every signal blocked. A retry that cannot be filed
 * because the queue is shutting down is dropped (as client-go drops it);
 * one that fails otherwise (-ENOMEM) is reported through give_up with that
 * error. Workers exit when the queue is shut down and empty. A worker whose
 * get fails retries (-EINTR), waits in poll() for a key (-EAGAIN: an
 * O_NONBLOCK handle), backs off (-ENOMEM), or exits for an error that will
 * not go away (-EBADF: the handle was closed under it).
 */
typedef int (*wq_handler_fn)(const void *key, size_t len, void *arg);

/*
 * WQ_POOL_URING (libwq 1.5): each worker drives an io_uring of its own
 * (libwq makes it with the system calls: no liburing needed), in which
 * its get waits and its done and next get are one submission; the loop
 * and its results are the same. Where io_uring cannot be used (a kernel
 * without it or disabled by kernel.io_uring_disabled, a module without
 * io_uring commands) the workers use the ioctls, silently.
 */
#define WQ_POOL_URING		_BITUL(0)	/* workers on io_uring */

struct wq_pool_attr {
	unsigned int workers;	/* threads, at least 1 */
	int max_retries;	/* requeues per key before giving up; < 0: no limit */
	void (*give_up)(const void *key, size_t len, int err, void *arg); /* may be NULL */
	void *arg;		/* passed to handler and give_up */
	unsigned int flags;	/* WQ_POOL_URING, or 0 (libwq 1.5) */
};

struct wq_pool;

/*
 * wq_pool_start: starts attr->workers threads on fd, which must allow both
 * reading and writing (O_RDWR, as wq_open and wq_create give) and stay open
 * until wq_pool_stop returns. *pool receives the pool (NULL on failure).
 * Returns 0, or -EINVAL (handler or attr NULL, workers 0, unknown
 * flags), -EFAULT (pool NULL), -EBADF (not a queue handle, or not a
 * read-write one), -ENOMEM, -EAGAIN (threads could not be created; none
 * is left running).
 */
int wq_pool_start(int fd, wq_handler_fn handler,
		  const struct wq_pool_attr *attr, struct wq_pool **pool);

/*
 * wq_pool_stop: shuts the queue down with drain (drain_timeout_ms as for
 * wq_shutdown_with_drain: < 0 no limit; a signal does not cut it short),
 * or, with drain_timeout_ms == 0, discarding (wq_shutdown_discard), then
 * joins every worker and frees the pool. Returns the drain's result: 0
 * (also after a discard), -ETIMEDOUT, -ECANCELED (another caller's
 * wq_shutdown), -EBADF. When the drain fails the workers leave after the
 * key in hand (the stop waits for the handlers running, not for the keys
 * still queued, which stay queued). Call it once, from one thread that is
 * not a worker (it joins them: never from the handler or give_up).
 */
int wq_pool_stop(struct wq_pool *pool, int drain_timeout_ms);

/* ---- Extensions (not in client-go) ----------------------------------- */

/*
 * wq_get_detached: as wq_get, but the key is not put back on the queue when
 * this handle is closed: it stays processing until some handle calls
 * wq_done. For tools whose process ends between get and done (wqctl).
 */
ssize_t wq_get_detached(int fd, void *buf, size_t cap, int timeout_ms);
/* wq_get_batch whose keys are detached as by wq_get_detached. */
ssize_t wq_get_batch_detached(int fd, void *buf, size_t cap,
			      struct iovec *keys, unsigned int n,
			      int timeout_ms);

struct wq_stats {
	char name[WQ_NAME_MAX];
	char limiter[256];	/* the rate limiter, as a spec */
	uint32_t queued;	/* wq_len */
	uint32_t processing;	/* handed out, not yet done */
	uint32_t waiting;	/* waiting for an AddAfter delay */
	uint32_t dirty;		/* processing, queued again at done */
	uint32_t keys;		/* distinct keys held (counts to max_items) */
	uint32_t tracked;	/* keys with rate limiter state */
	uint32_t max_tracked;	/* most keys kept only for their failures */
	uint32_t max_items;
	uint32_t handles;	/* open handles */
	uint32_t uid;
	uint32_t gid;
	uint32_t mode;
	int shutting_down;
	int draining;		/* a wq_shutdown_with_drain is waiting */
	int unlinked;		/* destroyed, kept alive by open handles */
	uint64_t adds;		/* client-go workqueue_adds_total */
	uint64_t retries;	/* client-go workqueue_retries_total */
	uint64_t evicted;	/* failure records forgotten for max_tracked */
	uint64_t id;		/* the queue's identity: never reused while the
				   module is loaded (a name is); 0 from a
				   module too old to say */
	int priority;		/* 1: hands keys out by priority (wq_attr;
				   libwq 1.3) */
};

/* ---- Metrics (wq_metrics(3)) ----------------------------------------- */

#define WQ_HIST_MAX 32
struct wq_histogram {
	uint64_t count;            /* observations */
	uint64_t sum_ns;           /* their sum */
	uint32_t nbuckets;         /* entries used in le_ns and bucket */
	uint64_t le_ns[WQ_HIST_MAX];   /* upper bounds, ascending; the last is UINT64_MAX (+Inf) */
	uint64_t bucket[WQ_HIST_MAX];  /* cumulative: observations <= le_ns[i] */
};
#define WQ_LEVELS_MAX 16
struct wq_level {
	int32_t priority;             /* the level (the highest of the summed ones) */
	uint32_t reserved;            /* 0 */
	uint64_t depth;               /* keys queued at it, and processing keys dirty
	                                 to be queued at it (as depth) */
};
struct wq_metrics {
	/* client-go's workqueue metrics, same meanings */
	uint64_t depth;               /* workqueue_depth: keys added and not yet handed out
	                                 (queued, and processing keys marked dirty) */
	uint64_t adds_total;          /* workqueue_adds_total: adds that made a key newly dirty */
	uint64_t retries_total;       /* workqueue_retries_total: every AddAfter and AddRateLimited */
	uint64_t unfinished_work_ns;  /* workqueue_unfinished_work_seconds, in ns: sum of the
	                                 ages of the keys in processing */
	uint64_t longest_running_ns;  /* workqueue_longest_running_processor_seconds, in ns */
	struct wq_histogram queue_duration; /* workqueue_queue_duration_seconds: first add to get */
	struct wq_histogram work_duration;  /* workqueue_work_duration_seconds: get to done */
	/* what client-go cannot see */
	uint64_t queued, processing, waiting, tracked;
	uint64_t refused_total;       /* adds refused for capacity (-EAGAIN) */
	uint64_t requeued_on_close_total; /* keys put back because their handle closed */
	uint64_t discarded_total;     /* keys dropped by wq_shutdown_discard or shutdown */
	/* a priority queue's depth by priority (libwq 1.3) */
	uint32_t nr_levels;           /* entries of levels used: the levels holding keys,
	                                 highest first; 0 on a plain queue */
	uint32_t levels_summed;       /* levels beyond the first WQ_LEVELS_MAX - 1, whose
	                                 depths the last entry sums; 0 if none */
	struct wq_level levels[WQ_LEVELS_MAX];
};
/*
 * The metrics of the queue behind fd, in one snapshot (the gauges exact at
 * the time of the call, counters never going back). Either access mode.
 * Histogram bounds: 1, 2.5 and 5 per decade from 10 ns to 5 s, then 10 s,
 * 100 s, 1000 s and +Inf (31 buckets; client-go's 1e-8..10 s among them).
 * retries_total counts every wq_add_after (also of 0 ns) and
 * wq_add_rate_limited that did not fail. A key a closing handle put back
 * counts its queue_duration from the put back.
 * Returns 0, or -EBADF (not a queue handle), -EFAULT (m NULL or unwritable),
 * -ENOMEM.
 */
int wq_metrics(int fd, struct wq_metrics *m);

/* Statistics of the queue behind fd. */
int wq_stat(int fd, struct wq_stats *st);
/* Every named queue: fills up to cap entries, returns how many exist. */
int wq_list(struct wq_stats *st, size_t cap);
/* 0 if spec is a valid rate-limiter spec, else -EINVAL. */
int wq_limiter_check(const char *spec);
/* Parses a Go duration ("250ms", "1.5s", "1h30m") into nanoseconds. */
int wq_parse_duration(const char *s, uint64_t *ns);
/* Writes a duration the way Go prints it; returns the length. */
int wq_format_duration(char *buf, size_t cap, uint64_t ns);

/* ---- Versions and the module (wq_module_info(3); libwq 1.6) --------- */

/* "MAJOR.MINOR.PATCH" of the libwq the program runs with. */
const char *wq_version(void);

/* struct wq_modinfo.features: what a module older than them lacks */
#define WQ_FEATURE_ADD_OUTCOME	_BITUL(0)	/* wq_add_opts() outcomes */
#define WQ_FEATURE_KEY_STATE	_BITUL(1)	/* a get's key state */
#define WQ_FEATURE_PRIORITY	_BITUL(2)	/* priority queues */
#define WQ_FEATURE_KEY_CALLS	_BITUL(3)	/* wq_key_state, wq_cancel_after */
#define WQ_FEATURE_DONE_GET	_BITUL(4)	/* wq_done_get, wq_done_get_batch */
#define WQ_FEATURE_URING	_BITUL(5)	/* io_uring commands (wq_uring.h) */

struct wq_modinfo {
	uint32_t abi_version;		/* the module's ioctl ABI version */
	uint32_t features;		/* WQ_FEATURE_* */
	uint32_t key_max;		/* WQ_KEY_MAX */
	uint32_t batch_max;		/* WQ_BATCH_MAX */
	uint32_t max_queues;		/* most named queues of the caller's IPC
					   namespace (max_queues or ns_max_queues) */
	uint32_t default_max_items;	/* max_items of a queue created with 0 */
	uint32_t max_items_limit;	/* largest max_items accepted */
	uint32_t unpriv_max_items;	/* largest without CAP_SYS_RESOURCE */
	uint32_t default_max_tracked;
	uint32_t unpriv_max_tracked;
	uint32_t user_max_queues;	/* the per-user queue quota */
	uint32_t user_queues;		/* the caller's queues charged now */
	uint64_t user_max_key_bytes;	/* the per-user key quota, in bytes */
	uint64_t user_key_bytes;	/* the caller's key bytes charged now */
	uint32_t key_cost;		/* what a key costs beyond its bytes */
	uint32_t reserved;		/* 0 */
	char version[32];		/* the module's version (modinfo's
					   "version", /sys/module/wq/version),
					   "" if it does not say */
};
/*
 * What the loaded module supports, its limits and the caller's quota use
 * (WQ_IOC_MODULE_INFO on a fresh /dev/wq handle). Returns 0, or -EFAULT
 * (mi NULL), -ENOENT (no /dev/wq: the module is not loaded), -EACCES (the
 * device's mode), -EMFILE, -ENFILE.
 */
int wq_module_info(struct wq_modinfo *mi);

#ifdef __cplusplus
}
#endif

#endif /* LIBWQ_WQ_H */
