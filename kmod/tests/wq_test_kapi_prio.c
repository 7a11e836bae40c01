// SPDX-License-Identifier: GPL-2.0
/*
 * wq_test_kapi.ko's case of the priority queue and the key calls:
 * kwq_add_opts() (its outcomes, priorities, the shorter of a delay and the
 * limiter's), kwq_get_priority(), kwq_key_state(), kwq_cancel_after(),
 * priorities added from softirq with GFP_ATOMIC, and the options a plain
 * queue refuses.
 */
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <wq/kwq.h>

#include "wq_test_kapi.h"

struct kapi_soft {
	struct hrtimer timer;
	struct completion done;
	struct kwq *q;
	int ret;
};

/* From softirq: a new key at a priority new to the queue (GFP_ATOMIC). */
static enum hrtimer_restart kapi_soft_fn(struct hrtimer *timer)
{
	struct kapi_soft *s = container_of(timer, struct kapi_soft, timer);
	const struct kwq_add_opts o = { .flags = WQ_ADD_PRIORITY,
					.priority = 50 };

	s->ret = kwq_add_opts(s->q, "soft", 4, &o, NULL, GFP_ATOMIC);
	complete(&s->done);
	return HRTIMER_NORESTART;
}

static int kapi_add_prio(struct kwq *q, const char *key, int prio)
{
	const struct kwq_add_opts o = { .flags = WQ_ADD_PRIORITY,
					.priority = prio };

	return kwq_add_opts(q, key, strlen(key), &o, NULL, GFP_KERNEL);
}

/* The next key is @want, handed out at @prio. */
static void kapi_next(struct kwq *q, const char *want, int prio)
{
	char buf[16];
	int got = -12345;
	ssize_t n = kwq_get_priority(q, buf, sizeof(buf), 0, 0, &got);

	CHECK_EQ((long)strlen(want), n);
	CHECK(n > 0 && !memcmp(buf, want, n));
	CHECK_EQ(prio, got);
}

