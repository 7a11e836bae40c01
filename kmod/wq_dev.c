// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wq: the userspace front end. Each open file is a handle; CREATE or
 * OPEN binds it to one named queue for the rest of its life.
 *
 * Every ioctl argument is validated before anything changes: unknown
 * commands are -ENOTTY; sizes below a struct's first version -EINVAL;
 * unknown flags, non-zero reserved fields, bad lengths and names -EINVAL;
 * unreadable or unwritable user memory -EFAULT.
 *
 * Rights are the opener's: the permission, capability and quota checks of
 * CREATE, OPEN, DESTROY, LIST and MODULE_INFO, and the ids STAT and LIST
 * report, are made with the file's credentials (file->f_cred, through
 * wq_as_opener()), as write() and ioctl() paths must, so a descriptor
 * passed to another process acts with its opener's rights, never with the
 * receiver's. Only those calls run so: user memory is never touched with
 * them.
 *
 * Locking: h->bind_lock (mutex) serializes binding; h->q is written once
 * under it (smp_store_release) and read locklessly (smp_load_acquire).
 * Ioctls on a bound handle take the queue's own locks (wq_queue.h).
 * Pollers wait on h->pollq; once the handle is bound and polled, its two
 * forwarding entries on the queue's wait queues pass every wake-up on to
 * it (wq_poll_arm()); their wake function takes h->pollq.lock inside the
 * queue's wait queue lock.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "wq_delay.h"
#include "wq_dev.h"
#include "wq_ipc.h"
#include "wq_main.h"
#include "wq_metrics.h"
#include "wq_quota.h"
#include "wq_record.h"
#include "wq_registry.h"

/*
 * Run as @h's opener (override_creds() of the file's credentials), for a
 * check of rights, until revert_creds() of what this returns.
 */
static const struct cred *wq_as_opener(struct wq_handle *h)
{
	return override_creds(h->file->f_cred);
}

/* The access a file of /dev/wq was opened with, as MAY_* bits. */
static int wq_file_access(const struct file *file)
{
	return ((file->f_mode & FMODE_READ) ? MAY_READ : 0) |
	       ((file->f_mode & FMODE_WRITE) ? MAY_WRITE : 0);
}

/* The queue of a bound handle, or NULL. */
static struct kwq *wq_bound(struct wq_handle *h)
{
	/* Pairs with smp_store_release() in wq_bind(). */
	return smp_load_acquire(&h->q);
}

/*
 * A wake-up of the queue's getters or producers, passed on to pollers (one
 * EPOLLEXCLUSIVE waiter, as a wake-up of a file's own wait queue wakes).
 */
static int wq_poll_forward(struct wait_queue_entry *wait, unsigned int mode,
			   int sync, void *key)
{
	struct wq_handle *h = wait->private;

	__wake_up(&h->pollq, mode, 1, key);
	return 0;
}

/*
 * Put the forwarding entries on @q's wait queues, once: from then on every
 * wake-up of getters or producers reaches the handle's pollers (and costs
 * the wakers the handle's pollq lock, for the queue's life). A poller that
 * sees them armed sees them on the wait queues: set after both, released.
 */
static void wq_poll_arm(struct wq_handle *h, struct kwq *q)
{
	if (smp_load_acquire(&h->fwd_armed))	/* pairs with the release */
		return;
	spin_lock(&h->fwd_lock);
	if (!h->fwd_armed) {
		add_wait_queue(&q->getters, &h->fwd_get);
		add_wait_queue(&q->producers, &h->fwd_put);
		/* the entries are on the queues before it reads armed */
		smp_store_release(&h->fwd_armed, true);
	}
	spin_unlock(&h->fwd_lock);
}

/*
 * The handle was just bound to @q: pollers that came before (an epoll
 * registration made before CREATE or OPEN) are armed and woken, to look
 * at the queue. A poller that registers after this look finds h->q set:
 * h->pollq's lock orders the two.
 */
