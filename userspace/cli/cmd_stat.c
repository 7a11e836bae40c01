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

/*
 * A queue's statistics as one JSON object: the fields of the text of
 * 'wqctl stat', with the same names; yes/no as true/false, mode as octal
 * text ("0600"). list --json gives one a queue.
 */
static void json_stats(const struct wq_stats *st)
{
	char mode[8];

	snprintf(mode, sizeof(mode), "%04o", st->mode & 07777);
	json_object();
	json_str("name", st->name);
	json_u64("id", st->id);
	json_str("limiter", st->limiter);
	json_u64("queued", st->queued);
	json_u64("processing", st->processing);
	json_u64("waiting", st->waiting);
	json_u64("dirty", st->dirty);
	json_u64("keys", st->keys);
	json_u64("tracked", st->tracked);
	json_u64("max_tracked", st->max_tracked);
	json_u64("max_items", st->max_items);
	json_u64("handles", st->handles);
	json_u64("uid", st->uid);
	json_u64("gid", st->gid);
	json_str("mode", mode);
	json_bool("shutting_down", st->shutting_down);
	json_bool("draining", st->draining);
	json_bool("unlinked", st->unlinked);
	json_bool("priority", st->priority);
	json_u64("adds", st->adds);
	json_u64("retries", st->retries);
	json_u64("evicted", st->evicted);
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
	printf("name: %s\n", st.name);
	printf("id: %llu\n", (unsigned long long)st.id);
	printf("limiter: %s\n", st.limiter);
	printf("queued: %u\n", st.queued);
	printf("processing: %u\n", st.processing);
	printf("waiting: %u\n", st.waiting);
	printf("dirty: %u\n", st.dirty);
	printf("keys: %u\n", st.keys);
	printf("tracked: %u\n", st.tracked);
	printf("max_tracked: %u\n", st.max_tracked);
	printf("max_items: %u\n", st.max_items);
	printf("handles: %u\n", st.handles);
	printf("uid: %u\n", st.uid);
	printf("gid: %u\n", st.gid);
	printf("mode: %04o\n", st.mode);
	printf("shutting_down: %s\n", yes_no(st.shutting_down));
	printf("draining: %s\n", yes_no(st.draining));
	printf("unlinked: %s\n", yes_no(st.unlinked));
	printf("priority: %s\n", yes_no(st.priority));
	printf("adds: %llu\n", (unsigned long long)st.adds);
	printf("retries: %llu\n", (unsigned long long)st.retries);
	printf("evicted: %llu\n", (unsigned long long)st.evicted);
	return RC_OK;
}
