/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wq_fuzz: what uring.c (the rings, submissions, completions, cancels,
 * teardowns) and uring_cmds.c (the commands built, their results
 * checked) share. A thread's commands in flight each own a slot: its
 * struct as sent and an arena of its own, so that nothing else writes
 * where the kernel may still read or write until the completion.
 */
#ifndef WQ_FUZZ_URING_H
#define WQ_FUZZ_URING_H

#include <liburing.h>

#include "fuzz.h"

#define USLOTS		8	/* commands in flight, a thread */
#define UPAGES		6	/* a slot's arena, and a PROT_NONE page after it */
#define URING_FD	900	/* a thread's rings: URING_FD + 2 * tidx + 0, 1 */
#define IDLE_FD		940	/* a thread's idle queue: IDLE_FD + tidx */

/* The rows of uring.c's table (struct shared's useen, ulive) */
enum {
	UR_ADD, UR_GET, UR_DONE, UR_ADD_BATCH, UR_GET_BATCH, UR_DONE_BATCH,
	UR_OTHER,	/* a cmd_op that is no io_uring command of wq */
	UR_CANCEL,	/* IORING_OP_ASYNC_CANCEL */
	UR_PLAIN,	/* a command in a ring without SQE128 */
	UR_ROWS
};

/*
 * What the fd of a command is: /dev/wq; /dev/null (whose uring_cmd takes
 * any command: 0); a file without uring_cmd (a ring); none
 */
enum { FK_WQ, FK_NULL, FK_OTHER, FK_BAD };

struct uslot {
	int busy;		/* in flight on the thread's ring */
	uint32_t gen;		/* user_data: gen << 8 | slot index */
	unsigned int row;	/* UR_* */
	unsigned int cmd_op;
	int live;		/* a live command (else hostile) */
	int clean;		/* its struct well formed and whole */
	int odd;		/* SQE fields other than the command's mangled */
	int slot;		/* index in fds[] of its fd, or -1 */
	int fk;			/* FK_* */
	int fd;
	union {
		struct wq_add add;
		struct wq_get get;
		struct wq_key key;
		struct wq_batch batch;
		unsigned char raw[WQ_URING_CMD_MAX];
	} s;			/* the command area, as sent */
	unsigned char *mem[2];	/* its arenas: one in use, one resting */
	int cur;		/* mem[cur] is in use */
};

/* uring.c */
unsigned char *uslot_mem(const struct uslot *u);
void uarena_enter(const struct uslot *u);
void uarena_leave(void);
int uring_fd_of(int *fk);

/* uring_cmds.c: a command built into u and its SQE; its completion */
void ucmd_live(struct uslot *u, struct io_uring_sqe *sqe);
void ucmd_hostile(struct uslot *u, struct io_uring_sqe *sqe);
void ucmd_plain(struct uslot *u, struct io_uring_sqe *sqe);
void ucmd_idle_get(struct uslot *u, struct io_uring_sqe *sqe, int fd);
void ucmd_done(struct uslot *u, int res);
int uring_row_of(unsigned int cmd_op);
extern int uring_links;
int uring_links_probe(void);

#endif /* WQ_FUZZ_URING_H */
