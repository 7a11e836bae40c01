/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences, all in one place (6.1 through 6.12 and the
 * known changes after it). Nothing else in wq tests LINUX_VERSION_CODE.
 */
#ifndef _WQ_COMPAT_H
#define _WQ_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/ipc_namespace.h>
#include <linux/nsproxy.h>
#include <linux/proc_ns.h>
#include <linux/refcount.h>
#include <linux/sched/task.h>
#include <linux/version.h>

/* 6.13 made the symbol namespace of EXPORT_SYMBOL_NS* a string literal. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define WQ_NS "WQ"
#else
#define WQ_NS WQ
#endif

/* 6.13 added hrtimer_setup(); 6.15 removed hrtimer_init(). */
static inline void wq_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * IPC namespaces. 6.1 exports neither init_ipc_ns nor put_ipc_ns (6.12 does):
 * there the initial namespace is init_task's, and a reference is dropped
 * through the namespace's own proc_ns_operations (ipcns_put(), which is
 * put_ipc_ns(); nsfs drops references the same way). get_ipc_ns() is
 * inline everywhere.
 */
static inline struct ipc_namespace *wq_init_ipc_ns(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	return &init_ipc_ns;
#else
	return init_task.nsproxy->ipc_ns;
#endif
}

static inline void wq_put_ipc_ns(struct ipc_namespace *ns)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	put_ipc_ns(ns);
#elif defined(CONFIG_IPC_NS)
	ns->ns.ops->put(&ns->ns);
#endif
}

/* Is @ns referenced only by the @ours references wq holds? */
static inline bool wq_ipc_ns_only_ours(struct ipc_namespace *ns,
				       unsigned int ours)
{
#ifdef CONFIG_IPC_NS
	return refcount_read(&ns->ns.count) == ours;
#else
	return false;
#endif
}

#endif /* _WQ_COMPAT_H */
