/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quotas (doc/security.md): what quota_test.c, quota_limits_test.c and
 * quota_params_test.c share. The tests run as root, set the module's
 * quota parameters (the fixture quota puts them back), and fork children
 * that drop to other uids (losing every capability). A child returns 0,
 * or the line of the first check that failed (printed too).
 */
#ifndef WQ_TEST_QUOTA_H
#define WQ_TEST_QUOTA_H

#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

/*
 * The parameters the tests set, which the fixture saves and restores; the
 * first five are never 0.
 */
static const char *const quota_params[] = {
	"user_max_queues", "user_max_key_bytes", "max_queues",
	"default_max_items", "max_items_limit", "default_max_tracked",
	"unpriv_max_items", "unpriv_max_tracked",
};
#define QUOTA_PARAMS_NONZERO	5

FIXTURE(quota) {
	unsigned long saved[ARRAY_SIZE(quota_params)];
	bool read[ARRAY_SIZE(quota_params)];
};

FIXTURE_SETUP(quota)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (geteuid() != 0)
		SKIP(return, "needs root to set the quotas and change uid");
	for (size_t i = 0; i < ARRAY_SIZE(quota_params); i++) {
		ASSERT_EQ(0, wqt_param_read(quota_params[i], &self->saved[i]))
			TH_LOG("%s", quota_params[i]);
		self->read[i] = true;
		if (i < QUOTA_PARAMS_NONZERO)
			ASSERT_NE(0, self->saved[i]) TH_LOG("%s", quota_params[i]);
	}
}

FIXTURE_TEARDOWN(quota)
{
	wqt_reap_all();
	for (size_t i = 0; i < ARRAY_SIZE(quota_params); i++)
		if (self->read[i])
			wqt_param_set(quota_params[i], self->saved[i]);
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
