// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libwq: the queue calls, each a thin wrapper around one /dev/wq ioctl.
 * Every function returns >= 0 or -errno (errno is left alone on success and
 * not used as the channel).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "wq.h"
#include "wq_internal.h"

/* A new handle of /dev/wq; oflags may add O_NONBLOCK. */
static int wq_open_device(int oflags)
{
	int saved = errno;
	int fd = open(WQ_DEV_PATH, O_RDWR | O_CLOEXEC | oflags);

	if (fd < 0) {
		fd = -errno;
		errno = saved;
	}
	return fd;
}

/* The ABI's counters are wider than the int that a call returns. */
static int wq_clamp_int(uint64_t n)
{
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* The name, zero-padded as the ABI wants it. */
static int wq_copy_name(char dst[WQ_NAME_MAX], const char *name)
{
	if (!name || !wq_name_valid(name))
		return -EINVAL;
	memset(dst, 0, WQ_NAME_MAX);
	memcpy(dst, name, strlen(name));
	return 0;
}

/* Runs a naming ioctl on a fresh /dev/wq fd; keeps the fd if asked. */
static int wq_named(unsigned long cmd, void *arg, int keep, int oflags)
{
	int fd, ret;

	fd = wq_open_device(oflags);
	if (fd < 0)
		return fd;
	ret = wq_ioctl(fd, cmd, arg);
	if (ret < 0 || !keep) {
		close(fd);
		return ret < 0 ? ret : 0;
	}
	return fd;
}

/* CREATE of a named queue, or of a private one (name NULL). */
static int wq_create_call(const char *name, const struct wq_attr *attr)
{
	struct wq_create c;
	const char *spec = attr && attr->limiter ? attr->limiter : "default";
	int ret;

	memset(&c, 0, sizeof(c));
	if (name) {
		ret = wq_copy_name(c.name, name);
		if (ret)
			return ret;
	} else {
		c.flags = WQ_CREATE_PRIVATE;
	}
	ret = wq_limiter_parse(spec, &c.limiter);
	if (ret)
		return ret;
	if (attr) {
		if ((uint32_t)attr->mode & ~07777U ||
		    (attr->priority != 0 && attr->priority != 1) ||
		    (attr->starve_ns && !attr->priority))
			return -EINVAL;
		c.max_items = attr->max_items;
		c.mode = (uint32_t)attr->mode;
		if (attr->priority)
			c.flags |= WQ_CREATE_PRIORITY;
		c.starve_ns = attr->starve_ns;
	}
	/*
	 * A module without priority queues refuses the flag (-EINVAL), or
	 * starve_ns, a field it does not know (-E2BIG: wq_ioctl() says
	 * -EINVAL).
	 */
	return wq_named(WQ_IOC_CREATE, &c, 1, 0);
}

/*
 * wq_create() and wq_create_private() of struct wq_attr with priority and
 * starve_ns (compat.c: without, libwq 1.0 and 1.2)
 */
int wq_create_1_3(const char *name, const struct wq_attr *attr);
int wq_create_private_1_3(const struct wq_attr *attr);
_Static_assert(__builtin_types_compatible_p(__typeof__(wq_create),
					    __typeof__(wq_create_1_3)) &&
	       __builtin_types_compatible_p(__typeof__(wq_create_private),
					    __typeof__(wq_create_private_1_3)),
	       "wq_create_1_3 and wq_create_private_1_3 are the calls of wq.h");

int wq_create_1_3(const char *name, const struct wq_attr *attr)
{
	return name ? wq_create_call(name, attr) : -EINVAL;
}
WQ_SYMVER_DEFAULT(wq_create, wq_create_1_3, "1.3");

int wq_create_private_1_3(const struct wq_attr *attr)
{
	return wq_create_call(NULL, attr);
}
WQ_SYMVER_DEFAULT(wq_create_private, wq_create_private_1_3, "1.3");

/* OPEN and DESTROY: a struct wq_name is all they take. */
static int wq_by_name(unsigned long cmd, const char *name, uint32_t flags,
		      int keep, int oflags)
{
	struct wq_name n;
	int ret;

	memset(&n, 0, sizeof(n));
	n.flags = flags;
	ret = wq_copy_name(n.name, name);
	return ret ? ret : wq_named(cmd, &n, keep, oflags);
}

int wq_open(const char *name)
{
	return wq_open_flags(name, O_RDWR);
}

int wq_open_flags(const char *name, int flags)
{
	uint32_t access;

	if (flags & ~(O_ACCMODE | O_NONBLOCK))
		return -EINVAL;
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		access = WQ_OPEN_READ_ONLY;
		break;
	case O_WRONLY:
		access = WQ_OPEN_WRITE_ONLY;
		break;
	case O_RDWR:
		access = 0;
		break;
	default:
		return -EINVAL;
	}
	return wq_by_name(WQ_IOC_OPEN, name, access, 1, flags & O_NONBLOCK);
}

