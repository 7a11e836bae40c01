// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the victims, consumers SIGKILLed holding keys (some detached)
 * while asleep in a call that waits on the round's idle queue (get,
 * add_wait, shutdown_with_drain) or in pause(): the release of their
 * handles puts their keys back, the detached ones stay processing until
 * the parent's done. And the idle queue: full and empty, destroyed and
 * closed at last with armed delays and a key processing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "soak.h"
#include "../wq_test_files.h"

static const char *const block_name[BLOCK_NR] = {
	"pause", "get", "add_wait", "shutdown_with_drain",
};

int victim_main(struct child *c)
{
	struct squeue *q = &sh->rd.q[c->qi];
	uint32_t go, held = 0, det = 0;
	int fd, idle, detached;
	struct cbuf *b;
	ssize_t r;

	fd = wq_open(q->name);	/* an open file of its own */
	call();
	if (fd < 0) {
		fail(F_KILL, "victim: open %s: %s", q->name, err_name(fd));
		return 1;
	}
	idle = wq_open(sh->rd.idle);
	call();
	if (idle < 0) {
		fail(F_KILL, "victim: open %s: %s", sh->rd.idle, err_name(idle));
		return 1;
	}
	ready(c);
	if (recv_u32(c->to[0], &go, -1))
		return 1;
	b = malloc(sizeof(*b));	/* never freed: the process is killed */
	if (!b)
		return 2;
	/* some keys detached: they stay processing when it dies */
	detached = chance(30);
	snprintf(b->where, sizeof(b->where), "victim's %sbatch get",
		 detached ? "detached " : "");
	if (detached)
		r = wq_get_batch_detached(fd, b->buf, BATCH_BUF, b->iov,
					  1 + rn(4), 500);
	else
		r = wq_get_batch(fd, b->buf, BATCH_BUF, b->iov, 1 + rn(8), 500);
	call();
	if (r > 0) {
		atomic_fetch_add(&q->c.batches, 1);
		took(q, c->qi, b, (unsigned int)r);
		for (ssize_t i = 0; detached && i < r; i++)
			if (b->idx[i] >= 0)
				atomic_store(&q->key[b->idx[i]].detached, 1);
		if (detached)
			det = (uint32_t)r;
		else
			held = (uint32_t)r;
	} else if (r != -ETIMEDOUT) {
		fail(F_KILL, "victim: get_batch %s: %s", q->name, err_name((int)r));
	}
	r = wq_get(fd, b->buf, WQ_KEY_MAX, 50);
	call();
	snprintf(b->where, sizeof(b->where), "victim's get");
	if (r > 0) {
		b->iov[0].iov_base = b->buf;
		b->iov[0].iov_len = (size_t)r;
		took(q, c->qi, b, 1);
		held++;
	}
	send_u32(c->from[1], held | det << 16);
	/* killed in a call that waits, on the idle queue */
	if (c->block == BLOCK_GET)
		r = wq_get(idle, b->buf, WQ_KEY_MAX, -1);
	else if (c->block == BLOCK_ADD)
		r = wq_add_wait(idle, "soak.victim", 11, -1);
	else if (c->block == BLOCK_DRAIN)
		r = wq_shutdown_with_drain(idle, -1);
	else
		r = 0;
	call();
	if (c->block != BLOCK_NONE)
		fail(F_KILL, "victim: %s on the idle queue returned %s",
		     block_name[c->block], err_name((int)r));
	for (;;)
		pause();
	return 0;
}

/*
 * The idle queue: where victims wait when they are killed. Full
 * (max_items) and empty: IDLE_WAITING keys wait a minute, one is
 * processing (the parent's), nothing is queued.
 */
#define IDLE_WAITING	4

void idle_setup(void)
{
	struct wq_attr attr = {
		.limiter = "none", .max_items = IDLE_WAITING + 1, .mode = 0600,
	};
	char key[16], buf[16];
	int i, r;

	snprintf(sh->rd.idle, WQ_NAME_MAX, "soak.%d.%u.idle", (int)getpid(),
		 round_no);
	idle_fd = wq_create(sh->rd.idle, &attr);
	call();
	if (idle_fd < 0) {
		fprintf(stderr, "wq_soak: create %s: %s\n", sh->rd.idle,
			err_name(idle_fd));
		exit(1);
	}
	for (i = 0; i < IDLE_WAITING; i++) {
		snprintf(key, sizeof(key), "w%d", i);
		r = wq_add_after(idle_fd, key, strlen(key), 60000000000ULL);
		call();
		if (r)
			fail(F_END, "add_after %s: %s", sh->rd.idle, err_name(r));
	}
	r = wq_add(idle_fd, "held", 4);
	call();
	if (r)
		fail(F_END, "add %s: %s", sh->rd.idle, err_name(r));
	r = (int)wq_get(idle_fd, buf, sizeof(buf), 0);
	call();
	if (r != 4)
		fail(F_END, "get %s: %s", sh->rd.idle, err_name(r));
}

