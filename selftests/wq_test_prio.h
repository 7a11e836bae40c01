/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw ioctls of priority queues and of the key calls (WQ_CREATE_PRIORITY,
 * WQ_ADD_PRIORITY, WQ_IOC_KEY_STATE, WQ_IOC_CANCEL_AFTER), for the tests of
 * the kernel's rules (priority_test.c, keycalls_test.c): what the module
 * does, with no library in between.
 */
#ifndef WQ_TEST_PRIO_H
#define WQ_TEST_PRIO_H

#include <stdint.h>
#include <string.h>

#include "wq_test_ioctl.h"

#ifndef MS
#define MS		1000000LL
#endif
#ifndef SEC
#define SEC		(1000 * MS)
#endif
#ifndef HOUR
#define HOUR		(3600 * SEC)
#endif

/* A private queue made with @flags (WQ_CREATE_*); the fd or -errno. */
static inline int prio_queue(uint32_t flags, uint64_t starve_ns,
			     const struct wq_limiter *lim)
{
	struct wq_create c;
	int fd = raw_open_dev(), err;

	if (fd < 0)
		return fd;
	memset(&c, 0, sizeof(c));
	c.flags = WQ_CREATE_PRIVATE | flags;
	c.starve_ns = starve_ns;
	if (lim)
		c.limiter = *lim;
	err = xioctl(fd, WQ_IOC_CREATE, &c);
	if (err) {
		close(fd);
		return -err;
	}
	return fd;
}

/*
 * WQ_IOC_ADD of the string @key with @flags (WQ_ADD_PRIORITY is added when
 * @prio is not 0); what it did (WQ_ADDED_*) or -errno. *@delay (may be
 * NULL) receives the delay used.
 */
static inline int padd_full(int fd, const char *key, uint32_t flags,
			    int32_t prio, uint64_t delay_ns, uint64_t *delay)
{
	struct wq_add a = {
		.flags = flags | (prio ? WQ_ADD_PRIORITY : 0),
		.key_len = (uint32_t)strlen(key),
		.key = (uintptr_t)key,
		.delay_ns = delay_ns,
		.priority = prio,
	};
	int err = xioctl(fd, WQ_IOC_ADD, &a);

	if (delay)
		*delay = a.delay_ns;
	return err ? -err : (int)a.outcome;
}

static inline int padd(int fd, const char *key, int32_t prio)
{
	return padd_full(fd, key, 0, prio, 0, NULL);
}

static inline int padd_after(int fd, const char *key, int32_t prio,
			     uint64_t delay_ns)
{
	return padd_full(fd, key, WQ_ADD_AFTER, prio, delay_ns, NULL);
}

/*
 * WQ_IOC_GET without waiting into @buf (64 bytes, NUL-terminated): the
 * length or -errno; *@prio (may be NULL) the priority.
 */
static inline int pget(int fd, char *buf, int32_t *prio)
{
	struct wq_get g = {
		.flags = WQ_GET_NONBLOCK,
		.buf = (uintptr_t)buf,
		.buf_cap = 63,
	};
	int err = xioctl(fd, WQ_IOC_GET, &g);

	if (err)
		return -err;
	buf[g.key_len] = 0;
	if (prio)
		*prio = g.priority;
	return (int)g.key_len;
}

static inline int pdone(int fd, const char *key)
{
	struct wq_key k = { .key_len = (uint32_t)strlen(key),
			    .key = (uintptr_t)key };

	return -xioctl(fd, WQ_IOC_DONE, &k);
}

/* WQ_IOC_CANCEL_AFTER: 1, 0 or -errno. */
static inline int pcancel(int fd, const char *key)
{
	struct wq_key k = { .key_len = (uint32_t)strlen(key),
			    .key = (uintptr_t)key };
	int ret = ioctl(fd, WQ_IOC_CANCEL_AFTER, &k);

	return ret < 0 ? -errno : ret;
}

/* WQ_IOC_KEY_STATE into @ks: 0 or -errno. */
static inline int pstate(int fd, const char *key, struct wq_key_info *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->key_len = (uint32_t)strlen(key);
	ks->key = (uintptr_t)key;
	return -xioctl(fd, WQ_IOC_KEY_STATE, ks);
}

/* The next key must be @want at priority @prio. */
#define EXPECT_NEXT(fd, want, prio) do {				\
	char b_[64];							\
	int32_t p_ = -12345;						\
									\
	EXPECT_EQ((int)strlen(want), pget(fd, b_, &p_));		\
	EXPECT_STREQ(want, b_);						\
	EXPECT_EQ(prio, p_);						\
} while (0)

#endif /* WQ_TEST_PRIO_H */
