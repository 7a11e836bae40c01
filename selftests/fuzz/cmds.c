// SPDX-License-Identifier: GPL-2.0
/*
 * wq_fuzz: the commands of /dev/wq, the errors uapi/linux/wq.h documents
 * for each, the results seen, and the checks of what a call returned.
 */
#include "fuzz.h"

/*
 * The errors each command may return, from its kernel-doc in
 * uapi/linux/wq.h. Every command may also fail with -EINVAL (a size below
 * the struct's first version, flags, reserved and out fields, deadlines),
 * -EFAULT and -EBADF (not a handle, not bound, the wrong access, or an fd
 * another thread closed), and one that reads its struct (_IOC_WRITE) with
 * -E2BIG (a non-zero tail); nothing else. -ENOTTY is for numbers that are
 * no command (and for files other than /dev/wq).
 */
const struct cmdinfo cmds[] = {
#define C(c, s, last, ...)						\
	{ #c, c, sizeof(s), offsetof(s, last) + sizeof(((s *)0)->last),	\
	  { __VA_ARGS__ } }
	C(WQ_IOC_MODULE_INFO, struct wq_module_info, default_max_tracked, 0),
	C(WQ_IOC_CREATE, struct wq_create, limiter,
	  EBUSY, EACCES, EEXIST, ENOSPC, EDQUOT, ENOMEM),
	C(WQ_IOC_OPEN, struct wq_name, name, EBUSY, ENOENT, EACCES),
	C(WQ_IOC_DESTROY, struct wq_name, name, ENOENT, EACCES),
	C(WQ_IOC_LIST, struct wq_list, entries, ENOMEM),
	C(WQ_IOC_ADD, struct wq_add, delay_ns,
	  EAGAIN, ESHUTDOWN, ETIMEDOUT, EINTR, EDQUOT, ENOMEM),
	C(WQ_IOC_GET, struct wq_get, deadline_ns,
	  EAGAIN, ETIMEDOUT, EINTR, ESHUTDOWN, EMSGSIZE, ENOMEM),
	C(WQ_IOC_DONE, struct wq_key, value, ENOENT, ENOMEM),
	C(WQ_IOC_SHUTDOWN, struct wq_shutdown, deadline_ns,
	  ETIMEDOUT, ECANCELED, EINTR),
	C(WQ_IOC_STAT, struct wq_queue_info, evicted, 0),
	C(WQ_IOC_FORGET, struct wq_key, value, ENOMEM),
	C(WQ_IOC_NUM_REQUEUES, struct wq_key, value, ENOMEM),
	C(WQ_IOC_ADD_BATCH, struct wq_batch, deadline_ns, ENOMEM),
	C(WQ_IOC_GET_BATCH, struct wq_batch, deadline_ns,
	  EAGAIN, ETIMEDOUT, EINTR, ESHUTDOWN, EMSGSIZE, ENOMEM),
	C(WQ_IOC_DONE_BATCH, struct wq_batch, deadline_ns, ENOMEM),
	C(WQ_IOC_METRICS, struct wq_metrics_req, metrics, ENOMEM),
#undef C
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))
const unsigned int ncmds = NCMDS;

_Static_assert(NCMDS <= CMDS_MAX, "CMDS_MAX");

/* Each key's result of a batch (struct wq_batch): 0 or one of these. */
const int add_key_errs[] = {
	EINVAL, EFAULT, ENOMEM, ESHUTDOWN, EAGAIN, EDQUOT, 0
};
const int done_key_errs[] = { EINVAL, EFAULT, ENOENT, 0 };

/* An errno's name (EINVAL), for messages. */
const char *ename(int e)
{
	static __thread char buf[16];
	const char *name = strerrorname_np(e);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

int in_list(const int *l, int e)
{
	for (; *l; l++)
		if (*l == e)
			return 1;
	return 0;
}

/* The command a number is to /dev/wq (its nr and direction), or NULL. */
const struct cmdinfo *cmd_of(unsigned int cmd)
{
	unsigned int i;

	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC)
		return NULL;
	for (i = 0; i < NCMDS; i++)
		if (_IOC_NR(cmds[i].cmd) == _IOC_NR(cmd) &&
		    _IOC_DIR(cmds[i].cmd) == _IOC_DIR(cmd))
			return &cmds[i];
	return NULL;
}

/*
 * The types of the ioctls that fs/ioctl.c answers itself before the
 * driver is asked (FIOCLEX, FIONBIO, FIFREEZE, FS_IOC_GETFLAGS, FICLONE,
 * FIGETBSZ, FS_IOC_GETFSUUID, ...): what they return is not ours.
 */
static int vfs_type(unsigned int type)
{
	return type == 'T' || type == 'X' || type == 'f' || type == 0 ||
	       type == 0x94 || type == 0x15;
}

