// SPDX-License-Identifier: GPL-2.0
/*
 * A handle's done of the oldest key it holds finds the key's record
 * without a look-up: whatever order the dones come in, whoever sends
 * them, and whatever keys look alike, a done means what a look-up would
 * make it mean. Out of order, another handle's done, a key that is a
 * prefix of the held one, a key added while processing, and a batch with
 * a stray key are each checked against the state of the keys after it.
 */
#include "wq_test_util.h"

WQT_FIXTURE(order);

static uint32_t key_state(int fd, const char *key)
{
	struct wq_key_state ki;

	if (wq_key_state(fd, key, strlen(key), &ki))
		return UINT32_MAX;
	return ki.flags;
}

TEST_F(order, out_of_order)
{
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	EXPECT_GET(self->fd, "a");
	EXPECT_GET(self->fd, "b");
	EXPECT_GET(self->fd, "c");
	EXPECT_EQ(0, DONE(self->fd, "b"));	/* not the oldest */
	EXPECT_EQ(WQ_KEY_PROCESSING, key_state(self->fd, "a"));
	EXPECT_EQ(0, key_state(self->fd, "b"));
	EXPECT_EQ(0, DONE(self->fd, "a"));	/* the oldest */
	EXPECT_EQ(WQ_KEY_PROCESSING, key_state(self->fd, "c"));
	EXPECT_EQ(0, DONE(self->fd, "c"));
	EXPECT_EQ(-ENOENT, DONE(self->fd, "c"));
	EXPECT_EQ(-ENOENT, DONE(self->fd, "a"));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

/*
 * After a done in order the next is expected in order too (its hash left
 * for later): one that is not is found all the same, single or batched.
 */
TEST_F(order, in_order_then_not)
{
	static const char *const keys[] = { "b5", "b4", "b3" };
	struct iovec done[3];
	int res[3], i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, wqt_add_i(self->fd, i));
	for (i = 0; i < 4; i++)
		ASSERT_EQ(i, wqt_get_i(self->fd, 0));
	EXPECT_EQ(0, wqt_done_i(self->fd, 0));	/* in order */
	EXPECT_EQ(0, wqt_done_i(self->fd, 2));	/* not: 1 is older */
	EXPECT_STATS(self->fd, STAT(processing, 2));
	EXPECT_EQ(0, wqt_done_i(self->fd, 1));	/* in order again */
	EXPECT_EQ(0, wqt_done_i(self->fd, 3));
	EXPECT_EQ(-ENOENT, wqt_done_i(self->fd, 3));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));

	/* a batch after a done in order, its keys newest first */
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ADD(self->fd, keys[2 - i]));
		done[i].iov_base = (void *)keys[i];
		done[i].iov_len = strlen(keys[i]);
	}
	ASSERT_EQ(0, ADD(self->fd, "b2"));
	EXPECT_GET(self->fd, "b3");
	EXPECT_GET(self->fd, "b4");
	EXPECT_GET(self->fd, "b5");
	EXPECT_GET(self->fd, "b2");
	EXPECT_EQ(0, DONE(self->fd, "b3"));		/* in order */
	EXPECT_EQ(2, wq_done_batch(self->fd, done, 3, res));
	EXPECT_EQ(0, res[0]);
	EXPECT_EQ(0, res[1]);
	EXPECT_EQ(-ENOENT, res[2]);			/* done already */
	EXPECT_STATS(self->fd, STAT(processing, 1));
	EXPECT_EQ(0, DONE(self->fd, "b2"));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

/* Bytes alike are not the same key: a prefix, a longer key. */
TEST_F(order, alike_keys)
{
	ASSERT_EQ(0, ADD(self->fd, "ab"));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "ab");
	EXPECT_EQ(-ENOENT, DONE(self->fd, "a"));	/* queued, not held */
	EXPECT_EQ(-ENOENT, DONE(self->fd, "abc"));
	EXPECT_EQ(-ENOENT, DONE(self->fd, "aB"));
	EXPECT_EQ(WQ_KEY_PROCESSING, key_state(self->fd, "ab"));
	EXPECT_EQ(WQ_KEY_QUEUED, key_state(self->fd, "a"));
	EXPECT_EQ(0, DONE(self->fd, "ab"));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(0, DONE(self->fd, "a"));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

/* Any handle ends any key; the holder's next done finds the next key. */
TEST_F(order, other_handle)
{
	int other = wq_open(self->name);

	ASSERT_LE(0, other);
	ASSERT_EQ(0, ADD(self->fd, "k1"));
	ASSERT_EQ(0, ADD(self->fd, "k2"));
	EXPECT_GET(self->fd, "k1");
	EXPECT_GET(self->fd, "k2");
	EXPECT_EQ(0, DONE(other, "k1"));		/* holds nothing */
	EXPECT_EQ(-ENOENT, DONE(self->fd, "k1"));
	EXPECT_EQ(WQ_KEY_PROCESSING, key_state(self->fd, "k2"));
	EXPECT_EQ(0, DONE(self->fd, "k2"));
	/* a key the other handle holds, done through this one */
	ASSERT_EQ(0, ADD(self->fd, "k3"));
	EXPECT_GET(other, "k3");
	EXPECT_EQ(0, DONE(self->fd, "k3"));
	EXPECT_EQ(-ENOENT, DONE(other, "k3"));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
	EXPECT_EQ(0, wq_close(other));
}

/* Added while processing: the done by its holder queues it again. */
TEST_F(order, dirty)
{
	ASSERT_EQ(0, ADD(self->fd, "d"));
	EXPECT_GET(self->fd, "d");
	ASSERT_EQ(0, ADD(self->fd, "d"));
	EXPECT_EQ(0, DONE(self->fd, "d"));
	EXPECT_EQ(WQ_KEY_QUEUED, key_state(self->fd, "d"));
	EXPECT_EQ(-ENOENT, DONE(self->fd, "d"));
	EXPECT_GET(self->fd, "d");
	EXPECT_EQ(0, DONE(self->fd, "d"));
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

/* A batch: reversed, with a stray key and the same key twice. */
TEST_F(order, batch)
{
	static const char *const keys[] = { "x4", "x3", "stray", "x2", "x1",
					    "x0", "x0" };
	static const int want[] = { 0, 0, -ENOENT, 0, 0, 0, -ENOENT };
	char buf[256];
	struct iovec got[8], done[7];
	int res[7], i;

	for (i = 0; i < 5; i++) {
		char k[4] = { 'x', (char)('0' + i), 0 };

		ASSERT_EQ(0, ADD(self->fd, k));
	}
	ASSERT_EQ(5, wq_get_batch(self->fd, buf, sizeof(buf), got, 8, 0));
	for (i = 0; i < 7; i++) {
		done[i].iov_base = (void *)keys[i];
		done[i].iov_len = strlen(keys[i]);
	}
	EXPECT_EQ(5, wq_done_batch(self->fd, done, 7, res));
	for (i = 0; i < 7; i++)
		EXPECT_EQ(want[i], res[i]) TH_LOG("key %s", keys[i]);
	EXPECT_STATS(self->fd, STAT(processing, 0), STAT(keys, 0));
}

TEST_HARNESS_MAIN
