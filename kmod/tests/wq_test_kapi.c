// SPDX-License-Identifier: GPL-2.0
/*
 * Test module of wq's kernel API (<wq/kwq.h>), in the style of the kernel's
 * lib/test_*.c modules: it runs at load, reports KTAP in the kernel log
 * ("wq_test_kapi: " prefix) and fails its load with -EINVAL if any case
 * failed. selftests/kapi.sh loads it and turns the log into TAP.
 *
 * Every exported function is called, also from atomic context (hardirq via
 * irq_work, softirq via an hrtimer, under a spinlock with interrupts off)
 * and from several kthreads at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include <wq/kwq.h>

static int kapi_case, kapi_failed, kapi_skipped;
static bool kapi_case_failed;
static const char *kapi_case_skip;	/* the case was skipped: why */

/* kapi.sh sets it on the debug lane, whose kernel must run every case */
static bool failnth_required;
module_param(failnth_required, bool, 0444);
MODULE_PARM_DESC(failnth_required, "fail, not skip, the failnth case where fail-nth does not work");

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		pr_err("    # %s:%d: check failed: %s\n", __func__,	\
		       __LINE__, #cond);				\
		kapi_case_failed = true;				\
	}								\
} while (0)

#define CHECK_EQ(want, got) do {					\
	long long _w = (want), _g = (got);				\
	if (_w != _g) {							\
		pr_err("    # %s:%d: %s == %lld, expected %s == %lld\n",\
		       __func__, __LINE__, #got, _g, #want, _w);	\
		kapi_case_failed = true;				\
	}								\
} while (0)

/* Which limiter kapi_private() gives the queue. */
enum kapi_limiter { KAPI_DEFAULT, KAPI_EXP_1MS };

static struct kwq *kapi_private(enum kapi_limiter limiter)
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

/*
 * One KTAP case. With @qfn, the case gets a private queue with @limiter
 * and the runner drops it afterwards; @fn cases make their own queues.
 */
