// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl metrics: every queue's (or the named queues') wq_metrics() in the
 * Prometheus text exposition format (version 0.0.4): the family's
 * "# HELP" and "# TYPE" lines once, then one sample per queue, labelled
 * name="QUEUE"; histograms in seconds as _bucket{le="..."} (cumulative,
 * "+Inf" last), _sum and _count. client-go's names and help texts
 * (component-base's workqueue provider) for client-go's metrics, wq_* for
 * the others. Durations are printed exactly (ns as decimal seconds).
 *
 * A priority queue's depth is also given by level, as controller-runtime
 * gives it: workqueue_depth{name="QUEUE",priority="N"}, one sample a level
 * holding keys, after the queue's total (which they sum to, so sum one or
 * the other); "<=N" labels the last when it sums the levels below N that
 * the module reports no more one by one.
 *
 * wqctl top (cmd_top.c) shares the listing and the metrics of a queue.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wqctl.h"

static int by_qm_name(const void *a, const void *b)
{
	return strcmp(((const struct qm *)a)->name, ((const struct qm *)b)->name);
}

/* The metrics of queue name, through a handle of either access mode. */
int queue_metrics(const char *name, struct wq_metrics *m)
{
	int fd = wq_open_flags(name, O_RDONLY);
	int ret;

	if (fd == -EACCES)
		fd = wq_open_flags(name, O_WRONLY);
	if (fd < 0)
		return fd;
	ret = wq_metrics(fd, m);
	wq_close(fd);
	return ret;
}

/*
 * The names of every queue the caller may list, sorted, into *out (n
 * entries), and which are priority queues; 0 or -errno.
 */
int list_queues(struct qm **out, size_t *n)
{
	struct wq_stats *st = NULL;
	struct qm *q;
	size_t cap = 16;
	int ret;

	for (;;) {
		struct wq_stats *bigger = realloc(st, cap * sizeof(*st));

		if (!bigger) {
			free(st);
			return -ENOMEM;
		}
		st = bigger;
		ret = wq_list(st, cap);
		if (ret < 0 || (size_t)ret <= cap)
			break;
		cap = (size_t)ret + 16;
	}
	if (ret < 0) {
		free(st);
		return ret;
	}
	q = calloc((size_t)ret + 1, sizeof(*q));
	if (!q) {
		free(st);
		return -ENOMEM;
	}
	for (int i = 0; i < ret; i++) {
		memcpy(q[i].name, st[i].name, WQ_NAME_MAX);
		q[i].priority = st[i].priority;
	}
	free(st);
	qsort(q, (size_t)ret, sizeof(*q), by_qm_name);
	*out = q;
	*n = (size_t)ret;
	return 0;
}

/* ---- the exposition -------------------------------------------------- */

/* ns as decimal seconds, exactly: 1500000 -> "0.0015". */
static void put_seconds(uint64_t ns)
{
	char frac[16];
	int len;

	len = snprintf(frac, sizeof(frac), "%09llu",
		       (unsigned long long)(ns % WQ_NSEC_PER_SEC));
	while (len > 0 && frac[len - 1] == '0')
		frac[--len] = '\0';
	printf("%llu%s%s", (unsigned long long)(ns / WQ_NSEC_PER_SEC),
	       len ? "." : "", frac);
}

enum kind { GAUGE, COUNTER, SECONDS_GAUGE };

struct scalar {
	const char *name;
	const char *help;
	enum kind kind;
	size_t off;		/* of the uint64_t in struct wq_metrics */
};

#define SCALAR(n, k, field, h) \
	{ n, h, k, offsetof(struct wq_metrics, field) }

