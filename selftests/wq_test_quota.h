/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quotas (doc/security.md): what quota_test.c and quota_limits_test.c
 * share. The tests run as root, set the module's quota parameters (the
 * fixture quota puts them back), and fork children that drop to other
 * uids (losing every capability). A child returns 0, or the line of the
 * first check that failed (printed too).
 */
#ifndef WQ_TEST_QUOTA_H
#define WQ_TEST_QUOTA_H

#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

FIXTURE(quota) {
	unsigned long max_queues, max_bytes, global_max;
	unsigned long items_default, items_limit;
};

FIXTURE_SETUP(quota)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (geteuid() != 0)
		SKIP(return, "needs root to set the quotas and change uid");
	self->max_queues = wqt_param_get("user_max_queues");
	self->max_bytes = wqt_param_get("user_max_key_bytes");
	self->global_max = wqt_param_get("max_queues");
	self->items_default = wqt_param_get("default_max_items");
	self->items_limit = wqt_param_get("max_items_limit");
	ASSERT_NE(0, self->max_queues);
	ASSERT_NE(0, self->max_bytes);
}

FIXTURE_TEARDOWN(quota)
{
	wqt_reap_all();
	if (self->max_queues)
		wqt_param_set("user_max_queues", self->max_queues);
	if (self->max_bytes)
		wqt_param_set("user_max_key_bytes", self->max_bytes);
	if (self->global_max)
		wqt_param_set("max_queues", self->global_max);
	if (self->items_default)
		wqt_param_set("default_max_items", self->items_default);
	if (self->items_limit)
		wqt_param_set("max_items_limit", self->items_limit);
}

/* Queue i of a test named for tag, made by process pid (or this one). */
static inline void qname_of(char *buf, const char *tag, int pid, int i)
{
	snprintf(buf, WQ_NAME_MAX, "quota.%s.%d.%d", tag, pid, i);
}

static inline void qname(char *buf, const char *tag, int i)
{
	qname_of(buf, tag, (int)getpid(), i);
}

/* Creates and destroys a queue named for tag: 0, or the first error. */
static inline int create_destroy(const char *tag)
{
	char name[WQ_NAME_MAX];
	int fd, r;

	qname(name, tag, 0);
	fd = wq_create(name, NULL);
	if (fd < 0)
		return fd;
	r = wq_destroy(name);
	wq_close(fd);
	return r;
}

#endif /* WQ_TEST_QUOTA_H */
