// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/wq that report: the module's limits and the caller's
 * usage, the list of named queues, a queue's statistics and its metrics.
 * Conventions as in wq_dev.c.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "wq_dev.h"
#include "wq_main.h"
#include "wq_metrics.h"
#include "wq_quota.h"
#include "wq_registry.h"
#include "wq_stats.h"

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
long wq_ioc_module_info(struct wq_handle *h, struct kwq *q, void *arg,
			void __user *uarg)
{
	struct wq_module_info *mi = arg;
	const struct cred *old;

	mi->abi_version = WQ_ABI_VERSION;
	mi->key_max = WQ_KEY_MAX;
	mi->max_queues = wq_registry_max_queues(h->ipc);
	mi->default_max_items = READ_ONCE(wq_default_max_items);
	mi->max_items_limit = wq_items_limit();
	mi->limiter_terms_max = WQ_LIMITER_TERMS_MAX;
	mi->add_flags = WQ_ADD_RATE_LIMITED | WQ_ADD_WAIT | WQ_ADD_AFTER;
	mi->get_flags = WQ_GET_NONBLOCK | WQ_GET_DETACH;
	mi->shutdown_flags = WQ_SHUTDOWN_DRAIN | WQ_SHUTDOWN_DISCARD;
	mi->default_max_tracked = READ_ONCE(wq_default_max_tracked);
	mi->user_max_queues = READ_ONCE(wq_user_max_queues);
	mi->unpriv_max_items = READ_ONCE(wq_unpriv_max_items);
	mi->unpriv_max_tracked = READ_ONCE(wq_unpriv_max_tracked);
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
long wq_ioc_list(struct wq_handle *h, struct kwq *q, void *arg,
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
long wq_ioc_stat(struct wq_handle *h, struct kwq *q, void *arg,
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
long wq_ioc_metrics(struct wq_handle *h, struct kwq *q, void *arg,
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
	kwq_metrics_fill(q, m);
	if (copy_to_user(dst, m, min_t(size_t, ksize, r->size)) ||
	    (r->size > ksize && clear_user(dst + ksize, r->size - ksize)))
		ret = -EFAULT;
	kfree(m);
	return ret;
}
