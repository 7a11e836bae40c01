/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rate limiting: client-go's RateLimitingInterface
 * (rate_limiting_queue.go). AddRateLimited is AddAfter(key, When(key)):
 * When counts a failure of the key in its record and asks the queue's
 * limiter (wq_limiter.c) for the delay; Forget clears the count,
 * NumRequeues reads it. A record kept only for its failures is idle (see
 * wq_record.h).
 *
 * kwq_add_item() is the top of the stack: the one entry for every kind of
 * add from the front ends (wq_api.c, wq_dev.c); kwq_add_key() is the same
 * for a key the caller still owns, and allocates a record only for a key
 * the queue does not hold.
 *
 * Relies on wq_queue.h: q->lock around the limiter's state and the
 * records' failure counts; and on wq_delay.h for the heap slot.
 */
#ifndef _WQ_RATELIMIT_H
#define _WQ_RATELIMIT_H

#include "wq_queue.h"

/* Flags of kwq_add_item(). */
#define KWQ_ADD_RATE_LIMITED	BIT(0)	/* the delay comes from the limiter */
#define KWQ_ADD_UNLIMITED	BIT(1)	/* the adder has CAP_SYS_RESOURCE */
#define KWQ_ADD_WAIT		BIT(2)	/* wait for room, not -EAGAIN */
#define KWQ_ADD_AFTER		BIT(3)	/* an AddAfter (a retry also of 0 ns) */

int kwq_add_item(struct kwq *q, struct kwq_item *new, u64 *delay_ns,
		 unsigned int flags, gfp_t gfp, ktime_t deadline);
int kwq_add_key(struct kwq *q, const void *key, u32 len, u64 *delay_ns,
		unsigned int flags, gfp_t gfp, ktime_t deadline);
u64 kwq_ratelimit_locked(struct kwq *q, struct kwq_item *item, ktime_t now);
int kwq_ratelimit_forget(struct kwq *q, const void *key, u32 len);
unsigned int kwq_ratelimit_requeues(struct kwq *q, const void *key, u32 len);

#endif /* _WQ_RATELIMIT_H */
