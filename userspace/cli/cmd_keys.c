// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the commands on keys: add (also --after and --rate-limited), get,
 * done, forget. A key list is checked whole before the first call, and a
 * list stops at its first failure, which names the key.
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

static int add_one(const struct ctx *c, const struct key *k)
{
	uint64_t delay;
	char buf[64];
	int err;

	if (has(c, O_AFTER))
		return wq_add_after(c->fd, k->bytes, k->len, c->after_ns);
	if (!has(c, O_RATE_LIMITED))
		return wq_add(c->fd, k->bytes, k->len);
	err = wq_add_rate_limited(c->fd, k->bytes, k->len, &delay);
	if (err < 0)
		return err;
	wq_format_duration(buf, sizeof(buf), delay);
	put_key(stdout, k->bytes, k->len);
	printf(": delay %s\n", buf);
	return 0;
}

int cmd_add(struct ctx *c)
{
	return each_key(c, add_one);
}

/* The timeout_ms for a wait that must end by deadline. */
static int ms_until(uint64_t deadline)
{
	uint64_t now;

	if (deadline == WQ_DEADLINE_NONE)
		return -1;
	now = wq_now_ns();
	return deadline > now ? ns_to_ms(deadline - now) : 0;
}

/*
 * One key, waiting until deadline. timeout_ms is an int: a wait of more
 * than INT_MAX ms (24.8 days) is made of several.
 */
static ssize_t get_one(const struct ctx *c, char *buf, uint64_t deadline)
{
	for (;;) {
		int ms = ms_until(deadline);
		ssize_t n;

		if (has(c, O_DONE))	/* consumed at once: a crash requeues */
			n = wq_get(c->fd, buf, WQ_KEY_MAX, ms);
		else
			n = wq_get_detached(c->fd, buf, WQ_KEY_MAX, ms);
		if (n == -ETIMEDOUT && ms == INT_MAX && wq_now_ns() < deadline)
			continue;
		return n;
	}
}

/* Prints a key taken from the queue; false if stdout failed. */
static bool print_key(const struct ctx *c, const char *k, size_t len)
{
	if (has(c, O_RAW)) {
		fwrite(k, 1, len, stdout);
	} else {
		put_key(stdout, k, len);
		putchar('\n');
	}
	return fflush(stdout) == 0 && !ferror(stdout);
}

/* The key could not be handed to the user: put it back at the tail. */
static void requeue(const struct ctx *c, const char *k, size_t len)
{
	wq_add(c->fd, k, len);	/* marks it dirty: queued again at done */
	wq_done(c->fd, k, len);
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

int cmd_get(struct ctx *c)
{
	static char buf[WQ_KEY_MAX];
	uint64_t deadline = WQ_DEADLINE_NONE;
	long got;

	if (c->has_timeout)	/* one deadline for all of -n */
		deadline = wq_deadline_after(c->timeout_ns);
	signal(SIGPIPE, SIG_IGN);	/* see a closed stdout, requeue the key */
	for (got = 0; got < c->count; got++) {
		ssize_t n = get_one(c, buf, deadline);
		int err;

		if (n < 0)
			return get_failed(c, n, got);
		if (!print_key(c, buf, (size_t)n)) {
			int saved = errno;

			requeue(c, buf, (size_t)n);
			fprintf(stderr, "wqctl: get %s: write error: %s (key put back)\n",
				c->args[0], strerror(saved));
			return RC_FAIL;
		}
		err = has(c, O_DONE) ? wq_done(c->fd, buf, (size_t)n) : 0;
		if (err < 0)
			return fail(c, NULL, err);
	}
	return RC_OK;
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
