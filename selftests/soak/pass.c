// SPDX-License-Identifier: GPL-2.0
/*
 * wq_soak: a handle passed to another process. Its sender (the passer)
 * takes a key and exits holding it; the receiver ends that key through
 * the handle, adds through it, and closes it holding another key (put
 * back by the close).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "soak.h"

/*
 * Over a unix socket (SCM_RIGHTS) where the kernel has them, else (the
 * debug kernel has no networking) with pidfd_getfd(): the receiver takes
 * the sender's descriptor. Either way the receiver ends up with the
 * sender's open file, the sender closes its descriptor and exits, and
 * the key it took stays processing in the receiver's file.
 */
struct passmsg {
	int32_t idx;	/* the key the sender holds, or -1 */
	uint32_t qi;
	int32_t pid;	/* the sender */
	int32_t fd;	/* its descriptor (pidfd_getfd) */
};

static int pass_chan[2] = { -1, -1 };	/* sender -> receiver ([1] -> [0]) */
static int pass_ack[2] = { -1, -1 };	/* receiver -> sender ([1] -> [0]) */
int pass_scm;				/* pass_chan is a unix socket */
static uint32_t passer_id;

/*
 * The round's channel, set up by the parent before it forks the passer
 * (worker id passer) and the receiver: SCM_RIGHTS and pidfd_getfd in turn
 * (the first where it works).
 */
void pass_open(uint32_t passer)
{
	passer_id = passer;
	pass_scm = round_no % 2 && !socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					       0, pass_chan);
	if ((!pass_scm && pipe2(pass_chan, O_CLOEXEC)) || pipe2(pass_ack, O_CLOEXEC)) {
		fprintf(stderr, "wq_soak: pipe: %s\n", strerror(errno));
		exit(1);
	}
}

/* Once both are forked: the channel is theirs. */
void pass_close(void)
{
	close(pass_chan[0]);
	close(pass_chan[1]);
	close(pass_ack[0]);
	close(pass_ack[1]);
}

static int send_msg(int sock, int fd, const struct passmsg *m)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { (void *)m, sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;

	if (!pass_scm)
		return write(sock, m, sizeof(*m)) == sizeof(*m) ? 0 : -EIO;
	memset(cbuf, 0, sizeof(cbuf));
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == sizeof(*m) ? 0 : -errno;
}

/* The passed handle as a descriptor of ours, or -errno. */
static int recv_msg(int sock, struct passmsg *m, int *pidfd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	int fd = -1;

	if (pass_scm) {
		struct cmsghdr *cm;

		if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(*m))
			return -EIO;
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm || cm->cmsg_type != SCM_RIGHTS)
			return -EBADMSG;
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	} else if (read(sock, m, sizeof(*m)) != sizeof(*m)) {
		return -EIO;
	}
	*pidfd = (int)syscall(SYS_pidfd_open, m->pid, 0);
	if (*pidfd < 0)
		return -errno;
	if (!pass_scm) {
		fd = (int)syscall(SYS_pidfd_getfd, *pidfd, m->fd, 0);
		if (fd < 0)
			return -errno;
	}
	return fd;
}

/* Takes a key, passes its handle to the receiver, exits holding it. */
int passer_main(struct child *c)
{
	struct squeue *q = &sh->rd.q[c->qi];
	char buf[WQ_KEY_MAX];
	struct passmsg m = { -1, (uint32_t)c->qi, (int32_t)getpid(), -1 };
	uint32_t go;
	ssize_t r;
	int fd;

	close(pass_chan[0]);
	close(pass_ack[1]);
	fd = wq_open(q->name);
	call();
	if (fd < 0) {
		fail(F_PASS, "passer: open %s: %s", q->name, err_name(fd));
		return 1;
	}
	m.fd = fd;
	ready(c);
	if (recv_u32(c->to[0], &go, -1))
		return 1;
	r = wq_get(fd, buf, sizeof(buf), 500);
	call();
	if (r > 0) {
		m.idx = key_index(buf, (size_t)r, (unsigned int)c->qi);
		if (m.idx < 0)
			fail(F_RESULT, "%s handed out a key that is not ours", q->name);
		else
			take(q, (unsigned int)m.idx);
	} else if (r != -ETIMEDOUT) {
		fail(F_PASS, "passer: get %s: %s", q->name, err_name((int)r));
	}
	r = send_msg(pass_chan[1], fd, &m);
	if (r)
		fail(F_PASS, "passer: send: %s", err_name((int)r));
	if (pass_scm)
		close(fd);	/* the handle in flight holds the file */
	if (recv_u32(pass_ack[0], &go, 30000))
		fail(F_PASS, "passer: no word from the receiver");
	close(fd);
	/* the key stays processing: the receiver has the open file */
	atomic_store(&sh->rd.w[c->id].state, W_EXITED);
	return 0;
}


