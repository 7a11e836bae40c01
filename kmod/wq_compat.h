/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences private to the module (the public ones are
 * in <wq/compat.h>). Checked against 6.1 and 6.12. Around 6.17/6.18 the
 * kernel renamed ns_common.count (__ns_ref, ns_ref_read()) and let
 * namespaces be reopened by id (namespace file handles), which changes
 * what "only wq's reference is left" means: the build stops there until
 * wq_ipc_ns_only_ours() is ported to the active reference count.
 */
#ifndef _WQ_COMPAT_PRIV_H
#define _WQ_COMPAT_PRIV_H

#include <linux/ipc_namespace.h>
#include <linux/nsproxy.h>
#include <linux/proc_ns.h>
#include <linux/refcount.h>
#include <linux/sched/task.h>
#include <linux/version.h>

#include <wq/compat.h>

/* get_unaligned(), put_unaligned() (wq_uaccess.h) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#error "wq: port wq_ipc_ns_only_ours() (ns_common reference counting changed)"
#endif

/*
 * Without System V IPC and POSIX message queues the kernel has no IPC
 * namespace at all (nsproxy.ipc_ns is NULL): every name is then in one
 * registry, wq_ipc_user_ns() is the initial user namespace.
 */
#if !defined(CONFIG_SYSVIPC) && !defined(CONFIG_POSIX_MQUEUE)
#define WQ_NO_IPC_NS
#endif

/*
 * IPC namespaces. 6.1 exports neither init_ipc_ns nor put_ipc_ns (6.12 does):
 * there the initial namespace is init_task's, and a reference is dropped
 * through the namespace's own proc_ns_operations (ipcns_put(), which is
 * put_ipc_ns(); nsfs drops references the same way). get_ipc_ns() is
 * inline everywhere.
 */
static inline struct ipc_namespace *wq_init_ipc_ns(void)
{
#if defined(WQ_NO_IPC_NS)
	return NULL;
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
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

/* The user namespace that owns @ns (for CAP_IPC_OWNER), as ipcperms(). */
static inline struct user_namespace *wq_ipc_user_ns(struct ipc_namespace *ns)
{
	return ns ? ns->user_ns : &init_user_ns;
}

#endif /* _WQ_COMPAT_PRIV_H */
