// SPDX-License-Identifier: GPL-2.0
/*
 * wq: Kubernetes client-go's util/workqueue as a kernel module.
 *
 * Files: wq_queue.c (the queue: Add, Get, Done, ShutDown, drain),
 * wq_keytab.c (key table), wq_registry.c (named queues), wq_dev.c
 * (/dev/wq and its ioctls). The lock order is in wq_queue.h.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "wq_dev.h"
#include "wq_registry.h"

static int __init wq_init(void)
{
	int ret;

	ret = kwq_cache_init();
	if (ret)
		return ret;
	ret = wq_dev_init();
	if (ret)
		goto err_cache;
	return 0;

err_cache:
	kwq_cache_exit();
	return ret;
}

static void __exit wq_exit(void)
{
	wq_dev_exit();
	wq_registry_exit();
	kwq_cache_exit();
}

module_init(wq_init);
module_exit(wq_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The wq authors");
MODULE_DESCRIPTION("client-go style work queues (dedup FIFO, delays, rate limits) behind /dev/wq");
