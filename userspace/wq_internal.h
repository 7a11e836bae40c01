/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libwq internals shared between its files. Not installed. */
#ifndef LIBWQ_INTERNAL_H
#define LIBWQ_INTERNAL_H

#include <stddef.h>

#include "../uapi/linux/wq.h"

/* Rate-limiter spec text <-> the ABI's fixed-width description. */
int wq_limiter_parse(const char *spec, struct wq_limiter *lim);
int wq_limiter_format(const struct wq_limiter *lim, char *buf, size_t cap);

#endif /* LIBWQ_INTERNAL_H */
