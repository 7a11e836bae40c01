// SPDX-License-Identifier: GPL-2.0
/*
 * Test module of wq's kernel API (<wq/kwq.h>), in the style of the kernel's
 * lib/test_*.c modules: it runs at load, reports KTAP in the kernel log
 * ("wq_test_kapi: " prefix) and fails its load with -EINVAL if any case
 * failed. selftests/kapi.sh loads it and turns the log into TAP.
 *
 * Every exported function is called, also from atomic context (hardirq via
 * irq_work, softirq via an hrtimer, under a spinlock with interrupts off)
 * and from several kthreads at once; the fail-nth case is in
 * wq_test_kapi_failnth.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include <wq/kwq.h>

#include "wq_test_kapi.h"

static int kapi_case, kapi_failed, kapi_skipped;
bool kapi_case_failed;
const char *kapi_case_skip;

struct kwq *kapi_private(enum kapi_limiter limiter)
{
	static const struct wq_limiter exp1ms = {
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_EXPONENTIAL,
			     .exponential = { .base_ns = NSEC_PER_MSEC,
					      .max_ns = NSEC_PER_SEC } } },
	};
	struct kwq_attr attr = {
		.limiter = limiter == KAPI_EXP_1MS ? &exp1ms : NULL,
	};
	struct kwq *q = kwq_create(NULL, &attr);

	CHECK(!IS_ERR(q));
	return IS_ERR(q) ? NULL : q;
}

/* No queue is named @name: kwq_open() fails, and one it opened is put. */
void kapi_check_no_queue(const char *name)
{
	struct kwq *q = kwq_open(name);

	CHECK_EQ(-ENOENT, PTR_ERR_OR_ZERO(q));
	if (!IS_ERR(q))
		kwq_put(q);
}

/*
 * One KTAP case. With @qfn, the case gets a private queue with @limiter
 * and the runner drops it afterwards; @fn cases make their own queues.
 */
static void kapi_run(const char *name, void (*fn)(void),
		     void (*qfn)(struct kwq *q), enum kapi_limiter limiter)
{
	struct kwq *q;

	kapi_case_failed = false;
	kapi_case_skip = NULL;
	if (fn) {
		fn();
	} else {
		q = kapi_private(limiter);
		if (q) {
			qfn(q);
			kwq_put(q);
		}
	}
	kapi_case++;
	if (kapi_case_failed)
		kapi_failed++;
	if (kapi_case_skip && !kapi_case_failed) {
		kapi_skipped++;
		pr_info("ok %d %s # SKIP %s\n", kapi_case, name, kapi_case_skip);
	} else {
		pr_info("%sok %d %s\n", kapi_case_failed ? "not " : "",
			kapi_case, name);
	}
}

/* Add, dedup, try_get, done, len: the Interface. */
static void kapi_interface(struct kwq *q)
{
	char buf[16];

	CHECK_EQ(0, kwq_add(q, "a", 1, GFP_KERNEL));
	CHECK_EQ(0, kwq_add(q, "b", 1, GFP_KERNEL));
	CHECK_EQ(0, kwq_add(q, "a", 1, GFP_KERNEL));
	CHECK_EQ(2, kwq_len(q));
	CHECK_EQ(-EMSGSIZE, kwq_try_get(q, buf, 0));
	CHECK_EQ(1, kwq_try_get(q, buf, sizeof(buf)));
	CHECK_EQ('a', buf[0]);
	CHECK_EQ(0, kwq_add(q, "a", 1, GFP_KERNEL));	/* dirty */
	CHECK_EQ(1, kwq_len(q));
	CHECK_EQ(0, kwq_done(q, "a", 1));		/* queued again */
	CHECK_EQ(-ENOENT, kwq_done(q, "a", 1));
	CHECK_EQ(1, kwq_try_get(q, buf, sizeof(buf)));
	CHECK_EQ('b', buf[0]);
	CHECK_EQ(1, kwq_get(q, buf, sizeof(buf), 0));
	CHECK_EQ('a', buf[0]);
	CHECK_EQ(-EAGAIN, kwq_try_get(q, buf, sizeof(buf)));
	CHECK_EQ(-ETIMEDOUT, kwq_get_timeout(q, buf, sizeof(buf),
					     20 * NSEC_PER_MSEC, 0));
	CHECK_EQ(0, kwq_done(q, "a", 1));
	CHECK_EQ(0, kwq_done(q, "b", 1));
	CHECK_EQ(-EINVAL, kwq_add(q, "", 0, GFP_KERNEL));
	CHECK_EQ(-EINVAL, kwq_add(q, NULL, 1, GFP_KERNEL));
	CHECK_EQ(-EINVAL, kwq_add(q, buf, WQ_KEY_MAX + 1, GFP_KERNEL));
	CHECK_EQ(-EINVAL, kwq_done(q, buf, 0));
}

