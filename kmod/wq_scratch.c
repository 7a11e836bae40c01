// SPDX-License-Identifier: GPL-2.0
/*
 * The pool of the batch calls' scratch space (struct wq_scratch, about
 * 13 KiB: the chunk arrays, the key array and results of a call of up to
 * KWQ_BATCH keys, WQ_BATCH_BUF key bytes). A batch call borrows one for
 * its whole run and gives it back; the common call then allocates and
 * zeroes nothing (kernels with init_on_alloc zero every allocation).
 *
 * Memory: a scratch is allocated only when the pool is empty, and a scratch
 * given back is kept only while the pool holds fewer than
 * wq_scratch_keep() (two per possible CPU, at most WQ_SCRATCH_KEEP_MAX =
 * 64), else freed. Outside calls in progress the pool is thus at most 64
 * scratches (16 KiB each as allocated: 1 MiB), held until the module is
 * unloaded; each call in progress holds one more at most, a GET_BATCH
 * asleep for its first key included (it takes keys into the scratch).
 *
 * A scratch is charged to the memory cgroup of the caller that allocated
 * it (GFP_KERNEL_ACCOUNT): callers that pile up (consumers asleep in
 * GET_BATCH, beyond the pool) pay for what they hold, and a cgroup at its
 * limit gets -ENOMEM, as for its keys. A scratch kept in the pool stays
 * charged to that cgroup while other callers use it: that is bounded by
 * the pool (1 MiB in all), and pins no cgroup (the charge of kernel
 * memory moves to the parent when a cgroup is removed).
 *
 * Locking: wq_scratch_lock (spinlock) protects the free list and its
 * count. It is a leaf lock: taken only in process context, with no other
 * lock held, around list operations; nothing allocates, frees or sleeps
 * under it (wq_queue.h).
 */
#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "wq_scratch.h"

/* Most scratches the pool keeps, whatever the number of CPUs. */
#define WQ_SCRATCH_KEEP_MAX	64U

/* One allocation of at most 16 KiB (order 2, or four vmalloc pages). */
static_assert(sizeof(struct wq_scratch) <= 16 * 1024);

static DEFINE_SPINLOCK(wq_scratch_lock);
static LIST_HEAD(wq_scratch_free);	/* [wq_scratch_lock], last put first */
static unsigned int wq_scratch_nr;	/* [wq_scratch_lock] on the list */

/* Scratches kept: two per possible CPU, at most WQ_SCRATCH_KEEP_MAX. */
static unsigned int wq_scratch_keep(void)
{
	return min(2 * num_possible_cpus(), WQ_SCRATCH_KEEP_MAX);
}

/**
 * wq_scratch_get() - borrow the scratch space of one batch call
 *
 * The last one given back (its memory is likely still in the cache), or a
 * new one, charged to the caller's memory cgroup, if the pool is empty.
 * Its contents are left over from an earlier call.
 *
 * Context: process context; may sleep (the pool empty). Takes and
 * releases wq_scratch_lock.
 * Return: the scratch, or NULL (out of memory).
 */
struct wq_scratch *wq_scratch_get(void)
{
	struct wq_scratch *s;

	spin_lock(&wq_scratch_lock);
	s = list_first_entry_or_null(&wq_scratch_free, struct wq_scratch,
				     link);
	if (s) {
		list_del(&s->link);
		wq_scratch_nr--;
	}
	spin_unlock(&wq_scratch_lock);
	if (!s)
		s = kvmalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	return s;
}

/**
 * wq_scratch_put() - give back a scratch from wq_scratch_get()
 * @s: the scratch
 *
 * Kept in the pool if it holds fewer than wq_scratch_keep(), else freed.
 * The key bytes in it are not cleared: only the call that wrote them
 * copies them out.
 *
 * Context: process context. Takes and releases wq_scratch_lock.
 */
void wq_scratch_put(struct wq_scratch *s)
{
	unsigned int keep = wq_scratch_keep();

	spin_lock(&wq_scratch_lock);
	if (wq_scratch_nr < keep) {
		list_add(&s->link, &wq_scratch_free);
		wq_scratch_nr++;
		s = NULL;
	}
	spin_unlock(&wq_scratch_lock);
	kvfree(s);
}

/**
 * wq_scratch_exit() - free the pool
 *
 * Context: module exit: no batch call is in progress (/dev/wq is gone and
 * every file of it was released).
 */
void wq_scratch_exit(void)
{
	struct wq_scratch *s, *next;

	list_for_each_entry_safe(s, next, &wq_scratch_free, link)
		kvfree(s);
	INIT_LIST_HEAD(&wq_scratch_free);
	wq_scratch_nr = 0;
}
