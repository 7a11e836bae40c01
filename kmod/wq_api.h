/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel API's files share: wq_api.c (the queue, client-go's
 * calls), wq_api_key.c (priorities, what an add did, a key's state,
 * cancelling a delay) and wq_api_held.c (the worker's get and done by
 * handle). The API itself is <wq/kwq.h>.
 */
#ifndef _WQ_API_H
#define _WQ_API_H

#include "wq_queue.h"

int kwq_check_key(const void *key, size_t len);
ssize_t kwq_get_common(struct kwq *q, void *buf, size_t cap,
		       ktime_t deadline, unsigned int flags, s32 *prio);

#endif /* _WQ_API_H */
