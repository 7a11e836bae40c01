/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the queues, system "kwq" (tracefs events/kwq/, perf trace
 * -e 'kwq:*', trace-cmd record -e kwq). Each record carries the queue's
 * name ("private:ID" for a queue without one) and the key's length and first
 * KWQ_TRACE_KEY bytes (bytes other than printable ASCII as '.'), copied
 * into the record: nothing is dereferenced when the record is printed.
 *
 * They fire under q->lock (wq_queue.h), where the change they report is
 * made, so their order is the queue's order. Disabled, each is a static
 * branch (a NOP); enabled, the copy of 64 + 24 bytes into the ring buffer.
 * Defined by wq_main.c (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kwq

#ifndef _WQ_TRACE_HELPERS
#define _WQ_TRACE_HELPERS

#include <linux/kernel.h>
#include <linux/string.h>

#include "wq_queue.h"

#define KWQ_TRACE_KEY	24	/* key bytes a record keeps */

/* What an add did (kwq_add). */
enum kwq_add_outcome {
	KWQ_TRACE_QUEUED,		/* queued at the tail */
	KWQ_TRACE_COALESCED,	/* queued (or dirty) already: nothing */
	KWQ_TRACE_DIRTY,		/* processing: marked dirty */
};

/* How a queue was shut down (kwq_shutdown). */
enum kwq_shutdown_how {
	KWQ_TRACE_SHUTDOWN,
	KWQ_TRACE_DRAIN,
	KWQ_TRACE_DISCARD,
};

/*
 * A queue's name, or "private:ID" for one without (WQ_CREATE_PRIVATE, or
 * the kernel API's anonymous ones): ':' is in no name, so no queue can
 * pose as a private one.
 */
static inline void kwq_trace_name(char *dst, const struct kwq *q)
{
	if (q->name[0])
		memcpy(dst, q->name, WQ_NAME_MAX);
	else
		snprintf(dst, WQ_NAME_MAX, "private:%llu", q->id);
}

static inline void kwq_trace_key(char *dst, const struct kwq_item *item)
{
	u32 i, n = min_t(u32, item->key.len, KWQ_TRACE_KEY);
	const u8 *k = kwq_key_data(&item->key);

	for (i = 0; i < n; i++)
		dst[i] = (k[i] >= 0x20 && k[i] < 0x7f) ? k[i] : '.';
	/* the whole field: no stale ring-buffer bytes in raw records */
	memset(dst + n, 0, KWQ_TRACE_KEY + 1 - n);
}

/* What every key's record holds: queue, key, length, priority. */
static inline void kwq_trace_item(char *name, char *key, u32 *len, int *prio,
				  const struct kwq *q,
				  const struct kwq_item *item)
{
	kwq_trace_name(name, q);
	kwq_trace_key(key, item);
	*len = item->key.len;
	*prio = q->prio ? item->prio : 0;
}

#endif /* _WQ_TRACE_HELPERS */

#if !defined(_WQ_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WQ_TRACE_H

#include <linux/tracepoint.h>

/* The enums' names for userspace decoders (perf, trace-cmd). */
TRACE_DEFINE_ENUM(KWQ_TRACE_QUEUED);
TRACE_DEFINE_ENUM(KWQ_TRACE_COALESCED);
TRACE_DEFINE_ENUM(KWQ_TRACE_DIRTY);
TRACE_DEFINE_ENUM(KWQ_TRACE_SHUTDOWN);
TRACE_DEFINE_ENUM(KWQ_TRACE_DRAIN);
TRACE_DEFINE_ENUM(KWQ_TRACE_DISCARD);

TRACE_EVENT(kwq_add,
	    TP_PROTO(const struct kwq *q, const struct kwq_item *item, int outcome),
	    TP_ARGS(q, item, outcome),
	    TP_STRUCT__entry(__array(char, name, WQ_NAME_MAX)
			     __array(char, key, KWQ_TRACE_KEY + 1)
			     __field(u32, len)
			     __field(int, outcome)
			     __field(int, prio)),
	    TP_fast_assign(kwq_trace_item(__entry->name, __entry->key,
					  &__entry->len, &__entry->prio, q,
					  item);
			   __entry->outcome = outcome;),
	    TP_printk("queue=%s key=%s len=%u outcome=%s prio=%d",
		      __entry->name, __entry->key, __entry->len,
		      __print_symbolic(__entry->outcome,
				       { KWQ_TRACE_QUEUED, "queued" },
				       { KWQ_TRACE_COALESCED, "coalesced" },
				       { KWQ_TRACE_DIRTY, "dirty" }),
		      __entry->prio)
);

/*
 * The events of one key and a duration (and a number): one class, each
 * with its own text. kwq_get: @ns the time the key was pending;
 * kwq_add_after: @ns the delay; kwq_done: @ns the time it was processed,
 * @n 1 if it is queued again (dirty); kwq_rate_limited: @ns the limiter's
 * delay, @n the key's failures. Each carries the key's priority (0 on a
 * plain queue; kwq_get: the one it is handed out with).
 */
DECLARE_EVENT_CLASS(kwq_key_ns,
		    TP_PROTO(const struct kwq *q, const struct kwq_item *item,
			     u64 ns, u32 n),
		    TP_ARGS(q, item, ns, n),
		    TP_STRUCT__entry(__array(char, name, WQ_NAME_MAX)
				     __array(char, key, KWQ_TRACE_KEY + 1)
				     __field(u32, len)
				     __field(u32, n)
				     __field(int, prio)
				     __field(u64, ns)),
		    TP_fast_assign(kwq_trace_item(__entry->name, __entry->key,
						  &__entry->len,
						  &__entry->prio, q, item);
				   __entry->n = n;
				   __entry->ns = ns;),
		    /* kwq_done's text; the others print their own */
		    TP_printk("queue=%s key=%s len=%u work_ns=%llu requeued=%u",
			      __entry->name, __entry->key, __entry->len,
			      (unsigned long long)__entry->ns, __entry->n)
);

/* An event of class kwq_key_ns with its own text. */
#define DEFINE_KWQ_KEY_NS_EVENT_PRINT(_name, _print)			\
	DEFINE_EVENT_PRINT(kwq_key_ns, _name,				\
			   TP_PROTO(const struct kwq *q,		\
				    const struct kwq_item *item,	\
				    u64 ns, u32 n),			\
			   TP_ARGS(q, item, ns, n), PARAMS(_print))

DEFINE_KWQ_KEY_NS_EVENT_PRINT(kwq_get,
			      TP_printk("queue=%s key=%s len=%u queued_ns=%llu prio=%d",
					__entry->name, __entry->key, __entry->len,
					(unsigned long long)__entry->ns, __entry->prio));

DEFINE_EVENT(kwq_key_ns, kwq_done,
	     TP_PROTO(const struct kwq *q, const struct kwq_item *item,
		      u64 ns, u32 n),
	     TP_ARGS(q, item, ns, n)
);

DEFINE_KWQ_KEY_NS_EVENT_PRINT(kwq_add_after,
			      TP_printk("queue=%s key=%s len=%u delay_ns=%llu",
					__entry->name, __entry->key, __entry->len,
					(unsigned long long)__entry->ns));

DEFINE_KWQ_KEY_NS_EVENT_PRINT(kwq_rate_limited,
			      TP_printk("queue=%s key=%s len=%u delay_ns=%llu failures=%u",
					__entry->name, __entry->key, __entry->len,
					(unsigned long long)__entry->ns, __entry->n));

TRACE_EVENT(kwq_timer_fire,
	    TP_PROTO(const struct kwq *q, unsigned int moved, unsigned int left),
	    TP_ARGS(q, moved, left),
	    TP_STRUCT__entry(__array(char, name, WQ_NAME_MAX)
			     __field(unsigned int, moved)
			     __field(unsigned int, left)),
	    TP_fast_assign(kwq_trace_name(__entry->name, q);
			   __entry->moved = moved;
			   __entry->left = left;),
	    TP_printk("queue=%s moved=%u waiting=%u", __entry->name,
		      __entry->moved, __entry->left)
);

TRACE_EVENT(kwq_shutdown,
	    TP_PROTO(const struct kwq *q, int how),
	    TP_ARGS(q, how),
	    TP_STRUCT__entry(__array(char, name, WQ_NAME_MAX)
			     __field(int, how)
			     __field(unsigned int, queued)
			     __field(unsigned int, processing)
			     __field(unsigned int, waiting)),
	    TP_fast_assign(kwq_trace_name(__entry->name, q);
			   __entry->how = how;
			   __entry->queued = q->nr_queued;
			   __entry->processing = q->nr_processing;
			   __entry->waiting = kwq_heap_len(&q->waiting);),
	    TP_printk("queue=%s how=%s queued=%u processing=%u waiting=%u",
		      __entry->name,
		      __print_symbolic(__entry->how,
				       { KWQ_TRACE_SHUTDOWN, "shutdown" },
				       { KWQ_TRACE_DRAIN, "drain" },
				       { KWQ_TRACE_DISCARD, "discard" }),
		      __entry->queued, __entry->processing, __entry->waiting)
);

#endif /* _WQ_TRACE_H */

/* This part must be outside the multi-read protection. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wq_trace
#include <trace/define_trace.h>
