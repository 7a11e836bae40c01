/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel version differences, all in one place (6.1 through 6.12 and the
 * known changes after it) that <wq/kwq.h> needs; the module's private ones
 * are in kmod/wq_compat.h. Nothing else in wq tests LINUX_VERSION_CODE.
 */
#ifndef _WQ_COMPAT_H
#define _WQ_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/version.h>

/* 6.13 made the symbol namespace of EXPORT_SYMBOL_NS* a string literal. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define WQ_NS "WQ"
#else
#define WQ_NS WQ
#endif

/* 6.13 added hrtimer_setup(); 6.15 removed hrtimer_init(). */
static inline void wq_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#endif /* _WQ_COMPAT_H */
