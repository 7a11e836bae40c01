// SPDX-License-Identifier: GPL-2.0
/*
 * Private queues (wq_create_private(3)): no name, in no namespace, never
 * listed; shared by inheriting or passing the fd only; freed, and given
 * back to the budget, at the open file's last close. And what an add did
 * (wq_add_opts(3): WQ_ADDED_*), which the language bindings need.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

FIXTURE(priv) {
	int fd;
	unsigned long max_queues;
};

FIXTURE_SETUP(priv)
{
	struct wq_module_info mi;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_TRUE(mi.create_flags & WQ_CREATE_PRIVATE);
	self->max_queues = wqt_param_get("user_max_queues");
	self->fd = wq_create_private(NULL);
	ASSERT_GE(self->fd, 0);
}

FIXTURE_TEARDOWN(priv)
{
	wqt_reap_all();
	if (self->max_queues)
		wqt_param_set("user_max_queues", self->max_queues);
	if (self->fd >= 0)
		close(self->fd);
}

/* No name: not listed, not openable, not destroyable; a queue otherwise. */
TEST_F(priv, has_no_name)
{
	struct wq_queue_info qi;
	struct wq_stats st;
	struct wq_create c;
	int n, fd;

	n = wq_list(NULL, 0);
	ASSERT_GE(n, 0);
	fd = wq_create_private(NULL);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(n, wq_list(NULL, 0));
	ASSERT_EQ(0, wqt_stat(fd, &st));
	EXPECT_STREQ("", st.name);
	EXPECT_EQ(1U, st.handles);
	ASSERT_EQ(0, raw_stat(fd, &qi));
	EXPECT_EQ(WQ_STATE_PRIVATE, qi.state);
	EXPECT_NE(0, qi.id);
	EXPECT_EQ(-EINVAL, wq_open(""));
	EXPECT_EQ(-EINVAL, wq_destroy(""));
	EXPECT_EQ(0, ADD(fd, "k"));
	EXPECT_GET(fd, "k");
	EXPECT_EQ(0, DONE(fd, "k"));
	EXPECT_QUEUE_EMPTY(fd);
	close(fd);

	/* the raw call: a name with the flag, or an unknown flag, is refused */
	fd = raw_open_dev();
	ASSERT_GE(fd, 0);
	memset(&c, 0, sizeof(c));
	c.flags = WQ_CREATE_PRIVATE;
	strcpy(c.name, "priv.named");
	EXPECT_EQ(EINVAL, ioctl(fd, WQ_IOC_CREATE, &c) ? errno : 0);
	c.flags = 1U << 31;
	EXPECT_EQ(EINVAL, ioctl(fd, WQ_IOC_CREATE, &c) ? errno : 0);
	EXPECT_EQ(-ENOENT, wq_open("priv.named"));	/* nothing made */
	close(fd);
}

TEST_F(priv, queues_are_apart)
{
	int other = wq_create_private(NULL);

	ASSERT_GE(other, 0);
	EXPECT_EQ(0, ADD(self->fd, "mine"));
	EXPECT_EQ(0, wq_len(other));
	EXPECT_NOTHING(other);
	EXPECT_EQ(0, ADD(other, "mine"));	/* the same key: its own */
	EXPECT_EQ(1, wq_len(self->fd));
	EXPECT_EQ(1, wq_len(other));
	close(other);
	EXPECT_EQ(1, wq_len(self->fd));
}

/* A child that inherited the fd adds; the parent gets. */
static int child_adds(void *arg)
{
	int fd = *(int *)arg;

	CHILD_CHECK(ADD(fd, "from-child") == 0);
	return 0;
}

TEST_F(priv, fork_shares_it)
{
	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(child_adds, &self->fd), 30000));
	EXPECT_GET(self->fd, "from-child");
	EXPECT_EQ(0, DONE(self->fd, "from-child"));
}

/*
 * The queue goes with its file's last close: its records are freed and
 * its charge given back, also with keys queued, processing and waiting.
 */
TEST_F(priv, freed_at_the_last_close)
{
	struct wq_module_info before, mi;
	char k[16];
	long items;
	int fd, i, dup_fd;

	ASSERT_EQ(0, raw_module_info(&before));
	items = wqt_wq_items();
	fd = wq_create_private(NULL);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 100; i++) {
		snprintf(k, sizeof(k), "key-%d", i);
		ASSERT_EQ(0, ADD(fd, k));
	}
	ASSERT_EQ(0, AFTER(fd, "later", 3600ULL * 1000000000));
	ASSERT_GT(get_str(fd, k, sizeof(k), 0), 0);	/* one processing */
	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_EQ(before.user_queues + 1, mi.user_queues);
	EXPECT_LT(before.user_key_bytes, mi.user_key_bytes);

	dup_fd = dup(fd);	/* the same open file: it stays */
	ASSERT_GE(dup_fd, 0);
	close(fd);
	EXPECT_EQ(99, wq_len(dup_fd));
	close(dup_fd);
	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_EQ(before.user_queues, mi.user_queues);
	EXPECT_EQ(before.user_key_bytes, mi.user_key_bytes);
	if (items >= 0)
		EXPECT_EQ(items, wqt_wq_items());
}

