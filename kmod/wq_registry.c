// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of named queues.
 *
 * Locking: wq_registry_lock (mutex) protects wq_names, wq_nr_queues and
 * each queue's name_node and unlinked; it is taken before q->lock. The
 * registry holds one reference on every named queue.
 *
 * Permissions follow System V IPC (ipcperms) and mq_open(): opening a
 * queue needs the permission for the access asked (read, write or both)
 * in the caller's class (owner, group, other); destroying it needs
 * ownership; a listing shows only the queues the caller may open.
 * CAP_IPC_OWNER overrides all three.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "wq_main.h"
#include "wq_quota.h"
#include "wq_registry.h"
#include "wq_stats.h"

static DEFINE_MUTEX(wq_registry_lock);
static DEFINE_HASHTABLE(wq_names, 8);
static unsigned int wq_nr_queues;

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

static u32 wq_name_hash(const char *name)
{
	return full_name_hash(NULL, name, strlen(name));
}

static struct kwq *wq_find_locked(const char *name)
{
	struct kwq *q;

	lockdep_assert_held(&wq_registry_lock);
	hash_for_each_possible(wq_names, q, name_node, wq_name_hash(name))
		if (!strcmp(q->name, name))
			return q;
	return NULL;
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
	return wq_mode_allows(q, access) || capable(CAP_IPC_OWNER);
}

/**
 * wq_registry_new() - create a queue, named (registered) or anonymous
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
int wq_registry_new(const char *name, u32 max_items, u32 max_tracked,
		    const struct wq_limiter *limiter, umode_t mode, kuid_t uid,
		    kgid_t gid, enum wq_budget budget, gfp_t gfp,
		    struct kwq **qp)
{
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
	if (wq_find_locked(q->name)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	/* users cannot take the last name from modules or the admin */
	if (wq_nr_queues >= READ_ONCE(wq_max_queues) &&
	    budget != WQ_BUDGET_KERNEL && !capable(CAP_SYS_RESOURCE)) {
		ret = -ENOSPC;
		goto err_unlock;
	}
	kref_get(&q->ref);		/* the registry's */
	hash_add(wq_names, &q->name_node, wq_name_hash(q->name));
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
 * The caller owns the queue and is charged for it; as with mq_open(), its
 * umask applies to the mode. Without CAP_SYS_RESOURCE it may not ask for
 * more than the unprivileged ceilings (-EINVAL, as mq_open() above
 * msg_max; the capability is asked only then); 0 means the module
 * default, capped at them.
 *
 * Context: process context; sleeps.
 * Return: as wq_registry_new().
 */
int wq_registry_create(const struct wq_create *args, struct kwq **qp)
{
	u32 items_ceil = READ_ONCE(wq_unpriv_max_items);
	u32 tracked_ceil = READ_ONCE(wq_unpriv_max_tracked);
	u32 max_items = args->max_items, max_tracked = args->max_tracked;

	if (args->flags || (args->mode & ~07777) || wq_check_name(args->name))
		return -EINVAL;
	if ((max_items > items_ceil || max_tracked > tracked_ceil) &&
	    !capable(CAP_SYS_RESOURCE))
		return -EINVAL;
	max_items = max_items ?:
		    min(READ_ONCE(wq_default_max_items), items_ceil);
	max_tracked = max_tracked ?:
		      min(READ_ONCE(wq_default_max_tracked), tracked_ceil);
	return wq_registry_new(args->name, max_items, max_tracked,
			       &args->limiter,
			       (args->mode ?: 0600) & ~current_umask(),
			       current_fsuid(), current_fsgid(), WQ_BUDGET_USER,
			       GFP_KERNEL_ACCOUNT, qp);
}

/**
 * wq_registry_open() - find a named queue
 * @name: validated name
 * @access: MAY_READ and/or MAY_WRITE, checked against the queue's mode for
 *	userspace callers; 0 for the kernel API (no check)
 * @qp: set to the queue, with a reference for the caller
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT or -EACCES.
 */
int wq_registry_open(const char *name, int access, struct kwq **qp)
{
	struct kwq *q;
	int ret = 0;

	mutex_lock(&wq_registry_lock);
	q = wq_find_locked(name);
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
	WRITE_ONCE(q->unlinked, true);
	wq_nr_queues--;
}

/**
 * wq_registry_unlink() - unlink a name; open handles keep the queue
 * @name: validated name
 * @check_owner: only the owner may (userspace callers)
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOENT, or -EACCES (not the owner).
 */
int wq_registry_unlink(const char *name, bool check_owner)
{
	struct kwq *q;

	mutex_lock(&wq_registry_lock);
	q = wq_find_locked(name);
	if (!q) {
		mutex_unlock(&wq_registry_lock);
		return -ENOENT;
	}
	if (check_owner && !uid_eq(current_fsuid(), q->uid) &&
	    !capable(CAP_IPC_OWNER)) {
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
	if (q->name[0] && !q->unlinked && wq_find_locked(q->name) == q) {
		wq_unlink_locked(q);
		ret = 0;
	}
	mutex_unlock(&wq_registry_lock);
	if (!ret)
		kwq_queue_put(q);			/* the registry's reference */
	return ret;
}

/**
 * wq_registry_info() - everything WQ_IOC_STAT reports about a queue
 * @q: the queue
 * @info: zeroed by the caller, filled in
 *
 * Context: process context.
 */
void wq_registry_info(struct kwq *q, struct wq_queue_info *info)
{
	struct user_namespace *ns = current_user_ns();

	memcpy(info->name, q->name, WQ_NAME_MAX);
	info->uid = from_kuid_munged(ns, q->uid);
	info->gid = from_kgid_munged(ns, q->gid);
	info->mode = q->mode;
	if (READ_ONCE(q->unlinked))
		info->state |= WQ_STATE_UNLINKED;
	kwq_stats_fill(q, info);
}

/**
 * wq_registry_list() - snapshot of the named queues the caller may open
 * @infos: room for @cap zeroed entries
 * @cap: capacity of @infos
 * @total: set to the number of named queues the caller may open (all of
 *	them with CAP_IPC_OWNER)
 *
 * Context: process context; sleeps.
 * Return: the number of entries filled in.
 */
int wq_registry_list(struct wq_queue_info *infos, u32 cap, u32 *total)
{
	struct kwq *q;
	u32 n = 0;
	int bkt;

	bool all = ns_capable_noaudit(&init_user_ns, CAP_IPC_OWNER);

	*total = 0;
	mutex_lock(&wq_registry_lock);
	hash_for_each(wq_names, bkt, q, name_node) {
		if (!all && !wq_mode_allows(q, MAY_READ) &&
		    !wq_mode_allows(q, MAY_WRITE))
			continue;
		(*total)++;
		if (n < cap)
			wq_registry_info(q, &infos[n++]);
	}
	mutex_unlock(&wq_registry_lock);
	return n;
}

/**
 * wq_registry_exit() - destroy every named queue (module unload)
 *
 * Context: process context, no handle open (the device pins the module).
 */
void wq_registry_exit(void)
{
	struct hlist_node *tmp;
	struct kwq *q;
	int bkt;

	mutex_lock(&wq_registry_lock);
	hash_for_each_safe(wq_names, bkt, tmp, q, name_node) {
		wq_unlink_locked(q);
		kwq_queue_put(q);
	}
	mutex_unlock(&wq_registry_lock);
}