/* Pointer identity: the pointer's bytes are the key. */
static void kapi_pointer_keys(struct kwq *q)
{
	static int objs[2];
	int *p = &objs[1], *got = NULL;

	CHECK_EQ(0, kwq_add(q, &p, sizeof(p), GFP_KERNEL));
	CHECK_EQ(0, kwq_add(q, &p, sizeof(p), GFP_KERNEL));
	CHECK_EQ(1, kwq_len(q));
	CHECK_EQ(sizeof(got), kwq_try_get(q, &got, sizeof(got)));
	CHECK(got == &objs[1]);
	CHECK_EQ(0, kwq_done(q, &got, sizeof(got)));
}

/* A named queue is the registry entry: open, share, destroy, ref, unlink. */
static void kapi_named(void)
{
	struct kwq *q, *q2, *anon;
	char buf[8];

	q = kwq_create("kapi-test", NULL);
	CHECK(!IS_ERR(q));
	if (IS_ERR(q))
		return;
	CHECK_EQ(-EEXIST, PTR_ERR(kwq_create("kapi-test", NULL)));
	CHECK_EQ(-EINVAL, PTR_ERR(kwq_create("bad/name", NULL)));
	kapi_check_no_queue("kapi-none");
	q2 = kwq_open("kapi-test");
	CHECK(q2 == q);
	if (!IS_ERR(q2)) {
		CHECK_EQ(0, kwq_add(q2, "x", 1, GFP_KERNEL));
		kwq_put(q2);
	}
	CHECK_EQ(1, kwq_len(q));
	/* a reserved name (WQ_KERNEL_PREFIX) is an ordinary one here */
	q2 = kwq_create("kernel.kapi-test", NULL);
	CHECK(!IS_ERR(q2));
	if (!IS_ERR(q2)) {
		anon = kwq_open("kernel.kapi-test");
		CHECK(anon == q2);
		if (!IS_ERR(anon))
			kwq_put(anon);
		CHECK_EQ(0, kwq_unlink(q2));
		kwq_put(q2);
	}
	CHECK_EQ(0, kwq_destroy("kapi-test"));
	CHECK_EQ(-ENOENT, kwq_destroy("kapi-test"));
	/* our references keep it working after the name is gone */
	q2 = kwq_ref(q);
	CHECK_EQ(1, kwq_try_get(q2, buf, sizeof(buf)));
	CHECK_EQ(0, kwq_done(q2, buf, 1));
	kwq_put(q2);
	kwq_put(q);

	/* kwq_unlink() unlinks its own queue, never a successor's name */
	q = kwq_create("kapi-test", NULL);
	CHECK(!IS_ERR(q));
	if (IS_ERR(q))
		return;
	CHECK_EQ(0, kwq_destroy("kapi-test"));
	q2 = kwq_create("kapi-test", NULL);		/* the successor */
	CHECK(!IS_ERR(q2));
	CHECK_EQ(-ENOENT, kwq_unlink(q));
	anon = kapi_private(KAPI_DEFAULT);
	if (anon) {
		CHECK_EQ(-ENOENT, kwq_unlink(anon));	/* no name at all */
		kwq_put(anon);
	}
	if (!IS_ERR(q2)) {
		struct kwq *q3 = kwq_open("kapi-test");

		CHECK(q3 == q2);
		if (!IS_ERR(q3))
			kwq_put(q3);
		CHECK_EQ(0, kwq_unlink(q2));
		kapi_check_no_queue("kapi-test");
		kwq_put(q2);
	}
	kwq_put(q);
}