/* As UID_A with a budget of 2 queues: a private one counts as any. */
static int budget(void *arg)
{
	int fd[2];
	char name[WQ_NAME_MAX];

	(void)arg;
	fd[0] = wq_create_private(NULL);
	CHILD_CHECK(fd[0] >= 0);
	wqt_name(name, "privq");
	fd[1] = wq_create(name, NULL);
	CHILD_CHECK(fd[1] >= 0);
	CHILD_CHECK(wq_create_private(NULL) == -EDQUOT);
	close(fd[0]);				/* given back */
	fd[0] = wq_create_private(NULL);
	CHILD_CHECK(fd[0] >= 0);
	close(fd[0]);
	CHILD_CHECK(wq_destroy(name) == 0);
	close(fd[1]);
	return 0;
}

TEST_F(priv, counts_against_the_budget)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to set the quota");
	ASSERT_EQ(0, wqt_param_set("user_max_queues", 2));
	EXPECT_EQ(0, as_user(UID_A, budget, NULL));
}

/* ---- what an add did ------------------------------------------------- */

static int add_opts(int fd, const char *key, uint32_t flags, uint64_t delay)
{
	struct wq_add_opts o = { .flags = flags, .delay_ns = delay };

	return wq_add_opts(fd, key, strlen(key), &o);
}


TEST_F(priv, an_add_says_what_it_did)
{
	struct wq_add a;
	char k[8];

	EXPECT_EQ(WQ_ADDED_QUEUED, add_opts(self->fd, "a", 0, 0));
	EXPECT_EQ(WQ_ADDED_COALESCED, add_opts(self->fd, "a", 0, 0));
	EXPECT_EQ(WQ_ADDED_COALESCED, wq_add_opts(self->fd, "a", 1, NULL));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(WQ_ADDED_DIRTY, add_opts(self->fd, "a", 0, 0));
	EXPECT_EQ(WQ_ADDED_DIRTY, add_opts(self->fd, "a", 0, 0));
	EXPECT_EQ(0, DONE(self->fd, "a"));		/* queued again */
	EXPECT_EQ(WQ_ADDED_COALESCED, add_opts(self->fd, "a", 0, 0));

	EXPECT_EQ(WQ_ADDED_WAITING, add_opts(self->fd, "w", WQ_ADD_AFTER, HOUR));
	EXPECT_EQ(WQ_ADDED_KEPT, add_opts(self->fd, "w", WQ_ADD_AFTER, 2 * HOUR));
	EXPECT_EQ(WQ_ADDED_WAITING, add_opts(self->fd, "w", WQ_ADD_AFTER, HOUR / 2));
	/* an add without a delay queues a waiting key */
	EXPECT_EQ(WQ_ADDED_QUEUED, add_opts(self->fd, "w", 0, 0));
	/* an AddAfter of 0 is an Add */
	EXPECT_EQ(WQ_ADDED_QUEUED, add_opts(self->fd, "z", WQ_ADD_AFTER, 0));
	/* the default limiter's first delay is 5 ms: it waits */
	EXPECT_EQ(WQ_ADDED_WAITING,
		  add_opts(self->fd, "r", WQ_ADD_RATE_LIMITED, 0));

	/* fields a flag does not use must be 0 */
	EXPECT_EQ(-EINVAL, add_opts(self->fd, "x", 0, 5));
	EXPECT_EQ(-EINVAL, add_opts(self->fd, "x", 1U << 20, 0));
	/* the client-go calls still return 0 */
	EXPECT_EQ(0, ADD(self->fd, "a"));

	/* raw: the outcome is written back; it must be 0 on input */
	memset(&a, 0, sizeof(a));
	strcpy(k, "a");
	a.key_len = 1;
	a.key = (uintptr_t)k;
	EXPECT_EQ(0, ioctl(self->fd, WQ_IOC_ADD, &a));
	EXPECT_EQ((uint32_t)WQ_ADDED_COALESCED, a.outcome);
	EXPECT_EQ(-1, ioctl(self->fd, WQ_IOC_ADD, &a));	/* outcome 1 in */
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1U, a.outcome);			/* a failure changes nothing */
}

