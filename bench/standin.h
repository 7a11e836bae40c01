/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-process queue with client-go's semantics that the batch figures
 * (1 in wq_bench.c, 13 in uring_bench.c) are measured against, the
 * stand-in for client-go's workqueue: client-go's queue.go in C. One
 * mutex and one condition variable, a FIFO, and hash sets of dirty and
 * processing keys (queue.go's queue, dirty and processing), every key
 * copied on Add. Keys are KEY_LEN bytes (bench_util.h, included first).
 */
#ifndef WQ_BENCH_STANDIN_H
#define WQ_BENCH_STANDIN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct node {
	struct node *next;
	uint64_t hash;
	char *key;
};

struct set {
	struct node **b;
	size_t mask, n;
};

static uint64_t hash_key(const char *k)
{
	uint64_t h = 1469598103934665603ULL;

	for (int i = 0; i < KEY_LEN; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ULL;
	return h;
}

static void set_init(struct set *s)
{
	s->mask = 63;
	s->n = 0;
	s->b = calloc(s->mask + 1, sizeof(*s->b));
	if (!s->b)
		die("calloc", ENOMEM);
}

static struct node **set_slot(struct set *s, const char *k, uint64_t h)
{
	struct node **p = &s->b[h & s->mask];

	while (*p && ((*p)->hash != h || memcmp((*p)->key, k, KEY_LEN)))
		p = &(*p)->next;
	return p;
}

static char *set_get(struct set *s, const char *k)
{
	struct node *n = *set_slot(s, k, hash_key(k));

	return n ? n->key : NULL;
}

static void set_grow(struct set *s)
{
	size_t nmask = s->mask * 2 + 1;
	struct node **nb = calloc(nmask + 1, sizeof(*nb));

	if (!nb)
		die("calloc", ENOMEM);
	for (size_t i = 0; i <= s->mask; i++) {
		struct node *n = s->b[i], *next;

		for (; n; n = next) {
			next = n->next;
			n->next = nb[n->hash & nmask];
			nb[n->hash & nmask] = n;
		}
	}
	free(s->b);
	s->b = nb;
	s->mask = nmask;
}

static void set_put(struct set *s, char *k)
{
	uint64_t h = hash_key(k);
	struct node *n = malloc(sizeof(*n));

	if (!n)
		die("malloc", ENOMEM);
	n->hash = h;
	n->key = k;
	n->next = s->b[h & s->mask];
	s->b[h & s->mask] = n;
	if (++s->n > s->mask)
		set_grow(s);
}

static char *set_del(struct set *s, const char *k)
{
	struct node **p = set_slot(s, k, hash_key(k)), *n = *p;
	char *key;

	if (!n)
		return NULL;
	*p = n->next;
	key = n->key;
	free(n);
	s->n--;
	return key;
}

struct cq {
	pthread_mutex_t mu;
	pthread_cond_t cond;
	struct set dirty, processing;
	char **ring;
	size_t head, len, cap;
	bool shutting_down;
};

static void cq_init(struct cq *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cond, NULL);
	set_init(&q->dirty);
	set_init(&q->processing);
	q->cap = 64;
	q->ring = malloc(q->cap * sizeof(*q->ring));
	if (!q->ring)
		die("malloc", ENOMEM);
}

static void cq_push(struct cq *q, char *k)
{
	if (q->len == q->cap) {
		char **r = malloc(2 * q->cap * sizeof(*r));

		if (!r)
			die("malloc", ENOMEM);
		for (size_t i = 0; i < q->len; i++)
			r[i] = q->ring[(q->head + i) % q->cap];
		free(q->ring);
		q->ring = r;
		q->head = 0;
		q->cap *= 2;
	}
	q->ring[(q->head + q->len++) % q->cap] = k;
}

static void cq_add(struct cq *q, const char *key)
{
	char *k;

	pthread_mutex_lock(&q->mu);
	if (q->shutting_down || set_get(&q->dirty, key)) {
		pthread_mutex_unlock(&q->mu);
		return;
	}
	k = malloc(KEY_LEN);
	if (!k)
		die("malloc", ENOMEM);
	memcpy(k, key, KEY_LEN);
	set_put(&q->dirty, k);
	if (!set_get(&q->processing, key)) {
		cq_push(q, k);
		pthread_cond_signal(&q->cond);
	}
	pthread_mutex_unlock(&q->mu);
}

/* Get: the key copied into buf; false once shut down and empty. */
static bool cq_get(struct cq *q, char *buf)
{
	char *k;

	pthread_mutex_lock(&q->mu);
	while (!q->len && !q->shutting_down)
		pthread_cond_wait(&q->cond, &q->mu);
	if (!q->len) {
		pthread_mutex_unlock(&q->mu);
		return false;
	}
	k = q->ring[q->head];
	q->head = (q->head + 1) % q->cap;
	q->len--;
	set_del(&q->dirty, k);
	set_put(&q->processing, k);
	memcpy(buf, k, KEY_LEN);
	pthread_mutex_unlock(&q->mu);
	return true;
}

static void cq_done(struct cq *q, const char *key)
{
	char *k, *d;

	pthread_mutex_lock(&q->mu);
	k = set_del(&q->processing, key);
	d = set_get(&q->dirty, key);
	if (d) {
		cq_push(q, d);
		pthread_cond_signal(&q->cond);
	}
	pthread_mutex_unlock(&q->mu);
	free(k);
}

static void cq_shutdown(struct cq *q)
{
	pthread_mutex_lock(&q->mu);
	q->shutting_down = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->mu);
}

static void cq_destroy(struct cq *q)
{
	free(q->ring);
	free(q->dirty.b);
	free(q->processing.b);
}

#endif /* WQ_BENCH_STANDIN_H */
