// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl top: a live view of every queue the caller may list, from the
 * metrics (cmd_metrics.c lists the queues and reads them).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "wqctl.h"

/* ---- top ------------------------------------------------------------- */

/*
 * wqctl top: every queue the caller may list, refreshed every interval
 * (-d, default 1 s): depth, adds/s (adds_total), gets/s, keys in flight,
 * the oldest in flight, and the p50 and p99 of the queue latency,
 * estimated from the histogram's observations since the last refresh (all
 * of them before there is a last, or when there were none since) by
 * linear interpolation in the bucket, as Prometheus' histogram_quantile()
 * does; with a priority queue among them, last, the highest priority
 * holding keys. gets/s comes from counters that always count (metrics=N
 * stops the histograms, not them), as wqctl watch computes it: each add
 * raises the depth (queued + dirty) by one and each get lowers it by one,
 * so gets = adds - the change of depth (an estimate while a closing
 * handle puts keys back or a discard drops them; never below 0). On a
 * terminal the screen is redrawn and keys act: q quits; d, a, g, i, o,
 * l, n sort by depth, adds/s, gets/s, in flight, oldest, latency p99,
 * name. Otherwise each refresh prints a time line, the header and one
 * plain line per queue. Names get the columns the terminal leaves, up to
 * 63 (off a terminal: as wide as the longest).
 */

static volatile sig_atomic_t top_quit;

static void top_on_signal(int sig)
{
	(void)sig;
	top_quit = 1;
}

struct top_row {
	char name[WQ_NAME_MAX];
	bool priority;		/* a priority queue: its PRIO column */
	struct wq_metrics m;
	double adds, gets;	/* per second; < 0: unknown */
	uint64_t p50, p99;	/* ns; UINT64_MAX: no observation */
};

static char top_sort = 'd';

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;	/* descending */
}

static int cmp_dbl(double a, double b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int by_top_sort(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	int r = 0;

	switch (top_sort) {
	case 'a': r = cmp_dbl(a->adds, b->adds); break;
	case 'g': r = cmp_dbl(a->gets, b->gets); break;
	case 'i': r = cmp_u64(a->m.processing, b->m.processing); break;
	case 'o': r = cmp_u64(a->m.longest_running_ns, b->m.longest_running_ns); break;
	case 'l': r = cmp_u64(a->p99 == UINT64_MAX ? 0 : a->p99,
			      b->p99 == UINT64_MAX ? 0 : b->p99); break;
	case 'n': break;
	default: r = cmp_u64(a->m.depth, b->m.depth); break;
	}
	return r ? r : strcmp(a->name, b->name);
}

/* The q-quantile of the observations cur - prev (prev may be NULL). */
static uint64_t quantile(const struct wq_histogram *cur,
			 const struct wq_histogram *prev, double qq)
{
	uint32_t nb = cur->nbuckets > WQ_HIST_MAX ? WQ_HIST_MAX : cur->nbuckets;
	uint64_t total, below = 0, lo = 0;
	double rank;

	total = cur->count - (prev ? prev->count : 0);
	/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
	if (!total || !nb)
		return UINT64_MAX;
	rank = qq * (double)total;
	/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t cum = cur->bucket[b] - (prev ? prev->bucket[b] : 0);

		if ((double)cum >= rank && cum > below) {
			if (cur->le_ns[b] == UINT64_MAX)
				return lo;	/* +Inf: the highest finite bound */
			return lo + (uint64_t)((double)(cur->le_ns[b] - lo) *
					       (rank - (double)below) /
					       (double)(cum - below));
		}
		below = cum;
		lo = cur->le_ns[b];
	}
	return lo;
}