/* May ioctl(fd, cmd) fail with errno e? (FD_NULL: /dev/null.) */
int errno_ok(int fd, unsigned int cmd, int e)
{
	const struct cmdinfo *c = cmd_of(cmd);

	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC && vfs_type(_IOC_TYPE(cmd)))
		return 1;
	if (fd < 0 || fd == FD_NOT_OPEN)
		return e == EBADF;
	if (fd == FD_NULL)
		return e == ENOTTY;
	if (!c)		/* EBADF: another thread closed fd */
		return e == ENOTTY || e == EBADF;
	switch (e) {
	case EINVAL: case EFAULT: case EBADF:
		return 1;
	case E2BIG:
		return !!(_IOC_DIR(cmd) & _IOC_WRITE);
	}
	return in_list(c->errs, e);
}

/* May ioctl(fd, cmd) succeed? Not for what is no command of /dev/wq. */
int success_ok(int fd, unsigned int cmd)
{
	if (_IOC_TYPE(cmd) != WQ_IOC_MAGIC && vfs_type(_IOC_TYPE(cmd)))
		return 1;
	return fd >= 0 && fd != FD_NULL && fd != FD_NOT_OPEN && cmd_of(cmd);
}

/*
 * Count a result of command cmd for the summary (e: 0 for success), in
 * the live calls' table too if live.
 */
void seen(unsigned int cmd, int e, int live)
{
	const struct cmdinfo *c = cmd_of(cmd);
	unsigned int ci = c ? (unsigned int)(c - cmds) : NCMDS;

	if (e < 0 || e >= ERRNO_MAX)
		e = ERRNO_MAX - 1;
	__atomic_add_fetch(&sh->seen[ci][e], 1, __ATOMIC_RELAXED);
	if (live)
		__atomic_add_fetch(&sh->live[ci][e], 1, __ATOMIC_RELAXED);
}

/*
 * What says a call reached the queue: it succeeded, or the queue itself
 * refused it (full, empty, not processing, shut down, timed out, over a
 * quota, ...), rather than the call being malformed or the handle wrong.
 */
static int queue_reason(unsigned int e)
{
	static const int why[] = {
		EAGAIN, ENOENT, ESHUTDOWN, ETIMEDOUT, EINTR, EMSGSIZE,
		ECANCELED, EDQUOT, EEXIST, EBUSY, EACCES, ENOSPC, 0
	};

	return e == 0 || in_list(why, (int)e);
}

/* Of command ci's calls in table t: how many, how many reached the queue. */
static void reached(volatile uint64_t (*t)[ERRNO_MAX], unsigned int ci,
		    uint64_t *all, uint64_t *in)
{
	unsigned int e;

	*all = *in = 0;
	for (e = 0; e < ERRNO_MAX; e++) {
		*all += t[ci][e];
		if (queue_reason(e))
			*in += t[ci][e];
	}
}

/* One line a command: how often each result came, how many reached it. */
void print_seen(void)
{
	uint64_t all, in, lall, lin;
	unsigned int ci, e;

	for (ci = 0; ci <= NCMDS; ci++) {
		char line[1024];
		int len;

		len = snprintf(line, sizeof(line), "wq_fuzz: %s:",
			       ci < NCMDS ? cmds[ci].name + 7 : "(no command)");
		for (e = 0; e < ERRNO_MAX && len < (int)sizeof(line); e++) {
			if (sh->seen[ci][e])
				len += snprintf(line + len, sizeof(line) - (size_t)len,
						" %s %llu", e ? ename((int)e) : "ok",
						(unsigned long long)sh->seen[ci][e]);
		}
		reached(sh->seen, ci, &all, &in);
		reached(sh->live, ci, &lall, &lin);
		if (ci < NCMDS && all && len < (int)sizeof(line))
			snprintf(line + len, sizeof(line) - (size_t)len,
				 " (%llu%% reached the queue; of %llu live calls %llu%%, of %llu hostile %llu%%)",
				 (unsigned long long)(in * 100 / all),
				 (unsigned long long)lall,
				 (unsigned long long)(lall ? lin * 100 / lall : 0),
				 (unsigned long long)(all - lall),
				 (unsigned long long)(all > lall ?
					(in - lin) * 100 / (all - lall) : 0));
		puts(line);
	}
}

/*
 * The queue commands (those on a bound handle): did most of the calls of
 * each reach the queue? 1 if so (or too few calls to say), 0 if not.
 */
