// SPDX-License-Identifier: GPL-2.0-only
/*
 * taskstats.c - one record per exiting thread, from the kernel's taskstats
 * generic netlink family (Documentation/accounting/taskstats.rst)
 *
 * A listener registers for a set of CPUs (TASKSTATS_CMD_ATTR_REGISTER_
 * CPUMASK, CAP_NET_ADMIN); from then on every thread that exits on one of
 * them sends it a TASKSTATS_TYPE_AGGR_PID message, from do_exit() before
 * the parent can reap it, with pids of the initial pid namespace.  So
 * threads that ended, even ones never waited for, are counted exactly.
 * Plain sockets: the messages are small and their layout is uapi.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "taskstats.h"
#include "util.h"

#define NS_PER_US	1000ull
/* room for a burst of exits between two drains (~400 bytes each) */
#define RCVBUF_BYTES	(8 << 20)

/* struct nl_attrs - a walk over the netlink attributes of a payload */
struct nl_attrs {
	const uint8_t *p;
	size_t len;
};

/* attr_next - the next attribute; false at the end or on a bad length */
static bool attr_next(struct nl_attrs *a, uint16_t *type,
		      struct nl_attrs *payload)
{
	struct nlattr nla;
	size_t step;

	if (a->len < NLA_HDRLEN)
		return false;
	memcpy(&nla, a->p, sizeof(nla));
	if (nla.nla_len < NLA_HDRLEN || nla.nla_len > a->len)
		return false;
	*type = nla.nla_type & NLA_TYPE_MASK;
	payload->p = a->p + NLA_HDRLEN;
	payload->len = nla.nla_len - NLA_HDRLEN;
	step = NLA_ALIGN(nla.nla_len);
	step = step < a->len ? step : a->len;
	a->p += step;
	a->len -= step;
	return true;
}

/*
 * stats_decode - a struct taskstats of any version: an older kernel's is
 * shorter, a newer one's longer; ac_tgid, the last field used here, is
 * in every kernel iowprobe supports
 */
static int stats_decode(struct nl_attrs pl, struct thread_exit *e)
{
	struct taskstats ts;

	if (pl.len < offsetof(struct taskstats, ac_tgid) + sizeof(ts.ac_tgid))
		return -EPROTO;
	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, pl.p, pl.len < sizeof(ts) ? pl.len : sizeof(ts));
	e->pid = ts.ac_pid;
	e->tgid = ts.ac_tgid;
	e->ppid = ts.ac_ppid;
	e->life_ns = ts.ac_etime * NS_PER_US;
	e->utime_ns = ts.ac_utime * NS_PER_US;
	e->stime_ns = ts.ac_stime * NS_PER_US;
	e->cpu_ns = ts.cpu_run_virtual_total;
	e->tick_ns = ts.cpu_run_real_total;
	e->runq_ns = ts.cpu_delay_total;
	e->blkio_ns = ts.blkio_delay_total;
	return 0;
}

/* one exit message: its AGGR_PID (the thread); AGGR_TGID is a sum of it */
static int exit_msg(struct nl_attrs a, thread_exit_fn fn, void *arg,
		    struct taskstats_parsed *p)
{
	struct nl_attrs pl, in, st;
	struct thread_exit e;
	uint16_t type, t;
	int err;

	while (attr_next(&a, &type, &pl)) {
		if (type != TASKSTATS_TYPE_AGGR_PID)
			continue;
		in = pl;
		while (attr_next(&in, &t, &st)) {
			if (t != TASKSTATS_TYPE_STATS)
				continue;
			err = stats_decode(st, &e);
			if (err)
				return err;
			p->records++;
			if (fn)
				fn(&e, arg);
		}
	}
	return 0;
}

/**
 * taskstats_parse() - the messages of one receive: exit records go to @fn,
 * the answer to request @p->seq to @p->ack_err.
 * Return: 0, or -EPROTO for a record without the fields used here.
 */
int taskstats_parse(const void *buf, size_t len, uint16_t family,
		    thread_exit_fn fn, void *arg, struct taskstats_parsed *p)
{
	const uint8_t *b = buf;
	struct nlmsghdr h;
	struct nlmsgerr ne;
	struct genlmsghdr g;
	size_t step;
	int err;

	while (len >= NLMSG_HDRLEN) {
		memcpy(&h, b, sizeof(h));
		if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len)
			break;
		if (h.nlmsg_type == NLMSG_ERROR &&
		    h.nlmsg_len >= NLMSG_HDRLEN + sizeof(ne)) {
			memcpy(&ne, b + NLMSG_HDRLEN, sizeof(ne));
			if (ne.msg.nlmsg_seq == p->seq)
				p->ack_err = ne.error ? ne.error : 1;
		} else if (h.nlmsg_type == family &&
			   h.nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN) {
			memcpy(&g, b + NLMSG_HDRLEN, sizeof(g));
			if (g.cmd == TASKSTATS_CMD_NEW) {
				err = exit_msg((struct nl_attrs){
					b + NLMSG_HDRLEN + GENL_HDRLEN,
					h.nlmsg_len - NLMSG_HDRLEN -
					GENL_HDRLEN }, fn, arg, p);
				if (err)
					return err;
			}
		}
		step = NLMSG_ALIGN(h.nlmsg_len);
		if (step >= len)
			break;
		b += step;
		len -= step;
	}
	return 0;
}

