/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq selftests: slab allocations failed on purpose, for the fixtures of
 * the fail-nth tests (wq_test_failnth.h) and of spare_test.c.
 *
 * Writing N to /proc/thread-self/fail-nth makes the Nth should_fail() of
 * this thread fail (lib/fault-inject.c, checked before failslab's
 * probability and task filter); reading it back gives what is left: 0 if
 * the fault fired, non-zero if no Nth allocation came. failslab skips
 * allocations that may sleep while its ignore-gfp-wait is Y (the
 * default), so a fixture sets it to N, verbose to 0 (a fault would
 * otherwise print a stack trace, which the debug lane counts as a kernel
 * problem), probability to 0 and cache-filter to N, and restores them
 * afterwards (each injection uses up one of "times", so it is put back
 * too).
 *
 * In a FIXTURE_SETUP: wqt_failslab_init(), then (after the fixture's own
 * skips) wqt_failslab_required(), the fixture's skip where fail-nth or
 * failslab is missing, and wqt_failslab_set(). In its FIXTURE_TEARDOWN:
 * wqt_failslab_close_nth() first, wqt_failslab_restore() last.
 */
#ifndef WQ_TEST_FAILSLAB_H
#define WQ_TEST_FAILSLAB_H

#include "wq_test_util.h"
#include "wq_test_files.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAILPAGE	"/sys/kernel/debug/fail_page_alloc/"
#define FAIL_NTH	"/proc/thread-self/fail-nth"

/* failslab's knobs, and the value a test wants in each */
static const char *const knob_names[] = {
	"ignore-gfp-wait", "verbose", "probability", "cache-filter", "times",
};
static const char *const knob_values[] = { "N", "0", "0", "N", "-1" };

#define NKNOBS	ARRAY_SIZE(knob_names)

/*
 * fail_page_alloc's, for a test whose allocation is a page allocator's
 * (kvmalloc() above 8 KiB): orders below 2, page faults among them, are
 * left alone.
 */
static const char *const page_knob_names[] = {
	"ignore-gfp-wait", "min-order", "verbose", "probability", "times",
};
static const char *const page_knob_values[] = { "N", "2", "0", "0", "-1" };

#define NPAGEKNOBS	ARRAY_SIZE(page_knob_names)

struct wqt_failslab {
	int nth_fd;			/* FAIL_NTH, opened once */
	char saved[NKNOBS][64];		/* the knobs' values to restore */
	bool knobs_set[NKNOBS];
	char page_saved[NPAGEKNOBS][64];	/* fail_page_alloc's, likewise */
	bool page_set[NPAGEKNOBS];
};

/* Nothing set, nothing open: what the teardown may always undo. */
static inline void wqt_failslab_init(struct wqt_failslab *fs)
{
	fs->nth_fd = -1;
	memset(fs->knobs_set, 0, sizeof(fs->knobs_set));
	memset(fs->page_set, 0, sizeof(fs->page_set));
}

/* The debug lane (WQ_DEBUG_LANE=1) must run these tests, not skip them. */
static inline void wqt_failslab_required(struct __test_metadata *_metadata)
{
	if (getenv("WQ_DEBUG_LANE"))
		ASSERT_EQ(0, access(FAIL_NTH, W_OK) |
			     access(FAILSLAB "ignore-gfp-wait", W_OK))
			TH_LOG("no fail-nth or failslab on the debug lane");
}

/* Sets failslab's knobs (their values saved) and opens fail-nth. */
static inline void wqt_failslab_set(struct __test_metadata *_metadata,
				    struct wqt_failslab *fs)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++) {
		char path[128];

		snprintf(path, sizeof(path), FAILSLAB "%s", knob_names[i]);
		ASSERT_EQ(0, wqt_read_file(path, fs->saved[i],
				      sizeof(fs->saved[i]))) TH_LOG("%s", path);
		ASSERT_EQ(0, wqt_write_file(path, knob_values[i])) TH_LOG("%s", path);
		fs->knobs_set[i] = true;
	}
	fs->nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fs->nth_fd);
}

/*
 * Also page allocations of order 2 and up fail at fail-nth's count
 * (fail_page_alloc's knobs set, their values saved); required on the
 * debug lane, a skip elsewhere without CONFIG_FAIL_PAGE_ALLOC.
 */
static inline void wqt_failpage_set(struct __test_metadata *_metadata,
				    struct wqt_failslab *fs)
{
	size_t i;

	if (access(FAILPAGE "min-order", W_OK)) {
		ASSERT_EQ(NULL, getenv("WQ_DEBUG_LANE"))
			TH_LOG("no fail_page_alloc on the debug lane");
		SKIP(return, "no fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC)");
	}
	for (i = 0; i < NPAGEKNOBS; i++) {
		char path[128];

		snprintf(path, sizeof(path), FAILPAGE "%s", page_knob_names[i]);
		ASSERT_EQ(0, wqt_read_file(path, fs->page_saved[i],
				      sizeof(fs->page_saved[i]))) TH_LOG("%s", path);
		ASSERT_EQ(0, wqt_write_file(path, page_knob_values[i]))
			TH_LOG("%s", path);
		fs->page_set[i] = true;
	}
}

/* Disarms fail-nth and closes it. */
static inline void wqt_failslab_close_nth(struct wqt_failslab *fs)
{
	if (fs->nth_fd >= 0) {
		(void)!pwrite(fs->nth_fd, "0", 1, 0);
		close(fs->nth_fd);
	}
}

/* Puts back the knobs wqt_failslab_set() and wqt_failpage_set() set. */
static inline void wqt_failslab_restore(struct wqt_failslab *fs)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++) {
		char path[128];

		if (!fs->knobs_set[i])
			continue;
		snprintf(path, sizeof(path), FAILSLAB "%s", knob_names[i]);
		wqt_write_file(path, fs->saved[i]);
	}
	for (i = 0; i < NPAGEKNOBS; i++) {
		char path[128];

		if (!fs->page_set[i])
			continue;
		snprintf(path, sizeof(path), FAILPAGE "%s", page_knob_names[i]);
		wqt_write_file(path, fs->page_saved[i]);
	}
}

#endif /* WQ_TEST_FAILSLAB_H */
