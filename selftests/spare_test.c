// SPDX-License-Identifier: GPL-2.0
/*
 * Spare records (kmod/wq_record.h): the record of a short key that went
 * away is kept, up to 64 a queue, and the next new short key takes it
 * instead of an allocation; so is a batch of new keys after a batch of
 * dones; a full ring of one memory cgroup's makes room for another's, and
 * spares of two cgroups given up in turn go each to its own.
 *
 * Whether a call allocated is read off fail-nth: with 1 written to
 * /proc/thread-self/fail-nth, the thread's next slab allocation fails, and
 * reading it back gives 1 if no allocation was tried meanwhile. Each test
 * also shows the same call failing with -ENOMEM where no spare record is
 * there, so it can fail. Needs fault injection (the debug lane, where it
 * may not skip); failslab's knobs are set and restored as for the
 * fail-nth tests (wq_test_failslab.h).
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include "wq_test_failslab.h"

#define SPARE_MAX	64	/* KWQ_SPARE_MAX */

#define CG_ROOT		"/sys/fs/cgroup"

FIXTURE(spare) {
	struct wqt_failslab fs;		/* fail-nth and failslab's knobs */
	int fd;
	char name[WQ_NAME_MAX];
	char cg[2][128];		/* memory cgroups made, or "" */
};

