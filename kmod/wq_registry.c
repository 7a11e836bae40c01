// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of named queues.
 *
 * Locking: wq_registry_lock (mutex) protects wq_names, the queue lists of
 * every struct wq_ipc (wq_ipc.h) and each queue's name_node, ipc,
 * ipc_node and unlinked; it is taken before q->lock. The registry holds one reference
 * on every named queue.
 *
 * Names belong to IPC namespaces (wq_ipc.h): a name is looked up in the
 * namespace of the /dev/wq file the call comes through, so another
 * namespace neither sees nor opens the queue and may use the name for its
 * own. The kernel API's names live in the initial namespace, and names
 * beginning with WQ_KERNEL_PREFIX ("kernel.") are reserved for it: no user
 * can take a module's "kernel.name" first. A namespace's named queues go
 * with the namespace (wq_ipc.h); they are released after the registry
 * lock is dropped: freeing their keys takes time.
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
#include <linux/fs_struct.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/workqueue.h>

#include "wq_compat.h"
#include "wq_ipc.h"
#include "wq_main.h"
#include "wq_quota.h"
#include "wq_ready.h"
#include "wq_registry.h"
#include "wq_metrics.h"

DEFINE_MUTEX(wq_registry_lock);	/* see above */
static DEFINE_HASHTABLE(wq_names, 8);

static u32 wq_name_hash(const struct wq_ipc *ipc, const char *name)
{
	return full_name_hash(ipc, name, strlen(name));
}

static struct kwq *wq_find_locked(struct wq_ipc *ipc, const char *name)
{
	struct kwq *q;

	lockdep_assert_held(&wq_registry_lock);
	hash_for_each_possible(wq_names, q, name_node, wq_name_hash(ipc, name))
		if (q->ipc == ipc && !strcmp(q->name, name))
			return q;
	return NULL;
}

