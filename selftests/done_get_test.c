// SPDX-License-Identifier: GPL-2.0
/*
 * The worker loop in one call (wq_done_get(3)) through libwq, on the
 * module's WQ_IOC_DONE_GET{,_BATCH} ("combined") and on libwq's two calls
 * ("split": seccomp makes those ENOTTY, as an older module does): no prev
 * is a get; done then get; a dirty prev taken again by the same call; a
 * prev not processing ends the call (-ENOENT); timeouts and -EMSGSIZE keep
 * the done done; the batch skips keys not processing, an error of its done
 * call ends it; bad arguments change nothing; the pool's counts. On the
 * module: bad raw fields change nothing, libwq makes one call, two on
 * ENOTTY, and a call stopped and continued does not end its prev twice.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "wq_test_util.h"
#include "wq_test_ioctl.h"

/* ---- seccomp: ioctls of wq refused with an errno ----------------------- */

struct deny {
	unsigned int cmd;
	int err;
};

#define ARG1_LO	(offsetof(struct seccomp_data, args[1]) + \
		 (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) * 4)

#define LOAD(off)	((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off))
#define RET(v)		((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, v))
#define IF_EQ(k, t, f)	((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, t, f))

/* In this process and the threads it starts from now on; 0 or -errno. */
static int deny_ioctls(const struct deny *d, int n)
{
	struct sock_filter f[4 + 2 * 8 + 1];
	struct sock_fprog prog = { .filter = f };
	int i = 0, j;

	if (n > 8)
		return -EINVAL;
	f[i++] = LOAD(offsetof(struct seccomp_data, nr));
	f[i++] = IF_EQ(__NR_ioctl, 1, 0);
	f[i++] = RET(SECCOMP_RET_ALLOW);
	f[i++] = LOAD(ARG1_LO);
	for (j = 0; j < n; j++) {
		f[i++] = IF_EQ(d[j].cmd, 0, 1);
		f[i++] = RET(SECCOMP_RET_ERRNO | (d[j].err & SECCOMP_RET_DATA));
	}
	f[i++] = RET(SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)i;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return -errno;
	return 0;
}

/* deny_ioctls() in a test; skipped without CONFIG_SECCOMP_FILTER. */
#define DENY(d, n) do {							\
		int _r = deny_ioctls(d, n);				\
		if (_r == -EINVAL)					\
			SKIP(return, "no seccomp filters in this kernel"); \
		ASSERT_EQ(0, _r);					\
	} while (0)

/* What a module without WQ_IOC_DONE_GET{,_BATCH} answers. */
static const struct deny old_module[] = {
	{ WQ_IOC_DONE_GET, ENOTTY }, { WQ_IOC_DONE_GET_BATCH, ENOTTY },
};

/* ---- helpers -------------------------------------------------------------- */

/* wq_done_get of the string prev (NULL: none) into buf, NUL-terminated. */
static ssize_t dg(int fd, const char *prev, char *buf, size_t cap, int ms)
{
	ssize_t n = wq_done_get(fd, prev, prev ? strlen(prev) : 0, buf,
				cap - 1, ms);

	if (n >= 0)
		buf[n] = '\0';
	return n;
}

/* The WQ_KEY_* flags of the string key s (or -errno). */
static int kstate(int fd, const char *s)
{
	struct wq_key_state st;
	int r = wq_key_state(fd, s, strlen(s), &st);

	return r < 0 ? r : (int)st.flags;
}

static struct iovec iov(const char *s)
{
	return (struct iovec){ .iov_base = (void *)s, .iov_len = strlen(s) };
}

/* keys[i] is the string s */
#define EXPECT_IOV(keys, i, s) do {					\
		EXPECT_EQ(strlen(s), (keys)[i].iov_len);		\
		EXPECT_EQ(0, memcmp(s, (keys)[i].iov_base, strlen(s)));	\
	} while (0)

/* Adds s and gets it: s is processing. */
#define HOLD(fd, s) do {						\
		ASSERT_EQ(0, ADD(fd, s));				\
		EXPECT_GET(fd, s);					\
	} while (0)

/*
 * A child that holds a and, when told, ends it and waits for b in one
 * call (single or batch): exits 0 if it got b.
 */
struct holder {
	int fd, pipe[2];
	bool batch;
};

