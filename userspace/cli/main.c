// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the shell tool for the work queues of the wq module (/dev/wq).
 *
 *	wqctl create jobs --limiter exponential:5ms:10s
 *	wqctl add jobs ns/pod-1 ns/pod-2 ns/pod-1
 *	key=$(wqctl get jobs --timeout 5s) && work "$key"; wqctl done jobs "$key"
 *
 * Everything goes through libwq (wq.h, libwq(3)). This file is the
 * command table, the help, and main: parse, open the queue, run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "wqctl.h"

/*
 * Two kinds of command recur: one that takes only the NAME of a queue it
 * opens, with options (their usage after NAME), and one that makes a call
 * on KEY (max_args 2) or on each KEY of a list (max_args -1), given as
 * they are or --escaped.
 */
#define QUEUE_COMMAND(cmd_name, fn, options, opt_usage, text) {		\
	.name = cmd_name, .run = fn, .opts = options,			\
	.min_args = 1, .max_args = 1, .open_queue = true,		\
	.usage = " NAME" opt_usage, .help = text,			\
}
#define KEY_COMMAND(cmd_name, fn, keys, max, text) {			\
	.name = cmd_name, .run = fn, .opts = OPT(O_ESCAPED),		\
	.min_args = 2, .max_args = max, .open_queue = true,		\
	.usage = " NAME " keys " [--escaped]", .help = text,		\
}
#define HELP_JSON(what) \
	"  --json, -o json   one JSON document: " what " (wqctl(1))\n"
#define HELP_ESCAPED_KEYS \
	"  -e, --escaped     keys are C-escaped as get prints them\n"

