// SPDX-License-Identifier: GPL-2.0
/*
 * Records: allocation, the key table they live in, holding and unholding,
 * and the idle LRU of records kept only for their failures. See
 * wq_record.h; the rules are in wq_queue.h.
 */
#include <linux/cgroup.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "wq_quota.h"
#include "wq_ready.h"
#include "wq_record.h"

static struct kmem_cache *kwq_item_cache;

/**
 * kwq_record_cache_init() - create the record cache
 *
 * Return: 0 or -ENOMEM.
 */
int kwq_record_cache_init(void)
{
	/* Short keys are copied from userspace straight into the record. */
	kwq_item_cache = kmem_cache_create_usercopy("wq_item",
						    sizeof(struct kwq_item), 0,
						    SLAB_ACCOUNT,
						    offsetof(struct kwq_item,
							     key.inl),
						    KWQ_INLINE_KEY, NULL);
	return kwq_item_cache ? 0 : -ENOMEM;
}

/**
 * kwq_record_cache_exit() - destroy the record cache; every record must be
 * freed
 */
void kwq_record_cache_exit(void)
{
	kmem_cache_destroy(kwq_item_cache);
}

/* The fields of a cleared record of a key of @len bytes that are not 0. */
static void kwq_record_ready(struct kwq_item *item, u32 len)
{
	item->key.len = len;
	INIT_LIST_HEAD(&item->link);
	INIT_LIST_HEAD(&item->run);
}

/*
 * A spare record for a key of @len bytes, as kwq_record_alloc() leaves
 * one: every field cleared but the inline bytes, which the caller fills
 * (up to @len: nothing reads past it).
 */
static void kwq_record_init(struct kwq_item *item, u32 len)
{
	/* what comes before @wait is all set here and by kwq_record_ready() */
	static_assert(offsetof(struct kwq_item, wait) ==
		      sizeof(struct kwq_key) + 2 * sizeof(struct list_head));
	static_assert(sizeof(struct kwq_key) ==
		      sizeof(struct hlist_node) + 2 * sizeof(u32) +
		      KWQ_INLINE_KEY);

	INIT_HLIST_NODE(&item->key.node);
	item->key.hash = 0;
	memset_startat(item, 0, wait);
	kwq_record_ready(item, len);
}

/**
 * kwq_record_alloc() - allocate a record for a key of @len bytes
 * @len: key length, 1..WQ_KEY_MAX
 * @gfp: allocation flags
 *
 * The caller fills the len bytes at kwq_key_data(&item->key).
 *
 * Context: any context @gfp allows; not under q->lock.
 * Return: the record, or NULL.
 */
struct kwq_item *kwq_record_alloc(u32 len, gfp_t gfp)
{
	struct kwq_item *item;

	gfp |= __GFP_NOWARN;	/* a failed add is -ENOMEM, nothing worse */

	/* zeroed once, also where the slab zeroes every allocation */
	item = kmem_cache_zalloc(kwq_item_cache, gfp);
	if (!item)
		return NULL;
	kwq_record_ready(item, len);
	if (len > KWQ_INLINE_KEY) {
		item->key.ext = kmalloc(len, gfp);
		if (!item->key.ext) {
			kmem_cache_free(kwq_item_cache, item);
			return NULL;
		}
	}
	return item;
}

/**
 * kwq_record_free() - free a record that is in no table or list
 * @item: the record
 */
void kwq_record_free(struct kwq_item *item)
{
	if (item->key.len > KWQ_INLINE_KEY)
		kfree(item->key.ext);
	kmem_cache_free(kwq_item_cache, item);
}

static void kwq_record_free_key(struct kwq_key *key)
{
	kwq_record_free(container_of(key, struct kwq_item, key));
	cond_resched();			/* a queue may hold millions */
}

/* What a record costs its queue's owner. */
static long kwq_record_cost(u32 len)
{
	return (long)len + WQ_KEY_COST;
}

/* The slot of q->spare of its @k-th newest record (@k < q->nr_spare). */
static unsigned int kwq_spare_slot(const struct kwq *q, unsigned int k)
{
	BUILD_BUG_ON(!is_power_of_2(KWQ_SPARE_MAX));	/* wraps with u32 */
	return (q->spare_head - 1 - k) % KWQ_SPARE_MAX;
}

/**
 * kwq_record_free_all() - free every record of a queue nobody uses any more,
 * and give their charge back
 * @q: the queue, on its way to being freed
 *
 * Context: process context; no lock held (it reschedules).
 */