static void wq_poll_bound(struct wq_handle *h, struct kwq *q)
{
	unsigned long flags;
	bool waiting;

	spin_lock_irqsave(&h->pollq.lock, flags);
	/* under the lock poll_wait() takes: see the comment above */
	waiting = waitqueue_active(&h->pollq);
	spin_unlock_irqrestore(&h->pollq.lock, flags);
	if (!waiting)
		return;
	wq_poll_arm(h, q);
	wake_up_poll(&h->pollq, EPOLLIN | EPOLLOUT | EPOLLRDNORM |
				EPOLLWRNORM);
}

/*
 * CREATE (@name NULL: @arg is the struct wq_create) or OPEN @name with
 * @access (MAY_READ and/or MAY_WRITE).
 */
static long wq_bind(struct wq_handle *h, const char *name, int access,
		    const void *arg)
{
	const struct cred *old;
	struct kwq *q;
	long ret;

	/* the device file must allow what the handle will do */
	if (access & ~wq_file_access(h->file))
		return -EBADF;
	mutex_lock(&h->bind_lock);
	if (h->q) {
		ret = -EBUSY;
		goto out;
	}
	old = wq_as_opener(h);
	if (!name)
		ret = wq_registry_create(h->ipc, arg, &q);
	else
		ret = wq_registry_open(h->ipc, name, access, &q);
	h->unlimited = !ret && (access & MAY_WRITE) &&
		       ns_capable_noaudit(&init_user_ns, CAP_SYS_RESOURCE);
	revert_creds(old);
	if (ret)
		goto out;
	/* a new queue keeps its creator's id: only an open can fail here */
	ret = kwq_holder_attach(q, &h->holder, !name);
	if (ret) {
		kwq_put(q);
		goto out;
	}
	h->access = access;
	atomic_inc(&q->handles);
	/* Publish the queue fully set up; pairs with wq_bound(). */
	smp_store_release(&h->q, q);
	wq_poll_bound(h, q);
out:
	mutex_unlock(&h->bind_lock);
	return ret;
}

/**
 * wq_deadline() - a deadline_ns field as a ktime_t
 * @ns: WQ_DEADLINE_NONE (wait forever), or a time that fits a ktime_t
 * @deadline: set to the time, KTIME_MAX for none
 *
 * Return: 0 or -EINVAL.
 */
int wq_deadline(u64 ns, ktime_t *deadline)
{
	if (ns == WQ_DEADLINE_NONE) {
		*deadline = KTIME_MAX;
		return 0;
	}
	if (ns > KTIME_MAX)
		return -EINVAL;
	*deadline = ns;
	return 0;
}

static long wq_ioc_create(struct wq_handle *h, struct kwq *q, void *arg,
			  void __user *uarg)
{
	return wq_bind(h, NULL, MAY_READ | MAY_WRITE, arg);
}

static int wq_check_name_arg(const struct wq_name *n, u32 flags)
{
	if ((n->flags & ~flags) || n->reserved)
		return -EINVAL;
	return wq_check_name(n->name);
}

static long wq_ioc_open(struct wq_handle *h, struct kwq *q, void *arg,
			void __user *uarg)
{
	struct wq_name *n = arg;
	int access = MAY_READ | MAY_WRITE;
	int ret;

	ret = wq_check_name_arg(n, WQ_OPEN_READ_ONLY | WQ_OPEN_WRITE_ONLY);
	if (ret)
		return ret;
	switch (n->flags) {
	case WQ_OPEN_READ_ONLY:
		access = MAY_READ;
		break;
	case WQ_OPEN_WRITE_ONLY:
		access = MAY_WRITE;
		break;
	case 0:
		break;
	default:
		return -EINVAL;		/* both */
	}
	return wq_bind(h, n->name, access, NULL);
}