/* AddAfter: never early; the earlier ready time wins. */
static void kapi_add_after(struct kwq *q)
{
	ktime_t start = ktime_get();
	char buf[8];

	CHECK_EQ(0, kwq_add_after(q, "d", 1, 500 * NSEC_PER_MSEC, GFP_KERNEL));
	CHECK_EQ(0, kwq_add_after(q, "d", 1, 30 * NSEC_PER_MSEC, GFP_KERNEL));
	CHECK_EQ(0, kwq_len(q));
	CHECK_EQ(1, kwq_get_timeout(q, buf, sizeof(buf), 5 * NSEC_PER_SEC, 0));
	CHECK(ktime_to_ns(ktime_sub(ktime_get(), start)) >= 30 * NSEC_PER_MSEC);
	CHECK(ktime_to_ns(ktime_sub(ktime_get(), start)) < 500 * NSEC_PER_MSEC);
	CHECK_EQ(0, kwq_done(q, buf, 1));
	CHECK_EQ(0, kwq_add_after(q, "z", 1, 0, GFP_KERNEL));	/* now */
	CHECK_EQ(1, kwq_len(q));
}

/* AddRateLimited, Forget, NumRequeues with exponential 1ms..1s (R1). */
static void kapi_rate_limited(struct kwq *q)
{
	u64 delay = 0;

	CHECK_EQ(0, kwq_add_rate_limited(q, "one", 3, &delay, GFP_KERNEL));
	CHECK_EQ(NSEC_PER_MSEC, delay);
	CHECK_EQ(0, kwq_add_rate_limited(q, "one", 3, &delay, GFP_KERNEL));
	CHECK_EQ(2 * NSEC_PER_MSEC, delay);
	CHECK_EQ(2, kwq_num_requeues(q, "one", 3));
	CHECK_EQ(0, kwq_forget(q, "one", 3));
	CHECK_EQ(0, kwq_num_requeues(q, "one", 3));
	CHECK_EQ(0, kwq_add_rate_limited(q, "one", 3, NULL, GFP_KERNEL));
	CHECK_EQ(1, kwq_num_requeues(q, "one", 3));
	CHECK_EQ(0, kwq_num_requeues(q, "unknown", 7));
	CHECK_EQ(0, kwq_forget(q, "unknown", 7));
}

/* ---- atomic contexts ---------------------------------------------------- */

struct kapi_atomic {
	struct kwq *q;
	struct irq_work work;
	struct hrtimer timer;
	struct completion done;
	int hardirq_ret, softirq_ret;
	bool was_hardirq, was_softirq;
};

static void kapi_irq_work_fn(struct irq_work *work)
{
	struct kapi_atomic *a = container_of(work, struct kapi_atomic, work);

	a->was_hardirq = in_hardirq();
	a->hardirq_ret = kwq_add(a->q, "hardirq", 7, GFP_ATOMIC);
	if (!a->hardirq_ret)
		a->hardirq_ret = kwq_add_after(a->q, "hardirq-later", 13,
					       NSEC_PER_MSEC, GFP_ATOMIC);
	if (!a->hardirq_ret)
		a->hardirq_ret = kwq_add_rate_limited(a->q, "hardirq-rl", 10,
						      NULL, GFP_ATOMIC);
	complete(&a->done);
}

