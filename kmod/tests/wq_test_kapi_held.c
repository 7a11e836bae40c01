// SPDX-License-Identifier: GPL-2.0
/*
 * wq_test_kapi.ko's case of the worker's fast path: kwq_get_held() and
 * kwq_done_held(). A handle ends its own hand-out only (not the key's
 * processing after a done of its bytes, nor a later hand-out of the same
 * record); a handle whose key went away still gives its record back (the
 * record becomes spare again, which fail-nth shows where the kernel has
 * it); and kthreads that finish keys by handle while another thread ends
 * the same keys by their bytes lose and double nothing (KASAN and
 * kmemleak, on the debug lane, judge the records' lifetime).
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <wq/kwq.h>

#include "wq_test_kapi.h"

/* more than a queue keeps spare (64); at most 128: no key-table growth */
#define HELD_KEYS	100
#define HELD_WORKERS	2
#define HELD_ROUNDS	300
#define HELD_RACE_KEYS	8

static u32 kapi_state(struct kwq *q, const char *key)
{
	struct kwq_key_info ki;

	CHECK_EQ(0, kwq_key_state(q, key, strlen(key), &ki));
	return ki.state;
}

/* A handle ends its hand-out once; a cleared or foreign one changes nothing. */
static void kapi_held_basic(struct kwq *q, struct kwq *other)
{
	struct kwq_held h, h2;
	char buf[8];

	CHECK_EQ(-EAGAIN, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK(!h.rec && !h.q);
	CHECK_EQ(-EINVAL, kwq_done_held(q, &h));
	CHECK_EQ(-EINVAL, kwq_get_held(q, buf, sizeof(buf), 0, 0, NULL));
	CHECK_EQ(-EINVAL, kwq_get_held(q, buf, sizeof(buf), 0, BIT(7), &h));

	CHECK_EQ(0, kwq_add(q, "long-key", 8, GFP_KERNEL));
	CHECK_EQ(-EMSGSIZE, kwq_get_held(q, buf, 4, 0, 0, &h));
	CHECK(!h.rec);
	CHECK_EQ(WQ_KEY_QUEUED, kapi_state(q, "long-key"));
	CHECK_EQ(8, kwq_get_held(q, buf, sizeof(buf), KWQ_TIMEOUT_NONE, 0,
				 &h));
	CHECK(!memcmp(buf, "long-key", 8));
	CHECK_EQ(WQ_KEY_PROCESSING, kapi_state(q, "long-key"));
	CHECK_EQ(-EINVAL, kwq_done_held(other, &h));	/* another queue's */
	CHECK(h.rec);					/* not given back */
	CHECK_EQ(0, kwq_done_held(q, &h));
	CHECK(!h.rec && !h.q);
	CHECK_EQ(0, kapi_state(q, "long-key"));
	CHECK_EQ(-EINVAL, kwq_done_held(q, &h));	/* given back */

	/* added while processing: queued again at the done, by handle */
	CHECK_EQ(0, kwq_add(q, "d", 1, GFP_KERNEL));
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK_EQ(WQ_ADDED_DIRTY, kwq_add_opts(q, "d", 1, NULL, NULL,
					      GFP_KERNEL));
	CHECK_EQ(0, kwq_done_held(q, &h));
	CHECK_EQ(WQ_KEY_QUEUED, kapi_state(q, "d"));
	CHECK_EQ(1, kwq_len(q));

	/* the same record handed out again: the generation tells them apart */
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK_EQ(WQ_ADDED_DIRTY, kwq_add_opts(q, "d", 1, NULL, NULL,
					      GFP_KERNEL));
	CHECK_EQ(0, kwq_done(q, "d", 1));		/* queued again */
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h2));
	CHECK(h.rec == h2.rec);
	CHECK_EQ(-ENOENT, kwq_done_held(q, &h));
	CHECK_EQ(WQ_KEY_PROCESSING, kapi_state(q, "d"));
	CHECK_EQ(0, kwq_done_held(q, &h2));
	CHECK_EQ(0, kapi_state(q, "d"));

	/* done by its bytes, added and handed out again: two records */
	CHECK_EQ(0, kwq_add(q, "d", 1, GFP_KERNEL));
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK_EQ(0, kwq_done(q, "d", 1));
	CHECK_EQ(-ENOENT, kwq_done_held(q, &h));	/* ended already */
	CHECK_EQ(0, kwq_add(q, "d", 1, GFP_KERNEL));
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK_EQ(0, kwq_done(q, "d", 1));
	CHECK_EQ(0, kwq_add(q, "d", 1, GFP_KERNEL));
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h2));
	CHECK_EQ(-ENOENT, kwq_done_held(q, &h));	/* not the later one */
	CHECK_EQ(WQ_KEY_PROCESSING, kapi_state(q, "d"));
	CHECK_EQ(0, kwq_done_held(q, &h2));
	CHECK_EQ(0, kapi_state(q, "d"));
}