/* A duration in at most 7 characters: 950ns, 12.5us, 3.2ms, 1.5s, 2.0h. */
static void fmt_dur(char *buf, size_t cap, uint64_t ns)
{
	if (ns == UINT64_MAX)
		snprintf(buf, cap, "-");
	else if (ns < 1000)
		snprintf(buf, cap, "%lluns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, cap, "%.1fus", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, cap, "%.1fms", (double)ns / 1e6);
	else if (ns < 1000ULL * 1000000000)
		snprintf(buf, cap, "%.1fs", (double)ns / 1e9);
	else if (ns < 360000ULL * 1000000000)
		snprintf(buf, cap, "%.1fh", (double)ns / 3.6e12);
	else
		snprintf(buf, cap, "%.0fd", (double)ns / 8.64e13);
}

static void fmt_rate(char *buf, size_t cap, double r)
{
	if (r < 0)
		snprintf(buf, cap, "-");
	else if (r < 100000)
		snprintf(buf, cap, "%.1f", r);
	else
		snprintf(buf, cap, "%.0fk", r / 1000);
}

/* The columns after NAME, and PRIO's when a priority queue is shown. */
#define TOP_REST	60
#define TOP_PRIO	6
/*
 * The NAME column's width: the longest name, at most 63, at least 16 (14
 * with PRIO: short names keep within 80 columns), narrowed to what a
 * terminal of its width leaves (never below 8).
 */
static int name_width(const struct top_row *r, size_t n, bool tty, bool by_prio)
{
	int w = by_prio ? 14 : 16;
	struct winsize ws;

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(r[i].name) > w)
			w = (int)strlen(r[i].name);
	if (w > WQ_NAME_MAX - 1)
		w = WQ_NAME_MAX - 1;
	if (tty) {
		int cols = ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
		int room = cols - TOP_REST - (by_prio ? TOP_PRIO : 0);

		if (w > room)
			w = room < 8 ? 8 : room;
	}
	return w;
}

static void top_print(const struct top_row *r, size_t n, bool tty)
{
	char when[16], adds[16], gets[16], old[16], p50[16], p99[16], prio[16];
	time_t now = time(NULL);
	bool by_prio = false;
	struct tm tm;
	int w;

	for (size_t i = 0; i < n; i++)
		by_prio |= r[i].priority;
	w = name_width(r, n, tty, by_prio);

	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (tty)
		printf("\033[H\033[2Jwqctl top  %s  %zu queue%s  sort: %c  "
		       "(q quits; d a g i o l n sort)\n\n", when, n,
		       n == 1 ? "" : "s", top_sort);
	else
		printf("# %s %zu queue%s\n", when, n, n == 1 ? "" : "s");
	printf("%-*s %6s %8s %8s %7s %8s %8s %8s%s\n", w, "NAME", "DEPTH",
	       "ADDS/S", "GETS/S", "INFLGHT", "OLDEST", "LAT-P50", "LAT-P99",
	       by_prio ? "  PRIO" : "");
	for (size_t i = 0; i < n; i++) {
		fmt_rate(adds, sizeof(adds), r[i].adds);
		fmt_rate(gets, sizeof(gets), r[i].gets);
		fmt_dur(old, sizeof(old), r[i].m.processing ?
			r[i].m.longest_running_ns : UINT64_MAX);
		fmt_dur(p50, sizeof(p50), r[i].p50);
		fmt_dur(p99, sizeof(p99), r[i].p99);
		fmt_top_level(prio, sizeof(prio), &r[i].m);
		printf("%-*.*s %6llu %8s %8s %7llu %8s %8s %8s", w, w, r[i].name,
		       (unsigned long long)r[i].m.depth, adds, gets,
		       (unsigned long long)r[i].m.processing, old, p50, p99);
		if (by_prio)
			printf(" %5.5s", r[i].priority ? prio : "-");
		putchar('\n');
	}
	if (!tty)
		putchar('\n');
}

/* The previous refresh's row of a queue, or NULL. */
static const struct top_row *find_prev(const struct top_row *prev, size_t n,
				       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(prev[i].name, name))
			return &prev[i];
	return NULL;
}