static enum hrtimer_restart kapi_timer_fn(struct hrtimer *timer)
{
	struct kapi_atomic *a = container_of(timer, struct kapi_atomic, timer);

	a->was_softirq = in_serving_softirq();
	a->softirq_ret = kwq_add(a->q, "softirq", 7, GFP_ATOMIC);
	complete(&a->done);
	return HRTIMER_NORESTART;
}

static void kapi_atomic_contexts(struct kwq *q)
{
	static DEFINE_SPINLOCK(callers_lock);
	struct kapi_atomic *a = kzalloc(sizeof(*a), GFP_KERNEL);
	unsigned long flags;
	char buf[16];
	int i, ret;

	CHECK(a);
	if (!a)
		return;
	a->q = q;
	init_completion(&a->done);

	/* hardirq (a threaded irq_work on PREEMPT_RT) */
	init_irq_work(&a->work, kapi_irq_work_fn);
	irq_work_queue(&a->work);
	wait_for_completion(&a->done);
	irq_work_sync(&a->work);
	CHECK_EQ(0, a->hardirq_ret);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		CHECK(a->was_hardirq);

	/* softirq: an hrtimer in soft mode */
	reinit_completion(&a->done);
	wq_hrtimer_setup(&a->timer, kapi_timer_fn, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&a->timer, ns_to_ktime(NSEC_PER_MSEC),
		      HRTIMER_MODE_REL_SOFT);
	wait_for_completion(&a->done);
	hrtimer_cancel(&a->timer);
	CHECK_EQ(0, a->softirq_ret);
	CHECK(a->was_softirq);

	/* under the caller's spinlock, interrupts off */
	spin_lock_irqsave(&callers_lock, flags);
	ret = kwq_add(a->q, "locked", 6, GFP_ATOMIC);
	if (!ret)
		ret = kwq_try_get(a->q, buf, sizeof(buf));
	spin_unlock_irqrestore(&callers_lock, flags);
	CHECK_EQ(7, ret);		/* "hardirq" came first */
	CHECK_EQ(0, kwq_done(a->q, "hardirq", 7));

	msleep(20);			/* hardirq-later and -rl fire */
	for (i = 0; i < 4; i++) {
		ret = kwq_try_get(a->q, buf, sizeof(buf));
		CHECK(ret > 0);
		if (ret > 0)
			CHECK_EQ(0, kwq_done(a->q, buf, ret));
	}
	CHECK_EQ(-EAGAIN, kwq_try_get(a->q, buf, sizeof(buf)));
	kfree(a);
}

/* ---- several kthreads at once ---------------------------------------------- */

#define KAPI_KEYS	64
#define KAPI_THREADS	3

struct kapi_pool {
	struct kwq *q;
	atomic_t held[KAPI_KEYS];	/* consumers holding each key */
	atomic_t handed;		/* keys handed out */
	atomic_t doubled;		/* a key held twice at once */
	atomic_t producers;		/* still running */
};

static int kapi_producer(void *data)
{
	struct kapi_pool *p = data;
	int i, round;

	for (round = 0; round < 20; round++)
		for (i = 0; i < KAPI_KEYS; i++) {
			u32 k = i;

			kwq_add(p->q, &k, sizeof(k), GFP_KERNEL);
			if (!(i % 16))
				cond_resched();
		}
	atomic_dec(&p->producers);
	return 0;
}

static int kapi_consumer(void *data)
{
	struct kapi_pool *p = data;
	u32 k;

	for (;;) {
		ssize_t n = kwq_get(p->q, &k, sizeof(k), KWQ_GET_KILLABLE);

		if (n == -ESHUTDOWN)
			break;
		if (n != sizeof(k) || k >= KAPI_KEYS) {
			atomic_inc(&p->doubled);
			break;
		}
		if (atomic_inc_return(&p->held[k]) != 1)
			atomic_inc(&p->doubled);
		atomic_inc(&p->handed);
		usleep_range(20, 40);
		atomic_dec(&p->held[k]);
		kwq_done(p->q, &k, sizeof(k));
	}
	return 0;
}

