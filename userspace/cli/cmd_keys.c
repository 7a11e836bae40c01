// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the commands on keys: add (also --after, --rate-limited, --wait,
 * --priority, and keys from standard input in batches), get (-n in
 * batches; a priority queue's keys with their priority), done, forget. A key list given as arguments is checked whole before the first
 * call, and stops at its first failure, which names the key; keys read
 * from standard input are each tried, and each failure names its line.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>

#include "wqctl.h"

/* add, done, forget: one call per key, stopping at the first failure. */
static int each_key(const struct ctx *c,
		    int (*call)(const struct ctx *, const struct key *))
{
	for (int i = 0; i < c->nkeys; i++) {
		const struct key *k = &c->keys[i];
		int err = call(c, k);

		if (err < 0)
			return fail(c, k, err);
	}
	return RC_OK;
}

/* The deadline of add --wait: one for all the keys of the command. */
static uint64_t wait_deadline;

/* timeout_ms is an int: a longer wait is made of several. */
static int add_wait(const struct ctx *c, const struct key *k,
		    struct wq_add_opts *o)
{
	o->flags |= WQ_ADD_WAIT;
	for (;;) {
		int ms = ms_until(wait_deadline);
		int err;

		o->timeout_ms = ms;
		err = wq_add_opts(c->fd, k->bytes, k->len, o);
		if (err != -ETIMEDOUT || ms != INT_MAX ||
		    wq_now_ns() >= wait_deadline)
			return err;
	}
}

/* The options of add that every add of the command carries (--priority). */
static void add_opts_of(const struct ctx *c, struct wq_add_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (has(c, O_PRIORITY)) {
		o->flags = WQ_ADD_PRIORITY;
		o->priority = c->priority;
	}
}

/* One add as the options say; 0 (whatever it did) or -errno. */
static int add_one(const struct ctx *c, const struct key *k)
{
	struct wq_add_opts o;
	uint64_t delay = 0;
	int err;

	add_opts_of(c, &o);
	if (has(c, O_WAIT)) {
		err = add_wait(c, k, &o);
		return err < 0 ? err : 0;
	}
	if (has(c, O_AFTER)) {
		o.flags |= WQ_ADD_AFTER;
		o.delay_ns = c->after_ns;
	}
	if (has(c, O_RATE_LIMITED))
		o.flags |= WQ_ADD_RATE_LIMITED;
	err = wq_add_opts_delay(c->fd, k->bytes, k->len, &o, &delay);
	if (err < 0)
		return err;
	if (has(c, O_RATE_LIMITED)) {
		char buf[64];

		wq_format_duration(buf, sizeof(buf), delay);
		put_key(stdout, k->bytes, k->len);
		printf(": delay %s\n", buf);
	}
	return 0;
}

/* Errors after which no later key of the command can be added. */
static bool add_hopeless(int err)
{
	return err == -ESHUTDOWN || err == -ETIMEDOUT || err == -EBADF;
}

/*
 * A batch read from standard input: one call for all (a plain add), or
 * one call a key (--after, --rate-limited, --wait). Each failure is
 * reported with its line; a hopeless one stops the reading (-1). Returns
 * the number of keys that failed.
 */
static int add_lines(const struct ctx *c, const struct key_batch *b)
{
	static int errs[WQ_BATCH_MAX];
	bool plain = !has(c, O_AFTER) && !has(c, O_RATE_LIMITED) &&
		     !has(c, O_WAIT);
	int ret = 0;

	if (plain) {
		struct wq_add_opts o;

		add_opts_of(c, &o);
		/* with --priority, each result is what the add did (>= 0) */
		ret = has(c, O_PRIORITY) ?
		      wq_add_batch_opts(c->fd, b->keys, b->n, &o, errs) :
		      wq_add_batch(c->fd, b->keys, b->n, errs);
		if (ret < 0) {
			fail_line(c, b->line[0], NULL, 0, ret);
			return -1;
		}
	} else {
		for (unsigned int i = 0; i < b->n; i++) {
			const struct key k = { .bytes = b->keys[i].iov_base,
					       .len = b->keys[i].iov_len };

			errs[i] = add_one(c, &k);
		}
	}
	ret = 0;
	for (unsigned int i = 0; i < b->n; i++) {
		if (errs[i] >= 0)
			continue;
		fail_line(c, b->line[i], b->keys[i].iov_base,
			  b->keys[i].iov_len, errs[i]);
		if (add_hopeless(errs[i]))
			return -1;	/* the rest would fail alike */
		ret++;
	}
	return ret;
}

int cmd_add(struct ctx *c)
{
	long bad;

	if (has(c, O_WAIT))
		wait_deadline = c->has_timeout ?
				wq_deadline_after(c->timeout_ns) :
				WQ_DEADLINE_NONE;
	if (c->nkeys > 0)
		return each_key(c, add_one);
	bad = read_key_lines(c, add_lines);
	return bad ? RC_FAIL : RC_OK;
}

/* The timeout_ms for a wait that must end by deadline. */
int ms_until(uint64_t deadline)
{
	uint64_t now;

	if (deadline == WQ_DEADLINE_NONE)
		return -1;
	now = wq_now_ns();
	return deadline > now ? ns_to_ms(deadline - now) : 0;
}

/* The buffer of get -n: many keys of a usual size, one of any size. */
#define GET_BUF_SIZE	(256 * 1024)

/*
 * get --done: the keys printed, to be done by the next get (one call for
 * both: wq_done_get, wq_done_get_batch) or, after the last, alone.
 */
struct pending {
	const struct iovec *keys;
	unsigned int n;
	int errs[WQ_BATCH_MAX];	/* each one's done, for -n */
};

/*
 * Keys, waiting until deadline for the first: one (a plain get), or up to
 * want in a batch (get -n); keys[] points into buf, prio[] receives their
 * priorities. A get --done first ends the keys pending (a failure of that
 * done is the call's, or, per key with -n, in p->errs); a wait made again
 * does not end them again. Returns how many keys, or the error.
 * timeout_ms is an int: a wait of more than INT_MAX ms (24.8 days) is
 * made of several.
 */
static ssize_t get_some(const struct ctx *c, char *buf, struct iovec *keys,
			int *prio, unsigned int want, uint64_t deadline,
			struct pending *p)
{
	bool done = has(c, O_DONE);
	/* --done: consumed at once, so a crash requeues */
	uint32_t flags = done ? 0 : WQ_GET_DETACH;
	unsigned int ndone = p->n;	/* the keys this call is to end */

	memset(p->errs, 0, p->n * sizeof(p->errs[0]));
	for (;;) {
		int ms = ms_until(deadline);
		ssize_t n;

		if (c->count == 1 && done)
			n = wq_done_get_call(c->fd,
					     ndone ? p->keys[0].iov_base : NULL,
					     ndone ? p->keys[0].iov_len : 0, buf,
					     WQ_KEY_MAX, ms, flags, &prio[0]);
		else if (c->count == 1)
			n = wq_get_call(c->fd, buf, WQ_KEY_MAX, ms, flags,
					&prio[0]);
		else if (done)
			n = wq_done_get_batch_call(c->fd, p->keys, ndone, p->errs,
						   buf, GET_BUF_SIZE, keys,
						   want, ms, flags, prio);
		else
			n = wq_get_batch_call(c->fd, buf, GET_BUF_SIZE, keys,
					      want, ms, flags, prio);
		if (c->count == 1 && n > 0) {
			keys[0].iov_base = buf;
			keys[0].iov_len = (size_t)n;
			n = 1;
		}
		/*
		 * The done, if any, is made (a failed one ends the call with
		 * another error): a wait cut short goes on without it, also
		 * one a stop (SIGSTOP, SIGCONT) ended with -EINTR, where a
		 * plain get is restarted.
		 */
		if ((n == -ETIMEDOUT && ms == INT_MAX &&
		     wq_now_ns() < deadline) || (n == -EINTR && ndone)) {
			ndone = 0;
			continue;
		}
		return n;
	}
}

/*
 * Prints the keys taken from the queue, on a priority queue (by_prio)
 * each followed by a tab and its priority (a printed key has no tab: it
 * is escaped); false if stdout failed.
 */
static bool print_keys(const struct ctx *c, const struct iovec *keys,
		       const int *prio, size_t n, bool by_prio)
{
	for (size_t i = 0; i < n; i++) {
		if (has(c, O_RAW)) {
			fwrite(keys[i].iov_base, 1, keys[i].iov_len, stdout);
			continue;
		}
		put_key(stdout, keys[i].iov_base, keys[i].iov_len);
		if (by_prio)
			printf("\t%d", prio[i]);
		putchar('\n');
	}
	return fflush(stdout) == 0 && !ferror(stdout);
}

/*
 * The keys could not be handed to the user: put them back at the tail
 * (of their level, on a priority queue: each is added with its own).
 */
static void requeue(const struct ctx *c, const struct iovec *keys,
		    const int *prio, unsigned int n, bool by_prio)
{
	/* an add marks a key dirty: queued again at done */
	if (by_prio) {
		for (unsigned int i = 0; i < n; i++) {
			struct wq_add_opts o = { .flags = WQ_ADD_PRIORITY,
						 .priority = prio[i] };

			wq_add_opts(c->fd, keys[i].iov_base, keys[i].iov_len, &o);
		}
	} else if (n == 1) {
		wq_add(c->fd, keys[0].iov_base, keys[0].iov_len);
	} else {
		wq_add_batch(c->fd, keys, n, NULL);
	}
	if (n == 1)
		wq_done(c->fd, keys[0].iov_base, keys[0].iov_len);
	else
		wq_done_batch(c->fd, keys, n, NULL);
}

/* get --done: the first failure of the dones in p->errs, if any. */
static int done_failed(const struct ctx *c, const struct pending *p)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (p->errs[i])
			return fail(c, NULL, p->errs[i]);
	return RC_OK;
}

