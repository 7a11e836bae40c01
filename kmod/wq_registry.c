// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of named queues.
 *
 * Locking: wq_registry_lock (mutex) protects wq_names, wq_ipcs,
 * wq_nr_queues, every struct wq_ipc and each queue's name_node, ipc,
 * ipc_node and unlinked; it is taken before q->lock. The registry holds
 * one reference on every named queue.
 *
 * Names belong to IPC namespaces, as POSIX message queues' do: a name is
 * looked up in the caller's IPC namespace only, so another namespace
 * neither sees nor opens the queue and may use the name for its own. The
 * kernel API's names live in the initial namespace, and names beginning
 * with WQ_KERNEL_PREFIX ("kernel.") are reserved for it: no user can take
 * a module's "kernel.name" first. A namespace with
 * named queues has a struct wq_ipc, which holds a reference on it; when
 * that reference is the last one (every task gone, and every open or
 * bind-mounted nsfs file of it: nothing can reach it again; an mqueue
 * mount holds no reference), wq_ipc_reap() destroys its queues and drops
 * the reference, so the namespace goes away (until then its System V and
 * mqueue objects live on too). The kernel has no hook for it: a deferrable
 * delayed work polls once a second while a namespace other than the
 * initial one has named queues. The queues are released after the
 * registry lock is dropped: freeing their keys takes time.
 *
 * Permissions follow System V IPC (ipcperms) and mq_open(): opening a
 * queue needs the permission for the access asked (read, write or both)
 * in the caller's class (owner, group, other); destroying it needs
 * ownership; a listing shows only the queues the caller may open.
 * CAP_IPC_OWNER overrides all three.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/ipc_namespace.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/workqueue.h>
#include "wq_compat.h"
#include "wq_main.h"
#include "wq_quota.h"
#include "wq_registry.h"
#include "wq_stats.h"

/**
 * struct wq_ipc - an IPC namespace that has named queues
 * @ns: the namespace; a reference unless it is the initial one
 * @node: entry in wq_ipcs
 * @queues: its named queues, by kwq.ipc_node
 */
struct wq_ipc {
	struct ipc_namespace *ns;
	struct hlist_node node;
	struct list_head queues;
};

static DEFINE_MUTEX(wq_registry_lock);
static DEFINE_HASHTABLE(wq_names, 8);
static DEFINE_HASHTABLE(wq_ipcs, 6);
static unsigned int wq_nr_queues;

static void wq_ipc_reap(struct work_struct *work);
static DECLARE_DEFERRABLE_WORK(wq_reap_work, wq_ipc_reap);
#define WQ_REAP_INTERVAL	HZ

/**
 * wq_current_ipc_ns() - the IPC namespace of the calling task
 *
 * Context: process context (an ioctl); the task's own nsproxy is stable.
 * Return: the namespace, no reference taken.
 */
struct ipc_namespace *wq_current_ipc_ns(void)
{
	return current->nsproxy->ipc_ns;
}

/**
 * wq_kernel_ipc_ns() - the IPC namespace of the kernel API's names
 *
 * Return: the initial IPC namespace.
 */
struct ipc_namespace *wq_kernel_ipc_ns(void)
{
	return wq_init_ipc_ns();
}

static struct wq_ipc *wq_ipc_find_locked(struct ipc_namespace *ns)
{
	struct wq_ipc *ipc;

	lockdep_assert_held(&wq_registry_lock);
	hash_for_each_possible(wq_ipcs, ipc, node, hash_ptr(ns, 32))
		if (ipc->ns == ns)
			return ipc;
	return NULL;
}

/* Find or make @ns's entry, taking a reference on @ns for a new one. */
static struct wq_ipc *wq_ipc_get_locked(struct ipc_namespace *ns)
{
	struct wq_ipc *ipc = wq_ipc_find_locked(ns);

	if (ipc)
		return ipc;
	ipc = kzalloc(sizeof(*ipc), GFP_KERNEL_ACCOUNT);
	if (!ipc)
		return NULL;
	INIT_LIST_HEAD(&ipc->queues);
	ipc->ns = ns;
	hash_add(wq_ipcs, &ipc->node, hash_ptr(ns, 32));
	if (ns != wq_init_ipc_ns()) {
		get_ipc_ns(ns);
		/* never postpones a pending reap (a create-destroy loop would) */
		schedule_delayed_work(&wq_reap_work, WQ_REAP_INTERVAL);
	}
	return ipc;
}