int check_reached(void)
{
	uint64_t all, in, sum_all = 0, sum_in = 0;
	unsigned int ci;
	int ok = 1;

	for (ci = 0; ci < NCMDS; ci++) {
		unsigned int c = cmds[ci].cmd;

		if (c == WQ_IOC_MODULE_INFO || c == WQ_IOC_CREATE ||
		    c == WQ_IOC_OPEN || c == WQ_IOC_DESTROY || c == WQ_IOC_LIST)
			continue;
		reached(sh->seen, ci, &all, &in);
		sum_all += all;
		sum_in += in;
		if (all >= 500 && in * 2 <= all) {
			printf("wq_fuzz: only %llu of %llu %s calls reached the queue\n",
			       (unsigned long long)in, (unsigned long long)all,
			       cmds[ci].name);
			ok = 0;
		}
	}
	printf("wq_fuzz: %llu of %llu calls of the queue commands reached the queue (%llu%%)\n",
	       (unsigned long long)sum_in, (unsigned long long)sum_all,
	       (unsigned long long)(sum_all ? sum_in * 100 / sum_all : 0));
	return ok || sum_all < 20000;
}

/* Returns the ioctl's result; *err its errno. */
long do_ioctl(int fd, unsigned int cmd, uint64_t arg, int blocking,
		     int *err)
{
	long r;

	if (blocking)
		timer_set(2000 + rn(8000), 5000);	/* EINTR within ms */
	r = ioctl(fd, cmd, (unsigned long)arg);
	*err = r < 0 ? errno : 0;
	if (blocking)
		timer_set(0, 0);
	return r;
}

void check_info(const struct wq_queue_info *i)
{
	if (i->queued > i->keys || i->processing > i->keys ||
	    i->waiting > i->keys || i->dirty > i->processing ||
	    (uint64_t)i->queued + i->processing > i->keys ||
	    i->keys > i->max_items || i->handles == 0 ||
	    memchr(i->name, 0, WQ_NAME_MAX) == NULL || i->reserved)
		fail("STAT %.64s: reserved %u queued %u processing %u waiting %u dirty %u keys %u max_items %u handles %u",
		     i->name, i->reserved, i->queued, i->processing, i->waiting, i->dirty,
		     i->keys, i->max_items, i->handles);
}

static void check_hist(const char *what, const struct wq_hist_info *h)
{
	uint32_t i;

	if (h->nbuckets == 0 || h->nbuckets > WQ_HIST_MAX || h->reserved) {
		fail("METRICS %s: nbuckets %u", what, h->nbuckets);
		return;
	}
	for (i = 1; i < h->nbuckets; i++)
		if (h->bucket[i] < h->bucket[i - 1] || h->le_ns[i] <= h->le_ns[i - 1])
			fail("METRICS %s: bucket %u not ascending", what, i);
	if (h->bucket[h->nbuckets - 1] != h->count ||
	    h->le_ns[h->nbuckets - 1] != ~0ULL)
		fail("METRICS %s: last bucket %llu != count %llu", what,
		     (unsigned long long)h->bucket[h->nbuckets - 1],
		     (unsigned long long)h->count);
}

void check_metrics(const struct wq_metrics_info *m)
{
	if ((int64_t)m->queued < 0 || m->depth < m->queued ||
	    (int64_t)m->processing < 0 || (int64_t)m->waiting < 0)
		fail("METRICS: depth %llu queued %llu processing %llu waiting %llu",
		     (unsigned long long)m->depth, (unsigned long long)m->queued,
		     (unsigned long long)m->processing,
		     (unsigned long long)m->waiting);
	check_hist("queue_duration", &m->queue_duration);
	check_hist("work_duration", &m->work_duration);
}

/*
 * A batch call that returned r (well formed, struct b as sent, at arg):
 * r within the count, and each key's result documented and agreeing with
 * r, where the results array is readable and clear of the struct and the
 * keys.
 */
void check_batch_results(unsigned int cmd, const struct wq_batch *b, long r,
			 uint64_t arg, uint32_t size)
{
	const char *name = cmd_of(cmd)->name;
	const int32_t *res = (const int32_t *)(uintptr_t)b->results;
	uint64_t rlen = (uint64_t)b->count * 4;
	uint32_t i, ok = 0;

	if ((uint64_t)r > b->count)
		fail("%s returned %ld > count %u", name, r, b->count);
	if (cmd == WQ_IOC_GET_BATCH || !b->results || b->count > WQ_BATCH_MAX ||
	    !in_arena(b->results, rlen) || !apart(b->results, rlen, arg, size) ||
	    !apart(b->results, rlen, b->keys,
		   (uint64_t)b->count * sizeof(struct wq_iov)))
		return;
	for (i = 0; i < b->count; i++) {
		if (res[i] == 0)
			ok++;
		else if (res[i] > 0 ||
			 !in_list(cmd == WQ_IOC_ADD_BATCH ? add_key_errs :
				  done_key_errs, -res[i]))
			fail("%s result[%u] = %d", name, i, res[i]);
	}
	if (ok != (uint64_t)r)
		fail("%s returned %ld, %u results 0", name, r, ok);
}
