// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the text of what went wrong. An -errno from libwq is said in the
 * words of the command that got it, with its name ("queue is full
 * (-EAGAIN)"), and where the module can say more (which quota, which
 * ceiling), with its numbers; a usage error ends with the command's usage
 * line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wqctl.h"

/* "-EDQUOT": the errno's name, as errno(1) and strerrorname_np() say it. */
const char *err_name(int err)
{
	static char buf[24];
	const char *name = strerrorname_np(-err);

	if (name)
		snprintf(buf, sizeof(buf), "-%s", name);
	else
		snprintf(buf, sizeof(buf), "%d", err);
	return buf;
}

static bool is_cmd(const struct ctx *c, const char *name)
{
	return !strcmp(c->cmd->name, name);
}

/* -EDQUOT: which quota, and how much of it the caller uses. */
static const char *quota_text(const struct ctx *c, char *buf, size_t cap)
{
	struct wq_modinfo mi;
	bool known = wq_module_info(&mi) == 0;

	if (is_cmd(c, "create")) {
		if (!known)
			return "over your queue quota (module parameter user_max_queues)";
		snprintf(buf, cap, "over your queue quota: %u of user_max_queues=%u queues "
			 "(destroyed queues count while handles keep them open)",
			 mi.user_queues, mi.user_max_queues);
		return buf;
	}
	if (!known)
		return "over the queue owner's key quota (module parameter user_max_key_bytes)";
	snprintf(buf, cap, "over the queue owner's key quota (user_max_key_bytes=%llu "
		 "bytes, a key costing its length plus %u; yours in use: %llu)",
		 (unsigned long long)mi.user_max_key_bytes, mi.key_cost,
		 (unsigned long long)mi.user_key_bytes);
	return buf;
}

/* create --max-items N refused: above which ceiling. */
static const char *max_items_text(const struct ctx *c, char *buf, size_t cap)
{
	struct wq_modinfo mi;

	if (wq_module_info(&mi) < 0)
		return "invalid argument";
	if (c->attr.max_items > mi.max_items_limit)
		snprintf(buf, cap, "--max-items %u is above the module's max_items_limit (%u)",
			 c->attr.max_items, mi.max_items_limit);
	else if (c->attr.max_items > mi.unpriv_max_items)
		snprintf(buf, cap, "--max-items %u is above unpriv_max_items (%u), the most "
			 "a user without CAP_SYS_RESOURCE may ask for",
			 c->attr.max_items, mi.unpriv_max_items);
	else
		return "invalid argument";
	return buf;
}

/* create without --max-items refused: the default capped at 0, or not. */
static const char *default_items_text(char *buf, size_t cap)
{
	struct wq_modinfo mi;

	if (wq_module_info(&mi) < 0 || mi.default_max_items)
		return "invalid argument";
	snprintf(buf, cap, "no default max_items: the module's unpriv_max_items is 0, "
		 "which caps it (give --max-items)");
	return buf;
}

/*
 * An -EACCES from opening /dev/wq itself, not from a queue's mode: the
 * device's own mode (its udev rule) keeps the caller out. Says so.
 */
static bool device_denied(void)
{
	int saved = errno;
	int fd = open(WQ_DEV_PATH, O_RDWR | O_CLOEXEC);
	struct stat st;

	if (fd >= 0) {
		close(fd);
		return false;
	}
	if (errno != EACCES && errno != EPERM) {
		errno = saved;
		return false;
	}
	errno = saved;
	if (stat(WQ_DEV_PATH, &st) == 0)
		fprintf(stderr, "wqctl: cannot open " WQ_DEV_PATH " (mode %04o, uid %u, gid %u): "
			"permission denied (-EACCES) by the device, not by a queue; "
			"its udev rule sets who may (wq(4))\n",
			(unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid,
			(unsigned int)st.st_gid);
	else
		fputs("wqctl: cannot open " WQ_DEV_PATH ": permission denied (-EACCES) "
		      "by the device, not by a queue (wq(4))\n", stderr);
	return true;
}

/*
 * Human text for err, in the context of the command that got it. There is
 * no -ENOTTY case: libwq reports an ioctl's ENOTTY as -EBADF.
 */
static const char *err_text(const struct ctx *c, int err)
{
	static char buf[256];

	switch (err) {
	case -EDQUOT:
		return quota_text(c, buf, sizeof(buf));
	case -ESHUTDOWN:
		return "queue is shutting down";
	case -EAGAIN:
		return is_cmd(c, "add") ? "queue is full" : "nothing queued";
	case -ENOENT:	/* on a handle: only done can fail so */
		return c->fd >= 0 ? "key is not being processed" : "no such queue";
	case -EEXIST:
		return "queue exists";
	case -EACCES:
		if (is_cmd(c, "create"))
			return "permission denied (names beginning with \"kernel.\" are the kernel API's)";
		if (is_cmd(c, "destroy"))
			return "permission denied (only the queue's owner may destroy it)";
		return "permission denied by the queue's mode (wqctl stat shows it to those it lets in)";
	case -EINVAL:
		if (is_cmd(c, "add") && has(c, O_PRIORITY))
			return "invalid argument (--priority: a priority queue's)";
		if (is_cmd(c, "create") && has(c, O_MAX_ITEMS))
			return max_items_text(c, buf, sizeof(buf));
		if (is_cmd(c, "create"))
			return default_items_text(buf, sizeof(buf));
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

/*
 * A -ENOENT/-ENODEV that means "no module", not "no queue", or an -EACCES
 * of the device rather than of a queue: say so.
 */
static bool module_missing(const struct ctx *c, int err)
{
	if (c->fd >= 0)		/* the device is open: it is there */
		return false;
	if (err == -EACCES && device_denied())
		return true;
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
