// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the keys of a round's queues, and their book-keeping in the
 * shared memory: who holds each key (a failed compare-and-swap at a get
 * is a key held by two consumers), when it was last added and last
 * handed out, and what the result of an add says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "soak.h"

/*
 * Key i of queue q in this round: "s<round>.<q>.<i>:" and a pattern, 16
 * to 47 bytes mostly (so on both sides of the 40 a record keeps inline),
 * some of 49 to 208, one in 61 close to WQ_KEY_MAX. Every key handed out
 * is checked byte for byte.
 */
static size_t key_len(unsigned int q, unsigned int i)
{
	uint32_t h = (i + 1) * 2654435761u ^ (q + 1) * 40503u;

	h ^= h >> 15;
	if (i % 61 == 60)
		return WQ_KEY_MAX - h % 32;
	if (h % 4 == 0)
		return 49 + h % 160;
	return 16 + h % 32;
}

size_t make_key(char *buf, unsigned int q, unsigned int i)
{
	size_t len = key_len(q, i), j;
	int n = snprintf(buf, 32, "s%u.%u.%u:", round_no, q, i);

	if ((size_t)n > len)
		len = (size_t)n;
	for (j = (size_t)n; j < len; j++)
		buf[j] = (char)('a' + (j * 7 + i) % 26);
	return len;
}

/* The index of a key handed out by queue q, or -1 if it is not ours. */
int key_index(const void *key, size_t len, unsigned int q)
{
	char head[32], want[WQ_KEY_MAX];
	unsigned int r, qq, i;
	size_t n = len < sizeof(head) - 1 ? len : sizeof(head) - 1;

	memcpy(head, key, n);
	head[n] = '\0';
	if (sscanf(head, "s%u.%u.%u:", &r, &qq, &i) != 3 || r != round_no ||
	    qq != q || i >= sh->rd.q[q].nkeys)
		return -1;
	if (make_key(want, q, i) != len || memcmp(want, key, len))
		return -1;
	return (int)i;
}

void note_add(struct squeue *q, unsigned int i, uint64_t seq, int delayed)
{
	atomic_max(&q->key[i].last_add, seq << 1 | (delayed ? 1 : 0));
}

/* A key handed out to self_id: take its holder slot. */
void take(struct squeue *q, unsigned int i)
{
	struct keyrec *k = &q->key[i];
	uint32_t cur = HOLDER_NONE;
	int st, waited = 0;

	for (;;) {
		if (atomic_compare_exchange_strong(&k->holder, &cur, self_id))
			break;
		if (cur == HOLDER_BACK)
			continue;
		if (cur < MAXW && cur != HOLDER_NONE) {
			st = atomic_load(&sh->rd.w[cur].state);
			if (st == W_REAPED && !atomic_load(&k->detached))
				continue;
			/* killed: its release ran before it can be reaped */
			if (st == W_KILLED && waited++ < 20000) {
				sleep_ms(1);
				cur = atomic_load(&k->holder);
				continue;
			}
		}
		fail(F_DOUBLE, "%s key %u handed out while worker %u (state %d) holds it",
		     q->name, i, cur, cur < MAXW ? atomic_load(&sh->rd.w[cur].state) : -1);
		atomic_store(&k->holder, self_id);
		break;
	}
	atomic_max(&k->last_get, tick());
	atomic_fetch_add(&q->c.gets, 1);
}

/* Before the done of a key self_id holds. */
void release(struct squeue *q, unsigned int i)
{
	uint32_t cur = self_id;

	if (!atomic_compare_exchange_strong(&q->key[i].holder, &cur, HOLDER_NONE))
		fail(F_DOUBLE, "%s key %u: held by %u, not by %u, at its done",
		     q->name, i, cur, self_id);
}

/* After a done (or a put back): a discard may have dropped its mark. */
void after_done(struct squeue *q, unsigned int i)
{
	if (atomic_load(&q->discarding))
		atomic_store(&q->key[i].excused, 1);
}

/* The result of an add of any kind: 1 if the key is pending. */
int add_ok(struct squeue *q, int r, const char *what)
{
	switch (r) {
	case 0:
		return 1;
	case -ESHUTDOWN:
		atomic_fetch_add(&q->c.shut, 1);
		if (!atomic_load(&q->ending))
			fail(F_RESULT, "%s %s: -ESHUTDOWN before the shutdown",
			     what, q->name);
		return 0;
	case -EAGAIN:
		atomic_fetch_add(&q->c.refused, 1);
		if (!q->max_items)
			fail(F_RESULT, "%s %s: -EAGAIN without a small max_items",
			     what, q->name);
		return 0;
	case -EDQUOT:
		atomic_fetch_add(&q->c.dquot, 1);
		if (!q->unpriv)
			fail(F_RESULT, "%s %s: -EDQUOT on root's queue", what,
			     q->name);
		return 0;
	}
	fail(F_RESULT, "%s %s: %s", what, q->name, err_name(r));
	return 0;
}