int wq_destroy(const char *name)
{
	return wq_by_name(WQ_IOC_DESTROY, name, 0, 0, 0);
}

int wq_close(int fd)
{
	struct wq_queue_info info;
	int ret;

	/* Only close what is a queue handle: never someone else's fd. */
	ret = wq_ioctl(fd, WQ_IOC_STAT, &info);
	if (ret < 0)
		return ret;
	return close(fd) ? -errno : 0;
}

/*
 * DONE, FORGET and NUM_REQUEUES take a struct wq_key: flags, the key, and
 * a value out (the failure count; 0 for the others).
 */
static int wq_key_call(int fd, unsigned long cmd, const void *key, size_t len,
		       uint64_t *out)
{
	struct wq_key k;
	int ret = wq_key_arg(&k, key, len);

	if (!ret)
		ret = wq_ioctl(fd, cmd, &k);
	if (ret < 0)
		return ret;
	if (out)
		*out = k.value;
	return 0;
}

/*
 * Every add is one WQ_IOC_ADD: a delay in (AddAfter; 0 with
 * RATE_LIMITED), the delay used out, and with WQ_ADD_WAIT a deadline for
 * room, with WQ_ADD_PRIORITY the priority. The whole struct goes in; a
 * module that knows only its first version accepts it, since the deadline
 * is 0 unless WQ_ADD_WAIT is asked (and the priority was a reserved field:
 * a module without priority queues refuses the flag, -EINVAL).
 */
static int wq_add_prio(int fd, uint32_t flags, const void *key, size_t len,
		       uint64_t delay_ns, uint64_t deadline_ns, int32_t priority,
		       uint64_t *out)
{
	struct wq_add a;
	int ret;

	if (!wq_key_len_valid(len))
		return -EINVAL;
	memset(&a, 0, sizeof(a));
	a.flags = flags;
	a.key_len = (uint32_t)len;
	a.key = (uintptr_t)key;
	a.delay_ns = delay_ns;
	a.deadline_ns = deadline_ns;
	a.priority = priority;
	ret = wq_ioctl(fd, WQ_IOC_ADD, &a);
	if (ret < 0)
		return ret;
	if (out)
		*out = a.delay_ns;
	return (int)a.outcome;	/* WQ_ADDED_*: 0 from an older module */
}

static int wq_add_call(int fd, uint32_t flags, const void *key, size_t len,
		       uint64_t delay_ns, uint64_t deadline_ns, uint64_t *out)
{
	return wq_add_prio(fd, flags, key, len, delay_ns, deadline_ns, 0, out);
}

/* The calls of client-go's names return 0, not what the add did. */
static int wq_zero(int ret)
{
	return ret < 0 ? ret : 0;
}

int wq_add(int fd, const void *key, size_t len)
{
	return wq_zero(wq_add_call(fd, 0, key, len, 0, 0, NULL));
}

