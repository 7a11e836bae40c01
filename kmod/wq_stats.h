/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics: one snapshot of a queue's counters and gauges, taken in one
 * hold of q->lock (wq_queue.h) so that the numbers agree with each other,
 * behind every report: WQ_IOC_STAT and WQ_IOC_LIST (struct
 * wq_queue_info), WQ_IOC_METRICS and kwq_metrics() (wq_metrics.c, which
 * adds the histograms in the same hold), and the debugfs listing.
 */
#ifndef _WQ_STATS_H
#define _WQ_STATS_H

#include "wq_queue.h"

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

#endif /* _WQ_STATS_H */
