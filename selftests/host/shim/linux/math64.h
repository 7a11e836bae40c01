/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: the kernel's 64-bit helpers, exact. */
#ifndef _SHIM_LINUX_MATH64_H
#define _SHIM_LINUX_MATH64_H
#include <linux/types.h>
static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}
#endif
