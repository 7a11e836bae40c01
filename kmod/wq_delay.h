/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Delaying: client-go's DelayingInterface (delaying_queue.go), and rate
 * limiting, which delays through it (below). AddAfter
 * puts a key's record in the queue's waiting heap (q->waiting) with its
 * ready time; one hrtimer (q->timer), armed at the earliest ready time,
 * adds every key whose time has come, in ready-time order, as by Add: the
 * first batch in softirq, the rest (many keys sharing a ready time) in
 * process context (q->move_work), so that a mass expiry costs the tasks
 * around it no more than any other kernel thread's work. A key already
 * waiting keeps the earlier of its two ready times. Keys never come
 * early: the timer's slack is only ever added after the ready time.
 *
 * Heap slots live in chunks allocated outside q->lock, only when a key
 * that is not waiting yet needs a slot and the heap is full.
 *
 * Relies on wq_queue.h: the WAITING state, q->lock around every heap and
 * timer change, and the rule that q->timer is started only under q->lock
 * and cancelled only with no lock held.
 */
#ifndef _WQ_DELAY_H
#define _WQ_DELAY_H

#include "wq_queue.h"

int kwq_delay_module_init(void);
void kwq_delay_module_exit(void);
int kwq_delay_init(struct kwq *q, u32 max_items, gfp_t gfp);
void kwq_delay_stop(struct kwq *q);
void kwq_delay_destroy(struct kwq *q);

int kwq_delay_room_locked(struct kwq *q, const struct kwq_item *new);
int kwq_delay_add_room(struct kwq *q, int idx, bool unlimited, gfp_t gfp);
int kwq_delay_schedule_locked(struct kwq *q, struct kwq_item *item,
			      ktime_t ready);
int kwq_delay_after_locked(struct kwq *q, struct kwq_item *item,
			   ktime_t ready);
void kwq_delay_cancel_locked(struct kwq *q, struct kwq_item *item);
int kwq_delay_cancel(struct kwq *q, const void *key, u32 len);
bool kwq_delay_drop_locked(struct kwq *q);
void kwq_delay_drop_all(struct kwq *q);

/*
 * Rate limiting: client-go's RateLimitingInterface
 * (rate_limiting_queue.go). AddRateLimited is AddAfter(key, When(key)):
 * When counts a failure of the key in its record and asks the queue's
 * limiter (wq_limiter.c) for the delay; Forget clears the count,
 * NumRequeues reads it. A record kept only for its failures is idle (see
 * wq_record.h). AddRateLimited comes in through kwq_add_key() (wq_add.h)
 * like every add, and kwq_ratelimit_locked() is its step. q->lock guards
 * the limiter's state and the records' failure counts.
 */
u64 kwq_ratelimit_locked(struct kwq *q, struct kwq_item *item, ktime_t now,
			 u64 cap, int *outcome);
int kwq_ratelimit_forget(struct kwq *q, const void *key, u32 len);
unsigned int kwq_ratelimit_requeues(struct kwq *q, const void *key, u32 len);

#endif /* _WQ_DELAY_H */