int wq_add_after(int fd, const void *key, size_t len, uint64_t delay_ns)
{
	/* an AddAfter, also of 0: it counts in retries_total (client-go) */
	return wq_zero(wq_add_call(fd, WQ_ADD_AFTER, key, len, delay_ns, 0,
				   NULL));
}

int wq_add_rate_limited(int fd, const void *key, size_t len,
			uint64_t *delay_ns)
{
	return wq_zero(wq_add_call(fd, WQ_ADD_RATE_LIMITED, key, len, 0, 0,
				   delay_ns));
}

/* timeout_ms 0 never waits: a plain add, -EAGAIN when full (as wq_get). */
int wq_add_wait(int fd, const void *key, size_t len, int timeout_ms)
{
	if (timeout_ms == 0)
		return wq_add(fd, key, len);
	return wq_zero(wq_add_call(fd, WQ_ADD_WAIT, key, len, 0,
				   wq_deadline_ms(timeout_ms), NULL));
}

/* The WQ_ADD_* flags an add of wq_add_opts() may carry. */
#define WQ_ADD_OPTS_FLAGS	\
	(WQ_ADD_RATE_LIMITED | WQ_ADD_AFTER | WQ_ADD_WAIT | WQ_ADD_PRIORITY)

int wq_add_opts_delay(int fd, const void *key, size_t len,
		      const struct wq_add_opts *o, uint64_t *delay_ns)
{
	uint32_t flags;
	uint64_t deadline = 0;

	if (!o)
		return wq_add_call(fd, 0, key, len, 0, 0, delay_ns);
	flags = o->flags;
	if (flags & ~WQ_ADD_OPTS_FLAGS ||
	    (!(flags & WQ_ADD_PRIORITY) && o->priority) ||
	    (!(flags & WQ_ADD_AFTER) && o->delay_ns) ||
	    (!(flags & WQ_ADD_WAIT) && o->timeout_ms))
		return -EINVAL;
	if (flags & WQ_ADD_WAIT) {
		if (o->timeout_ms == 0)
			flags &= ~WQ_ADD_WAIT;	/* as wq_add_wait */
		else
			deadline = wq_deadline_ms(o->timeout_ms);
	}
	/* RATE_LIMITED with AFTER: the shorter, on a priority queue */
	return wq_add_prio(fd, flags, key, len,
			   (flags & WQ_ADD_AFTER) ? o->delay_ns : 0, deadline,
			   o->priority, delay_ns);
}

int wq_add_opts(int fd, const void *key, size_t len,
		const struct wq_add_opts *o)
{
	return wq_add_opts_delay(fd, key, len, o, NULL);
}

/* A GET of buf[0..cap) with timeout_ms (its deadline from now) and flags. */
void wq_get_prep(struct wq_get *g, void *buf, size_t cap, int timeout_ms,
		 uint32_t flags)
{
	memset(g, 0, sizeof(*g));
	g->flags = flags;
	g->buf = (uintptr_t)buf;
	g->buf_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
	if (timeout_ms == 0)
		g->flags |= WQ_GET_NONBLOCK;
	else
		g->deadline_ns = wq_deadline_ms(timeout_ms);
}

ssize_t wq_get_call(int fd, void *buf, size_t cap, int timeout_ms,
		    uint32_t flags, int *priority)
{
	struct wq_get g;
	int ret;

	wq_get_prep(&g, buf, cap, timeout_ms, flags);
	ret = wq_ioctl(fd, WQ_IOC_GET, &g);
	/* written by a priority queue only; an older module leaves the 0 */
	if (ret > 0 && priority)
		*priority = g.priority;
	return ret;
}

ssize_t wq_get(int fd, void *buf, size_t cap, int timeout_ms)
{
	return wq_get_call(fd, buf, cap, timeout_ms, 0, NULL);
}