/* No queue is named @name: kwq_open() fails, and one it opened is put. */
static void kapi_check_no_queue(const char *name)
{
	struct kwq *q = kwq_open(name);

	CHECK_EQ(-ENOENT, PTR_ERR_OR_ZERO(q));
	if (!IS_ERR(q))
		kwq_put(q);
}

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
static struct task_struct *kapi_start(int (*fn)(void *), void *arg,
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

/* ---- fail-nth --------------------------------------------------------------- */

#ifdef CONFIG_FAULT_INJECTION
/*
 * The kernel-side twin of selftests/failnth_test.c: each scenario runs
 * with the 1st should_fail() of this task failing, then the 2nd, and so on
 * until it runs through without the fault firing (current->fail_nth, as
 * /proc/thread-self/fail-nth sets it; module init runs in insmod's task).
 * Every call succeeds or fails with -ENOMEM, at most one fails, and the
 * queue holds exactly what the successful calls put there. failslab fails
 * allocations that may sleep only while its ignore-gfp-wait is N, which
 * kapi.sh sets (kapi_nth_works() finds out); kmemleak judges the leaks.
 */
#define KNTH_MAX	3000	/* iterations of one scenario, at most */
/*
 * KNTH_ADDS plain adds grow the key table past 32 keys; the KNTH_LATER
 * AddAfter and as many AddRateLimited that follow grow it past 64.
 */
#define KNTH_ADDS	50
#define KNTH_LATER	8
#define KNTH_KEY_CAP	100
#define KNTH_NAME	WQ_KERNEL_PREFIX "kapi-failnth"
#define KNTH_PREFILL	510	/* waiting keys before the heap's 2nd chunk */
#define KNTH_CROSS	4	/* adds past it, and past 512 keys */

static void kapi_nth_arm(unsigned int nth)
{
	WRITE_ONCE(current->fail_nth, nth);
}

/* Disarms; true if the fault fired while armed. */
static bool kapi_nth_disarm(void)
{
	unsigned int left = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return !left;
}

/* Does the first allocation fail when asked to (failslab, gfp-wait)? */
static bool kapi_nth_works(void)
{
	void *p;

	kapi_nth_arm(1);
	p = kmalloc(8, GFP_KERNEL | __GFP_NOWARN);
	kapi_nth_disarm();
	kfree(p);
	return !p;
}

/* Key @i: "nth-%05d", 9 bytes, or padded to 100 (a separate allocation). */
static size_t kapi_nth_key(char *buf, int i)
{
	size_t len = i % 2 ? KNTH_KEY_CAP : 9;

	memset(buf, '.', len);
	snprintf(buf, 10, "nth-%05d", i);
	if (len > 9)
		buf[9] = '.';
	return len;
}

/* The index of a key made by kapi_nth_key(), or -1. */
static int kapi_nth_index(const char *buf, ssize_t len)
{
	char want[KNTH_KEY_CAP];
	int i, d;

	if (len < 9 || memcmp(buf, "nth-", 4))
		return -1;
	for (i = 0, d = 4; d < 9; d++) {
		if (!isdigit(buf[d]))
			return -1;
		i = i * 10 + buf[d] - '0';
	}
	if (kapi_nth_key(want, i) != len || memcmp(want, buf, len))
		return -1;
	return i;
}

/* One iteration's results, and the checks common to all of them. */
struct kapi_nth {
	unsigned int nth;
	bool fired;
	int enomem;		/* calls that failed with -ENOMEM */
	int bad;		/* calls that failed otherwise */
	unsigned int faults;	/* iterations in which the fault fired */
};

/* A result of a call made while armed (only counted: checked after). */
static int kapi_nth_rec(struct kapi_nth *n, int ret)
{
	if (ret == -ENOMEM)
		n->enomem++;
	else if (ret < 0)
		n->bad++;
	return ret;
}

static void kapi_nth_check(struct kapi_nth *n, const char *what)
{
	if (n->bad || n->enomem > n->fired) {
		pr_err("    # %s: nth %u: %d calls failed with -ENOMEM, %d otherwise\n",
		       what, n->nth, n->enomem, n->bad);
		kapi_case_failed = true;
	}
	n->faults += n->fired;
}

/*
 * The core: create a named queue with a limiter; adds into a table that
 * grows, AddAfter (the heap's first chunk) and AddRateLimited; try_get and
 * done of every queued key; drain; destroy the name.
 */
static void kapi_nth_core(struct kapi_nth *n, char *buf)
{
	static const struct wq_limiter hour = {
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_EXPONENTIAL,
			     .exponential = { .base_ns = 3600 * NSEC_PER_SEC,
					      .max_ns = 3600 * NSEC_PER_SEC } } },
	};
	static const struct kwq_attr attr = { .limiter = &hour,
					      .max_items = 1000 };
	int add[KNTH_ADDS], after[KNTH_LATER], rl[KNTH_LATER];
	int seq[KNTH_ADDS + 1], nseq = 0, i, j, last = 0, drain, destroy;
	struct wq_metrics_info *m;
	u64 later = 0, adds = 0;
	struct kwq *q;
	ssize_t len;
	size_t klen;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	CHECK(m);
	if (!m)
		return;
	kapi_nth_arm(n->nth);
	q = kwq_create(KNTH_NAME, &attr);
	if (IS_ERR(q)) {
		kapi_nth_rec(n, PTR_ERR(q));
		n->fired = kapi_nth_disarm();
		kapi_nth_check(n, "core");
		/* nothing was created */
		kapi_check_no_queue(KNTH_NAME);
		kfree(m);
		return;
	}
	for (i = 0; i < KNTH_ADDS; i++) {
		klen = kapi_nth_key(buf, i);
		/* some from atomic context (GFP_ATOMIC records) */
		add[i] = kapi_nth_rec(n, kwq_add(q, buf, klen, i % 8 == 7 ?
						 GFP_ATOMIC : GFP_KERNEL));
	}
	for (i = 0; i < KNTH_LATER; i++) {
		klen = kapi_nth_key(buf, 100 + i);
		after[i] = kapi_nth_rec(n, kwq_add_after(q, buf, klen,
							 3600 * NSEC_PER_SEC,
							 GFP_KERNEL));
		klen = kapi_nth_key(buf, 200 + i);
		rl[i] = kapi_nth_rec(n, kwq_add_rate_limited(q, buf, klen,
							     NULL, GFP_KERNEL));
	}
	/* try_get and done of every queued key */
	while (nseq <= KNTH_ADDS) {
		len = kwq_try_get(q, buf, KNTH_KEY_CAP);
		if (len <= 0) {
			last = len;
			break;
		}
		seq[nseq++] = kapi_nth_index(buf, len);
		kapi_nth_rec(n, kwq_done(q, buf, len));
	}
	drain = kapi_nth_rec(n, kwq_shutdown_with_drain(q, 0));
	destroy = kapi_nth_rec(n, kwq_destroy(KNTH_NAME));
	n->fired = kapi_nth_disarm();
	kapi_nth_check(n, "core");

	CHECK_EQ(-EAGAIN, last);
	CHECK_EQ(0, drain);
	CHECK_EQ(0, destroy);
	kapi_check_no_queue(KNTH_NAME);
	/* FIFO: the keys whose add succeeded, in order, each once */
	for (i = j = 0; i < KNTH_ADDS; i++) {
		if (add[i])
			continue;
		adds++;
		if (j < nseq && seq[j] != i && !kapi_case_failed) {
			pr_err("    # core: nth %u: get %d is key %d, not %d\n",
			       n->nth, j, seq[j], i);
			kapi_case_failed = true;
		}
		j++;
	}
	CHECK_EQ(adds, nseq);
	for (i = 0; i < KNTH_LATER; i++) {
		later += !after[i] + !rl[i];
		klen = kapi_nth_key(buf, 200 + i);
		CHECK_EQ(!rl[i], kwq_num_requeues(q, buf, klen));
	}
	kwq_metrics(q, m);
	CHECK_EQ(adds, m->adds_total);
	CHECK_EQ(later, m->retries_total);
	CHECK_EQ(later, m->discarded_total);	/* the drain dropped them */
	CHECK_EQ(0, m->queued + m->processing + m->waiting);
	CHECK_EQ(adds, m->work_duration.count);
	kwq_put(q);
	kfree(m);
}

