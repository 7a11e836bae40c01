// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What binaries built against an older libwq.so.1 get: the functions
 * whose structs grew since, with the old layout, under their old symbol
 * versions (libwq.map). A binary built against this header binds to the
 * new versions; one built against the old header keeps working.
 */
#include <stdlib.h>
#include <string.h>

#include "wq.h"
#include "wq_internal.h"

/* libwq 1.0's struct wq_stats: the current one up to id */
#define WQ_STATS_SIZE_1_0	offsetof(struct wq_stats, id)
_Static_assert(WQ_STATS_SIZE_1_0 % _Alignof(struct wq_stats) == 0,
	       "libwq 1.0's struct wq_stats had no tail padding");

int wq_stat_1_0(int fd, void *st);
int wq_list_1_0(void *st, size_t cap);

int wq_stat_1_0(int fd, void *st)
{
	struct wq_stats cur;
	int ret;

	if (!st)
		return -EFAULT;
	ret = wq_stat(fd, &cur);
	if (ret == 0)
		memcpy(st, &cur, WQ_STATS_SIZE_1_0);
	return ret;
}
WQ_SYMVER_COMPAT(wq_stat, wq_stat_1_0, "1.0");

int wq_list_1_0(void *st, size_t cap)
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
		memcpy((char *)st + i * WQ_STATS_SIZE_1_0, &cur[i],
		       WQ_STATS_SIZE_1_0);
	free(cur);
	return ret;
}
WQ_SYMVER_COMPAT(wq_list, wq_list_1_0, "1.0");