static int hold_then_wait(void *arg)
{
	const struct holder *h = arg;
	struct iovec prev = iov("a"), keys[2];
	char b[64];
	ssize_t n;

	if (get_str(h->fd, b, sizeof(b), 0) != 1 || read(h->pipe[0], b, 1) != 1)
		return 10;
	n = h->batch ? wq_done_get_batch(h->fd, &prev, 1, b, sizeof(b), keys,
					 2, UPPER_MS) :
		       dg(h->fd, "a", b, sizeof(b), UPPER_MS);
	if (n == -EINTR)	/* not restarted: the done is made, get alone */
		n = dg(h->fd, NULL, b, sizeof(b), UPPER_MS);
	return n == 1 && b[0] == 'b' ? 0 : n < 0 ? (int)-n & 0x7f : 11;
}

/* The child, once it holds a (-1 if not); a byte down h->pipe: go on. */
static pid_t start_holder(struct holder *h, int fd, bool batch)
{
	pid_t pid;

	h->fd = fd;
	h->batch = batch;
	if (pipe(h->pipe) || ADD(fd, "a"))
		return -1;
	pid = wqt_spawn(hold_then_wait, h);
	return pid > 0 && WAIT_STAT(fd, processing, 1) != -1 ? pid : -1;
}

/* ---- the loop, on the module and on the two calls ------------------------ */

FIXTURE(dg) {
	int fd;
	char name[WQ_NAME_MAX];
};

FIXTURE_VARIANT(dg) { bool split; };

FIXTURE_VARIANT_ADD(dg, combined) { .split = false };
FIXTURE_VARIANT_ADD(dg, split) { .split = true };

FIXTURE_SETUP(dg)
{
	/* fast retries for the pool: 1, 2, 4, 4 ms */
	struct wq_attr attr = { .limiter = "exponential:1ms:4ms" };

	if (variant->split)
		DENY(old_module, 2);
	WQT_SETUP_QUEUE(&attr);
}

FIXTURE_TEARDOWN(dg)
{
	WQT_TEARDOWN_QUEUE();
}

/* No prev: a plain get (prev is not even read). */
TEST_F(dg, no_prev_is_a_get)
{
	char b[64];

	EXPECT_EQ(-EAGAIN, dg(self->fd, NULL, b, sizeof(b), 0));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	EXPECT_EQ(1, wq_done_get(self->fd, (void *)8, 0, b, sizeof(b), 0));
	EXPECT_EQ('a', b[0]);
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(processing, 1));
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(self->fd, "a"));
}

/* prev processing: done, then the head taken; prev may be in buf. */
TEST_F(dg, done_then_get)
{
	char b[64] = "a";

	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "bb"));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	EXPECT_EQ(2, wq_done_get(self->fd, b, 1, b, sizeof(b), 0));
	EXPECT_EQ(0, memcmp(b, "bb", 2));
	EXPECT_EQ(0, kstate(self->fd, "a"));
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(self->fd, "bb"));
	EXPECT_EQ(1, dg(self->fd, "bb", b, sizeof(b), 0));
	EXPECT_STREQ("c", b);
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 1),
		     STAT(keys, 1));
}

/* A dirty prev is queued again at the tail by the done (also shut down). */
TEST_F(dg, dirty_prev_queued_again)
{
	char b[64];

	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "a"));	/* dirty */
	EXPECT_EQ(1, dg(self->fd, "a", b, sizeof(b), 0));
	EXPECT_STREQ("a", b);			/* by the same call */
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(self->fd, "a"));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 1));

	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(0, ADD(self->fd, "a"));	/* dirty, b ahead of it */
	EXPECT_EQ(1, dg(self->fd, "a", b, sizeof(b), 0));
	EXPECT_STREQ("b", b);
	EXPECT_EQ(WQ_KEY_QUEUED, kstate(self->fd, "a"));
	EXPECT_EQ(1, dg(self->fd, "b", b, sizeof(b), 0));
	EXPECT_STREQ("a", b);
	/* after a shutdown too, then -ESHUTDOWN (its done made) */
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, wq_shutdown(self->fd));
	EXPECT_EQ(1, dg(self->fd, "a", b, sizeof(b), -1));
	EXPECT_EQ(-ESHUTDOWN, dg(self->fd, "a", b, sizeof(b), -1));
	EXPECT_QUEUE_EMPTY(self->fd);
}

