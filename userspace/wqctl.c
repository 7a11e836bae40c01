// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the shell tool for the work queues of the wq module (/dev/wq).
 *
 *	wqctl create jobs --limiter exponential:5ms:10s
 *	wqctl add jobs ns/pod-1 ns/pod-2 ns/pod-1
 *	key=$(wqctl get jobs --timeout 5s) && work "$key"; wqctl done jobs "$key"
 *
 * Everything goes through libwq (wq.h, spec/libwq.md). Options may come
 * before or after the positional arguments; "--" ends the options.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wq.h"

#define WQ_DEV		"/dev/wq"
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

/* Exit codes, documented in the --help text. */
enum {
	RC_OK		= 0,	/* success */
	RC_FAIL		= 1,	/* the operation failed */
	RC_USAGE	= 2,	/* usage error */
	RC_EMPTY	= 3,	/* get: nothing to get */
	RC_SHUTDOWN	= 4,	/* get: shutting down and empty */
};

/* ---- Options ---------------------------------------------------------- */

enum opt_id {
	O_LIMITER, O_MAX_ITEMS, O_MODE, O_AFTER, O_RATE_LIMITED, O_TIMEOUT,
	O_DONE, O_COUNT, O_RAW, O_ESCAPED, O_HELP, NR_OPTS
};

#define OPT(o)	(1U << (o))

struct option_def {
	const char *long_name;
	char short_name;	/* 0: none */
	bool has_arg;
};

static const struct option_def options[NR_OPTS] = {
	[O_LIMITER]	 = { "limiter",	     0,   true  },
	[O_MAX_ITEMS]	 = { "max-items",    0,   true  },
	[O_MODE]	 = { "mode",	     0,   true  },
	[O_AFTER]	 = { "after",	     0,   true  },
	[O_RATE_LIMITED] = { "rate-limited", 0,   false },
	[O_TIMEOUT]	 = { "timeout",	     't', true  },
	[O_DONE]	 = { "done",	     0,   false },
	[O_COUNT]	 = { "count",	     'n', true  },
	[O_RAW]		 = { "raw",	     0,   false },
	[O_ESCAPED]	 = { "escaped",	     'e', false },
	[O_HELP]	 = { "help",	     'h', false },
};

struct key {
	const char *bytes;	/* the argument, or @owned */
	size_t len;
	char *owned;		/* unescaped copy (--escaped) */
};

struct ctx;

struct command {
	const char *name;
	int (*run)(struct ctx *c);
	unsigned int opts;	/* OPT() bits accepted, besides --help */
	int min_args;		/* positional arguments, queue name included */
	int max_args;		/* -1: no limit */
	bool open_queue;	/* open args[0] into c->fd before run() */
	const char *usage;	/* " NAME ...", the arguments */
	const char *help;
};

struct ctx {
	const struct command *cmd;
	unsigned int set;		/* OPT() bits given */
	const char *optarg[NR_OPTS];
	char **args;			/* positional arguments */
	int nargs;
	struct key *keys;		/* args[1..] for commands taking keys */
	int nkeys;
	int fd;				/* queue handle, or -1 */
	/* option values, parsed */
	struct wq_attr attr;
	uint64_t after_ns;
	bool has_timeout;
	uint64_t timeout_ns;
	long count;
};

static bool has(const struct ctx *c, enum opt_id o)
{
	return c->set & OPT(o);
}

/* ---- Messages --------------------------------------------------------- */

static const struct {
	int err;
	const char *name;
} errnames[] = {
#define E(x) { x, "-" #x }
	E(EPERM), E(ENOENT), E(EINTR), E(EIO), E(ENXIO), E(E2BIG), E(EBADF),
	E(EAGAIN), E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
	E(ENODEV), E(EINVAL), E(ENFILE), E(EMFILE), E(ENOTTY), E(ENOSPC),
	E(ERANGE), E(ENAMETOOLONG), E(ENOSYS), E(EOVERFLOW), E(EMSGSIZE),
	E(EOPNOTSUPP), E(ESHUTDOWN), E(ETIMEDOUT), E(ECANCELED),
#undef E
};

