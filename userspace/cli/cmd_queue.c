// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the commands of a queue's life: create, destroy, shutdown (also
 * --discard), drain.
 * A queue outlives wqctl (like a POSIX message queue), so create closes
 * its handle and the queue stays.
 */
#include <sys/stat.h>

#include "wqctl.h"

/* The result of a call that returns nothing else. */
static int ok_or_fail(const struct ctx *c, int err)
{
	return err < 0 ? fail(c, NULL, err) : RC_OK;
}

/*
 * --mode is the exact mode, as mkdir -m, mkfifo -m and install -m make it:
 * the module applies the caller's umask (mq_open()'s rule), so wqctl's is
 * cleared around the call. Without --mode the umask applies to 0600.
 */
int cmd_create(struct ctx *c)
{
	mode_t saved = 0;
	int fd;

	if (has(c, O_MODE))
		saved = umask(0);
	fd = wq_create(c->args[0], &c->attr);
	if (has(c, O_MODE))
		umask(saved);

	if (fd < 0)
		return fail(c, NULL, fd);
	wq_close(fd);
	return RC_OK;
}

int cmd_destroy(struct ctx *c)
{
	return ok_or_fail(c, wq_destroy(c->args[0]));
}

int cmd_shutdown(struct ctx *c)
{
	int n;

	if (!has(c, O_DISCARD))
		return ok_or_fail(c, wq_shutdown(c->fd));
	n = wq_shutdown_discard(c->fd);
	if (n < 0)
		return fail(c, NULL, n);
	printf("%d\n", n);	/* the queued and waiting keys dropped */
	return RC_OK;
}

int cmd_drain(struct ctx *c)
{
	int ms = c->has_timeout ? ns_to_ms(c->timeout_ns) : -1;

	return ok_or_fail(c, wq_shutdown_with_drain(c->fd, ms));
}
