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
#define _GNU_SOURCE
#include <sched.h>
#include <sys/mount.h>

#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

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
	unsigned long max_queues, max_bytes, global_max;
};

FIXTURE_SETUP(quota)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (geteuid() != 0)
		SKIP(return, "needs root to set the quotas and change uid");
	self->max_queues = wqt_param_get("user_max_queues");
	self->max_bytes = wqt_param_get("user_max_key_bytes");
	self->global_max = wqt_param_get("max_queues");
	ASSERT_NE(0, self->max_queues);
	ASSERT_NE(0, self->max_bytes);
}

FIXTURE_TEARDOWN(quota)
{
	wqt_reap_all();
	if (self->max_queues)
		wqt_param_set("user_max_queues", self->max_queues);
	if (self->max_bytes)
		wqt_param_set("user_max_key_bytes", self->max_bytes);
	if (self->global_max)
		wqt_param_set("max_queues", self->global_max);
}

/* ---- queues ------------------------------------------------------------ */

static void qname_of(char *buf, const char *tag, int pid, int i)
{
	snprintf(buf, WQ_NAME_MAX, "quota.%s.%d.%d", tag, pid, i);
}

static void qname(char *buf, const char *tag, int i)
{
	qname_of(buf, tag, (int)getpid(), i);
}