/* get --done: the keys printed last are done, alone (no get follows). */
static int done_keys(const struct ctx *c, struct pending *p)
{
	int ret;

	if (c->count == 1) {
		ret = wq_done(c->fd, p->keys[0].iov_base, p->keys[0].iov_len);
		return ret < 0 ? fail(c, NULL, ret) : RC_OK;
	}
	ret = wq_done_batch(c->fd, p->keys, p->n, p->errs);
	return ret < 0 ? fail(c, NULL, ret) : done_failed(c, p);
}

/* A get that returned no key: exit 3 or 4, unless -n got some already. */
static int get_failed(const struct ctx *c, ssize_t err, long got)
{
	bool waited = c->has_timeout && c->timeout_ns;
	const char *why;
	int rc;

	if (err == -ESHUTDOWN) {
		why = "queue is shutting down";
		rc = RC_SHUTDOWN;
	} else if (err == -ETIMEDOUT || err == -EAGAIN) {
		why = waited ? "timed out" : "nothing queued";
		rc = RC_EMPTY;
	} else {
		return fail(c, NULL, (int)err);
	}
	if (got > 0)
		return RC_OK;	/* fewer keys than -n asked for */
	fprintf(stderr, "wqctl: get %s: %s\n", c->args[0], why);
	return rc;
}