FIXTURE_SETUP(spare)
{
	wqt_failslab_init(&self->fs);
	self->fd = -1;
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	wqt_failslab_required(_metadata);
	if (access(FAIL_NTH, W_OK) || access(FAILSLAB "ignore-gfp-wait", W_OK))
		SKIP(return, "no fail-nth or failslab (the debug lane has them)");
	wqt_failslab_set(_metadata, &self->fs);
	self->fd = wqt_create_bounded(self->name, "spare", 0);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(spare)
{
	if (self->cg[0][0] || self->cg[1][0])
		wqt_write_file(CG_ROOT "/cgroup.procs", "0");
	for (int i = 0; i < 2; i++)
		if (self->cg[i][0])
			rmdir(self->cg[i]);
	wqt_failslab_close_nth(&self->fs);
	if (self->fd >= 0) {
		wq_close(self->fd);
		wq_destroy(self->name);
	}
	wqt_failslab_restore(&self->fs);
}

/* Fail this thread's next allocation. */
static void arm(struct __test_metadata *_metadata, int nth_fd)
{
	ASSERT_EQ(1, pwrite(nth_fd, "1", 1, 0));
}

/* Disarm; true if no allocation was tried since arm(). */
static bool disarm(struct __test_metadata *_metadata, int nth_fd)
{
	char buf[16] = { 0 };
	ssize_t n = pread(nth_fd, buf, sizeof(buf) - 1, 0);

	EXPECT_EQ(1, pwrite(nth_fd, "0", 1, 0));
	EXPECT_LT(0, n);
	return atoi(buf) != 0;
}

static void key_of(char *key, int i)
{
	snprintf(key, 16, "s%07d", i);		/* 8 bytes */
}

/* Add keys [from, to), then get and done them all. */
static void cycle(struct __test_metadata *_metadata, int fd, int from, int to)
{
	char key[16], buf[64];
	int i;

	for (i = from; i < to; i++) {
		key_of(key, i);
		ASSERT_EQ(0, wq_add(fd, key, 8));
	}
	for (i = from; i < to; i++) {
		ASSERT_EQ(8, wq_get(fd, buf, sizeof(buf), 0));
		ASSERT_EQ(0, wq_done(fd, buf, 8));
	}
}

/* A new short key after a done takes the done key's record. */
TEST_F(spare, new_key_after_done_allocates_nothing)
{
	char key[16];

	key_of(key, 1);
	arm(_metadata, self->fs.nth_fd);	/* no spare yet: the record fails */
	EXPECT_EQ(-ENOMEM, wq_add(self->fd, key, 8));
	EXPECT_FALSE(disarm(_metadata, self->fs.nth_fd));

	cycle(_metadata, self->fd, 0, 1);
	arm(_metadata, self->fs.nth_fd);
	EXPECT_EQ(0, wq_add(self->fd, key, 8));
	EXPECT_TRUE(disarm(_metadata, self->fs.nth_fd));
	EXPECT_EQ(1, wq_len(self->fd));
}

/* A key too long to live inline (40 bytes) never takes a spare record. */
TEST_F(spare, long_key_allocates)
{
	char key[41];

	cycle(_metadata, self->fd, 0, 4);
	memset(key, 'L', sizeof(key));
	arm(_metadata, self->fs.nth_fd);
	EXPECT_EQ(-ENOMEM, wq_add(self->fd, key, sizeof(key)));
	EXPECT_FALSE(disarm(_metadata, self->fs.nth_fd));
	EXPECT_EQ(0, wq_len(self->fd));
}

/* At most 64 records are kept: the 65th new key allocates. */
TEST_F(spare, at_most_64_kept)
{
	char key[16];
	int i;

	cycle(_metadata, self->fd, 0, SPARE_MAX + 36);
	for (i = 0; i < SPARE_MAX; i++) {
		key_of(key, 1000 + i);
		arm(_metadata, self->fs.nth_fd);
		ASSERT_EQ(0, wq_add(self->fd, key, 8)) TH_LOG("key %d", i);
		ASSERT_TRUE(disarm(_metadata, self->fs.nth_fd)) TH_LOG("key %d", i);
	}
	key_of(key, 1000 + SPARE_MAX);
	arm(_metadata, self->fs.nth_fd);
	EXPECT_EQ(-ENOMEM, wq_add(self->fd, key, 8));
	EXPECT_FALSE(disarm(_metadata, self->fs.nth_fd));
	EXPECT_EQ(SPARE_MAX, wq_len(self->fd));
}

/* A batch of new keys after a batch of dones allocates nothing. */
TEST_F(spare, batch_after_batch_done_allocates_nothing)
{
	char keys[SPARE_MAX][16], buf[SPARE_MAX * 16];
	struct iovec iov[SPARE_MAX];
	int errs[SPARE_MAX], i;
	ssize_t got;

	/* grow the key table (an allocation) now, not in the batch below */
	cycle(_metadata, self->fd, 1000, 1000 + 4 * SPARE_MAX);
	for (i = 0; i < SPARE_MAX; i++) {
		key_of(keys[i], i);
		iov[i].iov_base = keys[i];
		iov[i].iov_len = 8;
	}
	ASSERT_EQ(SPARE_MAX, wq_add_batch(self->fd, iov, SPARE_MAX, errs));
	got = wq_get_batch(self->fd, buf, sizeof(buf), iov, SPARE_MAX, 0);
	ASSERT_EQ(SPARE_MAX, got);
	ASSERT_EQ(SPARE_MAX, wq_done_batch(self->fd, iov, SPARE_MAX, errs));

	for (i = 0; i < SPARE_MAX; i++) {
		key_of(keys[i], 100 + i);
		iov[i].iov_base = keys[i];
		iov[i].iov_len = 8;
	}
	arm(_metadata, self->fs.nth_fd);
	EXPECT_EQ(SPARE_MAX, wq_add_batch(self->fd, iov, SPARE_MAX, errs));
	EXPECT_TRUE(disarm(_metadata, self->fs.nth_fd));
	EXPECT_EQ(SPARE_MAX, wq_len(self->fd));
	for (i = 0; i < SPARE_MAX; i++)
		EXPECT_EQ(0, errs[i]);
}

/* Moves this process into the cgroup @cg (a path): 0 or -errno. */
static int cg_enter(const char *cg)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	return wqt_write_file(path, "0");
}

/*
 * Two memory cgroups, self->cg[0] and [1], made under the memory
 * controller; a SKIP (in the caller) without one, outside the debug lane.
 */
