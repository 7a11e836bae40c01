// SPDX-License-Identifier: GPL-2.0
/*
 * Quotas (doc/security.md): each user's budget of queues and of key
 * bytes (plus WQ_KEY_COST a key) across its queues, -EDQUOT with nothing
 * changed, every charge given back when the memory is freed (also for a
 * queue destroyed but still open, and for records kept only for their
 * failures), budgets per user, and the CAP_SYS_RESOURCE bypass. The
 * other limits: quota_limits_test.c and quota_params_test.c; the fixture:
 * wq_test_quota.h.
 */
#include "wq_test_quota.h"

/* The caller's usage, from WQ_IOC_MODULE_INFO. */
static int usage(uint32_t *queues, uint64_t *bytes)
{
	struct wq_module_info mi;
	int r = raw_module_info(&mi);

	*queues = mi.user_queues;
	*bytes = mi.user_key_bytes;
	return r;
}

/* ---- queues ------------------------------------------------------------ */

static int queue_budget(void *arg)
{
	char name[WQ_NAME_MAX];
	int fd[3], extra, i;
	uint32_t nq;
	uint64_t nb;

	(void)arg;
	for (i = 0; i < 3; i++) {
		qname(name, "q", i);
		fd[i] = wq_create(name, NULL);
		CHILD_CHECK(fd[i] >= 0);
	}
	CHILD_CHECK(usage(&nq, &nb) == 0 && nq == 3);
	qname(name, "q", 3);
	CHILD_CHECK(wq_create(name, NULL) == -EDQUOT);
	CHILD_CHECK(wq_open(name) == -ENOENT);		/* nothing changed */
	CHILD_CHECK(usage(&nq, &nb) == 0 && nq == 3);

	/* destroyed but open: still charged */
	qname(name, "q", 0);
	CHILD_CHECK(wq_destroy(name) == 0);
	qname(name, "q", 3);
	CHILD_CHECK(wq_create(name, NULL) == -EDQUOT);
	/* freed: the charge comes back */
	wq_close(fd[0]);
	extra = wq_create(name, NULL);
	CHILD_CHECK(extra >= 0);
	CHILD_CHECK(wq_destroy(name) == 0);
	wq_close(extra);
	for (i = 1; i < 3; i++) {
		qname(name, "q", i);
		CHILD_CHECK(wq_destroy(name) == 0);
		wq_close(fd[i]);
	}
	CHILD_CHECK(usage(&nq, &nb) == 0 && nq == 0 && nb == 0);
	return 0;
}

TEST_F(quota, queue_budget_and_release)
{
	ASSERT_EQ(0, wqt_param_set("user_max_queues", 3));
	EXPECT_EQ(0, as_user(UID_A, queue_budget, NULL));
}

/* Fills its queue budget, tells the parent (h->up), cleans up on h->down. */
static int fill_and_hold(void *p)
{
	struct handshake *h = p;
	char name[WQ_NAME_MAX];
	int fd[2], i;

	for (i = 0; i < 2; i++) {
		qname(name, "hold", i);
		fd[i] = wq_create(name, NULL);
		CHILD_CHECK(fd[i] >= 0);
	}
	qname(name, "hold", 2);
	CHILD_CHECK(wq_create(name, NULL) == -EDQUOT);
	CHILD_CHECK(hs_send(h->up[1]) == 0);
	CHILD_CHECK(hs_recv(h->down[0]) == 0);
	for (i = 0; i < 2; i++) {
		qname(name, "hold", i);
		CHILD_CHECK(wq_destroy(name) == 0);
		wq_close(fd[i]);
	}
	return 0;
}


static int create_one(void *arg)
{
	(void)arg;
	CHILD_CHECK(create_destroy("other") == 0);
	return 0;
}

/* One user at its quota does not stop another, nor root. */
TEST_F(quota, budgets_are_per_user)
{
	struct handshake h;
	pid_t pid;

	ASSERT_EQ(0, wqt_param_set("user_max_queues", 2));
	ASSERT_EQ(0, hs_init(&h));
	pid = as_user_start(UID_A, fill_and_hold, &h);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, hs_recv(h.up[0]));
	EXPECT_EQ(0, as_user(UID_B, create_one, NULL));
	EXPECT_EQ(0, create_destroy("root"));
	ASSERT_EQ(0, hs_send(h.down[1]));
	EXPECT_EQ(0, wqt_wait_child(pid, 60000));
}

/* CAP_SYS_RESOURCE: root's queues are counted but never refused. */
TEST_F(quota, cap_sys_resource_bypasses)
{
	char name[WQ_NAME_MAX];
	uint32_t nq0, nq;
	uint64_t nb;
	int fd[3], i;

	ASSERT_EQ(0, wqt_param_set("user_max_queues", 1));
	ASSERT_EQ(0, usage(&nq0, &nb));
	for (i = 0; i < 3; i++) {
		qname(name, "cap", i);
		fd[i] = wq_create(name, NULL);
		EXPECT_GE(fd[i], 0);
	}
	ASSERT_EQ(0, usage(&nq, &nb));
	EXPECT_EQ(nq0 + 3, nq);
	for (i = 0; i < 3; i++) {
		qname(name, "cap", i);
		if (fd[i] >= 0) {
			EXPECT_EQ(0, wq_destroy(name));
			wq_close(fd[i]);
		}
	}
	ASSERT_EQ(0, usage(&nq, &nb));
	EXPECT_EQ(nq0, nq);
}

/* ---- keys -------------------------------------------------------------- */

#define KLEN	100
#define NKEYS	4

static void key100(char *k, int i)
{
	memset(k, 'a' + i, KLEN);
}

/* One chunk of the waiting heap: 512 slots, charged while the queue lives. */
#define CHUNK	4096

