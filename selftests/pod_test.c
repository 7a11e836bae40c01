// SPDX-License-Identifier: GPL-2.0
/*
 * A pod's life (doc/security.md): the named queues of an IPC namespace
 * live as long as the namespace, not as long as a /dev/wq file. A sandbox
 * process holds the namespace, as a pod's does; a controller joins it
 * (setns(), as a container's processes do), makes its queue, holds keys,
 * leaves delays and backoff behind, and is killed; its successor finds
 * every key where it must be. When nothing holds the namespace any more
 * (no task, no nsfs file) its queues and their quota go within the
 * reaper's round. And a thousand short-lived namespaces that made queues
 * leave no queue, no quota and no namespace behind.
 */
#include "wq_test_util.h"
#include "wq_test_ioctl.h"
#include "wq_test_users.h"
#include "wq_test_files.h"

#include <sched.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#define LIMITER		"exponential:30s:1h"
#define DELAY_NS	(60 * 1000000000ULL)
/* the reaper's round is a second (WQ_IPC_REAP_INTERVAL): generous here */
#define GONE_MS		15000

/* What the first controller leaves and its successor checks. */
struct pod {
	struct handshake hs;
	pid_t sandbox;		/* the process that holds the namespace */
	int nsfd;		/* an nsfs file of it the parent holds, or -1 */
	uint64_t ready_ns;	/* the delayed key's ready time */
};

static struct pod *pod;

/* The sandbox: a new IPC namespace, held until the process is killed. */
static int sandbox(void *arg)
{
	struct handshake *hs = arg;

	CHILD_CHECK(unshare(CLONE_NEWIPC) == 0);
	CHILD_CHECK(hs_send(hs->up[1]) == 0);
	for (;;)
		pause();
	return 0;
}

/* /proc/PID/ns/ipc of @pid, opened: an nsfs file of its namespace. */
static int ns_of(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", (int)pid);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Starts a sandbox; its pid and its namespace's inode. */
static pid_t sandbox_start(unsigned long *inum)
{
	struct handshake hs;
	struct stat st;
	pid_t pid;
	int fd;

	if (hs_init(&hs))
		return -1;
	pid = wqt_spawn(sandbox, &hs);
	if (pid < 0 || hs_recv(hs.up[0]))
		return -1;
	fd = ns_of(pid);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	close(fd);
	*inum = st.st_ino;
	return pid;
}

/*
 * A container's process: into the pod's namespace (through the sandbox's
 * nsfs file, closed again, or the parent's if the sandbox is gone), then
 * uid UID_B.
 */
static int join_pod(void)
{
	int fd = pod->nsfd >= 0 ? dup(pod->nsfd) : ns_of(pod->sandbox);

	if (fd < 0 || setns(fd, CLONE_NEWIPC) || drop_to(UID_B))
		return -1;
	close(fd);
	umask(077);
	return 0;
}

static int controller_first(void *arg)
{
	struct wq_attr attr = { .limiter = LIMITER, .mode = 0600 };
	struct wq_key_state ks;
	char b[16];
	uint64_t d;
	int fd;

	(void)arg;
	CHILD_CHECK(join_pod() == 0);
	fd = wq_create("ctl", &attr);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(ADD(fd, "k1") == 0 && ADD(fd, "k2") == 0);
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 2 && !strcmp(b, "k1"));
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 2 && !strcmp(b, "k2"));
	CHILD_CHECK(AFTER(fd, "k3", DELAY_NS) == 0);
	CHILD_CHECK(wq_add_rate_limited(fd, "k4", 2, &d) == 0);
	CHILD_CHECK(d == 30 * 1000000000ULL);
	CHILD_CHECK(ADD(fd, "k5") == 0);
	CHILD_CHECK(wq_key_state(fd, "k3", 2, &ks) == 0);
	CHILD_CHECK(ks.flags == WQ_KEY_WAITING);
	pod->ready_ns = ks.ready_ns;
	CHILD_CHECK(hs_send(pod->hs.up[1]) == 0);
	for (;;)
		pause();		/* killed holding k1 and k2 */
	return 0;
}

