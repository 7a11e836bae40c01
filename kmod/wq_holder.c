// SPDX-License-Identifier: GPL-2.0
/*
 * Holders: the keys in processing that belong to one handle, put back on
 * the queue when the handle goes away, so a consumer that dies loses no
 * work (per open file: see the uapi header). Relies on wq_queue.h: the
 * PROCESSING state, holder->held under q->lock, and the rule that no hold
 * of q->lock grows with the queue (keys go back in batches).
 */
#include <linux/bitfield.h>
#include <linux/sched.h>
#include <linux/xarray.h>

#include "wq_queue.h"

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
 * kwq_holder_held_locked() - @holder has @item in processing now
 * @holder: the holder
 * @item: a record just handed out (q->lock held)
 */
void kwq_holder_held_locked(struct kwq_holder *holder, struct kwq_item *item)
{
	list_add_tail(&item->link, &holder->held);
	item->flags |= FIELD_PREP(KWQ_ITEM_HOLDER, holder->id);
	WRITE_ONCE(holder->nr, holder->nr + 1);
}

/**
 * kwq_holder_unheld_locked() - @item stops being processing for its holder
 * @q: the queue (q->lock held)
 * @item: a PROCESSING record, off its holder's list after this, wherever
 *	the done came from
 *
 * Context: any context (q->lock held).
 */
void kwq_holder_unheld_locked(struct kwq *q, struct kwq_item *item)
{
	u32 id = FIELD_GET(KWQ_ITEM_HOLDER, item->flags);
	struct kwq_holder *holder;

	list_del_init(&item->link);
	if (!id)
		return;
	item->flags &= ~KWQ_ITEM_HOLDER;
	/* a holder is in q->holders while it holds keys */
	holder = xa_load(&q->holders, id - 1);
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
