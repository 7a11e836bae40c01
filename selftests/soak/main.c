// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: the soak test of /dev/wq, run by soak.sh.
 *
 *	wq_soak [-t SECONDS] [-s SEED] [-r ROUNDS] [-x reuse|blind] [-v]
 *
 * Runs rounds of 2 to 10 s each for SECONDS (default 600), or ROUNDS
 * rounds. A round creates one to three named queues (some by uid 1000 in
 * a forked child; a mode, a limiter, 8 to 2048 keys, sometimes a small
 * max_items each) and runs on them at once:
 * - producers (processes; one sometimes as uid 1000, whose handles the
 *   modes allow or refuse): add, add_after (0 to 20 ms, a few 300 ms),
 *   add_rate_limited, forget, num_requeues, add_batch, add_wait, len,
 *   stat, metrics;
 * - consumers (a process of two threads sharing handles, a process of
 *   one, sometimes a third as uid 1000 with read-only handles): get,
 *   get_batch, detached gets, a get into a too small buffer, done,
 *   done_batch, re-adds while processing (dirty keys), gets and dones
 *   through a second handle of their own (a key done by another handle
 *   than the one that got it), that handle closed and opened by name
 *   again (the queue's id, from wq_stat, tells whether the name still
 *   names the round's queue: after a destroy it may be a new queue's,
 *   and such a handle is closed);
 * - where the module takes io_uring commands (WQ_FEATURE_URING), a
 *   producer and a consumer that use them (uring.c): adds of every kind
 *   and batches of adds submitted 1 to 16 at a time, gets and batch gets
 *   kept outstanding (waiting in io_uring's worker threads), dones and
 *   done_batches through the ring or by the ioctl, gets cancelled in
 *   flight, on rings with and without SQPOLL;
 * - SIGUSR1 interrupting a producer's and a consumer's waits (-EINTR);
 * - victims: consumers that take a few keys (some detached) and are
 *   SIGKILLed holding them, asleep in get, add_wait or
 *   shutdown_with_drain on the round's idle queue (full and empty) or in
 *   pause(); the release of their handles puts the keys back, the
 *   detached ones stay processing until the parent's done; the idle queue
 *   is then destroyed and closed with armed delays and a processing key;
 * - a handle passed to another process (SCM_RIGHTS over a unix socket,
 *   or pidfd_getfd() where the kernel has no unix sockets): its sender
 *   took a key and exited, the receiver ends that key, works with the
 *   handle, and closes it holding another key (put back);
 * - a user (uid 1001 or 1002) filling its queue and key budgets until
 *   -EDQUOT, checking that a refused add of any kind changes nothing, that
 *   a done gives room back, and that its usage goes back to 0;
 * - the destroy of a queue in mid-round (its handles keep working), and
 *   sometimes a new queue of the same name while the old one is open
 *   (with -x reuse every round destroys every queue early and makes its
 *   name a new queue while each consumer thread opens its second handle
 *   by name and sends its next get and done through it: the race of a
 *   reopen with a name's reuse, forced; -x blind does the same without
 *   comparing the queue's id, and shows what the comparison prevents:
 *   dones that reach the new queue fail with -ENOENT and the round's
 *   queue keeps those keys processing);
 * and ends each queue with one of: shutdown_with_drain while producers
 * and consumers run, shutdown, shutdown_discard, or a drain in another
 * process cut short by a shutdown or a discard; then destroys it. A
 * quarter of the rounds have one queue whose consumers (and add_wait
 * producers) wait without a timeout, so a lost wake-up shows: a monitor
 * fails a queue whose keys stay queued with no hand-out for 5 s, or a
 * producer asleep in add_wait for 5 s while the queue had room.
 *
 * Book-keeping in shared memory, per key: who holds it (set with a
 * compare-and-swap at get, cleared before done: a failed swap is a key
 * held by two consumers), a sequence number taken before its last add
 * and one taken after its last hand-out. At the end of a round every key
 * whose last add was an immediate one must have been handed out after
 * it, and every key put back by a closing handle handed out again; the
 * exceptions are the documented drops, counted: keys whose last add was
 * delayed (a shutdown drops waiting keys: at most discarded_total of
 * them) and, after a discarding shutdown, at most as many keys as were
 * dropped (plus those whose done or release came after it, as their dirty
 * marks are dropped uncounted). The queue's counters must match what its
 * clients counted: gets, dones, retries, refusals for capacity, keys put
 * back on close, discards; adds_total lies between the gets less the
 * keys put back and the gets. After each round wq's record cache holds
 * as many objects as at the start (/proc/slabinfo).
 *
 * Prints what it did and one TAP line per invariant; exit 0 if all held,
 * 1 otherwise. The seed (from the clock unless -s) is printed first; a
 * seed replays the same choices, not the same timing. Needs root (it
 * switches users and sets the quota parameters, restored at the end).
 *
 * The sources, in selftests/soak/ (built into one program, wq_soak):
 *   soak.h	what the files share: limits, the shared memory's layout (the
 *		round, its queues, the keys' book-keeping, what the clients
 *		counted), the children, the totals, globals and helpers
 *   main.c	the options, the quota parameters, the rounds, the summary
 *		and the TAP lines
 *   round.c	a round: its queues picked, created and opened, its workers
 *		forked, its middle (kills, the passed handle, destroys and
 *		names made again, -x reuse's reopens), its end, its line
 *   util.c	the random choices (per thread), time, failures, small helpers
 *   child.c	worker processes forked, talked to over pipes, waited for
 *   keys.c	the keys; who holds each, when it was last added and handed out
 *   producer.c	the producers
 *   consumer.c	the consumers (threads, second handles, reopens by name)
 *   victim.c	the victims killed holding keys, and the idle queue
 *   pass.c	the handle passed to another process
 *   quota.c	the user filling its budgets
 *   check.c	the end of a queue: shutdown, drain or discard, the sweep,
 *		the checks of its keys and counters, its destroy
 *   watch.c	the monitor of stalls (and SIGUSR1), wq's record cache
 *   uring.c	the io_uring producer and consumer
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "soak.h"
#include "../wq_test_files.h"

struct shared *sh;		/* shared by every process of the run */
unsigned int round_no;
uint64_t seed;
int verbose;
int force_reuse;	/* -x reuse: every round, every queue */
int blind;		/* -x blind: ... and no id compared at a reopen */
struct totals tot;	/* the parent's */

static unsigned long saved_queues, saved_bytes;

static void restore_params(void)
{
	if (saved_queues)
		wqt_param_set("user_max_queues", saved_queues);
	if (saved_bytes)
		wqt_param_set("user_max_key_bytes", saved_bytes);
}

static void usage(void)
{
	fprintf(stderr, "usage: wq_soak [-t SECONDS] [-s SEED] [-r ROUNDS] [-x reuse|blind] [-v]\n");
	exit(2);
}


/* The options; the seed from the clock unless -s gave one. */
static void parse_args(int argc, char **argv, unsigned long *seconds,
		       unsigned long *max_rounds)
{
	int opt;

	while ((opt = getopt(argc, argv, "t:s:r:x:v")) != -1) {
		switch (opt) {
		case 't':
			*seconds = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			*max_rounds = strtoul(optarg, NULL, 0);
			break;
		case 'x':
			blind = !strcmp(optarg, "blind");
			if (strcmp(optarg, "reuse") && !blind)
				usage();
			force_reuse = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
		       (uint64_t)getpid() << 32;
	}
}

/* The TAP header, and what this run is (its seed first). */
static void banner(unsigned long seconds, unsigned long max_rounds)
{
	printf("TAP version 13\n");
	if (force_reuse)
		printf("# wq_soak: -x %s: every queue destroyed in mid-round and its name given to a new queue, every consumer thread opening its second handle by name meanwhile%s\n",
		       blind ? "blind" : "reuse",
		       blind ? ", not comparing the queue's id: failures expected" : "");
	if (max_rounds)
		printf("# wq_soak: seed %llu, %lu rounds\n",
		       (unsigned long long)seed, max_rounds);
	else
		printf("# wq_soak: seed %llu, %lu s\n", (unsigned long long)seed,
		       seconds);
}

/*
 * Root, the device, the shared memory, the quota parameters of the run
 * (restored at exit): 0, or the status to exit with.
 */
static int prepare(void)
{
	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root\n");
		return 4;
	}
	if (access(WQ_DEV_PATH, F_OK)) {
		printf("1..0 # SKIP %s missing (module not loaded)\n", WQ_DEV_PATH);
		return 4;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	umask(0);	/* the modes asked are the modes the queues get */
	saved_queues = wqt_param_get("user_max_queues");
	saved_bytes = wqt_param_get("user_max_key_bytes");
	if (wqt_param_set("user_max_queues", QUOTA_QUEUES) ||
	    wqt_param_set("user_max_key_bytes", QUOTA_BYTES)) {
		fprintf(stderr, "wq_soak: cannot set the quota parameters\n");
		return 1;
	}
	atexit(restore_params);
	uring_probe();
	if (!uring_ok)
		printf("# no io_uring workers: %s\n", uring_why);
	printf("# quotas while running: user_max_queues %u, user_max_key_bytes %lu (were %lu, %lu)\n",
	       QUOTA_QUEUES, QUOTA_BYTES, saved_queues, saved_bytes);
	return 0;
}

/*
 * Rounds of 2 to 10 s from start until SECONDS are up (the last one
 * shorter, a second left for the end), or max_rounds of them.
 */
static void run_rounds(int64_t start, unsigned long seconds,
		       unsigned long max_rounds)
{
	int64_t end = start + (int64_t)seconds * 1000;

	for (round_no = 1; !max_rounds || round_no <= max_rounds; round_no++) {
		int64_t left = end - now_ms() - 1000;	/* a second for the end */
		unsigned int t;

		seed_rng(7);
		t = 2000 + rn(8000);
		if (max_rounds == 0 && left < 1500)
			break;
		if (max_rounds == 0 && (int64_t)t > left)
			t = (unsigned int)left;
		run_round((int)t);
	}
}

/* What the rounds did, in all. */
static void summary(int64_t start)
{
	printf("# %u rounds in %.0f s (%u with consumers waiting without timeouts), seed %llu: %u queues (%u created by uid %d, %u destroyed in mid-round), %llu calls\n",
	       tot.rounds, (double)(now_ms() - start) / 1000, tot.patient,
	       (unsigned long long)seed, tot.queues, tot.unpriv_queues, UID_OWNER,
	       tot.early, (unsigned long long)atomic_load(&sh->calls));
	printf("# keys: %llu added (%llu add_after, %llu add_rate_limited, %llu with a delay), %llu handed out, %llu done, %llu batch calls\n",
	       (unsigned long long)(tot.adds + tot.afters + tot.rls),
	       (unsigned long long)tot.afters, (unsigned long long)tot.rls,
	       (unsigned long long)tot.delayed, (unsigned long long)tot.gets,
	       (unsigned long long)tot.dones, (unsigned long long)tot.batches);
	printf("# interrupted: %llu SIGUSR1 sent, %llu calls returned -EINTR\n",
	       (unsigned long long)tot.signals, (unsigned long long)tot.intr);
	printf("# refused: %llu -EAGAIN (max_items), %llu add_wait -ETIMEDOUT, %llu -ESHUTDOWN after a shutdown, %llu -EDQUOT on uid %d's queues\n",
	       (unsigned long long)tot.refused, (unsigned long long)tot.timedout,
	       (unsigned long long)tot.shut, (unsigned long long)tot.dquot,
	       UID_OWNER);
	printf("# kills: %u consumers SIGKILLed holding keys (%u in get, %u in add_wait, %u in shutdown_with_drain, %u in pause), %llu keys put back by closing handles, %u detached keys done by another handle after the kill\n",
	       tot.kills, tot.blocked[BLOCK_GET], tot.blocked[BLOCK_ADD],
	       tot.blocked[BLOCK_DRAIN], tot.blocked[BLOCK_NONE],
	       (unsigned long long)tot.back, tot.detached);
	printf("# handles: %u passed over unix sockets, %u with pidfd_getfd; %llu keys done by another handle than the one that got them; %llu opened again by name found a new queue under it (its id), %u of them asked to (-x reuse)\n",
	       tot.passed_scm, tot.passed, (unsigned long long)tot.cross,
	       (unsigned long long)atomic_load(&sh->relanded), tot.reopens);
	printf("# ends: %u drains, %u shutdowns, %u discards, %u drains cut by a shutdown or (%u) a discard (%u -ECANCELED); %llu keys dropped by discards (%llu more excused), %llu delayed keys by shutdowns; %u destroys (%u names created again while the old queue was open, %u of them with a consumer's open of the name in flight)\n",
	       tot.ends[END_DRAIN], tot.ends[END_SHUTDOWN], tot.ends[END_DISCARD],
	       tot.ends[END_CANCEL], tot.cut_discard, tot.cancelled,
	       (unsigned long long)tot.discarded, (unsigned long long)tot.excused,
	       (unsigned long long)tot.dropped_delayed, tot.destroys, tot.reused,
	       tot.reuse_seen);
	printf("# io_uring: %llu keys added, %llu keys got, %llu gets cancelled (%llu completed -ECANCELED)\n",
	       (unsigned long long)atomic_load(&sh->ur_adds),
	       (unsigned long long)atomic_load(&sh->ur_gets),
	       (unsigned long long)atomic_load(&sh->ur_cancels),
	       (unsigned long long)atomic_load(&sh->ur_cancelled));
	printf("# quotas: %llu -EDQUOT hits by uids %d and %d (%llu keys added before the key budget ran out)\n",
	       (unsigned long long)atomic_load(&sh->edquot), UID_QUOTA, UID_QUOTA + 1,
	       (unsigned long long)atomic_load(&sh->quota_keys));
}

#define TAP(n, cat, ...) do {						\
	printf("%sok %d ", atomic_load(&sh->fails[cat]) ? "not " : "", n); \
	printf(__VA_ARGS__);						\
	if (atomic_load(&sh->fails[cat]))				\
		printf(" (%llu failures)",				\
		       (unsigned long long)atomic_load(&sh->fails[cat])); \
	printf("\n");							\
} while (0)

/* One TAP line per invariant: ok where it held in every round. */
static void tap_lines(void)
{
	TAP(1, F_DOUBLE, "no key held by two consumers at once (%llu hand-outs)",
	    (unsigned long long)tot.gets);
	TAP(2, F_LOST, "every key added before a shutdown handed out after its last add");
	TAP(3, F_KILL, "keys of SIGKILLed consumers and closed handles came back (%u kills, %llu keys)",
	    tot.kills, (unsigned long long)tot.back);
	TAP(4, F_PASS, "handles passed to another process work there (%u by SCM_RIGHTS, %u by pidfd_getfd)",
	    tot.passed_scm, tot.passed);
	TAP(5, F_COUNT, "queue counters match what the clients counted (%u queues)",
	    tot.queues);
	TAP(6, F_END, "shutdowns, drains, discards and destroys as documented");
	TAP(7, F_QUOTA, "unprivileged users hit their quotas (%llu -EDQUOT), usage back to 0",
	    (unsigned long long)atomic_load(&sh->edquot));
	TAP(8, F_RESULT, "every call returned a documented result (%llu calls)",
	    (unsigned long long)atomic_load(&sh->calls));
	TAP(9, F_HANG, "every process finished in time, no queue stalled");
	TAP(10, F_MEM, "wq's record cache back to %ld objects in use after every round",
	    items0);
	if (!uring_ok)
		printf("ok 11 io_uring producers and consumers # SKIP %s\n",
		       uring_why);
	else
		TAP(11, F_URING, "io_uring producers and consumers (%llu keys added, %llu got)",
		    (unsigned long long)atomic_load(&sh->ur_adds),
		    (unsigned long long)atomic_load(&sh->ur_gets));
	printf("1..11\n");
}

int main(int argc, char **argv)
{
	unsigned long seconds = 600, max_rounds = 0;
	uint64_t nfail;
	int64_t start;
	int r;

	parse_args(argc, argv, &seconds, &max_rounds);
	setvbuf(stdout, NULL, _IOLBF, 0);
	self_id = PARENT_ID;
	banner(seconds, max_rounds);
	r = prepare();
	if (r)
		return r;

	items0 = wqt_wq_items();
	if (items0 < 0)
		printf("# no wq_item in /proc/slabinfo: records are not counted\n");
	start = now_ms();
	run_rounds(start, seconds, max_rounds);

	/* io_uring's workers took part: keys went through their rings */
	if (uring_ok && tot.rounds && (!atomic_load(&sh->ur_adds) ||
				       !atomic_load(&sh->ur_gets)))
		fail(F_URING, "%llu keys added and %llu got through io_uring in %u rounds",
		     (unsigned long long)atomic_load(&sh->ur_adds),
		     (unsigned long long)atomic_load(&sh->ur_gets), tot.rounds);
	nfail = fail_count();
	summary(start);
	tap_lines();
	if (!tot.rounds) {
		printf("# no round ran\n");
		return 1;
	}
	return nfail ? 1 : 0;
}
