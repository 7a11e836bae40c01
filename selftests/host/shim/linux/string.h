/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim */
#include <string.h>
