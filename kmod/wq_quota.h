/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quotas: what one user may make the kernel hold, as the keyring's
 * per-user maxkeys/maxbytes and mqueue's charge to a queue's creator.
 *
 * Every queue is charged to an owner budget (struct wq_user) from its
 * creation until its memory is freed (also after destroy, while handles
 * keep it alive): one queue, and for every record (a held key, or one kept
 * only for its rate-limiter failures) its key bytes plus WQ_KEY_COST. A
 * user's budget is shared by all the queues that user created, whoever
 * adds to them. The kernel API (kwq_create) has a budget of its own.
 * CAP_SYS_RESOURCE bypasses the limits for the operation of its holder
 * only: a create beyond the queue budget, or an add (through a handle
 * bound by a holder) beyond the byte budget, is charged but not refused;
 * anybody else's adds to the same queue still are. Users are counted as
 * follows: on the host by fsuid; inside a user namespace an ordinary user
 * made, by that user (the owner of the outermost namespace below
 * init_user_ns), so the uids it maps into its own namespaces share its
 * budget; inside a user namespace root made (a container), by that
 * namespace: one budget for every uid it maps. (A container without a user
 * namespace runs as host uids, and shares their budgets.)
 *
 * Locking: wq_users_lock (spinlock) protects the table of budgets and is a
 * leaf. The counters are atomics: keys are charged under q->lock from any
 * context, so a charge is an atomic add, undone if it went over the limit.
 */
#ifndef _WQ_QUOTA_H
#define _WQ_QUOTA_H

#include <linux/atomic.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/uidgid.h>

struct user_namespace;

/**
 * struct wq_user - one owner's budget
 * @node: entry in the table of budgets (wq_users_lock); unused for the
 *	kernel's
 * @uid: the user, or INVALID_UID for a container's budget
 * @userns: the container's user namespace (a reference), or NULL
 * @ref: one per queue charged, plus the caller's while it looks
 * @queues: queues charged (created and not yet freed)
 * @bytes: key bytes plus WQ_KEY_COST per record, of every charged queue
 * @kernel: the kernel API's budget
 */
struct wq_user {
	struct hlist_node node;
	kuid_t uid;
	struct user_namespace *userns;
	refcount_t ref;
	atomic_t queues;
	atomic_long_t bytes;
	bool kernel;
};

struct wq_user *wq_quota_get(void);
struct wq_user *wq_quota_kernel(void);
void wq_quota_put(struct wq_user *u);
void wq_quota_usage(u32 *queues, u64 *bytes);

int wq_quota_charge_queue(struct wq_user *u);
void wq_quota_uncharge_queue(struct wq_user *u);
bool wq_quota_charge_bytes(struct wq_user *u, bool unlimited, long bytes);
void wq_quota_uncharge_bytes(struct wq_user *u, long bytes);

#endif /* _WQ_QUOTA_H */
