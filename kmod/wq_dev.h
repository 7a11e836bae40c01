/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wq: the misc device and its ioctls (wq_dev.c), and the batch ioctls
 * (wq_batch.c), which share the handle and the ioctl conventions.
 */
#ifndef _WQ_DEV_H
#define _WQ_DEV_H

#include <linux/bits.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include "wq_queue.h"

struct io_uring_cmd;

/**
 * struct wq_handle - one open file of /dev/wq
 * @bind_lock: serializes CREATE and OPEN on this file
 * @q: the bound queue (one reference), or NULL
 * @access: MAY_READ and/or MAY_WRITE, fixed when @q is set (and published
 *	with it)
 * @unlimited: bound by a holder of CAP_SYS_RESOURCE: its adds are charged
 *	beyond the queue owner's budget (wq_quota.h); fixed with @access, so
 *	it goes with the file (fork, SCM_RIGHTS), as open-time rights do
 * @holder: keys this handle got and has not done yet
 * @file: the file (for its O_NONBLOCK and its opener's credentials)
 * @ipc: the IPC namespace the file was opened in: its names (wq_ipc.h)
 * @pollq: where poll() and epoll wait, bound or not: the queue's wake-ups
 *	reach it through @fwd_get and @fwd_put
 * @fwd_get: on q->getters once the handle is polled, passing its wake-ups
 *	on to @pollq
 * @fwd_put: the same on q->producers
 * @fwd_lock: serializes arming them (never taken by their wake function)
 * @fwd_armed: @fwd_get and @fwd_put are on the queue's wait queues
 *	(set under @fwd_lock once both are, read with acquire)
 * @park_lock: protects @parked and @nr_parked
 * @parked: io_uring commands parked on this handle (wq_uring.c)
 * @nr_parked: how many
 */
struct wq_handle {
	struct mutex bind_lock;		/* serializes binding */
	struct kwq *q;
	int access;
	bool unlimited;
	struct kwq_holder holder;
	struct file *file;
	struct wq_ipc *ipc;
	wait_queue_head_t pollq;
	struct wait_queue_entry fwd_get;
	struct wait_queue_entry fwd_put;
	spinlock_t fwd_lock;		/* see above */
	bool fwd_armed;
	spinlock_t park_lock;		/* see above */
	struct list_head parked;
	unsigned int nr_parked;
};

/*
 * What the keys userspace adds are allocated with: charged to the caller's
 * memory cgroup, and refused (-ENOMEM) rather than calling the OOM killer
 * when the cgroup or the machine is out of memory: a queue that cannot
 * take a key says so, as a bounded one does.
 */
#define WQ_GFP_KEYS	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

/*
 * An ioctl handler: @arg is a kernel copy of the struct at @uarg. An
 * io_uring command (wq_uring.c) calls it with @uarg NULL: a handler then
 * writes nothing back, and its result is all the caller gets.
 */
typedef long (*wq_ioc_fn)(struct wq_handle *h, struct kwq *q, void *arg,
			  void __user *uarg);

/* Flags of struct wq_ioctl_op. */
#define WQ_OP_BOUND		BIT(0)	/* needs a bound handle (-EBADF) */
#define WQ_OP_COPIES_OUT	BIT(1)	/* the handler writes its results */
#define WQ_OP_PROBES		BIT(4)	/* ... and checks first they can be */
#define WQ_OP_URING		BIT(5)	/* also an io_uring command */
#define WQ_OP_READ		(BIT(2) | WQ_OP_BOUND)	/* a consumer's call */
#define WQ_OP_WRITE		(BIT(3) | WQ_OP_BOUND)	/* a producer's call */

/**
 * struct wq_ioctl_op - one command of the table
 * @cmd: the full command number
 * @size: the kernel's struct size
 * @min_size: the size of the struct's first version
 * @flags: WQ_OP_*
 * @result: offset of a __u32 result field added in a later version of the
 *	struct, or 0 for none: a handler's result >= 0 goes there if the
 *	caller's struct has it (checked writable first, by writing back what
 *	was read, which the handler requires to be 0) and the call returns 0
 * @fn: the handler; @arg is a kernel copy of the struct at @uarg
 */
struct wq_ioctl_op {
	unsigned int cmd;
	u32 size;
	u32 min_size;
	unsigned int flags;
	u32 result;
	wq_ioc_fn fn;
};

/*
 * WQ_ADD_* bit of the kernel's copy of a struct wq_add only: set by an
 * io_uring command issued where it may not sleep (wq_uring.c), never
 * taken from a caller's struct. A WQ_ADD_WAIT add of a full queue then
 * fails with -EAGAIN, not counted as refused: it is made again where it
 * can wait.
 */
#define WQ_ADD_TRY		BIT(31)

const struct wq_ioctl_op *wq_op_find(struct wq_handle *h, unsigned int cmd,
				     struct kwq **qp);
int wq_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);
void wq_uring_flush(struct wq_handle *h, fl_owner_t owner);
void wq_uring_exit(void);
long wq_ioc_uring_cancel(struct wq_handle *h, struct kwq *q, void *arg,
			 void __user *uarg);

int wq_deadline(u64 ns, ktime_t *deadline);

long wq_ioc_add(struct wq_handle *h, struct kwq *q, void *arg,
		void __user *uarg);
long wq_ioc_get(struct wq_handle *h, struct kwq *q, void *arg,
		void __user *uarg);
long wq_ioc_done(struct wq_handle *h, struct kwq *q, void *arg,
		 void __user *uarg);
long wq_ioc_forget(struct wq_handle *h, struct kwq *q, void *arg,
		   void __user *uarg);
long wq_ioc_num_requeues(struct wq_handle *h, struct kwq *q, void *arg,
			 void __user *uarg);
long wq_ioc_done_get(struct wq_handle *h, struct kwq *q, void *arg,
		     void __user *uarg);
long wq_ioc_done_get_batch(struct wq_handle *h, struct kwq *q, void *arg,
			   void __user *uarg);
long wq_ioc_cancel_after(struct wq_handle *h, struct kwq *q, void *arg,
			 void __user *uarg);
long wq_ioc_key_state(struct wq_handle *h, struct kwq *q, void *arg,
		      void __user *uarg);
long wq_ioc_add_batch(struct wq_handle *h, struct kwq *q, void *arg,
		      void __user *uarg);
long wq_ioc_get_batch(struct wq_handle *h, struct kwq *q, void *arg,
		      void __user *uarg);
long wq_ioc_done_batch(struct wq_handle *h, struct kwq *q, void *arg,
		       void __user *uarg);

int wq_dev_init(void);
void wq_dev_exit(void);

#endif /* _WQ_DEV_H */
