// SPDX-License-Identifier: GPL-2.0
/*
 * Quotas, the other limits (the budgets: quota_test.c; the fixture:
 * wq_test_quota.h): a user's budget shared by the user namespaces it
 * makes, a container's (a user namespace root made) one budget whatever
 * uids it maps, the key table's growth charged once by producers that
 * cross its threshold together, the global max_queues and memory
 * cgroups (the key counts' parameters: quota_params_test.c).
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include "wq_test_quota.h"

/* ---- user namespaces -------------------------------------------------- */

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

/* ---- containers: a user namespace root made --------------------------- */

#define CT_BASE	200000	/* the container's uid 0 on the host */
#define CT_UIDS	8	/* the uids of the container that create */
#define CT_MAX	3	/* user_max_queues in the test */

/* As uid in the container: one queue; the result of wq_create. */
static int ct_create_as(uid_t uid)
{
	char name[WQ_NAME_MAX];
	pid_t pid;
	int fd, status;

	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(126);
		qname_of(name, "ct", (int)getppid(), (int)uid);
		fd = wq_create(name, NULL);
		_exit(fd >= 0 ? 0 : -fd);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return -WEXITSTATUS(status);
}

/*
 * Root made the user namespace (a container): its uids, however many it
 * maps, are one budget. Uids 0..CT_UIDS-1 of the container create a queue
 * each: the first CT_MAX do, the others get -EDQUOT; a key one uid adds
 * shows in what another is charged.
 */
static int in_container(void *p)
{
	struct handshake *h = p;
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int fd, uid;

	if (unshare(CLONE_NEWUSER))
		return 125;			/* no user namespaces here */
	CHILD_CHECK(hs_send(h->up[1]) == 0);
	CHILD_CHECK(hs_recv(h->down[0]) == 0);	/* mapped */
	CHILD_CHECK(setresgid(0, 0, 0) == 0 && setresuid(0, 0, 0) == 0);
	for (uid = 0; uid < CT_UIDS; uid++)
		CHILD_CHECK(ct_create_as(uid) == (uid < CT_MAX ? 0 : -EDQUOT));
	CHILD_CHECK(raw_module_info(&mi) == 0);
	CHILD_CHECK(mi.user_queues == CT_MAX);
	CHILD_CHECK(mi.user_key_bytes == 0);
	qname(name, "ct", 0);
	fd = wq_open(name);			/* uid 0's queue */
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(ADD(fd, "0123456789") == 0);
	wq_close(fd);
	if (fork() == 0)			/* uid 7: the same budget */
		_exit(setresuid(7, 7, 7) || raw_module_info(&mi) ||
		      mi.user_queues != CT_MAX ||
		      mi.user_key_bytes != 10 + mi.key_cost);
	CHILD_CHECK(wait(&fd) > 0 && WIFEXITED(fd) && !WEXITSTATUS(fd));
	CHILD_CHECK(hs_send(h->up[1]) == 0);	/* full: the host's turn */
	CHILD_CHECK(hs_recv(h->down[0]) == 0);
	return 0;
}

/* A host user's own budget: CT_MAX queues. */
static int host_user_fills(void *arg)
{
	char name[WQ_NAME_MAX];
	int fd[CT_MAX], i;

	(void)arg;
	for (i = 0; i < CT_MAX; i++) {
		qname(name, "host", i);
		fd[i] = wq_create(name, NULL);
		CHILD_CHECK(fd[i] >= 0);
	}
	qname(name, "host", CT_MAX);
	CHILD_CHECK(wq_create(name, NULL) == -EDQUOT);
	for (i = 0; i < CT_MAX; i++) {
		qname(name, "host", i);
		CHILD_CHECK(wq_destroy(name) == 0);
		wq_close(fd[i]);
	}
	return 0;
}

TEST_F(quota, a_container_is_one_budget)
{
	char path[64], map[64], name[WQ_NAME_MAX];
	struct handshake h;
	pid_t pid;
	int r, uid;

	ASSERT_EQ(0, wqt_param_set("user_max_queues", CT_MAX));
	ASSERT_EQ(0, hs_init(&h));
	pid = wqt_spawn(in_container, &h);
	ASSERT_GT(pid, 0);
	close(h.up[1]);		/* a child that fails early ends the wait */
	if (hs_recv(h.up[0]) == 0) {
		snprintf(map, sizeof(map), "0 %d 65536\n", CT_BASE);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
		EXPECT_EQ(0, wqt_write_file(path, map));
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)pid);
		EXPECT_EQ(0, wqt_write_file(path, map));
		EXPECT_EQ(0, hs_send(h.down[1]));
	}
	if (hs_recv(h.up[0]) == 0) {
		/* the container is full; the host's users are not */
		EXPECT_EQ(0, as_user(UID_B, host_user_fills, NULL));
		EXPECT_EQ(0, hs_send(h.down[1]));
	}
	r = wqt_wait_child(pid, 60000);
	if (r == 125)
		SKIP(return, "no user namespaces in this kernel");
	for (uid = 0; uid < CT_UIDS; uid++) {
		qname_of(name, "ct", (int)pid, uid);
		EXPECT_EQ(uid < CT_MAX ? 0 : -ENOENT, wq_destroy(name));
	}
	EXPECT_EQ(0, r);
}

/* ---- the key table's growth ------------------------------------------- */

/*
 * The table grows (doubles) when it holds more than 2 << s keys for 2^s
 * buckets; the growth is charged (8 << s bytes, half the new array) to
 * the queue's owner, and never refused. At each of the thresholds tried,
 * the keys up to it are added by one producer, the byte budget is set to
 * what is charged then plus one growth plus GROW_THREADS records, and
 * GROW_THREADS producers add a key each at once: the growth must be
 * charged once, or the records of the burst are refused.
 */
