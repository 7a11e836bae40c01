// SPDX-License-Identifier: GPL-2.0
/*
 * The queue: client-go's workqueue Interface (queue.go). The queue's life
 * cycle, the record states' transitions (Add's step: a key made pending;
 * the entry points of Add are in wq_add.c), and Done (Get: wq_get.c;
 * waits, readiness, ShutDown and drain: wq_wait.c), and the keys of a
 * handle that goes away (the holders, at the end). See wq_queue.h for the
 * record states and the locking rules; this file relies on all of them.
 */
#include <linux/bitfield.h>
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "wq_delay.h"
#include "wq_metrics.h"
#include "wq_queue.h"
#include "wq_quota.h"
#include "wq_ready.h"
#include "wq_record.h"
#include "wq_trace.h"

/* The last queue id handed out (struct kwq.id): never reused while loaded. */
static atomic64_t kwq_last_id = ATOMIC64_INIT(0);

/*
 * Queues are 2.5 KiB: a cache of their own, not kmalloc-4096's slots. Not
 * SLAB_ACCOUNT: /dev/wq's queues are charged by their __GFP_ACCOUNT, the
 * kernel API's to no memory cgroup.
 */
static struct kmem_cache *kwq_queue_cache;

/**
 * kwq_queue_cache_init() - create the queue cache
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int kwq_queue_cache_init(void)
{
	kwq_queue_cache = kmem_cache_create("wq_queue", sizeof(struct kwq), 0,
					    0, NULL);
	return kwq_queue_cache ? 0 : -ENOMEM;
}

/**
 * kwq_queue_cache_exit() - destroy the queue cache; every queue must be
 * freed
 *
 * Context: module exit.
 */
void kwq_queue_cache_exit(void)
{
	kmem_cache_destroy(kwq_queue_cache);
}

/**
 * kwq_queue_alloc() - allocate an empty queue with one reference
 * @max_items: most keys held at once (> 0)
 * @max_tracked: most keys kept only for their rate-limiter failures
 * @limiter: the rate limiter (validated again here)
 * @owner: the budget to charge (wq_quota.h); on success the queue owns the
 *	caller's reference to it
 * @gfp: allocation flags
 *
 * Context: process context.
 * Return: the queue, or an ERR_PTR (-EINVAL, -EDQUOT, -ENOMEM).
 */
struct kwq *kwq_queue_alloc(u32 max_items, u32 max_tracked,
			    const struct wq_limiter *limiter,
			    struct wq_user *owner, gfp_t gfp)
{
	struct kwq *q;
	int ret;

	ret = wq_quota_charge_queue(owner);
	if (ret)
		return ERR_PTR(ret);
	ret = -ENOMEM;
	q = kmem_cache_zalloc(kwq_queue_cache, gfp);
	if (!q)
		goto err_uncharge;
	ret = -EINVAL;
	if (kwq_limiter_init(&q->limiter, limiter))
		goto err_free;
	ret = -ENOMEM;
	if (kwq_delay_init(q, max_items, gfp))
		goto err_free;
	if (kwq_keytab_init(&q->keys, gfp))
		goto err_free_delay;
	xa_init_flags(&q->holders, XA_FLAGS_ALLOC);
	if (xa_reserve(&q->holders, 0, gfp))
		goto err_free_keys;
	spin_lock_init(&q->lock);
	INIT_WORK(&q->grow_work, kwq_record_grow_work);
	kwq_ready_init(q, false, 0);
	INIT_LIST_HEAD(&q->idle);
	INIT_LIST_HEAD(&q->orphans);
	kwq_metrics_init(q);
	q->max_tracked = max_tracked;
	init_waitqueue_head(&q->getters);
	init_waitqueue_head(&q->producers);
	init_waitqueue_head(&q->drainers);
	kref_init(&q->ref);
	INIT_HLIST_NODE(&q->name_node);
	q->max_items = max_items;
	q->uid = GLOBAL_ROOT_UID;
	q->gid = GLOBAL_ROOT_GID;
	q->owner = owner;
	q->id = atomic64_inc_return(&kwq_last_id);
	return q;

err_free_keys:
	kwq_keytab_destroy(&q->keys);
err_free_delay:
	kwq_delay_destroy(q);
err_free:
	kmem_cache_free(kwq_queue_cache, q);
err_uncharge:
	wq_quota_uncharge_queue(owner);
	return ERR_PTR(ret);
}