/*
 * get: the keys, printed. With --done, each batch's keys are done by the
 * call that gets the next batch (into the other buffer: the done reads
 * them first), the last batch's alone.
 */
int cmd_get(struct ctx *c)
{
	static char bufs[2][GET_BUF_SIZE];
	static struct iovec keyv[2][WQ_BATCH_MAX];
	static int prio[WQ_BATCH_MAX];
	static struct pending p;
	uint64_t deadline = WQ_DEADLINE_NONE;
	struct wq_stats st;
	bool by_prio;
	long got = 0;
	int cur = 0;

	/* a priority queue's keys are printed with their priority */
	by_prio = wq_stat(c->fd, &st) == 0 && st.priority;
	if (c->has_timeout)	/* one deadline for all of -n */
		deadline = wq_deadline_after(c->timeout_ns);
	signal(SIGPIPE, SIG_IGN);	/* see a closed stdout, requeue the keys */
	while (got < c->count) {
		unsigned int want = c->count - got < WQ_BATCH_MAX ?
				    (unsigned int)(c->count - got) : WQ_BATCH_MAX;
		struct iovec *keys = keyv[cur];
		ssize_t n = get_some(c, bufs[cur], keys, prio, want, deadline,
				     &p);
		int rc = done_failed(c, &p);

		if (rc)
			return rc;
		p.n = 0;
		if (n < 0)
			return get_failed(c, n, got);
		if (!print_keys(c, keys, prio, (size_t)n, by_prio)) {
			int saved = errno;

			requeue(c, keys, prio, (unsigned int)n, by_prio);
			fprintf(stderr, "wqctl: get %s: write error: %s (%s put back)\n",
				c->args[0], strerror(saved),
				n == 1 ? "key" : "keys");
			return RC_FAIL;
		}
		if (has(c, O_DONE)) {
			p.keys = keys;
			p.n = (unsigned int)n;
			cur ^= 1;
		}
		got += n;
	}
	return p.n ? done_keys(c, &p) : RC_OK;
}

static int done_one(const struct ctx *c, const struct key *k)
{
	return wq_done(c->fd, k->bytes, k->len);
}

int cmd_done(struct ctx *c)
{
	return each_key(c, done_one);
}

static int forget_one(const struct ctx *c, const struct key *k)
{
	return wq_forget(c->fd, k->bytes, k->len);
}

int cmd_forget(struct ctx *c)
{
	return each_key(c, forget_one);
}