/* A softirq's add at a new priority; its result. Not on the stack (ODEBUG). */
static int kapi_add_from_softirq(struct kwq *q)
{
	struct kapi_soft *s = kzalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return -ENOMEM;
	s->q = q;
	init_completion(&s->done);
	wq_hrtimer_setup(&s->timer, kapi_soft_fn, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	hrtimer_start(&s->timer, ns_to_ktime(1000), HRTIMER_MODE_REL_SOFT);
	wait_for_completion(&s->done);
	hrtimer_cancel(&s->timer);
	ret = s->ret;
	kfree(s);
	return ret;
}

static void kapi_prio_order(struct kwq *q)
{
	struct kwq_key_info ki;
	u64 delay = 0;

	CHECK_EQ(WQ_ADDED_QUEUED, kapi_add_prio(q, "low", -1));
	CHECK_EQ(WQ_ADDED_QUEUED, kapi_add_prio(q, "mid", 5));
	CHECK_EQ(WQ_ADDED_QUEUED, kwq_add_opts(q, "zero", 4, NULL, NULL,
					       GFP_KERNEL));
	CHECK_EQ(WQ_ADDED_COALESCED, kapi_add_prio(q, "low", 9));	/* raise */
	CHECK_EQ(WQ_ADDED_QUEUED, kapi_add_from_softirq(q));
	CHECK_EQ(0, kwq_key_state(q, "low", 3, &ki));
	CHECK_EQ(WQ_KEY_QUEUED, ki.state);
	CHECK_EQ(9, ki.priority);
	kapi_next(q, "soft", 50);
	kapi_next(q, "low", 9);
	kapi_next(q, "mid", 5);
	kapi_next(q, "zero", 0);
	CHECK_EQ(-EAGAIN, kwq_get_priority(q, NULL, 0, 0, 0, NULL));
	CHECK_EQ(0, kwq_key_state(q, "mid", 3, &ki));
	CHECK_EQ(WQ_KEY_PROCESSING, ki.state);
	CHECK_EQ(5, ki.priority);
	/* rate-limited and a delay: the shorter (the limiter says 1 h) */
	{
		const struct kwq_add_opts o = {
			.flags = WQ_ADD_RATE_LIMITED | WQ_ADD_AFTER,
			.delay_ns = 7200 * NSEC_PER_SEC,
		};

		CHECK_EQ(WQ_ADDED_WAITING,
			 kwq_add_opts(q, "rl", 2, &o, &delay, GFP_KERNEL));
		CHECK_EQ(3600 * NSEC_PER_SEC, delay);
		CHECK_EQ(1, kwq_cancel_after(q, "rl", 2));
		CHECK_EQ(0, kwq_cancel_after(q, "rl", 2));
		CHECK_EQ(0, kwq_key_state(q, "rl", 2, &ki));
		CHECK_EQ(WQ_KEY_TRACKED, ki.state);	/* failures kept */
		CHECK_EQ(1, ki.requeues);
	}
	CHECK_EQ(0, kwq_done(q, "low", 3));
	CHECK_EQ(0, kwq_done(q, "mid", 3));
	CHECK_EQ(0, kwq_done(q, "soft", 4));
	CHECK_EQ(0, kwq_done(q, "zero", 4));
	CHECK_EQ(0, kwq_len(q));
}

/* What a plain queue refuses, and bad options anywhere. */
static void kapi_prio_refused(struct kwq *pq, struct kwq *q)
{
	struct kwq_add_opts o = { .flags = WQ_ADD_PRIORITY, .priority = 1 };
	struct kwq_key_info ki;

	CHECK_EQ(-EINVAL, kwq_add_opts(q, "k", 1, &o, NULL, GFP_KERNEL));
	o = (struct kwq_add_opts){ .flags = WQ_ADD_RATE_LIMITED |
					    WQ_ADD_AFTER };
	CHECK_EQ(-EINVAL, kwq_add_opts(q, "k", 1, &o, NULL, GFP_KERNEL));
	o = (struct kwq_add_opts){ .delay_ns = 1 };	/* without AFTER */
	CHECK_EQ(-EINVAL, kwq_add_opts(pq, "k", 1, &o, NULL, GFP_KERNEL));
	o = (struct kwq_add_opts){ .priority = 3 };	/* without PRIORITY */
	CHECK_EQ(-EINVAL, kwq_add_opts(pq, "k", 1, &o, NULL, GFP_KERNEL));
	o = (struct kwq_add_opts){ .flags = BIT(20) };
	CHECK_EQ(-EINVAL, kwq_add_opts(pq, "k", 1, &o, NULL, GFP_KERNEL));
	CHECK_EQ(-EINVAL, kwq_key_state(pq, "k", 1, NULL));
	CHECK_EQ(-EINVAL, kwq_key_state(pq, NULL, 1, &ki));
	CHECK_EQ(-EINVAL, kwq_cancel_after(pq, "k", 0));
	CHECK_EQ(0, kwq_len(q));
	CHECK_EQ(0, kwq_len(pq));
	/* a plain queue: the key calls work, the priority is 0 */
	CHECK_EQ(WQ_ADDED_WAITING,
		 kwq_add_opts(q, "w", 1, &(struct kwq_add_opts){
				.flags = WQ_ADD_AFTER,
				.delay_ns = 3600 * NSEC_PER_SEC },
			      NULL, GFP_KERNEL));
	CHECK_EQ(0, kwq_key_state(q, "w", 1, &ki));
	CHECK_EQ(WQ_KEY_WAITING, ki.state);
	CHECK_EQ(0, ki.priority);
	CHECK(ki.ready_ns > ktime_get_ns());
	CHECK_EQ(1, kwq_cancel_after(q, "w", 1));
}

/* The case: a priority queue, and a plain one to compare. */
void kapi_priority(void)
{
	static const struct wq_limiter exp1h = {
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_EXPONENTIAL,
			     .exponential = { .base_ns = 3600 * NSEC_PER_SEC,
					      .max_ns = 7200 * NSEC_PER_SEC } } },
	};
	struct kwq_attr attr = {
		.limiter = &exp1h,
		.flags = WQ_CREATE_PRIORITY,
		.starve_ns = 60 * NSEC_PER_SEC,
	};
	struct kwq *pq = kwq_create(NULL, &attr), *q;

	CHECK(!IS_ERR(pq));
	if (IS_ERR(pq))
		return;
	attr.flags = 0;
	attr.starve_ns = 0;
	q = kwq_create(NULL, &attr);
	CHECK(!IS_ERR(q));
	if (!IS_ERR(q)) {
		kapi_prio_order(pq);
		kapi_prio_refused(pq, q);
		kwq_put(q);
	}
	attr.starve_ns = 1;		/* without WQ_CREATE_PRIORITY */
	q = kwq_create(NULL, &attr);
	CHECK_EQ(-EINVAL, PTR_ERR_OR_ZERO(q));
	if (!IS_ERR(q))
		kwq_put(q);
	kwq_put(pq);
}
