/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: as the uapi <linux/errno.h> */
#include <asm/errno.h>
