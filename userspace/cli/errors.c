// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the text of what went wrong. An -errno from libwq is said in the
 * words of the command that got it, with its name ("queue is full
 * (-EAGAIN)"); a usage error ends with the command's usage line.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "wqctl.h"

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

/*
 * Human text for err, in the context of the command that got it. There is
 * no -ENOTTY case: libwq reports an ioctl's ENOTTY as -EBADF.
 */
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
		if (is_cmd(c, "add") && has(c, O_PRIORITY))
			return "invalid argument (--priority: a priority queue's)";
		return "invalid argument";
	case -EOPNOTSUPP:
		return "the wq module is too old for this call";
	case -ENOSPC:
		return is_cmd(c, "create") ? "too many queues" : "no space left";
	case -ETIMEDOUT:
		if (is_cmd(c, "add"))
			return "timed out waiting for room";
		return is_cmd(c, "drain") ? "timed out before the queue drained" :
					    "timed out";
	case -ECANCELED:
		return "drain cut short by a shutdown";
	case -EBADF:
		return "not a queue handle";
	}
	snprintf(buf, sizeof(buf), "%s", strerror(-err));
	if (buf[0] >= 'A' && buf[0] <= 'Z')
		buf[0] += 'a' - 'A';
	return buf;
}

/* A -ENOENT/-ENODEV that means "no module", not "no queue": say so. */
static bool module_missing(const struct ctx *c, int err)
{
	if (c->fd >= 0)		/* the device is open: it is there */
		return false;
	if (err == -ENOENT && access(WQ_DEV_PATH, F_OK) != 0) {
		fputs("wqctl: " WQ_DEV_PATH " not found: is the wq module loaded?\n",
		      stderr);
		return true;
	}
	if (err == -ENODEV || err == -ENXIO) {
		fprintf(stderr, "wqctl: " WQ_DEV_PATH ": %s (%s): is the wq module loaded?\n",
			strerror(-err), err_name(err));
		return true;
	}
	return false;
}

/*
 * "wqctl: add myq: queue is full (-EAGAIN)"; with several keys the failing
 * one is named: "wqctl: done myq ns/a: key is not being processed (-ENOENT)".
 */
int fail(const struct ctx *c, const struct key *k, int err)
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

/* "wqctl: add myq: line 7 (ns/a): queue is full (-EAGAIN)" */
void fail_line(const struct ctx *c, long line, const char *k, size_t len,
	       int err)
{
	fprintf(stderr, "wqctl: %s %s: line %ld", c->cmd->name, c->args[0],
		line);
	if (k) {
		fputs(" (", stderr);
		put_key(stderr, k, len);
		fputc(')', stderr);
	}
	fprintf(stderr, ": %s (%s)\n", err_text(c, err), err_name(err));
}

/* "wqctl: add myq: line 7: empty key" */
void line_error(const struct ctx *c, long line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "wqctl: %s %s: line %ld: ", c->cmd->name, c->args[0],
		line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const struct command *cmd, const char *fmt, ...)
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
