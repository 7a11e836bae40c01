/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: min/max as the kernel has them (no double evaluation). */
#ifndef _SHIM_LINUX_KERNEL_H
#define _SHIM_LINUX_KERNEL_H
#include <linux/types.h>
#define U32_MAX		UINT32_MAX
#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b)	min((t)(a), (t)(b))
#endif
