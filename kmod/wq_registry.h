/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Named queues: a registry per IPC namespace, like POSIX message queues'
 * (wq_ipc.h says how namespaces work, wq_registry.c the kernel's names).
 * A queue lives from create until destroy (and after destroy until its
 * last handle is closed), or until its IPC namespace goes; handles find it
 * by name.
 */
#ifndef _WQ_REGISTRY_H
#define _WQ_REGISTRY_H

#include <linux/mutex.h>

#include "wq_queue.h"

/* Whose quota a new queue is charged to (wq_quota.h). */
enum wq_budget {
	WQ_BUDGET_USER,		/* the caller's (wq_quota_get()) */
	WQ_BUDGET_KERNEL,	/* the kernel API's */
};

struct wq_ipc;

extern struct mutex wq_registry_lock;

u32 wq_registry_max_queues(const struct wq_ipc *ipc);
/**
 * struct wq_new - what a new queue is (wq_registry_new())
 * @max_items: most keys held; 0 for the module default
 * @max_tracked: most idle failure records; 0 for the module default
 * @items_ceil: the most a default @max_items may be (U32_MAX: the limit)
 * @tracked_ceil: the same for a default @max_tracked
 * @limiter: the rate limiter (validated by wq_registry_new())
 * @prio: hands out by priority (WQ_CREATE_PRIORITY)
 * @starve_ns: with @prio: the age after which a ready key goes first
 * @mode: permission bits (07777)
 * @uid: owner
 * @gid: group
 */
struct wq_new {
	u32 max_items;
	u32 max_tracked;
	u32 items_ceil;
	u32 tracked_ceil;
	const struct wq_limiter *limiter;
	bool prio;
	u64 starve_ns;
	umode_t mode;
	kuid_t uid;
	kgid_t gid;
};

int wq_registry_new(struct wq_ipc *ipc, const char *name,
		    const struct wq_new *n, enum wq_budget budget, gfp_t gfp,
		    struct kwq **qp);
int wq_registry_create(struct wq_ipc *ipc, const struct wq_create *args,
		       struct kwq **qp);
int wq_registry_open(struct wq_ipc *ipc, const char *name, int access,
		     struct kwq **qp);
int wq_registry_unlink(struct wq_ipc *ipc, const char *name,
		       bool check_owner);
int wq_registry_unlink_queue(struct kwq *q);
int wq_registry_list(struct wq_ipc *ipc, struct wq_queue_info *infos, u32 cap,
		     u32 *total);
void wq_registry_unlink_all_locked(struct wq_ipc *ipc, struct list_head *dead);
void wq_registry_put_dead(struct list_head *dead);
void wq_registry_debugfs_init(void);
void wq_registry_debugfs_exit(void);
void wq_registry_exit(void);

int wq_check_name(const char name[WQ_NAME_MAX]);
int wq_copy_name(char buf[WQ_NAME_MAX], const char *name);

#endif /* _WQ_REGISTRY_H */