static long wq_ioc_destroy(struct wq_handle *h, struct kwq *q, void *arg,
			   void __user *uarg)
{
	struct wq_name *n = arg;
	const struct cred *old;
	int ret = wq_check_name_arg(n, 0);

	if (ret)
		return ret;
	old = wq_as_opener(h);
	ret = wq_registry_unlink(h->ipc, n->name, true);
	revert_creds(old);
	return ret;
}

static long wq_ioc_shutdown(struct wq_handle *h, struct kwq *q, void *arg,
			    void __user *uarg)
{
	struct wq_shutdown *s = arg;
	ktime_t deadline;

	if ((s->flags & ~(WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD)) ||
	    s->reserved ||
	    (s->flags == (WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD)))
		return -EINVAL;
	if (!(s->flags & WQ_SHUTDOWN_DRAIN)) {
		if (s->deadline_ns)
			return -EINVAL;
		if (s->flags & WQ_SHUTDOWN_DISCARD)
			return min_t(unsigned int, kwq_queue_discard(q), INT_MAX);
		kwq_shutdown(q);
		kwq_delay_drop_all(q);	/* none left waiting on return */
		return 0;
	}
	if (wq_deadline(s->deadline_ns, &deadline))
		return -EINVAL;
	return kwq_queue_drain(q, deadline);
}

/* The ioctls that report: the module, the list, a queue's numbers. */

/**
 * wq_ioc_module_info() - WQ_IOC_MODULE_INFO: limits and the caller's usage
 * @h: the handle
 * @q: its queue (NULL where the command needs none)
 * @arg: the kernel copy of the command's struct
 * @uarg: the user's struct
 *
 * Context: process context (an ioctl).
 * Return: 0 or a negative errno.
 */
static long wq_ioc_module_info(struct wq_handle *h, struct kwq *q, void *arg,
			       void __user *uarg)
{
	struct wq_module_info *mi = arg;
	u32 limit = wq_items_limit();
	u32 items_ceil = READ_ONCE(wq_unpriv_max_items);
	u32 tracked_ceil = READ_ONCE(wq_unpriv_max_tracked);
	const struct cred *old;

	mi->abi_version = WQ_ABI_VERSION;
	mi->key_max = WQ_KEY_MAX;
	mi->max_queues = wq_registry_max_queues(h->ipc);
	mi->default_max_items = wq_items_default(&wq_default_max_items,
						 items_ceil, limit);
	mi->max_items_limit = limit;
	mi->limiter_terms_max = WQ_LIMITER_TERMS_MAX;
	mi->add_flags = WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER;
	mi->get_flags = WQ_GET_NONBLOCK | WQ_GET_DETACH;
	mi->shutdown_flags = WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD;
	mi->default_max_tracked = wq_items_default(&wq_default_max_tracked,
						   tracked_ceil, limit);
	mi->user_max_queues = READ_ONCE(wq_user_max_queues);
	mi->unpriv_max_items = items_ceil;
	mi->unpriv_max_tracked = tracked_ceil;
	mi->key_cost = WQ_KEY_COST;
	mi->user_max_key_bytes = READ_ONCE(wq_user_max_key_bytes);
	old = wq_as_opener(h);
	wq_quota_usage(&mi->user_queues, &mi->user_key_bytes);
	revert_creds(old);
	mi->create_flags = WQ_CREATE_PRIVATE | WQ_CREATE_PRIORITY;
	mi->features = WQ_FEATURE_ADD_OUTCOME | WQ_FEATURE_KEY_STATE |
		       WQ_FEATURE_PRIORITY | WQ_FEATURE_KEY_CALLS |
		       WQ_FEATURE_DONE_GET | WQ_FEATURE_URING |
		       WQ_FEATURE_URING_PARK;
	mi->batch_max = WQ_BATCH_MAX;
	return 0;
}

