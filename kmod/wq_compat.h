/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences private to the module (the public ones are
 * in <wq/compat.h>). Only what kernel.org's kernels export is used (the
 * table of imports: doc/install.md).
 */
#ifndef _WQ_COMPAT_PRIV_H
#define _WQ_COMPAT_PRIV_H

#include <linux/ipc_namespace.h>
#include <linux/proc_ns.h>
#include <linux/user_namespace.h>
#include <linux/version.h>

#include <wq/compat.h>

/* get_unaligned(), put_unaligned() (wq_uaccess.h) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * Without System V IPC and POSIX message queues the kernel has no IPC
 * namespace at all (nsproxy.ipc_ns is NULL): every name is then in the
 * initial entry (wq_ipc.c).
 */
#if !defined(CONFIG_SYSVIPC) && !defined(CONFIG_POSIX_MQUEUE)
#define WQ_NO_IPC_NS
#endif

/* The user namespace that owns @ns (for CAP_IPC_OWNER), as ipcperms(). */
static inline struct user_namespace *wq_ipc_ns_user_ns(struct ipc_namespace *ns)
{
#ifdef WQ_NO_IPC_NS
	return &init_user_ns;
#else
	return ns ? ns->user_ns : &init_user_ns;
#endif
}

/* The inode number of @ns, as /proc/PID/ns/ipc shows it. */
static inline unsigned int wq_ipc_ns_inum(struct ipc_namespace *ns)
{
#ifdef WQ_NO_IPC_NS
	return 0;
#else
	return ns ? ns->ns.inum : 0;
#endif
}

/*
 * A reference to @ns, and its release. get_ipc_ns() is inline everywhere;
 * put_ipc_ns() is not exported by kernel.org's kernels, so the reference
 * is dropped as nsfs drops the one an open /proc/PID/ns/ipc holds: through
 * the namespace's own operations (ns.ops->put, which is put_ipc_ns()).
 * Without IPC namespaces there is only the initial one, never pinned.
 */
static inline struct ipc_namespace *wq_ipc_ns_get(struct ipc_namespace *ns)
{
	return get_ipc_ns(ns);
}

static inline void wq_ipc_ns_put(struct ipc_namespace *ns)
{
#ifdef CONFIG_IPC_NS
	ns->ns.ops->put(&ns->ns);
#endif
}

#endif /* _WQ_COMPAT_PRIV_H */