static void kapi_stop(struct task_struct **t, int n)
{
	while (n-- > 0) {
		kthread_stop(t[n]);
		put_task_struct(t[n]);
	}
}

/* A kthread, referenced before it runs: it may exit (and be freed) early. */
struct task_struct *kapi_start(int (*fn)(void *), void *arg,
			       const char *what, int i)
{
	struct task_struct *t = kthread_create(fn, arg, "kapi-%s/%d", what, i);

	CHECK(!IS_ERR(t));
	if (IS_ERR(t))
		return NULL;
	get_task_struct(t);
	wake_up_process(t);
	return t;
}

static void kapi_kthreads(struct kwq *q)
{
	struct task_struct *prod[KAPI_THREADS], *cons[KAPI_THREADS];
	struct kapi_pool *p = kzalloc(sizeof(*p), GFP_KERNEL);
	int i, nprod = 0, ncons = 0;

	CHECK(p);
	if (!p)
		return;
	p->q = q;
	atomic_set(&p->producers, KAPI_THREADS);
	for (i = 0; i < KAPI_THREADS; i++) {
		cons[ncons] = kapi_start(kapi_consumer, p, "cons", i);
		if (!cons[ncons])
			goto out_stop;
		ncons++;
		prod[nprod] = kapi_start(kapi_producer, p, "prod", i);
		if (!prod[nprod])
			goto out_stop;
		nprod++;
	}
	while (atomic_read(&p->producers))
		usleep_range(5000, 10000);
	/* drain: consumers finish every key, then see -ESHUTDOWN */
	CHECK_EQ(0, kwq_shutdown_with_drain(p->q, 30 * NSEC_PER_SEC));
	CHECK(kwq_shutting_down(p->q));
	CHECK_EQ(-ESHUTDOWN, kwq_add(p->q, "late", 4, GFP_KERNEL));
	CHECK_EQ(0, atomic_read(&p->doubled));
	CHECK(atomic_read(&p->handed) >= KAPI_KEYS);
	CHECK_EQ(0, kwq_len(p->q));
out_stop:
	/* producers run a bounded loop; consumers end with the queue */
	kwq_shutdown(p->q);
	kapi_stop(cons, ncons);
	kapi_stop(prod, nprod);
	kfree(p);
}

/* Shutdown: queued keys still handed out, then -ESHUTDOWN; drain cut. */
static void kapi_shutdown(struct kwq *q)
{
	char buf[8];

	CHECK_EQ(0, kwq_add(q, "s", 1, GFP_KERNEL));
	CHECK_EQ(0, kwq_add_after(q, "w", 1, NSEC_PER_SEC, GFP_KERNEL));
	CHECK(!kwq_shutting_down(q));
	kwq_shutdown(q);
	CHECK(kwq_shutting_down(q));
	CHECK_EQ(-ESHUTDOWN, kwq_add(q, "t", 1, GFP_KERNEL));
	CHECK_EQ(-ESHUTDOWN, kwq_add_after(q, "t", 1, 1, GFP_KERNEL));
	CHECK_EQ(1, kwq_get(q, buf, sizeof(buf), 0));
	CHECK_EQ(-ETIMEDOUT, kwq_shutdown_with_drain(q, 10 * NSEC_PER_MSEC));
	CHECK_EQ(0, kwq_done(q, "s", 1));
	CHECK_EQ(0, kwq_shutdown_with_drain(q, KWQ_TIMEOUT_NONE));
	CHECK_EQ(-ESHUTDOWN, kwq_get(q, buf, sizeof(buf), 0));
	CHECK_EQ(-ESHUTDOWN, kwq_try_get(q, buf, sizeof(buf)));
}

