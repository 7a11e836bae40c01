// SPDX-License-Identifier: GPL-2.0
/*
 * worker_pool: client-go's controller loop with wq_pool, retries and give-up.
 *
 * Four workers reconcile the 20 objects "ns/obj-0".."ns/obj-19":
 *  - obj-0, -5, -10, -15 always fail: retried (rate-limited) max_retries
 *    = 3 times, then given up (give_up is called once for each);
 *  - obj-1, -6, -11, -16 fail twice, then succeed on their third try;
 *  - the others succeed at once.
 * The queue's limiter, exponential:1ms:50ms, spaces the retries 1, 2, 4 ms.
 * Once every object is settled the pool is stopped with a drain.
 *
 * Exit status 0 when the counts are exactly: 40 handler calls, 16
 * successes, 4 give-ups.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"

#define OBJECTS		20
#define MAX_RETRIES	3

static atomic_int attempts[OBJECTS];
static atomic_int calls, successes, give_ups;

static int object_of(const void *key, size_t len)
{
	char buf[32];
	int i;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, key, len);
	buf[len] = '\0';
	return sscanf(buf, "ns/obj-%d", &i) == 1 && i >= 0 && i < OBJECTS ? i : -1;
}

/* The reconcile: 0 on success, -errno to be retried. */
static int reconcile(const void *key, size_t len, void *arg)
{
	int i = object_of(key, len), n;

	(void)arg;
	if (i < 0)
		return 0;	/* not ours: nothing to do */
	atomic_fetch_add(&calls, 1);
	n = atomic_fetch_add(&attempts[i], 1) + 1;
	if (i % 5 == 0)
		return -EIO;			/* never works */
	if (i % 5 == 1 && n < 3)
		return -EAGAIN;			/* works the third time */
	atomic_fetch_add(&successes, 1);
	return 0;
}

/* runtime.HandleError(err) after the last retry. */
static void give_up(const void *key, size_t len, int err, void *arg)
{
	(void)arg;
	printf("giving up on %.*s after %d tries: %s\n", (int)len,
	       (const char *)key, MAX_RETRIES + 1, strerror(-err));
	atomic_fetch_add(&give_ups, 1);
}

int main(void)
{
	struct wq_attr attr = { .limiter = "exponential:1ms:50ms" };
	struct wq_pool_attr pa = {
		.workers = 4, .max_retries = MAX_RETRIES, .give_up = give_up,
	};
	struct timespec tick = { 0, 10 * 1000000L };
	struct wq_pool *pool;
	char name[WQ_NAME_MAX], key[32];
	int fd, ret;

	snprintf(name, sizeof(name), "pool.%d", (int)getpid());
	fd = wq_create(name, &attr);
	if (fd < 0) {
		fprintf(stderr, "worker_pool: wq_create: %s\n", strerror(-fd));
		return 1;
	}
	ret = wq_pool_start(fd, reconcile, &pa, &pool);
	if (ret < 0) {
		fprintf(stderr, "worker_pool: wq_pool_start: %s\n", strerror(-ret));
		return 1;
	}
	for (int i = 0; i < OBJECTS; i++)
		wq_add(fd, key, (size_t)snprintf(key, sizeof(key), "ns/obj-%d", i));

	/* Settled: succeeded or given up (at most 30 s on a slow machine). */
	for (int t = 0; t < 3000 && successes + give_ups < OBJECTS; t++)
		nanosleep(&tick, NULL);

	ret = wq_pool_stop(pool, 10000);	/* drain, then join */
	printf("handler calls %d, successes %d, give-ups %d, stop %s\n",
	       calls, successes, give_ups, ret ? strerror(-ret) : "drained");
	wq_close(fd);
	wq_destroy(name);
	return ret || calls != 40 || successes != 16 || give_ups != 4;
}