/* The struct's older versions: what they do not have is not written. */
TEST_F(priv, an_older_add_struct_gets_no_outcome)
{
	unsigned long v1 = _IOC(_IOC_READ | _IOC_WRITE, WQ_IOC_MAGIC,
				_IOC_NR(WQ_IOC_ADD), 32);
	unsigned char raw[40];
	struct wq_add a;
	char k[] = "old";

	memset(&a, 0, sizeof(a));
	a.key_len = 3;
	a.key = (uintptr_t)k;
	memcpy(raw, &a, 32);
	memset(raw + 32, 0xaa, 8);		/* beyond the caller's struct */
	EXPECT_EQ(0, ioctl(self->fd, v1, raw));
	EXPECT_EQ(0, ioctl(self->fd, v1, raw));	/* coalesced, silently */
	for (int i = 32; i < 40; i++)
		EXPECT_EQ(0xaa, raw[i]);
	EXPECT_EQ(1, wq_len(self->fd));
}

/* The other paths of an add: a long key, a rate-limited add of no delay. */
TEST_F(priv, every_path_says_what_it_did)
{
	struct wq_attr none = { .limiter = "none" };
	char long_key[200];
	int fd;

	memset(long_key, 'l', sizeof(long_key) - 1);	/* not through the stack */
	long_key[sizeof(long_key) - 1] = 0;
	EXPECT_EQ(WQ_ADDED_QUEUED, add_opts(self->fd, long_key, 0, 0));
	EXPECT_EQ(WQ_ADDED_COALESCED, add_opts(self->fd, long_key, 0, 0));
	EXPECT_EQ(WQ_ADDED_WAITING,
		  add_opts(self->fd, "w", WQ_ADD_AFTER, HOUR));
	EXPECT_EQ(WQ_ADDED_KEPT, add_opts(self->fd, "w", WQ_ADD_AFTER, HOUR));

	fd = wq_create_private(&none);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(WQ_ADDED_QUEUED, add_opts(fd, "r", WQ_ADD_RATE_LIMITED, 0));
	EXPECT_EQ(WQ_ADDED_COALESCED,
		  add_opts(fd, "r", WQ_ADD_RATE_LIMITED, 0));
	close(fd);
}

/* ---- what a done or a forget left ------------------------------------ */

/* DONE or FORGET (cmd) of key with WQ_KEY_RESULT_STATE: its state, or -errno. */
static int key_state_after(int fd, unsigned long cmd, const char *key)
{
	struct wq_key k = { .flags = WQ_KEY_RESULT_STATE,
			    .key_len = (uint32_t)strlen(key),
			    .key = (uintptr_t)key };
	int r = ioctl(fd, cmd, &k);

	return r < 0 ? -errno : r;
}

TEST_F(priv, done_says_what_is_left)
{
	struct wq_key k = { .flags = WQ_KEY_RESULT_STATE, .key_len = 1 };
	char buf[8];

	EXPECT_EQ(0, ADD(self->fd, "a"));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(0, key_state_after(self->fd, WQ_IOC_DONE, "a"));	/* gone */
	EXPECT_EQ(-ENOENT, key_state_after(self->fd, WQ_IOC_DONE, "a"));

	EXPECT_EQ(0, ADD(self->fd, "b"));
	EXPECT_GET(self->fd, "b");
	EXPECT_EQ(0, ADD(self->fd, "b"));				/* dirty */
	EXPECT_EQ(WQ_KEY_QUEUED, key_state_after(self->fd, WQ_IOC_DONE, "b"));
	EXPECT_GET(self->fd, "b");
	EXPECT_EQ(0, DONE(self->fd, "b"));

	EXPECT_EQ(0, AFTER(self->fd, "c", HOUR));
	EXPECT_EQ(0, ADD(self->fd, "c"));		/* queued and waiting */
	EXPECT_GET(self->fd, "c");
	EXPECT_EQ(WQ_KEY_WAITING, key_state_after(self->fd, WQ_IOC_DONE, "c"));

	/* rate-limited: the limiter counts it until forgotten */
	EXPECT_EQ(0, wq_add_rate_limited(self->fd, "d", 1, NULL));
	ASSERT_EQ(1, get_str(self->fd, buf, sizeof(buf), 10000));	/* 5 ms */
	EXPECT_EQ('d', buf[0]);
	EXPECT_EQ(WQ_KEY_TRACKED, key_state_after(self->fd, WQ_IOC_DONE, "d"));
	EXPECT_EQ(0, key_state_after(self->fd, WQ_IOC_FORGET, "d"));
	EXPECT_EQ(0, key_state_after(self->fd, WQ_IOC_FORGET, "d"));

	/* NUM_REQUEUES takes no flag */
	k.key = (uintptr_t)"d";
	EXPECT_EQ(-1, ioctl(self->fd, WQ_IOC_NUM_REQUEUES, &k));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
