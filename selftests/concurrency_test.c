// SPDX-License-Identifier: GPL-2.0
/*
 * Many producers and consumers on one queue, as threads and as processes
 * with their own handles. A shared-memory tracker (wq_test_util.h) checks
 * that no key is ever held by two consumers at once and that every add is
 * followed by a get. Also: client-go Q1 (TestBasic) and Q2
 * (TestAddWhileProcessing) with both shutdown variants. Shutdown waking
 * every blocked getter, a drain with queued and in-flight keys, and
 * consumers killed with SIGKILL: concurrency_shutdown_test.c.
 *
 * Loop counts are small: the guest runs under QEMU TCG.
 */
#include <sched.h>

#include "wq_test_util.h"

WQT_FIXTURE(conc);

/* Checks the tracker after the queue has been drained. */
#define EXPECT_TRACKER_CLEAN(t) do {					\
		EXPECT_EQ(0, atomic_load(&(t)->double_hold))		\
			TH_LOG("a key was held by two consumers");	\
		EXPECT_EQ(0, atomic_load(&(t)->bad_key));		\
		EXPECT_EQ(0, atomic_load(&(t)->errors));		\
		EXPECT_EQ(0, wqt_tracker_lost(t))			\
			TH_LOG("keys added but never handed out afterwards"); \
	} while (0)

/* ---- workers ---------------------------------------------------------- */

struct worker {
	struct wqt_tracker *t;
	const char *name;	/* processes open their own handle by name */
	int fd;
	int rounds;		/* producers: adds */
	int nkeys;		/* producers: keys 0..nkeys-1 */
	int readd_every;	/* consumers: re-add every n-th key (0: never) */
	int work_us;		/* consumers: time "processing" a key */
	int64_t until_ms;	/* producers: stop at this time (0: rounds) */
	unsigned int seed;
	pthread_t th;
};

static void producer(struct worker *w)
{
	int r;

	for (r = 0; w->until_ms ? wqt_now_ms() < w->until_ms : r < w->rounds; r++) {
		if (wqt_track_add(w->t, w->fd, rand_r(&w->seed) % w->nkeys))
			atomic_fetch_add(&w->t->errors, 1);
		if (r % 8 == 0)
			sched_yield();
	}
}

/* Consumes until -ESHUTDOWN. */
static void consumer(struct worker *w)
{
	int i, n = 0, r;

	for (;;) {
		i = wqt_track_get(w->t, w->fd, -1);
		if (i == -ESHUTDOWN)
			return;
		if (i < 0) {
			atomic_fetch_add(&w->t->errors, 1);
			return;
		}
		if (w->readd_every && ++n % w->readd_every == 0) {
			r = wqt_track_readd(w->t, w->fd, i);
			if (r && r != -ESHUTDOWN)
				atomic_fetch_add(&w->t->errors, 1);
		}
		if (w->work_us)
			usleep(w->work_us);
		else
			sched_yield();
		wqt_track_done(w->t, w->fd, i);
	}
}

static void *producer_thread(void *p) { producer(p); return NULL; }
static void *consumer_thread(void *p) { consumer(p); return NULL; }

static int open_own(struct worker *w)
{
	w->fd = wq_open(w->name);
	return w->fd;
}

static int producer_proc(void *p)
{
	if (open_own(p) < 0)
		return 2;
	producer(p);
	return 0;
}

static int consumer_proc(void *p)
{
	if (open_own(p) < 0)
		return 2;
	consumer(p);
	return 0;
}

static void *shared_workers(int n)
{
	return wqt_shared(n * sizeof(struct worker));
}

/* n workers like tmpl, worker i with the seed seed0 + i * step. */
static void set_workers(struct worker *w, int n, const struct worker *tmpl,
			unsigned int seed0, unsigned int step)
{
	int i;

	for (i = 0; i < n; i++) {
		w[i] = *tmpl;
		w[i].seed = seed0 + i * step;
	}
}

