// SPDX-License-Identifier: GPL-2.0
/*
 * IPC namespaces: the registry's entry for each namespace wq is used in,
 * and how it pins the namespace. See wq_ipc.h.
 */
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/ipc_namespace.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "wq_compat.h"
#include "wq_ipc.h"
#include "wq_registry.h"

/*
 * The table of entries and their file counts, and the entries without
 * files. Taken alone by every open of /dev/wq (misc_open() holds the misc
 * devices' mutex around ours: never hold this long), and inside
 * wq_registry_lock by the reap and the walks.
 */
static DEFINE_MUTEX(wq_ipc_lock);
static DEFINE_HASHTABLE(wq_ipcs, 6);
static LIST_HEAD(wq_ipc_idle);

static void wq_ipc_reap_work(struct work_struct *work);
static DECLARE_DEFERRABLE_WORK(wq_ipc_reaper, wq_ipc_reap_work);
static void wq_ipc_kick(void);

/* The initial namespace's entry: never in the table, never freed. */
static struct wq_ipc wq_ipc_init = {
	.queues = LIST_HEAD_INIT(wq_ipc_init.queues),
};

static struct ipc_namespace *wq_ipc_current_ns(void)
{
	/* the caller's own nsproxy: stable in process context */
	return current->nsproxy->ipc_ns;
}

/* The initial IPC namespace: init_task's (init_ipc_ns is not exported). */
static struct ipc_namespace *wq_ipc_init_ns(void)
{
	return init_task.nsproxy->ipc_ns;
}

/**
 * wq_ipc_is_initial() - is @ipc the initial namespace's entry?
 * @ipc: an entry
 *
 * Return: true for the initial IPC namespace (the kernel API's names).
 */
bool wq_ipc_is_initial(const struct wq_ipc *ipc)
{
	return ipc == &wq_ipc_init;
}

/**
 * wq_ipc_kernel() - the entry of the kernel API's names
 *
 * Return: the initial namespace's entry.
 */
struct wq_ipc *wq_ipc_kernel(void)
{
	return &wq_ipc_init;
}

/**
 * wq_ipc_user_ns() - the user namespace that owns @ipc's namespace
 * @ipc: an entry (its namespace is pinned while it exists)
 *
 * Return: the user namespace CAP_IPC_OWNER is asked in, as ipcperms() does.
 */
struct user_namespace *wq_ipc_user_ns(const struct wq_ipc *ipc)
{
	return wq_ipc_ns_user_ns(wq_ipc_is_initial(ipc) ? wq_ipc_init_ns() :
							 ipc->ns);
}

/**
 * wq_ipc_inum() - the inode number of @ipc's namespace
 * @ipc: an entry
 *
 * Return: the number /proc/PID/ns/ipc shows, 0 without IPC namespaces.
 */
unsigned int wq_ipc_inum(const struct wq_ipc *ipc)
{
	return wq_ipc_ns_inum(wq_ipc_is_initial(ipc) ? wq_ipc_init_ns() :
						       ipc->ns);
}

static struct wq_ipc *wq_ipc_find_locked(struct ipc_namespace *ns)
{
	struct wq_ipc *ipc;

	lockdep_assert_held(&wq_ipc_lock);
	hash_for_each_possible(wq_ipcs, ipc, node, (unsigned long)ns)
		if (ipc->ns == ns)
			return ipc;
	return NULL;
}

/**
 * wq_ipc_enter() - the entry of the caller's IPC namespace, for a /dev/wq
 * file it opens
 *
 * A namespace other than the initial one gets an entry, which pins it
 * (wq_ipc_ns_get()), when its first file is opened, and keeps it while
 * it has named queues; each file counts until wq_ipc_leave(). Entries
 * without files are looked at once more here (wq_ipc_reap()), in the
 * background.
 *
 * Context: process context (the opener's, under the misc devices' mutex);
 * takes wq_ipc_lock; sleeps.
 * Return: the entry, or ERR_PTR(-ENOMEM).
 */
struct wq_ipc *wq_ipc_enter(void)
{
	struct ipc_namespace *ns = wq_ipc_current_ns();
	struct wq_ipc *ipc, *new;

	wq_ipc_kick();
	if (!ns || ns == wq_ipc_init_ns())
		return &wq_ipc_init;
	mutex_lock(&wq_ipc_lock);
	ipc = wq_ipc_find_locked(ns);
	if (ipc && !ipc->files++)
		list_del_init(&ipc->idle);
	mutex_unlock(&wq_ipc_lock);
	if (ipc)
		return ipc;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&wq_ipc_lock);
	ipc = wq_ipc_find_locked(ns);		/* another file was first */
	if (!ipc) {
		INIT_LIST_HEAD(&new->queues);
		INIT_LIST_HEAD(&new->idle);
		new->ns = wq_ipc_ns_get(ns);
		hash_add(wq_ipcs, &new->node, (unsigned long)ns);
		ipc = new;
		new = NULL;
	}
	if (!ipc->files++)
		list_del_init(&ipc->idle);
	mutex_unlock(&wq_ipc_lock);
	kfree(new);
	return ipc;
}