/* Waits until deadline; true to quit. Keys change the sort order. */
static bool top_wait(uint64_t deadline, bool keys, bool *redraw)
{
	struct pollfd p = { .fd = 0, .events = POLLIN };
	uint64_t now;

	while (!top_quit && (now = wq_now_ns()) < deadline) {
		char ch;

		if (poll(&p, keys ? 1 : 0, ns_to_ms(deadline - now)) <= 0 ||
		    !(p.revents & POLLIN))
			continue;
		if (read(0, &ch, 1) != 1) {
			keys = false;
			continue;
		}
		if (ch == 'q' || ch == 'Q')
			return true;
		if (strchr("dagioln", ch)) {
			top_sort = ch;
			*redraw = true;
			return false;
		}
	}
	return top_quit;
}

int cmd_top(struct ctx *c)
{
	struct top_row *prev = NULL, *cur = NULL;
	size_t nprev = 0;
	uint64_t t_prev = 0, next;
	long left = has(c, O_COUNT) ? c->count : -1;
	bool tty = isatty(1), keys = false, quit;
	struct termios saved, t;
	struct sigaction sa;
	int rc = RC_OK;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = top_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (tty && isatty(0) && tcgetattr(0, &saved) == 0) {
		t = saved;
		t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		keys = tcsetattr(0, TCSANOW, &t) == 0;
	}
	next = wq_now_ns();
	for (;;) {
		struct qm *q = NULL;
		size_t n = 0, k = 0;
		uint64_t t_cur;
		bool redraw = false;
		int ret = list_queues(&q, &n);

		if (ret < 0) {
			rc = fail(c, NULL, ret);
			break;
		}
		cur = calloc(n + 1, sizeof(*cur));
		if (!cur) {
			free(q);
			rc = fail(c, NULL, -ENOMEM);
			break;
		}
		t_cur = wq_now_ns();
		for (size_t i = 0; i < n; i++) {
			struct top_row *r = &cur[k];
			const struct top_row *p;
			double s = (double)(t_cur - t_prev) / 1e9;

			if (queue_metrics(q[i].name, &r->m) < 0)
				continue;	/* gone meanwhile */
			memcpy(r->name, q[i].name, WQ_NAME_MAX);
			r->priority = q[i].priority;
			p = t_prev ? find_prev(prev, nprev, r->name) : NULL;
			r->adds = r->gets = -1;
			if (p && s > 0) {
				double a = (double)(r->m.adds_total - p->m.adds_total);
				double g = a - ((double)r->m.depth - (double)p->m.depth);

				r->adds = a / s;
				r->gets = (g > 0 ? g : 0) / s;
			}
			if (p && r->m.queue_duration.count == p->m.queue_duration.count)
				p = NULL;	/* nothing new: all of them */
			r->p50 = quantile(&r->m.queue_duration,
					  p ? &p->m.queue_duration : NULL, 0.5);
			r->p99 = quantile(&r->m.queue_duration,
					  p ? &p->m.queue_duration : NULL, 0.99);
			k++;
		}
		free(q);
		qsort(cur, k, sizeof(*cur), by_top_sort);
		top_print(cur, k, tty);
		free(prev);
		prev = cur;
		nprev = k;
		cur = NULL;
		t_prev = t_cur;
		if (fflush(stdout) != 0)
			break;
		if (left > 0 && --left == 0)
			break;
		next += c->interval_ns;
		if (next < wq_now_ns())
			next = wq_now_ns() + c->interval_ns;
		for (;;) {
			quit = top_wait(next, keys, &redraw);
			if (quit || !redraw)
				break;
			redraw = false;		/* a new sort order: show it now */
			qsort(prev, nprev, sizeof(*prev), by_top_sort);
			top_print(prev, nprev, tty);
			fflush(stdout);
		}
		if (quit)
			break;
	}
	free(prev);
	if (keys)
		tcsetattr(0, TCSANOW, &saved);
	return rc;
}