/* Threads: w[0..np-1] producers, then w[np..np+nc-1] consumers. */
static void start_threads(struct __test_metadata *_metadata, struct worker *w,
			  int np, int nc)
{
	int i;

	for (i = 0; i < np + nc; i++)
		ASSERT_EQ(0, pthread_create(&w[i].th, NULL,
					    i < np ? producer_thread : consumer_thread,
					    &w[i]));
}

static void join_threads(struct worker *w, int from, int to)
{
	int i;

	for (i = from; i < to; i++)
		pthread_join(w[i].th, NULL);
}

/* Threads: producers add at random, consumers re-add now and then; the
 * drain waits until everything is done. */
TEST_F(conc, threads_producers_consumers)
{
	enum { NP = 4, NC = 4, NKEYS = 64 };
	struct wqt_tracker *t = wqt_tracker_new(NKEYS);
	const struct worker tmpl = { .t = t, .fd = self->fd, .nkeys = NKEYS,
				     .rounds = 300, .readd_every = 3 };
	struct worker w[NP + NC];

	ASSERT_NE(NULL, t);
	set_workers(w, NP + NC, &tmpl, 1, 1);
	start_threads(_metadata, w, NP, NC);
	join_threads(w, 0, NP);
	ASSERT_EQ(0, wq_shutdown_with_drain(self->fd, 20000));
	EXPECT_QUEUE_EMPTY(self->fd);
	join_threads(w, NP, NP + NC);
	EXPECT_TRACKER_CLEAN(t);
	EXPECT_LE(NKEYS / 2, atomic_load(&t->total_gets));
	wqt_tracker_free(t);
}

/* Processes, each with its own handle, share one queue. */
TEST_F_TIMEOUT(conc, processes_producers_consumers, 60)
{
	enum { NP = 3, NC = 3, NKEYS = 48 };
	struct wqt_tracker *t = wqt_tracker_new(NKEYS);
	struct worker *w = shared_workers(NP + NC);
	const struct worker tmpl = { .t = t, .name = self->name, .nkeys = NKEYS,
				     .rounds = 200, .readd_every = 4 };
	pid_t pid[NP + NC];
	int i;

	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, w);
	set_workers(w, NP + NC, &tmpl, 100, 1);
	for (i = 0; i < NP + NC; i++) {
		pid[i] = wqt_spawn(i < NP ? producer_proc : consumer_proc, &w[i]);
		ASSERT_LT(0, pid[i]);
	}
	for (i = 0; i < NP; i++) {
		ASSERT_EQ(0, wqt_wait_child(pid[i], 30000)) TH_LOG("producer %d", i);
	}
	/* plain shutdown: consumers still take every queued key */
	ASSERT_EQ(0, wq_shutdown(self->fd));
	for (i = NP; i < NP + NC; i++) {
		ASSERT_EQ(0, wqt_wait_child(pid[i], 30000)) TH_LOG("consumer %d", i);
	}
	EXPECT_QUEUE_EMPTY(self->fd);
	EXPECT_TRACKER_CLEAN(t);
	wqt_tracker_free(t);
}

/* A few hot keys, many consumers in threads and processes, producers
 * hammering the same keys: a key is never handed to two at once. */
TEST_F_TIMEOUT(conc, hot_keys_never_double_held, 60)
{
	enum { NP = 3, NCT = 5, NCP = 2, NKEYS = 4 };
	struct wqt_tracker *t = wqt_tracker_new(NKEYS);
	struct worker *w = shared_workers(NP + NCT + NCP);
	const struct worker tmpl = { .t = t, .name = self->name, .fd = self->fd,
				     .nkeys = NKEYS,
				     .until_ms = wqt_now_ms() + 1500,
				     .readd_every = 2 };
	pid_t pid[NCP];
	int i;

	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, w);
	set_workers(w, NP + NCT + NCP, &tmpl, 1, 7);
	for (i = 0; i < NCP; i++) {
		pid[i] = wqt_spawn(consumer_proc, &w[NP + NCT + i]);
		ASSERT_LT(0, pid[i]);
	}
	start_threads(_metadata, w, NP, NCT);
	join_threads(w, 0, NP);
	ASSERT_EQ(0, wq_shutdown_with_drain(self->fd, 20000));
	join_threads(w, NP, NP + NCT);
	for (i = 0; i < NCP; i++)
		ASSERT_EQ(0, wqt_wait_child(pid[i], 10000));
	EXPECT_QUEUE_EMPTY(self->fd);
	EXPECT_TRACKER_CLEAN(t);
	EXPECT_LE(NKEYS, atomic_load(&t->total_gets));
	wqt_tracker_free(t);
}

