// SPDX-License-Identifier: GPL-2.0
/*
 * Quotas (libwq.md "Quotas"): each user's budget of queues and of key
 * bytes (plus WQ_KEY_COST a key) across its queues, -EDQUOT with nothing
 * changed, every charge given back when the memory is freed (also for a
 * queue destroyed but still open, and for records kept only for their
 * failures), budgets per user, the unprivileged ceilings, and the
 * CAP_SYS_RESOURCE bypass.
 *
 * The tests run as root, set the module's quota parameters, and fork
 * children that drop to other uids (losing every capability). A child
 * returns 0, or the line of the first check that failed (printed too).
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"

/* A module parameter: read, and set (as root). */
static unsigned long param_get(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/wq/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoul(buf, NULL, 10);
}

static int param_set(const char *name, unsigned long v)
{
	char path[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/module/wq/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	ok = fprintf(f, "%lu\n", v) > 0;
	return fclose(f) == 0 && ok ? 0 : -EIO;
}

/* The caller's usage, from WQ_IOC_MODULE_INFO. */
static int usage(uint32_t *queues, uint64_t *bytes)
{
	struct wq_module_info mi;
	int r = raw_module_info(&mi);

	*queues = mi.user_queues;
	*bytes = mi.user_key_bytes;
	return r;
}

FIXTURE(quota) {
	unsigned long max_queues, max_bytes;
};

FIXTURE_SETUP(quota)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (geteuid() != 0)
		SKIP(return, "needs root to set the quotas and change uid");
	self->max_queues = param_get("user_max_queues");
	self->max_bytes = param_get("user_max_key_bytes");
	ASSERT_NE(0, self->max_queues);
	ASSERT_NE(0, self->max_bytes);
}

FIXTURE_TEARDOWN(quota)
{
	wqt_reap_all();
	if (self->max_queues)
		param_set("user_max_queues", self->max_queues);
	if (self->max_bytes)
		param_set("user_max_key_bytes", self->max_bytes);
}

/* ---- queues ------------------------------------------------------------ */

static void qname(char *buf, const char *tag, int i)
{
	snprintf(buf, WQ_NAME_MAX, "quota.%s.%d.%d", tag, (int)getpid(), i);
}

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
	ASSERT_EQ(0, param_set("user_max_queues", 3));
	EXPECT_EQ(0, as_user(UID_A, queue_budget, NULL));
}

struct hold_arg {
	int ready[2];	/* child -> parent: at its quota */
	int go[2];	/* parent -> child: clean up */
};

static int fill_and_hold(void *p)
{
	struct hold_arg *h = p;
	char name[WQ_NAME_MAX];
	int fd[2], i;
	char c = 0;

	for (i = 0; i < 2; i++) {
		qname(name, "hold", i);
		fd[i] = wq_create(name, NULL);
		CHILD_CHECK(fd[i] >= 0);
	}
	qname(name, "hold", 2);
	CHILD_CHECK(wq_create(name, NULL) == -EDQUOT);
	CHILD_CHECK(write(h->ready[1], "r", 1) == 1);
	CHILD_CHECK(read(h->go[0], &c, 1) == 1);
	for (i = 0; i < 2; i++) {
		qname(name, "hold", i);
		CHILD_CHECK(wq_destroy(name) == 0);
		wq_close(fd[i]);
	}
	return 0;
}

static int create_one(void *arg)
{
	char name[WQ_NAME_MAX];
	int fd;

	(void)arg;
	qname(name, "other", 0);
	fd = wq_create(name, NULL);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wq_destroy(name) == 0);
	wq_close(fd);
	return 0;
}

/* One user at its quota does not stop another, nor root. */
TEST_F(quota, budgets_are_per_user)
{
	struct as_user a = { .uid = UID_A, .fn = fill_and_hold };
	struct hold_arg h;
	char c = 0, name[WQ_NAME_MAX];
	pid_t pid;
	int fd;

	ASSERT_EQ(0, param_set("user_max_queues", 2));
	ASSERT_EQ(0, pipe(h.ready));
	ASSERT_EQ(0, pipe(h.go));
	a.arg = &h;
	pid = wqt_spawn(as_user_main, &a);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(1, read(h.ready[0], &c, 1));
	EXPECT_EQ(0, as_user(UID_B, create_one, NULL));
	qname(name, "root", 0);
	fd = wq_create(name, NULL);
	EXPECT_GE(fd, 0);
	if (fd >= 0) {
		EXPECT_EQ(0, wq_destroy(name));
		wq_close(fd);
	}
	ASSERT_EQ(1, write(h.go[1], "g", 1));
	EXPECT_EQ(0, wqt_wait_child(pid, 60000));
}

