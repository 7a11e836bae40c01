// SPDX-License-Identifier: GPL-2.0
/*
 * wq: Kubernetes client-go's util/workqueue as a kernel module.
 *
 * This file: init/exit and every module parameter. Where everything else
 * is, and what the kwq_ and wq_ prefixes mean: doc/layout.md.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "wq_delay.h"
#include "wq_dev.h"
#include "wq_ipc.h"
#include "wq_main.h"
#include "wq_metrics.h"
#include "wq_record.h"
#include "wq_registry.h"
#include "wq_scratch.h"

/* The tracepoints of wq_trace.h, defined once, here. */
#define CREATE_TRACE_POINTS
#include "wq_trace.h"

/* Limits an admin may change at any time, read where they are used. */
unsigned int wq_max_queues = 1024;
unsigned int wq_ns_max_queues = 256;
unsigned int wq_default_max_items = 65536;
unsigned int wq_max_items_limit = 1048576;
unsigned int wq_default_max_tracked = 65536;
unsigned int wq_user_max_queues = 64;
unsigned long wq_user_max_key_bytes = 64UL << 20;
unsigned int wq_kernel_max_queues = 1024;
unsigned long wq_kernel_max_key_bytes = 256UL << 20;
unsigned int wq_unpriv_max_items = 262144;
unsigned int wq_unpriv_max_tracked = 262144;

/* The parameter @name of the limit @var, writable by root (mode 0644). */
#define WQ_LIMIT(name, var, type, desc)				\
	module_param_named(name, var, type, 0644);			\
	MODULE_PARM_DESC(name, desc)

/* A count of keys: 1 to WQ_MAX_ITEMS_CEILING, else -EINVAL and unchanged. */
static int wq_set_items(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, WQ_MAX_ITEMS_CEILING);
}

static const struct kernel_param_ops wq_items_ops = {
	.set = wq_set_items,
	.get = param_get_uint,
};

/* WQ_LIMIT() of a count of keys, its range checked (wq_set_items()). */
#define WQ_ITEMS_LIMIT(name, var, desc)				\
	param_check_uint(name, &(var));				\
	module_param_cb(name, &wq_items_ops, &(var), 0644);		\
	__MODULE_PARM_TYPE(name, "uint");				\
	MODULE_PARM_DESC(name, desc)

WQ_LIMIT(max_queues, wq_max_queues, uint,
	 "Most named queues of the initial IPC namespace (default 1024)");
WQ_LIMIT(ns_max_queues, wq_ns_max_queues, uint,
	 "Most named queues of each other IPC namespace, a container's (default 256; 0: none)");
WQ_ITEMS_LIMIT(default_max_items, wq_default_max_items,
	       "max_items of a queue created with 0 (default 65536; 1 to 1M)");
WQ_ITEMS_LIMIT(max_items_limit, wq_max_items_limit,
	       "Largest max_items and max_tracked accepted (default 1M; 1 to 1M)");
WQ_LIMIT(default_max_tracked, wq_default_max_tracked, uint,
	 "max_tracked of a queue created with 0 (default 65536)");

/* Quotas (wq_quota.h): what one user may make the kernel hold. */
WQ_LIMIT(user_max_queues, wq_user_max_queues, uint,
	 "Queues one user may have, destroyed-but-open ones included (default 64)");
WQ_LIMIT(user_max_key_bytes, wq_user_max_key_bytes, ulong,
	 "Key bytes plus WQ_KEY_COST per key that one user's queues may hold (default 64 MiB)");
WQ_LIMIT(kernel_max_queues, wq_kernel_max_queues, uint,
	 "Queues the kernel API (other modules) may have (default 1024)");
WQ_LIMIT(kernel_max_key_bytes, wq_kernel_max_key_bytes, ulong,
	 "Key bytes plus WQ_KEY_COST per key of the kernel API's queues (default 256 MiB)");
WQ_LIMIT(unpriv_max_items, wq_unpriv_max_items, uint,
	 "Largest max_items a user without CAP_SYS_RESOURCE may ask for (default 256Ki)");
WQ_LIMIT(unpriv_max_tracked, wq_unpriv_max_tracked, uint,
	 "Largest max_tracked a user without CAP_SYS_RESOURCE may ask for (default 256Ki)");

static bool wq_metrics = true;
module_param_named(metrics, wq_metrics, bool, 0444);
MODULE_PARM_DESC(metrics,
		 "Time client-go's metrics and tracepoint durations (default Y; N: their durations and time gauges stay 0)");

static int __init wq_init(void)
{
	int ret;

	/*
	 * A held key may cost the kernel at most 160 bytes beyond its own
	 * bytes (doc/performance.md). Its record is most of that;
	 * the rest is the memcg pointer of the SLAB_ACCOUNT object (8),
	 * slab page slack and the key table's buckets (~4). A field added
	 * to struct kwq_item must make room for itself.
	 */
	BUILD_BUG_ON(sizeof(struct kwq_item) > 152);
	/* the largest queue's records, two a bucket at most */
	BUILD_BUG_ON(2 * WQ_MAX_ITEMS_CEILING > 2UL << KWQ_KEYTAB_MAX_SHIFT);

	if (!wq_metrics)
		static_branch_disable(&kwq_metrics_on);
	ret = kwq_record_cache_init();
	if (ret)
		return ret;
	ret = kwq_queue_cache_init();
	if (ret)
		goto err_cache;
	ret = kwq_delay_module_init();
	if (ret)
		goto err_queue_cache;
	wq_registry_debugfs_init();
	ret = wq_dev_init();
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	wq_registry_debugfs_exit();
	kwq_delay_module_exit();
err_queue_cache:
	kwq_queue_cache_exit();
err_cache:
	kwq_record_cache_exit();
	return ret;
}

static void __exit wq_exit(void)
{
	wq_dev_exit();
	wq_uring_exit();
	wq_registry_debugfs_exit();
	wq_ipc_exit();
	wq_registry_exit();
	wq_scratch_exit();
	kwq_delay_module_exit();
	kwq_queue_cache_exit();
	kwq_record_cache_exit();
}

module_init(wq_init);
module_exit(wq_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The wq authors");
MODULE_DESCRIPTION("client-go style work queues (dedup FIFO, delays, rate limits) behind /dev/wq");
MODULE_VERSION("1.6.0");
