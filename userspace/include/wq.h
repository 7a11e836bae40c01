/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libwq: client-go's util/workqueue, served by the wq kernel module.
 *
 * The contract is spec/libwq.md. Every function returns >= 0 on success and
 * -errno on failure; errno is not the channel. A queue handle is a file
 * descriptor of /dev/wq bound to one named queue; every call is thread-safe.
 *
 * Keys a handle got from wq_get and has not done are put back on the queue
 * when the handle's open file is released: when its last file descriptor is
 * closed, dup()ed and fork-inherited copies included (handles are opened
 * O_CLOEXEC, so exec() drops them). This is per open file, not per process:
 * a consumer that forks and dies while its child keeps the fd open does not
 * get its keys put back until the child closes it or exits.
 */
#ifndef LIBWQ_WQ_H
#define LIBWQ_WQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WQ_KEY_MAX	4096	/* longest key, in bytes */
#define WQ_NAME_MAX	64	/* queue name buffer, NUL included */
#define WQ_DEV_PATH	"/dev/wq"	/* there when the module is loaded */

/* ---- Queues ---------------------------------------------------------- */

struct wq_attr {
	const char *limiter;	/* rate-limiter spec; NULL means "default" */
	uint32_t max_items;	/* most distinct keys held at once (queued,
				 * processing or waiting); 0: module default */
	mode_t mode;		/* permission bits, like mq_open(); 0: 0600 */
};

int wq_create(const char *name, const struct wq_attr *attr);
int wq_open(const char *name);
/*
 * wq_open_flags: O_RDONLY (a consumer: get, done), O_WRONLY (a producer:
 * add, add_after, add_rate_limited, forget, shutdown) or O_RDWR (both; what
 * wq_open and wq_create give), optionally | O_NONBLOCK (a get that would
 * wait returns -EAGAIN at once). The queue's mode is checked for the access
 * asked, as mq_open() does (CAP_IPC_OWNER overrides). A call the handle's
 * access does not allow fails with -EBADF; wq_len, wq_stat,
 * wq_shutting_down and wq_num_requeues work with either.
 * Returns the fd, or -ENOENT, -EACCES, -EINVAL (unknown flags).
 */
int wq_open_flags(const char *name, int flags);
int wq_destroy(const char *name);
int wq_close(int fd);

/* ---- Interface (client-go Interface) --------------------------------- */

int wq_add(int fd, const void *key, size_t len);
ssize_t wq_get(int fd, void *buf, size_t cap, int timeout_ms);
int wq_done(int fd, const void *key, size_t len);
int wq_len(int fd);
int wq_shutdown(int fd);
int wq_shutdown_with_drain(int fd, int timeout_ms);
int wq_shutting_down(int fd);

/* ---- DelayingInterface ------------------------------------------------ */

int wq_add_after(int fd, const void *key, size_t len, uint64_t delay_ns);

/* ---- RateLimitingInterface ------------------------------------------- */

int wq_add_rate_limited(int fd, const void *key, size_t len,
			uint64_t *delay_ns);
int wq_forget(int fd, const void *key, size_t len);
int wq_num_requeues(int fd, const void *key, size_t len);

/* ---- Extensions (not in client-go) ----------------------------------- */

/*
 * wq_get_detached: as wq_get, but the key is not put back on the queue when
 * this handle is closed: it stays processing until some handle calls
 * wq_done. For tools whose process ends between get and done (wqctl).
 */
ssize_t wq_get_detached(int fd, void *buf, size_t cap, int timeout_ms);

struct wq_stats {
	char name[WQ_NAME_MAX];
	char limiter[256];	/* the rate limiter, as a spec */
	uint32_t queued;	/* wq_len */
	uint32_t processing;	/* handed out, not yet done */
	uint32_t waiting;	/* waiting for an AddAfter delay */
	uint32_t dirty;		/* processing, queued again at done */
	uint32_t keys;		/* distinct keys held (counts to max_items) */
	uint32_t tracked;	/* keys with rate limiter state */
	uint32_t max_tracked;	/* most keys kept only for their failures */
	uint32_t max_items;
	uint32_t handles;	/* open handles */
	uint32_t uid;
	uint32_t gid;
	uint32_t mode;
	int shutting_down;
	int draining;		/* a wq_shutdown_with_drain is waiting */
	int unlinked;		/* destroyed, kept alive by open handles */
	uint64_t adds;		/* client-go workqueue_adds_total */
	uint64_t retries;	/* client-go workqueue_retries_total */
	uint64_t evicted;	/* failure records forgotten for max_tracked */
};

/* Statistics of the queue behind fd. */
int wq_stat(int fd, struct wq_stats *st);
/* Every named queue: fills up to cap entries, returns how many exist. */
int wq_list(struct wq_stats *st, size_t cap);
/* 0 if spec is a valid rate-limiter spec, else -EINVAL. */
int wq_limiter_check(const char *spec);
/* Parses a Go duration ("250ms", "1.5s", "1h30m") into nanoseconds. */
int wq_parse_duration(const char *s, uint64_t *ns);
/* Writes a duration the way Go prints it; returns the length. */
int wq_format_duration(char *buf, size_t cap, uint64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* LIBWQ_WQ_H */