static const struct scalar scalars[] = {
	SCALAR("workqueue_depth", GAUGE, depth,
	       "Current depth of workqueue"),
	SCALAR("workqueue_adds_total", COUNTER, adds_total,
	       "Total number of adds handled by workqueue"),
	SCALAR("workqueue_retries_total", COUNTER, retries_total,
	       "Total number of retries handled by workqueue"),
	SCALAR("workqueue_unfinished_work_seconds", SECONDS_GAUGE,
	       unfinished_work_ns,
	       "How many seconds of work has done that is in progress and hasn't "
	       "been observed by work_duration. Large values indicate stuck "
	       "threads. One can deduce the number of stuck threads by observing "
	       "the rate at which this increases."),
	SCALAR("workqueue_longest_running_processor_seconds", SECONDS_GAUGE,
	       longest_running_ns,
	       "How many seconds has the longest running processor for "
	       "workqueue been running."),
	SCALAR("wq_queued", GAUGE, queued,
	       "Keys queued: ready to be handed out (wq_len)"),
	SCALAR("wq_processing", GAUGE, processing,
	       "Keys handed out and not yet done"),
	SCALAR("wq_waiting", GAUGE, waiting,
	       "Keys waiting for their AddAfter delay"),
	SCALAR("wq_tracked", GAUGE, tracked,
	       "Keys with rate-limiter failures"),
	SCALAR("wq_refused_total", COUNTER, refused_total,
	       "Adds refused for capacity (max_items)"),
	SCALAR("wq_requeued_on_close_total", COUNTER, requeued_on_close_total,
	       "Keys put back on the queue because their handle closed"),
	SCALAR("wq_discarded_total", COUNTER, discarded_total,
	       "Keys dropped by a shutdown (waiting keys) or a discarding shutdown"),
};

void fmt_level(char *buf, size_t cap, const struct wq_metrics *m, uint32_t i)
{
	bool summed = m->levels_summed && i == WQ_LEVELS_MAX - 1;

	snprintf(buf, cap, "%s%d", summed ? "<=" : "", m->levels[i].priority);
}

void fmt_top_level(char *buf, size_t cap, const struct wq_metrics *m)
{
	if (m->nr_levels)
		fmt_level(buf, cap, m, 0);
	else
		snprintf(buf, cap, "-");
}

/* workqueue_depth by priority: a sample a level (after the total). */
static void print_levels(const char *name, const struct qm *q)
{
	uint32_t nr = q->m.nr_levels < WQ_LEVELS_MAX ? q->m.nr_levels :
						       WQ_LEVELS_MAX;
	char level[16];

	/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
	for (uint32_t l = 0; l < nr; l++) {
		fmt_level(level, sizeof(level), &q->m, l);
		printf("%s{name=\"%s\",priority=\"%s\"} %llu\n", name, q->name,
		       level, (unsigned long long)q->m.levels[l].depth);
	}
}

static void print_scalar(const struct scalar *s, const struct qm *q, size_t n)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", s->name, s->help, s->name,
	       s->kind == COUNTER ? "counter" : "gauge");
	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		if (!q[i].ok)
			continue;
		memcpy(&v, (const char *)&q[i].m + s->off, sizeof(v));
		printf("%s{name=\"%s\"} ", s->name, q[i].name);
		if (s->kind == SECONDS_GAUGE)
			put_seconds(v);
		else
			printf("%llu", (unsigned long long)v);
		putchar('\n');
		if (s->off == offsetof(struct wq_metrics, depth))
			print_levels(s->name, &q[i]);
	}
}

static void print_hist(const char *name, const char *help, bool work,
		       const struct qm *q, size_t n)
{
	printf("# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (size_t i = 0; i < n; i++) {
		const struct wq_histogram *h = work ? &q[i].m.work_duration :
						      &q[i].m.queue_duration;
		uint32_t nb = h->nbuckets > WQ_HIST_MAX ? WQ_HIST_MAX : h->nbuckets;

		if (!q[i].ok)
			continue;
		/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
		for (uint32_t b = 0; b < nb; b++) {
			printf("%s_bucket{name=\"%s\",le=\"", name, q[i].name);
			if (h->le_ns[b] == UINT64_MAX)
				fputs("+Inf", stdout);
			else
				printf("%g", (double)h->le_ns[b] / 1e9);
			printf("\"} %llu\n", (unsigned long long)h->bucket[b]);
		}
		/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
		if (!nb || h->le_ns[nb - 1] != UINT64_MAX)
			printf("%s_bucket{name=\"%s\",le=\"+Inf\"} %llu\n", name,
			       q[i].name, (unsigned long long)h->count);
		printf("%s_sum{name=\"%s\"} ", name, q[i].name);
		put_seconds(h->sum_ns);
		printf("\n%s_count{name=\"%s\"} %llu\n", name, q[i].name,
		       (unsigned long long)h->count);
	}
}

