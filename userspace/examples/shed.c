// SPDX-License-Identifier: GPL-2.0
/*
 * shed: a producer that sheds load, the "503, try later" of a job queue.
 *
 * In Go:  select { case jobs <- j: accepted++  default: shed++ }  // 503
 *
 * The queue holds at most 8 jobs (max_items); one worker takes 5 ms a job.
 * The producer offers 200 jobs as fast as it can with wq_add, which never
 * blocks: a full queue answers -EAGAIN at once, and the producer drops the
 * job (a web handler would answer 503 with Retry-After) instead of making
 * its caller wait. At the end the queue is drained and the tally checked:
 * every job was either accepted (and then processed) or shed.
 *
 * Exit status 0 when the tally adds up.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"

#define SLOTS		8
#define OFFERS		200
#define WORK_MS		5

static int fd;
static int processed;		/* by the worker */

static void *worker(void *unused)
{
	struct timespec work = { 0, WORK_MS * 1000000L };
	char key[WQ_KEY_MAX];
	ssize_t n;

	(void)unused;
	/* -ESHUTDOWN: the queue is shut down and empty */
	while ((n = wq_get(fd, key, sizeof(key), -1)) != -ESHUTDOWN) {
		if (n < 0)
			continue;	/* -EINTR */
		nanosleep(&work, NULL);
		processed++;
		wq_done(fd, key, (size_t)n);
	}
	return NULL;
}

int main(void)
{
	struct wq_attr attr = { .limiter = "none", .max_items = SLOTS };
	int accepted = 0, shed = 0, failed = 0, ret;
	char name[WQ_NAME_MAX], key[32];
	pthread_t th;

	snprintf(name, sizeof(name), "shed.%d", (int)getpid());
	fd = wq_create(name, &attr);
	if (fd < 0) {
		fprintf(stderr, "shed: wq_create: %s\n", strerror(-fd));
		return 1;
	}
	pthread_create(&th, NULL, worker, NULL);

	for (int i = 0; i < OFFERS; i++) {
		int len = snprintf(key, sizeof(key), "job-%d", i);

		ret = wq_add(fd, key, (size_t)len);	/* the try-enqueue */
		if (ret == 0) {
			accepted++;
		} else if (ret == -EAGAIN) {
			if (++shed <= 3)
				printf("%s: queue full, shed (503 Retry-After)\n", key);
		} else {
			fprintf(stderr, "shed: wq_add %s: %s\n", key, strerror(-ret));
			failed++;
		}
	}

	/* close(jobs); wg.Wait(): no new jobs, the accepted ones finish */
	ret = wq_shutdown_with_drain(fd, 30000);
	pthread_join(th, NULL);
	printf("offered %d, accepted %d, shed %d, processed %d\n",
	       OFFERS, accepted, shed, processed);
	wq_close(fd);
	wq_destroy(name);
	if (ret < 0)
		fprintf(stderr, "shed: drain: %s\n", strerror(-ret));
	return ret < 0 || failed || accepted + shed != OFFERS ||
	       processed != accepted;
}
