// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring passthrough on /dev/wq (IORING_OP_URING_CMD, as ublk and NVMe
 * take it): ADD, GET, DONE and their batch forms, many a system call, or
 * none with SQPOLL. The command's struct is the ioctl's, in the SQE's
 * command area; it runs through the ioctl's own table and handlers
 * (wq_op_find(), wq_ioc_fn), so every check, quota, access mode, metric
 * and tracepoint is the ioctl's. The uapi (uapi/linux/wq.h) says what a
 * program sees.
 *
 * A command that would wait is not parked by the driver: io_uring cannot
 * cancel a command a driver holds on 6.1, and on no kernel through
 * IORING_OP_ASYNC_CANCEL. Issued where it may not sleep
 * (IO_URING_F_NONBLOCK: inline in io_uring_enter() or the SQPOLL thread)
 * it is tried without waiting, and one that would wait returns -EAGAIN
 * having changed nothing of the queue: io_uring then issues it again in
 * its worker threads (io-wq), where it waits as a blocked ioctl does,
 * interruptibly, on the queue's own wait queues (in line with WQ_IOC_GET
 * callers). A cancel, the ring's teardown or the task's exit interrupts
 * that wait (io-wq signals its worker: TIF_NOTIFY_SIGNAL), and the command
 * completes with -ECANCELED, having taken nothing; a stop or freeze of the
 * process interrupts it too (-EINTR). A key a get took belongs to the
 * handle, as a WQ_IOC_GET's does: put back when the file is closed, which
 * io_uring's reference keeps open until the command completes.
 *
 * Context: process context (the submitter, the SQPOLL thread or an io-wq
 * worker; each has the submitter's mm, so user pointers are the
 * submitter's). No lock is held across the call but io_uring's own
 * (ctx->uring_lock, a mutex, when inline); the handlers take the queue's.
 */
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/sched/signal.h>
#include <linux/string.h>

#include "wq_compat.h"
#include "wq_dev.h"

/* Flags of io_uring_cmd.flags a command may not have (uapi io_uring.h). */
#ifdef IORING_URING_CMD_FIXED
#define WQ_URING_CMD_FIXED	IORING_URING_CMD_FIXED
#else
#define WQ_URING_CMD_FIXED	0
#endif
#ifdef IORING_URING_CMD_MULTISHOT
#define WQ_URING_CMD_MULTISHOT	IORING_URING_CMD_MULTISHOT
#else
#define WQ_URING_CMD_MULTISHOT	0
#endif

/* The structs a command may carry: the ioctls' of the six commands. */
union wq_uring_buf {
	struct wq_add add;
	struct wq_get get;
	struct wq_key key;
	struct wq_batch batch;
};

/*
 * Prepare @b, a command of @op issued where it may not sleep, to be tried
 * without waiting. Return: true if it would wait as given (its -EAGAIN
 * then means "wait in io-wq"), false if it runs as given.
 */
static bool wq_uring_try(struct wq_handle *h, const struct wq_ioctl_op *op,
			 union wq_uring_buf *b)
{
	ktime_t deadline;

	/* an O_NONBLOCK file never waits: its -EAGAIN is the result */
	if (h->file->f_flags & O_NONBLOCK)
		return false;
	switch (op->cmd) {
	case WQ_IOC_GET:
		if (b->get.flags & WQ_GET_NONBLOCK)
			return false;
		b->get.flags |= WQ_GET_NONBLOCK;
		return true;
	case WQ_IOC_GET_BATCH:
		if (b->batch.flags & WQ_GET_NONBLOCK)
			return false;
		b->batch.flags |= WQ_GET_NONBLOCK;
		return true;
	case WQ_IOC_ADD:
		/* a bad deadline is the handler's -EINVAL, found as given */
		if (!(b->add.flags & WQ_ADD_WAIT) ||
		    wq_deadline(b->add.deadline_ns, &deadline))
			return false;
		b->add.flags |= WQ_ADD_TRY;
		return true;
	}
	return false;
}

/* The struct of @op from the command area of @ioucmd into @b. */
static int wq_uring_copy_in(const struct io_uring_cmd *ioucmd,
			    unsigned int issue_flags,
			    const struct wq_ioctl_op *op, union wq_uring_buf *b)
{
	u32 area = (issue_flags & IO_URING_F_SQE128) ? WQ_URING_CMD_MAX : 16;
	u32 usize = _IOC_SIZE(ioucmd->cmd_op);
	const u8 *cmd = wq_uring_cmd_area(ioucmd);

	BUILD_BUG_ON(sizeof(*b) > WQ_URING_CMD_MAX);
	if (usize > area)
		return -EINVAL;
	/* as copy_struct_from_user(): an older struct zero-extended... */
	if (usize <= op->size) {
		memcpy(b, cmd, usize);
		memset((u8 *)b + usize, 0, op->size - usize);
		return 0;
	}
	/* ... a newer one only if what we do not know of it is zero */
	if (memchr_inv(cmd + op->size, 0, usize - op->size))
		return -E2BIG;
	memcpy(b, cmd, op->size);
	return 0;
}

/**
 * wq_uring_cmd() - file_operations.uring_cmd of /dev/wq
 * @ioucmd: the command: cmd_op a WQ_IOC_* number, its struct in the SQE
 * @issue_flags: IO_URING_F_*
 *
 * Context: see the top of this file.
 * Return: -EAGAIN to be issued again in io-wq; else the completion
 * (wq_uring_complete()): the handler's result, a WQ_IOC_ADD's being what
 * the add did (WQ_ADDED_*), or -ENOTTY, -EINVAL, -E2BIG, -EBADF, the
 * handler's errors, -ECANCELED for a wait that io_uring interrupted,
 * -EINTR for one a stop or freeze of the process interrupted.
 */
int wq_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct wq_handle *h = ioucmd->file->private_data;
	bool nowait = issue_flags & IO_URING_F_NONBLOCK;
	const struct wq_ioctl_op *op;
	union wq_uring_buf buf;
	bool would_wait = false;
	struct kwq *q;
	long ret;

	/* no registered buffer, no multishot (6.18's would never complete) */
	if (ioucmd->flags & (WQ_URING_CMD_FIXED | WQ_URING_CMD_MULTISHOT)) {
		ret = -EINVAL;
		goto out;
	}
	op = wq_op_find(h, ioucmd->cmd_op, &q);
	if (IS_ERR(op)) {
		ret = PTR_ERR(op);
		goto out;
	}
	if (!(op->flags & WQ_OP_URING)) {
		ret = -ENOTTY;
		goto out;
	}
	ret = wq_uring_copy_in(ioucmd, issue_flags, op, &buf);
	if (ret)
		goto out;
	/* a caller's struct never carries the kernel's own bit */
	if (op->cmd == WQ_IOC_ADD && (buf.add.flags & WQ_ADD_TRY)) {
		ret = -EINVAL;
		goto out;
	}
	if (nowait)
		would_wait = wq_uring_try(h, op, &buf);
	ret = op->fn(h, q, &buf, NULL);
	if (ret == -EAGAIN && would_wait)
		return wq_uring_punt(ioucmd, issue_flags); /* to io-wq */
	/*
	 * Interrupted, having taken nothing. io_uring's cancel
	 * (IORING_OP_ASYNC_CANCEL, the ring's teardown, the task's exit)
	 * signals an io-wq worker with TIF_NOTIFY_SIGNAL, an exit also with
	 * SIGKILL: -ECANCELED. A stop or a freeze (a worker is a thread of
	 * the process) is -EINTR: submit again. A restart code never reaches
	 * a completion.
	 */
	if (ret == -ERESTARTSYS || ret == -ERESTARTNOINTR ||
	    ret == -ERESTARTNOHAND || ret == -ERESTART_RESTARTBLOCK ||
	    ret == -EINTR)
		ret = !nowait && (test_thread_flag(TIF_NOTIFY_SIGNAL) ||
				  fatal_signal_pending(current)) ?
		      -ECANCELED : -EINTR;
out:
	return wq_uring_complete(ioucmd, ret, issue_flags);
}