static void kwq_queue_release(struct kref *ref)
{
	struct kwq *q = container_of(ref, struct kwq, ref);

	kwq_delay_stop(q);
	cancel_work_sync(&q->grow_work);
	kwq_record_free_all(q);
	kwq_ready_destroy(q);
	kwq_keytab_destroy(&q->keys);
	kwq_delay_destroy(q);
	xa_destroy(&q->holders);
	wq_quota_uncharge_queue(q->owner);
	wq_quota_put(q->owner);
	kmem_cache_free(kwq_queue_cache, q);
}

/**
 * kwq_put() - drop a reference; the last one frees the queue and its keys
 * @q: the queue
 *
 * Context: process context: the last put sleeps (it waits for the delay
 * timer and the queue's work items); nobody may be waiting on the queue
 * when the last reference goes (waiters hold references through their
 * handles).
 */
void kwq_put(struct kwq *q)
{
	might_sleep();
	kref_put(&q->ref, kwq_queue_release);
}
EXPORT_SYMBOL_NS_GPL(kwq_put, WQ_NS);

/*
 * Queue a key at the tail (or, to undo a get, at the head). The caller
 * wakes consumers after unlocking (kwq_wake_getters()).
 */
static void kwq_enqueue_locked(struct kwq *q, struct kwq_item *item,
			       bool head)
{
	lockdep_assert_held(&q->lock);
	item->flags |= KWQ_ITEM_QUEUED;
	kwq_ready_push_locked(q, item, head);
	WRITE_ONCE(q->nr_queued, q->nr_queued + 1);
}

/*
 * A PROCESSING record stops processing (off its holder, not dirty);
 * @hint: the holder the caller knows, likely the record's, or NULL.
 */
static void kwq_end_processing_locked(struct kwq *q, struct kwq_item *item,
				      struct kwq_holder *hint)
{
	lockdep_assert_held(&q->lock);
	kwq_metrics_end_locked(q, item);
	kwq_prio_end_locked(q, item);
	kwq_holder_unheld_locked(q, item, hint);
	/* a discard zeroed nr_dirty and left the marks to be ignored */
	if ((item->flags & KWQ_ITEM_DIRTY) && !q->discarded)
		q->nr_dirty--;
	item->flags &= ~(KWQ_ITEM_PROCESSING | KWQ_ITEM_DIRTY);
	q->nr_processing--;
}

static void kwq_queue_again_locked(struct kwq *q, struct kwq_item *item,
				   bool head, struct kwq_holder *hint);

/**
 * kwq_requeue_locked() - a processing key goes back on the queue, whether
 * it was dirty or not
 * @q: the queue (q->lock held)
 * @item: a PROCESSING record
 * @head: at the head (undoing a get) rather than the tail
 *
 * After a discarding shutdown nothing goes back: the key is dropped
 * (@item may be freed on return), and drains may be done. The caller
 * wakes consumers after unlocking if q->nr_queued grew
 * (kwq_wake_getters()).
 *
 * A key put back at the tail that was not dirty (its handle closed)
 * becomes pending now: its queue_duration runs from here. A dirty key
 * keeps the time of the add that made it dirty, a key put back at the
 * head (its get undone) the time it had. On a priority queue it goes back
 * with the higher of the priority it was handed out with and the adds'
 * since (kwq_prio_put_back_locked()).
 */
void kwq_requeue_locked(struct kwq *q, struct kwq_item *item, bool head)
{
	kwq_prio_put_back_locked(q, item);
	kwq_queue_again_locked(q, item, head, NULL);
}

/*
 * kwq_requeue_locked() at the priority @item has now (wq_ready.h); @hint
 * as kwq_end_processing_locked()'s.
 */
