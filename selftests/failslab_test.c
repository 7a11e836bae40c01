// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: the core scenarios with failslab failing a share of the
 * slab allocations of this test's own task (task-filter, ignore-gfp-wait=N,
 * so GFP_KERNEL allocations fail too). Every call must either succeed or
 * fail with -ENOMEM having changed nothing; afterwards no key is lost or
 * duplicated. Leaks are caught by the debug lane's kmemleak scan after the
 * suite. Skipped where the kernel has no failslab (the Debian lanes).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "wq_test_util.h"
#include "wq_test_files.h"

#define FAILSLAB "/sys/kernel/debug/failslab/"
#define NKEYS 400

/*
 * Faults on or off for this task only. The file is opened once, before any
 * fault: opening it allocates, which would fail while faults are on.
 */
static int make_it_fail = -1;

static void faults(int on)
{
	if (make_it_fail < 0 ||
	    pwrite(make_it_fail, on ? "1" : "0", 1, 0) != 1) {
		fprintf(stderr, "# cannot switch faults %s\n", on ? "on" : "off");
		_exit(1);
	}
}

/*
 * Key i, longer than the 64 bytes /dev/wq copies on its stack: every add,
 * get and done of it allocates, so every one of them can fail.
 */
#define KEY_BUF 128
static int key_of(char *buf, int i)
{
	return sprintf(buf, "fault/key-%d/%s", i,
		       "................................................................");
}

FIXTURE(fail)
{
	char name[WQ_NAME_MAX];
	int fd;
};

static const char *const knobs[][2] = {
	{ "task-filter", "Y" }, { "ignore-gfp-wait", "N" },
	{ "probability", "20" }, { "interval", "1" },
	{ "times", "-1" }, { "space", "0" }, { "verbose", "0" },
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))
static char saved[NKNOBS][32];	/* the values found, put back after */

FIXTURE_SETUP(fail)
{
	char path[128];
	size_t i;

	self->fd = -1;
	/* the debug lane (WQ_DEBUG_LANE=1) must run these, not skip them */
	if (getenv("WQ_DEBUG_LANE"))
		ASSERT_EQ(0, access(FAILSLAB "probability", W_OK))
			TH_LOG("no failslab on the debug lane");
	if (access(FAILSLAB "probability", W_OK))
		SKIP(return, "no failslab in this kernel (the debug lane has it)");
	for (i = 0; i < NKNOBS; i++) {
		snprintf(path, sizeof(path), FAILSLAB "%s", knobs[i][0]);
		if (wqt_read_file(path, saved[i], sizeof(saved[i])))
			saved[i][0] = '\0';
		ASSERT_EQ(0, wqt_write_file(path, knobs[i][1])) TH_LOG("%s", path);
	}
	make_it_fail = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, make_it_fail);
	wqt_name(self->name, "fail");
	self->fd = wq_create(self->name, NULL);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(fail)
{
	char path[128];
	size_t i;

	if (make_it_fail >= 0)
		faults(0);
	for (i = 0; i < NKNOBS; i++) {	/* as found (probability first) */
		size_t k = (i + 2) % NKNOBS;

		if (!saved[k][0])
			continue;
		snprintf(path, sizeof(path), FAILSLAB "%s", knobs[k][0]);
		wqt_write_file(path, saved[k]);
	}
	if (self->fd >= 0) {
		wq_close(self->fd);
		wq_destroy(self->name);
	}
}

/* Takes every queued key; each must be one of @want (once), none other. */
static void drain_expect(struct __test_metadata *_metadata, int fd,
			 const char *want, int n)
{
	char seen[NKEYS] = { 0 };
	char buf[KEY_BUF], k[KEY_BUF];
	ssize_t len;
	int i, got = 0;

	while ((len = wq_get(fd, buf, sizeof(buf), 0)) > 0) {
		int idx = -1;

		buf[len] = '\0';
		ASSERT_EQ(1, sscanf(buf, "fault/key-%d", &idx));
		ASSERT_TRUE(idx >= 0 && idx < n && want[idx]) TH_LOG("%s", buf);
		ASSERT_EQ(0, seen[idx]) TH_LOG("%s handed out twice", buf);
		seen[idx] = 1;
		got++;
		key_of(k, idx);
		ASSERT_EQ(0, wq_done(fd, k, strlen(k)));
	}
	ASSERT_EQ(-EAGAIN, len);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(want[i], seen[i]) TH_LOG("key %d lost", i);
	}
}

TEST_F(fail, add)
{
	char ok[NKEYS] = { 0 }, k[KEY_BUF];
	int i, ret, nok = 0, nfail = 0;

	for (i = 0; i < NKEYS; i++) {
		key_of(k, i);
		faults(1);
		ret = wq_add(self->fd, k, strlen(k));
		faults(0);
		ASSERT_TRUE(ret == 0 || ret == -ENOMEM) TH_LOG("add: %d", ret);
		ok[i] = !ret;
		ret ? nfail++ : nok++;
	}
	TH_LOG("%d adds, %d -ENOMEM", nok, nfail);
	ASSERT_LT(0, nfail);	/* the injection really happened */
	EXPECT_STATS(self->fd, STAT(queued, nok), STAT(keys, nok));
	drain_expect(_metadata, self->fd, ok, NKEYS);
	EXPECT_STATS(self->fd, STAT(keys, 0));
}

