/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test module of wq's kernel API (wq_test_kapi.ko): what its cases
 * share. A case reports a failed check with CHECK()/CHECK_EQ(), a skip by
 * setting kapi_case_skip; wq_test_kapi_main.c runs the cases and prints
 * the KTAP lines.
 */
#ifndef WQ_TEST_KAPI_H
#define WQ_TEST_KAPI_H

#include <linux/printk.h>
#include <linux/types.h>

extern bool kapi_case_failed;
extern const char *kapi_case_skip;	/* the case was skipped: why */

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		pr_err("    # %s:%d: check failed: %s\n", __func__,	\
		       __LINE__, #cond);				\
		kapi_case_failed = true;				\
	}								\
} while (0)

#define CHECK_EQ(want, got) do {					\
	long long _w = (want), _g = (got);				\
	if (_w != _g) {							\
		pr_err("    # %s:%d: %s == %lld, expected %s == %lld\n",\
		       __func__, __LINE__, #got, _g, #want, _w);	\
		kapi_case_failed = true;				\
	}								\
} while (0)

/* Which limiter kapi_private() gives the queue. */
enum kapi_limiter { KAPI_DEFAULT, KAPI_EXP_1MS };

struct kwq;
struct kwq *kapi_private(enum kapi_limiter limiter);
void kapi_check_no_queue(const char *name);
void kapi_failnth(void);
void kapi_priority(void);
void kapi_held(void);

/* fail-nth of this task (wq_test_kapi_failnth.c); works: failslab fires */
void kapi_nth_arm(unsigned int nth);
bool kapi_nth_disarm(void);
bool kapi_nth_works(void);

struct task_struct;
struct task_struct *kapi_start(int (*fn)(void *), void *arg,
			       const char *what, int i);

#endif /* WQ_TEST_KAPI_H */
