// SPDX-License-Identifier: GPL-2.0
/*
 * What client-go's users have asked of a key (through raw ioctls): its
 * state (WQ_IOC_KEY_STATE: kubernetes#119979), cancelling its delay
 * (WQ_IOC_CANCEL_AFTER: client-go#131), on plain and priority queues; and
 * the batch calls and metrics of priority queues: ADD_BATCH's priority
 * and outcomes, GET_BATCH's order and priorities, the depth by level.
 */
#include "wq_test_util.h"
#include "wq_test_time.h"
#include "wq_test_prio.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

FIXTURE(keys) {
	int plain;
	int prio;
};

FIXTURE_SETUP(keys)
{
	struct wq_module_info mi;

	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_TRUE(mi.features & WQ_FEATURE_KEY_CALLS);
	self->plain = prio_queue(0, 0, NULL);
	ASSERT_LE(0, self->plain);
	self->prio = prio_queue(WQ_CREATE_PRIORITY, 0, NULL);
	ASSERT_LE(0, self->prio);
}

FIXTURE_TEARDOWN(keys)
{
	if (self->plain >= 0)
		close(self->plain);
	if (self->prio >= 0)
		close(self->prio);
}

/* Every state a key can be in, each field. */
TEST_F(keys, state_of_each_kind_of_key)
{
	struct wq_key_info ks;
	int64_t t0 = now_ns();
	char buf[64];
	int fd = self->prio;

	ASSERT_EQ(0, pstate(fd, "none", &ks));
	EXPECT_EQ(0U, ks.state);
	EXPECT_EQ(0, ks.priority);
	EXPECT_EQ(0ULL, ks.ready_ns);
	EXPECT_EQ(0U, ks.requeues);

	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "k", 4));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.state);
	EXPECT_EQ(4, ks.priority);

	ASSERT_EQ(1, pget(fd, buf, NULL));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_PROCESSING, ks.state);
	EXPECT_EQ(4, ks.priority);

	/* a delay while processing: a waiting copy, dropped by a plain add */
	ASSERT_EQ(WQ_ADDED_WAITING, padd_after(fd, "k", 0, HOUR));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_PROCESSING | WQ_KEY_WAITING, ks.state);
	EXPECT_EQ(4, ks.priority);		/* the hand-out's */
	EXPECT_LE((uint64_t)t0 + HOUR, ks.ready_ns);
	EXPECT_GT((uint64_t)now_ns() + HOUR + SEC, ks.ready_ns);
	ASSERT_EQ(WQ_ADDED_DIRTY, padd(fd, "k", 9));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_PROCESSING | WQ_KEY_DIRTY, ks.state);
	EXPECT_EQ(4, ks.priority);
	EXPECT_EQ(0ULL, ks.ready_ns);

	ASSERT_EQ(0, pdone(fd, "k"));		/* queued again, at 9 */
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_QUEUED, ks.state);
	EXPECT_EQ(9, ks.priority);

	/* on a plain queue all of them at once */
	fd = self->plain;
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "k", 0));
	ASSERT_EQ(1, pget(fd, buf, NULL));
	ASSERT_EQ(WQ_ADDED_DIRTY, padd(fd, "k", 0));
	ASSERT_EQ(WQ_ADDED_WAITING, padd_after(fd, "k", 0, HOUR));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_PROCESSING | WQ_KEY_DIRTY | WQ_KEY_WAITING,
		  ks.state);
	EXPECT_EQ(0, ks.priority);
	ASSERT_EQ(0, pdone(fd, "k"));
	ASSERT_EQ(0, pstate(fd, "k", &ks));
	EXPECT_EQ(WQ_KEY_QUEUED | WQ_KEY_WAITING, ks.state);
}

/* The limiter's failures show as requeues and WQ_KEY_TRACKED. */
TEST_F(keys, state_counts_failures)
{
	struct wq_limiter lim = {		/* waits long enough to be seen */
		.nr_terms = 1,
		.terms = { { .kind = WQ_LIMITER_EXPONENTIAL,
			     .exponential = { .base_ns = HOUR,
					      .max_ns = 2 * HOUR } } },
	};
	struct wq_key_info ks;
	int fd = prio_queue(0, 0, &lim);
	uint64_t d;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, padd_full(fd, "f", WQ_ADD_RATE_LIMITED, 0, 0, &d));
	ASSERT_LE(0, padd_full(fd, "f", WQ_ADD_RATE_LIMITED, 0, 0, &d));
	ASSERT_EQ(0, pstate(fd, "f", &ks));
	EXPECT_EQ(WQ_KEY_WAITING | WQ_KEY_TRACKED, ks.state);
	EXPECT_EQ(2U, ks.requeues);
	EXPECT_NE(0ULL, ks.ready_ns);
	close(fd);
}

