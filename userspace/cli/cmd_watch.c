// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl watch: a queue's counts, refreshed every interval (-n SECONDS, as
 * watch(1)'s; default 1). On a terminal the line of numbers is redrawn in
 * place and q (or Ctrl-C) quits; otherwise (a pipe, a file, a test) every
 * refresh is a line of its own, as vmstat prints, and -c COUNT (--count)
 * ends it after that many lines. 80 columns. A
 * priority queue's row has one column more, PRIO: the highest priority
 * holding keys (- when none).
 *
 * adds/s is the queue's adds counter (keys that became pending) over the
 * interval. The module counts no gets, so gets/s is derived: each add
 * raises queued + dirty by one and each get lowers it by one (a done of a
 * dirty key moves it from dirty to queued), so gets = adds - the change of
 * queued + dirty. Keys put back by a closing handle or dropped by a
 * discard move it too, so gets/s is an estimate then (never below 0).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "wqctl.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

/* SIGINT and SIGTERM end the watch (no SA_RESTART: poll is woken). */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* The terminal reads keys one at a time, unechoed; false if not a tty. */
static bool keys_mode(struct termios *saved)
{
	struct termios t;

	if (!isatty(0) || tcgetattr(0, saved) < 0)
		return false;
	t = *saved;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);	/* ISIG stays: Ctrl-C */
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	return tcsetattr(0, TCSANOW, &t) == 0;
}

static const char *state(const struct wq_stats *st)
{
	if (st->unlinked)
		return "destroyed";
	if (st->draining)
		return "draining";
	return st->shutting_down ? "shutdown" : "running";
}

#define HEADER	"TIME       QUEUED PROCESSING  WAITING    DIRTY    ADDS/S    GETS/S  STATE"
/* A priority queue's: PRIO, the highest priority holding keys, before STATE. */
#define HEADER_PRIO \
	"TIME      QUEUED PROCESSING WAITING   DIRTY   ADDS/S   GETS/S  PRIO  STATE"

/*
 * One row: the counts of cur, the rates since prev (dt_ns > 0); prio is
 * the PRIO column of a priority queue, or NULL.
 */
static void print_row(const struct wq_stats *cur, const struct wq_stats *prev,
		      uint64_t dt_ns, const char *prio)
{
	char adds[16] = "-", gets[16] = "-", when[16];
	time_t now = time(NULL);
	struct tm tm;

	if (prev && dt_ns) {
		double s = (double)dt_ns / WQ_NSEC_PER_SEC;
		double a = (double)(cur->adds - prev->adds);
		double depth = (double)cur->queued + cur->dirty -
			       ((double)prev->queued + prev->dirty);
		double g = a - depth;

		snprintf(adds, sizeof(adds), "%.1f", a / s);
		snprintf(gets, sizeof(gets), "%.1f", (g > 0 ? g : 0) / s);
	}
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (prio)
		printf("%-8s %7u %10u %7u %7u %8s %8s %5.5s  %s", when,
		       cur->queued, cur->processing, cur->waiting, cur->dirty,
		       adds, gets, prio, state(cur));
	else
		printf("%-8s %8u %10u %8u %8u %9s %9s  %s", when, cur->queued,
		       cur->processing, cur->waiting, cur->dirty, adds, gets,
		       state(cur));
}

/* The PRIO column: the highest priority holding keys, or "-". */
static const char *top_level(int fd, char *buf, size_t cap)
{
	struct wq_metrics m;

	if (wq_metrics(fd, &m) < 0)
		snprintf(buf, cap, "?");
	else
		fmt_top_level(buf, cap, &m);
	return buf;
}

/*
 * Waits until deadline; true if the user asked to quit meanwhile (q from
 * the terminal when keys is set, or a signal).
 */
static bool wait_or_quit(uint64_t deadline, bool keys)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	uint64_t now;

	while (!quit && (now = wq_now_ns()) < deadline) {
		int ms = ns_to_ms(deadline - now);
		char ch;

		if (poll(&p, keys ? 1 : 0, ms) <= 0 || !(p.revents & POLLIN))
			continue;
		if (read(0, &ch, 1) != 1)
			keys = false;	/* the terminal went away */
		else if (ch == 'q' || ch == 'Q')
			return true;
	}
	return quit;
}

int cmd_watch(struct ctx *c)
{
	bool tty = isatty(1), keys = false;
	struct wq_stats prev, cur;
	uint64_t t_prev = 0, next;
	long left = has(c, O_WCOUNT) ? c->count : -1;
	struct termios saved;
	char prio[16];
	bool by_prio;
	int rc = RC_OK;

	rc = wq_stat(c->fd, &cur);
	if (rc < 0)
		return fail(c, NULL, rc);
	rc = RC_OK;
	by_prio = cur.priority;

	catch_signals();
	if (tty) {
		keys = keys_mode(&saved);
		printf("wqctl watch %s (%s)\n", c->args[0],
		       keys ? "q quits" : "Ctrl-C quits");
	}
	printf("%s\n", by_prio ? HEADER_PRIO : HEADER);
	next = wq_now_ns();
	for (;;) {
		int err = wq_stat(c->fd, &cur);
		uint64_t t_cur = wq_now_ns();

		if (err < 0) {
			rc = fail(c, NULL, err);
			break;
		}
		if (tty)
			fputs("\r\033[K", stdout);
		print_row(&cur, t_prev ? &prev : NULL, t_cur - t_prev,
			  by_prio ? top_level(c->fd, prio, sizeof(prio)) : NULL);
		if (!tty)
			putchar('\n');
		if (fflush(stdout) != 0)
			break;		/* finish() reports it */
		prev = cur;
		t_prev = t_cur;
		if (left > 0 && --left == 0)
			break;
		next += c->interval_ns;
		if (next < wq_now_ns())	/* stalled: no burst of catching up */
			next = wq_now_ns() + c->interval_ns;
		if (wait_or_quit(next, keys))
			break;
	}
	if (tty)
		putchar('\n');
	if (keys)
		tcsetattr(0, TCSANOW, &saved);
	return rc;
}
