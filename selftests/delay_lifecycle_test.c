// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting keys (wq_add_after) and the life of their queue: shutdown and
 * drain drop them (never delivered, also after their time), a getter
 * blocked on a queue with only waiting keys is woken by shutdown, waiting
 * keys outlive handles and keep firing on a destroyed queue, and queues
 * destroyed or closed with keys waiting free every key, also while their
 * timers fire.
 *
 * Timing checks are one-sided (wq_test_time.h).
 */
#include <sys/stat.h>

#include "wq_test_util.h"
#include "wq_test_time.h"

WQT_FIXTURE(delay);

/* ---- shutdown and drain -------------------------------------------------- */

/*
 * Shutdown drops waiting keys: they are never delivered, also after their
 * time, and a waiting copy of a queued or processing key does not come
 * back. wq_add_after is -ESHUTDOWN afterwards, with any delay.
 */
TEST_F(delay, shutdown_drops_waiting)
{
	char k[WQT_KEY_LEN + 1], buf[64];
	int64_t t0;
	int i;

	ASSERT_EQ(0, ADD(self->fd, "p"));
	EXPECT_GET(self->fd, "p");
	t0 = now_ns();
	for (i = 0; i < 20; i++) {
		wqt_key(k, i);
		ASSERT_EQ(0, wq_add_after(self->fd, k, WQT_KEY_LEN,
					  100 * MS + i * 10 * MS));
	}
	ASSERT_EQ(0, AFTER(self->fd, "p", 200 * MS));	/* processing + waiting */
	ASSERT_EQ(0, ADD(self->fd, "q"));
	ASSERT_EQ(0, AFTER(self->fd, "q", 200 * MS));	/* queued + waiting */
	ASSERT_EQ(0, AFTER(self->fd, "w", LONG_DELAY));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	SKIP_IF_STALLED(now_ns() >= t0 + 100 * MS, "keys fired before the shutdown");
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(queued, 1),
		     STAT(processing, 1), STAT(dirty, 0), STAT(keys, 2));
	EXPECT_EQ(-ESHUTDOWN, AFTER(self->fd, "new", 1 * MS));
	EXPECT_EQ(-ESHUTDOWN, AFTER(self->fd, "new", LONG_DELAY));
	EXPECT_EQ(-ESHUTDOWN, AFTER(self->fd, "new", 0));
	EXPECT_EQ(-ESHUTDOWN, AFTER(self->fd, "q", 1 * MS));
	EXPECT_EQ(-ESHUTDOWN, AFTER(self->fd, "p", 1 * MS));
	/* well past every dropped key's time */
	sleep_until_ns(t0 + 700 * MS);
	ASSERT_EQ(1, wq_len(self->fd));
	EXPECT_GET(self->fd, "q");
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, DONE(self->fd, "p"));	/* not dirty: nothing re-queued */
	ASSERT_EQ(0, DONE(self->fd, "q"));
	ASSERT_EQ(0, wq_len(self->fd));
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
}

/* A getter blocked on a queue with only waiting keys is woken by shutdown
 * with -ESHUTDOWN, and never gets a dropped key. */
TEST_F(delay, shutdown_wakes_getter_not_waiting_keys)
{
	const int64_t d = 1000 * MS;
	struct wqt_bg g;
	char buf[64];
	int64_t t0;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "w", d));
	ASSERT_EQ(0, wqt_bg_start(&g, WQT_GET, self->fd, 15000));
	wqt_sleep_ms(200);
	ASSERT_EQ(0, wq_shutdown(self->fd));
	if (now_ns() >= t0 + d) {
		wqt_bg_join(&g);
		SKIP(return, "guest stalled: w may have fired before the shutdown");
	}
	ASSERT_TRUE(wqt_bg_wait(&g, 10000)) TH_LOG("shutdown did not wake the getter");
	ASSERT_EQ(-ESHUTDOWN, g.ret) TH_LOG("got %s", g.ret >= 0 ? g.buf : strerror(-g.ret));
	sleep_until_ns(t0 + d + 300 * MS);
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_len(self->fd));
}

/*
 * A drain waits for queued and processing keys, not for waiting ones: they
 * are dropped. With only waiting keys it returns 0 at once; with a key
 * processing it returns 0 once that key is done.
 */
