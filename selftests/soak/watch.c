// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: what the parent watches. During a round (while it sleeps
 * between its steps): queues whose keys stay queued with none handed out,
 * producers asleep in add_wait while their queue had room, and SIGUSR1
 * sent to interrupt some waits. After a round: wq's record cache back to
 * the objects in use at the start.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "soak.h"
#include "../wq_test_files.h"

/*
 * Keys queued while nobody takes any for STALL_MS: consumers asleep in
 * their gets with keys queued (a lost wake-up), or stuck elsewhere.
 */
#define STALL_MS	5000

static struct {
	uint64_t gets[MAXQ];
	int64_t since[MAXQ];
	int reported[MAXQ];
	int64_t adding[MAXW], room_since[MAXW];
	int wreported[MAXW];
	pid_t sig[2];		/* processes interrupted with SIGUSR1 */
} mon;

/* A new round: nothing watched yet, nobody to interrupt. */
void monitor_reset(void)
{
	memset(&mon, 0, sizeof(mon));
}

/* The processes whose waits the monitor interrupts (0: none). */
void monitor_signal(pid_t a, pid_t b)
{
	mon.sig[0] = a;
	mon.sig[1] = b;
}

static void monitor(void)
{
	struct wq_stats st;
	int64_t now = now_ms();
	int qi, w;

	for (qi = 0; qi < sh->rd.nq; qi++) {
		struct squeue *q = &sh->rd.q[qi];
		uint64_t gets = atomic_load(&q->c.gets);

		if (atomic_load(&q->ending) || wq_stat(pfd[qi], &st) ||
		    !st.queued || gets != mon.gets[qi] || !mon.since[qi]) {
			mon.gets[qi] = gets;
			mon.since[qi] = now;
			continue;
		}
		if (now - mon.since[qi] < STALL_MS || mon.reported[qi])
			continue;
		mon.reported[qi] = 1;
		fail(F_HANG, "%s: %u keys queued, none handed out for %lld ms (processing %u, waiting %u)",
		     q->name, st.queued, (long long)(now - mon.since[qi]),
		     st.processing, st.waiting);
		for (w = 1; w < MAXW; w++) {
			int64_t a = atomic_load(&sh->rd.w[w].asleep);

			if (a)
				fprintf(stderr, "#   worker %d asleep in a get for %lld ms\n",
					w, (long long)(now - a));
		}
	}
	/* room all along, and a producer asleep in add_wait all along */
	for (w = 1; w < MAXW; w++) {
		int64_t a = atomic_load(&sh->rd.w[w].adding);
		int room;

		qi = atomic_load(&sh->rd.w[w].adding_q);
		if (!a || mon.wreported[w] || qi < 0 || qi >= sh->rd.nq) {
			mon.room_since[w] = 0;
			continue;
		}
		room = !wq_stat(pfd[qi], &st) && st.keys < st.max_items &&
		       !st.shutting_down;
		if (!room || mon.adding[w] != a || !mon.room_since[w]) {
			mon.adding[w] = a;
			mon.room_since[w] = room ? now : 0;
			continue;
		}
		if (now - mon.room_since[w] < STALL_MS)
			continue;
		mon.wreported[w] = 1;
		fail(F_HANG, "%s: worker %d asleep in add_wait for %lld ms, room (%u of %u keys held) for %lld ms",
		     sh->rd.q[qi].name, w, (long long)(now - a), st.keys,
		     st.max_items, (long long)(now - mon.room_since[w]));
	}
	/* interrupt some waits */
	for (w = 0; w < 2; w++)
		if (mon.sig[w] > 0 && chance(30) && !kill(mon.sig[w], SIGUSR1))
			tot.signals++;
}

/* Sleeps until ms after t0, watching the queues. */
void until(int64_t t0, int64_t ms)
{
	int64_t d;

	while ((d = t0 + ms - now_ms()) > 0) {
		sleep_ms(d < 100 ? (int)d : 100);
		monitor();
	}
}

long items0 = -1;		/* wqt_wq_items() at the start */

/* After a round: every record freed (a few tries: frees may trail). */
void check_items(void)
{
	long n = -1;
	int i;

	if (items0 < 0)
		return;
	for (i = 0; i < 20; i++) {
		n = wqt_wq_items();
		if (n == items0)
			return;
		sleep_ms(50);
	}
	fail(F_MEM, "wq_item: %ld objects in use after the round, %ld at the start",
	     n, items0);
}