/**
 * wq_ioc_list() - WQ_IOC_LIST: the named queues the caller may open
 * @h: the handle
 * @q: its queue (NULL where the command needs none)
 * @arg: the kernel copy of the command's struct
 * @uarg: the user's struct
 *
 * Context: process context (an ioctl).
 * Return: 0 or a negative errno.
 */
static long wq_ioc_list(struct wq_handle *h, struct kwq *q, void *arg,
			void __user *uarg)
{
	struct wq_list *l = arg;
	void __user *uentries = u64_to_user_ptr(l->entries);
	size_t esize = sizeof(struct wq_queue_info);
	struct wq_queue_info *infos;
	const struct cred *old;
	u32 i, n, cap;
	long ret = 0;

	if (l->flags || l->total || l->entry_size < WQ_QUEUE_INFO_SIZE_VER0 ||
	    l->entry_size > WQ_QUEUE_INFO_SIZE_MAX)
		return -EINVAL;
	cap = min(l->count, wq_registry_max_queues(h->ipc));
	infos = kvcalloc(max(cap, 1U), esize, GFP_KERNEL_ACCOUNT);
	if (!infos)
		return -ENOMEM;
	old = wq_as_opener(h);
	n = wq_registry_list(h->ipc, infos, cap, &l->total);
	revert_creds(old);
	for (i = 0; i < n; i++) {
		void __user *dst = uentries + (size_t)i * l->entry_size;

		if (copy_to_user(dst, &infos[i], min_t(size_t, esize,
						       l->entry_size)) ||
		    (l->entry_size > esize &&
		     clear_user(dst + esize, l->entry_size - esize))) {
			ret = -EFAULT;
			break;
		}
	}
	l->count = n;
	kvfree(infos);
	return ret;
}

/**
 * wq_ioc_stat() - WQ_IOC_STAT: the statistics of the bound queue
 * @h: the handle
 * @q: its queue (NULL where the command needs none)
 * @arg: the kernel copy of the command's struct
 * @uarg: the user's struct
 *
 * Context: process context (an ioctl).
 * Return: 0 or a negative errno.
 */
static long wq_ioc_stat(struct wq_handle *h, struct kwq *q, void *arg,
			void __user *uarg)
{
	const struct cred *old = wq_as_opener(h);

	/* the owner's ids as the opener's user namespace sees them */
	wq_queue_info_fill(q, arg);
	revert_creds(old);
	return 0;
}

/**
 * wq_ioc_metrics() - WQ_IOC_METRICS: the metrics of the bound queue
 * @h: the handle
 * @q: its queue (NULL where the command needs none)
 * @arg: the kernel copy of the command's struct
 * @uarg: the user's struct
 *
 * The snapshot is built in a kernel copy (too big for the stack) and
 * written as long as the caller's struct is, zeroing what the kernel does
 * not know.
 *
 * Context: process context (an ioctl).
 * Return: 0 or a negative errno.
 */
static long wq_ioc_metrics(struct wq_handle *h, struct kwq *q, void *arg,
			   void __user *uarg)
{
	struct wq_metrics_req *r = arg;
	void __user *dst = u64_to_user_ptr(r->metrics);
	size_t ksize = sizeof(struct wq_metrics_info);
	struct wq_metrics_info *m;
	long ret = 0;

	if (r->flags || r->size < WQ_METRICS_INFO_SIZE_VER0 ||
	    r->size > WQ_METRICS_INFO_SIZE_MAX)
		return -EINVAL;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	kwq_metrics(q, m);
	if (copy_to_user(dst, m, min_t(size_t, ksize, r->size)) ||
	    (r->size > ksize && clear_user(dst + ksize, r->size - ksize)))
		ret = -EFAULT;
	kfree(m);
	return ret;
}

/*
 * @_last: the last member of the struct's first version. The table is
 * indexed by command number: one look, no search, per call.
 */
