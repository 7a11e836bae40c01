// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the waiting heap (kmod/wq_heap.c, built as is against
 * selftests/host/shim): ordering by (ready time, scheduling order),
 * earliest-wins updates, removal from the middle, chunk growth, all
 * checked against a reference model after every step.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "wq_heap.h"

#define MAX 3000

struct node {
	struct kwq_heap_node hn;
	int in;		/* in the heap */
};

struct fixture_heap {
	struct kwq_heap h;
	struct kwq_heap_node **chunk[(MAX + KWQ_HEAP_CHUNK - 1) / KWQ_HEAP_CHUNK];
};

static void heap_init(struct fixture_heap *f, u32 max)
{
	memset(f, 0, sizeof(*f));
	f->h.chunks = f->chunk;
	f->h.nr_chunks = kwq_heap_chunks_for(max);
}

static void heap_fini(struct fixture_heap *f)
{
	u32 i;

	for (i = 0; i < f->h.nr_chunks; i++)
		free(f->chunk[i]);
}

/* As the queue does: add a chunk when asked before each push. */
static void push(struct fixture_heap *f, struct node *n, s64 when)
{
	int idx = kwq_heap_chunk_needed(&f->h);

	if (idx >= 0)
		kwq_heap_add_chunk(&f->h, idx, calloc(KWQ_HEAP_CHUNK,
						      sizeof(void *)));
	kwq_heap_push(&f->h, &n->hn, when);
	n->in = 1;
}

/* Is the heap a heap, with every index back-pointer right? */
static int heap_ok(struct fixture_heap *f)
{
	u32 i;

	for (i = 0; i < f->h.len; i++) {
		struct kwq_heap_node *n = f->chunk[i / KWQ_HEAP_CHUNK][i % KWQ_HEAP_CHUNK];
		struct kwq_heap_node *p;

		if (n->index != i)
			return 0;
		if (!i)
			continue;
		p = f->chunk[(i - 1) / 2 / KWQ_HEAP_CHUNK][(i - 1) / 2 % KWQ_HEAP_CHUNK];
		if (p->when > n->when || (p->when == n->when && p->seq > n->seq))
			return 0;
	}
	return 1;
}

TEST(pops_in_ready_time_order)
{
	static struct node n[5];
	static const s64 when[5] = { 1000, 500, 250, 750, 250 };
	static const int order[5] = { 2, 4, 1, 3, 0 };	/* ties: first scheduled */
	struct fixture_heap f;
	int i;

	heap_init(&f, 5);
	for (i = 0; i < 5; i++)
		push(&f, &n[i], when[i]);
	ASSERT_TRUE(heap_ok(&f));
	for (i = 0; i < 5; i++)
		EXPECT_EQ(&n[order[i]].hn, kwq_heap_pop(&f.h));
	EXPECT_EQ(NULL, kwq_heap_pop(&f.h));
	EXPECT_EQ(NULL, kwq_heap_peek(&f.h));
	heap_fini(&f);
}

TEST(earlier_wins_later_never_postpones)
{
	static struct node a, b;
	struct fixture_heap f;

	heap_init(&f, 2);
	push(&f, &a, 50);
	push(&f, &b, 60);
	kwq_heap_move_earlier(&f.h, &a.hn, 70);	/* later: ignored */
	EXPECT_EQ(50, a.hn.when);
	EXPECT_EQ(&a.hn, kwq_heap_peek(&f.h));
	kwq_heap_move_earlier(&f.h, &b.hn, 30);	/* earlier: b first */
	EXPECT_EQ(30, b.hn.when);
	EXPECT_EQ(&b.hn, kwq_heap_peek(&f.h));
	kwq_heap_move_earlier(&f.h, &a.hn, 30);	/* tie: after b */
	EXPECT_EQ(&b.hn, kwq_heap_pop(&f.h));
	EXPECT_EQ(&a.hn, kwq_heap_pop(&f.h));
	heap_fini(&f);
}

