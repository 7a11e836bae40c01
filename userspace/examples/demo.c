// SPDX-License-Identifier: GPL-2.0
/*
 * demo: a work queue at work.
 *
 * Three producers add keys from a small set ("ns/pod-1".."ns/pod-5") over
 * and over, as a Kubernetes informer does when objects change. Two consumers
 * take keys, "reconcile" them for a few milliseconds and mark them done.
 *
 * The queue coalesces the adds: a key that is already queued is not queued
 * again, and a key added while it is being processed is queued again when
 * it is done. The demo checks the two promises controllers rely on:
 *  - a key is never processed by two consumers at once;
 *  - no add is lost: every key is handed out again after its last add.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"

#define QUEUE		"demo"
#define PRODUCERS	3
#define CONSUMERS	2
#define ADDS_EACH	200
#define NKEYS		5

static const char *const keys[NKEYS] = {
	"ns/pod-1", "ns/pod-2", "ns/pod-3", "ns/pod-4", "ns/pod-5",
};

static int fd;

/* What the threads saw, to check the queue's promises. */
static struct {
	pthread_mutex_t lock;
	unsigned long tick;		/* orders the events below */
	unsigned long last_add[NKEYS];	/* tick just before the last add */
	unsigned long last_get[NKEYS];	/* tick just after the last get */
	int holder[NKEYS];		/* consumer processing the key, or 0 */
	unsigned long adds, gets;
	unsigned long readds;		/* adds while the key was processing */
	bool overlap;			/* a key was held by two consumers */
	bool failed;			/* a call failed */
} seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

static unsigned int next_rand(unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return *seed >> 16;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ms * 1000000 };

	nanosleep(&ts, NULL);
}

static void call_failed(const char *who, const char *call, int err)
{
	pthread_mutex_lock(&seen.lock);
	fprintf(stderr, "%s: %s: %s\n", who, call, strerror(-err));
	seen.failed = true;
	pthread_mutex_unlock(&seen.lock);
}

/* Stamped before the add, so a get that follows the add stamps later. */
static void note_add(int producer, int k)
{
	pthread_mutex_lock(&seen.lock);
	seen.last_add[k] = ++seen.tick;
	seen.adds++;
	if (seen.holder[k] && ++seen.readds <= 3)
		printf("producer %d: %s added while consumer %d processes it: queued again at done\n",
		       producer, keys[k], seen.holder[k]);
	pthread_mutex_unlock(&seen.lock);
}

static void note_get(int consumer, int k)
{
	pthread_mutex_lock(&seen.lock);
	if (seen.holder[k]) {
		printf("BUG: consumer %d got %s, which consumer %d is processing\n",
		       consumer, keys[k], seen.holder[k]);
		seen.overlap = true;
	}
	seen.holder[k] = consumer;
	seen.last_get[k] = ++seen.tick;
	if (++seen.gets % 10 == 1)
		printf("consumer %d: got %s (processing)\n", consumer, keys[k]);
	pthread_mutex_unlock(&seen.lock);
}

/* Before wq_done: once done, another consumer may get the key at once. */
static void note_done(int k)
{
	pthread_mutex_lock(&seen.lock);
	seen.holder[k] = 0;
	pthread_mutex_unlock(&seen.lock);
}

static void *producer(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned int seed = (unsigned int)id;

	for (int i = 0; i < ADDS_EACH; i++) {
		int k = (int)(next_rand(&seed) % NKEYS);
		int err;

		note_add(id, k);
		err = wq_add(fd, keys[k], strlen(keys[k]));
		if (err < 0) {
			call_failed("producer", "wq_add", err);
			break;
		}
		sleep_ms(5 + next_rand(&seed) % 10);
	}
	return NULL;
}

static int key_index(const char *key)
{
	for (int k = 0; k < NKEYS; k++)
		if (!strcmp(key, keys[k]))
			return k;
	return -1;
}