TEST_F(delay, drain_ignores_waiting)
{
	char buf[64], name2[WQ_NAME_MAX];
	struct wqt_bg dr;
	int64_t t0;
	int fd2, i;

	/* only waiting keys */
	for (i = 0; i < 10; i++) {
		char k[WQT_KEY_LEN + 1];

		wqt_key(k, i);
		ASSERT_EQ(0, wq_add_after(self->fd, k, WQT_KEY_LEN,
					  i < 5 ? 300 * MS : LONG_DELAY));
	}
	t0 = now_ns();
	ASSERT_EQ(0, wq_shutdown_with_drain(self->fd, 10000));
	ASSERT_GT(t0 + 8 * SEC, now_ns());
	EXPECT_STATS(self->fd, STAT(waiting, 0), STAT(keys, 0));
	wqt_sleep_ms(500);
	ASSERT_EQ(-ESHUTDOWN, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_len(self->fd));

	/* a processing key with a waiting copy: done ends the drain */
	fd2 = wqt_create_bounded(name2, "delay-drain", 0);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ADD(fd2, "p"));
	EXPECT_GET(fd2, "p");
	ASSERT_EQ(0, AFTER(fd2, "p", 200 * MS));
	ASSERT_EQ(0, AFTER(fd2, "w", LONG_DELAY));
	ASSERT_EQ(0, wqt_bg_start(&dr, WQT_DRAIN, fd2, 10000));
	wqt_sleep_ms(500);	/* p's waiting copy would have fired by now */
	ASSERT_FALSE(wqt_bg_returned(&dr))
		TH_LOG("drain returned %zd with p processing", dr.ret);
	EXPECT_STATS(fd2, STAT(waiting, 0), STAT(dirty, 0));
	ASSERT_EQ(0, DONE(fd2, "p"));
	wqt_bg_join(&dr);
	EXPECT_EQ(0, dr.ret);
	EXPECT_GT(8 * SEC, dr.took_ns);
	ASSERT_EQ(-ESHUTDOWN, wq_get(fd2, buf, sizeof(buf), 0));
	EXPECT_STATS(fd2, STAT(keys, 0));
	wq_close(fd2);
	wq_destroy(name2);
}

/* ---- lifetime with waiting keys --------------------------------------------- */

/* A queue lives until destroyed: keys keep waiting and fire with no handle
 * open. */
TEST_F(delay, waiting_survives_close)
{
	int64_t t0;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "k", 300 * MS));
	ASSERT_EQ(0, wq_close(self->fd));
	self->fd = -1;
	wqt_sleep_ms(100);
	self->fd = wq_open(self->name);
	ASSERT_LE(0, self->fd);
	EXPECT_GET_AFTER(self->fd, "k", t0 + 300 * MS);
	ASSERT_EQ(0, DONE(self->fd, "k"));
	ASSERT_EQ(0, wq_close(self->fd));
	self->fd = -1;
	/* and with the key firing while no handle is open */
	self->fd = wq_open(self->name);
	ASSERT_LE(0, self->fd);
	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "k2", 200 * MS));
	ASSERT_EQ(0, wq_close(self->fd));
	self->fd = -1;
	sleep_until_ns(t0 + 600 * MS);
	self->fd = wq_open(self->name);
	ASSERT_LE(0, self->fd);
	EXPECT_GET_AFTER(self->fd, "k2", t0 + 200 * MS);
	ASSERT_EQ(0, DONE(self->fd, "k2"));
}

/* A destroyed queue's open handles keep working: its keys still fire. */
TEST_F(delay, destroyed_queue_still_fires)
{
	int64_t t0;

	t0 = now_ns();
	ASSERT_EQ(0, AFTER(self->fd, "k", 300 * MS));
	ASSERT_EQ(0, wq_destroy(self->name));
	ASSERT_EQ(-ENOENT, wq_open(self->name));
	EXPECT_GET_AFTER(self->fd, "k", t0 + 300 * MS);
	ASSERT_EQ(0, DONE(self->fd, "k"));
	ASSERT_EQ(0, AFTER(self->fd, "k", 100 * MS));
	self->name[0] = '\0';
}

/* Reads /sys/kernel/slab/wq_item/objects after shrinking the cache; -1 if
 * the counter is not there or belongs to a merged cache (*why says so). */
static long slab_objects(const char **why)
{
	const char *dir = "/sys/kernel/slab/wq_item";
	char path[128], buf[256];
	struct stat sb;
	long v;
	FILE *f;
	int fd;

	if (lstat(dir, &sb)) {
		*why = "no /sys/kernel/slab/wq_item";
		return -1;
	}
	if (S_ISLNK(sb.st_mode)) {
		*why = "wq_item is merged with another slab cache";
		return -1;
	}
	snprintf(path, sizeof(path), "%s/shrink", dir);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		/* best effort: makes the count tighter */
		ssize_t w = write(fd, "1", 1);

		(void)w;
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/objects", dir);
	f = fopen(path, "r");
	if (!f) {
		*why = "no /sys/kernel/slab/wq_item/objects";
		return -1;
	}
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", &v) != 1) {
		fclose(f);
		*why = "unreadable /sys/kernel/slab/wq_item/objects";
		return -1;
	}
	fclose(f);
	return v;
}