/* Free @ipc if it has no queue left, dropping its namespace reference. */
static void wq_ipc_put_locked(struct wq_ipc *ipc)
{
	lockdep_assert_held(&wq_registry_lock);
	if (!list_empty(&ipc->queues))
		return;
	hash_del(&ipc->node);
	if (ipc->ns != wq_init_ipc_ns())
		wq_put_ipc_ns(ipc->ns);
	kfree(ipc);
}

static u32 wq_name_hash(const struct wq_ipc *ipc, const char *name)
{
	return full_name_hash(ipc, name, strlen(name));
}

static struct kwq *wq_find_locked(struct ipc_namespace *ns, const char *name)
{
	struct wq_ipc *ipc = wq_ipc_find_locked(ns);
	struct kwq *q;

	if (!ipc)
		return NULL;
	hash_for_each_possible(wq_names, q, name_node, wq_name_hash(ipc, name))
		if (q->ipc == ipc && !strcmp(q->name, name))
			return q;
	return NULL;
}

/* Does the caller have CAP_IPC_OWNER over @q's namespace? As ipcperms(). */
static bool wq_ipc_owner(const struct kwq *q, bool audit)
{
	struct user_namespace *user_ns = wq_ipc_user_ns(q->ipc->ns);

	return audit ? ns_capable(user_ns, CAP_IPC_OWNER) :
		       ns_capable_noaudit(user_ns, CAP_IPC_OWNER);
}

/* Do @q's mode bits give the caller @access (MAY_READ, MAY_WRITE)? */
static bool wq_mode_allows(const struct kwq *q, int access)
{
	int want = ((access & MAY_READ) ? 04 : 0) |
		   ((access & MAY_WRITE) ? 02 : 0);
	kuid_t uid = current_fsuid();
	umode_t granted = q->mode;

	if (uid_eq(uid, q->uid))
		granted >>= 6;
	else if (in_group_p(q->gid))
		granted >>= 3;
	return (granted & want) == want;
}

/* May the caller open @q with @access? As ipcperms(). */
static bool wq_may_open(const struct kwq *q, int access)
{
	return wq_mode_allows(q, access) || wq_ipc_owner(q, true);
}

/**
 * wq_registry_new() - create a queue, named (registered) or anonymous
 * @ns: the IPC namespace of the name (wq_current_ipc_ns() or
 *	wq_kernel_ipc_ns()); unused for an anonymous queue
 * @name: a validated name, or NULL for an anonymous queue
 * @max_items: most keys held; 0 for the module default
 * @max_tracked: most idle failure records; 0 for the module default
 * @limiter: the rate limiter (validated here)
 * @mode: permission bits (07777)
 * @uid: owner
 * @gid: group
 * @budget: WQ_BUDGET_*: whose quota the queue is charged to
 * @gfp: allocation flags
 * @qp: set to the queue, with a reference for the caller
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL, -EEXIST, -ENOSPC (max_queues reached; not for the
 * kernel API or CAP_SYS_RESOURCE), -EDQUOT (the owner's queue budget) or
 * -ENOMEM.
 */
int wq_registry_new(struct ipc_namespace *ns, const char *name,
		    u32 max_items, u32 max_tracked,
		    const struct wq_limiter *limiter, umode_t mode, kuid_t uid,
		    kgid_t gid, enum wq_budget budget, gfp_t gfp,
		    struct kwq **qp)
{
	struct wq_ipc *ipc;
	u32 limit = min(READ_ONCE(wq_max_items_limit), WQ_MAX_ITEMS_CEILING);
	struct wq_user *owner;
	struct kwq *q;
	int ret;

	max_items = max_items ?: READ_ONCE(wq_default_max_items);
	max_tracked = max_tracked ?: READ_ONCE(wq_default_max_tracked);
	if ((mode & ~07777) || !max_items || max_items > limit ||
	    max_tracked > limit)
		return -EINVAL;