void kwq_record_free_all(struct kwq *q)
{
	struct kwq_item *item, *tmp;

	while (q->nr_spare)
		kwq_record_free(q->spare[kwq_spare_slot(q, --q->nr_spare)]);
	list_for_each_entry_safe(item, tmp, &q->orphans, link) {
		kwq_record_free(item);
		cond_resched();		/* as many as handles not given back */
	}
	INIT_LIST_HEAD(&q->orphans);
	kwq_keytab_drain(&q->keys, kwq_record_free_key);
	wq_quota_uncharge_bytes(q->owner, q->charged);
	q->charged = 0;
}

/**
 * kwq_record_grow() - grow the key table if it asks for it
 * @q: the queue
 * @gfp: how the caller may allocate
 *
 * Grow the key table if it asks for it. The bucket array (up to 8 MiB) is
 * a kvmalloc, which wants GFP_KERNEL-compatible flags: callers whose @gfp
 * does not include GFP_KERNEL (atomic adds, GFP_NOFS, GFP_NOIO) leave it
 * to q->grow_work, so a queue fed only from such contexts grows too. The
 * allocation is __GFP_RETRY_MAYFAIL, as the keys from userspace are: a
 * bigger table is never worth an OOM kill. If it fails, the add goes on
 * (the table only gets denser) and the table asks again only after
 * KWQ_KEYTAB_GROW_BACKOFF, so a failing allocation, with its reclaim, is
 * not repeated by every add.
 *
 * The table never shrinks, so its growth (the doubling: half the new table)
 * is charged to the queue's owner until the queue is freed. It is never
 * refused for the budget: it is at most 4 bytes per record, and records
 * are what the budget bounds (a table kept small while records pass the
 * budget, by CAP_SYS_RESOURCE, would make lookups grow with the queue).
 *
 * Bucket arrays are freed only with q->lock dropped (kvfree() may sleep):
 * here, by q->grow_work, and with the queue (kwq_keytab_destroy()).
 *
 * Called before a new record is inserted (kwq_record_prepare_hashed()),
 * or after an insert made in the same hold of q->lock as the look-up (a
 * spare record's): the table may be a key denser than asked for meanwhile.
 * One caller grows the table at a time (q->growing): the others go on
 * without waiting, so producers crossing the threshold together allocate
 * and charge one bigger array, not one each.
 *
 * Context: any context @gfp allows; not under q->lock.
 */
void kwq_record_grow(struct kwq *q, gfp_t gfp)
{
	struct hlist_head *buckets, *retired;
	unsigned long flags;
	unsigned int shift;
	long cost;
	bool taken;

	if (!kwq_keytab_want_grow(&q->keys, &shift))
		return;
	if ((gfp & GFP_KERNEL) != GFP_KERNEL) {
		schedule_work(&q->grow_work);
		return;
	}
	if (test_and_set_bit_lock(0, &q->growing))
		return;
	/* the size asked again: a growth may have just ended */
	if (!kwq_keytab_want_grow(&q->keys, &shift))
		goto out;
	cost = (long)sizeof(*buckets) << (shift - 1);
	wq_quota_charge_bytes(q->owner, true, cost);
	buckets = kwq_keytab_alloc_buckets(shift, gfp | __GFP_RETRY_MAYFAIL);
	if (!buckets) {
		kwq_keytab_grow_failed(&q->keys);
		goto uncharge;
	}
	spin_lock_irqsave(&q->lock, flags);
	taken = kwq_keytab_start_grow(&q->keys, buckets, shift);
	if (taken)
		q->charged += cost;
	retired = kwq_keytab_take_retired(&q->keys);
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_keytab_free_retired(retired);
	if (taken)
		goto out;
	kvfree(buckets);
uncharge:
	wq_quota_uncharge_bytes(q->owner, cost);
out:
	clear_bit_unlock(0, &q->growing);
}

/**
 * kwq_record_grow_work() - q->grow_work: free the old bucket arrays of a
 * finished key-table migration, and grow the key table for producers that
 * could not
 * @work: &q->grow_work
 *
 * Scheduled under q->lock when a migration ends (the old array cannot be
 * freed there), and by kwq_record_grow() for producers whose flags do not
 * allow GFP_KERNEL.
 *
 * Context: process context (a workqueue worker).
 */
