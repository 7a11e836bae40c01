// SPDX-License-Identifier: GPL-2.0
/*
 * wq_sample: a kernel producer and a kthread worker pool on a named wq
 * priority queue, shared with userspace.
 *
 * An hrtimer (soft mode: atomic context) adds the keys "sample/obj-<n>",
 * n = 0..objects-1, every period_ms: the same few objects again and again,
 * so the queue's dedup is visible. Object 0 stands for what a user just
 * changed and is added at priority 10, the others (the resync noise) at
 * 0, so workers take it first (controller-runtime's priority queue); a
 * retry keeps the key's priority. workers kthreads take keys, "process"
 * them, and fail every fail_every-th attempt, which they retry through
 * kwq_add_rate_limited() (backing off per key); a success is kwq_forget().
 * The queue is named (name=kernel.sample: the prefix reserves the name for
 * the kernel, no user can take it first), so userspace watches it with
 * `wqctl stat kernel.sample`; with workers=0 userspace is the consumer:
 * `wqctl get kernel.sample --done`.
 *
 * Exit order: stop the producer, shut the queue down (workers drain what is
 * queued and see -ESHUTDOWN), stop the workers, drop the name and the
 * reference. Nothing of wq is touched after that, so wq can be unloaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include <wq/kwq.h>

#define SAMPLE_MAX_WORKERS 8

static char *name = WQ_KERNEL_PREFIX "sample";
module_param(name, charp, 0444);
MODULE_PARM_DESC(name, "queue name (default kernel.sample: the prefix reserves it for the kernel)");
static unsigned int workers = 2;
module_param(workers, uint, 0444);
MODULE_PARM_DESC(workers, "worker kthreads, 0..8 (0: userspace consumes)");
static unsigned int period_ms = 100;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "producer period (default 100 ms)");
static unsigned int objects = 8;
module_param(objects, uint, 0444);
MODULE_PARM_DESC(objects, "distinct keys produced (default 8)");
static unsigned int fail_every = 3;
module_param(fail_every, uint, 0444);
MODULE_PARM_DESC(fail_every, "every n-th attempt fails and is retried");

static struct kwq *sample_q;
static struct hrtimer sample_timer;
static struct task_struct *sample_workers[SAMPLE_MAX_WORKERS];
static atomic_t produced, processed, retried, urgent;

static int sample_key(char *buf, size_t cap, unsigned int n)
{
	return scnprintf(buf, cap, "sample/obj-%u", n);
}

/* Producer, in softirq: GFP_ATOMIC. Object 0 first: priority 10. */
static enum hrtimer_restart sample_produce(struct hrtimer *timer)
{
	unsigned int n = atomic_inc_return(&produced) % objects;
	struct kwq_add_opts o = {
		.flags = WQ_ADD_PRIORITY,
		.priority = n ? 0 : 10,
	};
	char key[32];
	int ret;

	ret = kwq_add_opts(sample_q, key, sample_key(key, sizeof(key), n), &o,
			   NULL, GFP_ATOMIC);
	if (ret == -ESHUTDOWN)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ms_to_ktime(period_ms));
	return HRTIMER_RESTART;
}

static int sample_work(void *data)
{
	/* Room for any key: a longer one would block the queue (-EMSGSIZE). */
	char *key = kmalloc(WQ_KEY_MAX, GFP_KERNEL);

	if (!key)
		return -ENOMEM;
	for (;;) {
		/*
		 * Interruptible: an idle kthread does not count as load. The
		 * handle ends the key's processing without a look-up.
		 */
		struct kwq_held held;
		ssize_t n = kwq_get_held(sample_q, key, WQ_KEY_MAX,
					 KWQ_TIMEOUT_NONE, 0, &held);
		int prio = held.priority;

		if (n == -ESHUTDOWN)
			break;
		if (n < 0) {
			if (kthread_should_stop())
				break;
			continue;
		}
		if (prio > 0)
			atomic_inc(&urgent);
		usleep_range(5000, 6000);	/* the "work" */
		if (fail_every && atomic_inc_return(&processed) % fail_every == 0) {
			struct kwq_add_opts o = {
				.flags = WQ_ADD_RATE_LIMITED | WQ_ADD_PRIORITY,
				.priority = prio,
			};
			u64 delay = 0;

			/* Failed: back off for this key, then try again. */
			if (kwq_add_opts(sample_q, key, n, &o, &delay,
					 GFP_KERNEL) >= 0)
				atomic_inc(&retried);
			pr_debug("%.*s failed, retry in %llu ns\n", (int)n, key,
				 delay);
		} else {
			kwq_forget(sample_q, key, n);
		}
		kwq_done_held(sample_q, &held);
	}
	kfree(key);
	return 0;
}

static void sample_stop_workers(void)
{
	int i;

	for (i = 0; i < SAMPLE_MAX_WORKERS; i++) {
		if (!sample_workers[i])
			continue;
		kthread_stop(sample_workers[i]);
		put_task_struct(sample_workers[i]);
		sample_workers[i] = NULL;
	}
}

static int __init sample_init(void)
{
	struct kwq_attr attr = {
		.mode = 0600,				/* root watches it */
		.flags = WQ_CREATE_PRIORITY,
		.starve_ns = 2 * NSEC_PER_SEC,		/* nobody waits longer */
	};
	unsigned int i;
	int ret;

	if (workers > SAMPLE_MAX_WORKERS || !objects || !period_ms)
		return -EINVAL;
	sample_q = kwq_create(name, &attr);
	if (IS_ERR(sample_q))
		return PTR_ERR(sample_q);
	for (i = 0; i < workers; i++) {
		struct task_struct *t = kthread_create(sample_work, NULL,
						       "wq_sample/%u", i);

		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			goto err_workers;
		}
		/* Before it runs: it may exit (and be freed) early. */
		sample_workers[i] = get_task_struct(t);
		wake_up_process(t);
	}
	wq_hrtimer_setup(&sample_timer, sample_produce, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&sample_timer, ms_to_ktime(period_ms),
		      HRTIMER_MODE_REL_SOFT);
	pr_info("queue %s: %u workers, a key every %u ms\n", name, workers,
		period_ms);
	return 0;

err_workers:
	kwq_shutdown(sample_q);
	sample_stop_workers();
	kwq_unlink(sample_q);
	kwq_put(sample_q);
	return ret;
}

static void __exit sample_exit(void)
{
	hrtimer_cancel(&sample_timer);		/* no more keys */
	kwq_shutdown(sample_q);			/* workers drain, then exit */
	sample_stop_workers();
	kwq_unlink(sample_q);			/* ours, even if renamed meanwhile */
	kwq_put(sample_q);
	pr_info("produced %d, processed %d, retried %d, urgent %d\n",
		atomic_read(&produced), atomic_read(&processed),
		atomic_read(&retried), atomic_read(&urgent));
}

module_init(sample_init);
module_exit(sample_exit);

MODULE_IMPORT_NS(WQ_NS);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wq sample: kernel producer, kthread workers, priorities, rate-limited retries");
