/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wqctl's own header: the command table's shape, the parsed command line
 * (struct ctx) and what its files share. Not part of libwq.
 */
#ifndef WQCTL_H
#define WQCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "wq.h"
#include "../wq_internal.h"

/* Exit codes, documented in the --help text. */
enum {
	RC_OK		= 0,	/* success */
	RC_FAIL		= 1,	/* the operation failed */
	RC_USAGE	= 2,	/* usage error */
	RC_EMPTY	= 3,	/* get: nothing to get */
	RC_SHUTDOWN	= 4,	/* get: shutting down and empty */
};

/*
 * O_PRIORITY_QUEUE (create) and O_PRIORITY (add) are both --priority: a
 * command accepts one of them, the first without a value, the second with.
 */
enum opt_id {
	O_LIMITER, O_MAX_ITEMS, O_MODE, O_AFTER, O_RATE_LIMITED, O_TIMEOUT,
	O_DONE, O_COUNT, O_RAW, O_ESCAPED, O_WAIT, O_DISCARD, O_PRIORITY_QUEUE,
	O_STARVE, O_PRIORITY, O_JSON, O_OUTPUT, O_INTERVAL, O_WCOUNT, O_DELAY,
	O_TEXTFILE, O_HELP, NR_OPTS
};

/* --json and -o json/text: the commands that print for scripts */
#define OPTS_JSON	(OPT(O_JSON) | OPT(O_OUTPUT))

#define OPT(o)	(1U << (o))

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
	struct wq_attr attr;		/* create: also priority, starve_ns */
	int32_t priority;		/* add --priority */
	uint64_t after_ns;
	bool has_timeout;
	uint64_t timeout_ns;
	long count;			/* get, top -n; watch -c */
	uint64_t interval_ns;		/* watch -n, top -d: between refreshes */
	bool json;			/* --json, -o json */
};

static inline bool has(const struct ctx *c, enum opt_id o)
{
	return c->set & OPT(o);
}

/* options.c: the command line into struct ctx */
int parse_argv(struct ctx *c, int argc, char **argv);
int check_args(struct ctx *c);
int parse_values(struct ctx *c);
int ns_to_ms(uint64_t ns);

/* cmd_keys.c: a timeout_ms for a wait that must end by deadline */
int ms_until(uint64_t deadline);

/* lines.c: keys from standard input, one a line, in batches */
struct key_batch {
	struct iovec keys[WQ_BATCH_MAX];
	long line[WQ_BATCH_MAX];	/* the line each key came from */
	unsigned int n;
};
/*
 * Calls send() with every batch of keys read from fd 0 (a batch is sent
 * when full or when no more input is ready). send() returns 0, or
 * -1 to stop reading. Returns the number of bad lines (reported), or -1
 * if send() stopped it or the input could not be read.
 */
long read_key_lines(const struct ctx *c,
		    int (*send)(const struct ctx *c, const struct key_batch *b));

/* escape.c: keys as text and back */
void put_key(FILE *f, const char *k, size_t len);
long unescape(const char *in, char *out);

/*
 * cmd_metrics.c: every queue's metrics (shared with top, cmd_top.c), and a
 * priority level as a label value: "N", or "<=N" for the last entry when
 * it sums the levels beyond WQ_LEVELS_MAX - 1.
 */
struct qm {
	char name[WQ_NAME_MAX];
	struct wq_metrics m;
	bool ok;
	bool priority;		/* a priority queue (from the list) */
};
int list_queues(struct qm **out, size_t *n);
int queue_metrics(const char *name, struct wq_metrics *m);
void fmt_level(char *buf, size_t cap, const struct wq_metrics *m, uint32_t i);
/* The highest level holding keys, as fmt_level(), or "-". */
void fmt_top_level(char *buf, size_t cap, const struct wq_metrics *m);

/* json.c: one JSON document on stdout; the k ones write "k": first */
void json_object(void);
void json_end_object(void);
void json_array(void);
void json_end_array(void);
void json_string(const char *s);
void json_key(const char *k);
void json_u64(const char *k, uint64_t v);
void json_s64(const char *k, int64_t v);
void json_bool(const char *k, bool v);
void json_str(const char *k, const char *v);
void json_null(const char *k);

/* cmd_version.c: wqctl's, libwq's and the module's versions */
int cmd_version(struct ctx *c);

/* errors.c: what goes to stderr */
int fail(const struct ctx *c, const struct key *k, int err);
/* "-EDQUOT": the name of -errno err */
const char *err_name(int err);
/* "wqctl: add Q: line N (KEY): what (-EWHAT)"; k may be NULL */
void fail_line(const struct ctx *c, long line, const char *k, size_t len,
	       int err);
__attribute__((format(printf, 3, 4)))
void line_error(const struct ctx *c, long line, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
int usage_error(const struct command *cmd, const char *fmt, ...);

/* The commands, by group. */
int cmd_create(struct ctx *c);		/* cmd_queue.c */
int cmd_destroy(struct ctx *c);
int cmd_shutdown(struct ctx *c);
int cmd_drain(struct ctx *c);
int cmd_add(struct ctx *c);		/* cmd_keys.c */
int cmd_get(struct ctx *c);
int cmd_done(struct ctx *c);
int cmd_forget(struct ctx *c);
int cmd_state(struct ctx *c);		/* cmd_state.c */
int cmd_cancel(struct ctx *c);
int cmd_list(struct ctx *c);		/* cmd_stat.c */
int cmd_len(struct ctx *c);
int cmd_requeues(struct ctx *c);
int cmd_stat(struct ctx *c);
int cmd_watch(struct ctx *c);		/* cmd_watch.c */
int cmd_metrics(struct ctx *c);		/* cmd_metrics.c */
int cmd_top(struct ctx *c);

#endif /* WQCTL_H */