/*
 * HELD_KEYS keys of a new queue (no spare records yet) handed out with
 * handles and ended by their bytes: their records outlive their keys as
 * orphans until the handles come back, and then become the queue's spares
 * (64 of them): a new short key then allocates nothing, under fail-nth.
 */
static void kapi_held_orphans(struct kwq *q)
{
	struct kwq_held *h = kcalloc(HELD_KEYS, sizeof(*h), GFP_KERNEL);
	char key[64], buf[16], lbuf[64];
	int i, n;

	CHECK(h);
	if (!h)
		return;
	for (i = 0; i < HELD_KEYS; i++) {
		n = snprintf(key, sizeof(key), "o%03d", i);
		CHECK_EQ(0, kwq_add(q, key, n, GFP_KERNEL));
	}
	for (i = 0; i < HELD_KEYS; i++)
		CHECK_EQ(4, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h[i]));
	for (i = 0; i < HELD_KEYS; i++) {
		n = snprintf(key, sizeof(key), "o%03d", i);
		CHECK_EQ(0, kwq_done(q, key, n));
	}
	/* the same keys again: new records, the old ones are still named */
	for (i = 0; i < HELD_KEYS; i++) {
		n = snprintf(key, sizeof(key), "o%03d", i);
		CHECK_EQ(0, kwq_add(q, key, n, GFP_KERNEL));
	}
	for (i = 0; i < HELD_KEYS; i++)
		CHECK_EQ(-ENOENT, kwq_done_held(q, &h[i]));
	CHECK_EQ(HELD_KEYS, kwq_len(q));
	if (kapi_nth_works()) {
		/* the orphans came back as spares: nothing to allocate */
		kapi_nth_arm(1);
		CHECK_EQ(0, kwq_add(q, "after", 5, GFP_KERNEL));
		CHECK(!kapi_nth_disarm());
	} else {
		pr_info("    # orphans: no fail-nth here, their reuse unchecked\n");
	}
	for (i = 0; i < HELD_KEYS; i++) {
		CHECK_EQ(4, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h[i]));
		CHECK_EQ(0, kwq_done_held(q, &h[i]));
	}
	/*
	 * A handle of a long key never given back, its key done: the
	 * orphan goes with the queue (kmemleak, on the debug lane).
	 */
	n = kwq_try_get(q, lbuf, sizeof(lbuf));		/* "after" */
	if (n > 0)
		CHECK_EQ(0, kwq_done(q, lbuf, n));
	memset(key, 'L', sizeof(key));
	CHECK_EQ(0, kwq_add(q, key, sizeof(key), GFP_KERNEL));
	CHECK_EQ(sizeof(key), kwq_get_held(q, lbuf, sizeof(lbuf), 0, 0,
					   &h[0]));
	CHECK_EQ(0, kwq_done(q, key, sizeof(key)));
	kfree(h);
}

/* On a priority queue: a dirty key comes back at its raised priority. */
static void kapi_held_priority(void)
{
	struct kwq_attr attr = { .flags = WQ_CREATE_PRIORITY };
	struct kwq_add_opts o = { .flags = WQ_ADD_PRIORITY, .priority = 5 };
	struct kwq *q = kwq_create(NULL, &attr);
	struct kwq_key_info ki;
	struct kwq_held h;
	char buf[8];

	CHECK(!IS_ERR(q));
	if (IS_ERR(q))
		return;
	CHECK_EQ(WQ_ADDED_QUEUED, kwq_add_opts(q, "p", 1, &o, NULL,
					       GFP_KERNEL));
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK_EQ(5, h.priority);
	o.priority = 10;
	CHECK_EQ(WQ_ADDED_DIRTY, kwq_add_opts(q, "p", 1, &o, NULL,
					      GFP_KERNEL));
	CHECK_EQ(0, kwq_done_held(q, &h));
	CHECK_EQ(0, kwq_key_state(q, "p", 1, &ki));
	CHECK_EQ(WQ_KEY_QUEUED, ki.state);
	CHECK_EQ(10, ki.priority);
	CHECK_EQ(1, kwq_get_held(q, buf, sizeof(buf), 0, 0, &h));
	CHECK_EQ(10, h.priority);
	CHECK_EQ(0, kwq_done_held(q, &h));
	kwq_put(q);
}

