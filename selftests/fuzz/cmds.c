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
	C(WQ_IOC_KEY_STATE, struct wq_key_info, reserved, ENOMEM),
	C(WQ_IOC_CANCEL_AFTER, struct wq_key, value, ENOMEM),
	C(WQ_IOC_DONE_GET, struct wq_done_get, reserved,
	  ENOENT, EAGAIN, ETIMEDOUT, EINTR, ESHUTDOWN, EMSGSIZE, ENOMEM),
	C(WQ_IOC_DONE_GET_BATCH, struct wq_done_get_batch, done_results,
	  EAGAIN, ETIMEDOUT, EINTR, ESHUTDOWN, EMSGSIZE, ENOMEM),
	C(WQ_IOC_URING_CANCEL, struct wq_uring_cancel, addr, 0),
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

/*
 * The priorities an add may give key "k<n>" of the pool, by its group of
 * four: k0..k7 none but 0, k8..k11 and k12..k15 two sets that share only
 * 0. Every add of a pool key, live or hostile, gives one of its set (0 is
 * also an add without WQ_ADD_PRIORITY, and what a plain queue reports), so
 * a pool key handed out or looked at with any other priority, on any
 * queue and whatever the other workers do, is the kernel's bug.
 */
static const int32_t prios_none[] = { 0 };
static const int32_t prios_a[] = { 0, 1, 2, -5, 1000, INT32_MAX };
static const int32_t prios_b[] = { 0, 3, -1, -1000000, INT32_MIN,
				   INT32_MAX - 1 };

static const int32_t *key_prios(uint32_t n, uint32_t *count)
{
	if (n < 8) {
		*count = 1;
		return prios_none;
	}
	*count = 6;
	return n < 12 ? prios_a : prios_b;
}

/* One of the priorities key "k<n>" may be given. */
int32_t prio_of(uint32_t n)
{
	uint32_t count;
	const int32_t *set = key_prios(n, &count);

	return set[rn(count)];
}

/* The n of a key "k<n>" of the pool (as live calls write it), or -1. */
int pool_index(const void *key, uint64_t len)
{
	const char *k = key;
	uint32_t n = 0;
	uint64_t i;

	if (len < 2 || len > 3 || k[0] != 'k' || (len == 3 && k[1] == '0'))
		return -1;
	for (i = 1; i < len; i++) {
		if (k[i] < '0' || k[i] > '9')
			return -1;
		n = n * 10 + (uint32_t)(k[i] - '0');
	}
	return n < NKEYS ? (int)n : -1;
}

/* A key handed out or looked at with prio: one that its adds give it. */
void check_key_prio(const char *what, const void *key, uint64_t len,
		    int32_t prio)
{
	int n = pool_index(key, len);
	uint32_t count, i;
	const int32_t *set;

	if (n < 0)
		return;
	set = key_prios((uint32_t)n, &count);
	for (i = 0; i < count; i++)
		if (set[i] == prio)
			return;
	fail("%s: key k%d with priority %d, which no add gives it", what, n,
	     prio);
}

/*
 * What KEY_STATE wrote (ks) for the struct sent (in): the input fields
 * as they were, the state's bits and the other outputs agreeing with them
 * (one look under the queue's lock), a pool key's priority one of its set.
 */
void check_key_info(const struct wq_key_info *ks, const struct wq_key_info *in)
{
	uint32_t held = WQ_KEY_QUEUED | WQ_KEY_PROCESSING | WQ_KEY_WAITING;

	if (ks->flags != in->flags || ks->key_len != in->key_len ||
	    ks->key != in->key || ks->reserved ||
	    (ks->state & ~0x1fU) ||
	    ((ks->state & WQ_KEY_DIRTY) && !(ks->state & WQ_KEY_PROCESSING)) ||
	    ((ks->state & WQ_KEY_QUEUED) && (ks->state & WQ_KEY_PROCESSING)) ||
	    !(ks->state & WQ_KEY_WAITING) != !ks->ready_ns ||
	    !(ks->state & WQ_KEY_TRACKED) != !ks->requeues ||
	    (!(ks->state & held) && ks->priority))
		fail("KEY_STATE: state %#x priority %d ready_ns %llu requeues %u reserved %u",
		     ks->state, ks->priority, (unsigned long long)ks->ready_ns,
		     ks->requeues, ks->reserved);
}

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
int queue_reason(unsigned int e)
{
	static const int why[] = {
		EAGAIN, ENOENT, ESHUTDOWN, ETIMEDOUT, EINTR, EMSGSIZE,
		ECANCELED, EDQUOT, EEXIST, EBUSY, EACCES, ENOSPC, 0
	};

	return e == 0 || in_list(why, (int)e);
}

/*
 * Of row ci's calls in table t (a command's, or uring.c's): how many, how
 * many reached the queue.
 */