/* A prev not being processed: -ENOENT, and nothing is taken. */
TEST_F(dg, prev_not_processing)
{
	char b[64] = "";

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	EXPECT_EQ(-ENOENT, dg(self->fd, "a", b, sizeof(b), 0));	/* queued */
	EXPECT_EQ(-ENOENT, dg(self->fd, "zz", b, sizeof(b), -1));	/* unknown */
	EXPECT_STREQ("", b);
	EXPECT_STATS(self->fd, STAT(queued, 2), STAT(processing, 0));
	EXPECT_GET(self->fd, "a");
	EXPECT_EQ(0, DONE(self->fd, "a"));
	EXPECT_EQ(-ENOENT, dg(self->fd, "a", b, sizeof(b), 0));	/* done */
	EXPECT_EQ(1, wq_len(self->fd));
}

/* A get that fails after the done (no wait, timeout, no room): done. */
TEST_F(dg, timeouts_keep_the_done)
{
	int64_t t0;
	char b[64];

	HOLD(self->fd, "a");
	EXPECT_EQ(-EAGAIN, dg(self->fd, "a", b, sizeof(b), 0));
	EXPECT_EQ(0, kstate(self->fd, "a"));
	HOLD(self->fd, "a");
	t0 = now_ns();
	EXPECT_EQ(-ETIMEDOUT, dg(self->fd, "a", b, sizeof(b), 100));
	EXPECT_LE(100 * MS, now_ns() - t0);
	EXPECT_EQ(0, kstate(self->fd, "a"));
	/* -EMSGSIZE: the done stays done, the head stays queued */
	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "longer-key"));
	EXPECT_EQ(-EMSGSIZE, wq_done_get(self->fd, "a", 1, b, 4, 0));
	EXPECT_EQ(0, kstate(self->fd, "a"));
	EXPECT_EQ(WQ_KEY_QUEUED, kstate(self->fd, "longer-key"));
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(processing, 0));
}

/* The done comes before the wait: prev is done while the call waits. */
TEST_F(dg, done_before_the_wait)
{
	struct holder h;
	pid_t pid = start_holder(&h, self->fd, false);

	ASSERT_LT(0, pid);
	(void)!write(h.pipe[1], "", 1);
	ASSERT_NE(-1, WAIT_STAT(self->fd, keys, 0));	/* a done */
	wqt_sleep_ms(20);
	EXPECT_EQ(0, waitpid(pid, NULL, WNOHANG));	/* and waiting */
	ASSERT_EQ(0, ADD(self->fd, "b"));
	EXPECT_EQ(0, wqt_wait_child(pid, UPPER_MS));
	EXPECT_STATS(self->fd, STAT(processing, 1), STAT(keys, 1));
}

/* Bad arguments, handles and access: nothing happens. */
TEST_F(dg, bad_arguments_change_nothing)
{
	char b[64], big[WQ_KEY_MAX + 1];
	struct snapshot before;
	int wo, ro, null;

	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "b"));
	before = snap(self->fd);
	memset(big, 'a', sizeof(big));
	EXPECT_EQ(-EINVAL, wq_done_get(self->fd, big, sizeof(big), b, 64, 0));
	EXPECT_EQ(-EFAULT, wq_done_get(self->fd, NULL, 1, b, 64, 0));
	EXPECT_EQ(-EFAULT, wq_done_get(self->fd, "a", 1, NULL, 64, 0));
	EXPECT_EQ(-EBADF, wq_done_get(-1, "a", 1, b, 64, 0));
	null = open("/dev/null", O_RDWR);
	ASSERT_LE(0, null);
	EXPECT_EQ(-EBADF, wq_done_get(null, "a", 1, b, 64, 0));
	close(null);
	wo = wq_open_flags(self->name, O_WRONLY);
	ASSERT_LE(0, wo);
	EXPECT_EQ(-EBADF, wq_done_get(wo, "a", 1, b, 64, 0));
	wq_close(wo);
	ASSERT_UNCHANGED(before, self->fd);
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(self->fd, "a"));
	ro = wq_open_flags(self->name, O_RDONLY);	/* a consumer's call */
	ASSERT_LE(0, ro);
	EXPECT_EQ(1, dg(ro, "a", b, sizeof(b), 0));
	EXPECT_STREQ("b", b);
	wq_close(ro);
}

