/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics: a consistent snapshot of a queue's counters and gauges for
 * WQ_IOC_STAT and WQ_IOC_LIST (struct wq_queue_info), taken in one hold of
 * q->lock (wq_queue.h) so that the numbers agree with each other.
 */
#ifndef _WQ_STATS_H
#define _WQ_STATS_H

#include "wq_queue.h"

void kwq_stats_fill(struct kwq *q, struct wq_queue_info *info);

#endif /* _WQ_STATS_H */