/* Destroys queues 0..2 a child named with qname(tag) (root may). */
static void wqt_destroy_tagged(const char *tag, int pid)
{
	char name[WQ_NAME_MAX];
	int i;

	for (i = 0; i < 3; i++) {
		qname_of(name, tag, pid, i);
		wq_destroy(name);
	}
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

/* Creates and destroys a queue named for tag: 0, or the first error. */
static int create_destroy(const char *tag)
{
	char name[WQ_NAME_MAX];
	int fd, r;

	qname(name, tag, 0);
	fd = wq_create(name, NULL);
	if (fd < 0)
		return fd;
	r = wq_destroy(name);
	wq_close(fd);
	return r;
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

/*
 * Inside a user namespace a user is still charged as itself, also when the
 * namespace maps its ids to other kuids (as newuidmap does with a user's
 * subordinate ids): one account cannot multiply its budget that way.
 */
#define UID_SUB	200000

/* Unshares, tells the parent (h->up), which maps it and answers. */
static int in_userns(void *p)
{
	struct handshake *h = p;
	char name[WQ_NAME_MAX];
	int fd[2];

	qname(name, "ns", 0);
	fd[0] = wq_create(name, NULL);
	CHILD_CHECK(fd[0] >= 0);
	if (unshare(CLONE_NEWUSER)) {
		wq_destroy(name);
		return 125;			/* no user namespaces here */
	}
	CHILD_CHECK(hs_send(h->up[1]) == 0);
	CHILD_CHECK(hs_recv(h->down[0]) == 0);
	/* become ns root: kuid UID_SUB, which the user controls */
	CHILD_CHECK(setresgid(0, 0, 0) == 0 && setresuid(0, 0, 0) == 0);
	CHILD_CHECK(getuid() == 0);
	qname(name, "ns", 1);
	fd[1] = wq_create(name, NULL);
	CHILD_CHECK(fd[1] >= 0);
	qname(name, "ns", 2);
	CHILD_CHECK(wq_create(name, NULL) == -EDQUOT);	/* 2 of UID_A's */
	wq_close(fd[1]);
	wq_close(fd[0]);
	return 0;
}

TEST_F(quota, user_namespaces_share_the_budget)
{
	char path[64], map[64];
	struct handshake h;
	pid_t pid;
	int r;

	ASSERT_EQ(0, hs_init(&h));
	pid = as_user_start(UID_A, in_userns, &h);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, wqt_param_set("user_max_queues", 2));
	close(h.up[1]);		/* a child that fails early ends the wait */
	if (hs_recv(h.up[0]) == 0) {
		/* ns uid 0 is kuid UID_SUB, not UID_A: as newuidmap maps */
		snprintf(map, sizeof(map), "0 %d 1\n", UID_SUB);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
		EXPECT_EQ(0, wqt_write_file(path, map));
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
		EXPECT_EQ(0, wqt_write_file(path, map));
		EXPECT_EQ(0, hs_send(h.down[1]));
	}
	r = wqt_wait_child(pid, 60000);
	/* the child's names: its queues were charged to UID_A */
	wqt_destroy_tagged("ns", (int)pid);
	if (r == 125)
		SKIP(return, "no user namespaces in this kernel");
	EXPECT_EQ(0, r);
}

/* ---- the global max_queues ------------------------------------------- */

static int fill_registry(void *arg)
{
	int room = *(int *)arg, fd[3], i;
	char name[WQ_NAME_MAX];

	for (i = 0; i < room; i++) {
		qname(name, "full", i);
		fd[i] = wq_create(name, NULL);
		CHILD_CHECK(fd[i] >= 0);
	}
	qname(name, "full", room);
	CHILD_CHECK(wq_create(name, NULL) == -ENOSPC);
	CHILD_CHECK(wq_open(name) == -ENOENT);		/* nothing made */
	for (i = 0; i < room; i++) {
		qname(name, "full", i);
		CHILD_CHECK(wq_destroy(name) == 0);
		wq_close(fd[i]);
	}
	return 0;
}

/*
 * max_queues refuses users only (-ENOSPC): the admin (CAP_SYS_RESOURCE)
 * and kernel modules may always take a name.
 */
TEST_F(quota, max_queues_refuses_users_only)
{
	int room = 3;

	ASSERT_EQ(0, wqt_param_set("max_queues", wq_list(NULL, 0) + room));
	EXPECT_EQ(0, as_user(UID_A, fill_registry, &room));
	ASSERT_EQ(0, wqt_param_set("max_queues", wq_list(NULL, 0)));
	EXPECT_EQ(0, create_destroy("admin"));
}

/* ---- memory cgroups -------------------------------------------------- */

#define CG_ROOT	"/sys/fs/cgroup"
#define CG_KEYS	20000	/* of 4 KiB: about 90 MB of kernel memory */

/* Adds 4 KiB keys until refused; 0 if a limit refused them, not the end. */
static int fill_memcg(void *p)
{
	struct handshake *h = p;
	struct wq_attr attr = { .max_items = CG_KEYS + 1 };
	static char k[WQ_KEY_MAX];
	char name[WQ_NAME_MAX];
	volatile char stack[16384];
	int fd, i, r = 0;

	/*
	 * Touch now every page written later (the key, stdio, errno, the
	 * stack): in the full cgroup a first write to a page shared with
	 * the parent (copy on write) would call the OOM killer.
	 */
	memset(k, 'k', sizeof(k));
	memset((char *)stack, 0, sizeof(stack));
	wq_len(-1);
	fprintf(stderr, "# memcg child %d ready\n", (int)getpid());
	qname(name, "memcg", 0);
	CHILD_CHECK(hs_send(h->up[1]) == 0);
	CHILD_CHECK(hs_recv(h->down[0]) == 0);	/* now in the cgroup */
	fd = wq_create(name, &attr);
	CHILD_CHECK(fd >= 0);
	for (i = 0; i < CG_KEYS; i++) {
		snprintf(k, sizeof(k), "%d", i);
		r = wq_add(fd, k, sizeof(k));
		if (r)
			break;
	}
	fprintf(stderr, "# memcg child: %d keys, then %d\n", i, r);
	CHILD_CHECK(r == -ENOMEM && i > 100);
	return 0;
}

static int cg_write(const char *path, const char *text)
{
	int f = open(path, O_WRONLY), ok;

	if (f < 0)
		return -errno;
	ok = write(f, text, strlen(text)) == (ssize_t)strlen(text);
	close(f);
	return ok ? 0 : -EIO;
}

/*
 * Every byte a user's queue holds is charged to that user's memory cgroup
 * (GFP_KERNEL_ACCOUNT, SLAB_ACCOUNT): a cgroup with a small memory.max
 * stops the keys with -ENOMEM long before the quota does, and the rest of
 * the machine goes on.
 */
TEST_F_TIMEOUT(quota, memory_cgroup_bounds_the_keys, 300)
{
	char cg[128], path[192], pidtext[32], name[WQ_NAME_MAX];
	struct handshake h;
	pid_t pid;
	int r, fd;

	if (access(CG_ROOT "/cgroup.controllers", F_OK))
		mount("none", CG_ROOT, "cgroup2", 0, NULL);
	if (cg_write(CG_ROOT "/cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller");
	snprintf(cg, sizeof(cg), CG_ROOT "/wq-memcg-%d", (int)getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, cg_write(path, "16M"));
	/* the quota must not be what stops it */
	ASSERT_EQ(0, wqt_param_set("user_max_key_bytes", 1UL << 30));

	ASSERT_EQ(0, hs_init(&h));
	pid = as_user_start(UID_A, fill_memcg, &h);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, hs_recv(h.up[0]));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
	EXPECT_EQ(0, cg_write(path, pidtext));
	ASSERT_EQ(0, hs_send(h.down[1]));
	r = wqt_wait_child(pid, 240000);
	EXPECT_EQ(0, r);
	qname_of(name, "memcg", (int)pid, 0);
	EXPECT_EQ(0, wq_destroy(name));		/* frees what it held */
	rmdir(cg);

	/* the machine goes on: a queue and keys outside the cgroup */
	qname(name, "after", 0);
	fd = wq_create(name, NULL);
	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, wq_add(fd, "k", 1));
	EXPECT_EQ(0, wq_destroy(name));
	wq_close(fd);
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
