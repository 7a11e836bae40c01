/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim */
#ifndef _SHIM_LINUX_KTIME_H
#define _SHIM_LINUX_KTIME_H
#include <linux/types.h>
#define KTIME_MAX	INT64_MAX
#define KTIME_MIN	INT64_MIN
#endif