void kwq_record_grow_work(struct work_struct *work)
{
	struct kwq *q = container_of(work, struct kwq, grow_work);
	struct hlist_head *retired;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	retired = kwq_keytab_take_retired(&q->keys);
	spin_unlock_irqrestore(&q->lock, flags);
	kwq_keytab_free_retired(retired);
	kwq_record_grow(q, GFP_KERNEL);
}

/*
 * A key-table insert or remove ended a migration: the old array is freed by
 * q->grow_work, outside q->lock. Called under q->lock, in any context
 * (schedule_work() only takes the workqueue's raw pool lock).
 */
static void kwq_record_retired_locked(struct kwq *q)
{
	schedule_work(&q->grow_work);
}

/**
 * kwq_record_prepare_hashed() - get a new record ready to be looked up and
 * held
 * @q: the queue
 * @new: a record from kwq_record_alloc() with its key filled in
 * @hash: kwq_record_hash() of that key, computed by the caller (a key is
 *	never hashed twice)
 * @gfp: how the caller may allocate
 *
 * Stores the hash for every lookup that follows, and grows the key table
 * first if it is due, while no lock is held.
 *
 * Context: any context @gfp allows; not under q->lock.
 */
void kwq_record_prepare_hashed(struct kwq *q, struct kwq_item *new, u64 hash,
			       gfp_t gfp)
{
	new->key.hash = hash;
	kwq_record_grow(q, gfp);
}

/**
 * kwq_record_hold_locked() - the held record of a key
 * @q: the queue (q->lock held)
 * @new: in: a record from kwq_record_prepare_hashed(); set to NULL if it
 *	became the key's record, else left for the caller to free after
 *	unlocking
 * @unlimited: the adder has CAP_SYS_RESOURCE: charge a new record even
 *	beyond the owner's budget
 *
 * kwq_record_hold_found_locked() of the key's record, looked up.
 *
 * Return: as kwq_record_hold_found_locked().
 */
struct kwq_item *kwq_record_hold_locked(struct kwq *q, struct kwq_item **new,
					bool unlimited)
{
	lockdep_assert_held(&q->lock);
	return kwq_record_hold_found_locked(q,
					    kwq_record_find_locked(q,
								   (*new)->key.hash,
								   kwq_key_data(&(*new)->key),
								   (*new)->key.len),
					    new, unlimited);
}

/**
 * kwq_record_hold_found_locked() - kwq_record_hold_locked() of a key
 * already looked up in this hold of q->lock
 * @q: the queue (q->lock held)
 * @item: kwq_record_find_locked() of the key
 * @new: a record for the key (its key and hash filled in), used only if
 *	@item is NULL; set to NULL if it became the key's record
 * @unlimited: as for kwq_record_hold_locked()
 *
 * @item (made held again if it was idle), or *@new inserted into the key
 * table. Either counts against max_items unless it was held already; the
 * caller gives it a held state before it unlocks.
 *
 * Return: the record; ERR_PTR(-EAGAIN) if a key not held yet would exceed
 * max_items, ERR_PTR(-EDQUOT) if a new record would exceed the owner's
 * budget (nothing changed).
 */
struct kwq_item *kwq_record_hold_found_locked(struct kwq *q,
					      struct kwq_item *item,
					      struct kwq_item **new,
					      bool unlimited)
{
	lockdep_assert_held(&q->lock);
	if (item && (item->flags & KWQ_ITEM_HELD))
		return item;
	if (q->nr_held >= q->max_items)
		return ERR_PTR(-EAGAIN);
	if (item) {
		list_del_init(&item->link);	/* off q->idle */
		q->nr_idle--;
		WRITE_ONCE(q->nr_held, q->nr_held + 1);	/* read by poll */
		return item;
	}
	item = *new;
	if (!wq_quota_charge_bytes(q->owner, unlimited,
				   kwq_record_cost(item->key.len)))
		return ERR_PTR(-EDQUOT);
	q->charged += kwq_record_cost(item->key.len);
	*new = NULL;
	if (kwq_keytab_insert(&q->keys, &item->key))
		kwq_record_retired_locked(q);
	WRITE_ONCE(q->nr_held, q->nr_held + 1);
	return item;
}

/* The id of @task's memory cgroup (0 without memory cgroups). */
static u64 wq_memcg_id(struct task_struct *task)
{
	u64 id = 0;

#ifdef CONFIG_MEMCG
	rcu_read_lock();
	id = cgroup_id(task_css(task, memory_cgrp_id)->cgroup);
	rcu_read_unlock();
#endif
	return id;
}