/* ---- --json ---------------------------------------------------------- */

/* {"count", "sum_ns", "buckets": [{"le_ns": N or null (+Inf), "count"}]} */
static void json_hist(const char *k, const struct wq_histogram *h)
{
	uint32_t nb = h->nbuckets > WQ_HIST_MAX ? WQ_HIST_MAX : h->nbuckets;

	json_key(k);
	json_object();
	json_u64("count", h->count);
	json_u64("sum_ns", h->sum_ns);
	json_key("buckets");
	json_array();
	/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
	for (uint32_t b = 0; b < nb; b++) {
		json_object();
		if (h->le_ns[b] == UINT64_MAX)
			json_null("le_ns");
		else
			json_u64("le_ns", h->le_ns[b]);
		json_u64("count", h->bucket[b]);
		json_end_object();
	}
	json_end_array();
	json_end_object();
}

/*
 * One queue: "name", then struct wq_metrics' fields by their names
 * (durations in ns), "levels" a priority queue's depth by level
 * ("summed": the last entry sums the levels beyond).
 */
static void json_queue(const struct qm *q)
{
	static const char *const names[] = {
		"depth", "adds_total", "retries_total", "unfinished_work_ns",
		"longest_running_ns", "queued", "processing", "waiting",
		"tracked", "refused_total", "requeued_on_close_total",
		"discarded_total",
	};
	const uint64_t vals[] = {
		q->m.depth, q->m.adds_total, q->m.retries_total,
		q->m.unfinished_work_ns, q->m.longest_running_ns, q->m.queued,
		q->m.processing, q->m.waiting, q->m.tracked, q->m.refused_total,
		q->m.requeued_on_close_total, q->m.discarded_total,
	};
	uint32_t nr = q->m.nr_levels < WQ_LEVELS_MAX ? q->m.nr_levels :
						       WQ_LEVELS_MAX;

	json_object();
	json_str("name", q->name);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		json_u64(names[i], vals[i]);
	json_hist("queue_duration", &q->m.queue_duration);
	json_hist("work_duration", &q->m.work_duration);
	json_key("levels");
	json_array();
	/* cppcheck-suppress knownConditionTrueFalse ; filled by the kernel */
	for (uint32_t l = 0; l < nr; l++) {
		json_object();
		json_s64("priority", q->m.levels[l].priority);
		json_u64("depth", q->m.levels[l].depth);
		json_bool("summed", q->m.levels_summed && l == WQ_LEVELS_MAX - 1);
		json_end_object();
	}
	json_end_array();
	json_end_object();
}

static void json_metrics(const struct qm *q, size_t n)
{
	json_object();
	json_key("queues");
	json_array();
	for (size_t i = 0; i < n; i++)
		if (q[i].ok)
			json_queue(&q[i]);
	json_end_array();
	json_end_object();
}

/*
 * --textfile FILE: stdout goes to FILE.XXXXXX in FILE's directory (which
 * node_exporter ignores: not *.prom) until metrics_commit() renames it
 * over FILE, so a scrape never reads half a file. Returns the saved
 * stdout, or -1 (said on stderr).
 */
