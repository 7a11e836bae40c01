// SPDX-License-Identifier: GPL-2.0
/*
 * The layout of the ABI's structs as the C compiler lays them out, for the
 * Go package's test (go/workqueue/wq_host_test.go): "struct NAME SIZE" and
 * "field NAME.FIELD OFFSET" lines. A union member is printed under the
 * Go field that carries it (A, B).
 */
#include <stddef.h>
#include <stdio.h>

#include "uapi/linux/wq.h"

#define S(s)		printf("struct %s %zu\n", #s, sizeof(struct s))
#define F(s, f)		printf("field %s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define FA(s, f, as)	printf("field %s.%s %zu\n", #s, as, offsetof(struct s, f))

int main(void)
{
	S(wq_limiter_term);
	F(wq_limiter_term, kind); F(wq_limiter_term, count);
	FA(wq_limiter_term, exponential.base_ns, "a");
	FA(wq_limiter_term, exponential.max_ns, "b");
	FA(wq_limiter_term, bucket.rate, "a");
	FA(wq_limiter_term, bucket.burst, "b");
	FA(wq_limiter_term, fastslow.fast_ns, "a");
	FA(wq_limiter_term, maxwait.max_ns, "a");
	S(wq_limiter);
	F(wq_limiter, nr_terms); F(wq_limiter, reserved); F(wq_limiter, terms);
	S(wq_create);
	F(wq_create, flags); F(wq_create, max_items); F(wq_create, mode);
	F(wq_create, max_tracked); F(wq_create, name); F(wq_create, limiter);
	S(wq_name);
	F(wq_name, flags); F(wq_name, reserved); F(wq_name, name);
	S(wq_add);
	F(wq_add, flags); F(wq_add, key_len); F(wq_add, key);
	F(wq_add, delay_ns); F(wq_add, deadline_ns); F(wq_add, outcome);
	F(wq_add, reserved);
	S(wq_get);
	F(wq_get, flags); F(wq_get, key_len); F(wq_get, buf);
	F(wq_get, buf_cap); F(wq_get, reserved); F(wq_get, deadline_ns);
	S(wq_key);
	F(wq_key, flags); F(wq_key, key_len); F(wq_key, key); F(wq_key, value);
	S(wq_shutdown);
	F(wq_shutdown, flags); F(wq_shutdown, reserved); F(wq_shutdown, deadline_ns);
	S(wq_queue_info);
	F(wq_queue_info, name); F(wq_queue_info, state); F(wq_queue_info, max_items);
	F(wq_queue_info, queued); F(wq_queue_info, processing);
	F(wq_queue_info, waiting); F(wq_queue_info, dirty); F(wq_queue_info, keys);
	F(wq_queue_info, tracked); F(wq_queue_info, uid); F(wq_queue_info, gid);
	F(wq_queue_info, mode); F(wq_queue_info, handles); F(wq_queue_info, adds);
	F(wq_queue_info, retries); F(wq_queue_info, limiter);
	F(wq_queue_info, max_tracked); F(wq_queue_info, reserved);
	F(wq_queue_info, evicted); F(wq_queue_info, id);
	S(wq_module_info);
	F(wq_module_info, abi_version); F(wq_module_info, key_max);
	F(wq_module_info, max_queues); F(wq_module_info, max_items_limit);
	F(wq_module_info, unpriv_max_items); F(wq_module_info, user_queues);
	F(wq_module_info, create_flags); F(wq_module_info, user_key_bytes);
	F(wq_module_info, batch_max); F(wq_module_info, features);
	return 0;
}