static int key_budget(void *arg)
{
	const uint64_t cost = KLEN + WQ_KEY_COST;
	char name[WQ_NAME_MAX], k[KLEN], buf[KLEN];
	uint64_t delay, nb;
	uint32_t nq;
	int fd, i;

	(void)arg;
	qname(name, "keys", 0);
	fd = wq_create(name, NULL);
	CHILD_CHECK(fd >= 0);
	for (i = 0; i < NKEYS; i++) {
		key100(k, i);
		CHILD_CHECK(wq_add(fd, k, KLEN) == 0);
	}
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost);
	/* key 0 waits too: the heap's first chunk is charged, not the key */
	key100(k, 0);
	CHILD_CHECK(wq_add_after(fd, k, KLEN, 3600ULL * 1000000000) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost + CHUNK);

	/* a new key of any kind is refused, and changes nothing */
	key100(k, NKEYS);
	CHILD_CHECK(wq_add(fd, k, KLEN) == -EDQUOT);
	CHILD_CHECK(wq_add_after(fd, k, KLEN, 1000000) == -EDQUOT);
	CHILD_CHECK(wq_add_rate_limited(fd, k, KLEN, &delay) == -EDQUOT);
	CHILD_CHECK(wq_num_requeues(fd, k, KLEN) == 0);
	CHILD_CHECK(wq_len(fd) == NKEYS);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost + CHUNK);
	/* a key already held costs nothing more */
	key100(k, 1);
	CHILD_CHECK(wq_add(fd, k, KLEN) == 0);
	CHILD_CHECK(wq_add_after(fd, k, KLEN, 3600ULL * 1000000000) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost + CHUNK);

	/* key 0 done but still waiting: still charged */
	CHILD_CHECK(wq_get(fd, buf, sizeof(buf), 0) == KLEN && buf[0] == 'a');
	CHILD_CHECK(wq_done(fd, buf, KLEN) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost + CHUNK);
	/* keys 2 and 3 done (1 is waiting too): their charge comes back */
	CHILD_CHECK(wq_get(fd, buf, sizeof(buf), 0) == KLEN && buf[0] == 'b');
	CHILD_CHECK(wq_done(fd, buf, KLEN) == 0);
	for (i = 2; i <= 3; i++) {
		CHILD_CHECK(wq_get(fd, buf, sizeof(buf), 0) == KLEN);
		CHILD_CHECK(wq_done(fd, buf, KLEN) == 0);
	}
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 2 * cost + CHUNK);
	key100(k, NKEYS);
	CHILD_CHECK(wq_add(fd, k, KLEN) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 3 * cost + CHUNK);

	/* everything back when the queue is freed, not before */
	CHILD_CHECK(wq_destroy(name) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 3 * cost + CHUNK);
	wq_close(fd);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 0 && nq == 0);
	return 0;
}

TEST_F(quota, key_budget_and_release)
{
	ASSERT_EQ(0, wqt_param_set("user_max_key_bytes",
			       NKEYS * (KLEN + WQ_KEY_COST) + CHUNK));
	EXPECT_EQ(0, as_user(UID_A, key_budget, NULL));
}

/* A record kept only for its failures stays charged until Forget. */
static int failure_records(void *arg)
{
	const uint64_t cost = KLEN + WQ_KEY_COST;
	struct wq_attr attr = { .limiter = "exponential:1h:1h" };
	char name[WQ_NAME_MAX], k[KLEN];
	uint64_t delay, nb;
	uint32_t nq;
	int fd;

	(void)arg;
	qname(name, "fail", 0);
	fd = wq_create(name, &attr);
	CHILD_CHECK(fd >= 0);
	key100(k, 0);
	CHILD_CHECK(wq_add_rate_limited(fd, k, KLEN, &delay) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == cost + CHUNK);
	CHILD_CHECK(wq_shutdown(fd) == 0);	/* drops the waiting key */
	CHILD_CHECK(wq_num_requeues(fd, k, KLEN) == 1);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == cost + CHUNK);
	CHILD_CHECK(wq_forget(fd, k, KLEN) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == CHUNK);
	CHILD_CHECK(wq_destroy(name) == 0);
	wq_close(fd);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 0);
	return 0;
}

TEST_F(quota, failure_records_are_charged)
{
	EXPECT_EQ(0, as_user(UID_A, failure_records, NULL));
}

/*
 * CAP_SYS_RESOURCE bypasses the byte budget for its holder's adds only:
 * others adding to the same queue (root's, mode 0666) are refused.
 */
static int add_one(void *arg)
{
	char k[KLEN];
	int fd = wq_open_flags(arg, O_WRONLY);

	CHILD_CHECK(fd >= 0);
	key100(k, 9);
	CHILD_CHECK(wq_add(fd, k, KLEN) == -EDQUOT);
	CHILD_CHECK(wq_len(fd) == 3);
	wq_close(fd);
	return 0;
}

TEST_F(quota, cap_bypass_is_the_adders)
{
	struct wq_attr attr = { .mode = 0666 };
	char name[WQ_NAME_MAX], k[KLEN];
	mode_t old;
	int fd, i;

	ASSERT_EQ(0, wqt_param_set("user_max_key_bytes", KLEN + WQ_KEY_COST));
	qname(name, "capadd", 0);
	old = umask(0);
	fd = wq_create(name, &attr);
	umask(old);
	ASSERT_GE(fd, 0);
	for (i = 0; i < 3; i++) {		/* root: beyond its budget */
		key100(k, i);
		EXPECT_EQ(0, wq_add(fd, k, KLEN));
	}
	EXPECT_EQ(0, as_user(UID_A, add_one, name));
	EXPECT_EQ(0, wq_destroy(name));
	wq_close(fd);
}


TEST_HARNESS_MAIN