static const char *err_name(int err)
{
	static char buf[24];

	for (size_t i = 0; i < sizeof(errnames) / sizeof(errnames[0]); i++)
		if (errnames[i].err == -err)
			return errnames[i].name;
	snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

static bool is_cmd(const struct ctx *c, const char *name)
{
	return !strcmp(c->cmd->name, name);
}

/* Human text for err, in the context of the command that got it. */
static const char *err_text(const struct ctx *c, int err)
{
	static char buf[128];

	switch (err) {
	case -ESHUTDOWN:
		return "queue is shutting down";
	case -EAGAIN:
		return is_cmd(c, "add") ? "queue is full" : "nothing queued";
	case -ENOENT:	/* on a handle: only done can fail so */
		return c->fd >= 0 ? "key is not being processed" : "no such queue";
	case -EEXIST:
		return "queue exists";
	case -EACCES:
		return "permission denied";
	case -EINVAL:
		return "invalid argument";
	case -ENOSPC:
		return is_cmd(c, "create") ? "too many queues" : "no space left";
	case -ETIMEDOUT:
		return is_cmd(c, "drain") ? "timed out before the queue drained" :
					    "timed out";
	case -ECANCELED:
		return "drain cut short by a shutdown";
	case -EBADF:
		return "not a queue handle";
	case -ENOTTY:
		return "not a wq device (module and libwq do not match?)";
	}
	snprintf(buf, sizeof(buf), "%s", strerror(-err));
	if (buf[0] >= 'A' && buf[0] <= 'Z')
		buf[0] += 'a' - 'A';
	return buf;
}

static bool byte_printable(unsigned char b)
{
	return b >= 0x20 && b < 0x7f;
}

static bool key_printable(const char *k, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!byte_printable((unsigned char)k[i]))
			return false;
	return true;
}

/*
 * Writes a key on one line's worth of text: as is when every byte is
 * printable ASCII, else C-escaped (\\, \n, \t, \r, \xNN), which
 * "--escaped" reads back.
 */
static void put_key(FILE *f, const char *k, size_t len)
{
	if (key_printable(k, len)) {
		fwrite(k, 1, len, f);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char b = (unsigned char)k[i];

		if (b == '\\')
			fputs("\\\\", f);
		else if (b == '\n')
			fputs("\\n", f);
		else if (b == '\t')
			fputs("\\t", f);
		else if (b == '\r')
			fputs("\\r", f);
		else if (byte_printable(b))
			fputc(b, f);
		else
			fprintf(f, "\\x%02x", b);
	}
}

/* A -ENOENT/-ENODEV that means "no module", not "no queue": say so. */
static bool module_missing(const struct ctx *c, int err)
{
	if (c->fd >= 0)		/* the device is open: it is there */
		return false;
	if (err == -ENOENT && access(WQ_DEV, F_OK) != 0) {
		fputs("wqctl: " WQ_DEV " not found: is the wq module loaded?\n",
		      stderr);
		return true;
	}
	if (err == -ENODEV || err == -ENXIO) {
		fprintf(stderr, "wqctl: " WQ_DEV ": %s (%s): is the wq module loaded?\n",
			strerror(-err), err_name(err));
		return true;
	}
	return false;
}

/*
 * "wqctl: add myq: queue is full (-EAGAIN)"; with several keys the failing
 * one is named: "wqctl: done myq ns/a: key is not being processed (-ENOENT)".
 */
static int fail(const struct ctx *c, const struct key *k, int err)
{
	if (module_missing(c, err))
		return RC_FAIL;
	fprintf(stderr, "wqctl: %s", c->cmd->name);
	if (c->cmd->min_args > 0)
		fprintf(stderr, " %s", c->args[0]);
	if (k && c->nkeys > 1) {
		fputc(' ', stderr);
		put_key(stderr, k->bytes, k->len);
	}
	fprintf(stderr, ": %s (%s)\n", err_text(c, err), err_name(err));
	return RC_FAIL;
}

