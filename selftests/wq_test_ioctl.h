/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The raw ioctl ABI of /dev/wq (uapi/linux/wq.h), without libwq: for the
 * ABI tests, and for what libwq does not offer (creating a queue with
 * max_tracked, the module's limits).
 *
 * xioctl() and the raw_*() helpers return 0 or a positive errno (also for
 * an ioctl whose result is positive, e.g. GET's length); snap() and
 * ASSERT_UNCHANGED() check that a rejected call changed nothing.
 */
#ifndef WQ_TEST_IOCTL_H
#define WQ_TEST_IOCTL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/linux/wq.h"

/* A command built with another argument size than the header's. */
#define IOC_SIZED(cmd, size) \
	_IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), (size))

static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

/* A name field: s, zero-padded. */
static inline void set_name(char name[WQ_NAME_MAX], const char *s)
{
	memset(name, 0, WQ_NAME_MAX);
	memcpy(name, s, strnlen(s, WQ_NAME_MAX));
}

/* A new handle of /dev/wq, not bound to a queue; the fd or -errno. */
static inline int raw_open_dev(void)
{
	int fd = open("/dev/wq", O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * WQ_IOC_CREATE on the unbound handle fd, which is then bound to the new
 * queue. lim NULL: an empty limiter (none); 0 for max_items or max_tracked:
 * the module's default.
 */
static inline int raw_create(int fd, const char *name,
			     const struct wq_limiter *lim, uint32_t max_items,
			     uint32_t max_tracked)
{
	struct wq_create c;

	memset(&c, 0, sizeof(c));
	set_name(c.name, name);
	c.max_items = max_items;
	c.max_tracked = max_tracked;
	if (lim)
		c.limiter = *lim;
	return xioctl(fd, WQ_IOC_CREATE, &c);
}

static inline int raw_add(int fd, const void *key, uint32_t len)
{
	struct wq_add a = { .key_len = len, .key = (uintptr_t)key };

	return xioctl(fd, WQ_IOC_ADD, &a);
}

static inline int raw_stat(int fd, struct wq_queue_info *qi)
{
	memset(qi, 0, sizeof(*qi));
	return xioctl(fd, WQ_IOC_STAT, qi);
}

/* WQ_IOC_MODULE_INFO on a handle of its own. */
static inline int raw_module_info(struct wq_module_info *mi)
{
	int fd = raw_open_dev(), r;

	if (fd < 0)
		return -fd;
	memset(mi, 0, sizeof(*mi));
	r = xioctl(fd, WQ_IOC_MODULE_INFO, mi);
	close(fd);
	return r;
}

/*
 * The queue state that a rejected call must not change (ASSERT_UNCHANGED
 * is for test bodies: it uses the harness).
 */
struct snapshot {
	uint32_t queued, processing, waiting, keys, tracked, state;
	uint64_t adds;
};

static inline struct snapshot snap(int fd)
{
	struct wq_queue_info qi;
	struct snapshot s = { 0 };

	if (raw_stat(fd, &qi) == 0) {
		s.queued = qi.queued;
		s.processing = qi.processing;
		s.waiting = qi.waiting;
		s.keys = qi.keys;
		s.tracked = qi.tracked;
		s.state = qi.state;
		s.adds = qi.adds;
	} else {
		s.state = ~0U;
	}
	return s;
}

#define ASSERT_UNCHANGED(before, fd) do {				\
		struct snapshot _now = snap(fd);			\
		ASSERT_EQ(0, memcmp(&(before), &_now, sizeof(_now)))	\
			TH_LOG("queue changed: queued %u->%u processing %u->%u " \
			       "keys %u->%u state %#x->%#x",		\
			       (before).queued, _now.queued,		\
			       (before).processing, _now.processing,	\
			       (before).keys, _now.keys,		\
			       (before).state, _now.state);		\
	} while (0)

/*
 * For an ABI test's fixture with self->dev (a handle of /dev/wq, not
 * bound), self->fd (bound to self->name) and self->name, after
 * wq_test_util.h: RAW_SETUP_QUEUE in its FIXTURE_SETUP opens both and
 * creates a fresh queue with a unique name, skipping when /dev/wq is
 * missing; RAW_TEARDOWN_QUEUE in its FIXTURE_TEARDOWN closes self->fd,
 * destroys the queue through self->dev and closes it.
 */
#define RAW_SETUP_QUEUE() do {						\
		self->dev = self->fd = -1;				\
		if (!wqt_have_dev())					\
			SKIP(return, "/dev/wq missing (module not loaded)"); \
		self->dev = raw_open_dev();				\
		ASSERT_LE(0, self->dev);				\
		self->fd = raw_open_dev();				\
		ASSERT_LE(0, self->fd);					\
		wqt_name(self->name, _metadata->name);			\
		ASSERT_EQ(0, raw_create(self->fd, self->name, NULL, 0, 0)); \
	} while (0)

#define RAW_TEARDOWN_QUEUE() do {					\
		struct wq_name _n = { 0 };				\
									\
		if (self->fd >= 0)					\
			close(self->fd);				\
		if (self->dev >= 0) {					\
			set_name(_n.name, self->name);			\
			ioctl(self->dev, WQ_IOC_DESTROY, &_n);		\
			close(self->dev);				\
		}							\
	} while (0)

#endif /* WQ_TEST_IOCTL_H */
