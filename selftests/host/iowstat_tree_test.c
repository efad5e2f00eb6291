// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowstat_tree_test.c - "iowstat -- CMD"'s tree, on bytes and records
 * built by hand: taskstats messages as the kernel sends them (any version
 * of struct taskstats), which records are the tree's, the split of run
 * time into user and system, the decomposition, and the module's
 * cgroups row.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "cmd_cgroup.h"
#include "cmd_tree.h"
#include "procfs.h"
#include "taskstats.h"
#include "util.h"

#define FAMILY	0x1c

/* struct msgbuf - a receive buffer being filled, as the kernel fills it */
struct msgbuf {
	uint64_t b[1024];	/* aligned as the reader's */
	size_t len;
	size_t open[4];		/* offsets of the attributes being nested */
	int depth;
};

static void *at(struct msgbuf *m, size_t off)
{
	return (uint8_t *)m->b + off;
}

static void msg_begin(struct msgbuf *m, uint16_t type, uint8_t cmd)
{
	struct nlmsghdr *h = at(m, m->len);
	struct genlmsghdr *g = at(m, m->len + NLMSG_HDRLEN);

	memset(h, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = type;
	g->cmd = cmd;
	m->open[0] = m->len;
	m->len += NLMSG_HDRLEN + GENL_HDRLEN;
}

static void msg_end(struct msgbuf *m)
{
	struct nlmsghdr *h = at(m, m->open[0]);

	h->nlmsg_len = m->len - m->open[0];
	m->len = NLMSG_ALIGN(m->len);
}

static void attr(struct msgbuf *m, uint16_t type, const void *p, size_t n)
{
	struct nlattr *a = at(m, m->len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + n;
	memcpy(at(m, m->len + NLA_HDRLEN), p, n);
	m->len += NLA_ALIGN(a->nla_len);
}

static void nest_begin(struct msgbuf *m, uint16_t type)
{
	struct nlattr *a = at(m, m->len);

	a->nla_type = type | NLA_F_NESTED;
	m->open[++m->depth] = m->len;
	m->len += NLA_HDRLEN;
}

static void nest_end(struct msgbuf *m)
{
	struct nlattr *a = at(m, m->open[m->depth--]);

	a->nla_len = m->len - ((uint8_t *)a - (uint8_t *)m->b);
}

static void ack(struct msgbuf *m, uint32_t seq, int error)
{
	struct nlmsghdr *h = at(m, m->len);
	struct nlmsgerr *e = at(m, m->len + NLMSG_HDRLEN);

	memset(h, 0, NLMSG_HDRLEN + sizeof(*e));
	h->nlmsg_type = NLMSG_ERROR;
	h->nlmsg_len = NLMSG_HDRLEN + sizeof(*e);
	e->error = error;
	e->msg.nlmsg_seq = seq;
	m->len += NLMSG_ALIGN(h->nlmsg_len);
}

/* one exit message: AGGR_PID with @size bytes of @ts, then an AGGR_TGID */
static void exit_msg(struct msgbuf *m, const struct taskstats *ts,
		     size_t size)
{
	uint8_t big[sizeof(*ts) + 64] = { 0 };
	uint32_t pid = ts->ac_pid;

	memcpy(big, ts, size < sizeof(*ts) ? size : sizeof(*ts));
	msg_begin(m, FAMILY, TASKSTATS_CMD_NEW);
	nest_begin(m, TASKSTATS_TYPE_AGGR_PID);
	attr(m, TASKSTATS_TYPE_PID, &pid, sizeof(pid));
	attr(m, TASKSTATS_TYPE_STATS, big, size);
	nest_end(m);
	nest_begin(m, TASKSTATS_TYPE_AGGR_TGID);
	attr(m, TASKSTATS_TYPE_TGID, &pid, sizeof(pid));
	attr(m, TASKSTATS_TYPE_STATS, big, size);
	nest_end(m);
	msg_end(m);
}

static struct taskstats sample_stats(void)
{
	struct taskstats ts;

	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	ts.ac_pid = 201;
	ts.ac_tgid = 200;
	ts.ac_ppid = 100;
	ts.ac_etime = 1500000;			/* 1.5 s, in µs */
	ts.ac_utime = 300000;
	ts.ac_stime = 100000;
	ts.cpu_run_real_total = 400000000;	/* the ticks: utime + stime */
	ts.cpu_run_virtual_total = 412345678;	/* sum_exec_runtime */
	ts.cpu_delay_total = 2345678;
	ts.blkio_delay_total = 987654321;
	return ts;
}

struct got {
	struct thread_exit e[8];
	unsigned int n;
};

static void keep(const struct thread_exit *e, void *arg)
{
	struct got *g = arg;

	if (g->n < 8)
		g->e[g->n++] = *e;
}

TEST(parse_exit_record_and_ack)
{
	struct taskstats ts = sample_stats();
	struct taskstats_parsed p = { .seq = 7 };
	struct msgbuf m = { .len = 0 };
	struct got g = { .n = 0 };

	ack(&m, 6, -EPERM);			/* not ours */
	exit_msg(&m, &ts, sizeof(ts));
	ack(&m, 7, 0);
	ASSERT_EQ(0, taskstats_parse(m.b, m.len, FAMILY, keep, &g, &p));
	ASSERT_EQ(1, p.ack_err);		/* success */
	ASSERT_EQ(1, p.records);		/* AGGR_TGID is not a thread */
	ASSERT_EQ(1, g.n);
	EXPECT_EQ(201, g.e[0].pid);
	EXPECT_EQ(200, g.e[0].tgid);
	EXPECT_EQ(100, g.e[0].ppid);
	EXPECT_EQ(1500000000ull, g.e[0].life_ns);
	EXPECT_EQ(300000000ull, g.e[0].utime_ns);
	EXPECT_EQ(100000000ull, g.e[0].stime_ns);
	EXPECT_EQ(412345678ull, g.e[0].cpu_ns);
	EXPECT_EQ(400000000ull, g.e[0].tick_ns);
	EXPECT_EQ(2345678ull, g.e[0].runq_ns);
	EXPECT_EQ(987654321ull, g.e[0].blkio_ns);
}

TEST(parse_error_ack)
{
	struct taskstats_parsed p = { .seq = 3 };
	struct msgbuf m = { .len = 0 };

	ack(&m, 3, -EINVAL);
	ASSERT_EQ(0, taskstats_parse(m.b, m.len, FAMILY, NULL, NULL, &p));
	EXPECT_EQ(-EINVAL, p.ack_err);
}

/* a newer kernel's longer struct: the known fields read the same */
TEST(parse_newer_kernel)
{
	struct taskstats ts = sample_stats();
	struct taskstats_parsed p = { 0 };
	struct msgbuf m = { .len = 0 };
	struct got g = { .n = 0 };

	exit_msg(&m, &ts, sizeof(ts) + 40);
	ASSERT_EQ(0, taskstats_parse(m.b, m.len, FAMILY, keep, &g, &p));
	ASSERT_EQ(1, g.n);
	EXPECT_EQ(200, g.e[0].tgid);
	EXPECT_EQ(412345678ull, g.e[0].cpu_ns);
}

/* a kernel whose struct stops before ac_tgid: refused, not misread */
TEST(parse_too_old)
{
	struct taskstats ts = sample_stats();
	struct taskstats_parsed p = { 0 };
	struct msgbuf m = { .len = 0 };
	struct got g = { .n = 0 };

	exit_msg(&m, &ts, offsetof(struct taskstats, ac_tgid));
	EXPECT_EQ(-EPROTO, taskstats_parse(m.b, m.len, FAMILY, keep, &g,
					   &p));
	EXPECT_EQ(0, g.n);
}

/* cut anywhere: never a read past the end, never a record made up */
TEST(parse_truncated)
{
	struct taskstats ts = sample_stats();
	struct msgbuf m = { .len = 0 };
	size_t cut, whole;

	exit_msg(&m, &ts, sizeof(ts));
	whole = m.len;
	for (cut = 0; cut < whole; cut++) {
		struct taskstats_parsed p = { 0 };
		struct got g = { .n = 0 };
		int r = taskstats_parse(m.b, cut, FAMILY, keep, &g, &p);

		EXPECT_TRUE(r == 0 || r == -EPROTO);
		EXPECT_EQ(0, g.n);
	}
}

/* other families' messages (the controller's answer) are not records */
TEST(parse_other_family)
{
	struct taskstats ts = sample_stats();
	struct taskstats_parsed p = { 0 };
	struct msgbuf m = { .len = 0 };
	struct got g = { .n = 0 };

	exit_msg(&m, &ts, sizeof(ts));
	ASSERT_EQ(0, taskstats_parse(m.b, m.len, FAMILY + 1, keep, &g, &p));
	EXPECT_EQ(0, g.n);
}

static struct thread_exit rec(uint32_t pid, uint32_t tgid, uint32_t ppid,
			      uint64_t life)
{
	struct thread_exit e = {
		.pid = pid, .tgid = tgid, .ppid = ppid, .life_ns = life,
		.utime_ns = 3, .stime_ns = 1, .cpu_ns = 100, .tick_ns = 4,
		.runq_ns = 10, .blkio_ns = 20,
	};

	return e;
}

/*
 * iowstat is 100; CMD 200 with a thread 201; 300 its child; 400 an
 * orphan of the tree reparented to iowstat, whose child 500 exited first
 * (before 400's record, so only the fixed point finds it); 600 and 700
 * are strangers (700 is the child of a stranger), 101 a thread of
 * iowstat's own.
 */
TEST(tree_members)
{
	struct cmd_tree t = { 0 };
	struct tree_parts p = { 0 };
	struct thread_exit e[] = {
		rec(500, 500, 400, 5), rec(600, 600, 1, 1000),
		rec(700, 700, 600, 1000), rec(101, 100, 1, 1000),
		rec(201, 200, 100, 7), rec(300, 300, 200, 11),
		rec(400, 400, 100, 13), rec(200, 200, 100, 17),
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		tree_add(&e[i], &t);
	ASSERT_EQ(0, tree_sum(&t, 100, &p));
	EXPECT_TRUE(p.have_tree);
	EXPECT_EQ(4, p.processes);		/* 200, 300, 400, 500 */
	EXPECT_EQ(5, p.threads);		/* and 201 */
	EXPECT_EQ(5 + 7 + 11 + 13 + 17, p.thread_ns);
	EXPECT_EQ(5 * 75, p.user_ns);		/* 100 ns each, 3:1 */
	EXPECT_EQ(5 * 25, p.sys_ns);
	EXPECT_EQ(5 * 4, p.tick_ns);
	EXPECT_EQ(5 * 10, p.runq_ns);
	EXPECT_EQ(5 * 20, p.blkio_ns);
	tree_free(&t);
}

/* the kernel's cputime_adjust() rule, exact in 64 bits */
TEST(split_cpu)
{
	struct thread_exit e = { .utime_ns = 3, .stime_ns = 1,
				 .cpu_ns = 1000 };
	uint64_t u, s;

	tree_split_cpu(&e, &u, &s);
	EXPECT_EQ(750, u);
	EXPECT_EQ(250, s);
	e.stime_ns = 0;			/* no system tick: all user */
	tree_split_cpu(&e, &u, &s);
	EXPECT_EQ(1000, u);
	EXPECT_EQ(0, s);
	e.stime_ns = 1;
	e.utime_ns = 0;			/* no user tick: all system */
	tree_split_cpu(&e, &u, &s);
	EXPECT_EQ(0, u);
	EXPECT_EQ(1000, s);
	e.utime_ns = 0;
	e.stime_ns = 0;			/* never ticked: user, as the kernel */
	tree_split_cpu(&e, &u, &s);
	EXPECT_EQ(1000, u);
	e.utime_ns = 1ull << 62;	/* no overflow in the product */
	e.stime_ns = 1ull << 62;
	e.cpu_ns = 1ull << 62;
	tree_split_cpu(&e, &u, &s);
	EXPECT_EQ(1ull << 61, s);
	EXPECT_EQ(1ull << 61, u);
}

TEST(decomposition)
{
	struct tree_parts p = {
		.thread_ns = 10000, .user_ns = 1000, .sys_ns = 2000,
		.runq_ns = 500, .iowait_ns = 4000, .have_iowait = true,
	};

	tree_parts_finish(&p);
	EXPECT_EQ(2500, p.other_ns);
	p.have_iowait = false;		/* other is then all the sleep */
	tree_parts_finish(&p);
	EXPECT_EQ(6500, p.other_ns);
	p.have_iowait = true;		/* parts that disagree show */
	p.iowait_ns = 7000;
	tree_parts_finish(&p);
	EXPECT_EQ(-500, p.other_ns);
}

/* the recording's tree file: every field back as written, other_ns again */
TEST(tree_file_round_trip)
{
	struct tree_parts p = {
		.processes = 3, .threads = 4, .thread_ns = 1ull << 40,
		.user_ns = 11, .sys_ns = 12, .tick_ns = 13, .runq_ns = 14,
		.blkio_ns = 15, .have_tree = true, .have_iowait = true,
		.have_blkio = true, .iowait_ns = 16, .iowait_blk_ns = 17, .wa_ns = 18, .left = 2,
		.lost = true, .no_iowait = "cannot join /a\nb",
	}, q;
	struct parse_err pe = { 0, NULL };
	size_t len;
	char *buf;

	tree_parts_finish(&p);
	ASSERT_EQ(0, tree_parts_format(&p, &buf, &len));
	ASSERT_EQ(0, tree_parts_parse(buf, len, &q, &pe));
	free(buf);
	EXPECT_EQ(3, q.processes);
	EXPECT_EQ(4, q.threads);
	EXPECT_EQ(1ull << 40, q.thread_ns);
	EXPECT_EQ(11, q.user_ns);
	EXPECT_EQ(12, q.sys_ns);
	EXPECT_EQ(13, q.tick_ns);
	EXPECT_EQ(14, q.runq_ns);
	EXPECT_EQ(15, q.blkio_ns);
	EXPECT_TRUE(q.have_tree);
	EXPECT_TRUE(q.have_iowait);
	EXPECT_TRUE(q.have_blkio);
	EXPECT_EQ(16, q.iowait_ns);
	EXPECT_EQ(17, q.iowait_blk_ns);
	EXPECT_EQ(18, q.wa_ns);
	EXPECT_EQ(2, q.left);
	EXPECT_TRUE(q.lost);
	/* 2^40 - 11 - 12 - 14 - 16: worked out again, not recorded */
	EXPECT_EQ((int64_t)(1ull << 40) - 53, q.other_ns);
	EXPECT_STREQ("", q.no_tree);
	/* a reason is one line: the newline in a path is not kept */
	EXPECT_STREQ("cannot join /a?b", q.no_iowait);
}

TEST(tree_file_errors)
{
	static const struct { const char *text; unsigned int line; } bad[] = {
		{ "processes 3\nthreads x\n", 2 },
		{ "have_tree 2\n", 1 },
		{ "threads 4294967296\n", 1 },
		{ "user_ns\n", 1 },
		{ "\n", 1 },
	};
	struct parse_err pe;
	struct tree_parts q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pe.line = 0;
		EXPECT_EQ(-EINVAL, tree_parts_parse(bad[i].text,
						    strlen(bad[i].text), &q,
						    &pe));
		EXPECT_EQ(bad[i].line, pe.line);
	}
	/* a field of a newer iowstat is skipped */
	ASSERT_EQ(0, tree_parts_parse("future_ns 5\nthreads 7\n", 22, &q,
				      &pe));
	EXPECT_EQ(7, q.threads);
	EXPECT_FALSE(q.have_tree);
}

TEST(cgroup_row)
{
	static const char text[] =
		"# iowprobe abi 1\n"
		"cgroup sleeps wait_ns wait_blk_ns wa_ns asleep now_ns dev\n"
		"1 5 100 90 80 0 777 -\n"
		"4242 500 1500000000 1490000000 1400000000 0 777 251:0\n";
	uint64_t s[OWNER_SUMS] = { 0 };
	struct owner_table t = { 0 }, bad = { 0 };

	ASSERT_EQ(0, owners_parse(IOWPROBE_CGROUPS, text, sizeof(text) - 1,
				  &t, NULL));
	ASSERT_EQ(1, owner_table_sums(&t, 4242, s));
	EXPECT_EQ(1500000000ull, s[OWNER_WAIT]);
	EXPECT_EQ(1490000000ull, s[OWNER_WAIT_BLK]);
	EXPECT_EQ(1400000000ull, s[OWNER_WA]);
	EXPECT_EQ(0, owner_table_sums(&t, 9, s));
	owners_free(&t);
	/* a file of another ABI, or cut short, is refused */
	EXPECT_NE(0, owners_parse(IOWPROBE_CGROUPS, "# iowprobe abi 2\ncgroup\n",
				  24, &bad, NULL));
	owners_free(&bad);
	EXPECT_NE(0, owners_parse(IOWPROBE_CGROUPS, text, 20, &bad, NULL));
	owners_free(&bad);
}

TEST_HARNESS_MAIN