static int textfile_open(const char *path, char *tmp, size_t cap)
{
	int fd, saved;

	if ((size_t)snprintf(tmp, cap, "%s.XXXXXX", path) >= cap) {
		fprintf(stderr, "wqctl: metrics: --textfile path too long\n");
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "wqctl: metrics: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	fflush(stdout);
	saved = dup(1);
	if (saved < 0 || dup2(fd, 1) < 0) {
		fprintf(stderr, "wqctl: metrics: %s\n", strerror(errno));
		close(fd);
		if (saved >= 0)
			close(saved);
		unlink(tmp);
		return -1;
	}
	close(fd);
	return saved;
}

/* Puts stdout back; renames tmp over path if ok, else removes it. */
static int textfile_commit(const char *path, const char *tmp, int saved, int rc)
{
	bool ok = rc == RC_OK && fflush(stdout) == 0 && !ferror(stdout) &&
		  fchmod(1, 0644) == 0 && fsync(1) == 0;
	int err = errno;

	dup2(saved, 1);
	close(saved);
	clearerr(stdout);
	if (ok && rename(tmp, path) == 0)
		return rc;
	if (ok)
		err = errno;
	unlink(tmp);
	if (rc == RC_OK)
		fprintf(stderr, "wqctl: metrics: %s: %s\n", path, strerror(err));
	return RC_FAIL;
}

static int metrics_print(struct ctx *c);

int cmd_metrics(struct ctx *c)
{
	char tmp[4096];
	int saved, rc;

	if (!has(c, O_TEXTFILE))
		return metrics_print(c);
	if (c->json)
		return usage_error(c->cmd, "--textfile writes the Prometheus text, not --json");
	saved = textfile_open(c->optarg[O_TEXTFILE], tmp, sizeof(tmp));
	if (saved < 0)
		return RC_FAIL;
	rc = metrics_print(c);
	return textfile_commit(c->optarg[O_TEXTFILE], tmp, saved, rc);
}

static int metrics_print(struct ctx *c)
{
	struct qm *q = NULL;
	size_t n = 0;
	int rc = RC_OK, ret;

	for (int i = 0; i < c->nargs; i++)
		if (!wq_name_valid(c->args[i]))
			return usage_error(c->cmd, "bad queue name '%s'",
					   c->args[i]);
	if (c->nargs > 0 && access(WQ_DEV_PATH, F_OK) != 0)
		return fail(c, NULL, -ENOENT);	/* no module: say that, once */
	if (c->nargs > 0) {
		q = calloc((size_t)(unsigned int)c->nargs, sizeof(*q));
		if (!q)
			return fail(c, NULL, -ENOMEM);
		for (int i = 0; i < c->nargs; i++)
			snprintf(q[i].name, WQ_NAME_MAX, "%s", c->args[i]);
		n = (size_t)c->nargs;
	} else {
		ret = list_queues(&q, &n);
		if (ret < 0)
			return fail(c, NULL, ret);
	}
	for (size_t i = 0; i < n; i++) {
		ret = queue_metrics(q[i].name, &q[i].m);
		q[i].ok = ret == 0;
		/* a named queue must be there; a listed one may have gone */
		if (ret < 0 && c->nargs) {
			fprintf(stderr, "wqctl: metrics %s: %s (%s)\n", q[i].name,
				ret == -ENOENT ? "no such queue" : strerror(-ret),
				err_name(ret));
			rc = RC_FAIL;
		}
	}
	if (c->json) {
		json_metrics(q, n);
		free(q);
		return rc;
	}
	for (size_t s = 0; s < 3; s++)
		print_scalar(&scalars[s], q, n);
	print_hist("workqueue_queue_duration_seconds",
		   "How long in seconds an item stays in workqueue before being "
		   "requested.", false, q, n);
	print_hist("workqueue_work_duration_seconds",
		   "How long in seconds processing an item from workqueue takes.",
		   true, q, n);
	for (size_t s = 3; s < sizeof(scalars) / sizeof(scalars[0]); s++)
		print_scalar(&scalars[s], q, n);
	free(q);
	return rc;
}
