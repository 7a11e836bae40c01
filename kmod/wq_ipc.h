/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPC namespaces: where names live. Names belong to IPC namespaces, as
 * POSIX message queues' do, and a /dev/wq file belongs to the namespace
 * of the task that opened it, as a socket belongs to the network
 * namespace it was made in: the names its CREATE, OPEN, DESTROY and LIST
 * see are that namespace's, wherever the file is used later. The kernel
 * API's names are the initial namespace's.
 *
 * A namespace other than the initial one is in wq's registry (a struct
 * wq_ipc) while a /dev/wq file opened in it is open. When the last one is
 * closed, its named queues are destroyed (with it went every handle that
 * could reach them) and the entry goes. While it is there, the entry holds
 * a reference to its namespace (get_ipc_ns(): it keeps the namespace's
 * memory, not its being active, which on 6.19 and later only tasks and
 * nsfs files count), so the namespace cannot be freed and its address
 * given to another while wq still names it; the last file's close drops
 * it the way nsfs does (wq_ipc_ns_put()), and the namespace's own exit
 * path frees it, its System V objects with it, once nothing else holds
 * it. Nothing is
 * polled, no reference count is read, and only what kernel.org's kernels
 * export is used. The initial namespace's entry is static and never goes.
 *
 * Locking: wq_ipc_lock (a mutex in wq_ipc.c) protects the table of
 * entries and @files; wq_registry_lock (wq_registry.h) protects @queues
 * and @nr_queues; @ns is set before the entry is published and never
 * changes. Order: wq_registry_lock -> wq_ipc_lock (the walks); an open
 * takes wq_ipc_lock alone, inside the misc devices' mutex (misc_open()),
 * and a close takes wq_ipc_lock, then, dropped, wq_registry_lock.
 */
#ifndef _WQ_IPC_H
#define _WQ_IPC_H

#include <linux/list.h>
#include <linux/types.h>

struct ipc_namespace;
struct user_namespace;

/**
 * struct wq_ipc - an IPC namespace wq is used in
 * @ns: the namespace, with a reference (NULL in the initial entry)
 * @node: entry in the table of namespaces (wq_ipc_lock)
 * @queues: its named queues, by kwq.ipc_node (wq_registry_lock)
 * @nr_queues: how many (the limit ns_max_queues: not the initial one)
 *	(wq_registry_lock)
 * @files: /dev/wq files opened in @ns and still open (not counted for the
 *	initial namespace) (wq_ipc_lock)
 */
struct wq_ipc {
	struct ipc_namespace *ns;
	struct hlist_node node;
	struct list_head queues;
	unsigned int nr_queues;
	unsigned int files;
};

struct wq_ipc *wq_ipc_enter(void);
void wq_ipc_leave(struct wq_ipc *ipc);
struct wq_ipc *wq_ipc_kernel(void);
bool wq_ipc_is_initial(const struct wq_ipc *ipc);
struct user_namespace *wq_ipc_user_ns(const struct wq_ipc *ipc);
unsigned int wq_ipc_inum(const struct wq_ipc *ipc);
void wq_ipc_walk_locked(void (*fn)(struct wq_ipc *ipc, void *arg), void *arg);

#endif /* _WQ_IPC_H */
