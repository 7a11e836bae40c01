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
#include <linux/sched.h>
#include <linux/user_namespace.h>
#include <linux/version.h>

#include <wq/compat.h>

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

/*
 * Does no task and no nsfs file hold @ns any more, only the one reference
 * wq takes (wq_ipc_ns_get())? From 6.19 the kernel counts those "active"
 * uses apart; before, they and wq's are the one reference count, read
 * through ns_ref_read() from 6.18 (there a System V segment attached in
 * the namespace counts too). Kbuild reads off the header which of the
 * three the tree has (WQ_NS_ACTIVE_REF, WQ_NS_REF_READ). Once true it
 * nearly always stays true: only a setns() through a pidfd racing the
 * last task's exit (6.19 on) or a reopen by an nsfs file handle (6.18) can
 * enter such a namespace again, and it then has no queues.
 */
static inline bool wq_ipc_ns_unused(struct ipc_namespace *ns)
{
#if !defined(CONFIG_IPC_NS)
	return false;
#elif defined(WQ_NS_ACTIVE_REF)
	return !__ns_ref_active_read(&ns->ns);
#elif defined(WQ_NS_REF_READ)
	return ns_ref_read(ns) == 1;
#else
	return refcount_read(&ns->ns.count) == 1;
#endif
}

/*
 * io_uring passthrough (wq_uring.c). What changed, by mainline release:
 * 6.3 gave io_uring_cmd_done() an issue_flags argument (so did 6.1's
 * stable series: Kbuild reads which this tree has, WQ_URING_DONE_FLAGS);
 * 6.5 gave the command the whole SQE (->sqe, not ->cmd: Kbuild reads it,
 * WQ_URING_CMD_SQE); 6.7 moved the
 * command's API to <linux/io_uring/cmd.h>; 6.18 made io_uring_cmd_done()
 * an inline of three arguments over __io_uring_cmd_done(). Before 6.12 a
 * positive result returned from ->uring_cmd() is taken for a failure
 * (inline, the request fails and breaks its links; in io-wq it is lost),
 * so every result but 0 (IOU_OK: on 6.1 it then completes with the
 * submission's batch, where io_uring_cmd_done() posts it on its own) goes
 * through io_uring_cmd_done();
 * from 6.12 a result is returned, but for -EAGAIN, which asks io_uring
 * for io-wq. No command is ever sent there: one that would wait is
 * parked, having copied its struct out of the SQE.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif

/* The SQE's command area: 16 bytes, or 80 in an IORING_SETUP_SQE128 ring. */
static inline const void *wq_uring_cmd_area(const struct io_uring_cmd *c)
{
#ifdef WQ_URING_CMD_SQE
	return c->sqe->cmd;
#else
	return c->cmd;
#endif
}

/* io_uring_cmd_done() of @c with @ret (no CQE32 extra), from any issue. */
static inline void wq_uring_cmd_done(struct io_uring_cmd *c, long ret,
				     unsigned int issue_flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
	io_uring_cmd_done(c, ret, issue_flags);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0) || defined(WQ_URING_DONE_FLAGS)
	io_uring_cmd_done(c, ret, 0, issue_flags);
#else
	io_uring_cmd_done(c, ret, 0);
#endif
}

/*
 * Parked commands (wq_uring.c). io_uring_cmd_mark_cancelable(), and with
 * it IO_URING_F_CANCEL, came in 6.7 (WQ_URING_CANCELABLE); a task work
 * callback learns its task is gone from IO_URING_F_TASK_DEAD where the
 * tree has it (WQ_URING_TASK_DEAD; 6.12 does) and takes no issue_flags in
 * 6.1.0 (6.1.y's does, and 6.18's io_uring_cmd_tw_t:
 * WQ_URING_TW_FLAGS); from 7.0 it is an io_req_tw_func_t
 * (WQ_URING_TW_REQ). Kbuild reads off the headers which the tree has.
 */
/* Is ->uring_cmd() called to cancel a command (ring teardown, exit)? */
static inline bool wq_uring_cancelling(unsigned int issue_flags)
{
#ifdef WQ_URING_CANCELABLE
	return issue_flags & IO_URING_F_CANCEL;
#else
	return false;
#endif
}

/* Is the task work of a command running where its task is gone? */
static inline bool wq_uring_task_dead(unsigned int issue_flags)
{
#ifdef WQ_URING_TASK_DEAD
	if (issue_flags & IO_URING_F_TASK_DEAD)
		return true;
#endif
	/* io_uring's fallback runs it in a kworker; an exiting task's mm is gone */
	return current->flags & (PF_EXITING | PF_KTHREAD);
}

/*
 * The completion of @c with @ret, a command's result (also -EAGAIN: a
 * call that may not wait found nothing): what ->uring_cmd() returns.
 */
static inline int wq_uring_complete(struct io_uring_cmd *c, long ret,
				    unsigned int issue_flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	if (ret != -EAGAIN)
		return ret;
#else
	if (!ret)		/* IOU_OK: completed with the submission's batch */
		return 0;
#endif
	wq_uring_cmd_done(c, ret, issue_flags);
	return -EIOCBQUEUED;
}

#endif /* _WQ_COMPAT_PRIV_H */
