// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: the commands that only look: list, len, requeues, stat. Their
 * output is for scripts as much as for people: one value a line, or a
 * table with a header.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wqctl.h"

static int by_name(const void *a, const void *b)
{
	const struct wq_stats *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static const char *yes_no(int b)
{
	return b ? "yes" : "no";
}

static const char *shutdown_state(const struct wq_stats *st)
{
	return st->draining ? "draining" : yes_no(st->shutting_down);
}

static void print_list(const struct wq_stats *st, size_t n)
{
	int w = (int)strlen("NAME");

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(st[i].name) > w)
			w = (int)strlen(st[i].name);
	/* new columns go before LIMITER, the last: scripts count fields */
	printf("%-*s %7s %10s %7s  %-8s %6s  %s\n", w, "NAME", "QUEUED",
	       "PROCESSING", "WAITING", "SHUTDOWN", "ID", "LIMITER");
	for (size_t i = 0; i < n; i++)
		printf("%-*s %7u %10u %7u  %-8s %6llu  %s\n", w, st[i].name,
		       st[i].queued, st[i].processing, st[i].waiting,
		       shutdown_state(&st[i]), (unsigned long long)st[i].id,
		       st[i].limiter);
}

/* How the fields of a queue's statistics are written: text or JSON. */
struct stats_writer {
	void (*str)(const char *k, const char *v);
	void (*num)(const char *k, uint64_t v);
	void (*flag)(const char *k, bool v);
};

/*
 * A queue's statistics, field by field, in the order and with the names
 * of 'wqctl stat'; mode as octal text ("0600"). One list for the text and
 * the JSON, so the two cannot drift apart.
 */
static void write_stats(const struct wq_stats *st,
			const struct stats_writer *w)
{
	char mode[8];

	snprintf(mode, sizeof(mode), "%04o", st->mode & 07777);
	w->str("name", st->name);
	w->num("id", st->id);
	w->str("limiter", st->limiter);
	w->num("queued", st->queued);
	w->num("processing", st->processing);
	w->num("waiting", st->waiting);
	w->num("dirty", st->dirty);
	w->num("keys", st->keys);
	w->num("tracked", st->tracked);
	w->num("max_tracked", st->max_tracked);
	w->num("max_items", st->max_items);
	w->num("handles", st->handles);
	w->num("uid", st->uid);
	w->num("gid", st->gid);
	w->str("mode", mode);
	w->flag("shutting_down", st->shutting_down);
	w->flag("draining", st->draining);
	w->flag("unlinked", st->unlinked);
	w->flag("priority", st->priority);
	w->num("adds", st->adds);
	w->num("retries", st->retries);
	w->num("evicted", st->evicted);
}

static void text_str(const char *k, const char *v)
{
	printf("%s: %s\n", k, v);
}

static void text_num(const char *k, uint64_t v)
{
	printf("%s: %llu\n", k, (unsigned long long)v);
}

static void text_flag(const char *k, bool v)
{
	text_str(k, yes_no(v));
}

/* The text of 'wqctl stat': "FIELD: VALUE" lines, yes/no for the flags. */
static const struct stats_writer text_writer = {
	.str = text_str, .num = text_num, .flag = text_flag,
};

/* One JSON object a queue (list --json: one each); true/false flags. */
static const struct stats_writer json_writer = {
	.str = json_str, .num = json_u64, .flag = json_bool,
};

static void json_stats(const struct wq_stats *st)
{
	json_object();
	write_stats(st, &json_writer);
	json_end_object();
}

int cmd_list(struct ctx *c)
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
	if (c->json) {
		json_object();
		json_key("queues");
		json_array();
		for (int i = 0; i < n; i++)
			json_stats(&st[i]);
		json_end_array();
		json_end_object();
	} else {
		print_list(st, (size_t)n);
	}
	free(st);
	return RC_OK;
}

/* len, requeues: the number a call returned, or its error. */
static int print_number(const struct ctx *c, int n)
{
	if (n < 0)
		return fail(c, NULL, n);
	printf("%d\n", n);
	return RC_OK;
}

int cmd_len(struct ctx *c)
{
	return print_number(c, wq_len(c->fd));
}

int cmd_requeues(struct ctx *c)
{
	const struct key *k = &c->keys[0];

	return print_number(c, wq_num_requeues(c->fd, k->bytes, k->len));
}

int cmd_stat(struct ctx *c)
{
	struct wq_stats st;
	int err = wq_stat(c->fd, &st);

	if (err < 0)
		return fail(c, NULL, err);
	if (c->json) {
		json_stats(&st);
		return RC_OK;
	}
	write_stats(&st, &text_writer);
	return RC_OK;
}