/*
 * Entries without files that go: those with no queue left, and those of
 * a namespace that nothing but wq holds any more, their queues with them.
 * wq_ipc_lock is held only to pick them (an open waits for it under the
 * misc devices' mutex); their queues are unlinked after, and freed with
 * no lock held.
 * Return: whether entries without files are left to be looked at again.
 */
static bool wq_ipc_reap(void)
{
	struct wq_ipc *ipc, *tmp;
	LIST_HEAD(dead_queues);
	LIST_HEAD(dead);
	bool left;

	mutex_lock(&wq_registry_lock);
	mutex_lock(&wq_ipc_lock);
	list_for_each_entry_safe(ipc, tmp, &wq_ipc_idle, idle) {
		if (ipc->nr_queues && !wq_ipc_ns_unused(ipc->ns))
			continue;
		hash_del(&ipc->node);
		list_move(&ipc->idle, &dead);
	}
	left = !list_empty(&wq_ipc_idle);
	mutex_unlock(&wq_ipc_lock);
	/* out of the table and the list: nobody else reaches them */
	list_for_each_entry(ipc, &dead, idle)
		wq_registry_unlink_all_locked(ipc, &dead_queues);
	mutex_unlock(&wq_registry_lock);
	wq_registry_put_dead(&dead_queues);
	list_for_each_entry_safe(ipc, tmp, &dead, idle) {
		wq_ipc_ns_put(ipc->ns);
		kfree(ipc);
	}
	return left;
}

static void wq_ipc_reap_work(struct work_struct *work)
{
	if (wq_ipc_reap())
		queue_delayed_work(system_unbound_wq, &wq_ipc_reaper,
				   WQ_IPC_REAP_INTERVAL);
}

/*
 * An event (an open, a namespace's last close): the reap runs now, at
 * most once a jiffy, if entries without files are there to look at.
 */
static void wq_ipc_kick(void)
{
	static unsigned long last;
	unsigned long now = jiffies;

	if (list_empty_careful(&wq_ipc_idle) || READ_ONCE(last) == now)
		return;
	WRITE_ONCE(last, now);
	mod_delayed_work(system_unbound_wq, &wq_ipc_reaper, 0);
}

/**
 * wq_ipc_leave() - a /dev/wq file opened in @ipc's namespace is closed
 * @ipc: its entry
 *
 * The namespace's last file leaves the entry without files: its named
 * queues stay while the namespace lives (a file opened in it later finds
 * them), and go with it (wq_ipc_reap(), run at once: nothing holds the
 * namespace any more when its last process exits).
 *
 * Context: process context (a file's release); takes wq_ipc_lock;
 * sleeps.
 */
void wq_ipc_leave(struct wq_ipc *ipc)
{
	bool last;

	if (wq_ipc_is_initial(ipc))
		return;
	mutex_lock(&wq_ipc_lock);
	last = !--ipc->files;
	if (last)
		list_add_tail(&ipc->idle, &wq_ipc_idle);
	mutex_unlock(&wq_ipc_lock);
	if (last)
		mod_delayed_work(system_unbound_wq, &wq_ipc_reaper, 0);
}

/**
 * wq_ipc_exit() - every entry goes, its queues with it (module unload)
 *
 * Context: process context, no /dev/wq file open (they pin the module):
 * every entry is without files.
 */
void wq_ipc_exit(void)
{
	struct wq_ipc *ipc;
	LIST_HEAD(dead_queues);
	LIST_HEAD(dead);
	struct hlist_node *tmp;
	int bkt;

	cancel_delayed_work_sync(&wq_ipc_reaper);
	mutex_lock(&wq_registry_lock);
	mutex_lock(&wq_ipc_lock);
	hash_for_each_safe(wq_ipcs, bkt, tmp, ipc, node) {
		WARN_ON_ONCE(ipc->files);
		hash_del(&ipc->node);
		list_move(&ipc->idle, &dead);
		wq_registry_unlink_all_locked(ipc, &dead_queues);
	}
	mutex_unlock(&wq_ipc_lock);
	mutex_unlock(&wq_registry_lock);
	wq_registry_put_dead(&dead_queues);
	while (!list_empty(&dead)) {
		ipc = list_first_entry(&dead, struct wq_ipc, idle);
		list_del(&ipc->idle);
		wq_ipc_ns_put(ipc->ns);
		kfree(ipc);
	}
}

/**
 * wq_ipc_walk_locked() - call @fn for every entry, the initial one first
 * @fn: what to do with each (it must not take wq_registry_lock or
 *	wq_ipc_lock, nor free entries)
 * @arg: passed to @fn
 *
 * Context: wq_registry_lock held; takes wq_ipc_lock (root's debugfs
 * listing: opens of /dev/wq in other namespaces wait for it).
 */
void wq_ipc_walk_locked(void (*fn)(struct wq_ipc *ipc, void *arg), void *arg)
{
	struct wq_ipc *ipc;
	int bkt;

	lockdep_assert_held(&wq_registry_lock);
	fn(&wq_ipc_init, arg);
	mutex_lock(&wq_ipc_lock);
	hash_for_each(wq_ipcs, bkt, ipc, node)
		fn(ipc, arg);
	mutex_unlock(&wq_ipc_lock);
}
