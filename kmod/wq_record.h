/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Records: the one struct kwq_item a queue keeps per key, from the first
 * add until the key is neither held (queued, processing, waiting) nor has
 * rate-limiter failures.
 *
 * A record is allocated before the queue lock is taken (from a SLAB_ACCOUNT
 * cache; keys longer than KWQ_INLINE_KEY in a separate allocation) and
 * either becomes the key's record or is freed. Holding a record counts it
 * against max_items; a record that stops being held but has failures goes
 * to the idle LRU (q->idle), capped at max_tracked.
 *
 * Relies on wq_queue.h: the state table (KWQ_ITEM_HELD) and q->lock, which
 * every *_locked function here needs held.
 */
#ifndef _WQ_RECORD_H
#define _WQ_RECORD_H

#include "wq_queue.h"

int kwq_record_cache_init(void);
void kwq_record_cache_exit(void);

struct kwq_item *kwq_record_alloc(u32 len, gfp_t gfp);
void kwq_record_free(struct kwq_item *item);
void kwq_record_free_all(struct kwq *q);

void kwq_record_prepare(struct kwq *q, struct kwq_item *new, gfp_t gfp);
void kwq_record_prepare_hashed(struct kwq *q, struct kwq_item *new, u64 hash,
			       gfp_t gfp);
void kwq_record_grow_work(struct work_struct *work);

u64 kwq_record_hash(struct kwq *q, const void *key, u32 len);
struct kwq_item *kwq_record_find_locked(struct kwq *q, u64 hash,
					const void *key, u32 len);
struct kwq_item *kwq_record_hold_locked(struct kwq *q, struct kwq_item **new,
					bool unlimited);
void kwq_record_unhold_locked(struct kwq *q, struct kwq_item *item);
void kwq_record_drop_idle_locked(struct kwq *q, struct kwq_item *item);

#endif /* _WQ_RECORD_H */