TEST_F(fail, get_and_done)
{
	char ok[NKEYS], buf[KEY_BUF];
	int i, ret, enomem = 0;
	ssize_t len;

	memset(ok, 1, sizeof(ok));
	for (i = 0; i < NKEYS; i++) {
		key_of(buf, i);
		ASSERT_EQ(0, wq_add(self->fd, buf, strlen(buf)));
	}
	for (i = 0; i < NKEYS; i++) {
		int before = wq_len(self->fd);

		faults(1);
		len = wq_get(self->fd, buf, sizeof(buf), 0);
		faults(0);
		if (len == -ENOMEM) {
			enomem++;
			EXPECT_EQ(before, wq_len(self->fd));	/* still queued */
			continue;
		}
		ASSERT_LT(0, len) TH_LOG("get: %zd", len);
		faults(1);
		ret = wq_done(self->fd, buf, (size_t)len);
		faults(0);
		ASSERT_TRUE(ret == 0 || ret == -ENOMEM) TH_LOG("done: %d", ret);
		if (ret) {
			enomem++;
			/* still processing: a retry without faults works */
			ASSERT_EQ(0, wq_done(self->fd, buf, (size_t)len));
		}
		buf[len] = '\0';
		ASSERT_EQ(1, sscanf(buf, "fault/key-%d", &ret));
		ok[ret] = 0;
	}
	ASSERT_LT(0, enomem);
	drain_expect(_metadata, self->fd, ok, NKEYS);
	EXPECT_STATS(self->fd, STAT(keys, 0), STAT(processing, 0));
}

TEST_F(fail, add_after_and_rate_limited)
{
	struct wq_attr attr = { .limiter = "exponential:1h:2h" };
	int i, ret, fd, nok = 0, nrl = 0;
	char ok[NKEYS] = { 0 }, name[WQ_NAME_MAX], k[KEY_BUF];
	uint64_t delay;

	/* Every key waits an hour: the counts below cannot race a timer. */
	wqt_name(name, "failrl");
	fd = wq_create(name, &attr);
	ASSERT_LE(0, fd);
	for (i = 0; i < NKEYS; i++) {
		key_of(k, i);
		faults(1);
		if (i % 2)
			ret = wq_add_after(fd, k, strlen(k), 3600000000000ULL);
		else
			ret = wq_add_rate_limited(fd, k, strlen(k), &delay);
		faults(0);
		ASSERT_TRUE(ret == 0 || ret == -ENOMEM) TH_LOG("add: %d", ret);
		/* a failed call counts nothing */
		EXPECT_EQ(!ret && !(i % 2), wq_num_requeues(fd, k, strlen(k)));
		ok[i] = !ret;
		nok += !ret;
		nrl += !ret && !(i % 2);
	}
	ASSERT_GT(NKEYS, nok);	/* the injection really happened */
	EXPECT_STATS(fd, STAT(waiting, nok), STAT(keys, nok),
		     STAT(tracked, nrl), STAT(queued, 0));
	/* Shutdown drops every waiting key; the failure counts stay. */
	ASSERT_EQ(0, wq_shutdown(fd));
	EXPECT_STATS(fd, STAT(waiting, 0), STAT(keys, 0), STAT(tracked, nrl));
	for (i = 0; i < NKEYS; i += 2) {
		key_of(k, i);
		EXPECT_EQ(ok[i], wq_num_requeues(fd, k, strlen(k)));
	}
	wq_close(fd);
	wq_destroy(name);
}

TEST_F(fail, create_and_open)
{
	char name[WQ_NAME_MAX];
	int i, fd, nfail = 0;

	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "%.40s-%d", self->name, i);
		faults(1);
		fd = wq_create(name, NULL);
		faults(0);
		if (fd < 0) {
			ASSERT_EQ(-ENOMEM, fd);
			nfail++;
			/* nothing was created */
			ASSERT_EQ(-ENOENT, wq_open(name));
			continue;
		}
		ASSERT_EQ(0, wq_add(fd, "k", 1));
		faults(1);
		fd = (wq_close(fd), wq_open(name));
		faults(0);
		ASSERT_TRUE(fd >= 0 || fd == -ENOMEM) TH_LOG("open: %d", fd);
		if (fd >= 0) {
			ASSERT_EQ(1, wq_len(fd));
			wq_close(fd);
		}
		ASSERT_EQ(0, wq_destroy(name));
	}
	ASSERT_LT(0, nfail);
}

/* Enough keys to grow the key table and the heap while faults happen. */
TEST_F(fail, growth)
{
	char k[KEY_BUF];
	int i, ret, nok = 0;
	struct wq_stats st;

	for (i = 0; i < 5000; i++) {
		snprintf(k, sizeof(k), "grow-%d", i);
		faults(1);
		ret = i % 3 ? wq_add(self->fd, k, strlen(k)) :
			      wq_add_after(self->fd, k, strlen(k), 3600000000000ULL);
		faults(0);
		ASSERT_TRUE(ret == 0 || ret == -ENOMEM) TH_LOG("add: %d", ret);
		nok += !ret;
	}
	ASSERT_EQ(0, wq_stat(self->fd, &st));
	EXPECT_EQ((uint32_t)nok, st.keys);
	EXPECT_EQ((uint32_t)nok, st.queued + st.waiting);
	/* every key still findable: re-adding any held one is a no-op */
	for (i = 0; i < 5000; i++) {
		snprintf(k, sizeof(k), "grow-%d", i);
		wq_add(self->fd, k, strlen(k));
	}
	EXPECT_STATS(self->fd, STAT(keys, 5000));
}

TEST_HARNESS_MAIN
