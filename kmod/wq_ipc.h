/* SPDX-License-Identifier: GPL-2.0 */
/*
 * IPC namespaces: where names live. Names belong to IPC namespaces, as
 * POSIX message queues' do, and a /dev/wq file belongs to the namespace
 * of the task that opened it, as a socket belongs to the network
 * namespace it was made in: the names its CREATE, OPEN, DESTROY and LIST
 * see are that namespace's, wherever the file is used later. The kernel
 * API's names are the initial namespace's.
 *
 * A namespace's named queues live as long as the namespace, as mqueue's
 * do: a container that restarts in the same pod (the same IPC namespace,
 * held by the pod's sandbox) finds its queues, keys, delays and backoff
 * where its last run left them. A namespace other than the initial one
 * has an entry (struct wq_ipc) from the first /dev/wq file opened in it
 * while it has files open or named queues. The entry holds a reference to
 * the namespace (get_ipc_ns(): its memory, not its being in use), so that
 * its address is not given to another namespace while wq names it.
 *
 * When no task and no nsfs file holds the namespace any more (only wq's
 * reference is left: wq_ipc_ns_unused()), the entry's queues are
 * destroyed and the reference is dropped the way nsfs drops one
 * (wq_ipc_ns_put()): the namespace's own exit path then frees it, its
 * System V objects with it. That is checked when a namespace's last
 * /dev/wq file is closed (a process that exits closes its files after it
 * left its namespaces, so a namespace whose last process was a wq user
 * goes at once), and, while entries without files are left, by a
 * deferrable work every WQ_IPC_REAP_INTERVAL: an idle CPU is not woken
 * for it, and an open of /dev/wq runs it at once (at most once a jiffy).
 * The work runs on system_unbound_wq, as freeing the queues may take a
 * while. Only what kernel.org's
 * kernels export is used. The initial namespace's entry is static and
 * never goes.
 *
 * Locking: wq_ipc_lock (a mutex in wq_ipc.c) protects the table of
 * entries, the list of entries without files and @files; wq_registry_lock
 * (wq_registry.h) protects @queues and @nr_queues; @ns is set before the
 * entry is published and never changes. Order: wq_registry_lock ->
 * wq_ipc_lock (the reap, the walks); an open takes wq_ipc_lock alone,
 * inside the misc devices' mutex (misc_open()).
 */
#ifndef _WQ_IPC_H
#define _WQ_IPC_H

#include <linux/list.h>
#include <linux/types.h>

struct ipc_namespace;
struct user_namespace;

/*
 * How often entries without files are looked at: the time a namespace's
 * queues may outlive it (doc/security.md).
 */
#define WQ_IPC_REAP_INTERVAL	HZ

/**
 * struct wq_ipc - an IPC namespace wq is used in
 * @ns: the namespace, with a reference (NULL in the initial entry)
 * @node: entry in the table of namespaces (wq_ipc_lock)
 * @idle: entry in the list of entries without files (wq_ipc_lock)
 * @queues: its named queues, by kwq.ipc_node (wq_registry_lock)
 * @nr_queues: how many (the limit ns_max_queues: not the initial one)
 *	(wq_registry_lock)
 * @files: /dev/wq files opened in @ns and still open (not counted for the
 *	initial namespace) (wq_ipc_lock)
 */
struct wq_ipc {
	struct ipc_namespace *ns;
	struct hlist_node node;
	struct list_head idle;
	struct list_head queues;
	unsigned int nr_queues;
	unsigned int files;
};

struct wq_ipc *wq_ipc_enter(void);
void wq_ipc_leave(struct wq_ipc *ipc);
void wq_ipc_exit(void);
struct wq_ipc *wq_ipc_kernel(void);
bool wq_ipc_is_initial(const struct wq_ipc *ipc);
struct user_namespace *wq_ipc_user_ns(const struct wq_ipc *ipc);
unsigned int wq_ipc_inum(const struct wq_ipc *ipc);
void wq_ipc_walk_locked(void (*fn)(struct wq_ipc *ipc, void *arg), void *arg);

#endif /* _WQ_IPC_H */