static void kwq_queue_again_locked(struct kwq *q, struct kwq_item *item,
				   bool head, struct kwq_holder *hint)
{
	bool dirty = item->flags & KWQ_ITEM_DIRTY;

	kwq_end_processing_locked(q, item, hint);
	if (q->discarded) {
		kwq_record_unhold_locked(q, item);
		kwq_wake_drainers_locked(q);
		return;
	}
	if (!dirty && !head)
		item->dirty_ns = kwq_metrics_now();
	/* a priority queue hands a key out once: ready, not also waiting */
	if (q->prio && (item->flags & KWQ_ITEM_WAITING))
		kwq_delay_cancel_locked(q, item);
	kwq_enqueue_locked(q, item, head);
}

/**
 * kwq_mark_pending_locked() - Add of a held record: make it pending now
 * @q: the queue (q->lock held)
 * @item: the record
 * @now: kwq_metrics_now() of this hold of q->lock, or 0 to read it only
 *	if the key becomes pending (a caller with many keys reads it once)
 *
 * Queued at the tail; coalesced with a queued copy, which keeps its place;
 * or marked dirty while processing, to be queued again at done. On a
 * priority queue a waiting copy is dropped: the key is ready now. The caller
 * wakes a consumer if q->nr_queued grew (kwq_wake_getters()).
 *
 * An add that makes the key newly dirty (queued, or marked dirty) counts
 * in adds_total and starts its queue_duration (wq_metrics.h).
 *
 * Return: what the add did: WQ_ADDED_QUEUED, WQ_ADDED_COALESCED (queued
 * already) or WQ_ADDED_DIRTY (processing: queued again at done).
 */
int kwq_mark_pending_locked(struct kwq *q, struct kwq_item *item, u64 now)
{
	lockdep_assert_held(&q->lock);
	/* a priority queue hands a key out once: it is ready, not waiting */
	if (q->prio && (item->flags & KWQ_ITEM_WAITING))
		kwq_delay_cancel_locked(q, item);
	if ((item->flags & KWQ_ITEM_QUEUED) ||
	    (item->flags & KWQ_ITEM_DIRTY)) {
		trace_kwq_add(q, item, KWQ_TRACE_COALESCED);
		return (item->flags & KWQ_ITEM_QUEUED) ? WQ_ADDED_COALESCED :
							 WQ_ADDED_DIRTY;
	}
	item->dirty_ns = now ?: kwq_metrics_now();
	q->adds++;
	if (item->flags & KWQ_ITEM_PROCESSING) {
		item->flags |= KWQ_ITEM_DIRTY;
		q->nr_dirty++;
		kwq_prio_dirty_locked(q, item, 1);
		trace_kwq_add(q, item, KWQ_TRACE_DIRTY);
		return WQ_ADDED_DIRTY;
	}
	kwq_enqueue_locked(q, item, false);
	trace_kwq_add(q, item, KWQ_TRACE_QUEUED);
	return WQ_ADDED_QUEUED;
}

/*
 * End processing of @item: queue it again if dirty (unless a discard
 * dropped the mark), else unhold it (@item may be freed). Observes its
 * work_duration; @now is kwq_metrics_now() of this hold of q->lock;
 * @hint as kwq_end_processing_locked()'s.
 */
static void kwq_finish_locked(struct kwq *q, struct kwq_item *item, u64 now,
			      struct kwq_holder *hint)
{
	bool again = (item->flags & KWQ_ITEM_DIRTY) && !q->discarded;

	lockdep_assert_held(&q->lock);
	kwq_hist_observe(&q->metrics.work_duration, now - item->start_ns);
	trace_kwq_done(q, item, now - item->start_ns, again);
	if (again) {
		kwq_queue_again_locked(q, item, false, hint);
	} else {
		kwq_end_processing_locked(q, item, hint);
		kwq_record_unhold_locked(q, item);
	}
	kwq_wake_drainers_locked(q);
}

/*
 * Drop q->lock after dones, and wake consumers for the keys they queued
 * again and producers for the slots they freed: @queued and @held are
 * q->nr_queued and q->nr_held before them.
 */