void reached(volatile uint64_t (*t)[ERRNO_MAX], unsigned int ci,
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

/*
 * One line of @title for row @r of @seen (@live: its live calls): how
 * often each result came and, if @share, how many reached the queue.
 */
void print_row(const char *title, volatile uint64_t (*seen)[ERRNO_MAX],
	       volatile uint64_t (*live)[ERRNO_MAX], unsigned int r, bool share)
{
	uint64_t all, in, lall, lin;
	char line[1024];
	unsigned int e;
	int len;

	len = snprintf(line, sizeof(line), "wq_fuzz: %s:", title);
	for (e = 0; e < ERRNO_MAX && len < (int)sizeof(line); e++) {
		if (seen[r][e])
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					" %s %llu", e ? ename((int)e) : "ok",
					(unsigned long long)seen[r][e]);
	}
	reached(seen, r, &all, &in);
	reached(live, r, &lall, &lin);
	if (share && all && len < (int)sizeof(line))
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

/* One line a command: how often each result came, how many reached it. */
void print_seen(void)
{
	unsigned int ci;

	for (ci = 0; ci <= NCMDS; ci++)
		print_row(ci < NCMDS ? cmds[ci].name + 7 : "(no command)",
			  sh->seen, sh->live, ci, ci < NCMDS);
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
 * GET_BATCH's three outputs (the keys' places, the keys, their
 * priorities) and the struct share no byte, and are all in the arena:
 * what they say can be read back.
 */
static int get_batch_readable(const struct wq_batch *b, uint64_t arg,
			      uint32_t size)
{
	uint64_t klen = (uint64_t)b->count * sizeof(struct wq_iov);
	uint64_t rlen = (uint64_t)b->count * 4;

	return b->count <= WQ_BATCH_MAX && b->buf_cap <= 16 * PAGE &&
	       in_arena(b->keys, klen) && in_arena(b->results, rlen) &&
	       in_arena(b->buf, b->buf_cap) &&
	       apart(b->keys, klen, b->results, rlen) &&
	       apart(b->keys, klen, b->buf, b->buf_cap) &&
	       apart(b->results, rlen, b->buf, b->buf_cap) &&
	       apart(arg, size, b->keys, klen) &&
	       apart(arg, size, b->results, rlen) &&
	       apart(arg, size, b->buf, b->buf_cap);
}

/* The keys GET_BATCH took (r) and their priorities: ones adds give them. */
static void check_get_batch_prios(const struct wq_batch *b, long r)
{
	const struct wq_iov *iov = (const void *)(uintptr_t)b->keys;
	const int32_t *prio = (const int32_t *)(uintptr_t)b->results;
	long i;

	for (i = 0; i < r && i < (long)b->count; i++)
		if (in_arena(iov[i].base, iov[i].len) &&
		    apart(iov[i].base, iov[i].len, b->results,
			  (uint64_t)b->count * 4))
			check_key_prio("GET_BATCH",
				       (const void *)(uintptr_t)iov[i].base,
				       iov[i].len, prio[i]);
}

/*
 * A batch call that returned r (well formed, struct b as sent, at arg):
 * r within the count, and each key's result documented and agreeing with
 * r (with WQ_ADD_OUTCOME an added key's is what its add did: an add as
 * WQ_IOC_ADD without flags queues, coalesces or marks dirty), where the
 * results array is readable and clear of the struct and the keys; GET's
 * results are the keys' priorities.
 */
void check_batch_results(unsigned int cmd, const struct wq_batch *b, long r,
			 uint64_t arg, uint32_t size)
{
	const char *name = cmd_of(cmd)->name;
	const int32_t *res = (const int32_t *)(uintptr_t)b->results;
	uint64_t rlen = (uint64_t)b->count * 4;
	int32_t most = cmd == WQ_IOC_ADD_BATCH && (b->flags & WQ_ADD_OUTCOME) ?
		       WQ_ADDED_DIRTY : 0;
	uint32_t i, ok = 0;

	if ((uint64_t)r > b->count)
		fail("%s returned %ld > count %u", name, r, b->count);
	if (cmd == WQ_IOC_GET_BATCH) {
		if (r > 0 && get_batch_readable(b, arg, size))
			check_get_batch_prios(b, r);
		return;
	}
	if (!b->results || b->count > WQ_BATCH_MAX ||
	    !in_arena(b->results, rlen) || !apart(b->results, rlen, arg, size) ||
	    !apart(b->results, rlen, b->keys,
		   (uint64_t)b->count * sizeof(struct wq_iov)))
		return;
	for (i = 0; i < b->count; i++) {
		if (res[i] >= 0 && res[i] <= most)
			ok++;
		else if (res[i] > 0 ||
			 !in_list(cmd == WQ_IOC_ADD_BATCH ? add_key_errs :
				  done_key_errs, -res[i]))
			fail("%s result[%u] = %d", name, i, res[i]);
	}
	if (ok != (uint64_t)r)
		fail("%s returned %ld, %u results of success", name, r, ok);
}