/* Its successor: every key where the first one left it, in the pod. */
static int controller_next(void *arg)
{
	struct wq_key_state ks;
	struct wq_stats st;
	char b[16];
	int fd;

	(void)arg;
	CHILD_CHECK(join_pod() == 0);
	fd = wq_open("ctl");
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(wqt_stat(fd, &st) == 0);
	CHILD_CHECK(st.processing == 0 && st.waiting == 2);
	/* queued k5, then k1 and k2 put back when their holder died */
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 2 && !strcmp(b, "k5"));
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 2 && !strcmp(b, "k1"));
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 2 && !strcmp(b, "k2"));
	CHILD_CHECK(wq_get(fd, b, sizeof(b), 0) == -EAGAIN);
	/* the delay keeps its time, the backoff its failure */
	CHILD_CHECK(wq_key_state(fd, "k3", 2, &ks) == 0);
	CHILD_CHECK(ks.flags == WQ_KEY_WAITING && ks.ready_ns == pod->ready_ns);
	CHILD_CHECK(wq_key_state(fd, "k4", 2, &ks) == 0);
	CHILD_CHECK((ks.flags & WQ_KEY_WAITING) && ks.requeues == 1);
	CHILD_CHECK(wq_num_requeues(fd, "k4", 2) == 1);
	CHILD_CHECK(DONE(fd, "k5") == 0);
	wq_close(fd);			/* k1 and k2 go back again */
	return 0;
}

/* UID_B's quota use, as MODULE_INFO tells it (in UID_B's own budget). */
static int quota_of_b(void *arg)
{
	struct wq_module_info mi;

	(void)arg;
	CHILD_CHECK(raw_module_info(&mi) == 0);
	return mi.user_queues || mi.user_key_bytes ? 2 : 0;
}

/*
 * Waits until no queue of namespace inum (0: of any namespace, by the
 * churn's names) is listed and UID_B's quota is back to 0; the
 * milliseconds it took, or -1.
 */
static int64_t wait_gone(unsigned long inum)
{
	int64_t t0 = wqt_now_ms(), end = t0 + GONE_MS;

	while (wqt_now_ms() < end) {
		if (wqt_debugfs_lists(inum ? "ctl" : "churn.a", inum) == 0 &&
		    wqt_debugfs_lists(inum ? "ctl" : "churn.b", inum) == 0 &&
		    as_user(UID_B, quota_of_b, NULL) == 0)
			return wqt_now_ms() - t0;
		wqt_sleep_ms(50);
	}
	return -1;
}

FIXTURE(pod) {
	pid_t sandbox;
	unsigned long inum;
};

FIXTURE_SETUP(pod)
{
	if (!wqt_have_dev())
		SKIP(return, "/dev/wq missing (module not loaded)");
	if (access("/proc/self/ns/ipc", F_OK))
		SKIP(return, "no IPC namespaces in this kernel");
	if (wqt_debugfs_lists("ctl", 0) < 0)
		SKIP(return, "no debugfs (mount it on /sys/kernel/debug)");
	pod = wqt_shared(sizeof(*pod));
	ASSERT_NE(NULL, pod);
	ASSERT_EQ(0, hs_init(&pod->hs));
	pod->nsfd = -1;
	self->sandbox = sandbox_start(&self->inum);
	ASSERT_GT(self->sandbox, 0);
	pod->sandbox = self->sandbox;
}

FIXTURE_TEARDOWN(pod)
{
	wqt_reap_all();
}

/*
 * The controller is killed holding keys and restarted in the same pod:
 * its queue, its keys in processing (back on the queue), its delay and its
 * backoff are all there. Then the pod goes, and its queue and quota with
 * it, within the reaper's round.
 */