static void kwq_done_unlock(struct kwq *q, unsigned long flags,
			    unsigned int queued, unsigned int held)
	__releases(&q->lock)
{
	queued = q->nr_queued - queued;
	held -= q->nr_held;
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_wake_getters(q, queued);
	kwq_wake_producers(q, held);
}

/*
 * Will @holder's next done likely be of its oldest key, found without a
 * hash? A worker that ends its keys in the order it got them:
 * kwq_queue_done() then leaves the hash to be computed under q->lock
 * if it is needed after all. Others (threads of a pool sharing a handle,
 * out of order) hash before taking the lock, as ever.
 */
static bool kwq_holder_in_order(const struct kwq_holder *holder)
{
	return holder && READ_ONCE(holder->in_order);
}

/*
 * The record of @k, with q->lock held: the oldest key @holder got and has
 * not done, if it is @k (a worker ends its keys in the order it got them:
 * no hash, no look-up); else looked up, hashing @k first if the caller
 * left its hash 0 (a hash of 0 is then merely computed again).
 */
static struct kwq_item *kwq_done_find_locked(struct kwq *q,
					     struct kwq_holder *holder,
					     struct kwq_keyref *k)
{
	struct kwq_item *item;
	bool hit = false;

	if (holder && !list_empty(&holder->held)) {
		item = list_first_entry(&holder->held, struct kwq_item, link);
		/* a key has one record: these bytes are its own */
		hit = item->key.len == k->len &&
		      !memcmp(kwq_key_data(&item->key), k->data, k->len);
	}
	if (holder && READ_ONCE(holder->in_order) != hit)
		WRITE_ONCE(holder->in_order, hit);
	if (hit)
		return item;
	if (!k->hash)
		k->hash = kwq_record_hash(q, k->data, k->len);
	return kwq_record_find_locked(q, k->hash, k->data, k->len);
}

/**
 * kwq_queue_done() - Done of each of @n keys, one hold of q->lock
 * @q: the queue
 * @holder: the handle's keys in processing (its oldest is found without a
 *	look-up), or NULL
 * @keys: in: the keys, with their hashes or 0 (not computed yet); out: a
 *	hash of 0 filled in, before q->lock is taken, or, when @holder is
 *	in order (kwq_holder_in_order(): likely not needed), under it and
 *	only on a miss
 * @res: out: each key's result (0 or -ENOENT), @n entries
 * @n: 1..KWQ_BATCH
 *
 * A key added while processing goes to the tail of the queue (also after
 * shutdown, not after a discard). Any handle may end any key's processing.
 * Consumers are woken for the keys queued again, producers for the slots
 * freed, after the lock is dropped.
 *
 * Context: any context.
 * Return: how many keys were processing (and are done now).
 */
unsigned int kwq_queue_done(struct kwq *q, struct kwq_holder *holder,
			    struct kwq_keyref *keys, int *res, unsigned int n)
{
	unsigned int i, ok = 0, queued, held;
	struct kwq_item *item;
	unsigned long flags;
	u64 now;

	if (WARN_ON_ONCE(n > KWQ_BATCH))
		n = KWQ_BATCH;
	if (!kwq_holder_in_order(holder))
		for (i = 0; i < n; i++)
			if (!keys[i].hash)
				keys[i].hash = kwq_record_hash(q, keys[i].data,
							       keys[i].len);
	spin_lock_irqsave(&q->lock, flags);
	now = kwq_metrics_now();
	queued = q->nr_queued;
	held = q->nr_held;
	if (n > 1)
		kwq_record_tag_hold_locked(q);
	for (i = 0; i < n; i++) {
		item = kwq_done_find_locked(q, holder, &keys[i]);
		if (item && (item->flags & KWQ_ITEM_PROCESSING)) {
			kwq_finish_locked(q, item, now, holder);
			res[i] = 0;
			ok++;
		} else {
			res[i] = -ENOENT;
		}
	}
	kwq_record_untag_hold_locked(q);
	kwq_done_unlock(q, flags, queued, held);
	return ok;
}