__attribute__((format(printf, 2, 3)))
static int usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("wqctl: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "usage: wqctl %s%s\n", cmd->name, cmd->usage);
	else
		fputs("usage: wqctl COMMAND [ARGS...] [OPTIONS] (see 'wqctl --help')\n",
		      stderr);
	return RC_USAGE;
}

/* ---- Time ------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds to a timeout_ms, rounded up (1ns must still wait), clamped. */
static int ns_to_ms(uint64_t ns)
{
	uint64_t ms = ns / NSEC_PER_MSEC + (ns % NSEC_PER_MSEC != 0);

	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/* The timeout_ms for a wait that must end by deadline (UINT64_MAX: never). */
static int ms_until(uint64_t deadline)
{
	uint64_t now;

	if (deadline == UINT64_MAX)
		return -1;
	now = now_ns();
	return deadline > now ? ns_to_ms(deadline - now) : 0;
}

/* ---- Commands --------------------------------------------------------- */

static int cmd_create(struct ctx *c)
{
	int fd = wq_create(c->args[0], &c->attr);

	if (fd < 0)
		return fail(c, NULL, fd);
	wq_close(fd);
	return RC_OK;
}

static int cmd_destroy(struct ctx *c)
{
	int err = wq_destroy(c->args[0]);

	return err < 0 ? fail(c, NULL, err) : RC_OK;
}

static int by_name(const void *a, const void *b)
{
	const struct wq_stats *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static const char *shutdown_state(const struct wq_stats *st)
{
	if (st->draining)
		return "draining";
	return st->shutting_down ? "yes" : "no";
}

static void print_list(const struct wq_stats *st, size_t n)
{
	int w = (int)strlen("NAME");

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(st[i].name) > w)
			w = (int)strlen(st[i].name);
	printf("%-*s %7s %10s %7s  %-8s  %s\n", w, "NAME", "QUEUED",
	       "PROCESSING", "WAITING", "SHUTDOWN", "LIMITER");
	for (size_t i = 0; i < n; i++)
		printf("%-*s %7u %10u %7u  %-8s  %s\n", w, st[i].name,
		       st[i].queued, st[i].processing, st[i].waiting,
		       shutdown_state(&st[i]), st[i].limiter);
}

static int cmd_list(struct ctx *c)
{
	struct wq_stats *st = NULL;
	size_t cap = 16;
	int n;

	for (;;) {
		struct wq_stats *bigger = realloc(st, cap * sizeof(*st));

		if (!bigger) {
			free(st);
			return fail(c, NULL, -ENOMEM);
		}
		st = bigger;
		n = wq_list(st, cap);
		if (n < 0 || (size_t)n <= cap)
			break;
		cap = (size_t)n + 16;	/* queues were created meanwhile */
	}
	if (n < 0) {
		free(st);
		return fail(c, NULL, n);
	}
	qsort(st, (size_t)n, sizeof(*st), by_name);
	print_list(st, (size_t)n);
	free(st);
	return RC_OK;
}

static int add_one(struct ctx *c, const struct key *k)
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

static int cmd_add(struct ctx *c)
{
	for (int i = 0; i < c->nkeys; i++) {
		int err = add_one(c, &c->keys[i]);

		if (err < 0)
			return fail(c, &c->keys[i], err);
	}
	return RC_OK;
}

/* One key, waiting until deadline; a wait cut short by the clamp goes on. */
static ssize_t get_one(const struct ctx *c, char *buf, uint64_t deadline)
{
	for (;;) {
		int ms = ms_until(deadline);
		ssize_t n;

		if (has(c, O_DONE))	/* consumed at once: a crash requeues */
			n = wq_get(c->fd, buf, WQ_KEY_MAX, ms);
		else
			n = wq_get_detached(c->fd, buf, WQ_KEY_MAX, ms);
		if (n == -ETIMEDOUT && ms == INT_MAX && now_ns() < deadline)
			continue;
		return n;
	}
}

/* Prints a key taken from the queue; false if stdout failed. */
static bool print_key(const struct ctx *c, const char *k, size_t len)
{
	if (has(c, O_RAW))
		fwrite(k, 1, len, stdout);
	else {
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

static int cmd_get(struct ctx *c)
{
	static char buf[WQ_KEY_MAX];
	uint64_t deadline = UINT64_MAX;
	long got;

	if (c->has_timeout) {
		uint64_t now = now_ns();

		deadline = c->timeout_ns > UINT64_MAX - 1 - now ?
			   UINT64_MAX - 1 : now + c->timeout_ns;
	}
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

/* done, forget: one call per key, stopping at the first failure. */
static int each_key(struct ctx *c, int (*call)(int, const void *, size_t))
{
	for (int i = 0; i < c->nkeys; i++) {
		const struct key *k = &c->keys[i];
		int err = call(c->fd, k->bytes, k->len);

		if (err < 0)
			return fail(c, k, err);
	}
	return RC_OK;
}

static int cmd_done(struct ctx *c)
{
	return each_key(c, wq_done);
}

static int cmd_forget(struct ctx *c)
{
	return each_key(c, wq_forget);
}

/* len, requeues: the number a call returned, or its error. */
static int print_number(const struct ctx *c, int n)
{
	if (n < 0)
		return fail(c, NULL, n);
	printf("%d\n", n);
	return RC_OK;
}

static int cmd_len(struct ctx *c)
{
	return print_number(c, wq_len(c->fd));
}

static int cmd_requeues(struct ctx *c)
{
	const struct key *k = &c->keys[0];

	return print_number(c, wq_num_requeues(c->fd, k->bytes, k->len));
}

static int cmd_shutdown(struct ctx *c)
{
	int err = wq_shutdown(c->fd);

	return err < 0 ? fail(c, NULL, err) : RC_OK;
}

static int cmd_drain(struct ctx *c)
{
	int ms = c->has_timeout ? ns_to_ms(c->timeout_ns) : -1;
	int err = wq_shutdown_with_drain(c->fd, ms);

	return err < 0 ? fail(c, NULL, err) : RC_OK;
}

static const char *yes_no(int b)
{
	return b ? "yes" : "no";
}

static int cmd_stat(struct ctx *c)
{
	struct wq_stats st;
	int err = wq_stat(c->fd, &st);

	if (err < 0)
		return fail(c, NULL, err);
	printf("name: %s\n", st.name);
	printf("limiter: %s\n", st.limiter);
	printf("queued: %u\n", st.queued);
	printf("processing: %u\n", st.processing);
	printf("waiting: %u\n", st.waiting);
	printf("dirty: %u\n", st.dirty);
	printf("keys: %u\n", st.keys);
	printf("tracked: %u\n", st.tracked);
	printf("max_tracked: %u\n", st.max_tracked);
	printf("max_items: %u\n", st.max_items);
	printf("handles: %u\n", st.handles);
	printf("uid: %u\n", st.uid);
	printf("gid: %u\n", st.gid);
	printf("mode: %04o\n", st.mode);
	printf("shutting_down: %s\n", yes_no(st.shutting_down));
	printf("draining: %s\n", yes_no(st.draining));
	printf("unlinked: %s\n", yes_no(st.unlinked));
	printf("adds: %llu\n", (unsigned long long)st.adds);
	printf("retries: %llu\n", (unsigned long long)st.retries);
	printf("evicted: %llu\n", (unsigned long long)st.evicted);
	return RC_OK;
}

static const struct command commands[] = {
	{ "create", cmd_create, OPT(O_LIMITER) | OPT(O_MAX_ITEMS) | OPT(O_MODE),
	  1, 1, false,
	  " NAME [--limiter SPEC] [--max-items N] [--mode OCTAL]",
	  "Create the queue NAME ([A-Za-z0-9._-], 1 to 63 characters).\n"
	  "  --limiter SPEC   rate limiter, e.g. exponential:5ms:1000s,bucket:10:100\n"
	  "                   (terms: exponential:BASE:MAX bucket:QPS:BURST\n"
	  "                   fastslow:FAST:SLOW:N maxwait:MAX default none)\n"
	  "  --max-items N    most distinct keys held at once (default: the module's)\n"
	  "  --mode OCTAL     permission bits, like chmod (default 0600)\n" },
	{ "destroy", cmd_destroy, 0, 1, 1, false, " NAME",
	  "Remove the name NAME; open handles keep working until closed.\n" },
	{ "list", cmd_list, 0, 0, 0, false, "",
	  "List the queues, sorted by name. SHUTDOWN is yes, no, or draining\n"
	  "(a 'wqctl drain' is waiting).\n" },
	{ "add", cmd_add, OPT(O_AFTER) | OPT(O_RATE_LIMITED) | OPT(O_ESCAPED),
	  2, -1, true,
	  " NAME KEY... [--after DURATION | --rate-limited] [--escaped]",
	  "Add each KEY (stops at the first failure). A key already queued keeps\n"
	  "its place; a key being processed is queued again at its done.\n"
	  "  --after DURATION  add once DURATION has passed (wq_add_after)\n"
	  "  --rate-limited    wait as long as the queue's rate limiter says, and\n"
	  "                    print \"KEY: delay DURATION\" (wq_add_rate_limited)\n"
	  "  -e, --escaped     keys are C-escaped as get prints them (\\n, \\xNN, \\\\)\n" },
	{ "get", cmd_get,
	  OPT(O_TIMEOUT) | OPT(O_DONE) | OPT(O_COUNT) | OPT(O_RAW),
	  1, 1, true,
	  " NAME [--timeout DURATION] [--done] [-n COUNT] [--raw]",
	  "Take the key at the head of the queue and print it on a line of its own.\n"
	  "The key stays processing after wqctl exits, until 'wqctl done NAME KEY'.\n"
	  "A key with bytes other than printable ASCII is printed C-escaped\n"
	  "(give it back with 'wqctl done -e').\n"
	  "  -t, --timeout DURATION  wait at most this long (default: forever;\n"
	  "                          0: never wait)\n"
	  "  --done                  consume: mark each key done once printed\n"
	  "  -n, --count COUNT       take up to COUNT keys (one deadline for all);\n"
	  "                          exits 0 if at least one was taken\n"
	  "  --raw                   write the key's bytes as they are, no newline\n"
	  "                          (one key only)\n"
	  "Exits 3 when there is nothing to get in time, 4 when the queue is\n"
	  "shutting down and empty.\n" },
	{ "done", cmd_done, OPT(O_ESCAPED), 2, -1, true, " NAME KEY... [--escaped]",
	  "End the processing of each KEY; a key added meanwhile is queued again.\n"
	  "Fails if a key is not being processed.\n"
	  "  -e, --escaped     keys are C-escaped as get prints them\n" },
	{ "len", cmd_len, 0, 1, 1, true, " NAME",
	  "Print the number of queued keys (not processing or waiting ones).\n" },
	{ "shutdown", cmd_shutdown, 0, 1, 1, true, " NAME",
	  "Stop accepting keys and wake every waiting get; waiting (--after)\n"
	  "keys are dropped. Queued keys are still handed out.\n" },
	{ "drain", cmd_drain, OPT(O_TIMEOUT), 1, 1, true,
	  " NAME [--timeout DURATION]",
	  "Shut the queue down, then wait until nothing is queued or processing\n"
	  "(keys taken by 'wqctl get' count until 'wqctl done').\n"
	  "  -t, --timeout DURATION  give up (exit 1) after DURATION (default: never)\n" },
	{ "forget", cmd_forget, OPT(O_ESCAPED), 2, -1, true,
	  " NAME KEY... [--escaped]",
	  "Make the rate limiter forget the failures of each KEY.\n"
	  "  -e, --escaped     keys are C-escaped as get prints them\n" },
	{ "requeues", cmd_requeues, OPT(O_ESCAPED), 2, 2, true,
	  " NAME KEY [--escaped]",
	  "Print the rate limiter's failure count of KEY.\n"
	  "  -e, --escaped     the key is C-escaped as get prints it\n" },
	{ "stat", cmd_stat, 0, 1, 1, true, " NAME",
	  "Print the queue's statistics as \"field: value\" lines.\n" },
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

/* ---- Help ------------------------------------------------------------- */

static void print_help(FILE *f)
{
	fputs("usage: wqctl COMMAND [ARGS...] [OPTIONS]\n"
	      "\n"
	      "Work queues of the wq kernel module (" WQ_DEV "): client-go's\n"
	      "util/workqueue, shared between processes.\n"
	      "\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		const struct command *cmd = &commands[i];
		int pad = *cmd->usage ? 8 - (int)strlen(cmd->name) : 0;

		fprintf(f, "  %s%*s%s\n", cmd->name, pad, "", cmd->usage);
	}
	fputs("  help     [COMMAND]\n"
	      "\n"
	      "Options may come before or after the arguments; '--' ends them (for\n"
	      "keys that begin with '-'). Durations are written as in Go: 250ms, 5s,\n"
	      "1.5s, 2m, 1h30m. 'wqctl COMMAND --help' describes one command.\n"
	      "\n"
	      "Exit status:\n"
	      "  0  success\n"
	      "  1  the operation failed (the reason is on stderr)\n"
	      "  2  usage error\n"
	      "  3  get: nothing to get (timed out, or nothing queued with --timeout 0)\n"
	      "  4  get: the queue is shutting down and empty\n", f);
}

static void print_command_help(const struct command *cmd)
{
	printf("usage: wqctl %s%s\n\n%s", cmd->name, cmd->usage, cmd->help);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 1) {
		print_help(stdout);
		return RC_OK;
	}
	cmd = find_command(argv[0]);
	if (!cmd)
		return usage_error(NULL, "unknown command '%s'", argv[0]);
	print_command_help(cmd);
	return RC_OK;
}

/* ---- Argument parsing ------------------------------------------------- */

static const struct option_def *find_option(const char *arg)
{
	for (int i = 0; i < NR_OPTS; i++) {
		const struct option_def *od = &options[i];

		if (arg[1] == '-') {
			size_t len = strcspn(arg + 2, "=");

			if (strlen(od->long_name) == len &&
			    !strncmp(arg + 2, od->long_name, len))
				return od;
		} else if (od->short_name && arg[1] == od->short_name) {
			return od;
		}
	}
	return NULL;
}

/* The value attached to the option itself: --name=VALUE, -nVALUE. */
static const char *attached_value(const char *arg)
{
	if (arg[1] == '-') {
		const char *eq = strchr(arg, '=');

		return eq ? eq + 1 : NULL;
	}
	return arg[2] ? arg + 2 : NULL;
}

/* Takes argv[*i], an option; may consume argv[*i + 1] as its value. */
static int parse_option(struct ctx *c, int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const struct option_def *od = find_option(arg);
	const char *val = attached_value(arg);
	int id = od ? (int)(od - options) : 0;

	if (!od || !((c->cmd->opts | OPT(O_HELP)) & OPT(id)))
		return usage_error(c->cmd, "unknown option '%s'", arg);
	if (od->has_arg && !val) {
		if (*i + 1 >= argc)
			return usage_error(c->cmd, "option '%s' needs a value", arg);
		val = argv[++*i];
	} else if (!od->has_arg && val) {
		return usage_error(c->cmd, "option '%s' takes no value", arg);
	}
	c->set |= OPT(id);
	c->optarg[id] = val;
	return 0;
}

static int parse_argv(struct ctx *c, int argc, char **argv)
{
	bool options_end = false;

	for (int i = 0; i < argc; i++) {
		char *arg = argv[i];
		int rc;

		if (options_end || arg[0] != '-' || arg[1] == '\0') {
			c->args[c->nargs++] = arg;
		} else if (!strcmp(arg, "--")) {
			options_end = true;
		} else {
			rc = parse_option(c, argc, argv, &i);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* The byte of a one-letter escape (\\ \n \t \r), or -1. */
static int escaped_byte(char ch)
{
	switch (ch) {
	case '\\':
		return '\\';
	case 'n':
		return '\n';
	case 't':
		return '\t';
	case 'r':
		return '\r';
	}
	return -1;
}

/* Undoes put_key's escapes, in into out; the length, or -1 if malformed. */
static long unescape(const char *in, char *out)
{
	const char *start = out;

	while (*in) {
		int b = (unsigned char)*in++;

		if (b == '\\' && *in == 'x') {
			int hi = hex_digit(in[1]);
			int lo = hi < 0 ? -1 : hex_digit(in[2]);

			if (lo < 0)
				return -1;
			b = hi << 4 | lo;
			in += 3;
		} else if (b == '\\') {
			b = escaped_byte(*in++);
			if (b < 0)
				return -1;
		}
		*out++ = (char)b;
	}
	return out - start;
}

static int parse_key(struct ctx *c, struct key *k, const char *arg)
{
	long len = (long)strlen(arg);

	if (has(c, O_ESCAPED)) {
		k->owned = malloc((size_t)len + 1);
		if (!k->owned) {
			fputs("wqctl: out of memory\n", stderr);
			return RC_FAIL;
		}
		len = unescape(arg, k->owned);
		k->bytes = k->owned;
		if (len < 0)
			return usage_error(c->cmd, "bad escape in key '%s' (use \\\\, \\n, \\t, \\r, \\xNN)",
					   arg);
	} else {
		k->bytes = arg;
	}
	if (len == 0)
		return usage_error(c->cmd, "empty key");
	if (len > WQ_KEY_MAX)
		return usage_error(c->cmd, "key longer than %d bytes", WQ_KEY_MAX);
	k->len = (size_t)len;
	return 0;
}

/* All keys are checked before the first is used: no half-done command. */
static int parse_keys(struct ctx *c)
{
	c->keys = calloc((size_t)c->nargs, sizeof(*c->keys));
	if (!c->keys) {
		fputs("wqctl: out of memory\n", stderr);
		return RC_FAIL;
	}
	for (int i = 1; i < c->nargs; i++) {
		int rc = parse_key(c, &c->keys[c->nkeys++], c->args[i]);

		if (rc)
			return rc;
	}
	return 0;
}

static bool valid_name(const char *name)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t len = strlen(name);

	return len > 0 && len < WQ_NAME_MAX && strspn(name, chars) == len;
}

static int check_args(struct ctx *c)
{
	const struct command *cmd = c->cmd;

	if (c->nargs < cmd->min_args)
		return usage_error(cmd, "missing %s", c->nargs ? "KEY" : "NAME");
	if (cmd->max_args >= 0 && c->nargs > cmd->max_args)
		return usage_error(cmd, "unexpected argument '%s'",
				   c->args[cmd->max_args]);
	if (cmd->min_args > 0 && !valid_name(c->args[0]))
		return usage_error(cmd, "bad queue name '%s' (want [A-Za-z0-9._-], 1 to %d characters)",
				   c->args[0], WQ_NAME_MAX - 1);
	return cmd->min_args > 1 ? parse_keys(c) : 0;
}

/* A plain unsigned number: digits only (strtoul alone takes "-1", " 1"). */
static bool parse_ulong(const char *s, int base, unsigned long max,
			unsigned long *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

static int parse_duration(const struct ctx *c, enum opt_id o, uint64_t *ns)
{
	if (wq_parse_duration(c->optarg[o], ns) < 0)
		return usage_error(c->cmd, "bad duration '%s' for --%s (e.g. 250ms, 5s, 1.5s, 2m)",
				   c->optarg[o], options[o].long_name);
	return 0;
}

static int parse_attr_values(struct ctx *c)
{
	const char *limiter = c->optarg[O_LIMITER];
	unsigned long v;

	if (has(c, O_LIMITER)) {
		if (wq_limiter_check(limiter) == -EINVAL)
			return usage_error(c->cmd, "bad limiter spec '%s'", limiter);
		c->attr.limiter = limiter;
	}
	if (has(c, O_MAX_ITEMS)) {
		if (!parse_ulong(c->optarg[O_MAX_ITEMS], 10, UINT32_MAX, &v))
			return usage_error(c->cmd, "bad --max-items '%s'",
					   c->optarg[O_MAX_ITEMS]);
		c->attr.max_items = (uint32_t)v;
	}
	if (has(c, O_MODE)) {
		if (!parse_ulong(c->optarg[O_MODE], 8, 07777, &v))
			return usage_error(c->cmd, "bad --mode '%s' (octal, e.g. 0660)",
					   c->optarg[O_MODE]);
		c->attr.mode = (mode_t)v;
	}
	return 0;
}

static int parse_get_values(struct ctx *c)
{
	unsigned long v;
	int rc;

	if (has(c, O_AFTER)) {
		rc = parse_duration(c, O_AFTER, &c->after_ns);
		if (rc)
			return rc;
	}
	if (has(c, O_TIMEOUT)) {
		rc = parse_duration(c, O_TIMEOUT, &c->timeout_ns);
		if (rc)
			return rc;
		c->has_timeout = true;
	}
	c->count = 1;
	if (has(c, O_COUNT)) {
		if (!parse_ulong(c->optarg[O_COUNT], 10, LONG_MAX, &v) || !v)
			return usage_error(c->cmd, "bad count '%s'",
					   c->optarg[O_COUNT]);
		c->count = (long)v;
	}
	return 0;
}

static int parse_values(struct ctx *c)
{
	int rc = parse_attr_values(c);

	if (!rc)
		rc = parse_get_values(c);
	if (rc)
		return rc;
	if (has(c, O_AFTER) && has(c, O_RATE_LIMITED))
		return usage_error(c->cmd, "--after and --rate-limited exclude each other");
	if (has(c, O_RAW) && c->count > 1)
		return usage_error(c->cmd, "--raw writes one key: not with -n");
	return 0;
}

/* ---- main ------------------------------------------------------------- */

static int run(struct ctx *c, int argc, char **argv)
{
	int rc;

	c->args = calloc((size_t)argc + 1, sizeof(*c->args));
	if (!c->args) {
		fputs("wqctl: out of memory\n", stderr);
		return RC_FAIL;
	}
	rc = parse_argv(c, argc, argv);
	if (rc)
		return rc;
	if (has(c, O_HELP)) {
		print_command_help(c->cmd);
		return RC_OK;
	}
	rc = check_args(c);
	if (!rc)
		rc = parse_values(c);
	if (rc)
		return rc;
	if (c->cmd->open_queue) {
		int fd = wq_open(c->args[0]);

		if (fd < 0)
			return fail(c, NULL, fd);
		c->fd = fd;
	}
	rc = c->cmd->run(c);
	if (c->fd >= 0)
		wq_close(c->fd);
	return rc;
}

static void free_ctx(struct ctx *c)
{
	for (int i = 0; i < c->nkeys; i++)
		free(c->keys[i].owned);
	free(c->keys);
	free(c->args);
}

/* Output that never reached its file is a failure too. */
static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == RC_OK)
			fprintf(stderr, "wqctl: write error: %s\n", strerror(errno));
		return rc == RC_OK ? RC_FAIL : rc;
	}
	return rc;
}

/*
 * A closed stdin, stdout or stderr would be reused by the /dev/wq handle,
 * and our output written into the queue device: fill them with a read-only
 * /dev/null, on which writes fail (EBADF) as they should.
 */
static void guard_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", O_RDONLY) < 0)
			break;
	}
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "help") || !strcmp(arg, "--help") ||
	       !strcmp(arg, "-h");
}

int main(int argc, char **argv)
{
	struct ctx c = { .fd = -1 };
	int rc;

	guard_std_fds();
	if (argc < 2)
		return usage_error(NULL, "missing COMMAND");
	if (is_help(argv[1]))
		return finish(cmd_help(argc - 2, argv + 2));
	c.cmd = find_command(argv[1]);
	if (!c.cmd)
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	rc = run(&c, argc - 2, argv + 2);
	free_ctx(&c);
	return finish(rc);
}
