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
 * Spare records: a record whose key went away (done, forgotten, evicted)
 * is kept in q->spare, up to KWQ_SPARE_MAX (KWQ_BATCH) a queue, instead of
 * being freed, if its key lived inline; a new key of at most
 * KWQ_INLINE_KEY bytes takes one of the last KWQ_SPARE_SCAN given up in its
 * memory cgroup under q->lock, in the same hold
 * as its look-up, instead of an allocation and a second hold. So a key
 * added, handed out and done allocates and frees nothing once the queue
 * has run a while, and a batch of new keys takes the records a batch of
 * dones gave back.
 *
 * Memory: a spare record holds no key and is charged to nobody's budget
 * (wq_quota.h counts keys). It stays charged to the memory cgroup that
 * allocated it, as any slab object does until it is freed; so that one
 * cgroup's keys do not live in another's records, a spare record is kept
 * for the memory cgroup of the task that gave it up (key.tag) and taken
 * only by a task of that cgroup (outside task context, where nothing is
 * charged, by such a caller only). The common users, a controller's
 * producers and workers in one process, always match. What is left: a
 * record allocated in cgroup A and done by a task of cgroup B may hold
 * B's next key; A is then charged for at most as many records as it
 * allocated itself, never more. A queue keeps at most KWQ_SPARE_MAX
 * records (under 10 KiB) beyond its keys, which the per-user limit on
 * queues bounds; when it has that many, the oldest makes room for the
 * newest, so the spares of a cgroup that adds no more (a restarted
 * container's, its cgroup gone) leave as others come instead of
 * keeping the queue from keeping any.
 *
 * Handles (struct kwq_held, kwq_get_held()): a record a handle names is
 * pinned (KWQ_ITEM_PINS) and never freed while pinned, so kwq_done_held()
 * may look at it whatever became of its key. If the key goes meanwhile
 * (done by its bytes, by anyone; discarded; evicted), the record becomes
 * an orphan on q->orphans instead of spare or freed: out of the key table,
 * charged to nobody's key budget, its long key's bytes freed. The last
 * handle's kwq_done_held() makes it spare or frees it. Orphans are
 * bounded by the handles their callers hold, and freed with the queue.
 * While the key stays, its record may be handed out again with a new
 * generation (q->gen_seq): that tells a handle's hand-out from a later
 * one.
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

void kwq_record_prepare_hashed(struct kwq *q, struct kwq_item *new, u64 hash,
			       gfp_t gfp);
void kwq_record_grow_work(struct work_struct *work);

/**
 * kwq_record_hash() - the key table's hash of a key
 * @q: the queue
 * @key: the key bytes
 * @len: their length
 *
 * Context: any context; no lock needed (the seed never changes).
 * Return: the hash, for kwq_record_find_locked().
 */
static inline u64 kwq_record_hash(struct kwq *q, const void *key, u32 len)
{
	return kwq_keytab_hash(&q->keys, key, len);
}

/**
 * kwq_record_find_locked() - the record of a key
 * @q: the queue (q->lock held)
 * @hash: kwq_record_hash() of the key
 * @key: the key bytes
 * @len: their length
 *
 * Return: the record, held or idle, or NULL.
 */
static inline struct kwq_item *kwq_record_find_locked(struct kwq *q, u64 hash,
						      const void *key, u32 len)
{
	struct kwq_key *k;

	lockdep_assert_held(&q->lock);
	k = kwq_keytab_find(&q->keys, hash, key, len);
	return k ? container_of(k, struct kwq_item, key) : NULL;
}

struct kwq_item *kwq_record_hold_locked(struct kwq *q, struct kwq_item **new,
					bool unlimited);
struct kwq_item *kwq_record_hold_found_locked(struct kwq *q,
					      struct kwq_item *item,
					      struct kwq_item **new,
					      bool unlimited);
void kwq_record_tag_hold_locked(struct kwq *q);

/**
 * kwq_record_untag_hold_locked() - end kwq_record_tag_hold_locked()'s tag
 * @q: the queue (q->lock held, and dropped next)
 */
static inline void kwq_record_untag_hold_locked(struct kwq *q)
{
	lockdep_assert_held(&q->lock);
	q->hold_batch = false;
	q->hold_tag_known = false;
}

struct kwq_item *kwq_record_spare_locked(struct kwq *q, u32 len);
void kwq_record_put_locked(struct kwq *q, struct kwq_item *item);
void kwq_record_pin_locked(struct kwq *q, struct kwq_item *item);
void kwq_record_unpin_locked(struct kwq *q, struct kwq_item *item);
void kwq_record_grow(struct kwq *q, gfp_t gfp);
void kwq_record_unhold_locked(struct kwq *q, struct kwq_item *item);
void kwq_record_drop_idle_locked(struct kwq *q, struct kwq_item *item);

#endif /* _WQ_RECORD_H */