static const struct command commands[] = {
	{
		.name = "create", .run = cmd_create,
		.opts = OPT(O_LIMITER) | OPT(O_MAX_ITEMS) | OPT(O_MODE) |
			OPT(O_PRIORITY_QUEUE) | OPT(O_STARVE),
		.min_args = 1, .max_args = 1,
		.usage = " NAME [--limiter SPEC] [--max-items N] [--mode OCTAL]\n"
			 "           [--priority [--starve DURATION]]",
		.help =
		"Create the queue NAME ([A-Za-z0-9._-], 1 to 63 characters).\n"
		"  --limiter SPEC   rate limiter, e.g. exponential:5ms:1000s,bucket:10:100\n"
		"                   (terms: exponential:BASE:MAX bucket:QPS:BURST\n"
		"                   fastslow:FAST:SLOW:N maxwait:MAX default none)\n"
		"  --max-items N    most distinct keys held at once (default: the module's)\n"
		"  --mode OCTAL     permission bits, exactly as given (the umask does\n"
		"                   not apply, as with mkdir -m; default 0600 less the umask)\n"
		"  --priority       hand keys out by priority (add --priority N), higher\n"
		"                   first, equal ones in the order they became ready\n"
		"  --starve DURATION  with --priority: a key ready for longer goes\n"
		"                   before every key that is not, whatever the priorities\n",
	}, {
		.name = "destroy", .run = cmd_destroy,
		.min_args = 1, .max_args = 1, .usage = " NAME",
		.help =
		"Remove the name NAME; open handles keep working until closed.\n",
	}, {
		.name = "list", .run = cmd_list, .opts = OPTS_JSON,
		.usage = " [--json]",
		.help =
		"List the queues, sorted by name. SHUTDOWN is yes, no, or draining\n"
		"(a 'wqctl drain' is waiting).\n"
		HELP_JSON("{\"queues\": [ the fields of 'wqctl stat --json', a queue each ]}"),
	}, {
		.name = "add", .run = cmd_add,
		.opts = OPT(O_AFTER) | OPT(O_RATE_LIMITED) | OPT(O_WAIT) |
			OPT(O_TIMEOUT) | OPT(O_ESCAPED) | OPT(O_PRIORITY),
		.min_args = 1, .max_args = -1, .open_queue = true,
		.usage = " NAME [KEY...] [--after DURATION | --rate-limited |\n"
			 "           --wait [--timeout DURATION]] [--priority N] [--escaped]",
		.help =
		"Add each KEY (stops at the first failure). A key already queued keeps\n"
		"its place; a key being processed is queued again at its done.\n"
		"Without KEY, the keys are read from standard input, one a line, and\n"
		"added in batches of up to 1024 a call (a batch goes when full or when\n"
		"no more input is ready). Every line is tried; each failure is reported\n"
		"with its line number and the exit status is then 1. A shutdown (or\n"
		"the --wait deadline) stops the reading.\n"
		"  --after DURATION  add once DURATION has passed (wq_add_after)\n"
		"  --rate-limited    wait as long as the queue's rate limiter says, and\n"
		"                    print \"KEY: delay DURATION\" (wq_add_rate_limited)\n"
		"  --wait            when the queue is full, wait for room instead of\n"
		"                    failing (wq_add_wait)\n"
		"  -t, --timeout DURATION  with --wait: give up after DURATION, one\n"
		"                    deadline for all the keys (default: never)\n"
		"  --priority N      a priority queue's: the keys' priority (an integer,\n"
		"                    higher first; a key it holds keeps the higher one)\n"
		"  -e, --escaped     keys are C-escaped as get prints them (\\n, \\xNN, \\\\)\n",
	},
	QUEUE_COMMAND("get", cmd_get,
		OPT(O_TIMEOUT) | OPT(O_DONE) | OPT(O_COUNT) | OPT(O_RAW),
		" [--timeout DURATION] [--done] [-n COUNT] [--raw]",
		"Take the key at the head of the queue and print it on a line of its own.\n"
		"The key stays processing after wqctl exits, until 'wqctl done NAME KEY'.\n"
		"A key with bytes other than printable ASCII is printed C-escaped\n"
		"(give it back with 'wqctl done -e'). On a priority queue each key is\n"
		"followed by a tab and its priority (cut -f1 gives the key).\n"
		"  -t, --timeout DURATION  wait at most this long (default: forever;\n"
		"                          0: never wait)\n"
		"  --done                  consume: mark each key done once printed\n"
		"  -n, --count COUNT       take up to COUNT keys (one deadline for all),\n"
		"                          as many a call as are queued (wq_get_batch);\n"
		"                          exits 0 if at least one was taken\n"
		"  --raw                   write the key's bytes as they are, no newline\n"
		"                          (one key only)\n"
		"Exits 3 when there is nothing to get in time, 4 when the queue is\n"
		"shutting down and empty.\n"),
	KEY_COMMAND("done", cmd_done, "KEY...", -1,
		"End the processing of each KEY; a key added meanwhile is queued again.\n"
		"Fails if a key is not being processed.\n"
		HELP_ESCAPED_KEYS),
	QUEUE_COMMAND("len", cmd_len, 0, "",
		"Print the number of queued keys (not processing or waiting ones).\n"),
	QUEUE_COMMAND("shutdown", cmd_shutdown, OPT(O_DISCARD), " [--discard]",
		"Stop accepting keys and wake every waiting get; waiting (--after)\n"
		"keys are dropped. Queued keys are still handed out.\n"
		"  --discard   drop the queued keys too, and the re-queue of keys being\n"
		"              processed (they finish normally); print how many queued\n"
		"              and waiting keys were dropped\n"),
	QUEUE_COMMAND("drain", cmd_drain, OPT(O_TIMEOUT), " [--timeout DURATION]",
		"Shut the queue down, then wait until nothing is queued or processing\n"
		"(keys taken by 'wqctl get' count until 'wqctl done').\n"
		"  -t, --timeout DURATION  give up (exit 1) after DURATION (default: never)\n"),
	KEY_COMMAND("forget", cmd_forget, "KEY...", -1,
		"Make the rate limiter forget the failures of each KEY.\n"
		HELP_ESCAPED_KEYS),
	{
		.name = "state", .run = cmd_state, .opts = OPT(O_ESCAPED) | OPTS_JSON,
		.min_args = 2, .max_args = 2, .open_queue = true,
		.usage = " NAME KEY [--escaped] [--json]",
		.help =
		"Print what the queue holds of KEY as \"field: value\" lines: state\n"
		"(queued, processing, dirty, waiting, comma-separated; none), priority,\n"
		"ready_ns (when a waiting copy becomes ready, CLOCK_MONOTONIC ns; 0),\n"
		"ready_in (how long until then; -) and requeues (the limiter's count).\n"
		"  -e, --escaped     the key is C-escaped as get prints it\n"
		HELP_JSON("state as an array of words, ready_in as ready_in_ns"),
	},
	KEY_COMMAND("cancel", cmd_cancel, "KEY...", -1,
		"Drop the waiting copy (add --after, --rate-limited) of each KEY; a key\n"
		"also queued or processing stays so. Print how many were dropped.\n"
		HELP_ESCAPED_KEYS),
	KEY_COMMAND("requeues", cmd_requeues, "KEY", 2,
		"Print the rate limiter's failure count of KEY.\n"
		"  -e, --escaped     the key is C-escaped as get prints it\n"),
	QUEUE_COMMAND("stat", cmd_stat, OPTS_JSON, " [--json]",
		"Print the queue's statistics as \"field: value\" lines.\n"
		HELP_JSON("the same fields, yes/no as true/false")),
	QUEUE_COMMAND("watch", cmd_watch, OPT(O_INTERVAL) | OPT(O_WCOUNT),
		" [-n SECONDS] [-c COUNT]",
		"Show the queue's counts every interval: queued, processing, waiting,\n"
		"dirty, adds/s and gets/s (gets/s is derived from the adds and the\n"
		"change of queued + dirty, an estimate while keys are put back by a\n"
		"closing handle or discarded); on a priority queue PRIO, the highest\n"
		"priority holding keys. On a terminal the line is redrawn in\n"
		"place and q or Ctrl-C quits; otherwise each refresh prints a line.\n"
		"  -n, --interval SECONDS  between refreshes, as watch(1)'s -n (default 1;\n"
		"                      at least 0.1; 500ms, 2s also do)\n"
		"  -c, --count COUNT   stop after COUNT refreshes\n"),
	{
		.name = "metrics", .run = cmd_metrics,
		.opts = OPTS_JSON | OPT(O_TEXTFILE),
		.min_args = 0, .max_args = -1,
		.usage = " [NAME...] [--json | --textfile FILE]",
		.help =
		"Print the metrics of every queue (or of each NAME) in the Prometheus\n"
		"text format: client-go's workqueue_* metrics (depth, adds, retries,\n"
		"queue and work duration histograms in seconds, unfinished work,\n"
		"longest running) and wq_* ones (queued, processing, waiting, tracked,\n"
		"refused, requeued on close, discarded), labelled name=\"NAME\"; a\n"
		"priority queue's depth also by level, labelled priority=\"N\".\n"
		"  --textfile FILE   write it to FILE atomically, for node_exporter's\n"
		"                    textfile collector: a temporary file beside it, then\n"
		"                    renamed over it (wq-metrics.service does, every 15 s)\n"
		HELP_JSON("{\"queues\": [ the wq_metrics(3) fields, a queue each ]}"),
	}, {
		.name = "top", .run = cmd_top, .opts = OPT(O_COUNT) | OPT(O_DELAY),
		.min_args = 0, .max_args = 0, .usage = " [-d SECONDS] [-n COUNT]",
		.help =
		"A live view of every queue you may list, refreshed every interval:\n"
		"depth, adds/s, gets/s, keys in flight, the oldest in flight, and the\n"
		"queue latency's p50 and p99 (estimated from the histogram), and with\n"
		"priority queues PRIO, the highest priority holding keys. On a\n"
		"terminal: q quits; d a g i o l n sort by depth, adds/s, gets/s, in\n"
		"flight, oldest, latency p99, name. Otherwise each refresh prints plain\n"
		"lines. Names take the width the terminal leaves (63 characters at\n"
		"most; all of them off a terminal).\n"
		"  -d, --interval SECONDS  between refreshes, as top(1)'s -d (default 1;\n"
		"                      at least 0.1; 500ms, 2s also do)\n"
		"  -n, --count COUNT   stop after COUNT refreshes, as top(1)'s -n\n",
	}, {
		.name = "version", .run = cmd_version, .opts = OPTS_JSON,
		.min_args = 0, .max_args = 0, .usage = " [--json]",
		.help =
		"Print wqctl's version, libwq's and the loaded module's (or that none\n"
		"is loaded), the module's ABI and features, and your quota use.\n"
		"'wqctl --version' and 'wqctl -V' print the same.\n"
		HELP_JSON("{\"wqctl\", \"libwq\", \"module\": {...} or null}"),
	},
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void print_help(FILE *f)
{
	fputs("usage: wqctl COMMAND [ARGS...] [OPTIONS]\n"
	      "\n"
	      "Work queues of the wq kernel module (" WQ_DEV_PATH "): client-go's\n"
	      "util/workqueue, shared between processes.\n"
	      "\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		const struct command *cmd = &commands[i];
		int pad = *cmd->usage ? 8 - (int)strlen(cmd->name) : 0;

		fprintf(f, "  %s%*s%s\n", cmd->name, pad, "", cmd->usage);
	}
	fputs("  help     [COMMAND]\n"
	      "  --version, -V  the same as 'wqctl version'\n"
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
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		argv[1] = "version";
	c.cmd = find_command(argv[1]);
	if (!c.cmd)
		return usage_error(NULL, "unknown command '%s'", argv[1]);
	rc = run(&c, argc - 2, argv + 2);
	free_ctx(&c);
	return finish(rc);
}