/* kwq_metrics(): the numbers WQ_IOC_METRICS gives userspace. */
static void kapi_metrics(struct kwq *q)
{
	struct wq_metrics_info *m = kzalloc(sizeof(*m), GFP_KERNEL);
	char buf[8];

	CHECK(m);
	if (!m)
		return;
	CHECK_EQ(0, kwq_add(q, "a", 1, GFP_KERNEL));
	CHECK_EQ(0, kwq_add(q, "a", 1, GFP_KERNEL));		/* coalesced */
	CHECK_EQ(0, kwq_add_after(q, "b", 1, 0, GFP_KERNEL));	/* a retry */
	CHECK_EQ(1, kwq_try_get(q, buf, sizeof(buf)));		/* a */
	CHECK_EQ(0, kwq_add(q, "a", 1, GFP_KERNEL));		/* dirty */
	kwq_metrics(q, m);
	CHECK_EQ(3, m->adds_total);
	CHECK_EQ(1, m->retries_total);
	CHECK_EQ(2, m->depth);
	CHECK_EQ(1, m->queued);
	CHECK_EQ(1, m->processing);
	CHECK_EQ(1, m->queue_duration.count);
	CHECK(m->longest_running_ns == m->unfinished_work_ns);
	CHECK_EQ(0, kwq_done(q, "a", 1));
	kwq_metrics(q, m);
	CHECK_EQ(1, m->work_duration.count);
	CHECK_EQ(2, m->depth);
	CHECK_EQ(0, m->unfinished_work_ns);
	CHECK_EQ(WQ_HIST_MAX - 1, m->work_duration.nbuckets);
	CHECK_EQ(U64_MAX, m->work_duration.le_ns[WQ_HIST_MAX - 2]);
	CHECK_EQ(1, m->work_duration.bucket[WQ_HIST_MAX - 2]);
	kfree(m);
}

/* The cases, in KTAP order: a case has @fn or @qfn (kapi_run()). */
static const struct kapi_entry {
	const char *name;
	void (*fn)(void);
	void (*qfn)(struct kwq *q);
	enum kapi_limiter limiter;
} kapi_cases[] = {
	{ "interface", .qfn = kapi_interface },
	{ "pointer_keys", .qfn = kapi_pointer_keys },
	{ "named_queues", .fn = kapi_named },
	{ "add_after", .qfn = kapi_add_after },
	{ "rate_limited", .qfn = kapi_rate_limited, .limiter = KAPI_EXP_1MS },
	{ "atomic_contexts", .qfn = kapi_atomic_contexts },
	{ "kthreads", .qfn = kapi_kthreads },
	{ "shutdown", .qfn = kapi_shutdown },
	{ "metrics", .qfn = kapi_metrics },
	{ "failnth", .fn = kapi_failnth },
	{ "priorities", .fn = kapi_priority },
	{ "held_handles", .fn = kapi_held },
};

static int __init wq_test_kapi_init(void)
{
	unsigned int i;

	pr_info("KTAP version 1\n");
	pr_info("1..%zu\n", ARRAY_SIZE(kapi_cases));
	for (i = 0; i < ARRAY_SIZE(kapi_cases); i++)
		kapi_run(kapi_cases[i].name, kapi_cases[i].fn,
			 kapi_cases[i].qfn, kapi_cases[i].limiter);
	pr_info("# pass:%d fail:%d skip:%d\n",
		kapi_case - kapi_failed - kapi_skipped, kapi_failed,
		kapi_skipped);
	return kapi_failed ? -EINVAL : 0;
}

static void __exit wq_test_kapi_exit(void)
{
}

module_init(wq_test_kapi_init);
module_exit(wq_test_kapi_exit);

MODULE_IMPORT_NS(WQ_NS);
MODULE_INFO(test, "Y");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test module of wq's kernel API");