/* Does the caller have CAP_IPC_OWNER over @q's namespace? As ipcperms(). */
static bool wq_ipc_owner(const struct kwq *q, bool audit)
{
	struct user_namespace *user_ns = wq_ipc_user_ns(q->ipc);

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
 * wq_registry_max_queues() - the named queues @ipc's namespace may have
 * @ipc: an entry
 *
 * Return: max_queues for the initial namespace, ns_max_queues for any
 * other (users only: the kernel API and CAP_SYS_RESOURCE may go beyond).
 */
u32 wq_registry_max_queues(const struct wq_ipc *ipc)
{
	return wq_ipc_is_initial(ipc) ? READ_ONCE(wq_max_queues) :
					READ_ONCE(wq_ns_max_queues);
}

/**
 * wq_registry_new() - create a queue, named (registered) or anonymous
 * @ipc: the IPC namespace of the name (a /dev/wq file's, or
 *	wq_ipc_kernel()); unused for an anonymous queue
 * @name: a validated name, or NULL for an anonymous queue
 * @n: the queue's limits, limiter, order, mode and owner
 * @budget: WQ_BUDGET_*: whose quota the queue is charged to
 * @gfp: allocation flags
 * @qp: set to the queue, with a reference for the caller
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL, -EEXIST, -ENOSPC (the namespace's limit reached:
 * max_queues in the initial one, ns_max_queues in any other; not for the
 * kernel API or CAP_SYS_RESOURCE), -EDQUOT (the owner's queue budget) or
 * -ENOMEM.
 */
int wq_registry_new(struct wq_ipc *ipc, const char *name,
		    const struct wq_new *n, enum wq_budget budget, gfp_t gfp,
		    struct kwq **qp)
{
	u32 limit = wq_items_limit();
	u32 max_items = n->max_items ?:
		wq_items_default(&wq_default_max_items, n->items_ceil, limit);
	u32 max_tracked = n->max_tracked ?:
		wq_items_default(&wq_default_max_tracked, n->tracked_ceil,
				 limit);
	struct wq_user *owner;
	struct kwq *q;
	int ret;

	if ((n->mode & ~07777) || !max_items || max_items > limit ||
	    max_tracked > limit || (n->starve_ns && !n->prio))
		return -EINVAL;

	owner = budget == WQ_BUDGET_KERNEL ? wq_quota_kernel() :
					     wq_quota_get();
	if (!owner)
		return -ENOMEM;
	q = kwq_queue_alloc(max_items, max_tracked, n->limiter, owner, gfp);
	if (IS_ERR(q)) {
		wq_quota_put(owner);
		return PTR_ERR(q);
	}
	kwq_ready_init(q, n->prio, n->starve_ns);
	q->uid = n->uid;
	q->gid = n->gid;
	q->mode = n->mode;
	if (!name) {
		*qp = q;
		return 0;
	}
	strscpy(q->name, name, WQ_NAME_MAX);

	mutex_lock(&wq_registry_lock);
	if (wq_find_locked(ipc, q->name)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	/*
	 * Each namespace has its own limit, as mqueue's queues_max: the
	 * initial one max_queues, every other (a container) ns_max_queues,
	 * so no container takes the host's names or another's. Users cannot
	 * take the last name from modules or the admin.
	 */
	if (ipc->nr_queues >= wq_registry_max_queues(ipc) &&
	    budget != WQ_BUDGET_KERNEL && !capable(CAP_SYS_RESOURCE)) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	kref_get(&q->ref);		/* the registry's */
	q->ipc = ipc;
	list_add_tail(&q->ipc_node, &ipc->queues);
	ipc->nr_queues++;
	hash_add(wq_names, &q->name_node, wq_name_hash(ipc, q->name));
	mutex_unlock(&wq_registry_lock);
	*qp = q;
	return 0;

err_unlock:
	mutex_unlock(&wq_registry_lock);
	kwq_put(q);
	return ret;
}

/**
 * wq_registry_create() - WQ_IOC_CREATE: create a queue for userspace
 * @ipc: the IPC namespace of the caller's /dev/wq file
 * @args: the request from userspace, validated here
 * @qp: set to the queue, with a reference for the caller
 *
 * A named queue, or with WQ_CREATE_PRIVATE (and an all-zero name) one
 * with no name: the registry does not hold it, so the caller's reference
 * (the handle's) is its only one. Names beginning with WQ_KERNEL_PREFIX
 * are the kernel API's (-EACCES).
 * The caller owns the queue and is charged for it; as with mq_open(), its
 * umask applies to the mode. Without CAP_SYS_RESOURCE it may not ask for
 * more than the unprivileged ceilings (-EINVAL, as mq_open() above
 * msg_max; the capability is asked only then); 0 means the module
 * default, capped at them (a ceiling of 0: -EINVAL).
 *
 * Context: process context; sleeps.
 * Return: as wq_registry_new(), or -EACCES for a reserved name.
 */
int wq_registry_create(struct wq_ipc *ipc, const struct wq_create *args,
		       struct kwq **qp)
{
	u32 items_ceil = READ_ONCE(wq_unpriv_max_items);
	u32 tracked_ceil = READ_ONCE(wq_unpriv_max_tracked);
	bool private = args->flags & WQ_CREATE_PRIVATE;
	struct wq_new n;

	if ((args->flags & ~(WQ_CREATE_PRIVATE | WQ_CREATE_PRIORITY)) ||
	    (args->mode & ~07777) ||
	    (private ? !!memchr_inv(args->name, 0, WQ_NAME_MAX) :
		       !!wq_check_name(args->name)))
		return -EINVAL;
	if (!strncmp(args->name, WQ_KERNEL_PREFIX, strlen(WQ_KERNEL_PREFIX)))
		return -EACCES;
	if ((args->max_items > items_ceil ||
	     args->max_tracked > tracked_ceil) && !capable(CAP_SYS_RESOURCE))
		return -EINVAL;
	n = (struct wq_new) {
		.max_items = args->max_items,
		.max_tracked = args->max_tracked,
		.items_ceil = items_ceil,
		.tracked_ceil = tracked_ceil,
		.limiter = &args->limiter,
		.prio = args->flags & WQ_CREATE_PRIORITY,
		.starve_ns = args->starve_ns,
		.mode = (args->mode ?: 0600) & ~current_umask(),
		.uid = current_fsuid(),
		.gid = current_fsgid(),
	};
	return wq_registry_new(ipc, private ? NULL : args->name, &n,
			       WQ_BUDGET_USER, GFP_KERNEL_ACCOUNT, qp);
}

/**
 * wq_registry_open() - find a named queue
 * @ipc: the IPC namespace to look in
 * @name: validated name
 * @access: MAY_READ and/or MAY_WRITE, checked against the queue's mode for
 *	userspace callers; 0 for the kernel API (no check)
 * @qp: set to the queue, with a reference for the caller
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT or -EACCES.
 */
int wq_registry_open(struct wq_ipc *ipc, const char *name, int access,
		     struct kwq **qp)
{
	struct kwq *q;
	int ret = 0;

	mutex_lock(&wq_registry_lock);
	q = wq_find_locked(ipc, name);
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
	q->ipc->nr_queues--;
	q->ipc = NULL;
	WRITE_ONCE(q->unlinked, true);
}

/**
 * wq_registry_unlink() - unlink a name; open handles keep the queue
 * @ipc: the IPC namespace to look in
 * @name: validated name
 * @check_owner: only the owner may (userspace callers)
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT, or -EACCES (not the owner).
 */
int wq_registry_unlink(struct wq_ipc *ipc, const char *name,
		       bool check_owner)
{
	struct kwq *q;

	mutex_lock(&wq_registry_lock);
	q = wq_find_locked(ipc, name);
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
	kwq_put(q);			/* the registry's reference */
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
		kwq_put(q);			/* the registry's reference */
	return ret;
}

/**
 * wq_registry_list() - snapshot of the named queues the caller may open
 * @ipc: the IPC namespace of the caller's /dev/wq file
 * @infos: room for @cap zeroed entries
 * @cap: capacity of @infos
 * @total: set to the number of named queues of @ipc the caller may open
 *	(all of them with CAP_IPC_OWNER over the namespace)
 *
 * Context: process context; sleeps.
 * Return: the number of entries filled in.
 */
int wq_registry_list(struct wq_ipc *ipc, struct wq_queue_info *infos, u32 cap,
		     u32 *total)
{
	struct kwq *q;
	bool all;
	u32 n = 0;

	*total = 0;
	mutex_lock(&wq_registry_lock);
	all = ns_capable_noaudit(wq_ipc_user_ns(ipc), CAP_IPC_OWNER);
	list_for_each_entry(q, &ipc->queues, ipc_node) {
		if (!all && !wq_mode_allows(q, MAY_READ) &&
		    !wq_mode_allows(q, MAY_WRITE))
			continue;
		(*total)++;
		if (n < cap)
			wq_queue_info_fill(q, &infos[n++]);
	}
	mutex_unlock(&wq_registry_lock);
	return n;
}

/* What the debugfs listing walks the namespaces with. */
struct wq_debugfs_walk {
	struct seq_file *m;
	struct wq_queue_info *info;	/* scratch, too big for the stack */
};

/* One namespace's lines of the debugfs listing (wq_ipc_walk_locked()). */
static void wq_debugfs_show_ns(struct wq_ipc *ipc, void *arg)
{
	struct wq_debugfs_walk *w = arg;
	struct wq_queue_info *info = w->info;
	struct seq_file *m = w->m;
	struct kwq *q;

	list_for_each_entry(q, &ipc->queues, ipc_node) {
		memset(info, 0, sizeof(*info));
		kwq_stats_fill(q, info);
		seq_printf(m, "%s %u %u %u %u %s %u %u %04o %llu\n", q->name,
			   wq_ipc_inum(ipc), info->queued, info->processing,
			   info->waiting,
			   (info->state & WQ_STATE_DRAINING) ? "draining" :
			   (info->state & WQ_STATE_SHUTTING_DOWN) ? "yes" :
			   "no",
			   from_kuid(&init_user_ns, q->uid),
			   from_kgid(&init_user_ns, q->gid), q->mode, q->id);
	}
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
	struct wq_debugfs_walk w = { .m = m };

	w.info = kmalloc(sizeof(*w.info), GFP_KERNEL);
	if (!w.info)
		return -ENOMEM;
	seq_puts(m, "NAME IPCNS QUEUED PROCESSING WAITING SHUTDOWN UID GID MODE ID\n");
	mutex_lock(&wq_registry_lock);
	wq_ipc_walk_locked(wq_debugfs_show_ns, &w);
	mutex_unlock(&wq_registry_lock);
	kfree(w.info);
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

/**
 * wq_registry_unlink_all_locked() - unlink every name of a namespace
 * @ipc: the namespace's entry
 * @dead: gets the queues, with the registry's references, for
 *	wq_registry_put_dead() once the lock is dropped
 *
 * Context: wq_registry_lock held.
 */
void wq_registry_unlink_all_locked(struct wq_ipc *ipc, struct list_head *dead)
{
	struct kwq *q, *tmp;

	lockdep_assert_held(&wq_registry_lock);
	list_for_each_entry_safe(q, tmp, &ipc->queues, ipc_node) {
		wq_unlink_locked(q);
		list_add_tail(&q->ipc_node, dead);	/* unused once unlinked */
	}
}

/**
 * wq_registry_put_dead() - drop the registry's references of unlinked
 * queues
 * @dead: from wq_registry_unlink_all_locked()
 *
 * Context: process context, no lock held (freeing keys takes time).
 */
void wq_registry_put_dead(struct list_head *dead)
{
	struct kwq *q, *tmp;

	list_for_each_entry_safe(q, tmp, dead, ipc_node) {
		list_del_init(&q->ipc_node);
		kwq_put(q);		/* the registry's reference */
	}
}

/**
 * wq_registry_exit() - destroy every named queue (module unload)
 *
 * Context: process context, no /dev/wq file open (they pin the module):
 * only the initial namespace's entry can have names.
 */
void wq_registry_exit(void)
{
	LIST_HEAD(dead);

	mutex_lock(&wq_registry_lock);
	wq_registry_unlink_all_locked(wq_ipc_kernel(), &dead);
	mutex_unlock(&wq_registry_lock);
	wq_registry_put_dead(&dead);
}

/*
 * Queue names: the rule every name follows ([A-Za-z0-9._-]{1,63},
 * zero-padded), for userspace's and kernel callers' names alike.
 */
/**
 * wq_check_name() - is @name a valid queue name, zero-padded?
 * @name: [A-Za-z0-9._-]{1,63}, then NUL bytes to the end of the buffer
 *
 * Return: 0 or -EINVAL.
 */
int wq_check_name(const char name[WQ_NAME_MAX])
{
	size_t i, len = strnlen(name, WQ_NAME_MAX);

	if (len == 0 || len == WQ_NAME_MAX)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		char c = name[i];

		/* ASCII only: the kernel's isalnum() accepts Latin-1 */
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '-')
			return -EINVAL;
	}
	for (; i < WQ_NAME_MAX; i++)
		if (name[i])
			return -EINVAL;
	return 0;
}

/**
 * wq_copy_name() - copy a kernel caller's queue name into a checked buffer
 * @buf: receives the name, zero-padded
 * @name: a NUL-terminated name, [A-Za-z0-9._-]{1,63}
 *
 * Return: 0 or -EINVAL (NULL, too long, or a bad character).
 */
int wq_copy_name(char buf[WQ_NAME_MAX], const char *name)
{
	memset(buf, 0, WQ_NAME_MAX);
	if (!name || strscpy(buf, name, WQ_NAME_MAX) < 0)
		return -EINVAL;
	return wq_check_name(buf);
}