#define WQ_OP_AT(_cmd, _fn, _struct, _last, _flags, _result_off)	\
	{								\
		.cmd = _cmd,						\
		.size = sizeof(_struct),				\
		.min_size = offsetofend(_struct, _last),		\
		.flags = _flags,					\
		.result = _result_off,					\
		.fn = _fn,						\
	}
#define WQ_OP(_cmd, _fn, _struct, _last, _flags)			\
	WQ_OP_AT(_cmd, _fn, _struct, _last, _flags, 0)
/* @_result: the field of a later version that takes the handler's result */
#define WQ_OP_RESULT(_cmd, _fn, _struct, _last, _flags, _result)	\
	WQ_OP_AT(_cmd, _fn, _struct, _last, _flags,			\
		 offsetof(_struct, _result))

static const struct wq_ioctl_op wq_ioctl_ops[] = {
	[_IOC_NR(WQ_IOC_MODULE_INFO)] =
		WQ_OP(WQ_IOC_MODULE_INFO, wq_ioc_module_info,
		      struct wq_module_info, default_max_tracked, 0),
	[_IOC_NR(WQ_IOC_CREATE)] =
		WQ_OP(WQ_IOC_CREATE, wq_ioc_create, struct wq_create, limiter,
		      0),
	[_IOC_NR(WQ_IOC_OPEN)] =
		WQ_OP(WQ_IOC_OPEN, wq_ioc_open, struct wq_name, name,
		      0),
	[_IOC_NR(WQ_IOC_DESTROY)] =
		WQ_OP(WQ_IOC_DESTROY, wq_ioc_destroy, struct wq_name, name,
		      0),
	[_IOC_NR(WQ_IOC_LIST)] =
		WQ_OP(WQ_IOC_LIST, wq_ioc_list, struct wq_list, entries,
		      0),
	[_IOC_NR(WQ_IOC_ADD)] =
		WQ_OP_RESULT(WQ_IOC_ADD, wq_ioc_add, struct wq_add, delay_ns,
			     WQ_OP_WRITE | WQ_OP_COPIES_OUT | WQ_OP_PROBES |
			     WQ_OP_URING, outcome),
	[_IOC_NR(WQ_IOC_GET)] =
		WQ_OP(WQ_IOC_GET, wq_ioc_get, struct wq_get, deadline_ns,
		      WQ_OP_READ | WQ_OP_COPIES_OUT | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_DONE)] =
		WQ_OP(WQ_IOC_DONE, wq_ioc_done, struct wq_key, value,
		      WQ_OP_READ | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_SHUTDOWN)] =
		WQ_OP(WQ_IOC_SHUTDOWN, wq_ioc_shutdown, struct wq_shutdown,
		      deadline_ns, WQ_OP_WRITE),
	[_IOC_NR(WQ_IOC_STAT)] =
		WQ_OP(WQ_IOC_STAT, wq_ioc_stat, struct wq_queue_info, evicted,
		      WQ_OP_BOUND),
	[_IOC_NR(WQ_IOC_FORGET)] =
		WQ_OP(WQ_IOC_FORGET, wq_ioc_forget, struct wq_key, value,
		      WQ_OP_WRITE),
	[_IOC_NR(WQ_IOC_NUM_REQUEUES)] =
		WQ_OP(WQ_IOC_NUM_REQUEUES, wq_ioc_num_requeues, struct wq_key,
		      value, WQ_OP_BOUND),
	[_IOC_NR(WQ_IOC_ADD_BATCH)] =
		WQ_OP(WQ_IOC_ADD_BATCH, wq_ioc_add_batch, struct wq_batch,
		      deadline_ns, WQ_OP_WRITE | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_GET_BATCH)] =
		WQ_OP(WQ_IOC_GET_BATCH, wq_ioc_get_batch, struct wq_batch,
		      deadline_ns, WQ_OP_READ | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_DONE_BATCH)] =
		WQ_OP(WQ_IOC_DONE_BATCH, wq_ioc_done_batch, struct wq_batch,
		      deadline_ns, WQ_OP_READ | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_METRICS)] =
		WQ_OP(WQ_IOC_METRICS, wq_ioc_metrics, struct wq_metrics_req,
		      metrics, WQ_OP_BOUND),
	[_IOC_NR(WQ_IOC_KEY_STATE)] =
		WQ_OP(WQ_IOC_KEY_STATE, wq_ioc_key_state, struct wq_key_info,
		      reserved, WQ_OP_BOUND),
	[_IOC_NR(WQ_IOC_CANCEL_AFTER)] =
		WQ_OP(WQ_IOC_CANCEL_AFTER, wq_ioc_cancel_after, struct wq_key,
		      value, WQ_OP_WRITE),
	[_IOC_NR(WQ_IOC_DONE_GET)] =
		WQ_OP(WQ_IOC_DONE_GET, wq_ioc_done_get, struct wq_done_get,
		      reserved, WQ_OP_READ | WQ_OP_COPIES_OUT | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_DONE_GET_BATCH)] =
		WQ_OP(WQ_IOC_DONE_GET_BATCH, wq_ioc_done_get_batch,
		      struct wq_done_get_batch, done_results,
		      WQ_OP_READ | WQ_OP_COPIES_OUT | WQ_OP_URING),
	[_IOC_NR(WQ_IOC_URING_CANCEL)] =
		WQ_OP(WQ_IOC_URING_CANCEL, wq_ioc_uring_cancel,
		      struct wq_uring_cancel, addr, WQ_OP_BOUND | WQ_OP_URING),
};