/**
 * kwq_queue_done_held() - Done of a key by its record, without a look-up
 * @q: the queue
 * @item: the record a take pinned for a handle (struct kwq_take.recs)
 * @gen: the generation that take gave the key
 *
 * Ends the processing of that hand-out, if it is still processing (not
 * done by its bytes since, nor handed out again), as kwq_queue_done()
 * would; either way the handle's pin on @item is given back, which frees
 * an orphaned record with its last handle.
 *
 * Context: any context.
 * Return: 0, or -ENOENT if that hand-out is not processing any more.
 */
int kwq_queue_done_held(struct kwq *q, struct kwq_item *item, u64 gen)
{
	unsigned int queued, held;
	unsigned long flags;
	bool mine;

	spin_lock_irqsave(&q->lock, flags);
	queued = q->nr_queued;
	held = q->nr_held;
	/* generations are never reused: the record's own hand-out */
	mine = (item->flags & KWQ_ITEM_PROCESSING) && item->gen == gen;
	/* a record still processing is held, never an orphan: not freed */
	kwq_record_unpin_locked(q, item);
	if (mine)
		kwq_finish_locked(q, item, kwq_metrics_now(), NULL);
	kwq_done_unlock(q, flags, queued, held);
	return mine ? 0 : -ENOENT;
}

/**
 * kwq_queue_key_state() - what the queue holds of a key
 * @q: the queue
 * @key: the key
 * @len: its length
 * @info: out, if not NULL: the state, priority (a key in processing: the
 *	one it was handed out with; 0 on a plain queue), ready time (waiting
 *	keys) and failures, all from one look
 *
 * Context: any context; takes q->lock.
 * Return: WQ_KEY_* (uapi): queued, processing, dirty, waiting, and
 * tracked if the limiter counts failures of it; 0 for a key the queue does
 * not know.
 */
u32 kwq_queue_key_state(struct kwq *q, const void *key, u32 len,
			struct kwq_key_info *info)
{
	return kwq_queue_key_state_hashed(q, kwq_record_hash(q, key, len), key,
					  len, info);
}

/**
 * kwq_queue_key_state_hashed() - kwq_queue_key_state() of a key hashed
 * already
 * @q: the queue
 * @hash: kwq_record_hash() of the key
 * @key: the key
 * @len: its length
 * @info: as for kwq_queue_key_state()
 *
 * Context: any context; takes q->lock.
 * Return: as kwq_queue_key_state().
 */