/* CAP_SYS_RESOURCE: root's queues are counted but never refused. */
TEST_F(quota, cap_sys_resource_bypasses)
{
	char name[WQ_NAME_MAX];
	uint32_t nq0, nq;
	uint64_t nb;
	int fd[3], i;

	ASSERT_EQ(0, param_set("user_max_queues", 1));
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

	/* a new key of any kind is refused, and changes nothing */
	key100(k, NKEYS);
	CHILD_CHECK(wq_add(fd, k, KLEN) == -EDQUOT);
	CHILD_CHECK(wq_add_after(fd, k, KLEN, 1000000) == -EDQUOT);
	CHILD_CHECK(wq_add_rate_limited(fd, k, KLEN, &delay) == -EDQUOT);
	CHILD_CHECK(wq_num_requeues(fd, k, KLEN) == 0);
	CHILD_CHECK(wq_len(fd) == NKEYS);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost);
	/* a key already held costs nothing more, also when it waits too */
	key100(k, 0);
	CHILD_CHECK(wq_add(fd, k, KLEN) == 0);
	CHILD_CHECK(wq_add_after(fd, k, KLEN, 3600ULL * 1000000000) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost);

	/* key 0 done but still waiting: still charged */
	CHILD_CHECK(wq_get(fd, buf, sizeof(buf), 0) == KLEN && buf[0] == 'a');
	CHILD_CHECK(wq_done(fd, buf, KLEN) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == NKEYS * cost);
	/* keys 1 and 2 done: their charge comes back */
	for (i = 1; i <= 2; i++) {
		CHILD_CHECK(wq_get(fd, buf, sizeof(buf), 0) == KLEN);
		CHILD_CHECK(wq_done(fd, buf, KLEN) == 0);
	}
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == (NKEYS - 2) * cost);
	key100(k, NKEYS);
	CHILD_CHECK(wq_add(fd, k, KLEN) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == (NKEYS - 1) * cost);

	/* everything back when the queue is freed, not before */
	CHILD_CHECK(wq_destroy(name) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == (NKEYS - 1) * cost);
	wq_close(fd);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 0 && nq == 0);
	return 0;
}

TEST_F(quota, key_budget_and_release)
{
	ASSERT_EQ(0, param_set("user_max_key_bytes",
			       NKEYS * (KLEN + WQ_KEY_COST)));
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
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == cost);
	CHILD_CHECK(wq_shutdown(fd) == 0);	/* drops the waiting key */
	CHILD_CHECK(wq_num_requeues(fd, k, KLEN) == 1);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == cost);
	CHILD_CHECK(wq_forget(fd, k, KLEN) == 0);
	CHILD_CHECK(usage(&nq, &nb) == 0 && nb == 0);
	CHILD_CHECK(wq_destroy(name) == 0);
	wq_close(fd);
	return 0;
}

TEST_F(quota, failure_records_are_charged)
{
	EXPECT_EQ(0, as_user(UID_A, failure_records, NULL));
}

/* ---- ceilings ---------------------------------------------------------- */

static int ceilings(void *arg)
{
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int fd;

	(void)arg;
	CHILD_CHECK(raw_module_info(&mi) == 0);
	fd = raw_open_dev();
	CHILD_CHECK(fd >= 0);
	qname(name, "ceil", 0);
	CHILD_CHECK(raw_create(fd, name, NULL, mi.unpriv_max_items + 1, 0) ==
		    EINVAL);
	CHILD_CHECK(raw_create(fd, name, NULL, 0, mi.unpriv_max_tracked + 1) ==
		    EINVAL);
	CHILD_CHECK(raw_create(fd, name, NULL, mi.unpriv_max_items,
			       mi.unpriv_max_tracked) == 0);
	CHILD_CHECK(wq_destroy(name) == 0);
	close(fd);
	return 0;
}

TEST_F(quota, unprivileged_ceilings)
{
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int fd;

	EXPECT_EQ(0, as_user(UID_A, ceilings, NULL));
	/* root may ask for more */
	ASSERT_EQ(0, raw_module_info(&mi));
	ASSERT_LT(mi.unpriv_max_items, mi.max_items_limit);
	fd = raw_open_dev();
	ASSERT_GE(fd, 0);
	qname(name, "ceilroot", 0);
	EXPECT_EQ(0, raw_create(fd, name, NULL, mi.unpriv_max_items + 1, 0));
	EXPECT_EQ(0, wq_destroy(name));
	close(fd);
}

TEST_HARNESS_MAIN