union wq_ioctl_buf {
	struct wq_module_info module_info;
	struct wq_create create;
	struct wq_name name;
	struct wq_list list;
	struct wq_add add;
	struct wq_get get;
	struct wq_key key;
	struct wq_shutdown shutdown;
	struct wq_queue_info info;
	struct wq_batch batch;
	struct wq_metrics_req metrics;
	struct wq_key_info key_state;
	struct wq_done_get done_get;
	struct wq_done_get_batch done_get_batch;
	struct wq_uring_cancel uring_cancel;
};

/**
 * wq_op_find() - the command @cmd of handle @h, checked
 * @h: the handle
 * @cmd: an ioctl's command number (or an io_uring command's cmd_op)
 * @qp: set to the bound queue for a command that needs one, else NULL
 *
 * The checks every command takes before its struct is read: the command
 * is known (its direction as the table's), its size at least its struct's
 * first version, and the handle bound with the access it needs.
 *
 * Return: the command's entry, or ERR_PTR(-ENOTTY, -EINVAL or -EBADF).
 */
const struct wq_ioctl_op *wq_op_find(struct wq_handle *h, unsigned int cmd,
				     struct kwq **qp)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct wq_ioctl_op *op;
	struct kwq *q = NULL;

	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC || nr >= ARRAY_SIZE(wq_ioctl_ops))
		return ERR_PTR(-ENOTTY);
	op = &wq_ioctl_ops[array_index_nospec(nr, ARRAY_SIZE(wq_ioctl_ops))];
	if (!op->fn || _IOC_DIR(cmd) != _IOC_DIR(op->cmd))
		return ERR_PTR(-ENOTTY);
	if (_IOC_SIZE(cmd) < op->min_size)
		return ERR_PTR(-EINVAL);
	if (op->flags & WQ_OP_BOUND) {
		q = wq_bound(h);
		if (!q)
			return ERR_PTR(-EBADF);
		/* h->access is published with h->q (wq_bound()) */
		if (((op->flags & WQ_OP_READ) == WQ_OP_READ &&
		     !(h->access & MAY_READ)) ||
		    ((op->flags & WQ_OP_WRITE) == WQ_OP_WRITE &&
		     !(h->access & MAY_WRITE)))
			return ERR_PTR(-EBADF);
	}
	*qp = q;
	return op;
}

