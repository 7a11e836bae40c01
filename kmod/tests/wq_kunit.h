/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites of wq_kunit.ko kept in files of their own, registered with
 * the others by wq_kunit_main.c.
 */
#ifndef _WQ_KUNIT_H
#define _WQ_KUNIT_H

#include <kunit/test.h>

/* wq_kunit_ready.c: the priority levels of the ready keys */
extern struct kunit_suite wq_ready_suite;

#endif /* _WQ_KUNIT_H */
