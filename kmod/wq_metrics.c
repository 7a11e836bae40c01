// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics: the histograms and the snapshot behind WQ_IOC_METRICS and
 * kwq_metrics(); the statistics snapshot behind WQ_IOC_STAT, LIST and
 * debugfs. See wq_metrics.h for what each value means and what an
 * observation costs.
 */
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/export.h>
#include <linux/string.h>

#include "wq_metrics.h"
#include "wq_ready.h"

/*
 * Upper bounds of the finite buckets, in ns: 1, 2.5 and 5 per decade from
 * 10 ns to 5 s, then 10 s, 100 s and 1000 s. client-go's bounds (1e-8 s to
 * 10 s by factors of 10) are all among them; the last bucket is +Inf.
 */
static const u64 kwq_hist_bound[KWQ_HIST_BUCKETS - 1] = {
	10, 25, 50,
	100, 250, 500,
	1000, 2500, 5000,
	10000, 25000, 50000,
	100000, 250000, 500000,
	1000000, 2500000, 5000000,
	10000000, 25000000, 50000000,
	100000000, 250000000, 500000000,
	1000000000, 2500000000ULL, 5000000000ULL,
	10000000000ULL, 100000000000ULL, 1000000000000ULL,
};

/*
 * kwq_hist_first[b]: the first bucket whose bound is at least 2^(b-1), the
 * least duration of bit length b (0 for b = 0). Consecutive bounds differ
 * by a factor of 2 or more, so a duration of bit length b is in that
 * bucket or the next. Made by computing it from kwq_hist_bound and checked
 * against the search over it for every bound +-1 and every power of 2 +-1.
 */
static const u8 kwq_hist_first[65] = {
	0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7,
	8, 9, 10, 11, 12, 13, 14, 15, 16, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 25, 26, 27, 28, 28, 28, 29,
	29, 29, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
	30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
};

/* On unless the module is loaded with metrics=N (wq_main.c). */
DEFINE_STATIC_KEY_TRUE(kwq_metrics_on);

/**
 * __kwq_hist_observe() - count one duration (kwq_hist_observe())
 * @h: the histogram (under the lock that protects it)
 * @ns: the duration
 *
 * O(1): the bucket of the duration's bit length, or the next one.
 */
void __kwq_hist_observe(struct kwq_hist *h, u64 ns)
{
	unsigned int lo = kwq_hist_first[fls64(ns)];

	if (lo < ARRAY_SIZE(kwq_hist_bound) && ns > kwq_hist_bound[lo])
		lo++;
	h->bucket[lo]++;
	h->count++;
	h->sum_ns += ns;
}

/**
 * kwq_metrics_init() - a new queue's metrics
 * @q: the queue being allocated (zeroed)
 */
void kwq_metrics_init(struct kwq *q)
{
	INIT_LIST_HEAD(&q->running);
}

static void kwq_hist_fill(const struct kwq_hist *h, struct wq_hist_info *out)
{
	u64 sum = 0;
	unsigned int i;

	BUILD_BUG_ON(KWQ_HIST_BUCKETS > WQ_HIST_MAX);
	out->count = h->count;
	out->sum_ns = h->sum_ns;
	out->nbuckets = KWQ_HIST_BUCKETS;
	for (i = 0; i < KWQ_HIST_BUCKETS; i++) {
		sum += h->bucket[i];
		out->le_ns[i] = i < ARRAY_SIZE(kwq_hist_bound) ?
				kwq_hist_bound[i] : U64_MAX;
		out->bucket[i] = sum;
	}
}

/**
 * kwq_metrics() - the queue's metrics, as WQ_IOC_METRICS reports them
 * @q: the queue
 * @m: filled in: client-go's workqueue metrics (depth, adds, retries,
 *	queue and work duration histograms, unfinished work, longest
 *	running) and wq's own counters; see struct wq_metrics_info
 *
 * One hold of the queue's lock: the gauges are exact at that moment and
 * consistent with the counters, which never go back while the queue
 * exists. With wq loaded with metrics=N the histograms and the two time
 * gauges stay 0 (struct wq_metrics_info).
 *
 * Context: any context (on PREEMPT_RT, where q->lock is a sleeping lock,
 * not from a non-threaded hard interrupt nor with interrupts or preemption
 * disabled or a raw spinlock held).
 */