static long wq_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct wq_handle *h = file->private_data;
	void __user *uarg = (void __user *)arg;
	unsigned int usize = _IOC_SIZE(cmd);
	const struct wq_ioctl_op *op;
	union wq_ioctl_buf buf;
	u32 __user *res = NULL;
	struct kwq *q;
	long ret;

	op = wq_op_find(h, cmd, &q);
	if (IS_ERR(op))
		return PTR_ERR(op);

	/* The struct's bytes only (the union is several times larger). */
	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		if (usize <= op->size) {	/* in words; older: zero-extended */
			ret = copy_from_user(&buf, uarg, usize) ? -EFAULT : 0;
			memset((u8 *)&buf + usize, 0, op->size - usize);
		} else {
			ret = copy_struct_from_user(&buf, op->size, uarg,
						    usize);
		}
		if (ret)
			return ret;
	} else {
		memset(&buf, 0, op->size);
	}
	/*
	 * Commands that change state and report back: make sure the result
	 * can be written before changing anything.
	 */
	if ((_IOC_DIR(cmd) & _IOC_READ) && (_IOC_DIR(cmd) & _IOC_WRITE) &&
	    !(op->flags & WQ_OP_PROBES) &&
	    copy_to_user(uarg, &buf, min_t(u32, usize, op->size)))
		return -EFAULT;

	/*
	 * A result field the caller's struct has: writable before anything,
	 * written back unchanged (a call that fails changes nothing).
	 */
	if (op->result && usize >= op->result + sizeof(u32)) {
		u32 in;

		res = uarg + op->result;
		memcpy(&in, (u8 *)&buf + op->result, sizeof(in));
		if (put_user(in, res))
			return -EFAULT;
	}
	ret = op->fn(h, q, &buf, uarg);
	/*
	 * The call took effect: it no longer fails. Its result goes to the
	 * field (lost with the field's memory, if another thread took it
	 * away meanwhile) and the call returns 0.
	 */
	if (op->result && ret >= 0) {
		if (res)
			(void)!put_user((u32)ret, res);
		ret = 0;
	}
	if (!(_IOC_DIR(cmd) & _IOC_READ) || (op->flags & WQ_OP_COPIES_OUT) ||
	    ret < 0)
		return ret;
	if (copy_to_user(uarg, &buf, min_t(u32, usize, op->size)))
		return -EFAULT;
	/* A longer read-only struct: zero the tail we know nothing of. */
	if (!(_IOC_DIR(cmd) & _IOC_WRITE) && usize > op->size &&
	    clear_user(uarg + op->size, usize - op->size))
		return -EFAULT;
	return ret;
}

/*
 * Readiness: the queue's (kwq_queue_poll()), or nothing yet before CREATE
 * or OPEN; a poller registered then is woken by the bind (wq_poll_bound()).
 */
static __poll_t wq_poll(struct file *file, struct poll_table_struct *pt)
{
	struct wq_handle *h = file->private_data;
	struct kwq *q;

	poll_wait(file, &h->pollq, pt);
	q = wq_bound(h);
	if (!q)
		return 0;
	wq_poll_arm(h, q);
	/*
	 * Pairs with the barrier of wq_has_sleeper() in kwq_wake_producers()
	 * and kwq_wake_getters(): either the waker sees the forwarding entry
	 * on the wait queue, or this poller sees the slot it freed or the key
	 * it queued.
	 */
	smp_mb();
	return kwq_queue_poll(q);
}

static int wq_open(struct inode *inode, struct file *file)
{
	struct wq_handle *h;
	int ret;

	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h)
		return -ENOMEM;
	h->ipc = wq_ipc_enter();
	if (IS_ERR(h->ipc)) {
		ret = PTR_ERR(h->ipc);
		kfree(h);
		return ret;
	}
	kwq_holder_init(&h->holder);
	mutex_init(&h->bind_lock);
	init_waitqueue_head(&h->pollq);
	spin_lock_init(&h->fwd_lock);
	spin_lock_init(&h->park_lock);
	INIT_LIST_HEAD(&h->parked);
	init_waitqueue_func_entry(&h->fwd_get, wq_poll_forward);
	h->fwd_get.private = h;
	init_waitqueue_func_entry(&h->fwd_put, wq_poll_forward);
	h->fwd_put.private = h;
	h->file = file;
	file->private_data = h;
	return nonseekable_open(inode, file);
}