/* The key the handle's sender took: now the receiver's, done through it. */
static void done_senders_key(struct child *c, struct squeue *q,
			     const struct passmsg *m, int fd)
{
	char key[WQ_KEY_MAX];
	unsigned int i = (unsigned int)m->idx;
	uint32_t cur = passer_id;
	size_t len;
	ssize_t r;

	if (!atomic_compare_exchange_strong(&q->key[i].holder, &cur, c->id))
		fail(F_PASS, "%s key %u of the handle's sender held by %u",
		     q->name, i, cur);
	len = make_key(key, m->qi, i);
	release(q, i);
	r = wq_done(fd, key, len);
	call();
	if (r)
		fail(F_PASS, "receiver: done %s key %u: %s", q->name, i,
		     err_name((int)r));
	else
		atomic_fetch_add(&q->c.dones, 1);
	after_done(q, i);
}

/* Three adds through the passed handle. */
static void add_some(struct squeue *q, unsigned int qi, int fd)
{
	char key[WQ_KEY_MAX];
	unsigned int i;
	size_t len;
	ssize_t r;
	int k;

	for (k = 0; k < 3; k++) {
		uint64_t s;

		i = rn(q->nkeys);
		len = make_key(key, qi, i);
		s = tick();
		r = wq_add(fd, key, len);
		call();
		if (add_ok(q, (int)r, "add (passed handle)")) {
			note_add(q, i, s, 0);
			atomic_fetch_add(&q->c.adds, 1);
		}
	}
}

/* A key got through the passed handle, left for its close to put back. */
static void hold_one(struct child *c, struct squeue *q, unsigned int qi, int fd)
{
	char buf[WQ_KEY_MAX];
	uint32_t cur;
	ssize_t r;
	int k;

	r = wq_get(fd, buf, sizeof(buf), 300);
	call();
	if (r > 0) {
		k = key_index(buf, (size_t)r, qi);
		if (k < 0) {
			fail(F_RESULT, "%s handed out a key that is not ours", q->name);
		} else {
			take(q, (unsigned int)k);
			/* put back by the close below: mark it first */
			cur = c->id;
			if (!atomic_compare_exchange_strong(&q->key[k].holder, &cur,
							    HOLDER_BACK))
				fail(F_DOUBLE, "%s key %d: held by %u, not by %u",
				     q->name, k, cur, c->id);
			atomic_fetch_add(&q->c.back, 1);
		}
	} else if (r != -ETIMEDOUT) {
		fail(F_PASS, "receiver: get %s: %s", q->name, err_name((int)r));
	}
}

/* Works with the handle it receives, closes it holding a key. */
int receiver_main(struct child *c)
{
	struct squeue *q;
	struct passmsg m = { -1, 0, 0, -1 };
	struct pollfd p = { .events = POLLIN };
	struct wq_stats st;
	ssize_t r;
	int fd;

	close(pass_chan[1]);
	close(pass_ack[0]);
	p.fd = -1;
	ready(c);
	fd = recv_msg(pass_chan[0], &m, &p.fd);
	send_u32(pass_ack[1], 0);
	if (fd < 0) {
		fail(F_PASS, "receiver: %s: %s",
		     pass_scm ? "recvmsg" : "pidfd_getfd", err_name(fd));
		return 1;
	}
	/* the sender gone (its exit released what it still had) */
	if (poll(&p, 1, 30000) != 1)
		fail(F_PASS, "receiver: the sender did not exit");
	close(p.fd);
	q = &sh->rd.q[m.qi];
	r = wq_stat(fd, &st);
	call();
	if (r || strcmp(st.name, q->name))
		fail(F_PASS, "receiver: stat of the passed handle: %s, name %s",
		     err_name((int)r), r ? "" : st.name);
	if (m.idx >= 0)
		done_senders_key(c, q, &m, fd);
	add_some(q, m.qi, fd);
	hold_one(c, q, m.qi, fd);
	r = wq_close(fd);
	call();
	if (r)
		fail(F_PASS, "receiver: close: %s", err_name((int)r));
	send_u32(c->from[1], m.idx >= 0);
	return 0;
}
