/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Metrics: client-go's workqueue metrics (metrics.go) with their exact
 * meanings, and the counters client-go cannot see, observed under q->lock
 * (wq_queue.h) where the queue changes, in O(1) and without allocating:
 *
 *   depth              nr_queued + nr_dirty (a dirty processing key is
 *                      added and not yet handed out; waiting keys are not)
 *   adds_total         q->adds: adds that made a key newly dirty
 *   retries_total      q->retries: every AddAfter (also of 0 ns) and
 *                      AddRateLimited that did not fail
 *   queue_duration     at each get: now - item->dirty_ns (the add that made
 *                      the key dirty; for a key a closing handle put back,
 *                      the put back)
 *   work_duration      at each done: now - item->start_ns
 *   unfinished_work    nr_processing * now - q->start_sum (modulo 2^64:
 *                      exact while the true sum fits in 64 bits)
 *   longest_running    now - start_ns of the first record on q->running
 *                      (records join it at get, under q->lock, with the
 *                      time read under q->lock: it is in start order)
 *
 * An observation costs one ktime_get() and a few adds and stores under
 * q->lock; a histogram observation adds a binary search over 30 bounds
 * (5 comparisons). Nothing is allocated and nothing is recomputed: the
 * gauges client-go refreshes every 500 ms are computed on read.
 */
#ifndef _WQ_METRICS_H
#define _WQ_METRICS_H

#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/timekeeping.h>

#include "wq_queue.h"

DECLARE_STATIC_KEY_TRUE(kwq_metrics_on);

/**
 * kwq_metrics_now() - the clock of every observation
 *
 * Read under q->lock where the order matters (q->running). With the module
 * parameter metrics=N (kwq_metrics_on off) the clock is not read: every
 * stamp is 0, so the durations, the time gauges and the tracepoints'
 * durations are 0, and kwq_hist_observe() counts nothing.
 *
 * Return: CLOCK_MONOTONIC, in ns; 0 with metrics=N.
 */
static inline u64 kwq_metrics_now(void)
{
	if (!static_branch_likely(&kwq_metrics_on))
		return 0;
	return ktime_get_ns();
}

void __kwq_hist_observe(struct kwq_hist *h, u64 ns);

/**
 * kwq_hist_observe() - count one duration (nothing with metrics=N)
 * @h: the histogram (under the lock that protects it)
 * @ns: the duration
 */
static inline void kwq_hist_observe(struct kwq_hist *h, u64 ns)
{
	if (static_branch_likely(&kwq_metrics_on))
		__kwq_hist_observe(h, ns);
}

/**
 * kwq_metrics_start_locked() - a record was handed out at @now
 * @q: the queue (q->lock held)
 * @item: the record, now PROCESSING
 * @now: kwq_metrics_now() read under this hold of q->lock
 *
 * Observes its queue_duration and puts it at the tail of q->running.
 */
static inline void kwq_metrics_start_locked(struct kwq *q,
					    struct kwq_item *item, u64 now)
{
	kwq_hist_observe(&q->metrics.queue_duration, now - item->dirty_ns);
	item->start_ns = now;
	list_add_tail(&item->run, &q->running);
	q->start_sum += now;
}

/**
 * kwq_metrics_end_locked() - a record stopped processing
 * @q: the queue (q->lock held)
 * @item: the record, still PROCESSING
 */
static inline void kwq_metrics_end_locked(struct kwq *q,
					  struct kwq_item *item)
{
	list_del_init(&item->run);
	q->start_sum -= item->start_ns;
}

void kwq_metrics_init(struct kwq *q);

/*
 * Statistics: one snapshot of a queue's counters and gauges, taken in one
 * hold of q->lock (wq_queue.h) so that the numbers agree with each other,
 * behind every report: WQ_IOC_STAT and WQ_IOC_LIST (struct
 * wq_queue_info), WQ_IOC_METRICS and kwq_metrics() (which add the
 * histograms in the same hold), and the debugfs listing.
 */

/**
 * struct kwq_counts - a queue's numbers at one moment
 * @state: WQ_STATE_SHUTTING_DOWN, WQ_STATE_DRAINING
 * @queued: keys queued (Len)
 * @processing: keys handed out and not done
 * @dirty: processing keys to be queued again at done
 * @held: keys queued, processing or waiting
 * @waiting: keys waiting for their AddAfter delay
 * @tracked: keys with rate-limiter failures
 * @adds: adds that made a key pending (adds_total)
 * @retries: AddAfter and AddRateLimited calls (retries_total)
 * @evicted: failure records forgotten for max_tracked
 * @refused: adds refused for capacity
 * @requeued_on_close: keys put back by a closing handle
 * @discarded: keys a shutdown or a discard dropped
 * @unfinished_work_ns: the sum of the ages of the processing keys (0
 *	unless asked for, and with metrics=N)
 * @longest_running_ns: the age of the oldest processing key (likewise)
 */
struct kwq_counts {
	u32 state;
	u32 queued;
	u32 processing;
	u32 dirty;
	u32 held;
	u32 waiting;
	u32 tracked;
	u64 adds;
	u64 retries;
	u64 evicted;
	u64 refused;
	u64 requeued_on_close;
	u64 discarded;
	u64 unfinished_work_ns;
	u64 longest_running_ns;
};

void kwq_counts_locked(struct kwq *q, struct kwq_counts *c, bool ages);
void kwq_stats_fill(struct kwq *q, struct wq_queue_info *info);
void wq_queue_info_fill(struct kwq *q, struct wq_queue_info *info);

#endif /* _WQ_METRICS_H */
