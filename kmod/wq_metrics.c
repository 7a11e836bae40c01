// SPDX-License-Identifier: GPL-2.0
/*
 * Metrics: the histograms and the snapshot behind WQ_IOC_METRICS and
 * kwq_metrics(). See wq_metrics.h for what each value means and what an
 * observation costs.
 */
#include "wq_metrics.h"
#include "wq_ready.h"
#include "wq_stats.h"

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

/* On unless the module is loaded with metrics=N (wq_main.c). */
DEFINE_STATIC_KEY_TRUE(kwq_metrics_on);

/**
 * __kwq_hist_observe() - count one duration (kwq_hist_observe())
 * @h: the histogram (under the lock that protects it)
 * @ns: the duration
 *
 * A binary search over the 30 finite bounds: 5 comparisons.
 */
void __kwq_hist_observe(struct kwq_hist *h, u64 ns)
{
	unsigned int lo = 0, hi = ARRAY_SIZE(kwq_hist_bound);

	/* the first bound >= ns, or the +Inf bucket */
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (ns <= kwq_hist_bound[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
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
 * kwq_metrics_fill() - a consistent snapshot of a queue's metrics
 * @q: the queue
 * @m: filled in, every field and byte (it is over 1 KiB: not for the
 *	stack)
 *
 * One hold of q->lock: the numbers (kwq_counts_locked(), as WQ_IOC_STAT
 * gets them), the histograms and the depth of the first WQ_LEVELS_MAX
 * priority levels at that moment, so the gauges agree with the counters.
 * About 200 loads and stores with interrupts off.
 *
 * Context: any context.
 */
void kwq_metrics_fill(struct kwq *q, struct wq_metrics_info *m)
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