/*
 * Whom a spare record is kept for: the memory cgroup of the task that gave
 * it up (0 outside task context, where nothing is charged), which a record
 * the same task or its peers allocate would be charged to as well, by the
 * cgroup's id: never given to another cgroup while the system runs, unlike
 * the memory of a cgroup removed meanwhile.
 */
static u64 kwq_record_spare_tag(void)
{
	u64 tag = 0;

	if (in_task())
		tag = wq_memcg_id(current);
	return tag;
}

/*
 * kwq_record_spare_tag() of the task in this hold of q->lock: in a batch's
 * hold, looked up at the first record that needs it, then kept.
 */
static u64 kwq_record_hold_tag(struct kwq *q)
{
	u64 tag;

	if (q->hold_tag_known)
		return q->hold_tag;
	tag = kwq_record_spare_tag();
	if (q->hold_batch) {
		q->hold_tag = tag;
		q->hold_tag_known = true;
	}
	return tag;
}

/**
 * kwq_record_tag_hold_locked() - this hold of q->lock is a batch's: the
 * memory cgroup the records it gives up or takes spare are for is looked
 * up once, when the first is
 * @q: the queue (q->lock held; the caller ends the hold's tag with
 *	kwq_record_untag_hold_locked() before it drops the lock)
 *
 * A batch's hold gives up or takes a spare record for each of its keys,
 * all for the same task: one look-up instead of one for each, and none if
 * no key needs one.
 */
void kwq_record_tag_hold_locked(struct kwq *q)
{
	lockdep_assert_held(&q->lock);
	WARN_ON_ONCE(q->hold_batch || q->hold_tag_known);
	q->hold_batch = true;
}

/* Spare records looked at for one of the caller's memory cgroup. */
#define KWQ_SPARE_SCAN		4

/**
 * kwq_record_spare_locked() - a spare record for a new key
 * @q: the queue (q->lock held)
 * @len: the key's length
 *
 * The record of a key that went away (q->spare, see wq_record.h): the
 * newest of the last KWQ_SPARE_SCAN given up that was given up in the
 * caller's memory cgroup; cleared as kwq_record_alloc() leaves a record:
 * the caller fills in the key and its hash, and either holds it
 * (kwq_record_hold_found_locked()) or gives it back
 * (kwq_record_put_locked()).
 *
 * Return: the record, or NULL if none is spare for the caller or the key
 * is too long to live inline.
 */
struct kwq_item *kwq_record_spare_locked(struct kwq *q, u32 len)
{
	unsigned int k, n = min_t(unsigned int, q->nr_spare, KWQ_SPARE_SCAN);
	struct kwq_item *item;
	u64 tag;

	lockdep_assert_held(&q->lock);
	if (len > KWQ_INLINE_KEY || !n)
		return NULL;
	tag = kwq_record_hold_tag(q);
	/*
	 * The newest few: producers and workers of two cgroups that share a
	 * queue leave their spares interleaved, and one look at the newest
	 * would miss most of a task's own.
	 */
	for (k = 0; k < n; k++) {
		unsigned int slot = kwq_spare_slot(q, k);

		item = q->spare[slot];
		if (item->key.tag != tag)
			continue;
		/* the k newer ones move up a slot into its place */
		for (; k; k--) {
			unsigned int newer = kwq_spare_slot(q, k - 1);

			q->spare[slot] = q->spare[newer];
			slot = newer;
		}
		q->spare_head = slot;
		q->nr_spare--;
		/* a pinned record is an orphan, never spare */
		WARN_ON_ONCE(item->flags & KWQ_ITEM_PINS);
		kwq_record_init(item, len);
		return item;
	}
	return NULL;
}

/**
 * kwq_record_put_locked() - a record in no table or list is not needed
 * any more: keep it for the handles that name it (an orphan), spare (for
 * the caller's memory cgroup; with KWQ_SPARE_MAX kept, the oldest spare
 * is freed to make room), or free it
 * @q: the queue (q->lock held)
 * @item: the record
 */
