// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring passthrough on /dev/wq (IORING_OP_URING_CMD, as ublk and NVMe
 * take it): ADD, GET, DONE, DONE_GET, their batch forms and URING_CANCEL,
 * many a system call, or none with SQPOLL. The command's struct is the
 * ioctl's, in the SQE's command area, copied out of the SQE when the
 * command is issued; it runs through the ioctl's own table and handlers
 * (wq_op_find(), wq_ioc_fn), so every check, quota, access mode, metric
 * and tracepoint is the ioctl's. The uapi (uapi/linux/wq.h) says what a
 * program sees.
 *
 * Nothing here waits. A command is tried without waiting; one that would
 * wait (a GET with nothing queued, an ADD with WQ_ADD_WAIT of a full
 * queue) is parked: it returns -EIOCBQUEUED and waits as an exclusive
 * entry of the queue's own wait queue (q->getters, q->producers), in line
 * with blocked WQ_IOC_GET callers, holding no thread. The wake-up that
 * hands the key or the room on (kwq_wake_getters(), kwq_wake_producers(),
 * a shutdown) takes the entry off the wait queue and queues the command's
 * task work (io_uring_cmd_complete_in_task()), which runs in the
 * submitter's context, tries the command again and completes it, or parks
 * it again if another consumer was first.
 *
 * A parked command ends with a key or room, at its deadline (an hrtimer:
 * -ETIMEDOUT), when the queue shuts down, by WQ_IOC_URING_CANCEL (one by
 * its buffer, or all of the handle's: -ECANCELED), when the process that
 * submitted it closes a descriptor of the handle (flush, as a close drops
 * its POSIX locks), and when its ring is torn down or its task exits:
 * through io_uring's own cancel (io_uring_cmd_mark_cancelable(), from
 * 6.7), or, on kernels without it, a watch that runs while commands are
 * parked: once a second it ends those of a task that is exiting, and every
 * command parked for WQ_URING_LEASE (10 s) ends with -EINTR, to be
 * submitted again, so that a ring torn down by a live task is released in
 * time. A parked command has taken nothing: whoever ends it, no key is
 * lost, and a key it took belongs to the handle as a WQ_IOC_GET's does.
 *
 * Nothing reads or writes io_uring's own structures: the command's state
 * is ours (struct wq_park, its address in the command's pdu).
 *
 * Locking: a parked command's state changes under its wait queue's lock
 * (wq_park_claim(), the wake function); h->park_lock (a spinlock) guards
 * the handle's list of parked commands and is taken before a wait queue's
 * lock; wq_uring_watch_lock likewise for the watch's list. The wake
 * function runs under the wait queue's lock, in any context, and only
 * queues task work.
 *
 * Context: ->uring_cmd() runs in process context (the submitter, the
 * SQPOLL thread or an io-wq worker; each has the submitter's mm); the task
 * work in the submitter's task (or, the task dead, where io_uring runs
 * it: then no user memory is touched).
 */
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

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

/* The structs a command may carry: the ioctls' of its commands. */
union wq_uring_buf {
	struct wq_add add;
	struct wq_get get;
	struct wq_key key;
	struct wq_batch batch;
	struct wq_done_get done_get;
	struct wq_done_get_batch done_get_batch;
	struct wq_uring_cancel cancel;
};

/* Most commands parked on one handle at once (more: -EBUSY). */
#define WQ_URING_MAX_PARKED	65536

enum {
	WQ_PARK_RUN,		/* off it: being set up, or its task work queued */
	WQ_PARK_WAITING,	/* on its wait queue */
};

/**
 * struct wq_park - a command that waits
 * @wait: its entry on @wqh (exclusive)
 * @timer: its deadline
 * @node: on the handle's h->parked (h->park_lock)
 * @watch: on the watch's list, on kernels without io_uring's cancel
 * @task: there, the task whose exit ends it (a reference), or NULL
 * @since: there, when it was parked last (jiffies)
 * @cmd: the command
 * @h: its handle (the command holds the file)
 * @op: its entry of the ioctl table
 * @wqh: q->getters or q->producers
 * @owner: the files of the process that submitted it (flush)
 * @state: WQ_PARK_*
 * @woken: its last wake-up came from the queue (it is owed a try)
 * @counted: the keys that wake-up counted it for, on q->getters
 *	(kwq_getter_woken()): one that takes fewer passes the wake-up on
 * @cancel: a cancel came while it was off @wqh (@wqh's lock)
 * @abort: that cancel was io_uring's or an exiting task's: no try
 * @timedout: its deadline passed while it was off @wqh (@wqh's lock)
 * @end: what ends it, set by whoever took it off @wqh: 0 (try again),
 *	-ETIMEDOUT, -ECANCELED, -EINTR
 * @buf: the command's struct, as it is tried again
 */
struct wq_park {
	struct wait_queue_entry wait;
	struct hrtimer timer;
	struct list_head node;
#ifndef WQ_URING_CANCELABLE
	struct list_head watch;
	struct task_struct *task;
	unsigned long since;
#endif
	struct io_uring_cmd *cmd;
	struct wq_handle *h;
	const struct wq_ioctl_op *op;
	struct wait_queue_head *wqh;
	fl_owner_t owner;
	atomic_t state;
	bool woken;
	unsigned int counted;
	bool cancel;
	bool abort;
	bool timedout;
	int end;
	union wq_uring_buf buf;
};

static void wq_park_run(struct io_uring_cmd *cmd, unsigned int issue_flags,
			bool dead);

static struct wq_park *wq_park_of(struct io_uring_cmd *cmd)
{
	return *(struct wq_park **)cmd->pdu;
}

/* The task work of a parked command, in each kernel's form (wq_compat.h). */
#if defined(WQ_URING_TW_REQ)
static void wq_park_tw(struct io_tw_req tw_req, io_tw_token_t tw)
{
	wq_park_run(io_uring_cmd_from_tw(tw_req),
		    IO_URING_CMD_TASK_WORK_ISSUE_FLAGS, tw.cancel);
}
#elif defined(WQ_URING_TW_FLAGS)
static void wq_park_tw(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	wq_park_run(cmd, issue_flags, wq_uring_task_dead(issue_flags));
}
#else
static void wq_park_tw(struct io_uring_cmd *cmd)
{
	wq_park_run(cmd, 0, wq_uring_task_dead(0));
}
#endif

static void wq_park_queue(struct wq_park *p)
{
	io_uring_cmd_complete_in_task(p->cmd, wq_park_tw);
}

#ifndef WQ_URING_CANCELABLE
/*
 * Kernels without io_uring_cmd_mark_cancelable(): io_uring cannot end a
 * command a driver parked, so a watch does, while commands are parked.
 */
#define WQ_URING_LEASE		(10 * HZ)
static DEFINE_SPINLOCK(wq_uring_watch_lock);
static LIST_HEAD(wq_uring_watched);
static void wq_uring_watch_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(wq_uring_watcher, wq_uring_watch_work);
#endif

/*
 * Take @p off its wait queue if it is still on it, with @end as what ends
 * it; @hard: a cancel that allows no last try (io_uring's, a task's exit).
 * A cancel or deadline that finds @p off the queue (being set up, or its
 * task work queued) is kept for it: wq_park_wait() does not put it back,
 * and a cancel that is not @hard ends it unless its try gets what it
 * waits for.
 * Return: true if this call took it off (the caller queues its task work
 * or completes it), false if a wake-up or another end was first.
 */
static bool wq_park_claim(struct wq_park *p, int end, bool hard)
{
	unsigned long flags;
	bool claimed = false;

	spin_lock_irqsave(&p->wqh->lock, flags);
	if (hard)
		WRITE_ONCE(p->abort, true);
	if (atomic_read(&p->state) == WQ_PARK_WAITING) {
		__remove_wait_queue(p->wqh, &p->wait);
		atomic_set(&p->state, WQ_PARK_RUN);
		p->woken = false;
		p->end = end;
		claimed = true;
	} else if (end == -ECANCELED) {
		p->cancel = true;
	} else if (end == -ETIMEDOUT) {
		p->timedout = true;
	}
	spin_unlock_irqrestore(&p->wqh->lock, flags);
	return claimed;
}

/* The keys a parked Get's try that returned @ret >= 0 took. */
static unsigned int wq_park_taken(const struct wq_park *p, long ret)
{
	if (p->op->cmd == WQ_IOC_GET_BATCH ||
	    p->op->cmd == WQ_IOC_DONE_GET_BATCH)
		return ret;
	return 1;
}

/*
 * The wake function of a parked command: off the queue, its task work.
 * A Get's wake-up counts it for one key, a batch's too: its try runs as
 * the submitter's task work, which may wait long (a ring with
 * IORING_SETUP_DEFER_TASKRUN runs it when the task next waits for
 * completions), and keys it was counted for would wait with it while
 * other consumers sleep.
 */
static int wq_park_wake(struct wait_queue_entry *wait, unsigned int mode,
			int sync, void *key)
{
	struct wq_park *p = container_of(wait, struct wq_park, wait);
	struct kwq *q = p->h->q;
	int ret = 1;

	if (atomic_read(&p->state) != WQ_PARK_WAITING)
		return 0;
	list_del_init(&wait->entry);
	atomic_set(&p->state, WQ_PARK_RUN);
	p->woken = true;
	if (p->wqh == &q->getters)
		ret = kwq_getter_woken(q, 1, &p->counted);
	/* its task work may run and free it at once: nothing of it after */
	wq_park_queue(p);
	return ret;
}

static enum hrtimer_restart wq_park_deadline(struct hrtimer *t)
{
	struct wq_park *p = container_of(t, struct wq_park, timer);

	if (wq_park_claim(p, -ETIMEDOUT, false))
		wq_park_queue(p);
	return HRTIMER_NORESTART;
}

/* The command's deadline, from its struct: KTIME_MAX for none. */
static ktime_t wq_park_deadline_of(const struct wq_park *p)
{
	u64 ns;

	switch (p->op->cmd) {
	case WQ_IOC_ADD:
		ns = p->buf.add.deadline_ns;
		break;
	case WQ_IOC_GET:
		ns = p->buf.get.deadline_ns;
		break;
	case WQ_IOC_DONE_GET:
		ns = p->buf.done_get.get.deadline_ns;
		break;
	case WQ_IOC_DONE_GET_BATCH:
		ns = p->buf.done_get_batch.get.deadline_ns;
		break;
	default:
		ns = p->buf.batch.deadline_ns;
	}
	return ns == WQ_DEADLINE_NONE || ns > KTIME_MAX ? KTIME_MAX : ns;
}

/* Would @p's command not wait any more (a key, room, a shutdown)? */
static bool wq_park_ready(const struct wq_park *p)
{
	struct kwq *q = p->h->q;

	if (READ_ONCE(q->shutting_down))
		return true;
	if (p->wqh == &q->producers)
		return READ_ONCE(q->nr_held) < q->max_items;
	return READ_ONCE(q->nr_queued) && !READ_ONCE(q->discarded);
}

/*
 * Put @p (WQ_PARK_RUN) on its wait queue. No wake-up is lost: it is on
 * the queue before it looks, and the barrier pairs with wq_has_sleeper()
 * in the wakers; it looks under the wait queue's lock, so a waker that
 * saw it there wakes it after this, and nobody else can own it before the
 * lock is dropped. Return: true if it waits (the caller may not touch it
 * any more), false if it need not wait after all: a cancel or its
 * deadline came meanwhile (p->end is set), or what it waits for is there
 * (p->end 0: its task work is to be queued, to try again).
 */
static bool wq_park_wait(struct wq_park *p)
{
	unsigned long flags;
	bool wait = false;

	p->wait.flags |= WQ_FLAG_EXCLUSIVE;
	spin_lock_irqsave(&p->wqh->lock, flags);
	if (p->cancel) {
		p->end = -ECANCELED;
	} else if (p->timedout) {
		p->end = -ETIMEDOUT;
	} else {
		__add_wait_queue_entry_tail(p->wqh, &p->wait);
		/* on the queue, then look: pairs with wq_has_sleeper() */
		smp_mb();
		if (wq_park_ready(p)) {
			__remove_wait_queue(p->wqh, &p->wait);
		} else {
			atomic_set(&p->state, WQ_PARK_WAITING);
			wait = true;
		}
	}
	spin_unlock_irqrestore(&p->wqh->lock, flags);
	return wait;
}

/*
 * The command that ends without using a wake-up it got passes it on, so
 * that no key or room is left while others wait.
 */
static void wq_park_pass_on(struct wq_park *p)
{
	if (!p->woken)
		return;
	if (p->wqh == &p->h->q->getters)
		kwq_getter_pass_on(p->h->q, p->counted, 0);
	else if (wq_park_ready(p))
		wake_up(p->wqh);
}

/*
 * Off every list, its deadline stopped: nothing but io_uring's cancel (the
 * command's pdu) reaches @p any more, and that only until the command is
 * completed, so @p is freed after its completion.
 */
static void wq_park_unlink(struct wq_park *p)
{
	struct wq_handle *h = p->h;

	hrtimer_cancel(&p->timer);
	spin_lock(&h->park_lock);
	list_del(&p->node);
	h->nr_parked--;
	spin_unlock(&h->park_lock);
#ifndef WQ_URING_CANCELABLE
	spin_lock(&wq_uring_watch_lock);
	list_del(&p->watch);
	spin_unlock(&wq_uring_watch_lock);
	if (p->task)
		put_task_struct(p->task);
#endif
}

static void wq_park_complete(struct wq_park *p, long ret,
			     unsigned int issue_flags)
{
	struct io_uring_cmd *cmd = p->cmd;

	wq_park_unlink(p);
	wq_uring_cmd_done(cmd, ret, issue_flags);
	kfree(p);
}

/*
 * The command's task work: an end decided elsewhere, or a try; a try that
 * would wait parks it again. @dead: its task is gone (no user memory).
 */
static void wq_park_run(struct io_uring_cmd *cmd, unsigned int issue_flags,
			bool dead)
{
	struct wq_park *p = wq_park_of(cmd);
	long ret = p->end;

	if (dead || READ_ONCE(p->abort)) {
		ret = -ECANCELED;	/* nothing taken */
	} else if (!ret || ret == -ETIMEDOUT) {
		/* on a copy: the handlers write their results into it */
		union wq_uring_buf b = p->buf;

		ret = p->op->fn(p->h, p->h->q, &b, NULL);
		/* a try that took nothing passes its wake-up on, below */
		if (ret == -EAGAIN || ret == -ESHUTDOWN)
			p->woken = false;
		/* a Get that took keys, if fewer than it was counted for */
		if (ret >= 0 && p->woken) {
			p->woken = false;
			if (p->wqh == &p->h->q->getters)
				kwq_getter_pass_on(p->h->q, p->counted,
						   wq_park_taken(p, ret));
		}
		if (ret == -EAGAIN && !p->end) {
			if (wq_park_wait(p))
				return;
			if (!p->end) {
				wq_park_queue(p);
				return;
			}
			ret = p->end;
		} else if (ret == -EAGAIN) {
			ret = -ETIMEDOUT;
		}
	}
	wq_park_pass_on(p);
	wq_park_complete(p, ret, issue_flags);
}

/*
 * Park the command of @op whose first try found it must wait: its state,
 * its deadline, where it waits. Return: -EIOCBQUEUED, or an error that
 * completes it at once.
 */
static int wq_park(struct io_uring_cmd *cmd, unsigned int issue_flags,
		   struct wq_handle *h, const struct wq_ioctl_op *op,
		   const union wq_uring_buf *b)
{
	struct kwq *q = h->q;
	struct wq_park *p;
	ktime_t deadline;

	if (issue_flags & IO_URING_F_IOPOLL)
		return -EOPNOTSUPP;	/* a polled ring is never woken */
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return -ENOMEM;
	p->cmd = cmd;
	p->h = h;
	p->op = op;
	p->buf = *b;
	p->owner = current->files;
	p->wqh = op->cmd == WQ_IOC_ADD ? &q->producers : &q->getters;
	init_waitqueue_func_entry(&p->wait, wq_park_wake);
	INIT_LIST_HEAD(&p->wait.entry);
	wq_hrtimer_setup(&p->timer, wq_park_deadline, CLOCK_MONOTONIC,
			 HRTIMER_MODE_ABS_SOFT);
	deadline = wq_park_deadline_of(p);
	if (ktime_compare(deadline, ktime_get()) <= 0) {
		kfree(p);
		return -ETIMEDOUT;
	}
	spin_lock(&h->park_lock);
	if (h->nr_parked >= WQ_URING_MAX_PARKED) {
		spin_unlock(&h->park_lock);
		kfree(p);
		return -EBUSY;
	}
	h->nr_parked++;
	list_add_tail(&p->node, &h->parked);
	spin_unlock(&h->park_lock);
	*(struct wq_park **)cmd->pdu = p;
#ifdef WQ_URING_CANCELABLE
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
#else
	/* an io_uring thread's exit says nothing of the submitter's */
	if (!(current->flags & PF_IO_WORKER))
		p->task = get_task_struct(current);
	p->since = jiffies;
	spin_lock(&wq_uring_watch_lock);
	list_add_tail(&p->watch, &wq_uring_watched);
	spin_unlock(&wq_uring_watch_lock);
	queue_delayed_work(system_wq, &wq_uring_watcher, HZ);
#endif
	if (deadline != KTIME_MAX)
		hrtimer_start(&p->timer, deadline, HRTIMER_MODE_ABS_SOFT);
	if (!wq_park_wait(p))
		wq_park_queue(p);
	return -EIOCBQUEUED;
}

/* io_uring cancels a parked command (its ring torn down, its task exits). */
static void wq_park_cancel(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct wq_park *p = wq_park_of(cmd);

	/* else its task work is queued, and ends it with no try */
	if (wq_park_claim(p, -ECANCELED, true))
		wq_park_complete(p, -ECANCELED, issue_flags);
}

/* The buffer (GET, the gets) or key (ADD) a parked command names. */
static u64 wq_park_addr(const struct wq_park *p)
{
	switch (p->op->cmd) {
	case WQ_IOC_ADD:
		return p->buf.add.key;
	case WQ_IOC_GET:
		return p->buf.get.buf;
	case WQ_IOC_DONE_GET:
		return p->buf.done_get.get.buf;
	case WQ_IOC_DONE_GET_BATCH:
		return p->buf.done_get_batch.get.buf;
	default:
		return p->buf.batch.buf;
	}
}

/*
 * End with -ECANCELED the commands parked on @h that @match says, through
 * their task work. Return: how many.
 */
static unsigned int wq_park_end(struct wq_handle *h,
				bool (*match)(const struct wq_park *p,
					      const void *arg),
				const void *arg)
{
	unsigned int n = 0;
	struct wq_park *p;

	spin_lock(&h->park_lock);
	list_for_each_entry(p, &h->parked, node) {
		if (!match(p, arg))
			continue;
		if (wq_park_claim(p, -ECANCELED, false))
			wq_park_queue(p);
		n++;
	}
	spin_unlock(&h->park_lock);
	return n;
}

static bool wq_park_at(const struct wq_park *p, const void *arg)
{
	const struct wq_uring_cancel *c = arg;

	return (c->flags & WQ_URING_CANCEL_ALL) || wq_park_addr(p) == c->addr;
}

static bool wq_park_owned(const struct wq_park *p, const void *arg)
{
	return p->owner == arg;
}

/**
 * wq_ioc_uring_cancel() - WQ_IOC_URING_CANCEL: end parked commands
 * @h: the handle
 * @q: its queue
 * @arg: the struct wq_uring_cancel
 * @uarg: unused
 *
 * Return: how many parked commands of @h end (-ECANCELED; one whose try
 * was under way ends so unless the try got its key or room), or -EINVAL.
 */
long wq_ioc_uring_cancel(struct wq_handle *h, struct kwq *q, void *arg,
			 void __user *uarg)
{
	struct wq_uring_cancel *c = arg;

	if ((c->flags & ~WQ_URING_CANCEL_ALL) || c->reserved ||
	    (c->flags && c->addr) || (!c->flags && !c->addr))
		return -EINVAL;
	return wq_park_end(h, wq_park_at, c);
}

/**
 * wq_uring_flush() - a descriptor of @h is closed by the process whose
 *	files are @owner: its parked commands end (-ECANCELED)
 * @h: the handle
 * @owner: the files the descriptor was closed in
 */
void wq_uring_flush(struct wq_handle *h, fl_owner_t owner)
{
	wq_park_end(h, wq_park_owned, owner);
}

#ifndef WQ_URING_CANCELABLE
/*
 * The watch: commands of an exiting task end (-ECANCELED), commands parked
 * for WQ_URING_LEASE end (-EINTR: submit again). Runs while some are.
 */
static void wq_uring_watch_work(struct work_struct *work)
{
	struct wq_park *p;
	bool more;

	spin_lock(&wq_uring_watch_lock);
	list_for_each_entry(p, &wq_uring_watched, watch) {
		int end = 0;

		if (p->task && (p->task->flags & PF_EXITING))
			end = -ECANCELED;
		else if (time_after(jiffies, p->since + WQ_URING_LEASE))
			end = -EINTR;
		if (end && wq_park_claim(p, end, end == -ECANCELED))
			wq_park_queue(p);
	}
	more = !list_empty(&wq_uring_watched);
	spin_unlock(&wq_uring_watch_lock);
	if (more)
		queue_delayed_work(system_wq, &wq_uring_watcher, HZ);
}
#endif

/*
 * Prepare @b, a command of @op, to be tried without waiting. Return: true
 * if it would wait as given (its -EAGAIN then means "park it"), false if
 * it runs as given.
 */
static bool wq_uring_try(struct wq_handle *h, const struct wq_ioctl_op *op,
			 union wq_uring_buf *b)
{
	ktime_t deadline;
	u32 *flags;

	/* an O_NONBLOCK file never waits: its -EAGAIN is the result */
	if (h->file->f_flags & O_NONBLOCK)
		return false;
	switch (op->cmd) {
	case WQ_IOC_GET:
		flags = &b->get.flags;
		break;
	case WQ_IOC_GET_BATCH:
		flags = &b->batch.flags;
		break;
	case WQ_IOC_DONE_GET:
		flags = &b->done_get.get.flags;
		break;
	case WQ_IOC_DONE_GET_BATCH:
		flags = &b->done_get_batch.get.flags;
		break;
	case WQ_IOC_ADD:
		/* a bad deadline is the handler's -EINVAL, found as given */
		if (!(b->add.flags & WQ_ADD_WAIT) ||
		    wq_deadline(b->add.deadline_ns, &deadline))
			return false;
		b->add.flags |= WQ_ADD_TRY;
		return true;
	default:
		return false;
	}
	if (*flags & WQ_GET_NONBLOCK)
		return false;
	*flags |= WQ_GET_NONBLOCK;
	return true;
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
 * Return: -EIOCBQUEUED for a command parked; else the completion
 * (wq_uring_complete()): the handler's result, a WQ_IOC_ADD's being what
 * the add did (WQ_ADDED_*), or -ENOTTY, -EINVAL, -E2BIG, -EBADF, -EBUSY
 * (too many parked on the handle), -EOPNOTSUPP (one that would wait, in
 * a polled ring), the handler's errors.
 */
int wq_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct wq_handle *h = ioucmd->file->private_data;
	const struct wq_ioctl_op *op;
	union wq_uring_buf buf;
	bool would_wait;
	struct kwq *q;
	long ret;

	if (wq_uring_cancelling(issue_flags)) {
		wq_park_cancel(ioucmd, issue_flags);
		return 0;
	}
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
	would_wait = wq_uring_try(h, op, &buf);
	ret = op->fn(h, q, &buf, NULL);
	if (ret == -EAGAIN && would_wait) {
		/* a done made (-EAGAIN is the get's): the parked one only gets */
		if (op->cmd == WQ_IOC_DONE_GET) {
			buf.done_get.prev = 0;
			buf.done_get.prev_len = 0;
		} else if (op->cmd == WQ_IOC_DONE_GET_BATCH) {
			buf.done_get_batch.done_keys = 0;
			buf.done_get_batch.n_done = 0;
			buf.done_get_batch.done_results = 0;
		}
		ret = wq_park(ioucmd, issue_flags, h, op, &buf);
		if (ret == -EIOCBQUEUED)
			return ret;
	}
out:
	return wq_uring_complete(ioucmd, ret, issue_flags);
}

/**
 * wq_uring_exit() - module unload: no command is parked (each holds its
 * file, which pins the module), and the watch is not left queued
 */
void wq_uring_exit(void)
{
#ifndef WQ_URING_CANCELABLE
	cancel_delayed_work_sync(&wq_uring_watcher);
#endif
}
