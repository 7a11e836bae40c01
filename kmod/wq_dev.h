/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wq: the misc device and its ioctls (wq_dev.c), and the batch ioctls
 * (wq_batch.c), which share the handle and the ioctl conventions.
 */
#ifndef _WQ_DEV_H
#define _WQ_DEV_H

#include <linux/fs.h>
#include <linux/mutex.h>

#include "wq_queue.h"

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
 * @file: the file (for its O_NONBLOCK)
 * @ipc: the IPC namespace the file was opened in: its names (wq_ipc.h)
 */
struct wq_handle {
	struct mutex bind_lock;		/* serializes binding */
	struct kwq *q;
	int access;
	bool unlimited;
	struct kwq_holder holder;
	struct file *file;
	struct wq_ipc *ipc;
};

/*
 * What the keys userspace adds are allocated with: charged to the caller's
 * memory cgroup, and refused (-ENOMEM) rather than calling the OOM killer
 * when the cgroup or the machine is out of memory: a queue that cannot
 * take a key says so, as a bounded one does.
 */
#define WQ_GFP_KEYS	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL)

/* An ioctl handler: @arg is a kernel copy of the struct at @uarg. */
typedef long (*wq_ioc_fn)(struct wq_handle *h, struct kwq *q, void *arg,
			  void __user *uarg);

int wq_deadline(u64 ns, ktime_t *deadline);
long wq_ioc_module_info(struct wq_handle *h, struct kwq *q, void *arg,
			void __user *uarg);
long wq_ioc_list(struct wq_handle *h, struct kwq *q, void *arg,
		 void __user *uarg);
long wq_ioc_stat(struct wq_handle *h, struct kwq *q, void *arg,
		 void __user *uarg);
long wq_ioc_metrics(struct wq_handle *h, struct kwq *q, void *arg,
		    void __user *uarg);
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