u32 kwq_queue_key_state_hashed(struct kwq *q, u64 hash, const void *key,
			       u32 len, struct kwq_key_info *info)
{
	struct kwq_key_info ki = {};
	struct kwq_item *item;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	item = kwq_record_find_locked(q, hash, key, len);
	if (item) {
		ki.state = (item->flags & KWQ_ITEM_QUEUED ? WQ_KEY_QUEUED : 0) |
			   (item->flags & KWQ_ITEM_PROCESSING ?
			    WQ_KEY_PROCESSING : 0) |
			   (item->flags & KWQ_ITEM_DIRTY ? WQ_KEY_DIRTY : 0) |
			   (item->flags & KWQ_ITEM_WAITING ?
			    WQ_KEY_WAITING : 0) |
			   (item->failures ? WQ_KEY_TRACKED : 0);
		if (q->prio && (item->flags & KWQ_ITEM_PROCESSING))
			ki.priority = item->prio_out;
		else if (q->prio && (item->flags & KWQ_ITEM_HELD))
			ki.priority = item->prio;
		if (item->flags & KWQ_ITEM_WAITING)
			ki.ready_ns = item->wait.when;
		ki.requeues = item->failures;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (info)
		*info = ki;
	return ki.state;
}

/*
 * Holders: the keys in processing that belong to one handle, put back on
 * the queue when the handle goes away, so a consumer that dies loses no
 * work (per open file: see the uapi header). Relies on wq_queue.h: the
 * PROCESSING state, holder->held under q->lock, and the rule that no hold
 * of q->lock grows with the queue (keys go back in batches).
 */
/**
 * kwq_holder_init() - prepare a holder (one per handle)
 * @holder: the holder
 */
void kwq_holder_init(struct kwq_holder *holder)
{
	INIT_LIST_HEAD(&holder->held);
	holder->nr = 0;
	holder->id = 0;
	holder->in_order = false;
}

/**
 * kwq_holder_attach() - @holder takes keys of @q from now on
 * @q: the queue (its handle is being bound)
 * @holder: the holder
 * @creator: the handle that created @q: it gets the id kept for it
 *	(KWQ_HOLDER_CREATOR), so binding it cannot fail
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOMEM, or -ENFILE: @q has KWQ_HOLDER_MAX handles.
 */
int kwq_holder_attach(struct kwq *q, struct kwq_holder *holder, bool creator)
{
	u32 index;
	int ret;

	if (creator) {
		/* reserved with the queue, at index 0: nothing to allocate */
		holder->id = KWQ_HOLDER_CREATOR;
		return xa_err(xa_store(&q->holders, 0, holder, GFP_KERNEL));
	}
	ret = xa_alloc(&q->holders, &index, holder,
		       XA_LIMIT(1, KWQ_HOLDER_MAX - 1), GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret == -EBUSY ? -ENFILE : ret;
	holder->id = index + 1;		/* 0 in a record's flags: none */
	return 0;
}

/**
 * kwq_holder_detach() - a released holder (kwq_holder_release()) goes
 * @q: its queue
 * @holder: the holder, holding nothing
 *
 * Context: process context.
 */
void kwq_holder_detach(struct kwq *q, struct kwq_holder *holder)
{
	WARN_ON_ONCE(!list_empty(&holder->held));
	xa_erase(&q->holders, holder->id - 1);
}

/**
 * kwq_holder_unheld_locked() - @item stops being processing for its holder
 * @q: the queue (q->lock held)
 * @item: a PROCESSING record, off its holder's list after this, wherever
 *	the done came from
 * @hint: a holder of @q the caller knows (the done's own), or NULL: if it
 *	is @item's, no look-up in q->holders
 *
 * Context: any context (q->lock held).
 */
void kwq_holder_unheld_locked(struct kwq *q, struct kwq_item *item,
			      struct kwq_holder *hint)
{
	u32 id = FIELD_GET(KWQ_ITEM_HOLDER, item->flags);
	struct kwq_holder *holder;

	list_del_init(&item->link);
	if (!id)
		return;
	item->flags &= ~KWQ_ITEM_HOLDER;
	/* a holder is in q->holders while it holds keys */
	holder = hint && hint->id == id ? hint : xa_load(&q->holders, id - 1);
	if (!WARN_ON_ONCE(!holder))
		WRITE_ONCE(holder->nr, holder->nr - 1);
}

/* Keys put back per hold of q->lock when a holder goes away. */
#define KWQ_RELEASE_BATCH	64

/**
 * kwq_holder_release() - put every key the holder is processing back on
 * the queue (at the tail, dirty or not; also after shutdown)
 * @q: the queue
 * @holder: the holder; empty afterwards
 *
 * A handle may hold any number of keys: they go back KWQ_RELEASE_BATCH at
 * a time, so no hold of q->lock grows with them. Each key put back counts
 * in requeued_on_close_total (wq_metrics.h).
 *
 * Context: process context; may sleep.
 */
void kwq_holder_release(struct kwq *q, struct kwq_holder *holder)
{
	struct kwq_item *item, *tmp;
	unsigned int n, was;
	unsigned long flags;
	bool more;

	do {
		n = 0;
		spin_lock_irqsave(&q->lock, flags);
		was = q->nr_queued;
		list_for_each_entry_safe(item, tmp, &holder->held, link) {
			if (n++ == KWQ_RELEASE_BATCH)
				break;
			if (!q->discarded)	/* else dropped, not put back */
				q->metrics.requeued_on_close++;
			kwq_requeue_locked(q, item, false);
		}
		more = !list_empty(&holder->held);
		was = q->nr_queued - was;
		spin_unlock_irqrestore(&q->lock, flags);
		kwq_wake_getters(q, was);
		if (more)
			cond_resched();
	} while (more);
}
