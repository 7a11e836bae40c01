/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scratch space of the batch calls (wq_batch.c): everything one call needs
 * for its chunks, borrowed from a small global pool (wq_scratch.c), so the
 * common call allocates nothing.
 */
#ifndef _WQ_SCRATCH_H
#define _WQ_SCRATCH_H

#include <linux/list.h>
#include <linux/types.h>

#include <uapi/linux/wq.h>

#include "wq_queue.h"

/*
 * Most key bytes copied in or out per chunk of GET, ADD and DONE: one key
 * (WQ_KEY_MAX) always fits.
 */
#define WQ_BATCH_BUF	(8 * 1024)

/**
 * struct wq_take_chunk - scratch space of one GET_BATCH chunk
 * @lens: the keys' lengths (struct kwq_take)
 * @gens: their hand-out generations (struct kwq_take)
 * @prios: their priorities (struct kwq_take), copied to @results
 * @iov: their places in the user's buffer, copied to @keys
 * @refs: the keys, should they have to go back (kwq_queue_unget_many())
 */
struct wq_take_chunk {
	u32 lens[KWQ_BATCH];
	u64 gens[KWQ_BATCH];
	s32 prios[KWQ_BATCH];
	struct wq_iov iov[KWQ_BATCH];
	struct kwq_keyref refs[KWQ_BATCH];
};

/**
 * struct wq_keys_chunk - scratch space of one ADD_BATCH or DONE_BATCH chunk
 * @refs: the chunk's keys that could be read
 * @idx: the index of each in the chunk
 * @res: kwq_add_many()'s or kwq_queue_done()'s result of each
 * @items: kwq_add_many()'s records of new keys
 */
struct wq_keys_chunk {
	struct kwq_keyref refs[KWQ_BATCH];
	unsigned int idx[KWQ_BATCH];
	int res[KWQ_BATCH];
	struct kwq_item *items[KWQ_BATCH];
};

/**
 * struct wq_scratch - scratch space of one batch call
 * @link: in the pool's free list while no call has it
 * @take: GET_BATCH's chunk
 * @keys: ADD_BATCH's or DONE_BATCH's chunk
 * @iov: the key array of an ADD or DONE of up to KWQ_BATCH keys
 * @res: the results of a chunk's keys, by their index in the chunk
 * @buf: the key bytes of a chunk
 *
 * Nothing in it is cleared between calls: a call writes what it reads.
 */
struct wq_scratch {
	struct list_head link;
	union {
		struct wq_take_chunk take;
		struct wq_keys_chunk keys;
	};
	struct wq_iov iov[KWQ_BATCH];
	int res[KWQ_BATCH];
	u8 buf[WQ_BATCH_BUF];
};

struct wq_scratch *wq_scratch_get(void);
void wq_scratch_put(struct wq_scratch *s);
void wq_scratch_exit(void);

#endif /* _WQ_SCRATCH_H */