#define GROW_FIRST	10	/* 2 << 10 keys: an 8 KiB growth */
#define GROW_LAST	13	/* 2 << 13 keys: 64 KiB */
#define GROW_THREADS	32
#define GROW_ROUNDS	4	/* bursts at each threshold (new queues) */

struct grow {
	pthread_barrier_t go, done;
	int fd, base;			/* the burst: keys base + t */
	atomic_int refused, first_err;
	bool stop;
};

struct grow_producer {
	struct grow *g;
	int t;
	pthread_t th;
};

static void *grow_burst(void *p)
{
	struct grow_producer *w = p;
	struct grow *g = w->g;
	int r;

	for (;;) {
		pthread_barrier_wait(&g->go);
		if (g->stop)
			return NULL;
		r = wqt_add_i(g->fd, g->base + w->t);
		if (r) {
			atomic_fetch_add(&g->refused, 1);
			atomic_compare_exchange_strong(&g->first_err,
						       &(int){ 0 }, r);
		}
		pthread_barrier_wait(&g->done);
	}
}

/* Leaves root (uid 0) without CAP_SYS_RESOURCE: charged, and refused. */
static int drop_sys_resource(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective &=
		~CAP_TO_MASK(CAP_SYS_RESOURCE);
	data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].permitted &=
		~CAP_TO_MASK(CAP_SYS_RESOURCE);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

/* One queue: bursts at each threshold; 0 or the first check that failed. */
static int grow_queue(struct grow *g, int round)
{
	struct wq_attr attr = { .max_items = (2 << GROW_LAST) + GROW_THREADS };
	struct wq_module_info mi;
	char name[WQ_NAME_MAX];
	int s, i = 0;

	qname(name, "grow", round);
	g->fd = wq_create(name, &attr);
	CHILD_CHECK(g->fd >= 0);
	for (s = GROW_FIRST; s <= GROW_LAST; s++) {
		CHILD_CHECK(wqt_param_set("user_max_key_bytes", 1UL << 30) == 0);
		for (; i < (2 << s); i++)
			CHILD_CHECK(wqt_add_i(g->fd, i) == 0);
		CHILD_CHECK(raw_module_info(&mi) == 0);
		CHILD_CHECK(wqt_param_set("user_max_key_bytes",
					  mi.user_key_bytes + (8UL << s) +
					  GROW_THREADS * (WQT_KEY_LEN +
							  mi.key_cost)) == 0);
		g->base = i;
		pthread_barrier_wait(&g->go);
		pthread_barrier_wait(&g->done);
		i += GROW_THREADS;
		if (atomic_load(&g->refused))
			fprintf(stderr, "# %d keys: %d adds of %d refused (%d)\n",
				2 << s, atomic_load(&g->refused), GROW_THREADS,
				atomic_load(&g->first_err));
		CHILD_CHECK(atomic_load(&g->refused) == 0);
	}
	CHILD_CHECK(wq_destroy(name) == 0);
	wq_close(g->fd);
	return 0;
}

static int grow_run(void *arg)
{
	struct grow_producer w[GROW_THREADS];
	struct wq_module_info mi;
	struct grow *g = arg;
	uint64_t before;
	int i, r = 0;

	CHILD_CHECK(drop_sys_resource() == 0);
	CHILD_CHECK(raw_module_info(&mi) == 0);
	before = mi.user_key_bytes;
	pthread_barrier_init(&g->go, NULL, GROW_THREADS + 1);
	pthread_barrier_init(&g->done, NULL, GROW_THREADS + 1);
	for (i = 0; i < GROW_THREADS; i++) {
		w[i].g = g;
		w[i].t = i;
		CHILD_CHECK(!pthread_create(&w[i].th, NULL, grow_burst, &w[i]));
	}
	for (i = 0; i < GROW_ROUNDS && !r; i++)
		r = grow_queue(g, i);
	g->stop = true;
	pthread_barrier_wait(&g->go);
	for (i = 0; i < GROW_THREADS; i++)
		pthread_join(w[i].th, NULL);
	CHILD_CHECK(r == 0);
	CHILD_CHECK(raw_module_info(&mi) == 0);
	CHILD_CHECK(mi.user_key_bytes == before);	/* all given back */
	return 0;
}

/*
 * Producers that cross a growth threshold together charge one bigger
 * table, not one each (run as root without CAP_SYS_RESOURCE, which sets
 * the budget between the steps).
 */
TEST_F_TIMEOUT(quota, producers_growing_the_table_charge_it_once, 300)
{
	struct grow g = { 0 };

	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(grow_run, &g), 240000));
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
	if (wqt_write_file(CG_ROOT "/cgroup.subtree_control", "+memory"))
		SKIP(return, "no memory controller");
	snprintf(cg, sizeof(cg), CG_ROOT "/wq-memcg-%d", (int)getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, wqt_write_file(path, "16M"));
	/* the quota must not be what stops it */
	ASSERT_EQ(0, wqt_param_set("user_max_key_bytes", 1UL << 30));

	ASSERT_EQ(0, hs_init(&h));
	pid = as_user_start(UID_A, fill_memcg, &h);
	ASSERT_GT(pid, 0);
	ASSERT_EQ(0, hs_recv(h.up[0]));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pidtext, sizeof(pidtext), "%d", (int)pid);
	EXPECT_EQ(0, wqt_write_file(path, pidtext));
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

TEST_HARNESS_MAIN