/* Cancel: 1 for a waiting copy, else 0; a key held by nothing else goes. */
TEST_F(keys, cancel_after)
{
	int fds[2] = { self->plain, self->prio }, i;
	struct wq_queue_info qi;
	struct wq_key_info ks;
	char buf[64];

	for (i = 0; i < 2; i++) {
		int fd = fds[i];

		EXPECT_EQ(0, pcancel(fd, "nothing"));
		ASSERT_EQ(WQ_ADDED_WAITING, padd_after(fd, "w", 0, HOUR));
		EXPECT_EQ(1, pcancel(fd, "w"));
		EXPECT_EQ(0, pcancel(fd, "w"));
		ASSERT_EQ(0, raw_stat(fd, &qi));
		EXPECT_EQ(0U, qi.keys);
		EXPECT_EQ(0U, qi.waiting);
		/* processing and waiting: stays processing */
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "p", 0));
		ASSERT_EQ(1, pget(fd, buf, NULL));
		ASSERT_EQ(WQ_ADDED_WAITING, padd_after(fd, "p", 0, HOUR));
		EXPECT_EQ(1, pcancel(fd, "p"));
		ASSERT_EQ(0, pstate(fd, "p", &ks));
		EXPECT_EQ(WQ_KEY_PROCESSING, ks.state);
		EXPECT_EQ(0, pdone(fd, "p"));
		ASSERT_EQ(0, raw_stat(fd, &qi));
		EXPECT_EQ(0U, qi.keys);
		/* a queued key is no delay to cancel */
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(fd, "q", 0));
		EXPECT_EQ(0, pcancel(fd, "q"));
		EXPECT_EQ(1, wq_len(fd));
	}
}

/* A cancelled delay never fires. */
TEST_F(keys, cancelled_delay_never_fires)
{
	char buf[64];

	ASSERT_EQ(WQ_ADDED_WAITING, padd_after(self->plain, "x", 0, 50 * MS));
	ASSERT_EQ(1, pcancel(self->plain, "x"));
	wqt_sleep_ms(250);
	EXPECT_EQ(-EAGAIN, pget(self->plain, buf, NULL));
}

/* Cancel needs write access; bad input is -EINVAL and changes nothing. */
TEST_F(keys, bad_calls)
{
	struct wq_key k = { .key_len = 1, .key = (uintptr_t)"w" };
	struct wq_key_info ks;
	char name[WQ_NAME_MAX];
	int fd, ro;

	wqt_name(name, "keycalls");
	fd = wq_create(name, NULL);
	ASSERT_LE(0, fd);
	ro = wq_open_flags(name, O_RDONLY);
	ASSERT_LE(0, ro);
	ASSERT_EQ(WQ_ADDED_WAITING, padd_after(fd, "w", 0, HOUR));
	EXPECT_EQ(-EBADF, pcancel(ro, "w"));
	ASSERT_EQ(0, pstate(ro, "w", &ks));	/* any handle may look */
	EXPECT_EQ(WQ_KEY_WAITING, ks.state);
	k.flags = 1;
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_CANCEL_AFTER, &k));
	k.flags = 0;
	k.value = 1;
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_CANCEL_AFTER, &k));
	k.value = 0;
	k.key_len = 0;
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_CANCEL_AFTER, &k));
	memset(&ks, 0, sizeof(ks));
	ks.key_len = 1;
	ks.key = (uintptr_t)"w";
	ks.reserved = 1;
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_KEY_STATE, &ks));
	ks.reserved = 0;
	ks.state = 1;				/* output fields: 0 in */
	EXPECT_EQ(EINVAL, xioctl(fd, WQ_IOC_KEY_STATE, &ks));
	ks.state = 0;
	ks.key = 1;				/* unreadable key */
	EXPECT_EQ(EFAULT, xioctl(fd, WQ_IOC_KEY_STATE, &ks));
	EXPECT_EQ(1, pcancel(fd, "w"));		/* still waiting */
	close(ro);
	close(fd);
	EXPECT_EQ(0, wq_destroy(name));
}

/*
 * ADD_BATCH of @count keys at @prio, outcomes on, the batch filled in @b
 * (for a caller to send again): the ioctl's result.
 */
static int prio_add_batch(int fd, struct wq_batch *b, struct wq_iov *iov,
			  int32_t *res, uint32_t count, int32_t prio)
{
	memset(b, 0, sizeof(*b));
	b->flags = WQ_ADD_PRIORITY | WQ_ADD_OUTCOME;
	b->count = count;
	b->keys = (uintptr_t)iov;
	b->results = (uintptr_t)res;
	b->priority = prio;
	return ioctl(fd, WQ_IOC_ADD_BATCH, b);
}