static int wq_release(struct inode *inode, struct file *file)
{
	struct wq_handle *h = file->private_data;
	struct kwq *q = h->q;

	if (q) {
		if (h->fwd_armed) {
			remove_wait_queue(&q->getters, &h->fwd_get);
			remove_wait_queue(&q->producers, &h->fwd_put);
		}
		kwq_holder_release(q, &h->holder);
		kwq_holder_detach(q, &h->holder);
		atomic_dec(&q->handles);
		kwq_put(q);
	}
	wq_ipc_leave(h->ipc);	/* after the queue: it may be the last */
	mutex_destroy(&h->bind_lock);
	kfree(h);
	return 0;
}

/*
 * /proc/PID/fdinfo/FD of a bound handle: its queue (id, name or
 * "(private)", depth as workqueue_depth, keys in processing), the keys
 * this handle holds, its access and its io_uring commands parked, as
 * eventfd and io_uring show theirs.
 */
static void wq_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct wq_handle *h = file->private_data;
	struct kwq *q = wq_bound(h);
	struct kwq_counts c;
	unsigned long flags;

	if (!q)
		return;
	spin_lock_irqsave(&q->lock, flags);
	kwq_counts_locked(q, &c, false);
	spin_unlock_irqrestore(&q->lock, flags);
	seq_printf(m, "wq-id:\t%llu\n", q->id);
	seq_printf(m, "wq-name:\t%s\n", q->name[0] ? q->name : "(private)");
	seq_printf(m, "wq-depth:\t%u\n", c.queued + c.dirty);
	seq_printf(m, "wq-processing:\t%u\n", c.processing);
	seq_printf(m, "wq-held:\t%u\n", READ_ONCE(h->holder.nr));
	seq_printf(m, "wq-access:\t%s%s\n", h->access & MAY_READ ? "r" : "",
		   h->access & MAY_WRITE ? "w" : "");
	seq_printf(m, "wq-parked:\t%u\n", READ_ONCE(h->nr_parked));
}

/* A descriptor closed: the io_uring commands its process parked end. */
static int wq_flush(struct file *file, fl_owner_t id)
{
	wq_uring_flush(file->private_data, id);
	return 0;
}

static const struct file_operations wq_fops = {
	.owner = THIS_MODULE,
	.open = wq_open,
	.flush = wq_flush,
	.release = wq_release,
	.unlocked_ioctl = wq_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = wq_poll,
	.uring_cmd = wq_uring_cmd,
	.show_fdinfo = wq_show_fdinfo,
	.llseek = noop_llseek,
};

static struct miscdevice wq_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "wq",
	.fops = &wq_fops,
	.mode = 0666,
};

/**
 * wq_dev_init() - register /dev/wq
 *
 * Return: 0 or a negative errno.
 */
int wq_dev_init(void)
{
	BUILD_BUG_ON(offsetofend(struct wq_queue_info, evicted) !=
		     WQ_QUEUE_INFO_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct wq_queue_info) > WQ_QUEUE_INFO_SIZE_MAX);
	BUILD_BUG_ON(offsetofend(struct wq_metrics_info, discarded_total) !=
		     WQ_METRICS_INFO_SIZE_VER0);
	return misc_register(&wq_misc);
}

/**
 * wq_dev_exit() - unregister /dev/wq (no file can be open: they pin us)
 */
void wq_dev_exit(void)
{
	misc_deregister(&wq_misc);
}
