/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's parameters (defined, with their descriptions, in
 * wq_main.c). Root may change them at run time through
 * /sys/module/wq/parameters/; readers take a READ_ONCE() snapshot.
 */
#ifndef _WQ_MAIN_H
#define _WQ_MAIN_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/types.h>

extern unsigned int wq_max_queues;
extern unsigned int wq_ns_max_queues;
extern unsigned int wq_default_max_items;
extern unsigned int wq_max_items_limit;
extern unsigned int wq_default_max_tracked;
extern unsigned int wq_user_max_queues;
extern unsigned long wq_user_max_key_bytes;
extern unsigned int wq_kernel_max_queues;
extern unsigned long wq_kernel_max_key_bytes;
extern unsigned int wq_unpriv_max_items;
extern unsigned int wq_unpriv_max_tracked;

/*
 * No max_items (nor max_tracked) above this; max_items_limit and
 * default_max_items refuse more (wq_set_items()). The records of the
 * largest queue (held and idle, twice this) are two a bucket of the key
 * table at its largest, so its chains stay short (wq_keytab.h).
 */
#define WQ_MAX_ITEMS_CEILING	BIT(20)

/* The largest max_items (and max_tracked) accepted now. */
static inline u32 wq_items_limit(void)
{
	return min_t(u32, READ_ONCE(wq_max_items_limit), WQ_MAX_ITEMS_CEILING);
}

/* What 0 asks for: the default @def, within @ceil and @limit. */
static inline u32 wq_items_default(const unsigned int *def, u32 ceil,
				   u32 limit)
{
	return min3(READ_ONCE(*def), ceil, limit);
}

#endif /* _WQ_MAIN_H */
