/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Add: the one entry for every kind of add from the front ends (wq_api.c,
 * wq_dev_key.c, wq_batch.c). client-go builds AddRateLimited as
 * AddAfter(item, When(item)) and AddAfter as a delayed Add; here one call
 * takes the flags and does all three, so that whatever can fail is
 * checked in the same hold of q->lock before anything changes (no failure
 * counted, no token taken, by an add that fails).
 *
 * kwq_add_key() is the path of a key the caller still owns, hashed once,
 * allocating a record only for a key the queue does not hold and cannot
 * give a spare record; kwq_add_item() the path of a record the caller
 * made; kwq_add_many() a batch, in at most two holds of q->lock a chunk.
 *
 * Relies on wq_queue.h (q->lock, the record states), wq_record.h (find,
 * hold) and wq_delay.h (the heap slot of a key that may wait, and
 * When).
 */
#ifndef _WQ_ADD_H
#define _WQ_ADD_H

#include "wq_queue.h"

/* Flags of kwq_add_key() and kwq_add_item(). */
#define KWQ_ADD_RATE_LIMITED	BIT(0)	/* the delay comes from the limiter */
#define KWQ_ADD_UNLIMITED	BIT(1)	/* the adder has CAP_SYS_RESOURCE */
#define KWQ_ADD_WAIT		BIT(2)	/* wait for room, not -EAGAIN */
#define KWQ_ADD_AFTER		BIT(3)	/* an AddAfter (a retry also of 0 ns) */
/* full: -EAGAIN, not counted as refused: the caller waits elsewhere */
#define KWQ_ADD_TRY		BIT(4)

/**
 * struct kwq_add_batch - how kwq_add_many() adds its keys
 * @unlimited: the adder has CAP_SYS_RESOURCE
 * @outcomes: each key's result says what its add did (WQ_ADDED_*)
 * @prio: the keys' priority on a priority queue (0 when not given)
 * @gfp: how the caller may allocate
 */
struct kwq_add_batch {
	bool unlimited;
	bool outcomes;
	s32 prio;
	gfp_t gfp;
};

int kwq_add_item(struct kwq *q, struct kwq_item *new, u64 *delay_ns,
		 unsigned int flags, s32 prio, gfp_t gfp, ktime_t deadline);
int kwq_add_key(struct kwq *q, const void *key, u32 len, u64 *delay_ns,
		unsigned int flags, s32 prio, gfp_t gfp, ktime_t deadline);
unsigned int kwq_add_many(struct kwq *q, const struct kwq_keyref *keys,
			  int *res, struct kwq_item **items, unsigned int n,
			  const struct kwq_add_batch *b);

#endif /* _WQ_ADD_H */