/* ---- client-go Q1 and Q2 ------------------------------------------------- */

#define AFTER_SHUTDOWN "added after shutdown!"

#define BASIC_MAX 64	/* producers, and so keys */

struct basic {
	int fd;
	struct wqt_tracker *t;	/* Q1; keys: producers 0..nprod-1 */
	atomic_int saw_late;	/* the key added after shutdown was handed out */
	atomic_int errors;
	/* Q2 */
	atomic_int count[BASIC_MAX];
	atomic_int readd_ok[BASIC_MAX];
};

struct basic_producer {
	struct basic *b;
	int id;
	pthread_t th;
};

static void *q1_producer(void *p)
{
	struct basic_producer *bp = p;
	int j;

	for (j = 0; j < 10; j++) {
		if (wqt_track_add(bp->b->t, bp->b->fd, bp->id))
			atomic_fetch_add(&bp->b->errors, 1);
		wqt_sleep_ms(1);
	}
	return NULL;
}

static void *q1_consumer(void *p)
{
	struct basic *b = p;
	char buf[WQ_KEY_MAX];
	ssize_t n;
	int i;

	for (;;) {
		n = wq_get(b->fd, buf, sizeof(buf), -1);
		if (n == -ESHUTDOWN)
			return NULL;
		if (n == (ssize_t)strlen(AFTER_SHUTDOWN) &&
		    !memcmp(buf, AFTER_SHUTDOWN, n)) {
			atomic_store(&b->saw_late, 1);
			wq_done(b->fd, buf, n);
			continue;
		}
		i = wqt_key_index(buf, n);
		if (n < 0 || i < 0 || i >= b->t->nkeys) {
			atomic_fetch_add(&b->errors, 1);
			return NULL;
		}
		if (atomic_exchange(&b->t->slot[i].held, 1))
			atomic_fetch_add(&b->t->double_hold, 1);
		atomic_store(&b->t->slot[i].pending, 0);
		wqt_sleep_ms(3);
		wqt_track_done(b->t, b->fd, i);
	}
}

/* How Q1 and Q2 run: the threads, and whether an add follows the shutdown. */
struct basic_run {
	void *(*producer)(void *);	/* a struct basic_producer */
	int nprod;
	void *(*consumer)(void *);	/* the struct basic */
	int ncons;
	bool add_after_shutdown;	/* and check it is refused */
};

/*
 * Starts r's producers (each with its id, which is its key) and consumers
 * on b->fd; once the producers are done, shuts the queue down (with drain
 * or not) and waits for the consumers. The queue must end empty and the
 * threads without errors.
 */
static void run_basic(struct __test_metadata *_metadata, struct basic *b,
		      const struct basic_run *r, bool drain)
{
	struct basic_producer p[BASIC_MAX];
	pthread_t c[BASIC_MAX];
	int i;

	ASSERT_GE(BASIC_MAX, r->nprod);
	ASSERT_GE(BASIC_MAX, r->ncons);
	for (i = 0; i < r->nprod; i++) {
		p[i].b = b;
		p[i].id = i;
		ASSERT_EQ(0, pthread_create(&p[i].th, NULL, r->producer, &p[i]));
	}
	for (i = 0; i < r->ncons; i++)
		ASSERT_EQ(0, pthread_create(&c[i], NULL, r->consumer, b));
	for (i = 0; i < r->nprod; i++)
		pthread_join(p[i].th, NULL);
	ASSERT_EQ(0, drain ? wq_shutdown_with_drain(b->fd, 20000) :
			     wq_shutdown(b->fd));
	if (r->add_after_shutdown)
		ASSERT_EQ(-ESHUTDOWN, wq_add(b->fd, AFTER_SHUTDOWN,
					     strlen(AFTER_SHUTDOWN)));
	for (i = 0; i < r->ncons; i++)
		pthread_join(c[i], NULL);
	EXPECT_EQ(0, wq_len(b->fd));
	EXPECT_EQ(0, atomic_load(&b->errors));
}