	owner = budget == WQ_BUDGET_KERNEL ? wq_quota_kernel() :
					     wq_quota_get(wq_quota_uid());
	if (!owner)
		return -ENOMEM;
	q = kwq_queue_alloc(max_items, max_tracked, limiter, owner, gfp);
	if (IS_ERR(q)) {
		wq_quota_put(owner);
		return PTR_ERR(q);
	}
	q->uid = uid;
	q->gid = gid;
	q->mode = mode;
	if (!name) {
		*qp = q;
		return 0;
	}
	strscpy(q->name, name, WQ_NAME_MAX);

	mutex_lock(&wq_registry_lock);
	if (wq_find_locked(ns, q->name)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	/* users cannot take the last name from modules or the admin */
	if (wq_nr_queues >= READ_ONCE(wq_max_queues) &&
	    budget != WQ_BUDGET_KERNEL && !capable(CAP_SYS_RESOURCE)) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	ipc = wq_ipc_get_locked(ns);
	if (!ipc) {
		ret = -ENOMEM;
		goto err_unlock;
	}
	kref_get(&q->ref);		/* the registry's */
	q->ipc = ipc;
	list_add_tail(&q->ipc_node, &ipc->queues);
	hash_add(wq_names, &q->name_node, wq_name_hash(ipc, q->name));
	wq_nr_queues++;
	mutex_unlock(&wq_registry_lock);
	*qp = q;
	return 0;

err_unlock:
	mutex_unlock(&wq_registry_lock);
	kwq_queue_put(q);
	return ret;
}

/**
 * wq_registry_create() - WQ_IOC_CREATE: create a named queue for userspace
 * @args: the request from userspace, validated here
 * @qp: set to the queue, with a reference for the caller
 *
 * The name is the caller's IPC namespace's; names beginning with
 * WQ_KERNEL_PREFIX are the kernel API's (-EACCES). The caller owns the queue and is
 * charged for it; as with mq_open(), its
 * umask applies to the mode. Without CAP_SYS_RESOURCE it may not ask for
 * more than the unprivileged ceilings (-EINVAL, as mq_open() above
 * msg_max; the capability is asked only then); 0 means the module
 * default, capped at them.
 *
 * Context: process context; sleeps.
 * Return: as wq_registry_new(), or -EACCES for a reserved name.
 */
int wq_registry_create(const struct wq_create *args, struct kwq **qp)
{
	u32 items_ceil = READ_ONCE(wq_unpriv_max_items);
	u32 tracked_ceil = READ_ONCE(wq_unpriv_max_tracked);
	u32 max_items = args->max_items, max_tracked = args->max_tracked;

	if (args->flags || (args->mode & ~07777) || wq_check_name(args->name))
		return -EINVAL;
	if (!strncmp(args->name, WQ_KERNEL_PREFIX, strlen(WQ_KERNEL_PREFIX)))
		return -EACCES;
	if ((max_items > items_ceil || max_tracked > tracked_ceil) &&
	    !capable(CAP_SYS_RESOURCE))
		return -EINVAL;
	max_items = max_items ?:
		    min(READ_ONCE(wq_default_max_items), items_ceil);
	max_tracked = max_tracked ?:
		      min(READ_ONCE(wq_default_max_tracked), tracked_ceil);
	return wq_registry_new(wq_current_ipc_ns(), args->name, max_items,
			       max_tracked, &args->limiter,
			       (args->mode ?: 0600) & ~current_umask(),
			       current_fsuid(), current_fsgid(), WQ_BUDGET_USER,
			       GFP_KERNEL_ACCOUNT, qp);
}

/**
 * wq_registry_open() - find a named queue
 * @ns: the IPC namespace to look in
 * @name: validated name
 * @access: MAY_READ and/or MAY_WRITE, checked against the queue's mode for
 *	userspace callers; 0 for the kernel API (no check)
 * @qp: set to the queue, with a reference for the caller
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT or -EACCES.
 */
int wq_registry_open(struct ipc_namespace *ns, const char *name, int access,
		     struct kwq **qp)
{
	struct kwq *q;
	int ret = 0;