/*
 * Past the waiting heap's first chunk (512 slots) and past 512 keys (the
 * key table's 5th growth, a 4 KiB array): KNTH_PREFILL waiting keys made
 * without faults, then KNTH_CROSS more armed.
 */
static void kapi_nth_cross(struct kapi_nth *n, char *buf)
{
	struct wq_metrics_info *m = kzalloc(sizeof(*m), GFP_KERNEL);
	struct kwq *q = kapi_private(KAPI_DEFAULT);
	int i, ret, ok = 0;
	size_t klen;

	CHECK(m);
	if (!m || !q)
		goto out;
	for (i = 0; i < KNTH_PREFILL; i++) {
		klen = kapi_nth_key(buf, i);
		ret = kwq_add_after(q, buf, klen, 3600 * NSEC_PER_SEC,
				    GFP_KERNEL);
		CHECK_EQ(0, ret);
		if (ret)
			goto out;
	}
	kapi_nth_arm(n->nth);
	for (i = 0; i < KNTH_CROSS; i++) {
		klen = kapi_nth_key(buf, KNTH_PREFILL + i);
		ok += !kapi_nth_rec(n, kwq_add_after(q, buf, klen,
						     3600 * NSEC_PER_SEC,
						     GFP_KERNEL));
	}
	n->fired = kapi_nth_disarm();
	kapi_nth_check(n, "cross");
	kwq_metrics(q, m);
	CHECK_EQ(KNTH_PREFILL + ok, m->waiting);
	CHECK_EQ(KNTH_PREFILL + ok, m->retries_total);
	/* every key that waits is found again: it stays one key */
	for (i = 0; i < KNTH_PREFILL + KNTH_CROSS; i++) {
		klen = kapi_nth_key(buf, i);
		kwq_add_after(q, buf, klen, 3600 * NSEC_PER_SEC, GFP_KERNEL);
	}
	kwq_metrics(q, m);
	CHECK_EQ(KNTH_PREFILL + KNTH_CROSS, m->waiting);
out:
	if (q) {
		kwq_shutdown(q);
		kwq_put(q);
	}
	kfree(m);
}

static void kapi_nth_loop(const char *what,
			  void (*fn)(struct kapi_nth *n, char *buf),
			  char *buf)
{
	struct kapi_nth n = { };

	for (n.nth = 1, n.fired = true; n.fired && !kapi_case_failed;
	     n.nth++) {
		if (n.nth >= KNTH_MAX) {
			pr_err("    # %s: the fault still fires at allocation %u\n",
			       what, n.nth);
			kapi_case_failed = true;
			return;
		}
		n.enomem = 0;
		n.bad = 0;
		n.fired = false;
		fn(&n, buf);
		if (kapi_case_failed)
			pr_err("    # %s: failed at nth %u\n", what, n.nth);
		cond_resched();
	}
	pr_info("    # %s: %u iterations, %u with a fault injected\n", what,
		n.nth - 1, n.faults);
	CHECK(n.faults > 0);
}

static void kapi_failnth(void)
{
	char *buf;

	if (!kapi_nth_works()) {
		/* no CONFIG_FAILSLAB, or its ignore-gfp-wait is Y */
		kapi_case_skip = "failslab fails no GFP_KERNEL allocation";
		CHECK(!failnth_required);
		return;
	}
	buf = kmalloc(KNTH_KEY_CAP, GFP_KERNEL);
	CHECK(buf);
	if (!buf)
		return;
	kapi_nth_loop("core", kapi_nth_core, buf);
	if (!kapi_case_failed)	/* else it would only add a bogus failure */
		kapi_nth_loop("cross", kapi_nth_cross, buf);
	kfree(buf);
}
#else
static void kapi_failnth(void)
{
	kapi_case_skip = "no CONFIG_FAULT_INJECTION";
	CHECK(!failnth_required);
}
#endif /* CONFIG_FAULT_INJECTION */

static int __init wq_test_kapi_init(void)
{
	pr_info("KTAP version 1\n");
	pr_info("1..10\n");
	kapi_run("interface", NULL, kapi_interface, KAPI_DEFAULT);
	kapi_run("pointer_keys", NULL, kapi_pointer_keys, KAPI_DEFAULT);
	kapi_run("named_queues", kapi_named, NULL, KAPI_DEFAULT);
	kapi_run("add_after", NULL, kapi_add_after, KAPI_DEFAULT);
	kapi_run("rate_limited", NULL, kapi_rate_limited, KAPI_EXP_1MS);
	kapi_run("atomic_contexts", NULL, kapi_atomic_contexts, KAPI_DEFAULT);
	kapi_run("kthreads", NULL, kapi_kthreads, KAPI_DEFAULT);
	kapi_run("shutdown", NULL, kapi_shutdown, KAPI_DEFAULT);
	kapi_run("metrics", NULL, kapi_metrics, KAPI_DEFAULT);
	kapi_run("failnth", kapi_failnth, NULL, KAPI_DEFAULT);
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
