// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the command line into struct ctx. Options may come before or
 * after the positional arguments; "--" ends them. Everything is checked
 * before the queue is touched, so a usage error (exit 2) never leaves a
 * command half done.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "wqctl.h"

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
	[O_WAIT]	 = { "wait",	     0,   false },
	[O_DISCARD]	 = { "discard",	     0,   false },
	[O_PRIORITY_QUEUE] = { "priority",   0,   false },
	[O_STARVE]	 = { "starve",	     0,   true  },
	[O_PRIORITY]	 = { "priority",     0,   true  },
	[O_JSON]	 = { "json",	     0,   false },
	[O_OUTPUT]	 = { "output",	     'o', true  },
	[O_INTERVAL]	 = { "interval",     'n', true  },	/* watch(1)'s -n */
	[O_WCOUNT]	 = { "count",	     'c', true  },	/* watch's count */
	[O_DELAY]	 = { "interval",     'd', true  },	/* top(1)'s -d */
	[O_TEXTFILE]	 = { "textfile",     0,   true  },
	[O_HELP]	 = { "help",	     'h', false },
};

/* The option arg names among those of mask (two may share a name). */
static const struct option_def *find_option_in(const char *arg,
					       unsigned int mask)
{
	for (int i = 0; i < NR_OPTS; i++) {
		const struct option_def *od = &options[i];

		if (!(mask & OPT(i)))
			continue;

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

/* The option of the command first: create's --priority is not add's. */
static const struct option_def *find_option(const struct ctx *c,
					    const char *arg)
{
	const struct option_def *od;

	od = find_option_in(arg, c->cmd->opts | OPT(O_HELP));
	return od ? od : find_option_in(arg, ~0U);
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
	const struct option_def *od = find_option(c, arg);
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

int parse_argv(struct ctx *c, int argc, char **argv)
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
	if (!wq_key_len_valid((size_t)len))
		return len ? usage_error(c->cmd, "key longer than %d bytes",
					 WQ_KEY_MAX) :
			     usage_error(c->cmd, "empty key");
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

int check_args(struct ctx *c)
{
	const struct command *cmd = c->cmd;

	if (c->nargs < cmd->min_args)
		return usage_error(cmd, "missing %s", c->nargs ? "KEY" : "NAME");
	if (cmd->max_args >= 0 && c->nargs > cmd->max_args)
		return usage_error(cmd, "unexpected argument '%s'",
				   c->args[cmd->max_args]);
	if (cmd->min_args > 0 && !wq_name_valid(c->args[0]))
		return usage_error(cmd, "bad queue name '%s' (want [A-Za-z0-9._-], 1 to %d characters)",
				   c->args[0], WQ_NAME_MAX - 1);
	return c->nargs > 1 ? parse_keys(c) : 0;
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
	if (has(c, O_STARVE) && !has(c, O_PRIORITY_QUEUE))
		return usage_error(c->cmd, "--starve is for --priority");
	c->attr.priority = has(c, O_PRIORITY_QUEUE);
	if (has(c, O_STARVE) &&
	    wq_parse_duration(c->optarg[O_STARVE], &c->attr.starve_ns) < 0)
		return usage_error(c->cmd, "bad duration '%s' for --starve (e.g. 250ms, 5s, 1.5s, 2m)",
				   c->optarg[O_STARVE]);
	return 0;
}

/* add --priority N: any int32_t, in decimal. */
static int parse_priority(struct ctx *c)
{
	const char *s = c->optarg[O_PRIORITY];
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!((*s >= '0' && *s <= '9') || *s == '-') || *end || errno ||
	    v < INT32_MIN || v > INT32_MAX)
		return usage_error(c->cmd, "bad --priority '%s' (an integer, %d to %d)",
				   s, INT32_MIN, INT32_MAX);
	c->priority = (int32_t)v;
	return 0;
}

/*
 * watch -n, top -d: seconds as watch(1) and top(1) take them ("2", "0.5"),
 * or a duration ("500ms"); at least 0.1 s, as watch(1) allows.
 */
static int parse_interval(struct ctx *c)
{
	enum opt_id o = has(c, O_INTERVAL) ? O_INTERVAL : O_DELAY;
	const char *s = c->optarg[o];
	char buf[64];
	uint64_t ns;

	c->interval_ns = WQ_NSEC_PER_SEC;
	if (!has(c, O_INTERVAL) && !has(c, O_DELAY))
		return 0;
	/* a bare number is seconds */
	snprintf(buf, sizeof(buf), "%s%s", s,
		 *s && strspn(s, "0123456789.") == strlen(s) ? "s" : "");
	if (wq_parse_duration(buf, &ns) < 0 || ns < WQ_NSEC_PER_SEC / 10)
		return usage_error(c->cmd, "bad interval '%s' (seconds, at least 0.1, or e.g. 500ms, 2s)",
				   s);
	c->interval_ns = ns;
	return 0;
}

/* --json, -o json|text */
static int parse_output(struct ctx *c)
{
	const char *o = c->optarg[O_OUTPUT];

	c->json = has(c, O_JSON);
	if (!has(c, O_OUTPUT))
		return 0;
	if (!strcmp(o, "json"))
		c->json = true;
	else if (strcmp(o, "text"))
		return usage_error(c->cmd, "bad output format '%s' (json or text)", o);
	else if (c->json)
		return usage_error(c->cmd, "--json and -o text exclude each other");
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
	if (has(c, O_COUNT) || has(c, O_WCOUNT)) {
		const char *s = c->optarg[has(c, O_COUNT) ? O_COUNT : O_WCOUNT];

		if (!parse_ulong(s, 10, LONG_MAX, &v) || !v)
			return usage_error(c->cmd, "bad count '%s'", s);
		c->count = (long)v;
	}
	rc = parse_interval(c);
	return rc ? rc : parse_output(c);
}

int parse_values(struct ctx *c)
{
	int rc = parse_attr_values(c);

	if (!rc)
		rc = parse_get_values(c);
	if (!rc && has(c, O_PRIORITY))
		rc = parse_priority(c);
	if (rc)
		return rc;
	if (has(c, O_AFTER) + has(c, O_RATE_LIMITED) + has(c, O_WAIT) > 1)
		return usage_error(c->cmd, "--after, --rate-limited and --wait exclude each other");
	if (!strcmp(c->cmd->name, "add") && has(c, O_TIMEOUT) && !has(c, O_WAIT))
		return usage_error(c->cmd, "--timeout is for --wait");
	if (has(c, O_RAW) && c->count > 1)
		return usage_error(c->cmd, "--raw writes one key: not with -n");
	return 0;
}

/* A --timeout as libwq's timeout_ms: rounded up (1ns must still wait). */
int ns_to_ms(uint64_t ns)
{
	uint64_t ms = ns / WQ_NSEC_PER_MSEC + (ns % WQ_NSEC_PER_MSEC != 0);

	return ms > INT_MAX ? INT_MAX : (int)ms;
}
