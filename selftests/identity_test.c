// SPDX-License-Identifier: GPL-2.0
/*
 * A queue's identity (struct wq_queue_info.id, wq_stats.id): the same
 * through every handle and in the list, never given to another queue, so
 * that a handle opened by name tells the queue it knew from a new one of
 * the same name; the handle it had keeps the old queue and its keys.
 * Also: a STAT of the struct's first size, and the libwq 1.0 versions of
 * wq_stat() and wq_list(), fill only what they knew.
 */
#include <sys/ioctl.h>

#include "wq_test_util.h"
#include "uapi/linux/wq.h"

/* libwq 1.0's wq_stat() and wq_list(), as a binary built then binds */
int wq_stat_v1_0(int fd, void *st);
int wq_list_v1_0(void *st, size_t cap);
__asm__(".symver wq_stat_v1_0, wq_stat@WQ_1.0");
__asm__(".symver wq_list_v1_0, wq_list@WQ_1.0");
#define STATS_SIZE_1_0	offsetof(struct wq_stats, id)

WQT_FIXTURE(identity);

static uint64_t id_of(int fd)
{
	struct wq_stats st;

	return wqt_stat(fd, &st) ? 0 : st.id;
}

/* The id wq_list() reports for name, or 0. */
static uint64_t listed_id(const char *name)
{
	struct wq_stats *st;
	uint64_t id = 0;
	int n = wq_list(NULL, 0), i;

	if (n <= 0)
		return 0;
	n += 8;
	st = calloc((size_t)n, sizeof(*st));
	if (!st)
		return 0;
	n = wq_list(st, (size_t)n);
	for (i = 0; i < n; i++)
		if (!strcmp(st[i].name, name))
			id = st[i].id;
	free(st);
	return id;
}

TEST_F(identity, same_through_every_handle_and_in_the_list)
{
	uint64_t id = id_of(self->fd);
	int ro = wq_open_flags(self->name, O_RDONLY);
	int rw = wq_open(self->name);

	ASSERT_NE(0, id);
	ASSERT_LE(0, ro);
	ASSERT_LE(0, rw);
	EXPECT_EQ(id, id_of(ro));
	EXPECT_EQ(id, id_of(rw));
	EXPECT_EQ(id, listed_id(self->name));
	wq_close(ro);
	wq_close(rw);
}

TEST_F(identity, each_queue_its_own_in_order_of_creation)
{
	char other[WQ_NAME_MAX];
	uint64_t id = id_of(self->fd), id2, id3;
	int fd2, fd3;

	fd2 = wqt_create_bounded(other, "identity", 0);
	ASSERT_LE(0, fd2);
	id2 = id_of(fd2);
	ASSERT_EQ(0, wq_destroy(other));
	wq_close(fd2);
	/* the same name, the same memory perhaps: a new id */
	fd3 = wq_create(other, NULL);
	ASSERT_LE(0, fd3);
	id3 = id_of(fd3);
	EXPECT_LT(id, id2);
	EXPECT_LT(id2, id3);
	wq_close(fd3);
	wq_destroy(other);
}

/*
 * The race the soak test met (wq_soak -x reuse): a name destroyed and
 * given to a new queue while a handle of the old one holds keys. A
 * handle opened by name now is the new queue's (its id says so): a done
 * through it of a key of the old queue is -ENOENT there, as it must be,
 * and the old queue still has the key processing until its own handle
 * ends it, detached or not.
 */
TEST_F(identity, reopen_by_name_after_reuse_reaches_the_new_queue)
{
	uint64_t old_id = id_of(self->fd);
	struct wq_stats st;
	char buf[16];
	int fresh, again;

	ASSERT_EQ(0, ADD(self->fd, "det"));
	ASSERT_EQ(0, ADD(self->fd, "held"));
	ASSERT_EQ(3, wq_get_detached(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(4, wq_get(self->fd, buf, sizeof(buf), 0));
	ASSERT_EQ(0, wq_destroy(self->name));
	fresh = wq_create(self->name, NULL);
	ASSERT_LE(0, fresh);
	ASSERT_EQ(0, ADD(fresh, "reused"));

	again = wq_open(self->name);
	ASSERT_LE(0, again);
	EXPECT_NE(old_id, id_of(again));
	EXPECT_EQ(id_of(fresh), id_of(again));
	EXPECT_EQ(-ENOENT, DONE(again, "det"));
	EXPECT_EQ(-ENOENT, DONE(again, "held"));
	EXPECT_GET(again, "reused");
	EXPECT_EQ(0, DONE(again, "reused"));

	/* the old queue: both keys processing, ended by its handle */
	ASSERT_EQ(0, wqt_stat(self->fd, &st));
	EXPECT_EQ(old_id, st.id);
	EXPECT_EQ(1, st.unlinked);
	EXPECT_EQ(2, st.processing);
	EXPECT_EQ(0, DONE(self->fd, "det"));
	EXPECT_EQ(0, DONE(self->fd, "held"));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
	wq_close(again);
	wq_close(fresh);
	ASSERT_EQ(0, wq_destroy(self->name));
	self->name[0] = '\0';	/* destroyed: the teardown only closes */
}

/* STAT of the struct's first version: 344 bytes written, no more. */
TEST_F(identity, stat_of_the_first_size_writes_no_id)
{
	unsigned char buf[sizeof(struct wq_queue_info) + 16];
	unsigned long cmd = _IOC(_IOC_READ, WQ_IOC_MAGIC,
				 _IOC_NR(WQ_IOC_STAT), WQ_QUEUE_INFO_SIZE_VER0);
	struct wq_queue_info info;
	size_t i;

	memset(buf, 0xa5, sizeof(buf));
	ASSERT_EQ(0, ioctl(self->fd, cmd, buf));
	for (i = WQ_QUEUE_INFO_SIZE_VER0; i < sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]) TH_LOG("byte %zu written", i);
	memcpy(&info, buf, WQ_QUEUE_INFO_SIZE_VER0);
	EXPECT_STREQ(self->name, info.name);
}

/* A binary built against libwq 1.0 gets the struct wq_stats it knew. */
TEST_F(identity, libwq_1_0_symbols_fill_the_old_struct)
{
	unsigned char one[sizeof(struct wq_stats) + 16];
	unsigned char many[4 * sizeof(struct wq_stats)];
	struct wq_stats cur;
	int n, i, found = 0;

	memset(one, 0xa5, sizeof(one));
	ASSERT_EQ(0, wq_stat_v1_0(self->fd, one));
	for (i = STATS_SIZE_1_0; i < (int)sizeof(one); i++)
		ASSERT_EQ(0xa5, one[i]) TH_LOG("byte %d written", i);
	ASSERT_EQ(0, wqt_stat(self->fd, &cur));
	EXPECT_EQ(0, memcmp(one, &cur, offsetof(struct wq_stats, queued)));

	/* entries STATS_SIZE_1_0 bytes apart */
	memset(many, 0, sizeof(many));
	n = wq_list_v1_0(many, 3);
	ASSERT_LE(1, n);
	for (i = 0; i < n && i < 3; i++)
		found |= !strcmp((const char *)many + i * STATS_SIZE_1_0,
				 self->name);
	if (n <= 3)
		EXPECT_TRUE(found);
	for (i = 3 * STATS_SIZE_1_0; i < (int)sizeof(many); i++)
		ASSERT_EQ(0, many[i]) TH_LOG("byte %d written", i);
}

TEST_HARNESS_MAIN