/* ADD_BATCH at a priority, with outcomes; GET_BATCH in order, with them. */
TEST_F(keys, batches_on_a_priority_queue)
{
	const char *k[] = { "a", "b", "a", "c" };
	struct wq_iov iov[4], out[8];
	int32_t res[4], prios[8];
	struct wq_batch b;
	char buf[256];
	int i;

	for (i = 0; i < 4; i++)
		iov[i] = (struct wq_iov){ .base = (uintptr_t)k[i], .len = 1 };
	ASSERT_EQ(WQ_ADDED_QUEUED, padd(self->prio, "z", 1));
	ASSERT_EQ(4, prio_add_batch(self->prio, &b, iov, res, 4, 5));
	EXPECT_EQ(WQ_ADDED_QUEUED, res[0]);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[1]);
	EXPECT_EQ(WQ_ADDED_COALESCED, res[2]);
	EXPECT_EQ(WQ_ADDED_QUEUED, res[3]);
	/* a plain queue refuses the priority, takes the outcomes */
	EXPECT_EQ(-1, ioctl(self->plain, WQ_IOC_ADD_BATCH, &b));
	EXPECT_EQ(EINVAL, errno);
	b.flags = WQ_ADD_OUTCOME;
	b.priority = 0;
	ASSERT_EQ(4, ioctl(self->plain, WQ_IOC_ADD_BATCH, &b));
	EXPECT_EQ(WQ_ADDED_COALESCED, res[2]);

	memset(&b, 0, sizeof(b));
	b.count = 8;
	b.keys = (uintptr_t)out;
	b.results = (uintptr_t)prios;
	b.buf = (uintptr_t)buf;
	b.buf_cap = sizeof(buf);
	b.flags = WQ_GET_NONBLOCK;
	ASSERT_EQ(4, ioctl(self->prio, WQ_IOC_GET_BATCH, &b));
	EXPECT_EQ(0, memcmp((char *)(uintptr_t)out[0].base, "a", 1));
	EXPECT_EQ(0, memcmp((char *)(uintptr_t)out[1].base, "b", 1));
	EXPECT_EQ(0, memcmp((char *)(uintptr_t)out[2].base, "c", 1));
	EXPECT_EQ(0, memcmp((char *)(uintptr_t)out[3].base, "z", 1));
	EXPECT_EQ(5, prios[0]);
	EXPECT_EQ(5, prios[2]);
	EXPECT_EQ(1, prios[3]);
}

/*
 * A batch whose first key keeps a higher priority, then new keys: the
 * batch's level is still there for them, in both holds of a chunk.
 */
TEST_F(keys, batch_after_a_key_that_keeps_its_priority)
{
	const char *k[] = { "hi", "n1", "n2", "hi", "n3" };
	struct wq_iov iov[5];
	int32_t res[5];
	struct wq_batch b;
	char buf[64];
	int i, round;

	for (i = 0; i < 5; i++)
		iov[i] = (struct wq_iov){ .base = (uintptr_t)k[i],
					  .len = strlen(k[i]) };
	for (round = 0; round < 2; round++) {	/* allocated, then spare */
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(self->prio, "hi", 9));
		ASSERT_EQ(5, prio_add_batch(self->prio, &b, iov, res, 5, 3));
		EXPECT_EQ(WQ_ADDED_COALESCED, res[0]);
		EXPECT_EQ(WQ_ADDED_QUEUED, res[1]);
		EXPECT_EQ(WQ_ADDED_QUEUED, res[4]);
		EXPECT_NEXT(self->prio, "hi", 9);
		EXPECT_NEXT(self->prio, "n1", 3);
		EXPECT_NEXT(self->prio, "n2", 3);
		EXPECT_NEXT(self->prio, "n3", 3);
		for (i = 0; i < 5; i++)
			pdone(self->prio, k[i]);
		EXPECT_EQ(-EAGAIN, pget(self->prio, buf, NULL));
	}
}

/* A user at its byte budget, and the parent that sets the budget. */
struct budget {
	struct handshake hs;
	unsigned long long usage;	/* the user's bytes, its new budget */
};

/* ADD_BATCH of one key at @prio, outcomes on: its result. */
static int batch_one(int fd, const char *key, int32_t prio)
{
	struct wq_iov v = { .base = (uintptr_t)key, .len = strlen(key) };
	int32_t res = 12345;
	struct wq_batch b = {
		.flags = WQ_ADD_PRIORITY | WQ_ADD_OUTCOME, .count = 1,
		.keys = (uintptr_t)&v, .results = (uintptr_t)&res,
		.priority = prio,
	};

	return ioctl(fd, WQ_IOC_ADD_BATCH, &b) < 0 ? -errno : res;
}

/*
 * As UID_A, with the budget set to what its queue uses: a new level is
 * -EDQUOT, an add that needs none is what it is on any queue (single or
 * batched), and after the shutdown -ESHUTDOWN comes first.
 */
