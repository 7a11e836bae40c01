/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rate limiting: client-go's RateLimitingInterface
 * (rate_limiting_queue.go). AddRateLimited is AddAfter(key, When(key)):
 * When counts a failure of the key in its record and asks the queue's
 * limiter (wq_limiter.c) for the delay; Forget clears the count,
 * NumRequeues reads it. A record kept only for its failures is idle (see
 * wq_record.h). AddRateLimited comes in through kwq_add_key() (wq_add.h)
 * like every add, and kwq_ratelimit_locked() is its step.
 *
 * Relies on wq_queue.h: q->lock around the limiter's state and the
 * records' failure counts; and on wq_delay.h for the heap slot.
 */
#ifndef _WQ_RATELIMIT_H
#define _WQ_RATELIMIT_H

#include "wq_queue.h"

u64 kwq_ratelimit_locked(struct kwq *q, struct kwq_item *item, ktime_t now,
			 u64 cap, int *outcome);
int kwq_ratelimit_forget(struct kwq *q, const void *key, u32 len);
unsigned int kwq_ratelimit_requeues(struct kwq *q, const void *key, u32 len);

#endif /* _WQ_RATELIMIT_H */