TEST_F(pod, controller_restart_keeps_its_queue)
{
	pid_t first;
	int64_t ms;

	first = wqt_spawn(controller_first, NULL);
	ASSERT_GT(first, 0);
	ASSERT_EQ(0, hs_recv(pod->hs.up[0]));
	wqt_kill_child(first);			/* a crash: its files close */
	EXPECT_EQ(1, wqt_debugfs_lists("ctl", self->inum));
	wqt_sleep_ms(1500);			/* a reaper's round passes */
	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(controller_next, NULL), 30000));
	EXPECT_EQ(1, wqt_debugfs_lists("ctl", self->inum));

	wqt_kill_child(self->sandbox);		/* the pod goes */
	ms = wait_gone(self->inum);
	ASSERT_GE(ms, 0) TH_LOG("the pod's queue or quota left after %d ms",
				 GONE_MS);
	TH_LOG("the pod's queue went %lld ms after its namespace",
	       (long long)ms);
}

/* Only an nsfs file holds the namespace: its queue stays, until it goes. */
TEST_F(pod, an_nsfs_file_keeps_the_queues)
{
	pid_t first;

	first = wqt_spawn(controller_first, NULL);
	ASSERT_GT(first, 0);
	ASSERT_EQ(0, hs_recv(pod->hs.up[0]));
	wqt_kill_child(first);
	pod->nsfd = ns_of(self->sandbox);
	ASSERT_LE(0, pod->nsfd);
	wqt_kill_child(self->sandbox);		/* no task in it now */
	wqt_sleep_ms(2500);			/* two reaper's rounds */
	EXPECT_EQ(1, wqt_debugfs_lists("ctl", self->inum));
	/* a process joining through the file finds it all */
	EXPECT_EQ(0, wqt_wait_child(wqt_spawn(controller_next, NULL), 30000));
	close(pod->nsfd);
	EXPECT_GE(wait_gone(self->inum), 0);
}

/* ---- a thousand namespaces ------------------------------------------- */

#define CHURN		1000
#define HELD		16	/* namespaces a process without wq holds */
#define NS_LIMIT	32	/* user.max_ipc_namespaces while churning */
#define MAX_NS_PATH	"/proc/sys/user/max_ipc_namespaces"

/*
 * As UID_B, in a new user and IPC namespace of its own (which counts in
 * UID_B's max_ipc_namespaces): two queues with keys, one held, one key
 * delayed, a handle of each left open at exit. With @arg (a pid's place),
 * a holder stays in the namespace, with no /dev/wq file, until killed.
 * -ENOSPC from unshare() is the limit reached: namespaces before are not
 * freed (yet).
 */
static int short_lived(void *arg)
{
	int64_t end = wqt_now_ms() + 10000;
	pid_t *holder = arg;
	char b[16];
	int fd, fd2;

	CHILD_CHECK(drop_to(UID_B) == 0);
	while (unshare(CLONE_NEWUSER | CLONE_NEWIPC)) {
		CHILD_CHECK(errno == ENOSPC && wqt_now_ms() < end);
		wqt_sleep_ms(10);
	}
	if (holder) {
		pid_t pid = fork();	/* the slot is shared: the parent's */

		CHILD_CHECK(pid >= 0);
		if (!pid)
			for (;;)
				pause();
		*holder = pid;
	}
	fd = wq_create("churn.a", NULL);
	fd2 = wq_create("churn.b", NULL);
	CHILD_CHECK(fd >= 0 && fd2 >= 0);
	CHILD_CHECK(ADD(fd, "x") == 0 && ADD(fd, "y") == 0);
	CHILD_CHECK(get_str(fd, b, sizeof(b), 0) == 1);
	CHILD_CHECK(AFTER(fd2, "z", DELAY_NS) == 0);
	return 0;
}

/* n short-lived namespaces, one after the other: 0, or the failed one + 1. */
static int churn_run(int n, pid_t *holders)
{
	int i;

	for (i = 0; i < n; i++)
		if (wqt_wait_child(wqt_spawn(short_lived,
					     holders ? &holders[i] : NULL),
				   30000))
			return i + 1;
	return 0;
}