ssize_t wq_get_detached(int fd, void *buf, size_t cap, int timeout_ms)
{
	return wq_get_call(fd, buf, cap, timeout_ms, WQ_GET_DETACH, NULL);
}

ssize_t wq_get_priority(int fd, void *buf, size_t cap, int timeout_ms,
			int *priority)
{
	return wq_get_call(fd, buf, cap, timeout_ms, 0, priority);
}

int wq_done(int fd, const void *key, size_t len)
{
	return wq_key_call(fd, WQ_IOC_DONE, key, len, NULL);
}

int wq_forget(int fd, const void *key, size_t len)
{
	return wq_key_call(fd, WQ_IOC_FORGET, key, len, NULL);
}

int wq_num_requeues(int fd, const void *key, size_t len)
{
	uint64_t n = 0;
	int ret = wq_key_call(fd, WQ_IOC_NUM_REQUEUES, key, len, &n);

	return ret ? ret : wq_clamp_int(n);
}

static int wq_info(int fd, struct wq_queue_info *info)
{
	memset(info, 0, sizeof(*info));
	return wq_ioctl(fd, WQ_IOC_STAT, info);
}

int wq_len(int fd)
{
	struct wq_queue_info info;
	int ret = wq_info(fd, &info);

	return ret < 0 ? ret : wq_clamp_int(info.queued);
}

int wq_shutting_down(int fd)
{
	struct wq_queue_info info;
	int ret = wq_info(fd, &info);

	return ret < 0 ? ret : !!(info.state & WQ_STATE_SHUTTING_DOWN);
}

/* SHUTDOWN: 0, or with WQ_SHUTDOWN_DISCARD the number of keys dropped. */
static int wq_shutdown_ex(int fd, uint32_t flags, uint64_t deadline_ns)
{
	struct wq_shutdown s;
	int ret;

	memset(&s, 0, sizeof(s));
	s.flags = flags;
	s.deadline_ns = deadline_ns;
	ret = wq_ioctl(fd, WQ_IOC_SHUTDOWN, &s);
	return ret < 0 || (flags & WQ_SHUTDOWN_DISCARD) ? ret : 0;
}

int wq_shutdown(int fd)
{
	return wq_shutdown_ex(fd, 0, 0);
}

int wq_shutdown_with_drain(int fd, int timeout_ms)
{
	return wq_shutdown_ex(fd, WQ_SHUTDOWN_DRAIN, wq_deadline_ms(timeout_ms));
}

int wq_shutdown_discard(int fd)
{
	return wq_shutdown_ex(fd, WQ_SHUTDOWN_DISCARD, 0);
}

/* The fields of struct wq_stats that are the ABI's, under the same name. */
#define WQ_STATS_AS_IS(X)						\
	X(queued) X(processing) X(waiting) X(dirty) X(keys) X(tracked)	\
	X(max_tracked) X(evicted) X(max_items) X(handles) X(uid) X(gid)	\
	X(mode) X(adds) X(retries) X(id)

static void wq_stats_from_info(struct wq_stats *st,
			       const struct wq_queue_info *info)
{
	memset(st, 0, sizeof(*st));
	memcpy(st->name, info->name, WQ_NAME_MAX);
	st->name[WQ_NAME_MAX - 1] = '\0';
	wq_limiter_format(&info->limiter, st->limiter, sizeof(st->limiter));
#define WQ_COPY(field)	st->field = info->field;
	WQ_STATS_AS_IS(WQ_COPY)
#undef WQ_COPY
	st->shutting_down = !!(info->state & WQ_STATE_SHUTTING_DOWN);
	st->draining = !!(info->state & WQ_STATE_DRAINING);
	st->unlinked = !!(info->state & WQ_STATE_UNLINKED);
	st->priority = !!(info->state & WQ_STATE_PRIORITY);
}

/*
 * wq_stat() and wq_list() of struct wq_stats with id and priority
 * (compat.c: without)
 */
