// SPDX-License-Identifier: GPL-2.0
/*
 * wq: Kubernetes client-go's util/workqueue as a kernel module.
 *
 * The files, each one concept, each layer built on the one below it:
 *   wq_main.c        init/exit and every module parameter (this file)
 *   wq_queue.c/.h    the queue (client-go queue.go): its life, Add, Done;
 *                    wq_queue.h states the record states, the lock order
 *                    and the locking rules
 *   wq_get.c         Get of n keys, undoing it, Len
 *   wq_wait.c        the wait loop, wake-ups, readiness, waiting for room
 *   wq_shutdown.c    ShutDown, ShutDownWithDrain, the discarding shutdown
 *   wq_holder.c      the keys a handle holds, put back when it closes
 *   wq_record.c/.h   key records: alloc/free, hold/unhold, the idle LRU
 *   wq_delay.c/.h    AddAfter (delaying_queue.go): waiting heap, hrtimer
 *   wq_ratelimit.c/.h  AddRateLimited, Forget, NumRequeues
 *                    (rate_limiting_queue.go); kwq_add_item()
 *   wq_limiter.c/.h  the rate limiters (default_rate_limiters.go)
 *   wq_stats.c/.h    the counters behind WQ_IOC_STAT
 *   wq_metrics.c/.h  client-go's metrics (WQ_IOC_METRICS, kwq_metrics()),
 *                    the debugfs listing /sys/kernel/debug/wq/queues
 *   wq_trace.c/.h    the tracepoints, system kwq
 *   wq_quota.c/.h    per-user budgets of queues and key bytes
 *   wq_keytab.c/.h   the key table (hsiphash, incremental growth)
 *   wq_heap.c/.h     the min-heap of ready times
 *   wq_registry.c/.h named queues per IPC namespace: create, open, destroy,
 *                    list, reaping
 *   wq_name.c        the queue-name rule
 *   wq_dev.c/.h      /dev/wq and its ioctls; wq_dev_key.c the single-key
 *                    ones, wq_dev_info.c the reporting ones, wq_batch.c
 *                    the batches
 *   wq_scratch.c/.h  the batch calls' scratch space, a bounded pool
 *   wq_api.c         the kernel API <wq/kwq.h>: every exported symbol
 *   include/wq/kwq.h the kernel API's header; include/wq/compat.h kernel
 *                    version differences
 *   tests/           KUnit suites and the kernel API test module
 *   samples/         an out-of-tree user of the kernel API
 */
#include <linux/init.h>
#include <linux/module.h>

#include "wq_dev.h"
#include "wq_main.h"
#include "wq_metrics.h"
#include "wq_record.h"
#include "wq_registry.h"
#include "wq_scratch.h"

unsigned int wq_max_queues = 1024;
module_param_named(max_queues, wq_max_queues, uint, 0644);
MODULE_PARM_DESC(max_queues, "Most named queues (default 1024)");

unsigned int wq_default_max_items = 65536;
module_param_named(default_max_items, wq_default_max_items, uint, 0644);
MODULE_PARM_DESC(default_max_items,
		 "max_items of a queue created with 0 (default 65536)");

unsigned int wq_max_items_limit = 1048576;
module_param_named(max_items_limit, wq_max_items_limit, uint, 0644);
MODULE_PARM_DESC(max_items_limit,
		 "Largest max_items and max_tracked accepted (default 1M, at most 16M)");

unsigned int wq_default_max_tracked = 65536;
module_param_named(default_max_tracked, wq_default_max_tracked, uint, 0644);
MODULE_PARM_DESC(default_max_tracked,
		 "max_tracked of a queue created with 0 (default 65536)");

/* Quotas (wq_quota.h): what one user may make the kernel hold. */
unsigned int wq_user_max_queues = 64;
module_param_named(user_max_queues, wq_user_max_queues, uint, 0644);
MODULE_PARM_DESC(user_max_queues,
		 "Queues one user may have, destroyed-but-open ones included (default 64)");

unsigned long wq_user_max_key_bytes = 64UL << 20;
module_param_named(user_max_key_bytes, wq_user_max_key_bytes, ulong, 0644);
MODULE_PARM_DESC(user_max_key_bytes,
		 "Key bytes plus WQ_KEY_COST per key that one user's queues may hold (default 64 MiB)");

unsigned int wq_kernel_max_queues = 1024;
module_param_named(kernel_max_queues, wq_kernel_max_queues, uint, 0644);
MODULE_PARM_DESC(kernel_max_queues,
		 "Queues the kernel API (other modules) may have (default 1024)");

unsigned long wq_kernel_max_key_bytes = 256UL << 20;
module_param_named(kernel_max_key_bytes, wq_kernel_max_key_bytes, ulong,
		   0644);
MODULE_PARM_DESC(kernel_max_key_bytes,
		 "Key bytes plus WQ_KEY_COST per key of the kernel API's queues (default 256 MiB)");

unsigned int wq_unpriv_max_items = 262144;
module_param_named(unpriv_max_items, wq_unpriv_max_items, uint, 0644);
MODULE_PARM_DESC(unpriv_max_items,
		 "Largest max_items a user without CAP_SYS_RESOURCE may ask for (default 256Ki)");

unsigned int wq_unpriv_max_tracked = 262144;
module_param_named(unpriv_max_tracked, wq_unpriv_max_tracked, uint, 0644);
MODULE_PARM_DESC(unpriv_max_tracked,
		 "Largest max_tracked a user without CAP_SYS_RESOURCE may ask for (default 256Ki)");

static bool wq_metrics = true;
module_param_named(metrics, wq_metrics, bool, 0444);
MODULE_PARM_DESC(metrics,
		 "Time client-go's metrics and tracepoint durations (default Y; N: their durations and time gauges stay 0)");

static int __init wq_init(void)
{
	int ret;

	/*
	 * Figure 8 (README "Performance"): a held key may cost the kernel at
	 * most 160 bytes beyond its own bytes. Its record is most of that;
	 * the rest is the memcg pointer of the SLAB_ACCOUNT object (8),
	 * slab page slack and the key table's buckets (~4). A field added
	 * to struct kwq_item must make room for itself.
	 */
	BUILD_BUG_ON(sizeof(struct kwq_item) > 152);

	if (!wq_metrics)
		static_branch_disable(&kwq_metrics_on);
	ret = kwq_record_cache_init();
	if (ret)
		return ret;
	wq_debugfs_init();
	ret = wq_dev_init();
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	wq_debugfs_exit();
	kwq_record_cache_exit();
	return ret;
}

static void __exit wq_exit(void)
{
	wq_dev_exit();
	wq_debugfs_exit();
	wq_registry_exit();
	wq_scratch_exit();
	kwq_record_cache_exit();
}

module_init(wq_init);
module_exit(wq_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The wq authors");
MODULE_DESCRIPTION("client-go style work queues (dedup FIFO, delays, rate limits) behind /dev/wq");