TEST(chunks_bounded_by_max)
{
	static struct node n[KWQ_HEAP_CHUNK + 1];
	struct fixture_heap f;
	int i;

	heap_init(&f, KWQ_HEAP_CHUNK + 1);
	EXPECT_EQ(2, f.h.nr_chunks);
	EXPECT_EQ(0, kwq_heap_chunk_needed(&f.h));
	for (i = 0; i <= KWQ_HEAP_CHUNK; i++)
		push(&f, &n[i], KWQ_HEAP_CHUNK - i);
	EXPECT_EQ(-1, kwq_heap_chunk_needed(&f.h));	/* room in chunk 1 */
	ASSERT_TRUE(heap_ok(&f));
	for (i = KWQ_HEAP_CHUNK; i >= 0; i--)
		ASSERT_EQ(&n[i].hn, kwq_heap_pop(&f.h));
	EXPECT_EQ(-1, kwq_heap_chunk_needed(&f.h));	/* chunks are kept */
	heap_fini(&f);

	/* A heap sized for exactly one chunk is full after it. */
	heap_init(&f, KWQ_HEAP_CHUNK);
	EXPECT_EQ(1, f.h.nr_chunks);
	for (i = 0; i < KWQ_HEAP_CHUNK; i++)
		push(&f, &n[i], i);
	EXPECT_EQ(-ENOSPC, kwq_heap_chunk_needed(&f.h));
	heap_fini(&f);
}

/*
 * The scheduling sequence is 32 bits and wraps: across the wrap only ties
 * on the ready time may leave out of scheduling order, never a node
 * before one that is ready earlier, and the heap stays a heap.
 */
TEST(seq_wrap_keeps_ready_time_order)
{
	static struct node n[64];
	struct fixture_heap f;
	s64 last = -1;
	int i;

	heap_init(&f, 64);
	f.h.seq = (u32)-20;
	for (i = 0; i < 64; i++) {
		push(&f, &n[i], (i * 7) % 5);
		ASSERT_TRUE(heap_ok(&f));
	}
	EXPECT_EQ(44U, f.h.seq);
	for (i = 0; i < 64; i++) {
		struct kwq_heap_node *top = kwq_heap_pop(&f.h);

		ASSERT_NE(NULL, top);
		ASSERT_LE(last, top->when);
		last = top->when;
		ASSERT_TRUE(heap_ok(&f));
	}
	EXPECT_EQ(NULL, kwq_heap_pop(&f.h));
	heap_fini(&f);
}

/* Random pushes, pops, removals and moves against a reference model. */
TEST(random_against_model)
{
	static struct node n[MAX];
	struct fixture_heap f;
	int step, i, live = 0;

	srand(12345);
	heap_init(&f, MAX);
	for (step = 0; step < 200000; step++) {
		int op = rand() % 4;
		struct node *x = &n[rand() % MAX];
		s64 when = rand() % 1000;

		if (op == 0 && !x->in) {
			push(&f, x, when);
			live++;
		} else if (op == 1 && x->in) {
			kwq_heap_remove(&f.h, &x->hn);
			x->in = 0;
			live--;
		} else if (op == 2 && x->in) {
			s64 old = x->hn.when;

			kwq_heap_move_earlier(&f.h, &x->hn, when);
			ASSERT_EQ(when < old ? when : old, x->hn.when);
		} else if (op == 3 && live) {
			struct kwq_heap_node *top = kwq_heap_pop(&f.h);
			struct node *t = (struct node *)top;

			/* nothing left is before the popped node */
			for (i = 0; i < MAX; i++)
				if (n[i].in && &n[i] != t)
					ASSERT_FALSE(n[i].hn.when < top->when ||
						     (n[i].hn.when == top->when &&
						      n[i].hn.seq < top->seq));
			t->in = 0;
			live--;
		}
		ASSERT_EQ((u32)live, kwq_heap_len(&f.h));
		if (step % 97 == 0)
			ASSERT_TRUE(heap_ok(&f));
	}
	heap_fini(&f);
}

TEST_HARNESS_MAIN
