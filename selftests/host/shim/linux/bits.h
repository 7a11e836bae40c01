/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim */
#ifndef _SHIM_LINUX_BITS_H
#define _SHIM_LINUX_BITS_H
#define BIT_ULL(n)	(1ULL << (n))
#endif