/*
 * As UID_B: NS_LIMIT namespaces of its own at once, held, then let go.
 * Return: how many could not be made (the churn's last ones may still be
 * going: each retries for 10 s).
 */
static int hold_limit(void)
{
	struct handshake hs;
	int i, status, bad = 0;

	if (hs_init(&hs))
		return NS_LIMIT;
	for (i = 0; i < NS_LIMIT; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return NS_LIMIT;
		if (!pid) {
			int64_t end = wqt_now_ms() + 10000;

			close(hs.down[1]);	/* the parent's close ends them */
			if (drop_to(UID_B))
				_exit(1);
			while (unshare(CLONE_NEWUSER | CLONE_NEWIPC))
				if (errno != ENOSPC || wqt_now_ms() > end)
					_exit(1);
				else
					wqt_sleep_ms(10);
			hs_recv(hs.down[0]);
			_exit(0);
		}
	}
	close(hs.down[1]);
	while (wait(&status) > 0)
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	close(hs.down[0]);
	return bad;
}

FIXTURE(churn) {
	char old[32];
	pid_t *holders;
};

FIXTURE_SETUP(churn)
{
	char val[32];

	self->old[0] = 0;
	if (!wqt_have_dev() || wqt_debugfs_lists("churn.a", 0) < 0)
		SKIP(return, "no /dev/wq or no debugfs");
	if (wqt_read_file(MAX_NS_PATH, self->old, sizeof(self->old)))
		SKIP(return, "no %s", MAX_NS_PATH);
	/* the holders, orphaned, come back to this process to be reaped */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	self->holders = wqt_shared(HELD * sizeof(pid_t));
	ASSERT_NE(NULL, self->holders);
	wqt_write_file("/proc/sys/kernel/unprivileged_userns_clone", "1");
	snprintf(val, sizeof(val), "%d", NS_LIMIT);
	ASSERT_EQ(0, wqt_write_file(MAX_NS_PATH, val));
}

FIXTURE_TEARDOWN(churn)
{
	int i;

	for (i = 0; self->holders && i < HELD; i++)
		if (self->holders[i] > 0)
			kill(self->holders[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	if (self->old[0])
		wqt_write_file(MAX_NS_PATH, self->old);
}

/*
 * A thousand namespaces, one after the other, each making queues and
 * exiting with keys held and delayed, then HELD more kept by a process
 * that never opened /dev/wq, until it is killed: none is left in wq's
 * listing, UID_B's quota is back to 0, and no namespace is left (UID_B
 * can hold user.max_ipc_namespaces of them at once again: one leaked would
 * be one too many).
 */
TEST_F_TIMEOUT(churn, a_thousand_namespaces, 900)
{
	int64_t t0 = wqt_now_ms();
	int i;

	ASSERT_EQ(0, churn_run(CHURN, NULL));
	ASSERT_GE(wait_gone(0), 0) TH_LOG("queues or UID_B's quota left");
	ASSERT_EQ(0, churn_run(HELD, self->holders));
	wqt_sleep_ms(1500);			/* a reaper's round passes */
	EXPECT_EQ(HELD, wqt_debugfs_lists("churn.a", 0));
	for (i = 0; i < HELD; i++)
		if (self->holders[i] > 0)
			kill(self->holders[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	memset(self->holders, 0, HELD * sizeof(pid_t));
	ASSERT_GE(wait_gone(0), 0) TH_LOG("the held namespaces' queues left");
	EXPECT_EQ(0, hold_limit()) TH_LOG("of %d namespaces at once", NS_LIMIT);
	EXPECT_EQ(0, wqt_debugfs_lists("churn.a", 0));
	EXPECT_EQ(0, wqt_debugfs_lists("churn.b", 0));
	TH_LOG("%d + %d namespaces in %lld ms", CHURN, HELD,
	       (long long)(wqt_now_ms() - t0));
}

TEST_HARNESS_MAIN