/*
 * Queues destroyed with 10,000 keys waiting (an hour away) free every key:
 * the wq_item slab count goes back down after each round. Half the rounds
 * destroy the name first and then close the handles, half the other way
 * round. (kmemleak and the rmmod after the suite check the rest.)
 */
TEST_F_TIMEOUT(delay, destroy_with_10k_waiting, 300)
{
	enum { N = 10000, ROUNDS = 4 };
	const char *why = NULL;
	long before, full = -1, after;
	int64_t t0, t, fill, worst_teardown = 0, worst_ratio_fill = 0;
	char name[WQ_NAME_MAX], k[WQT_KEY_LEN + 1];
	int r, i, fd, fd2;

	before = slab_objects(&why);
	t0 = now_ns();
	for (r = 0; r < ROUNDS; r++) {
		fd = wqt_create_bounded(name, "delay-10k", N);
		ASSERT_LE(0, fd);
		fill = now_ns();
		for (i = 0; i < N; i++) {
			wqt_key(k, i);
			ASSERT_EQ(0, wq_add_after(fd, k, WQT_KEY_LEN,
						  LONG_DELAY + (uint64_t)i * 7919 * MS))
				TH_LOG("round %d key %d", r, i);
		}
		fill = now_ns() - fill;
		ASSERT_EQ(-EAGAIN, wq_add_after(fd, "x", 1, LONG_DELAY));
		ASSERT_EQ(0, wq_len(fd));
		EXPECT_STATS(fd, STAT(waiting, N), STAT(keys, N),
			     STAT(queued, 0));
		if (r == 0 && before >= 0)
			full = slab_objects(&why);
		fd2 = wq_open(name);
		ASSERT_LE(0, fd2);
		t = now_ns();
		if (r % 2) {
			ASSERT_EQ(0, wq_close(fd));
			ASSERT_EQ(0, wq_close(fd2));
			ASSERT_EQ(0, wq_destroy(name));
		} else {
			ASSERT_EQ(0, wq_destroy(name));
			ASSERT_EQ(0, wq_close(fd2));
			ASSERT_EQ(0, wq_close(fd));
		}
		t = now_ns() - t;
		if (t > worst_teardown) {
			worst_teardown = t;
			worst_ratio_fill = fill;
		}
		ASSERT_EQ(-ENOENT, wq_open(name));
	}
	TH_LOG("%d rounds of %d waiting keys in %.0f ms, slowest teardown %.1f ms (its %d AddAfters took %.1f ms)",
	       ROUNDS, N, ms_of(now_ns() - t0), ms_of(worst_teardown), N,
	       ms_of(worst_ratio_fill));
	/*
	 * Quickly, relative to this machine (the debug kernel under TCG is
	 * ~100x slower): freeing N keys may take at most 10 times as long as
	 * adding them did, plus a second.
	 */
	EXPECT_GT(SEC + 10 * worst_ratio_fill, worst_teardown);
	after = slab_objects(&why);
	if (before < 0 || after < 0) {
		TH_LOG("SKIP slab check: %s", why);
		return;
	}
	TH_LOG("wq_item objects: %ld before, %ld with one full queue, %ld after",
	       before, full, after);
	/* the counter sees our keys at all (else the check proves nothing) */
	ASSERT_LE(before + N, full) TH_LOG("wq_item objects did not count the keys");
	/* a single leaked queue would leave N */
	EXPECT_GT(before + N / 2, after)
		TH_LOG("wq_item objects grew by %ld over %d destroyed queues",
		       after - before, ROUNDS);
}

/*
 * Destroy and close while keys fire: keys with 0-5 ms delays, torn down
 * right away, many times. The timer must never run on a freed queue (KASAN
 * on the debug lane), and each queue is gone afterwards.
 */
TEST_F_TIMEOUT(delay, teardown_races_timer, 120)
{
	enum { ROUNDS = 40, N = 200 };
	char name[WQ_NAME_MAX], k[WQT_KEY_LEN + 1];
	unsigned int seed = 99;
	int r, i, fd;

	for (r = 0; r < ROUNDS; r++) {
		fd = wqt_create_bounded(name, "delay-race", 0);
		ASSERT_LE(0, fd);
		for (i = 0; i < N; i++) {
			wqt_key(k, i);
			ASSERT_EQ(0, wq_add_after(fd, k, WQT_KEY_LEN,
						  rand_r(&seed) % (5 * MS)));
		}
		usleep(rand_r(&seed) % 5000);
		if (r % 3 == 0)
			ASSERT_EQ(0, wq_shutdown(fd));
		if (r % 2) {
			ASSERT_EQ(0, wq_destroy(name));
			ASSERT_EQ(0, wq_close(fd));
		} else {
			ASSERT_EQ(0, wq_close(fd));
			ASSERT_EQ(0, wq_destroy(name));
		}
		ASSERT_EQ(-ENOENT, wq_open(name));
	}
}

TEST_HARNESS_MAIN