void kwq_metrics(struct kwq *q, struct wq_metrics_info *m)
{
	struct kwq_counts c;
	unsigned long flags;

	memset(m, 0, sizeof(*m));
	spin_lock_irqsave(&q->lock, flags);
	kwq_counts_locked(q, &c, true);
	kwq_hist_fill(&q->metrics.queue_duration, &m->queue_duration);
	kwq_hist_fill(&q->metrics.work_duration, &m->work_duration);
	m->nr_levels = kwq_ready_levels_locked(q, m->levels, WQ_LEVELS_MAX,
					       &m->levels_summed);
	spin_unlock_irqrestore(&q->lock, flags);
	m->depth = (u64)c.queued + c.dirty;
	m->adds_total = c.adds;
	m->retries_total = c.retries;
	m->unfinished_work_ns = c.unfinished_work_ns;
	m->longest_running_ns = c.longest_running_ns;
	m->queued = c.queued;
	m->processing = c.processing;
	m->waiting = c.waiting;
	m->tracked = c.tracked;
	m->refused_total = c.refused;
	m->requeued_on_close_total = c.requeued_on_close;
	m->discarded_total = c.discarded;
}
EXPORT_SYMBOL_NS_GPL(kwq_metrics, WQ_NS);

/*
 * Statistics: the one snapshot of a queue's numbers, and struct
 * wq_queue_info made of it (WQ_IOC_STAT, LIST, debugfs).
 */
/**
 * kwq_counts_locked() - a queue's numbers at this moment
 * @q: the queue (q->lock held: the caller's one hold for everything it
 *	reports)
 * @c: filled in
 * @ages: also the ages of the processing keys (one clock read)
 */
void kwq_counts_locked(struct kwq *q, struct kwq_counts *c, bool ages)
{
	struct kwq_item *oldest;
	u64 now;

	lockdep_assert_held(&q->lock);
	c->state = (q->shutting_down ? WQ_STATE_SHUTTING_DOWN : 0) |
		   (q->nr_drainers ? WQ_STATE_DRAINING : 0);
	c->queued = q->nr_queued;
	c->processing = q->nr_processing;
	c->dirty = q->nr_dirty;
	c->held = q->nr_held;
	c->waiting = kwq_heap_len(&q->waiting);
	c->tracked = q->nr_tracked;
	c->adds = q->adds;
	c->retries = q->retries;
	c->evicted = q->evicted;
	c->refused = q->metrics.refused;
	c->requeued_on_close = q->metrics.requeued_on_close;
	c->discarded = q->metrics.discarded;
	c->unfinished_work_ns = 0;
	c->longest_running_ns = 0;
	if (!ages)
		return;
	now = kwq_metrics_now();
	c->unfinished_work_ns = (u64)q->nr_processing * now - q->start_sum;
	oldest = list_first_entry_or_null(&q->running, struct kwq_item, run);
	c->longest_running_ns = oldest ? now - oldest->start_ns : 0;
}

/**
 * kwq_stats_fill() - the numbers of a queue, for WQ_IOC_STAT and LIST
 * @q: the queue
 * @info: filled in, except @info->name, uid, gid, mode and the
 *	WQ_STATE_UNLINKED bit
 *
 * Context: any context.
 */
void kwq_stats_fill(struct kwq *q, struct wq_queue_info *info)
{
	struct kwq_counts c;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	kwq_counts_locked(q, &c, false);
	spin_unlock_irqrestore(&q->lock, flags);
	info->state |= c.state;
	info->queued = c.queued;
	info->processing = c.processing;
	info->dirty = c.dirty;
	info->keys = c.held;
	info->waiting = c.waiting;
	info->tracked = c.tracked;
	info->evicted = c.evicted;
	info->adds = c.adds;
	info->retries = c.retries;
	/* set at creation, never changed */
	info->max_items = q->max_items;
	info->max_tracked = q->max_tracked;
	info->limiter = q->limiter.desc;
	info->handles = atomic_read(&q->handles);
	info->id = q->id;
}

/**
 * wq_queue_info_fill() - everything WQ_IOC_STAT and LIST report of a queue
 * @q: the queue
 * @info: zeroed by the caller, filled in
 *
 * Context: process context.
 */
void wq_queue_info_fill(struct kwq *q, struct wq_queue_info *info)
{
	struct user_namespace *ns = current_user_ns();

	memcpy(info->name, q->name, WQ_NAME_MAX);
	if (!q->name[0])
		info->state |= WQ_STATE_PRIVATE;
	if (q->prio)
		info->state |= WQ_STATE_PRIORITY;
	info->uid = from_kuid_munged(ns, q->uid);
	info->gid = from_kgid_munged(ns, q->gid);
	info->mode = q->mode;
	if (READ_ONCE(q->unlinked))
		info->state |= WQ_STATE_UNLINKED;
	kwq_stats_fill(q, info);
}