/* The batch: the done of each key, then the get of what is queued. */
TEST_F(dg, batch_done_then_get)
{
	struct iovec done[3] = { iov("a"), iov("zz"), iov("b") }, keys[4];
	char buf[64];

	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	ASSERT_EQ(2, wq_get_batch(self->fd, buf, sizeof(buf), keys, 4, 0));
	ASSERT_EQ(0, ADD(self->fd, "c"));
	ASSERT_EQ(0, ADD(self->fd, "b"));	/* dirty: queued again after c */
	/* zz was not processing: skipped, the others done, then the get */
	EXPECT_EQ(2, wq_done_get_batch(self->fd, done, 3, buf, sizeof(buf),
				       keys, 4, 0));
	EXPECT_IOV(keys, 0, "c");
	EXPECT_IOV(keys, 1, "b");
	EXPECT_EQ(0, kstate(self->fd, "a"));
	EXPECT_STATS(self->fd, STAT(queued, 0), STAT(processing, 2));
	/* no done: a plain get (done_keys not read) */
	ASSERT_EQ(0, ADD(self->fd, "d"));
	EXPECT_EQ(1, wq_done_get_batch(self->fd, (void *)8, 0, buf, sizeof(buf),
				       keys, 4, 0));
	EXPECT_IOV(keys, 0, "d");
	/* the get's failures keep the dones done */
	done[0] = iov("c");
	done[1] = iov("b");
	done[2] = iov("d");
	EXPECT_EQ(-EAGAIN, wq_done_get_batch(self->fd, done, 3, buf,
					     sizeof(buf), keys, 4, 0));
	EXPECT_QUEUE_EMPTY(self->fd);
	done[0] = iov("a");
	HOLD(self->fd, "a");
	EXPECT_EQ(-ETIMEDOUT, wq_done_get_batch(self->fd, done, 1, buf, 4,
						keys, 4, 50));
	EXPECT_QUEUE_EMPTY(self->fd);
	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "long-key"));
	EXPECT_EQ(-EMSGSIZE, wq_done_get_batch(self->fd, done, 1, buf, 4,
					       keys, 4, 0));
	EXPECT_EQ(0, kstate(self->fd, "a"));
	EXPECT_STATS(self->fd, STAT(queued, 1), STAT(processing, 0));
}

/* Bad arguments of the batch, or a done call that fails: no get. */
TEST_F(dg, batch_errors_change_nothing)
{
	struct iovec done[1] = { iov("a") }, keys[4];
	struct snapshot before;
	char buf[64];
	void *gone;

	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "b"));
	before = snap(self->fd);
	EXPECT_EQ(-EINVAL, wq_done_get_batch(self->fd, done, WQ_BATCH_MAX + 1,
					     buf, 64, keys, 4, 0));
	EXPECT_EQ(-EFAULT, wq_done_get_batch(self->fd, NULL, 1, buf, 64, keys,
					     4, 0));
	EXPECT_EQ(-EINVAL, wq_done_get_batch(self->fd, done, 1, buf, 64, keys,
					     0, 0));
	EXPECT_EQ(-EINVAL, wq_done_get_batch(self->fd, done, 1, buf, 64, keys,
					     WQ_BATCH_MAX + 1, 0));
	EXPECT_EQ(-EFAULT, wq_done_get_batch(self->fd, done, 1, buf, 64, NULL,
					     4, 0));
	EXPECT_EQ(-EFAULT, wq_done_get_batch(self->fd, done, 1, NULL, 64, keys,
					     4, 0));
	EXPECT_EQ(-EBADF, wq_done_get_batch(-1, done, 1, buf, 64, keys, 4, 0));
	/* done_keys unreadable: the done call fails, the get is not made */
	gone = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	munmap(gone, 4096);
	EXPECT_EQ(-EFAULT, wq_done_get_batch(self->fd, gone, 1, buf, 64, keys,
					     4, 0));
	ASSERT_UNCHANGED(before, self->fd);
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(self->fd, "a"));
}

/* The pool on the one call (or the two): the counts of client-go's loop. */
struct tally {
	atomic_int calls[8], successes;
};