static int at_budget(void *arg)
{
	struct budget *b = arg;
	struct wq_module_info mi;
	int fd = prio_queue(WQ_CREATE_PRIORITY, 0, NULL);

	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(padd(fd, "k0", 5) == WQ_ADDED_QUEUED);
	memset(&mi, 0, sizeof(mi));
	CHILD_CHECK(raw_module_info(&mi) == 0);
	b->usage = mi.user_key_bytes;
	CHILD_CHECK(hs_send(b->hs.up[1]) == 0 && hs_recv(b->hs.down[0]) == 0);
	CHILD_CHECK(padd(fd, "k0", 1) == WQ_ADDED_COALESCED);	/* no level */
	CHILD_CHECK(batch_one(fd, "k0", 1) == WQ_ADDED_COALESCED);
	CHILD_CHECK(batch_one(fd, "k0", 5) == WQ_ADDED_COALESCED);
	CHILD_CHECK(padd(fd, "k0", 7) == -EDQUOT);	/* a raise: a level */
	CHILD_CHECK(batch_one(fd, "k0", 7) == -EDQUOT);
	CHILD_CHECK(wq_len(fd) == 1);
	CHILD_CHECK(wq_shutdown(fd) == 0);
	CHILD_CHECK(padd(fd, "k2", 7) == -ESHUTDOWN);
	CHILD_CHECK(batch_one(fd, "k2", 7) == -ESHUTDOWN);
	close(fd);
	return 0;
}

/* A priority level is charged to the budget; errors in their order. */
TEST_F(keys, levels_charged_to_the_budget)
{
	unsigned long old = wqt_param_get("user_max_key_bytes");
	struct budget *b = wqt_shared(sizeof(*b));
	pid_t pid;

	ASSERT_NE(NULL, b);
	ASSERT_NE(0UL, old);
	ASSERT_EQ(0, hs_init(&b->hs));
	pid = as_user_start(UID_A, at_budget, b);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, hs_recv(b->hs.up[0]));
	ASSERT_LT(0ULL, b->usage);
	EXPECT_EQ(0, wqt_param_set("user_max_key_bytes", b->usage));
	ASSERT_EQ(0, hs_send(b->hs.down[1]));
	EXPECT_EQ(0, wqt_wait_child(pid, 60000));
	EXPECT_EQ(0, wqt_param_set("user_max_key_bytes", old));
}

/* The depth by level: highest first, and the levels beyond summed. */
TEST_F(keys, metrics_depth_by_level)
{
	struct wq_metrics_info *m = calloc(1, sizeof(*m));
	struct wq_metrics_req r = { .size = sizeof(*m) };
	char key[32], buf[64];
	unsigned int i;

	ASSERT_NE(NULL, m);
	r.metrics = (uintptr_t)m;
	for (i = 0; i < WQ_LEVELS_MAX + 4; i++) {
		snprintf(key, sizeof(key), "l%u", i);
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(self->prio, key, (int32_t)i));
		ASSERT_EQ(WQ_ADDED_QUEUED, padd(self->prio, key + 1,
						(int32_t)i));
	}
	/* one key taken and made dirty at the top level's priority */
	ASSERT_LT(0, pget(self->prio, buf, NULL));
	ASSERT_EQ(WQ_ADDED_DIRTY, padd(self->prio, buf, 30));
	ASSERT_EQ(0, xioctl(self->prio, WQ_IOC_METRICS, &r));
	EXPECT_EQ(2ULL * (WQ_LEVELS_MAX + 4), m->depth);
	ASSERT_EQ((uint32_t)WQ_LEVELS_MAX, m->nr_levels);
	EXPECT_EQ(30, m->levels[0].priority);		/* the dirty key */
	EXPECT_EQ(1ULL, m->levels[0].depth);
	EXPECT_EQ((int32_t)WQ_LEVELS_MAX + 3, m->levels[1].priority);
	EXPECT_EQ(1ULL, m->levels[1].depth);	/* its other key was taken */
	EXPECT_EQ((int32_t)WQ_LEVELS_MAX + 2, m->levels[2].priority);
	EXPECT_EQ(2ULL, m->levels[2].depth);
	/* 21 levels with a depth: the last entry sums the lowest 6 */
	EXPECT_EQ(6U, m->levels_summed);
	EXPECT_EQ(5, m->levels[WQ_LEVELS_MAX - 1].priority);
	EXPECT_EQ(12ULL, m->levels[WQ_LEVELS_MAX - 1].depth);
	/* a plain queue has no levels */
	ASSERT_EQ(0, xioctl(self->plain, WQ_IOC_METRICS, &r));
	EXPECT_EQ(0U, m->nr_levels);
	free(m);
}

TEST_HARNESS_MAIN
