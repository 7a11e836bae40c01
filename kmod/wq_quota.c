// SPDX-License-Identifier: GPL-2.0
/*
 * Quotas: per-user budgets of queues and key bytes. See wq_quota.h.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

#include <wq/kwq.h>
#include "wq_main.h"
#include "wq_quota.h"

static DEFINE_SPINLOCK(wq_users_lock);
static DEFINE_HASHTABLE(wq_users, 6);

static struct wq_user wq_kernel_user = {
	.ref = REFCOUNT_INIT(1),	/* never freed */
	.kernel = true,
};

/* Who a budget is: a user (@userns NULL), or a container (@uid invalid). */
struct wq_owner {
	kuid_t uid;
	struct user_namespace *userns;
};

/*
 * The caller's budget: its fsuid in the initial user namespace; inside a
 * user namespace an ordinary user made (directly or further down), that
 * user, so that the uids of a user's own namespaces share its budget;
 * inside one root made (a container), the container's, one budget for
 * every uid it maps, so that no container takes more than its share by
 * mapping many (as ucounts count per user namespace).
 */
static struct wq_owner wq_quota_owner(void)
{
	struct user_namespace *ns = current_user_ns();
	struct wq_owner o = { .uid = INVALID_UID };

	if (ns == &init_user_ns) {
		o.uid = current_fsuid();
		return o;
	}
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	if (uid_eq(ns->owner, GLOBAL_ROOT_UID))
		o.userns = ns;
	else
		o.uid = ns->owner;
	return o;
}

static u32 wq_quota_hash(struct wq_owner o)
{
	return o.userns ? hash_ptr(o.userns, 32) : __kuid_val(o.uid);
}

static struct wq_user *wq_quota_find_locked(struct wq_owner o)
{
	struct wq_user *u;

	hash_for_each_possible(wq_users, u, node, wq_quota_hash(o))
		if (u->userns == o.userns && uid_eq(u->uid, o.uid))
			return u;
	return NULL;
}

/**
 * wq_quota_get() - the caller's budget, with a reference
 *
 * A container's budget pins its user namespace (so that it cannot be
 * freed and its address taken by another while it is the budget's name).
 *
 * Context: process context (it may allocate).
 * Return: the budget, or NULL if it could not be allocated.
 */
struct wq_user *wq_quota_get(void)
{
	struct wq_owner o = wq_quota_owner();
	struct wq_user *u, *new;

	spin_lock(&wq_users_lock);
	u = wq_quota_find_locked(o);
	if (u)
		refcount_inc(&u->ref);
	spin_unlock(&wq_users_lock);
	if (u)
		return u;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	new->uid = o.uid;
	new->userns = o.userns;
	refcount_set(&new->ref, 1);
	spin_lock(&wq_users_lock);
	u = wq_quota_find_locked(o);
	if (u) {
		refcount_inc(&u->ref);
	} else {
		if (new->userns)
			get_user_ns(new->userns);
		hash_add(wq_users, &new->node, wq_quota_hash(o));
		u = new;
		new = NULL;
	}
	spin_unlock(&wq_users_lock);
	kfree(new);
	return u;
}

/**
 * wq_quota_usage() - what the caller's budget is charged now
 * @queues: set to the queues charged
 * @bytes: set to the key bytes (plus WQ_KEY_COST each) charged
 *
 * Context: process context.
 */
void wq_quota_usage(u32 *queues, u64 *bytes)
{
	struct wq_user *u;

	spin_lock(&wq_users_lock);
	u = wq_quota_find_locked(wq_quota_owner());
	*queues = u ? atomic_read(&u->queues) : 0;
	*bytes = u ? atomic_long_read(&u->bytes) : 0;
	spin_unlock(&wq_users_lock);
}

/**
 * wq_quota_kernel() - the kernel API's budget, with a reference
 *
 * Return: the budget.
 */
struct wq_user *wq_quota_kernel(void)
{
	refcount_inc(&wq_kernel_user.ref);
	return &wq_kernel_user;
}

/**
 * wq_quota_put() - drop a reference to a budget
 * @u: the budget; freed with its last reference (never the kernel's)
 *
 * Context: process context.
 */
void wq_quota_put(struct wq_user *u)
{
	bool last;

	spin_lock(&wq_users_lock);
	last = refcount_dec_and_test(&u->ref);
	if (last && !WARN_ON_ONCE(u->kernel))
		hash_del(&u->node);
	spin_unlock(&wq_users_lock);
	if (!last || u->kernel)
		return;
	WARN_ON_ONCE(atomic_read(&u->queues) || atomic_long_read(&u->bytes));
	if (u->userns)
		put_user_ns(u->userns);
	kfree(u);
}

static unsigned int wq_quota_max_queues(const struct wq_user *u)
{
	return u->kernel ? READ_ONCE(wq_kernel_max_queues) :
			   READ_ONCE(wq_user_max_queues);
}

static unsigned long wq_quota_max_bytes(const struct wq_user *u)
{
	return u->kernel ? READ_ONCE(wq_kernel_max_key_bytes) :
			   READ_ONCE(wq_user_max_key_bytes);
}

/**
 * wq_quota_charge_queue() - charge one more queue
 * @u: the owner's budget
 *
 * Beyond a user budget's limit, a creator with CAP_SYS_RESOURCE is charged
 * anyway (asked only then, so nobody else's denial is audited). The
 * kernel API's budget has no bypass.
 *
 * Context: process context.
 * Return: 0, or -EDQUOT (nothing charged).
 */
int wq_quota_charge_queue(struct wq_user *u)
{
	if (atomic_inc_return(&u->queues) > wq_quota_max_queues(u) &&
	    (u->kernel || !capable(CAP_SYS_RESOURCE))) {
		atomic_dec(&u->queues);
		return -EDQUOT;
	}
	return 0;
}

/**
 * wq_quota_uncharge_queue() - a charged queue was freed
 * @u: the owner's budget
 */
void wq_quota_uncharge_queue(struct wq_user *u)
{
	atomic_dec(&u->queues);
}

/**
 * wq_quota_charge_bytes() - charge memory held for a budget's queue
 * @u: the owner's budget
 * @unlimited: never refuse (the adder has CAP_SYS_RESOURCE)
 * @bytes: a record's key length plus WQ_KEY_COST, or a table or heap
 *	allocation
 *
 * Context: any context (under q->lock).
 * Return: true, or false if it would exceed the budget (nothing charged).
 */
bool wq_quota_charge_bytes(struct wq_user *u, bool unlimited, long bytes)
{
	long max = min_t(unsigned long, wq_quota_max_bytes(u), LONG_MAX);

	if (atomic_long_add_return(bytes, &u->bytes) > max && !unlimited) {
		atomic_long_sub(bytes, &u->bytes);
		return false;
	}
	return true;
}

/**
 * wq_quota_uncharge_bytes() - charged records were freed
 * @u: the owner's budget
 * @bytes: what they were charged
 *
 * Context: any context.
 */
void wq_quota_uncharge_bytes(struct wq_user *u, long bytes)
{
	atomic_long_sub(bytes, &u->bytes);
}