static int fail_twice(const void *key, size_t len, void *arg)
{
	struct tally *t = arg;
	int i = wqt_key_index(key, (ssize_t)len);

	if (i < 0 || i >= 8)
		return 0;
	if (atomic_fetch_add(&t->calls[i], 1) < 2)
		return -EIO;
	atomic_fetch_add(&t->successes, 1);
	return 0;
}

/* 8 keys failing twice, max_retries 2: three calls each, none given up. */
static void pool_run(struct __test_metadata *_metadata, int fd)
{
	struct tally t = { 0 };
	struct wq_pool_attr pa = { .workers = 3, .max_retries = 2, .arg = &t };
	struct wq_pool *pool;
	int i;

	ASSERT_EQ(0, wq_pool_start(fd, fail_twice, &pa, &pool));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, wqt_add_i(fd, i));
	for (int64_t end = wqt_now_ms() + UPPER_MS;
	     atomic_load(&t.successes) < 8 && wqt_now_ms() < end;)
		wqt_sleep_ms(2);
	EXPECT_EQ(0, wq_pool_stop(pool, UPPER_MS));
	EXPECT_EQ(8, atomic_load(&t.successes));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(3, atomic_load(&t.calls[i])) TH_LOG("key %d", i);
	EXPECT_STATS(fd, STAT(keys, 0), STAT(tracked, 0), STAT(processing, 0));
}

TEST_F(dg, pool_counts)
{
	pool_run(_metadata, self->fd);
}

/* ---- the module's calls ---------------------------------------------------- */

WQT_FIXTURE(mod);

/* A bad field of the raw ioctls: refused before the done, prev kept. */
TEST_F(mod, raw_bad_fields_change_nothing)
{
	struct wq_iov prev = { .base = (uintptr_t)"a", .len = 1 }, keys[2];
	char buf[64];
	struct wq_get get = { .flags = WQ_GET_NONBLOCK, .buf = (uintptr_t)buf,
			      .buf_cap = sizeof(buf) };
	struct wq_done_get d, good = { .get = get, .prev = (uintptr_t)"a",
				       .prev_len = 1 };
	struct wq_done_get_batch db = {
		.get = { .flags = WQ_GET_NONBLOCK, .count = 2,
			 .keys = (uintptr_t)keys, .buf = (uintptr_t)buf,
			 .buf_cap = sizeof(buf) },
		.done_keys = (uintptr_t)&prev, .n_done = 1,
	};
	struct wq_module_info mi;
	struct snapshot before;

	ASSERT_EQ(0, raw_module_info(&mi));
	EXPECT_TRUE(mi.features & WQ_FEATURE_DONE_GET);
	HOLD(self->fd, "a");
	ASSERT_EQ(0, ADD(self->fd, "b"));
	before = snap(self->fd);
#define BAD(field, value) do {						\
		d = good;						\
		d.field = (value);					\
		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE_GET, &d)) \
			TH_LOG(#field);					\
		ASSERT_UNCHANGED(before, self->fd);			\
	} while (0)
	BAD(reserved, 1);
	BAD(prev_len, WQ_KEY_MAX + 1);
	BAD(prev_len, 0);			/* prev without a length */
	BAD(get.flags, 1U << 31);
	BAD(get.key_len, 1);
	BAD(get.priority, 1);
#define BAD_BATCH(field, value) do {					\
		struct wq_done_get_batch _d = db;			\
		_d.field = (value);					\
		EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE_GET_BATCH, &_d)) \
			TH_LOG(#field);					\
		ASSERT_UNCHANGED(before, self->fd);			\
	} while (0)
	BAD_BATCH(reserved, 1);
	BAD_BATCH(n_done, WQ_BATCH_MAX + 1);
	BAD_BATCH(get.count, 0);
	BAD_BATCH(get.flags, 1U << 31);
	BAD_BATCH(get.priority, 1);
	BAD_BATCH(get.reserved, 1);
	db.n_done = 0;				/* done_keys without a count */
	EXPECT_EQ(EINVAL, xioctl(self->fd, WQ_IOC_DONE_GET_BATCH, &db));
	ASSERT_UNCHANGED(before, self->fd);
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(self->fd, "a"));
	EXPECT_EQ(0, xioctl(self->fd, WQ_IOC_DONE_GET, &good));
	EXPECT_EQ(1, good.get.key_len);
	EXPECT_EQ('b', buf[0]);
}