int wq_stat_1_3(int fd, struct wq_stats *st);
int wq_list_1_3(struct wq_stats *st, size_t cap);
_Static_assert(__builtin_types_compatible_p(__typeof__(wq_stat),
					    __typeof__(wq_stat_1_3)) &&
	       __builtin_types_compatible_p(__typeof__(wq_list),
					    __typeof__(wq_list_1_3)),
	       "wq_stat_1_3 and wq_list_1_3 are wq_stat and wq_list");

int wq_stat_1_3(int fd, struct wq_stats *st)
{
	struct wq_queue_info info;
	int ret;

	if (!st)
		return -EFAULT;
	ret = wq_info(fd, &info);
	if (ret < 0)
		return ret;
	wq_stats_from_info(st, &info);
	return 0;
}
WQ_SYMVER_DEFAULT(wq_stat, wq_stat_1_3, "1.3");

/*
 * struct wq_metrics is the uapi's struct wq_metrics_info, field for field:
 * the kernel writes it directly. Its first version ended at nr_levels.
 */
_Static_assert(sizeof(struct wq_metrics) == sizeof(struct wq_metrics_info),
	       "struct wq_metrics is not struct wq_metrics_info");
_Static_assert(offsetof(struct wq_metrics, discarded_total) ==
	       offsetof(struct wq_metrics_info, discarded_total),
	       "struct wq_metrics is not struct wq_metrics_info");
_Static_assert(offsetof(struct wq_metrics, work_duration.bucket) ==
	       offsetof(struct wq_metrics_info, work_duration.bucket),
	       "struct wq_histogram is not struct wq_hist_info");
_Static_assert(offsetof(struct wq_metrics, nr_levels) ==
	       WQ_METRICS_INFO_SIZE_VER0 &&
	       offsetof(struct wq_metrics, levels[1].depth) ==
	       offsetof(struct wq_metrics_info, levels[1].depth) &&
	       sizeof(struct wq_level) == sizeof(struct wq_level_info),
	       "struct wq_level is not struct wq_level_info");

/* wq_metrics() of struct wq_metrics with levels (compat.c: without) */
int wq_metrics_1_3(int fd, struct wq_metrics *m);
_Static_assert(__builtin_types_compatible_p(__typeof__(wq_metrics),
					    __typeof__(wq_metrics_1_3)),
	       "wq_metrics_1_3 is wq_metrics");

int wq_metrics_1_3(int fd, struct wq_metrics *m)
{
	struct wq_metrics_req r;

	if (!m)
		return -EFAULT;
	memset(&r, 0, sizeof(r));
	r.size = sizeof(*m);	/* an older module zeroes what it lacks */
	r.metrics = (uintptr_t)m;
	return wq_ioctl(fd, WQ_IOC_METRICS, &r);
}
WQ_SYMVER_DEFAULT(wq_metrics, wq_metrics_1_3, "1.3");

int wq_list_1_3(struct wq_stats *st, size_t cap)
{
	struct wq_queue_info *infos = NULL;
	struct wq_list l;
	int fd, ret;

	if (cap && !st)
		return -EFAULT;
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	if (cap) {
		infos = calloc(cap, sizeof(*infos));
		if (!infos)
			return -ENOMEM;
	}
	memset(&l, 0, sizeof(l));
	l.entry_size = sizeof(*infos);
	l.count = (uint32_t)cap;
	l.entries = (uintptr_t)infos;

	fd = wq_open_device(0);
	if (fd < 0) {
		free(infos);
		return fd;
	}
	ret = wq_ioctl(fd, WQ_IOC_LIST, &l);
	close(fd);
	if (ret >= 0) {
		for (uint32_t i = 0; i < l.count; i++)
			wq_stats_from_info(&st[i], &infos[i]);
		ret = wq_clamp_int(l.total);
	}
	free(infos);
	return ret;
}
WQ_SYMVER_DEFAULT(wq_list, wq_list_1_3, "1.3");