/* Processes one key; false when the consumer should stop. */
static bool consume_one(int id, unsigned int *seed)
{
	char buf[WQ_KEY_MAX + 1];
	ssize_t n = wq_get(fd, buf, WQ_KEY_MAX, 100);
	int k, err;

	if (n == -ETIMEDOUT)
		return true;
	if (n == -ESHUTDOWN) {
		printf("consumer %d: queue shut down and empty, exiting\n", id);
		return false;
	}
	if (n < 0) {
		call_failed("consumer", "wq_get", (int)n);
		return false;
	}
	buf[n] = '\0';
	k = key_index(buf);
	if (k < 0) {
		call_failed("consumer", "wq_get: unknown key", -EINVAL);
		return false;
	}
	note_get(id, k);
	sleep_ms(15 + next_rand(seed) % 10);	/* reconcile */
	note_done(k);
	err = wq_done(fd, buf, (size_t)n);
	if (err < 0)
		call_failed("consumer", "wq_done", err);
	return err == 0;
}

static void *consumer(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned int seed = (unsigned int)id * 7919;

	while (consume_one(id, &seed))
		;
	return NULL;
}

/* Every key was handed out after its last add: no add was lost. */
static bool no_add_lost(void)
{
	bool ok = true;

	for (int k = 0; k < NKEYS; k++) {
		if (seen.last_add[k] && seen.last_get[k] < seen.last_add[k]) {
			printf("BUG: %s was added but not handed out afterwards\n",
			       keys[k]);
			ok = false;
		}
	}
	return ok;
}

static bool report(void)
{
	bool lost = !no_add_lost();

	printf("adds attempted:  %lu\n", seen.adds);
	printf("distinct keys:   %d\n", NKEYS);
	printf("keys handed out: %lu (%lu adds were coalesced: a pending key is queued once)\n",
	       seen.gets, seen.adds > seen.gets ? seen.adds - seen.gets : 0);
	printf("re-added while processing: %lu (each queued again at done)\n",
	       seen.readds);
	printf("%s: no key was processed by two consumers at once\n",
	       seen.overlap ? "FAIL" : "ok");
	printf("%s: every key was handed out after its last add\n",
	       lost ? "FAIL" : "ok");
	return !seen.overlap && !lost && !seen.failed;
}

static int create_queue(void)
{
	wq_destroy(QUEUE);	/* a leftover of an earlier run */
	fd = wq_create(QUEUE, NULL);
	if (fd < 0) {
		fprintf(stderr, "demo: wq_create: %s%s\n", strerror(-fd),
			access(WQ_DEV_PATH, F_OK) ? " (is the wq module loaded?)" : "");
		return -1;
	}
	return 0;
}

int main(void)
{
	pthread_t prod[PRODUCERS], cons[CONSUMERS];
	int err;
	bool ok;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (create_queue() < 0)
		return 1;
	printf("queue \"%s\": %d producers add keys from ns/pod-1..ns/pod-%d, %d times each; %d consumers\n",
	       QUEUE, PRODUCERS, NKEYS, ADDS_EACH, CONSUMERS);
	for (intptr_t i = 0; i < CONSUMERS; i++)
		pthread_create(&cons[i], NULL, consumer, (void *)(i + 1));
	for (intptr_t i = 0; i < PRODUCERS; i++)
		pthread_create(&prod[i], NULL, producer, (void *)(i + 1));
	for (int i = 0; i < PRODUCERS; i++)
		pthread_join(prod[i], NULL);

	printf("producers finished; shutting down with drain\n");
	err = wq_shutdown_with_drain(fd, 10000);
	if (err < 0) {		/* consumers may never see -ESHUTDOWN */
		call_failed("demo", "wq_shutdown_with_drain", err);
		report();
		return 1;
	}
	for (int i = 0; i < CONSUMERS; i++)
		pthread_join(cons[i], NULL);
	printf("drained, shut down cleanly\n");

	ok = report();
	wq_destroy(QUEUE);
	wq_close(fd);
	return ok ? 0 : 1;
}