/*
 * libwq makes one call: with WQ_IOC_DONE and WQ_IOC_GET (and the batch
 * ones) refused, the combined calls and the pool still work.
 */
TEST_F(mod, one_call)
{
	const struct deny split[] = {
		{ WQ_IOC_DONE, EPERM }, { WQ_IOC_GET, EPERM },
		{ WQ_IOC_DONE_BATCH, EPERM }, { WQ_IOC_GET_BATCH, EPERM },
	};
	struct iovec done[1] = { iov("b") }, keys[2];
	char b[64];

	DENY(split, 4);
	EXPECT_EQ(-EPERM, wq_get(self->fd, b, sizeof(b), 0));
	ASSERT_EQ(0, ADD(self->fd, "a"));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	EXPECT_EQ(1, dg(self->fd, NULL, b, sizeof(b), 0));
	EXPECT_EQ(1, dg(self->fd, "a", b, sizeof(b), 0));
	EXPECT_STREQ("b", b);
	EXPECT_EQ(-EAGAIN, wq_done_get_batch(self->fd, done, 1, b, sizeof(b),
					     keys, 2, 0));
	EXPECT_QUEUE_EMPTY(self->fd);
	pool_run(_metadata, self->fd);
}

/* ENOTTY (a module without the calls): libwq makes the two calls. */
TEST_F(mod, two_calls_on_enotty)
{
	const struct deny d[] = {
		{ WQ_IOC_DONE_GET, ENOTTY }, { WQ_IOC_DONE_GET_BATCH, ENOTTY },
		{ WQ_IOC_DONE, EPERM }, { WQ_IOC_DONE_BATCH, EPERM },
	};
	struct iovec done[1] = { iov("a") }, keys[2];
	char b[64];

	DENY(d, 4);
	HOLD(self->fd, "a");
	EXPECT_EQ(-EPERM, dg(self->fd, "a", b, sizeof(b), 0));
	EXPECT_EQ(-EPERM, wq_done_get_batch(self->fd, done, 1, b, sizeof(b),
					    keys, 2, 0));
	ASSERT_EQ(0, ADD(self->fd, "b"));
	EXPECT_EQ(1, dg(self->fd, NULL, b, sizeof(b), 0));	/* the get */
	EXPECT_STREQ("b", b);
	EXPECT_STATS(self->fd, STAT(processing, 2));
}

/*
 * A call stopped (SIGSTOP) while it waits, and continued, is restarted by
 * the kernel (or ends with -EINTR): its done must not be made again, as
 * the key may be another consumer's by then. Here B, waiting first, takes
 * a once the holder's done is made; the holder is stopped and continued.
 */
static void restart_round(struct __test_metadata *_metadata, int fd,
			  bool batch)
{
	struct wqt_bg b;
	struct holder h;
	pid_t pid;
	int status;

	pid = start_holder(&h, fd, batch);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, wqt_bg_start(&b, WQT_GET, fd, UPPER_MS));	/* B */
	wqt_sleep_ms(100);
	(void)!write(h.pipe[1], "", 1);
	ASSERT_NE(-1, WAIT_STAT(fd, keys, 0));	/* a done: the holder waits */
	wqt_sleep_ms(50);
	ASSERT_EQ(0, ADD(fd, "a"));		/* to B, the first waiter */
	ASSERT_TRUE(wqt_bg_wait(&b, UPPER_MS));
	ASSERT_STREQ("a", b.buf);
	ASSERT_EQ(0, kill(pid, SIGSTOP));
	ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
	ASSERT_EQ(0, kill(pid, SIGCONT));
	wqt_sleep_ms(50);
	EXPECT_EQ(WQ_KEY_PROCESSING, kstate(fd, "a"))
		TH_LOG("the holder's done was made again: B's key ended");
	ASSERT_EQ(0, ADD(fd, "b"));
	EXPECT_EQ(0, wqt_wait_child(pid, UPPER_MS));
}

TEST_F(mod, restart_does_not_repeat_the_done)
{
	restart_round(_metadata, self->fd, false);
}

TEST_F(mod, restart_does_not_repeat_the_dones)
{
	restart_round(_metadata, self->fd, true);
}

TEST_HARNESS_MAIN