static const struct basic_run q1 = {
	.producer = q1_producer, .nprod = 10,
	.consumer = q1_consumer, .ncons = 5,
	.add_after_shutdown = true,
};

/*
 * Q1 TestBasic: producers add their key repeatedly, consumers process it;
 * after shutdown an add is refused and never handed out; at the end the
 * queue is empty.
 */
static void q1_basic(struct __test_metadata *_metadata, int fd, bool drain)
{
	struct basic *b = calloc(1, sizeof(*b));

	ASSERT_NE(NULL, b);
	b->fd = fd;
	b->t = wqt_tracker_new(q1.nprod);
	ASSERT_NE(NULL, b->t);
	run_basic(_metadata, b, &q1, drain);
	EXPECT_EQ(0, atomic_load(&b->saw_late));
	EXPECT_TRACKER_CLEAN(b->t);
	wqt_tracker_free(b->t);
	free(b);
}

TEST_F(conc, q1_basic_shutdown)
{
	q1_basic(_metadata, self->fd, false);
}

TEST_F(conc, q1_basic_shutdown_with_drain)
{
	q1_basic(_metadata, self->fd, true);
}

static void *q2_producer(void *p)
{
	struct basic_producer *bp = p;

	if (wqt_add_i(bp->b->fd, bp->id))
		atomic_fetch_add(&bp->b->errors, 1);
	return NULL;
}

static void *q2_consumer(void *p)
{
	struct basic *b = p;
	int i, r;

	for (;;) {
		i = wqt_get_i(b->fd, -1);
		if (i == -ESHUTDOWN)
			return NULL;
		if (i < 0 || i >= BASIC_MAX) {
			atomic_fetch_add(&b->errors, 1);
			return NULL;
		}
		if (atomic_fetch_add(&b->count[i], 1) + 1 < 2) {
			r = wqt_add_i(b->fd, i);	/* processing: dirty */
			if (r == 0)
				atomic_fetch_add(&b->readd_ok[i], 1);
			else if (r != -ESHUTDOWN)
				atomic_fetch_add(&b->errors, 1);
		}
		if (wqt_done_i(b->fd, i))
			atomic_fetch_add(&b->errors, 1);
	}
}

static const struct basic_run q2 = {
	.producer = q2_producer, .nprod = 30,
	.consumer = q2_consumer, .ncons = 5,
};

/*
 * Q2 TestAddWhileProcessing: consumers re-add each key once while
 * processing it. Every re-add that succeeded gives exactly one more run,
 * also when the done comes after shutdown.
 */
static void q2_add_while_processing(struct __test_metadata *_metadata, int fd,
				    bool drain)
{
	struct basic *b = calloc(1, sizeof(*b));
	int i;

	ASSERT_NE(NULL, b);
	b->fd = fd;
	run_basic(_metadata, b, &q2, drain);
	for (i = 0; i < q2.nprod; i++) {
		EXPECT_EQ(1 + atomic_load(&b->readd_ok[i]), atomic_load(&b->count[i]))
			TH_LOG("key %d", i);
	}
	free(b);
}

TEST_F(conc, q2_add_while_processing_shutdown)
{
	q2_add_while_processing(_metadata, self->fd, false);
}

TEST_F(conc, q2_add_while_processing_shutdown_with_drain)
{
	q2_add_while_processing(_metadata, self->fd, true);
}

TEST_HARNESS_MAIN