/*
 * Once its victims are dead: as it was (or drained by one), then
 * destroyed and closed as it is, its waiting keys' timers armed and a key
 * processing: freed with them.
 */
void idle_abandon(int drained)
{
	struct wq_stats st;
	int r = wq_stat(idle_fd, &st);

	call();
	if (r || st.queued || st.processing != 1 ||
	    st.waiting != (drained ? 0 : IDLE_WAITING) ||
	    st.keys != st.waiting + 1 || st.handles != 1 ||
	    st.shutting_down != drained || st.draining)
		fail(F_KILL, "%s after its victims: %s queued %u processing %u waiting %u keys %u handles %u shutting_down %d draining %d",
		     sh->rd.idle, err_name(r), st.queued, st.processing,
		     st.waiting, st.keys, st.handles, st.shutting_down,
		     st.draining);
	r = wq_destroy(sh->rd.idle);
	call();
	if (r)
		fail(F_END, "destroy %s: %s", sh->rd.idle, err_name(r));
	r = wq_close(idle_fd);
	call();
	if (r)
		fail(F_END, "close %s: %s", sh->rd.idle, err_name(r));
	idle_fd = -1;
	r = wq_open(sh->rd.idle);
	call();
	if (r != -ENOENT)
		fail(F_END, "open %s after its destroy and close: %s",
		     sh->rd.idle, err_name(r));
}

/* Whether a process sleeps (state S: in its blocking call, or pause). */
static int sleeping(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return wqt_task_state(path) == 'S';
}

/* Until the victim sleeps in its call (a drain: seen draining), 2 s at most. */
static void wait_asleep(struct child *v)
{
	unsigned int i;

	for (i = 0; i < 2000; i++) {
		struct wq_stats st;

		if (sleeping(v->pid) && (v->block != BLOCK_DRAIN ||
		    (!wq_stat(idle_fd, &st) && st.draining)))
			break;
		sleep_ms(1);
	}
	if (i == 2000)
		fail(F_KILL, "victim %d not asleep in %s after 2 s", (int)v->pid,
		     block_name[v->block]);
}

/*
 * A reaped victim's keys: those its handle's release put back are marked
 * to be handed out again (*marked counts them); its detached ones stay
 * processing until some handle's done: the parent's. Returns how many
 * the parent did.
 */
static uint32_t victim_keys(struct child *v, struct squeue *q, uint32_t *marked)
{
	char key[WQ_KEY_MAX];
	uint32_t cur, done = 0;
	unsigned int i;

	for (i = 0; i < q->nkeys; i++) {
		struct keyrec *k = &q->key[i];
		int r;

		cur = v->id;
		if (!atomic_load(&k->detached)) {
			if (atomic_compare_exchange_strong(&k->holder, &cur,
							   HOLDER_BACK))
				(*marked)++;
			continue;
		}
		/* detached: still processing, until some handle's done */
		if (!atomic_compare_exchange_strong(&k->holder, &cur, PARENT_ID)) {
			fail(F_KILL, "%s key %u: detached by a killed consumer, now held by %u",
			     q->name, i, cur);
			continue;
		}
		atomic_store(&k->detached, 0);
		release(q, i);
		r = wq_done(pfd[v->qi], key, make_key(key, (unsigned int)v->qi, i));
		call();
		if (r)
			fail(F_KILL, "done %s of a key a killed consumer got detached: %s",
			     q->name, err_name(r));
		else
			atomic_fetch_add(&q->c.dones, 1);
		after_done(q, i);
		done++;
	}
	return done;
}

/* A victim: let it take keys, SIGKILL it, reap it, mark its keys. */
void kill_victim(struct child *v)
{
	struct squeue *q = &sh->rd.q[v->qi];
	uint32_t held = 0, marked = 0, det, done;
	int status;

	send_u32(v->to[1], 1);
	if (recv_u32(v->from[0], &held, 20000)) {
		fail(F_KILL, "victim on %s did not report its keys", q->name);
		held = 0;
	}
	det = held >> 16;
	held &= 0xffff;
	/* asleep in its call (a drain: seen draining) */
	wait_asleep(v);
	sleep_ms((int)rn(30));
	/* before the kill: its keys may be back before kill() returns */
	atomic_store(&sh->rd.w[v->id].state, W_KILLED);
	kill(v->pid, SIGKILL);
	if (waitpid(v->pid, &status, 0) != v->pid || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGKILL)
		fail(F_KILL, "victim %d: wait status %#x", (int)v->pid, status);
	v->pid = 0;
	close_child_pipes(v);
	atomic_store(&sh->rd.w[v->id].state, W_REAPED);
	done = victim_keys(v, q, &marked);
	if (marked > held || done != det)
		fail(F_KILL, "victim held %u keys (%u marked), %u detached (%u done)",
		     held, marked, det, done);
	tot.detached += det;
	atomic_fetch_add(&q->c.back, held);
	tot.kills++;
	tot.blocked[v->block]++;
	if (verbose)
		printf("# round %u: killed a consumer of %s holding %u keys (%u not yet taken again)\n",
		       round_no, q->name, held, marked);
}
