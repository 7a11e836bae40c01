// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What binaries built against an older libwq.so.1 get: the functions
 * whose structs grew since, with the old layout, under their old symbol
 * versions (libwq.map): wq_stat and wq_list (struct wq_stats, 1.1 and
 * 1.3), wq_create and wq_create_private (struct wq_attr, 1.3), wq_metrics
 * (struct wq_metrics, 1.3), wq_pool_start (struct wq_pool_attr, 1.5). A binary built against this header binds to
 * the new versions; one built against the old header keeps working.
 */
#include <stdlib.h>
#include <string.h>

#include "wq.h"
#include "wq_internal.h"

/*
 * libwq 1.0's struct wq_stats: the current one up to id; 1.1's (to 1.2):
 * up to priority. Neither had tail padding.
 */
#define WQ_STATS_SIZE_1_0	offsetof(struct wq_stats, id)
#define WQ_STATS_SIZE_1_1	offsetof(struct wq_stats, priority)
_Static_assert(WQ_STATS_SIZE_1_0 % _Alignof(struct wq_stats) == 0 &&
	       WQ_STATS_SIZE_1_1 % _Alignof(struct wq_stats) == 0,
	       "libwq 1.0's and 1.1's struct wq_stats had no tail padding");

/* wq_stat() into the first size bytes of an older struct wq_stats */
static int wq_stat_old(int fd, void *st, size_t size)
{
	struct wq_stats cur;
	int ret;

	if (!st)
		return -EFAULT;
	ret = wq_stat(fd, &cur);
	if (ret == 0)
		memcpy(st, &cur, size);
	return ret;
}

/* wq_list() into an array of older struct wq_stats, size bytes each */
static int wq_list_old(void *st, size_t cap, size_t size)
{
	struct wq_stats *cur = NULL;
	int ret;

	if (cap && !st)
		return -EFAULT;
	if (cap) {
		cur = calloc(cap, sizeof(*cur));
		if (!cur)
			return -ENOMEM;
	}
	ret = wq_list(cur, cap);
	for (size_t i = 0; ret > 0 && i < cap && i < (size_t)ret; i++)
		memcpy((char *)st + i * size, &cur[i], size);
	free(cur);
	return ret;
}

int wq_stat_1_0(int fd, void *st);
int wq_list_1_0(void *st, size_t cap);
int wq_stat_1_1(int fd, void *st);
int wq_list_1_1(void *st, size_t cap);

int wq_stat_1_0(int fd, void *st)
{
	return wq_stat_old(fd, st, WQ_STATS_SIZE_1_0);
}
WQ_SYMVER_COMPAT(wq_stat, wq_stat_1_0, "1.0");

int wq_list_1_0(void *st, size_t cap)
{
	return wq_list_old(st, cap, WQ_STATS_SIZE_1_0);
}
WQ_SYMVER_COMPAT(wq_list, wq_list_1_0, "1.0");

int wq_stat_1_1(int fd, void *st)
{
	return wq_stat_old(fd, st, WQ_STATS_SIZE_1_1);
}
WQ_SYMVER_COMPAT(wq_stat, wq_stat_1_1, "1.1");

int wq_list_1_1(void *st, size_t cap)
{
	return wq_list_old(st, cap, WQ_STATS_SIZE_1_1);
}
WQ_SYMVER_COMPAT(wq_list, wq_list_1_1, "1.1");

/* libwq 1.0's struct wq_attr (up to 1.2): the current one up to priority */
struct wq_attr_1_0 {
	const char *limiter;
	uint32_t max_items;
	mode_t mode;
};
_Static_assert(offsetof(struct wq_attr, priority) ==
	       sizeof(struct wq_attr_1_0),
	       "struct wq_attr grew at its end");

/* The current attributes of an old struct: no priority, no starving. */
static const struct wq_attr *wq_attr_from_1_0(struct wq_attr *cur,
					      const struct wq_attr_1_0 *old)
{
	if (!old)
		return NULL;
	memset(cur, 0, sizeof(*cur));
	cur->limiter = old->limiter;
	cur->max_items = old->max_items;
	cur->mode = old->mode;
	return cur;
}

int wq_create_1_0(const char *name, const struct wq_attr_1_0 *attr);
int wq_create_private_1_2(const struct wq_attr_1_0 *attr);

int wq_create_1_0(const char *name, const struct wq_attr_1_0 *attr)
{
	struct wq_attr cur;

	return wq_create(name, wq_attr_from_1_0(&cur, attr));
}
WQ_SYMVER_COMPAT(wq_create, wq_create_1_0, "1.0");

int wq_create_private_1_2(const struct wq_attr_1_0 *attr)
{
	struct wq_attr cur;

	return wq_create_private(wq_attr_from_1_0(&cur, attr));
}
WQ_SYMVER_COMPAT(wq_create_private, wq_create_private_1_2, "1.2");

/*
 * libwq 1.0's struct wq_metrics (up to 1.2) is the ABI's first
 * struct wq_metrics_info: the module writes that many bytes.
 */
int wq_metrics_1_0(int fd, void *m);

int wq_metrics_1_0(int fd, void *m)
{
	struct wq_metrics_req r;

	if (!m)
		return -EFAULT;
	memset(&r, 0, sizeof(r));
	r.size = WQ_METRICS_INFO_SIZE_VER0;
	r.metrics = (uintptr_t)m;
	return wq_ioctl(fd, WQ_IOC_METRICS, &r);
}
WQ_SYMVER_COMPAT(wq_metrics, wq_metrics_1_0, "1.0");

/* libwq 1.0's struct wq_pool_attr (up to 1.4): the current one up to flags */
struct wq_pool_attr_1_0 {
	unsigned int workers;
	int max_retries;
	void (*give_up)(const void *key, size_t len, int err, void *arg);
	void *arg;
};
_Static_assert(offsetof(struct wq_pool_attr, flags) ==
	       sizeof(struct wq_pool_attr_1_0),
	       "struct wq_pool_attr grew at its end");

int wq_pool_start_1_0(int fd, wq_handler_fn handler,
		      const struct wq_pool_attr_1_0 *attr,
		      struct wq_pool **pool);

/* The current attributes of an old struct: no flags (the ioctls). */
int wq_pool_start_1_0(int fd, wq_handler_fn handler,
		      const struct wq_pool_attr_1_0 *attr,
		      struct wq_pool **pool)
{
	struct wq_pool_attr cur;

	if (!attr)
		return wq_pool_start(fd, handler, NULL, pool);
	memset(&cur, 0, sizeof(cur));
	cur.workers = attr->workers;
	cur.max_retries = attr->max_retries;
	cur.give_up = attr->give_up;
	cur.arg = attr->arg;
	return wq_pool_start(fd, handler, &cur, pool);
}
WQ_SYMVER_COMPAT(wq_pool_start, wq_pool_start_1_0, "1.0");
