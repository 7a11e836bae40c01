// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI as the C compiler sees uapi/linux/wq.h, for the Go packages'
 * layout test (go/internal/kq/layout_test.go): "struct NAME SIZE",
 * "field NAME.FIELD OFFSET", "ioc NAME NUMBER" and "const NAME VALUE"
 * lines. A union member is printed under the Go field that carries it
 * (A, B). Built and run by `make go` (build/selftests/go_layout.txt).
 */
#include <stddef.h>
#include <stdio.h>

#include "uapi/linux/wq.h"

#define S(s)		printf("struct %s %zu\n", #s, sizeof(struct s))
#define F(s, f)		printf("field %s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define FA(s, f, as)	printf("field %s.%s %zu\n", #s, as, offsetof(struct s, f))
#define IOC(c)		printf("ioc %s %lu\n", #c, (unsigned long)(c))
#define C(c)		printf("const %s %lld\n", #c, (long long)(c))

static void structs(void)
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
	F(wq_create, starve_ns);
	S(wq_name);
	F(wq_name, flags); F(wq_name, reserved); F(wq_name, name);
	S(wq_add);
	F(wq_add, flags); F(wq_add, key_len); F(wq_add, key);
	F(wq_add, delay_ns); F(wq_add, deadline_ns); F(wq_add, outcome);
	F(wq_add, priority);
	S(wq_get);
	F(wq_get, flags); F(wq_get, key_len); F(wq_get, buf);
	F(wq_get, buf_cap); F(wq_get, priority); F(wq_get, deadline_ns);
	S(wq_key);
	F(wq_key, flags); F(wq_key, key_len); F(wq_key, key); F(wq_key, value);
	S(wq_key_info);
	F(wq_key_info, flags); F(wq_key_info, key_len); F(wq_key_info, key);
	F(wq_key_info, state); F(wq_key_info, priority);
	F(wq_key_info, ready_ns); F(wq_key_info, requeues);
	F(wq_key_info, reserved);
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
}

static void commands(void)
{
	IOC(WQ_IOC_MODULE_INFO); IOC(WQ_IOC_CREATE); IOC(WQ_IOC_OPEN);
	IOC(WQ_IOC_DESTROY); IOC(WQ_IOC_ADD); IOC(WQ_IOC_GET); IOC(WQ_IOC_DONE);
	IOC(WQ_IOC_SHUTDOWN); IOC(WQ_IOC_STAT); IOC(WQ_IOC_FORGET);
	IOC(WQ_IOC_NUM_REQUEUES); IOC(WQ_IOC_KEY_STATE); IOC(WQ_IOC_CANCEL_AFTER);
}

static void constants(void)
{
	C(WQ_KEY_MAX); C(WQ_NAME_MAX); C(WQ_LIMITER_TERMS_MAX);
	C(WQ_LIMITER_EXPONENTIAL); C(WQ_LIMITER_BUCKET);
	C(WQ_LIMITER_FASTSLOW); C(WQ_LIMITER_MAXWAIT);
	C(WQ_CREATE_PRIVATE); C(WQ_CREATE_PRIORITY);
	C(WQ_ADD_RATE_LIMITED); C(WQ_ADD_AFTER); C(WQ_ADD_PRIORITY);
	C(WQ_ADDED_QUEUED); C(WQ_ADDED_COALESCED); C(WQ_ADDED_DIRTY);
	C(WQ_ADDED_WAITING); C(WQ_ADDED_KEPT);
	C(WQ_GET_NONBLOCK); C(WQ_KEY_RESULT_STATE);
	C(WQ_KEY_QUEUED); C(WQ_KEY_PROCESSING); C(WQ_KEY_DIRTY);
	C(WQ_KEY_WAITING); C(WQ_KEY_TRACKED);
	C(WQ_SHUTDOWN_DRAIN); C(WQ_SHUTDOWN_DISCARD);
	C(WQ_STATE_SHUTTING_DOWN);
	C(WQ_FEATURE_ADD_OUTCOME); C(WQ_FEATURE_KEY_STATE);
	C(WQ_FEATURE_PRIORITY); C(WQ_FEATURE_KEY_CALLS);
}

int main(void)
{
	structs();
	commands();
	constants();
	return 0;
}
