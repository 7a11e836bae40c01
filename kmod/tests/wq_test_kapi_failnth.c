// SPDX-License-Identifier: GPL-2.0
/*
 * wq_test_kapi.ko's failnth case: the kernel API under fail-nth (a
 * priority queue's adds too).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <wq/kwq.h>

#include "wq_test_kapi.h"

/* kapi.sh sets it on the debug lane, whose kernel must run every case */
static bool failnth_required;
module_param(failnth_required, bool, 0444);
MODULE_PARM_DESC(failnth_required, "fail, not skip, the failnth case where fail-nth does not work");

#ifdef CONFIG_FAULT_INJECTION
/*
 * The kernel-side twin of selftests/failnth_*_test.c: each scenario runs
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

void kapi_nth_arm(unsigned int nth)
{
	WRITE_ONCE(current->fail_nth, nth);
}

/* Disarms; true if the fault fired while armed. */
bool kapi_nth_disarm(void)
{
	unsigned int left = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return !left;
}

/* Does the first allocation fail when asked to (failslab, gfp-wait)? */
bool kapi_nth_works(void)
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

/*
 * A priority queue (WQ_CREATE_PRIORITY), made without faults: key A
 * queued at 1, key B processing (got at 2). Armed, kwq_add_opts() with
 * WQ_ADD_PRIORITY of KNTH_PRIO new keys, each at a new level (a level and
 * a record each, some keys in a separate allocation), then a raise of A
 * and an add of B (dirty): each says what it did or fails with -ENOMEM
 * having changed nothing (the key's state as before); then the queue hands
 * out exactly the keys whose add succeeded, highest first, each at its
 * priority, and holds nothing more.
 */
#define KNTH_PRIO	6
#define KNTH_PA		300	/* key A; B is 301, the new ones 302.. */

/* The next key must be @key at @prio (kwq_get_priority(), no wait). */
static void kapi_nth_next(struct kwq *q, char *buf, int key, int prio)
{
	int got = -2;
	ssize_t len;

	len = kwq_get_priority(q, buf, KNTH_KEY_CAP, 0, 0, &got);
	CHECK_EQ(key, len > 0 ? kapi_nth_index(buf, len) : len);
	CHECK_EQ(prio, got);
	if (len > 0)
		CHECK_EQ(0, kwq_done(q, buf, len));
}

static int kapi_nth_padd(struct kwq *q, char *buf, int key, int prio)
{
	const struct kwq_add_opts o = { .flags = WQ_ADD_PRIORITY,
					.priority = prio };

	return kwq_add_opts(q, buf, kapi_nth_key(buf, key), &o, NULL,
			    GFP_KERNEL);
}

static void kapi_nth_prio(struct kapi_nth *n, char *buf)
{
	static const struct kwq_attr attr = { .flags = WQ_CREATE_PRIORITY };
	struct kwq *q = kwq_create(NULL, &attr);
	int add[KNTH_PRIO], raise, dirty, i;
	struct kwq_key_info ki;

	CHECK(!IS_ERR(q));
	if (IS_ERR(q))
		return;
	CHECK_EQ(WQ_ADDED_QUEUED, kapi_nth_padd(q, buf, KNTH_PA, 1));
	CHECK_EQ(WQ_ADDED_QUEUED, kapi_nth_padd(q, buf, KNTH_PA + 1, 2));
	CHECK_EQ(KNTH_PA + 1, kapi_nth_index(buf, kwq_try_get(q, buf,
							      KNTH_KEY_CAP)));
	kapi_nth_arm(n->nth);
	for (i = 0; i < KNTH_PRIO; i++)
		add[i] = kapi_nth_rec(n, kapi_nth_padd(q, buf, KNTH_PA + 2 + i,
						       10 + i));
	raise = kapi_nth_rec(n, kapi_nth_padd(q, buf, KNTH_PA, 20));
	dirty = kapi_nth_rec(n, kapi_nth_padd(q, buf, KNTH_PA + 1, 21));
	n->fired = kapi_nth_disarm();
	kapi_nth_check(n, "prio");

	/* a failed add left its key as it was */
	for (i = 0; i < KNTH_PRIO; i++) {
		CHECK(add[i] == WQ_ADDED_QUEUED || add[i] == -ENOMEM);
		kwq_key_state(q, buf, kapi_nth_key(buf, KNTH_PA + 2 + i), &ki);
		CHECK_EQ(add[i] < 0 ? 0 : WQ_KEY_QUEUED, ki.state);
	}
	CHECK(raise == WQ_ADDED_COALESCED || raise == -ENOMEM);
	kwq_key_state(q, buf, kapi_nth_key(buf, KNTH_PA), &ki);
	CHECK_EQ(raise < 0 ? 1 : 20, ki.priority);
	CHECK(dirty == WQ_ADDED_DIRTY || dirty == -ENOMEM);
	kwq_key_state(q, buf, kapi_nth_key(buf, KNTH_PA + 1), &ki);
	CHECK_EQ(WQ_KEY_PROCESSING | (dirty < 0 ? 0 : WQ_KEY_DIRTY), ki.state);
	CHECK_EQ(0, kwq_done(q, buf, kapi_nth_key(buf, KNTH_PA + 1)));

	/* the keys added, highest first */
	if (dirty >= 0)
		kapi_nth_next(q, buf, KNTH_PA + 1, 21);
	if (raise >= 0)
		kapi_nth_next(q, buf, KNTH_PA, 20);
	for (i = KNTH_PRIO - 1; i >= 0; i--)
		if (add[i] >= 0)
			kapi_nth_next(q, buf, KNTH_PA + 2 + i, 10 + i);
	if (raise < 0)
		kapi_nth_next(q, buf, KNTH_PA, 1);
	kapi_nth_next(q, buf, -EAGAIN, -2);
	CHECK_EQ(0, kwq_len(q));
	kwq_put(q);
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

void kapi_failnth(void)
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
	if (!kapi_case_failed)
		kapi_nth_loop("prio", kapi_nth_prio, buf);
	kfree(buf);
}
#else
void kapi_nth_arm(unsigned int nth)
{
}

bool kapi_nth_disarm(void)
{
	return false;
}

bool kapi_nth_works(void)
{
	return false;
}

void kapi_failnth(void)
{
	kapi_case_skip = "no CONFIG_FAULT_INJECTION";
	CHECK(!failnth_required);
}
#endif /* CONFIG_FAULT_INJECTION */