struct kapi_held_race {
	struct kwq *q;
	atomic_t handed;
	atomic_t by_handle;
	atomic_t bad;
};

/* A worker: every key by handle, done at once or after a short while. */
static int kapi_held_worker(void *data)
{
	struct kapi_held_race *r = data;
	struct kwq_held h;
	u32 k;
	int ret;

	for (;;) {
		ssize_t n = kwq_get_held(r->q, &k, sizeof(k),
					 KWQ_TIMEOUT_NONE, KWQ_GET_KILLABLE,
					 &h);

		if (n == -ESHUTDOWN)
			break;
		if (n != sizeof(k) || k >= HELD_RACE_KEYS) {
			atomic_inc(&r->bad);
			break;
		}
		atomic_inc(&r->handed);
		if (k & 1)
			usleep_range(10, 20);
		ret = kwq_done_held(r->q, &h);
		if (!ret)
			atomic_inc(&r->by_handle);
		else if (ret != -ENOENT)
			atomic_inc(&r->bad);
	}
	return 0;
}

/*
 * Workers end keys by handle while this thread adds the same few keys
 * again (dirty) and ends them by their bytes: each hand-out ends once,
 * by one of the two, and the queue ends empty. What it is for is the
 * records' lifetime under KASAN and kmemleak (the debug lane): which of
 * two hand-outs of one record a handle ends is kapi_held_basic()'s.
 */
static void kapi_held_race(struct kwq *q)
{
	struct task_struct *t[HELD_WORKERS] = {};
	struct kapi_held_race r = { .q = q };
	struct wq_metrics_info *m;
	int i, round, by_bytes = 0;
	u32 k;

	for (i = 0; i < HELD_WORKERS; i++)
		t[i] = kapi_start(kapi_held_worker, &r, "held", i);
	for (round = 0; round < HELD_ROUNDS; round++) {
		for (k = 0; k < HELD_RACE_KEYS; k++)
			CHECK(kwq_add(q, &k, sizeof(k), GFP_KERNEL) >= 0);
		k = round % HELD_RACE_KEYS;
		if (!kwq_done(q, &k, sizeof(k)))
			by_bytes++;
		if (!(round % 16))
			usleep_range(50, 100);
	}
	CHECK_EQ(0, kwq_shutdown_with_drain(q, 30 * NSEC_PER_SEC));
	for (i = 0; i < HELD_WORKERS; i++)
		if (t[i])
			kthread_stop(t[i]);
	for (i = 0; i < HELD_WORKERS; i++)
		if (t[i])
			put_task_struct(t[i]);
	CHECK_EQ(0, atomic_read(&r.bad));
	CHECK_EQ(atomic_read(&r.handed), atomic_read(&r.by_handle) + by_bytes);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	CHECK(m);
	if (m) {
		kwq_metrics(q, m);
		CHECK_EQ(0, m->processing);
		CHECK_EQ(0, m->queued);
		CHECK_EQ(atomic_read(&r.handed), m->work_duration.count);
		kfree(m);
	}
}

void kapi_held(void)
{
	struct kwq *q[3];
	int i;

	for (i = 0; i < ARRAY_SIZE(q); i++)
		q[i] = kapi_private(KAPI_DEFAULT);
	if (q[0] && q[1] && q[2]) {
		kapi_held_basic(q[0], q[1]);
		kapi_held_orphans(q[1]);
		kapi_held_race(q[2]);
		kapi_held_priority();
	}
	for (i = 0; i < ARRAY_SIZE(q); i++)
		if (q[i])
			kwq_put(q[i]);
}