#define make_cgroups(_metadata, self) do {				\
	if (access(CG_ROOT "/cgroup.controllers", F_OK))		\
		mount("none", CG_ROOT, "cgroup2", 0, NULL);		\
	if (wqt_write_file(CG_ROOT "/cgroup.subtree_control", "+memory")) { \
		ASSERT_EQ(NULL, getenv("WQ_DEBUG_LANE"))		\
			TH_LOG("no memory controller in the debug lane"); \
		SKIP(return, "no memory controller");			\
	}								\
	for (int _i = 0; _i < 2; _i++) {				\
		snprintf((self)->cg[_i], sizeof((self)->cg[_i]),	\
			 CG_ROOT "/wq-spare-%d-%c", (int)getpid(), 'a' + _i); \
		ASSERT_EQ(0, mkdir((self)->cg[_i], 0755));		\
	}								\
} while (0)

/* Add @key (of key_of(@i)) in cgroup @cg: allocating (-ENOMEM armed) or not. */
static void add_in(struct __test_metadata *_metadata, struct wqt_failslab *fs,
		   int fd, const char *cg, int i, bool allocates)
{
	char key[16];

	ASSERT_EQ(0, cg_enter(cg));
	key_of(key, i);
	arm(_metadata, fs->nth_fd);
	EXPECT_EQ(allocates ? -ENOMEM : 0, wq_add(fd, key, 8)) TH_LOG("key %d", i);
	EXPECT_EQ(!allocates, disarm(_metadata, fs->nth_fd)) TH_LOG("key %d", i);
}

/*
 * A full list of spares of a memory cgroup that adds no more (a restarted
 * container's) does not keep the queue from keeping another's: the oldest
 * spare makes room for the newest (it was the newest that was freed).
 */
TEST_F(spare, a_full_list_makes_room_for_another_cgroup)
{
	char *a = self->cg[0], *b = self->cg[1];

	make_cgroups(_metadata, self);

	ASSERT_EQ(0, cg_enter(a));
	cycle(_metadata, self->fd, 0, 4 * SPARE_MAX);	/* 64 spares of a */
	add_in(_metadata, &self->fs, self->fd, b, 5000, true);	/* none of b's */
	cycle(_metadata, self->fd, 5000, 5001);	/* its record stays spare */
	add_in(_metadata, &self->fs, self->fd, b, 5001, false);
	EXPECT_EQ(1, wq_len(self->fd));
}

/*
 * Spares of two cgroups given up in turn: each cgroup's adds find their
 * own among the newest, behind the other's, and take exactly those.
 */
TEST_F(spare, interleaved_cgroups_take_their_own)
{
	char *a = self->cg[0], *b = self->cg[1], key[16], buf[64];
	int i;

	make_cgroups(_metadata, self);

	/* grow the key table now, and leave 64 spares of b */
	cycle(_metadata, self->fd, 1000, 1000 + 4 * SPARE_MAX);
	ASSERT_EQ(0, cg_enter(b));
	cycle(_metadata, self->fd, 2000, 2000 + 2 * SPARE_MAX);
	/* four keys of b's spares, done by a, b, a, b: newest b a b a b... */
	for (i = 0; i < 4; i++) {
		key_of(key, 3000 + i);
		ASSERT_EQ(0, wq_add(self->fd, key, 8));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(8, wq_get(self->fd, buf, sizeof(buf), 0));
		ASSERT_EQ(0, cg_enter(i % 2 ? b : a));
		ASSERT_EQ(0, wq_done(self->fd, buf, 8));
	}
	/* a's two are the second and fourth newest; then none of a's */
	add_in(_metadata, &self->fs, self->fd, a, 4000, false);
	add_in(_metadata, &self->fs, self->fd, a, 4001, false);
	add_in(_metadata, &self->fs, self->fd, a, 4002, true);
	/* b's, newest first, all 62 of them, kept in order */
	for (i = 0; i < SPARE_MAX - 2; i++)
		add_in(_metadata, &self->fs, self->fd, b, 5000 + i, false);
	add_in(_metadata, &self->fs, self->fd, b, 5100, true);
	EXPECT_EQ(SPARE_MAX, wq_len(self->fd));
}

TEST_HARNESS_MAIN