void kwq_record_put_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_PINS) {	/* a kwq_held names it */
		/* a handle needs only flags and gen: not a long key's bytes */
		if (item->key.len > KWQ_INLINE_KEY) {
			kfree(item->key.ext);
			item->key.len = 0;
		}
		item->flags |= KWQ_ITEM_ORPHAN;
		list_add_tail(&item->link, &q->orphans);
		return;
	}
	if (item->key.len <= KWQ_INLINE_KEY) {
		/* full: the oldest, in the slot the newest takes, makes room */
		if (q->nr_spare == KWQ_SPARE_MAX)
			kwq_record_free(q->spare[q->spare_head]);
		else
			q->nr_spare++;
		item->key.tag = kwq_record_hold_tag(q);
		q->spare[q->spare_head] = item;
		q->spare_head = (q->spare_head + 1) % KWQ_SPARE_MAX;
		return;
	}
	kwq_record_free(item);
}

/**
 * kwq_record_pin_locked() - a kwq_held handle names the record
 * @q: the queue (q->lock held)
 * @item: the record, PROCESSING: just handed out
 *
 * Until kwq_record_unpin_locked(), the record is not freed: when its key
 * goes, it becomes an orphan (q->orphans), never spare. A record is
 * handed out to one holder at a time, so only handles a caller never gave
 * back add up; the count saturates at 63 (KWQ_ITEM_PINS), and such a
 * record is kept until the queue is freed.
 */
void kwq_record_pin_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if ((item->flags & KWQ_ITEM_PINS) != KWQ_ITEM_PINS)
		item->flags += KWQ_ITEM_PIN_ONE;
	else
		pr_warn_once("wq: 63 kwq_held handles of one record not given back: kept until its queue goes\n");
}

/**
 * kwq_record_unpin_locked() - a kwq_held handle of the record was given back
 * @q: the queue (q->lock held)
 * @item: the record; freed (or kept spare) on return if it was an orphan
 *	and this was its last handle
 */
void kwq_record_unpin_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	/* none: a handle given back twice (through a copy) */
	if (WARN_ON_ONCE(!(item->flags & KWQ_ITEM_PINS)) ||
	    (item->flags & KWQ_ITEM_PINS) == KWQ_ITEM_PINS)
		return;				/* saturated: kept */
	item->flags -= KWQ_ITEM_PIN_ONE;
	if ((item->flags & (KWQ_ITEM_PINS | KWQ_ITEM_ORPHAN)) ==
	    KWQ_ITEM_ORPHAN) {
		list_del(&item->link);
		item->flags &= ~KWQ_ITEM_ORPHAN;
		kwq_record_put_locked(q, item);
	}
}

/*
 * Remove a record that is in no list from the table, give its charge back,
 * and keep it spare or free it.
 */
static void kwq_record_forget_locked(struct kwq *q, struct kwq_item *item)
{
	long cost = kwq_record_cost(item->key.len);

	if (kwq_keytab_remove(&q->keys, &item->key))
		kwq_record_retired_locked(q);
	q->charged -= cost;
	wq_quota_uncharge_bytes(q->owner, cost);
	kwq_record_put_locked(q, item);
}

/* Keep at most max_tracked idle records: evict the least recently held. */
static void kwq_record_evict_locked(struct kwq *q)
{
	while (q->nr_idle > q->max_tracked) {
		struct kwq_item *old = list_first_entry(&q->idle,
							struct kwq_item, link);

		list_del_init(&old->link);
		q->nr_idle--;
		q->nr_tracked--;
		q->evicted++;
		kwq_record_forget_locked(q, old);
	}
}

/**
 * kwq_record_unhold_locked() - the record lost one of its held states
 * @q: the queue (q->lock held)
 * @item: the record
 *
 * If it has no held state left, it is freed, or kept idle for its
 * rate-limiter failures (evicting the least recently held idle record
 * beyond max_tracked). @item may be freed on return.
 */
void kwq_record_unhold_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_HELD)
		return;
	kwq_prio_unhold_locked(q, item);
	WRITE_ONCE(q->nr_held, q->nr_held - 1);
	if (!item->failures) {
		kwq_record_forget_locked(q, item);
		return;
	}
	list_add_tail(&item->link, &q->idle);
	q->nr_idle++;
	kwq_record_evict_locked(q);
}

/**
 * kwq_record_drop_idle_locked() - free a record whose failures were
 * forgotten, if nothing else keeps it
 * @q: the queue (q->lock held)
 * @item: a record with no failures left; may be freed on return
 */
void kwq_record_drop_idle_locked(struct kwq *q, struct kwq_item *item)
{
	lockdep_assert_held(&q->lock);
	if (item->flags & KWQ_ITEM_HELD)
		return;
	list_del_init(&item->link);
	q->nr_idle--;
	kwq_record_forget_locked(q, item);
}