	mutex_lock(&wq_registry_lock);
	q = wq_find_locked(ns, name);
	if (!q)
		ret = -ENOENT;
	else if (access && !wq_may_open(q, access))
		ret = -EACCES;
	else
		kref_get(&q->ref);
	mutex_unlock(&wq_registry_lock);
	if (!ret)
		*qp = q;
	return ret;
}

static void wq_unlink_locked(struct kwq *q)
{
	lockdep_assert_held(&wq_registry_lock);
	hash_del(&q->name_node);
	list_del(&q->ipc_node);
	wq_ipc_put_locked(q->ipc);
	q->ipc = NULL;
	WRITE_ONCE(q->unlinked, true);
	wq_nr_queues--;
}

/**
 * wq_registry_unlink() - unlink a name; open handles keep the queue
 * @ns: the IPC namespace to look in
 * @name: validated name
 * @check_owner: only the owner may (userspace callers)
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT, or -EACCES (not the owner).
 */
int wq_registry_unlink(struct ipc_namespace *ns, const char *name,
		       bool check_owner)
{
	struct kwq *q;

	mutex_lock(&wq_registry_lock);
	q = wq_find_locked(ns, name);
	if (!q) {
		mutex_unlock(&wq_registry_lock);
		return -ENOENT;
	}
	if (check_owner && !uid_eq(current_fsuid(), q->uid) &&
	    !wq_ipc_owner(q, true)) {
		mutex_unlock(&wq_registry_lock);
		return -EACCES;
	}
	wq_unlink_locked(q);
	mutex_unlock(&wq_registry_lock);
	kwq_queue_put(q);			/* the registry's reference */
	return 0;
}

/**
 * wq_registry_unlink_queue() - unlink this queue's name, if it still has it
 * @q: the queue
 *
 * Unlike wq_registry_unlink(), never touches another queue that took the
 * same name after this one was destroyed.
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOENT if @q is anonymous or already unlinked.
 */
int wq_registry_unlink_queue(struct kwq *q)
{
	int ret = -ENOENT;

	mutex_lock(&wq_registry_lock);
	if (q->name[0] && !q->unlinked) {
		wq_unlink_locked(q);
		ret = 0;
	}
	mutex_unlock(&wq_registry_lock);
	if (!ret)
		kwq_queue_put(q);			/* the registry's reference */
	return ret;
}

/**
 * wq_registry_list() - snapshot of the named queues the caller may open
 * @infos: room for @cap zeroed entries
 * @cap: capacity of @infos
 * @total: set to the number of named queues of the caller's IPC namespace
 *	it may open (all of them with CAP_IPC_OWNER over the namespace)
 *
 * Context: process context; sleeps.
 * Return: the number of entries filled in.
 */
int wq_registry_list(struct wq_queue_info *infos, u32 cap, u32 *total)
{
	struct wq_ipc *ipc;
	struct kwq *q;
	bool all;
	u32 n = 0;

	*total = 0;
	mutex_lock(&wq_registry_lock);
	ipc = wq_ipc_find_locked(wq_current_ipc_ns());
	if (!ipc)
		goto out;
	all = ns_capable_noaudit(wq_ipc_user_ns(ipc->ns), CAP_IPC_OWNER);
	list_for_each_entry(q, &ipc->queues, ipc_node) {
		if (!all && !wq_mode_allows(q, MAY_READ) &&
		    !wq_mode_allows(q, MAY_WRITE))
			continue;
		(*total)++;
		if (n < cap)
			wq_queue_info_fill(q, &infos[n++]);
	}
out:
	mutex_unlock(&wq_registry_lock);
	return n;
}

/**
 * wq_debugfs_queues_show() - /sys/kernel/debug/wq/queues: every named queue
 * of every IPC namespace, one a line, as `wqctl list` shows them (plus the
 * namespace's inode number, as in /proc/PID/ns/ipc, and the owner)
 * @m: the seq_file
 * @unused: the seq_file's private data, none
 *
 * Under wq_registry_lock (each queue's numbers in one hold of its lock,
 * below it in the lock order), so the list is one consistent set of
 * queues; at most max_queues lines (plus the kernel API's).
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOMEM.
 */
static int wq_debugfs_queues_show(struct seq_file *m, void *unused)
{
	struct wq_queue_info *info;
	struct wq_ipc *ipc;
	struct kwq *q;
	int bkt;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	seq_puts(m, "NAME IPCNS QUEUED PROCESSING WAITING SHUTDOWN UID GID MODE ID\n");
	mutex_lock(&wq_registry_lock);
	hash_for_each(wq_ipcs, bkt, ipc, node) {
		list_for_each_entry(q, &ipc->queues, ipc_node) {
			memset(info, 0, sizeof(*info));
			kwq_stats_fill(q, info);
			seq_printf(m, "%s %u %u %u %u %s %u %u %04o %llu\n", q->name,
				   ipc->ns ? ipc->ns->ns.inum : 0, info->queued,
				   info->processing, info->waiting,
				   (info->state & WQ_STATE_DRAINING) ? "draining" :
				   (info->state & WQ_STATE_SHUTTING_DOWN) ? "yes" :
				   "no",
				   from_kuid(&init_user_ns, q->uid),
				   from_kgid(&init_user_ns, q->gid), q->mode, q->id);
		}
	}
	mutex_unlock(&wq_registry_lock);
	kfree(info);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(wq_debugfs_queues);

static struct dentry *wq_debugfs_dir;

/**
 * wq_registry_debugfs_init() - /sys/kernel/debug/wq/queues (root only)
 *
 * Debugfs failing is not an error: the module works without it.
 */
void wq_registry_debugfs_init(void)
{
	wq_debugfs_dir = debugfs_create_dir("wq", NULL);
	debugfs_create_file("queues", 0400, wq_debugfs_dir, NULL,
			    &wq_debugfs_queues_fops);
}

/**
 * wq_registry_debugfs_exit() - remove the debugfs files (before the
 * registry goes)
 */
void wq_registry_debugfs_exit(void)
{
	debugfs_remove_recursive(wq_debugfs_dir);
}

/*
 * Unlink @ipc's queues (@ipc is freed with the last) onto @dead, with the
 * registry's references, for wq_put_dead() once the lock is dropped.
 */
static void wq_ipc_destroy_locked(struct wq_ipc *ipc, struct list_head *dead)
{
	struct kwq *q, *tmp;

	list_for_each_entry_safe(q, tmp, &ipc->queues, ipc_node) {
		bool last = list_is_last(&q->ipc_node, &ipc->queues);

		wq_unlink_locked(q);
		list_add_tail(&q->ipc_node, dead);	/* unused once unlinked */
		if (last)
			break;			/* @ipc is gone */
	}
}

static void wq_put_dead(struct list_head *dead)
{
	struct kwq *q, *tmp;

	list_for_each_entry_safe(q, tmp, dead, ipc_node) {
		list_del_init(&q->ipc_node);
		kwq_queue_put(q);		/* the registry's reference */
	}
}

/*
 * The delayed work: destroy the queues of every namespace only wq still
 * references, and come back while other namespaces have queues.
 */
static void wq_ipc_reap(struct work_struct *work)
{
	bool again = false;
	struct hlist_node *tmp;
	struct wq_ipc *ipc;
	LIST_HEAD(dead);
	int bkt;

	mutex_lock(&wq_registry_lock);
	hash_for_each_safe(wq_ipcs, bkt, tmp, ipc, node) {
		if (ipc->ns == wq_init_ipc_ns())
			continue;
		if (wq_ipc_ns_only_ours(ipc->ns, 1))
			wq_ipc_destroy_locked(ipc, &dead);
		else
			again = true;
	}
	if (again)
		schedule_delayed_work(&wq_reap_work, WQ_REAP_INTERVAL);
	mutex_unlock(&wq_registry_lock);
	wq_put_dead(&dead);
}

/**
 * wq_registry_exit() - destroy every named queue (module unload)
 *
 * Context: process context, no handle open (the device pins the module).
 */
void wq_registry_exit(void)
{
	struct hlist_node *tmp;
	struct wq_ipc *ipc;
	LIST_HEAD(dead);
	int bkt;

	cancel_delayed_work_sync(&wq_reap_work);
	mutex_lock(&wq_registry_lock);
	hash_for_each_safe(wq_ipcs, bkt, tmp, ipc, node)
		wq_ipc_destroy_locked(ipc, &dead);
	mutex_unlock(&wq_registry_lock);
	wq_put_dead(&dead);
}
