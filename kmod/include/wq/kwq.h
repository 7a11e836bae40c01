/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kwq: wq's work queues for other kernel modules.
 *
 * The same queues as /dev/wq (client-go's workqueue: a deduplicating FIFO
 * of keys with dirty and processing sets, delays, rate limiting), called
 * directly. A named queue is the registry entry that userspace opens by
 * that name, so a kernel producer can feed a userspace consumer and the
 * other way round; an anonymous queue (name NULL) is private to its
 * creator.
 *
 * Names: the kernel API's names are those of the initial IPC namespace
 * (userspace in another IPC namespace neither sees nor opens them, as with
 * POSIX message queues). Names beginning with WQ_KERNEL_PREFIX
 * ("kernel.mydriver") are reserved for the kernel API: no user can create
 * one, so none can take the name before the module does. Any other name
 * is shared with the initial namespace's users, and whoever creates it
 * first owns it (kwq_create() then fails with -EEXIST): use the prefix.
 *
 * Keys are byte strings of 1 to WQ_KEY_MAX bytes, compared by their bytes.
 * On an anonymous queue (kwq_create(NULL, ...)) a module that wants pointer
 * identity may pass the pointer itself as the key: kwq_add(q, &obj,
 * sizeof(obj), GFP_KERNEL) (and keep the object alive while its key may be
 * in the queue). Never on a named queue: whoever may open it from userspace
 * reads its keys (a kernel address leak) and adds keys of its own (forged
 * pointers the kernel would then dereference). Key a named queue by an id
 * instead (an object number, a name) and look the object up from it.
 *
 * Memory: the queue copies keys in (kwq_add*) and out (kwq_get*, into the
 * caller's buffer). The caller owns its buffers at all times; a key handed
 * out stays "processing" until kwq_done() with the same bytes, which any
 * user of the queue may call. kwq_get_held() also hands out a handle with
 * which kwq_done_held() ends the processing without hashing or looking up
 * the key: the worker's fast path.
 *
 * Lifetime: kwq_create() and kwq_open() return a reference; kwq_put() drops
 * it; the queue is freed when its last reference goes (a named queue's name
 * holds one until kwq_destroy()). Every exported symbol pins wq.ko while a
 * module using it is loaded.
 *
 * Worker pools: start kthreads with kthread_create(), take a reference
 * with get_task_struct(), then wake_up_process() (kthread_run() would let a
 * thread that exits early be freed before the reference is taken); they
 * loop on kwq_get() with a buffer of WQ_KEY_MAX bytes (kmalloc'ed: too big
 * for a kernel stack); at exit call kwq_shutdown() (or
 * kwq_shutdown_with_drain()), which makes every blocked and later kwq_get()
 * return -ESHUTDOWN once the queue is empty, then kthread_stop() and
 * put_task_struct() them, then kwq_unlink() and kwq_put().
 *
 * Symbols are exported in the WQ namespace: MODULE_IMPORT_NS(WQ_NS);
 * build against wq's Module.symvers (KBUILD_EXTRA_SYMBOLS), with wq's
 * kmod/include and its top directory (for <uapi/linux/wq.h>) on the
 * include path: ccflags-y += -I$(WQ)/kmod/include -I$(WQ).
 */
#ifndef _WQ_KWQ_H
#define _WQ_KWQ_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/types.h>

#include <uapi/linux/wq.h>
#include <wq/compat.h>

/* The kernel's own include/uapi comes first on the include path. */
#ifndef WQ_LIMITER_DEFAULT_INIT
#error "<uapi/linux/wq.h> is not wq's: put wq's top directory on the include path"
#endif

struct kwq;

/**
 * struct kwq_attr - how to create a queue
 * @limiter: the rate limiter (struct wq_limiter terms); NULL means
 *	kwq_default_limiter (exponential 5ms..1000s, bucket 10/s burst 100)
 * @max_items: most distinct keys held at once; 0 means the module default
 * @max_tracked: most keys kept only for their failures; 0: the default
 * @mode: permission bits of a named queue for userspace; 0 means 0600
 *	(owner root)
 * @flags: WQ_CREATE_PRIORITY (uapi) for a priority queue, or 0
 * @starve_ns: with WQ_CREATE_PRIORITY, a ready key older than this goes
 *	before every younger one (0: never); otherwise 0
 */
struct kwq_attr {
	const struct wq_limiter *limiter;
	u32 max_items;
	u32 max_tracked;
	umode_t mode;
	u32 flags;
	u64 starve_ns;
};

/**
 * struct kwq_add_opts - one add of any kind (kwq_add_opts())
 * @flags: WQ_ADD_AFTER, WQ_ADD_RATE_LIMITED (both: the shorter delay, on a
 *	priority queue only), WQ_ADD_PRIORITY (a priority queue only)
 * @priority: with WQ_ADD_PRIORITY the key's priority; otherwise 0
 * @delay_ns: with WQ_ADD_AFTER the delay; otherwise 0
 */
struct kwq_add_opts {
	u32 flags;
	s32 priority;
	u64 delay_ns;
};

/**
 * struct kwq_key_info - what a queue holds of a key (kwq_key_state())
 * @state: WQ_KEY_* (0: the queue neither holds the key nor counts its
 *	failures)
 * @priority: a queued or waiting key's priority; a key in processing: the
 *	one it was handed out with; 0 on a plain queue
 * @ready_ns: with WQ_KEY_WAITING, the CLOCK_MONOTONIC time it becomes
 *	ready
 * @requeues: the limiter's failures of the key
 */
struct kwq_key_info {
	u32 state;
	s32 priority;
	u64 ready_ns;
	u32 requeues;
};

struct kwq_item;

/**
 * struct kwq_held - a key kwq_get_held() handed out, for kwq_done_held()
 * @priority: the priority the key was handed out with (0 on a plain
 *	queue), as kwq_get_priority() says it
 *
 * The rest is opaque. Give each handle back with kwq_done_held() once,
 * also when the key's processing has ended some other way (kwq_done() of
 * its bytes, by anyone): until then the queue keeps the key's record (at
 * most 152 bytes) for it, however long ago the key went. The handle holds
 * no reference on the queue: keep yours until the handle is given back.
 * Copies of a handle are not handles. A record with 63 handles not given
 * back is kept until its queue is freed.
 */
struct kwq_held {
	s32 priority;
	/* private: */
	struct kwq *q;
	struct kwq_item *rec;
	u64 gen;
};

extern const struct wq_limiter kwq_default_limiter;

/* kwq_get() flags */
#define KWQ_GET_KILLABLE	BIT(1)	/* only fatal signals interrupt */

/* timeout_ns that never expires */
#define KWQ_TIMEOUT_NONE	U64_MAX

struct kwq *kwq_create(const char *name, const struct kwq_attr *attr);
struct kwq *kwq_open(const char *name);
int kwq_destroy(const char *name);
int kwq_unlink(struct kwq *q);
struct kwq *kwq_ref(struct kwq *q);
void kwq_put(struct kwq *q);

int kwq_add(struct kwq *q, const void *key, size_t len, gfp_t gfp);
int kwq_add_after(struct kwq *q, const void *key, size_t len, u64 delay_ns,
		  gfp_t gfp);
int kwq_add_rate_limited(struct kwq *q, const void *key, size_t len,
			 u64 *delay_ns, gfp_t gfp);
int kwq_add_opts(struct kwq *q, const void *key, size_t len,
		 const struct kwq_add_opts *o, u64 *delay_ns, gfp_t gfp);
int kwq_key_state(struct kwq *q, const void *key, size_t len,
		  struct kwq_key_info *info);
int kwq_cancel_after(struct kwq *q, const void *key, size_t len);
ssize_t kwq_get(struct kwq *q, void *buf, size_t cap, unsigned int flags);
ssize_t kwq_get_timeout(struct kwq *q, void *buf, size_t cap, u64 timeout_ns,
			unsigned int flags);
ssize_t kwq_try_get(struct kwq *q, void *buf, size_t cap);
ssize_t kwq_get_priority(struct kwq *q, void *buf, size_t cap,
			 u64 timeout_ns, unsigned int flags, int *priority);
ssize_t kwq_get_held(struct kwq *q, void *buf, size_t cap, u64 timeout_ns,
		     unsigned int flags, struct kwq_held *held);
int kwq_done(struct kwq *q, const void *key, size_t len);
int kwq_done_held(struct kwq *q, struct kwq_held *held);
int kwq_forget(struct kwq *q, const void *key, size_t len);
int kwq_num_requeues(struct kwq *q, const void *key, size_t len);
unsigned int kwq_len(struct kwq *q);
void kwq_shutdown(struct kwq *q);
int kwq_shutdown_with_drain(struct kwq *q, u64 timeout_ns);
bool kwq_shutting_down(struct kwq *q);
void kwq_metrics(struct kwq *q, struct wq_metrics_info *m);

#endif /* _WQ_KWQ_H */