/* send_req - one generic netlink request with one string attribute */
static int send_req(struct taskstats_listener *l, uint16_t type, uint8_t cmd,
		    uint16_t attr, const char *str)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		struct nlattr a;
		char s[256];
	} req;
	size_t slen = strlen(str) + 1;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (slen > sizeof(req.s))
		return -E2BIG;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + NLA_HDRLEN + slen;
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.h.nlmsg_seq = ++l->seq;
	req.g.cmd = cmd;
	req.g.version = 1;
	req.a.nla_len = NLA_HDRLEN + slen;
	req.a.nla_type = attr;
	memcpy(req.s, str, slen);
	if (sendto(l->fd, &req, req.h.nlmsg_len, 0,
		   (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/* family_id - CTRL_ATTR_FAMILY_ID in the controller's answer, if there */
static void family_id(const uint8_t *b, size_t len, uint16_t *id)
{
	struct nl_attrs a, pl;
	struct nlmsghdr h;
	uint16_t type;

	if (len < NLMSG_HDRLEN + GENL_HDRLEN)
		return;
	memcpy(&h, b, sizeof(h));
	if (h.nlmsg_type != GENL_ID_CTRL || h.nlmsg_len > len ||
	    h.nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return;
	a.p = b + NLMSG_HDRLEN + GENL_HDRLEN;
	a.len = h.nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	while (attr_next(&a, &type, &pl))
		if (type == CTRL_ATTR_FAMILY_ID && pl.len >= sizeof(*id))
			memcpy(id, pl.p, sizeof(*id));
}

static uint64_t rbuf[8192];	/* 64 KiB, aligned for the headers */

/*
 * recv_batch - one datagram of messages into rbuf; a signal retries, and
 * so does an overflow (ENOBUFS: the kernel dropped records), noted in
 * @l->lost
 * Return: its length, or -errno.
 */
static ssize_t recv_batch(struct taskstats_listener *l, int flags)
{
	ssize_t n;

	for (;;) {
		n = recv(l->fd, rbuf, sizeof(rbuf), flags);
		if (n >= 0)
			return n;
		if (errno == ENOBUFS)
			l->lost = true;
		else if (errno != EINTR)
			return -errno;
	}
}

/*
 * wait_ack - receive until the answer to the last request; exit records
 * arriving meanwhile (threads that ended before CMD started) are dropped
 */
static int wait_ack(struct taskstats_listener *l)
{
	struct taskstats_parsed p = { .seq = l->seq };
	ssize_t n;
	int err;

	while (!p.ack_err) {
		n = recv_batch(l, 0);
		if (n < 0)
			return n;
		if (!l->family)
			family_id((const uint8_t *)rbuf, n, &l->family);
		err = taskstats_parse(rbuf, n, l->family, NULL, NULL,
				      &p);
		if (err)
			return err;
	}
	return p.ack_err < 0 ? p.ack_err : 0;
}

/* possible_cpus - the kernel takes a mask within cpu_possible_mask */
static int possible_cpus(char *mask, size_t size)
{
	size_t len;
	char *buf;
	int err;

	err = read_whole_file("/sys/devices/system/cpu/possible", &buf, &len);
	if (err)
		return err;
	len = strcspn(buf, "\n");
	if (!len || len >= size) {
		free(buf);
		return -EINVAL;
	}
	memcpy(mask, buf, len);
	mask[len] = '\0';
	free(buf);
	return 0;
}

/**
 * taskstats_listen() - open a listener for every possible CPU (root).
 * Return: 0, or -errno (-ENOENT: no taskstats in this kernel).
 */
int taskstats_listen(struct taskstats_listener *l)
{
	struct sockaddr_nl me = { .nl_family = AF_NETLINK };
	int size = RCVBUF_BYTES, err;

	memset(l, 0, sizeof(*l));
	l->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (l->fd < 0)
		return -errno;
	if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	err = bind(l->fd, (struct sockaddr *)&me, sizeof(me)) ? -errno : 0;
	if (!err)
		err = send_req(l, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
			       CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME);
	if (!err)
		err = wait_ack(l);
	if (!err && !l->family)
		err = -ENOENT;
	if (!err)
		err = possible_cpus(l->cpumask, sizeof(l->cpumask));
	if (!err)
		err = send_req(l, l->family, TASKSTATS_CMD_GET,
			       TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
			       l->cpumask);
	if (!err)
		err = wait_ack(l);
	if (!err && fcntl(l->fd, F_SETFL, O_NONBLOCK))
		err = -errno;
	if (err) {
		close(l->fd);
		l->fd = -1;
	}
	return err;
}

/**
 * taskstats_drain() - every record queued so far, to @fn
 * Return: 0 or -errno; an overflow only sets @l->lost.
 */
int taskstats_drain(struct taskstats_listener *l, thread_exit_fn fn,
		    void *arg)
{
	struct taskstats_parsed p = { 0 };
	ssize_t n;
	int err;

	if (l->fd < 0)
		return -EBADF;
	for (;;) {
		n = recv_batch(l, MSG_DONTWAIT);
		if (n < 0)
			return n == -EAGAIN ? 0 : n;
		err = taskstats_parse(rbuf, n, l->family, fn, arg, &p);
		if (err)
			return err;
	}
}

/* taskstats_close() - deregister (else the kernel does on its next send) */
void taskstats_close(struct taskstats_listener *l)
{
	if (l->fd < 0)
		return;
	send_req(l, l->family, TASKSTATS_CMD_GET,
		 TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, l->cpumask);
	close(l->fd);
	l->fd = -1;
}
