// SPDX-License-Identifier: GPL-2.0
/*
 * wqctl: a key's state (what the queue holds of it: queued, processing,
 * dirty, waiting; its priority, when a waiting copy becomes ready, its
 * failure count) and cancelling a key's waiting copy (wq_key_state(3)).
 */
#include <errno.h>
#include <string.h>

#include "wqctl.h"

static const struct {
	uint32_t bit;
	const char *name;
} names[] = {
	{ WQ_KEY_QUEUED, "queued" },
	{ WQ_KEY_PROCESSING, "processing" },
	{ WQ_KEY_DIRTY, "dirty" },
	{ WQ_KEY_WAITING, "waiting" },
};

/* st->flags as words: "queued,waiting", or "none" for a key not held. */
static void print_flags(uint32_t flags)
{
	const char *sep = "";

	if (!flags)
		fputs("none", stdout);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(flags & names[i].bit))
			continue;
		printf("%s%s", sep, names[i].name);
		sep = ",";
	}
	putchar('\n');
}

/*
 * "field: value" lines, as stat prints: state, priority, ready_ns (the
 * CLOCK_MONOTONIC time a waiting copy becomes ready, else 0), ready_in
 * (how long until then, rounded up to the millisecond, else -) and
 * requeues.
 */
/*
 * --json: {"state": ["queued", ...] ([] for a key not held), "priority",
 * "ready_ns", "ready_in_ns" (null unless waiting), "requeues"}.
 */
static void json_state(const struct wq_key_state *st, uint64_t left)
{
	json_object();
	json_key("state");
	json_array();
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (st->flags & names[i].bit)
			json_string(names[i].name);
	json_end_array();
	json_s64("priority", st->priority);
	json_u64("ready_ns", st->ready_ns);
	if (st->flags & WQ_KEY_WAITING)
		json_u64("ready_in_ns", left);
	else
		json_null("ready_in_ns");
	json_u64("requeues", st->requeues);
	json_end_object();
}

int cmd_state(struct ctx *c)
{
	const struct key *k = &c->keys[0];
	struct wq_key_state st;
	char in[64] = "-";
	uint64_t left = 0;
	int err = wq_key_state(c->fd, k->bytes, k->len, &st);

	if (err < 0)
		return fail(c, NULL, err);
	if (st.flags & WQ_KEY_WAITING) {
		uint64_t now = wq_now_ns();

		if (st.ready_ns > now)
			left = (st.ready_ns - now + WQ_NSEC_PER_MSEC - 1) /
			       WQ_NSEC_PER_MSEC * WQ_NSEC_PER_MSEC;
		wq_format_duration(in, sizeof(in), left);
	}
	if (c->json) {
		json_state(&st, left);
		return RC_OK;
	}
	fputs("state: ", stdout);
	print_flags(st.flags);
	printf("priority: %d\n", st.priority);
	printf("ready_ns: %llu\n", (unsigned long long)st.ready_ns);
	printf("ready_in: %s\n", in);
	printf("requeues: %u\n", st.requeues);
	return RC_OK;
}

/* Drops each key's waiting copy; prints how many were dropped. */
int cmd_cancel(struct ctx *c)
{
	int dropped = 0;

	for (int i = 0; i < c->nkeys; i++) {
		const struct key *k = &c->keys[i];
		int ret = wq_cancel_after(c->fd, k->bytes, k->len);

		if (ret < 0) {
			if (dropped)
				printf("%d\n", dropped);
			return fail(c, k, ret);
		}
		dropped += ret;
	}
	printf("%d\n", dropped);
	return RC_OK;
}
