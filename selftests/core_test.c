// SPDX-License-Identifier: GPL-2.0-only
/*
 * core_test.c - host unit tests of the accounting core (kmod/iowprobe_core.h)
 *
 * First the arithmetic of struct iowprobe_acct and struct iowprobe_gclock,
 * the latency slots and the verdict tables.  Then a model of kmod/acct.c:
 * a few CPUs and a task table, driven through the event orders of
 * doc/design.md#the-iowait-rule and doc/design.md#races.  The model's
 * kernel half (k_*) keeps nr_iowait by the kernel's own rule; its module
 * half (mod_*) applies the core's verdicts and actions exactly as acct.c
 * does.  Every expected value is worked out by hand in the comment above
 * its test.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "iowprobe_core.h"

/* every field of two struct iowprobe_acct (memcmp would compare padding) */
#define EXPECT_ACCT_EQ(x, y) do {				\
	EXPECT_EQ((x).t, (y).t);				\
	EXPECT_EQ((x).g_snap, (y).g_snap);			\
	EXPECT_EQ((x).busy_ns, (y).busy_ns);			\
	EXPECT_EQ((x).idle_ns, (y).idle_ns);			\
	EXPECT_EQ((x).iowait_ns, (y).iowait_ns);		\
	EXPECT_EQ((x).blk_local_ns, (y).blk_local_ns);		\
	EXPECT_EQ((x).blk_any_ns, (y).blk_any_ns);		\
	EXPECT_EQ((x).mirror, (y).mirror);			\
	EXPECT_EQ((x).lfl, (y).lfl);				\
	EXPECT_EQ((x).idle, (y).idle);				\
	EXPECT_EQ((x).online, (y).online);			\
} while (0)

/* ---- struct iowprobe_acct: one CPU, online and busy at 0 ---- */

FIXTURE(acct) {
	struct iowprobe_acct a;
};

FIXTURE_SETUP(acct)
{
	memset(&self->a, 0, sizeof(self->a));
	self->a.online = 1;
}

FIXTURE_TEARDOWN(acct)
{
}

/* busy 0..10, idle 10..25, busy 25..30: busy 15, idle 15 */
TEST_F(acct, busy_idle_split)
{
	struct iowprobe_acct *a = &self->a;

	iowprobe_acct_set_idle(a, 10, 0, 1);
	EXPECT_EQ(10ULL, a->busy_ns);
	EXPECT_EQ(0ULL, a->idle_ns);
	EXPECT_EQ(10ULL, a->t);
	EXPECT_EQ(1, a->idle);
	iowprobe_acct_set_idle(a, 25, 0, 0);
	EXPECT_EQ(15ULL, a->idle_ns);
	EXPECT_EQ(0, a->idle);
	iowprobe_acct_close(a, 30, 0);
	EXPECT_EQ(15ULL, a->busy_ns);
	EXPECT_EQ(15ULL, a->idle_ns);
	EXPECT_EQ(0ULL, a->iowait_ns);
	EXPECT_EQ(0ULL, a->blk_local_ns);
	EXPECT_EQ(0ULL, a->blk_any_ns);
	EXPECT_EQ(30ULL, a->t);
}

/* idle 0..10, mirror 1 at 3 and 0 at 7: iowait 4 (not 0, not 10) */
TEST_F(acct, iowait_cut_at_each_mirror_change)
{
	struct iowprobe_acct *a = &self->a;

	a->idle = 1;
	iowprobe_acct_add_mirror(a, 3, 0, 1);
	iowprobe_acct_add_mirror(a, 7, 0, -1);
	iowprobe_acct_close(a, 10, 0);
	EXPECT_EQ(10ULL, a->idle_ns);
	EXPECT_EQ(4ULL, a->iowait_ns);
	EXPECT_EQ(0ULL, a->busy_ns);
	EXPECT_EQ(0, a->mirror);
}

/*
 * idle 0..20: mirror 1 at 2, 2 at 4, 1 at 6, 0 at 8, 1 at 15: iowait
 * 2..8 + 15..20 = 11.  Busy 20..30 with mirror 1 adds no iowait; idle
 * again 30..35 adds 5: iowait 16, idle 25, busy 10.  A negative mirror
 * (an anomaly) is not iowait: 35..40 adds idle only.
 */
TEST_F(acct, iowait_needs_idle_and_positive_mirror)
{
	struct iowprobe_acct *a = &self->a;

	a->idle = 1;
	iowprobe_acct_add_mirror(a, 2, 0, 1);
	iowprobe_acct_add_mirror(a, 4, 0, 1);
	iowprobe_acct_add_mirror(a, 6, 0, -1);
	iowprobe_acct_add_mirror(a, 8, 0, -1);
	iowprobe_acct_add_mirror(a, 15, 0, 1);
	iowprobe_acct_set_idle(a, 20, 0, 0);
	EXPECT_EQ(11ULL, a->iowait_ns);
	EXPECT_EQ(20ULL, a->idle_ns);
	iowprobe_acct_set_idle(a, 30, 0, 1);
	EXPECT_EQ(11ULL, a->iowait_ns);
	EXPECT_EQ(10ULL, a->busy_ns);
	iowprobe_acct_add_mirror(a, 35, 0, -2);
	EXPECT_EQ(16ULL, a->iowait_ns);
	EXPECT_EQ(-1, a->mirror);
	iowprobe_acct_close(a, 40, 0);
	EXPECT_EQ(16ULL, a->iowait_ns);
	EXPECT_EQ(30ULL, a->idle_ns);
}

/*
 * lfl 1 from 2 while busy; idle 5..20; lfl 0 at 12, 1 at 16, 2 at 17,
 * 1 at 18: blk_local 5..12 + 16..20 = 11, and no iowait.
 */
TEST_F(acct, blk_local_follows_lfl)
{
	struct iowprobe_acct *a = &self->a;

	iowprobe_acct_add_lfl(a, 2, 0, 1);
	iowprobe_acct_set_idle(a, 5, 0, 1);
	EXPECT_EQ(0ULL, a->blk_local_ns);
	iowprobe_acct_add_lfl(a, 12, 0, -1);
	iowprobe_acct_add_lfl(a, 16, 0, 1);
	iowprobe_acct_add_lfl(a, 17, 0, 1);
	iowprobe_acct_add_lfl(a, 18, 0, -1);
	iowprobe_acct_close(a, 20, 0);
	EXPECT_EQ(11ULL, a->blk_local_ns);
	EXPECT_EQ(15ULL, a->idle_ns);
	EXPECT_EQ(5ULL, a->busy_ns);
	EXPECT_EQ(0ULL, a->iowait_ns);
	EXPECT_EQ(0ULL, a->blk_any_ns);
	EXPECT_EQ(1, a->lfl);
}

/*
 * Idle 2..20 while G runs 4..9 and from 15: blk_any = G(20) - G(2) =
 * 5 + 5 = 10, booked at the CPU's own boundary only.  Busy 20..25 (G
 * 10 -> 15) adds nothing; idle 25..30 (G 15 -> 20) adds 5.
 */
TEST_F(acct, blk_any_from_gclock)
{
	struct iowprobe_acct *a = &self->a;
	struct iowprobe_gclock g = { 0 };

	iowprobe_acct_set_idle(a, 2, iowprobe_gclock_read(&g, 2), 1);
	iowprobe_gclock_set(&g, 4, 1);
	iowprobe_gclock_set(&g, 9, 0);
	iowprobe_gclock_set(&g, 15, 1);
	ASSERT_EQ(10ULL, iowprobe_gclock_read(&g, 20));
	iowprobe_acct_set_idle(a, 20, iowprobe_gclock_read(&g, 20), 0);
	EXPECT_EQ(10ULL, a->blk_any_ns);
	EXPECT_EQ(18ULL, a->idle_ns);
	EXPECT_EQ(10ULL, a->g_snap);
	iowprobe_acct_set_idle(a, 25, iowprobe_gclock_read(&g, 25), 1);
	EXPECT_EQ(10ULL, a->blk_any_ns);
	EXPECT_EQ(15ULL, a->g_snap);
	iowprobe_acct_close(a, 30, iowprobe_gclock_read(&g, 30));
	EXPECT_EQ(15ULL, a->blk_any_ns);
	EXPECT_EQ(23ULL, a->idle_ns);
	EXPECT_EQ(7ULL, a->busy_ns);
	EXPECT_EQ(0ULL, a->blk_local_ns);
}

/*
 * G read a little after now: over idle 10..12 G moved 0 -> 5, but
 * blk_any may not exceed idle: +2.  The excess is not carried over:
 * over 12..20 G moved 5 -> 6, +1.  blk_any 3, idle 10.
 */
TEST_F(acct, blk_any_clamped_to_idle)
{
	struct iowprobe_acct *a = &self->a;

	iowprobe_acct_set_idle(a, 10, 0, 1);
	iowprobe_acct_close(a, 12, 5);
	EXPECT_EQ(2ULL, a->blk_any_ns);
	EXPECT_EQ(5ULL, a->g_snap);
	iowprobe_acct_close(a, 20, 6);
	EXPECT_EQ(3ULL, a->blk_any_ns);
	EXPECT_EQ(10ULL, a->idle_ns);
}

/*
 * Offline, idle, with a sleeper and a request: 0..100 accrues nothing.
 * Online 100..120: idle, iowait and blk_local 20, blk_any 60 - 50 = 10.
 * Offline again from 120 (the close books 110..120 first): 120..200
 * accrues nothing.
 */
TEST_F(acct, offline_accrues_nothing)
{
	struct iowprobe_acct *a = &self->a;

	a->online = 0;
	a->idle = 1;
	a->mirror = 1;
	a->lfl = 1;
	iowprobe_acct_close(a, 100, 50);
	EXPECT_EQ(0ULL, a->idle_ns);
	EXPECT_EQ(0ULL, a->busy_ns);
	EXPECT_EQ(0ULL, a->iowait_ns);
	EXPECT_EQ(0ULL, a->blk_local_ns);
	EXPECT_EQ(0ULL, a->blk_any_ns);
	EXPECT_EQ(100ULL, a->t);
	EXPECT_EQ(50ULL, a->g_snap);
	iowprobe_acct_set_online(a, 100, 50, 1);
	EXPECT_EQ(0ULL, a->idle_ns);
	iowprobe_acct_close(a, 110, 55);
	iowprobe_acct_set_online(a, 120, 60, 0);
	EXPECT_EQ(0, a->online);
	EXPECT_EQ(20ULL, a->idle_ns);
	EXPECT_EQ(20ULL, a->iowait_ns);
	EXPECT_EQ(20ULL, a->blk_local_ns);
	EXPECT_EQ(10ULL, a->blk_any_ns);
	iowprobe_acct_close(a, 200, 100);
	EXPECT_EQ(20ULL, a->idle_ns);
	EXPECT_EQ(20ULL, a->iowait_ns);
	EXPECT_EQ(20ULL, a->blk_local_ns);
	EXPECT_EQ(10ULL, a->blk_any_ns);
	EXPECT_EQ(0ULL, a->busy_ns);
	EXPECT_EQ(100ULL, a->g_snap);
}

/*
 * Busy 0..100 (G 7).  A close at 90 with G 3 (both back) adds nothing
 * and keeps t 100, g_snap 7.  Idle "from 95" is idle from 100; a sleeper
 * at 105 (G 9): idle 5, blk_any min(9 - 7, 5) = 2.  A close at 104 (back):
 * nothing.  At 110 (G 12): idle 10, iowait 5, blk_any 2 + 3 = 5, busy
 * still 100: no underflow anywhere.
 */
TEST_F(acct, clock_back_adds_nothing)
{
	struct iowprobe_acct *a = &self->a;

	iowprobe_acct_close(a, 100, 7);
	EXPECT_EQ(100ULL, a->busy_ns);
	iowprobe_acct_close(a, 90, 3);
	EXPECT_EQ(100ULL, a->busy_ns);
	EXPECT_EQ(100ULL, a->t);
	EXPECT_EQ(7ULL, a->g_snap);
	iowprobe_acct_set_idle(a, 95, 7, 1);
	EXPECT_EQ(100ULL, a->busy_ns);
	EXPECT_EQ(0ULL, a->idle_ns);
	iowprobe_acct_add_mirror(a, 105, 9, 1);
	EXPECT_EQ(5ULL, a->idle_ns);
	EXPECT_EQ(2ULL, a->blk_any_ns);
	iowprobe_acct_close(a, 104, 8);
	EXPECT_EQ(5ULL, a->idle_ns);
	EXPECT_EQ(0ULL, a->iowait_ns);
	EXPECT_EQ(105ULL, a->t);
	EXPECT_EQ(9ULL, a->g_snap);
	iowprobe_acct_close(a, 110, 12);
	EXPECT_EQ(10ULL, a->idle_ns);
	EXPECT_EQ(5ULL, a->iowait_ns);
	EXPECT_EQ(5ULL, a->blk_any_ns);
	EXPECT_EQ(100ULL, a->busy_ns);
}

/*
 * Busy 0..10, idle from 10, a sleeper from 12, a local request from 14,
 * G 4 at 20.  A peek at 20: busy 10, idle 10, iowait 8, blk_local 6,
 * blk_any 4, t 20; the state itself is untouched, and the peek equals a
 * close of a copy at 20.
 */
TEST_F(acct, peek_changes_nothing_and_equals_close)
{
	struct iowprobe_acct *a = &self->a;
	struct iowprobe_acct before, out, closed;

	iowprobe_acct_set_idle(a, 10, 0, 1);
	iowprobe_acct_add_mirror(a, 12, 0, 1);
	iowprobe_acct_add_lfl(a, 14, 0, 1);
	before = *a;
	iowprobe_acct_peek(a, 20, 4, &out);
	EXPECT_ACCT_EQ(before, *a);
	EXPECT_EQ(10ULL, out.busy_ns);
	EXPECT_EQ(10ULL, out.idle_ns);
	EXPECT_EQ(8ULL, out.iowait_ns);
	EXPECT_EQ(6ULL, out.blk_local_ns);
	EXPECT_EQ(4ULL, out.blk_any_ns);
	EXPECT_EQ(20ULL, out.t);
	EXPECT_EQ(4ULL, out.g_snap);
	EXPECT_EQ(1, out.mirror);
	EXPECT_EQ(1, out.lfl);
	closed = *a;
	iowprobe_acct_close(&closed, 20, 4);
	EXPECT_ACCT_EQ(closed, out);
}

/* ---- struct iowprobe_gclock ---- */

TEST(gclock_stopped_does_not_advance)
{
	struct iowprobe_gclock g = { 0 };

	EXPECT_EQ(0ULL, iowprobe_gclock_read(&g, 100));
	iowprobe_gclock_set(&g, 10, 0);
	EXPECT_EQ(0ULL, iowprobe_gclock_read(&g, 100));
	EXPECT_EQ(0, g.running);
}

/* running 10..20 and 30..40: 5 at 15, 10 from 20 to 30, 20 from 40 on */
TEST(gclock_runs_while_set)
{
	struct iowprobe_gclock g = { 0 };

	iowprobe_gclock_set(&g, 10, 1);
	EXPECT_EQ(1, g.running);
	EXPECT_EQ(0ULL, iowprobe_gclock_read(&g, 10));
	EXPECT_EQ(5ULL, iowprobe_gclock_read(&g, 15));
	iowprobe_gclock_set(&g, 20, 0);
	EXPECT_EQ(10ULL, iowprobe_gclock_read(&g, 25));
	EXPECT_EQ(10ULL, iowprobe_gclock_read(&g, 1000));
	iowprobe_gclock_set(&g, 30, 1);
	EXPECT_EQ(15ULL, iowprobe_gclock_read(&g, 35));
	iowprobe_gclock_set(&g, 40, 0);
	EXPECT_EQ(20ULL, iowprobe_gclock_read(&g, 1000));
}

/*
 * Started twice at 10, set running again at 20: still 15 at 25, not 25
 * or 30.  Stopped twice at 30 (20), started again at 30: 30 at 40.
 */
TEST(gclock_set_twice_at_same_time)
{
	struct iowprobe_gclock g = { 0 };

	iowprobe_gclock_set(&g, 10, 1);
	iowprobe_gclock_set(&g, 10, 1);
	EXPECT_EQ(10ULL, iowprobe_gclock_read(&g, 20));
	iowprobe_gclock_set(&g, 20, 1);
	EXPECT_EQ(15ULL, iowprobe_gclock_read(&g, 25));
	iowprobe_gclock_set(&g, 30, 0);
	iowprobe_gclock_set(&g, 30, 0);
	EXPECT_EQ(20ULL, iowprobe_gclock_read(&g, 50));
	iowprobe_gclock_set(&g, 30, 1);
	EXPECT_EQ(30ULL, iowprobe_gclock_read(&g, 40));
}

/*
 * Started at 10: a read at 5 is 0, not 2^64 - 5.  A stop stamped 5 stops
 * it at 10 (nothing added, t kept); a restart stamped 8 runs it from 10:
 * 2 at 12, 0 at 9, 10 when stopped at 20.
 */
TEST(gclock_time_going_back)
{
	struct iowprobe_gclock g = { 0 };

	iowprobe_gclock_set(&g, 10, 1);
	EXPECT_EQ(0ULL, iowprobe_gclock_read(&g, 5));
	iowprobe_gclock_set(&g, 5, 0);
	EXPECT_EQ(0ULL, g.acc);
	EXPECT_EQ(10ULL, g.t);
	EXPECT_EQ(0ULL, iowprobe_gclock_read(&g, 100));
	iowprobe_gclock_set(&g, 8, 1);
	EXPECT_EQ(10ULL, g.t);
	EXPECT_EQ(2ULL, iowprobe_gclock_read(&g, 12));
	EXPECT_EQ(0ULL, iowprobe_gclock_read(&g, 9));
	iowprobe_gclock_set(&g, 20, 0);
	EXPECT_EQ(10ULL, iowprobe_gclock_read(&g, 100));
}

/* ---- latency slots and verdict tables ---- */

/* slot i holds [2^i, 2^(i+1)); 0 goes to slot 0; 2^40 and up to slot 39 */
TEST(lat_slot)
{
	static const struct {
		__u64 ns;
		__u32 slot;
	} cases[] = {
		{ 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 1 }, { 4, 2 },
		{ 1023, 9 }, { 1024, 10 }, { 1ULL << 39, 39 },
		{ (1ULL << 40) - 1, 39 }, { 1ULL << 40, 39 },
		{ 1ULL << 63, 39 }, { UINT64_MAX, 39 },
	};
	unsigned int i, k;

	ASSERT_EQ(40, IOWPROBE_LAT_SLOTS);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (iowprobe_lat_slot(cases[i].ns) != cases[i].slot)
			TH_LOG("ns %llu", (unsigned long long)cases[i].ns);
		EXPECT_EQ(cases[i].slot, iowprobe_lat_slot(cases[i].ns));
	}
	/* every power of two and its predecessor, by the same rule */
	for (k = 1; k < 64; k++) {
		EXPECT_EQ(k < 40 ? k : 39U, iowprobe_lat_slot(1ULL << k));
		EXPECT_EQ(k - 1 < 40 ? k - 1 : 39U,
			  iowprobe_lat_slot((1ULL << k) - 1));
	}
}

/*
 * Counted only when not preempted, in_iowait and off the runqueue
 * (delayed or not); pending when still queued because delayed.
 */
TEST(switch_verdict_table)
{
	static const struct {
		int preempt, in_iowait, on_rq, delayed;
		enum iowprobe_switch_verdict v;
	} cases[] = {
		{ 0, 0, 0, 0, IOWPROBE_SW_NONE },
		{ 0, 0, 0, 1, IOWPROBE_SW_NONE },
		{ 0, 0, 1, 0, IOWPROBE_SW_NONE },
		{ 0, 0, 1, 1, IOWPROBE_SW_NONE },
		{ 0, 1, 0, 0, IOWPROBE_SW_COUNT },
		{ 0, 1, 0, 1, IOWPROBE_SW_COUNT },
		{ 0, 1, 1, 0, IOWPROBE_SW_NONE },	/* signal pending */
		{ 0, 1, 1, 1, IOWPROBE_SW_PENDING },	/* 6.12 delayed */
		{ 1, 0, 0, 0, IOWPROBE_SW_NONE },
		{ 1, 0, 0, 1, IOWPROBE_SW_NONE },
		{ 1, 0, 1, 0, IOWPROBE_SW_NONE },
		{ 1, 0, 1, 1, IOWPROBE_SW_NONE },
		{ 1, 1, 0, 0, IOWPROBE_SW_NONE },
		{ 1, 1, 0, 1, IOWPROBE_SW_NONE },
		{ 1, 1, 1, 0, IOWPROBE_SW_NONE },	/* preempted sleeper */
		{ 1, 1, 1, 1, IOWPROBE_SW_NONE },
	};
	enum iowprobe_switch_verdict v;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		v = iowprobe_switch_verdict(cases[i].preempt,
					    cases[i].in_iowait,
					    cases[i].on_rq, cases[i].delayed);
		if (v != cases[i].v)
			TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].v, v);
	}
}

/*
 * Migration: a counted task moves only in ttwu (waking): the kernel
 * decremented; a pending one is dropped by ttwu (blocked at pick, then
 * woken: net zero) or followed by the load balancer.  Wakeup: counted is
 * decremented, pending dropped.  An unknown state is an anomaly.
 */
TEST(wake_action_tables)
{
	static const struct {
		int waking, state;
		enum iowprobe_wake_action migrate, wakeup;
	} cases[] = {
		{ 1, IOWPROBE_T_COUNTED, IOWPROBE_W_DEC, IOWPROBE_W_DEC },
		{ 0, IOWPROBE_T_COUNTED, IOWPROBE_W_ANOMALY, IOWPROBE_W_DEC },
		{ 1, IOWPROBE_T_PENDING, IOWPROBE_W_DROP, IOWPROBE_W_DROP },
		{ 0, IOWPROBE_T_PENDING, IOWPROBE_W_MOVE, IOWPROBE_W_DROP },
		{ 1, 0, IOWPROBE_W_ANOMALY, IOWPROBE_W_ANOMALY },
		{ 0, 0, IOWPROBE_W_ANOMALY, IOWPROBE_W_ANOMALY },
		{ 0, 3, IOWPROBE_W_ANOMALY, IOWPROBE_W_ANOMALY },
	};
	enum iowprobe_wake_action mv, wk;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		mv = iowprobe_migrate_action(cases[i].waking, cases[i].state);
		wk = iowprobe_wakeup_action(cases[i].state);
		if (mv != cases[i].migrate || wk != cases[i].wakeup)
			TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].migrate, mv);
		EXPECT_EQ(cases[i].wakeup, wk);
	}
}

/* ---- the model: kernel half and module half ---- */

#define NCPU	3
#define IDLE	(-1)

enum { A, B, C, D, E, NTASK };

enum kstate { K_RUNNING, K_SLEEPING, K_WAKING };

/* struct ktask - the task_struct fields the probes read */
struct ktask {
	enum kstate state;	/* __state */
	int in_iowait;
	int on_rq;		/* 0, 1, or 2 (TASK_ON_RQ_MIGRATING) */
	int delayed;		/* 6.12 se.sched_delayed */
	int cpu;		/* task_cpu() */
	int on_cpu;
	int ineligible;		/* 6.12: its sleeps are delayed dequeues */
	int signal;		/* a signal is pending: its sleep fails */
};

/* struct mentry - acct.c's table entry of a followed task */
struct mentry {
	int used;		/* in the table */
	int listed;		/* on the pending list of @cpu */
	int cpu;
	int state;		/* enum iowprobe_task_state */
};

struct mcounters {
	__u64 sleeps;
	__u64 wakeups;
	__u64 remote_dec_idle;
	__u64 anomalies;
};

struct model {
	__u64 now;
	struct iowprobe_gclock g;
	/* module half */
	struct iowprobe_acct acct[NCPU];
	struct mcounters cnt[NCPU];
	struct mentry e[NTASK];
	__u64 late_block;
	__u64 seeded;
	__u64 seed_raced;
	/* kernel half */
	struct ktask t[NTASK];
	int nr_iowait[NCPU];
	int curr[NCPU];
	/* seeding races: the kernel wakes the task at these points */
	void (*before_publish)(struct model *m, int p);
	void (*after_publish)(struct model *m, int p);
};

static const struct ktask idle_task;

static const struct ktask *task(const struct model *m, int p)
{
	return p == IDLE ? &idle_task : &m->t[p];
}

static void at(struct model *m, __u64 now)
{
	m->now = now;
}

static __u64 gnow(const struct model *m)
{
	return iowprobe_gclock_read(&m->g, m->now);
}

static int followed(const struct model *m)
{
	int p, n = 0;

	for (p = 0; p < NTASK; p++)
		n += m->e[p].used;
	return n;
}

static struct iowprobe_acct peek(struct model *m, int cpu, __u64 now)
{
	struct iowprobe_acct r;

	at(m, now);
	iowprobe_acct_peek(&m->acct[cpu], now, gnow(m), &r);
	return r;
}

/* The module half: acct.c with the table, lists and locks taken away. */

static void mod_add_mirror(struct model *m, int cpu, int delta)
{
	iowprobe_acct_add_mirror(&m->acct[cpu], m->now, gnow(m), delta);
}

/* acct.c release(); the probe runs on @this_cpu */
static void mod_release(struct model *m, int p, int this_cpu, bool dec)
{
	struct mentry *e = &m->e[p];
	int c = e->cpu;

	if (e->state == IOWPROBE_T_PENDING) {
		e->listed = 0;
	} else if (dec) {
		mod_add_mirror(m, c, -1);
		m->cnt[c].wakeups++;
		if (m->acct[c].idle && c != this_cpu)
			m->cnt[c].remote_dec_idle++;
	} else {
		mod_add_mirror(m, c, -1);
	}
	e->used = 0;
}

/* acct.c follow() */
static void mod_follow(struct model *m, int p, int cpu, int state)
{
	struct mentry *e = &m->e[p];

	if (e->used) {
		m->cnt[e->cpu].anomalies++;
		mod_release(m, p, cpu, false);
	}
	e->used = 1;
	e->listed = 0;
	e->cpu = cpu;
	e->state = state;
}

/* acct.c charge() */
static void mod_charge(struct model *m, int cpu, int p)
{
	if (m->e[p].state == IOWPROBE_T_COUNTED) {
		mod_add_mirror(m, cpu, 1);
		m->cnt[cpu].sleeps++;
	} else {
		m->e[p].listed = 1;
	}
}

static bool mod_pending(const struct model *m, int cpu)
{
	int p;

	for (p = 0; p < NTASK; p++)
		if (m->e[p].listed && m->e[p].cpu == cpu)
			return true;
	return false;
}

/* acct.c reconcile() */
static void mod_reconcile(struct model *m, int cpu, bool was_idle)
{
	struct mentry *e;
	int p;

	for (p = 0; p < NTASK; p++) {
		e = &m->e[p];
		if (!e->listed || e->cpu != cpu || m->t[p].on_rq)
			continue;
		e->listed = 0;
		e->state = IOWPROBE_T_COUNTED;
		mod_charge(m, cpu, p);
		if (was_idle)
			m->late_block++;
	}
}

/* acct.c iowprobe_on_switch() */
static void mod_switch(struct model *m, int cpu, bool preempt, int prev,
		       int next)
{
	bool was_idle = prev == IDLE, idle = next == IDLE;
	const struct ktask *t = task(m, prev);
	enum iowprobe_switch_verdict v;

	v = iowprobe_switch_verdict(preempt, t->in_iowait, t->on_rq,
				    t->delayed);
	if (v == IOWPROBE_SW_NONE && was_idle == idle && !mod_pending(m, cpu))
		return;
	if (v != IOWPROBE_SW_NONE)
		mod_follow(m, prev, cpu, v == IOWPROBE_SW_COUNT ?
			   IOWPROBE_T_COUNTED : IOWPROBE_T_PENDING);
	mod_reconcile(m, cpu, was_idle);
	if (v != IOWPROBE_SW_NONE)
		mod_charge(m, cpu, prev);
	if (was_idle != idle)
		iowprobe_acct_set_idle(&m->acct[cpu], m->now, gnow(m), idle);
}

/* probes.c + acct.c iowprobe_on_migrate() */
static void mod_migrate(struct model *m, int this_cpu, int p, int dest)
{
	struct mentry *e = &m->e[p];

	if (!m->t[p].in_iowait || !e->used)
		return;
	switch (iowprobe_migrate_action(m->t[p].state == K_WAKING,
					e->state)) {
	case IOWPROBE_W_DEC:
		mod_release(m, p, this_cpu, true);
		break;
	case IOWPROBE_W_DROP:
		mod_release(m, p, this_cpu, false);
		break;
	case IOWPROBE_W_MOVE:
		e->cpu = dest;
		break;
	default:
		m->cnt[e->cpu].anomalies++;
		break;
	}
}

/* probes.c + acct.c iowprobe_on_wakeup() */
static void mod_wakeup(struct model *m, int this_cpu, int p)
{
	if (!m->t[p].in_iowait || !m->e[p].used)
		return;
	mod_release(m, p, this_cpu,
		    iowprobe_wakeup_action(m->e[p].state) == IOWPROBE_W_DEC);
}

/* acct.c asleep() */
static bool k_asleep(const struct ktask *t)
{
	if (t->state == K_RUNNING || t->state == K_WAKING)
		return false;
	return !t->on_rq || t->delayed;
}

/* acct.c seed_one() */
static void mod_seed_one(struct model *m, int p,
			 enum iowprobe_switch_verdict v)
{
	int cpu = m->t[p].cpu;

	if (m->before_publish)
		m->before_publish(m, p);
	mod_follow(m, p, cpu, v == IOWPROBE_SW_COUNT ? IOWPROBE_T_COUNTED :
						       IOWPROBE_T_PENDING);
	mod_charge(m, cpu, p);
	if (m->after_publish)
		m->after_publish(m, p);
	if (k_asleep(&m->t[p])) {
		m->seeded++;
		return;
	}
	if (m->e[p].used) {
		mod_release(m, p, cpu, false);
		m->seed_raced++;
	}
}

/* acct.c iowprobe_seed() */
static void mod_seed(struct model *m)
{
	enum iowprobe_switch_verdict v;
	const struct ktask *t;
	int p;

	for (p = 0; p < NTASK; p++) {
		t = &m->t[p];
		if (!t->in_iowait || t->on_cpu || !k_asleep(t))
			continue;
		v = iowprobe_switch_verdict(0, 1, t->on_rq, t->delayed);
		if (v != IOWPROBE_SW_NONE)
			mod_seed_one(m, p, v);
	}
}

/*
 * The kernel half: nr_iowait by the kernel's rule
 * (doc/design.md#increment-and-decrement, doc/design.md#delayed-dequeue),
 * with the module's probes called where the tracepoints fire.
 */

/* k_block() - __block_task(): off the runqueue, +1 on @cpu if in_iowait */
static void k_block(struct model *m, int cpu, int p)
{
	struct ktask *t = &m->t[p];

	t->on_rq = 0;
	t->delayed = 0;
	if (t->in_iowait)
		m->nr_iowait[cpu]++;
}

/* k_io_wait() - io_schedule_prepare() and a sleep state, before schedule() */
static void k_io_wait(struct model *m, int p)
{
	m->t[p].in_iowait = 1;
	m->t[p].state = K_SLEEPING;
}

/* k_sleep() - a plain sleep (io_schedule_finish() restored in_iowait) */
static void k_sleep(struct model *m, int p)
{
	m->t[p].in_iowait = 0;
	m->t[p].state = K_SLEEPING;
}

/* k_switch() - __schedule() on @cpu from its current task to @next */
static void k_switch(struct model *m, int cpu, bool preempt, int next)
{
	int prev = m->curr[cpu];
	struct ktask *t = prev == IDLE ? NULL : &m->t[prev];

	if (t && !preempt && t->state == K_SLEEPING) {
		if (t->signal)		/* 6.12 also reports prev_state 0 */
			t->state = K_RUNNING;
		else if (t->ineligible)	/* dequeue delayed: no increment */
			t->delayed = 1;
		else
			k_block(m, cpu, prev);
	}
	mod_switch(m, cpu, preempt, prev, next);	/* sched_switch */
	if (t)
		t->on_cpu = 0;
	m->curr[cpu] = next;
	if (next != IDLE) {
		m->t[next].on_cpu = 1;
		m->t[next].cpu = cpu;
	}
}

/*
 * k_wake() - try_to_wake_up(@p) on @waker, placing it on @target
 * @ipi: ttwu_do_activate() runs on @target from the wakelist IPI
 *
 * sched_waking is not modelled: the module does nothing there.
 */
static void k_wake(struct model *m, int waker, int p, int target, bool ipi)
{
	struct ktask *t = &m->t[p];

	if (t->on_rq) {			/* ttwu_runnable(): no change */
		t->delayed = 0;
		t->state = K_RUNNING;
		mod_wakeup(m, waker, p);
		return;
	}
	t->state = K_WAKING;
	if (target != t->cpu) {		/* old rq, then set_task_cpu() */
		if (t->in_iowait)
			m->nr_iowait[t->cpu]--;
		mod_migrate(m, waker, p, target);
		t->cpu = target;
	} else if (t->in_iowait) {	/* ttwu_do_activate(), !WF_MIGRATED */
		m->nr_iowait[t->cpu]--;
	}
	t->on_rq = 1;
	t->state = K_RUNNING;
	mod_wakeup(m, ipi ? target : waker, p);
}

/* k_balance() - 6.12: the load balancer on @this_cpu moves queued @p */
static void k_balance(struct model *m, int this_cpu, int p, int dest)
{
	struct ktask *t = &m->t[p];

	t->on_rq = 2;
	mod_migrate(m, this_cpu, p, dest);
	t->cpu = dest;
	t->on_rq = 1;
}

/* k_preload() - @p fell asleep in iowait on @cpu before the probes */
static void k_preload(struct model *m, int p, int cpu, bool delayed)
{
	struct ktask *t = &m->t[p];

	t->in_iowait = 1;
	t->state = K_SLEEPING;
	t->cpu = cpu;
	t->on_cpu = 0;
	if (delayed) {
		t->delayed = 1;
	} else {
		t->on_rq = 0;
		m->nr_iowait[cpu]++;
	}
}

static void wake_in_place(struct model *m, int p)
{
	k_wake(m, m->t[p].cpu, p, m->t[p].cpu, false);
}

/* the module's mirror of @cpu and the kernel's count are both @n */
#define EXPECT_MIRROR(m, cpu, n) do {				\
	EXPECT_EQ((n), (m)->acct[(cpu)].mirror);		\
	EXPECT_EQ((n), (m)->nr_iowait[(cpu)]);			\
} while (0)

/* a peeked CPU's busy, idle and iowait time */
#define EXPECT_TIMES(r, busy, idle, iowait) do {		\
	EXPECT_EQ((__u64)(busy), (r).busy_ns);			\
	EXPECT_EQ((__u64)(idle), (r).idle_ns);			\
	EXPECT_EQ((__u64)(iowait), (r).iowait_ns);		\
} while (0)

/* every CPU online and idle from 0; every task runnable, not running */
FIXTURE(model) {
	struct model m;
};

FIXTURE_SETUP(model)
{
	struct model *m = &self->m;
	int i;

	memset(m, 0, sizeof(*m));
	for (i = 0; i < NCPU; i++) {
		m->acct[i].online = 1;
		m->acct[i].idle = 1;
		m->curr[i] = IDLE;
	}
	for (i = 0; i < NTASK; i++)
		m->t[i].on_rq = 1;
}

FIXTURE_TEARDOWN(model)
{
}

/*
 * CPU0: A runs 0..10 and sleeps in iowait (+1); the completion irq on
 * CPU0 wakes it at 30 (-1); it runs from 32.  At 40: busy 10 + 8 = 18,
 * idle 22, iowait 20.
 */
TEST_F(model, plain_sleep_wake_one_cpu)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	at(m, 10);
	k_io_wait(m, A);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 1);
	EXPECT_EQ(1, m->e[A].used);
	EXPECT_EQ(IOWPROBE_T_COUNTED, m->e[A].state);
	at(m, 30);
	k_wake(m, 0, A, 0, false);
	EXPECT_MIRROR(m, 0, 0);
	at(m, 32);
	k_switch(m, 0, false, A);
	r = peek(m, 0, 40);
	EXPECT_TIMES(r, 18, 22, 20);
	EXPECT_EQ(1ULL, m->cnt[0].sleeps);
	EXPECT_EQ(1ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0ULL, m->cnt[0].remote_dec_idle);
	EXPECT_EQ(0ULL, m->cnt[0].anomalies);
	EXPECT_EQ(0, followed(m));
}

/*
 * CPU0: A sets in_iowait and a sleep state but B preempts it at 10 before
 * schedule(): it stays queued, nothing is counted.  The completion wakes
 * it at 15 (ttwu_runnable); B sleeps at 20, A runs to 30, then sleeps
 * plainly: idle 30..40 is true idle.  busy 30, idle 10, iowait 0.
 */
TEST_F(model, preempted_iowait_task_not_counted)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	at(m, 10);
	k_io_wait(m, A);
	k_switch(m, 0, true, B);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(0, followed(m));
	at(m, 15);
	k_wake(m, 0, A, 0, false);
	at(m, 20);
	k_sleep(m, B);
	k_switch(m, 0, false, A);
	at(m, 30);
	k_sleep(m, A);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 0);
	r = peek(m, 0, 40);
	EXPECT_TIMES(r, 30, 10, 0);
	EXPECT_EQ(0ULL, m->cnt[0].sleeps);
	EXPECT_EQ(0ULL, m->cnt[0].wakeups);
}

/*
 * CPU0: A calls schedule() in iowait at 10 with a signal pending: 6.1
 * still reports prev_state != 0, but A stays queued (on_rq 1): no count.
 * B runs; A runs again at 20 and sleeps in iowait for real at 25 (+1),
 * woken on CPU0 at 35 (-1), runs at 36.  At 40: busy 25 + 4 = 29,
 * idle 11, iowait 10, one sleep, no anomaly.
 */
TEST_F(model, signal_pending_sleep_not_counted)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	at(m, 10);
	k_io_wait(m, A);
	m->t[A].signal = 1;
	k_switch(m, 0, false, B);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(1, m->t[A].on_rq);
	EXPECT_EQ(0, followed(m));
	at(m, 20);
	k_sleep(m, B);
	k_switch(m, 0, false, A);
	at(m, 25);
	m->t[A].signal = 0;
	k_io_wait(m, A);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 1);
	at(m, 35);
	k_wake(m, 0, A, 0, false);
	EXPECT_MIRROR(m, 0, 0);
	at(m, 36);
	k_switch(m, 0, false, A);
	r = peek(m, 0, 40);
	EXPECT_TIMES(r, 29, 11, 10);
	EXPECT_EQ(1ULL, m->cnt[0].sleeps);
	EXPECT_EQ(0ULL, m->cnt[0].anomalies);
}

/*
 * A sleeps in iowait on CPU0 at 10; CPU0 idles to the end.  B, running
 * on CPU1, wakes A at 30 and ttwu moves it to CPU1: the kernel
 * decrements CPU0 (task_rq before set_task_cpu), from CPU1, while CPU0
 * idles.  CPU1 never goes to -1.  At 50: CPU0 busy 10, idle 40,
 * iowait 20, one remote decrement on an idle CPU; CPU1 busy 50.
 */
TEST_F(model, migrating_wakeup_charges_sleep_cpu)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	k_switch(m, 1, false, B);
	at(m, 10);
	k_io_wait(m, A);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 1);
	at(m, 30);
	k_wake(m, 1, A, 1, false);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_MIRROR(m, 1, 0);
	EXPECT_EQ(0, followed(m));
	at(m, 31);
	k_sleep(m, B);
	k_switch(m, 1, false, A);
	r = peek(m, 0, 50);
	EXPECT_TIMES(r, 10, 40, 20);
	EXPECT_EQ(1ULL, m->cnt[0].wakeups);
	EXPECT_EQ(1ULL, m->cnt[0].remote_dec_idle);
	r = peek(m, 1, 50);
	EXPECT_EQ(50ULL, r.busy_ns);
	EXPECT_EQ(0ULL, r.iowait_ns);
	EXPECT_EQ(0ULL, m->cnt[1].wakeups);
	EXPECT_EQ(0ULL, m->cnt[1].remote_dec_idle);
}

/*
 * A sleeps in iowait on CPU0 at 10, CPU0 idles.  B on CPU1 wakes it for
 * CPU0 at 30 (sched_waking: nothing yet); CPU0 is idle, so ttwu queues
 * it on CPU0's wakelist and the IPI runs ttwu_do_activate() on CPU0 at
 * 31 (-1 there, local).  A runs at 32.  At 40: busy 18, idle 22,
 * iowait 21 (up to the decrement, not the waking), not remote.
 */
TEST_F(model, ipi_wakeup_decrements_on_sleep_cpu)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	k_switch(m, 1, false, B);
	at(m, 10);
	k_io_wait(m, A);
	k_switch(m, 0, false, IDLE);
	at(m, 31);
	k_wake(m, 1, A, 0, true);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_MIRROR(m, 1, 0);
	at(m, 32);
	k_switch(m, 0, false, A);
	r = peek(m, 0, 40);
	EXPECT_TIMES(r, 18, 22, 21);
	EXPECT_EQ(1ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0ULL, m->cnt[0].remote_dec_idle);
}

/*
 * A sleeps in iowait on CPU0 at 10 and C runs there; B on CPU1 wakes A
 * on CPU0 directly at 20 (same LLC, CPU0 busy): -1 on CPU0 from CPU1,
 * but CPU0 is not idle, so no iowait and no remote idle decrement.  C
 * sleeps at 25, A runs to 30 and sleeps plainly.  At 40: busy 30, idle
 * 10, iowait 0.
 */
TEST_F(model, remote_wakeup_of_busy_cpu)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	k_switch(m, 1, false, B);
	at(m, 10);
	k_io_wait(m, A);
	k_switch(m, 0, false, C);
	EXPECT_MIRROR(m, 0, 1);
	at(m, 20);
	k_wake(m, 1, A, 0, false);
	EXPECT_MIRROR(m, 0, 0);
	at(m, 25);
	k_sleep(m, C);
	k_switch(m, 0, false, A);
	at(m, 30);
	k_sleep(m, A);
	k_switch(m, 0, false, IDLE);
	r = peek(m, 0, 40);
	EXPECT_TIMES(r, 30, 10, 0);
	EXPECT_EQ(1ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0ULL, m->cnt[0].remote_dec_idle);
}

/*
 * CPU0: A sleeps in iowait at 10, B (also queued on CPU0) runs to 20 and
 * sleeps in iowait too: 2.  CPU1 wakes and takes A at 30 (1), then B at
 * 35 (0).  At 50: busy 20, idle 30, iowait 20..35 = 15, two remote
 * decrements on an idle CPU.
 */
TEST_F(model, two_sleepers_cut_at_each_wakeup)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	k_switch(m, 1, false, C);
	at(m, 10);
	k_io_wait(m, A);
	k_switch(m, 0, false, B);
	at(m, 20);
	k_io_wait(m, B);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 2);
	at(m, 30);
	k_wake(m, 1, A, 1, false);
	EXPECT_MIRROR(m, 0, 1);
	at(m, 35);
	k_wake(m, 1, B, 1, false);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_MIRROR(m, 1, 0);
	r = peek(m, 0, 50);
	EXPECT_TIMES(r, 20, 30, 15);
	EXPECT_EQ(2ULL, m->cnt[0].sleeps);
	EXPECT_EQ(2ULL, m->cnt[0].remote_dec_idle);
}

/*
 * 6.12, CPU0: A sleeps in iowait at 10 while not eligible: the dequeue is
 * delayed, A stays queued and uncounted, B runs.  At 20 B sleeps; the
 * pick finds A delayed and blocks it (+1, no tracepoint), then the switch
 * B -> idle counts it before the idle segment opens.  A is woken on CPU0
 * at 40 and runs at 41.  At 50: busy 20 + 9 = 29, idle 21, iowait 20.
 */
TEST_F(model, delayed_counted_at_next_switch)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	at(m, 10);
	m->t[A].ineligible = 1;
	k_io_wait(m, A);
	k_switch(m, 0, false, B);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(IOWPROBE_T_PENDING, m->e[A].state);
	EXPECT_EQ(1, m->e[A].listed);
	at(m, 20);
	k_sleep(m, B);
	k_block(m, 0, A);		/* pick_next_entity() */
	EXPECT_EQ(1, m->nr_iowait[0]);
	EXPECT_EQ(0, m->acct[0].mirror);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 1);
	EXPECT_EQ(IOWPROBE_T_COUNTED, m->e[A].state);
	EXPECT_EQ(0, m->e[A].listed);
	EXPECT_EQ(0ULL, m->late_block);
	at(m, 40);
	k_wake(m, 0, A, 0, false);
	EXPECT_MIRROR(m, 0, 0);
	at(m, 41);
	k_switch(m, 0, false, A);
	r = peek(m, 0, 50);
	EXPECT_TIMES(r, 29, 21, 20);
	EXPECT_EQ(1ULL, m->cnt[0].sleeps);
	EXPECT_EQ(1ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0, followed(m));
}

/*
 * 6.12, CPU0: A sleeps delayed at 10 (pending), B runs; the completion
 * wakes A at 15 while still queued: ttwu_runnable() requeues it, no +1
 * and no -1 ever; the entry is dropped.  B sleeps at 20, A runs to 30
 * and sleeps plainly.  At 40: busy 30, idle 10, iowait 0.
 */
TEST_F(model, delayed_woken_by_ttwu_runnable_never_counted)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	at(m, 10);
	m->t[A].ineligible = 1;
	k_io_wait(m, A);
	k_switch(m, 0, false, B);
	EXPECT_EQ(1, m->e[A].listed);
	at(m, 15);
	k_wake(m, 0, A, 0, false);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(0, followed(m));
	EXPECT_EQ(0, m->e[A].listed);
	at(m, 20);
	k_sleep(m, B);
	k_switch(m, 0, false, A);
	at(m, 30);
	m->t[A].ineligible = 0;
	k_sleep(m, A);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 0);
	r = peek(m, 0, 40);
	EXPECT_TIMES(r, 30, 10, 0);
	EXPECT_EQ(0ULL, m->cnt[0].sleeps);
	EXPECT_EQ(0ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0ULL, m->cnt[0].anomalies);
}

/*
 * 6.12: A sleeps delayed on CPU0 at 10, B runs on CPU0 to the end.  C on
 * CPU1 sleeps at 15; CPU1's newidle balance pulls A (sched_migrate_task,
 * not waking: the entry follows it), the pick blocks it on CPU1 (+1 on
 * CPU1) and CPU1 switches C -> idle.  CPU1's completion irq wakes A at
 * 35 (-1 on CPU1), A runs at 36.  At 50: CPU0 busy 50, iowait 0; CPU1
 * busy 15 + 14 = 29, idle 21, iowait 20.
 */
TEST_F(model, delayed_load_balanced_charges_destination)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	k_switch(m, 1, false, C);
	at(m, 10);
	m->t[A].ineligible = 1;
	k_io_wait(m, A);
	k_switch(m, 0, false, B);
	at(m, 15);
	k_sleep(m, C);
	k_balance(m, 1, A, 1);
	EXPECT_EQ(1, m->e[A].cpu);
	EXPECT_EQ(1, m->e[A].listed);
	EXPECT_EQ(IOWPROBE_T_PENDING, m->e[A].state);
	k_block(m, 1, A);
	k_switch(m, 1, false, IDLE);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_MIRROR(m, 1, 1);
	at(m, 35);
	k_wake(m, 1, A, 1, false);
	EXPECT_MIRROR(m, 1, 0);
	at(m, 36);
	k_switch(m, 1, false, A);
	r = peek(m, 0, 50);
	EXPECT_EQ(50ULL, r.busy_ns);
	EXPECT_EQ(0ULL, r.iowait_ns);
	EXPECT_EQ(0ULL, m->cnt[0].sleeps);
	r = peek(m, 1, 50);
	EXPECT_TIMES(r, 29, 21, 20);
	EXPECT_EQ(1ULL, m->cnt[1].sleeps);
	EXPECT_EQ(1ULL, m->cnt[1].wakeups);
	EXPECT_EQ(0ULL, m->cnt[1].anomalies);
}

/*
 * 6.12 race 5: A sleeps delayed on CPU0 at 10, B runs.  At 20, inside
 * CPU0's __schedule() (C preempts B), the pick blocks A (+1 on CPU0,
 * on_rq 0 visible), and before CPU0's sched_switch, D on CPU1 wakes A
 * and moves it (-1 on CPU0; sched_migrate_task while waking drops the
 * pending entry).  CPU0's switch finds nothing to reconcile.  Net zero on
 * both CPUs; CPU0 was busy throughout.
 */
TEST_F(model, pick_block_then_migrating_wakeup_nets_zero)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	k_switch(m, 1, false, D);
	at(m, 10);
	m->t[A].ineligible = 1;
	k_io_wait(m, A);
	k_switch(m, 0, false, B);
	at(m, 20);
	k_block(m, 0, A);
	EXPECT_EQ(1, m->nr_iowait[0]);
	k_wake(m, 1, A, 1, false);
	EXPECT_EQ(0, followed(m));
	EXPECT_EQ(0, m->e[A].listed);
	k_switch(m, 0, true, C);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_MIRROR(m, 1, 0);
	at(m, 21);
	k_sleep(m, D);
	k_switch(m, 1, false, A);
	r = peek(m, 0, 30);
	EXPECT_EQ(30ULL, r.busy_ns);
	EXPECT_EQ(0ULL, r.iowait_ns);
	EXPECT_EQ(0ULL, m->cnt[0].sleeps);
	EXPECT_EQ(0ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0ULL, m->cnt[0].anomalies);
	EXPECT_EQ(0ULL, m->late_block);
}

/*
 * 6.12 race 4, the exception: A, delayed on CPU0, is in a throttled
 * cfs_rq, so CPU0 idles at 20 with A still queued.  At 30
 * wait_task_inactive() elsewhere blocks it (+1 on CPU0, no tracepoint)
 * while CPU0 idles; the module sees it only at CPU0's next switch (40),
 * counts it there and reports it as a late block.  The kernel's rule
 * gives iowait 30..40 that the module misses: the documented bound.
 * A is woken on CPU0 at 50.  At 60: busy 20 + 20 = 40, idle 20, iowait 0.
 */
TEST_F(model, delayed_blocked_while_idle_is_late)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	at(m, 0);
	k_switch(m, 0, false, A);
	at(m, 10);
	m->t[A].ineligible = 1;
	k_io_wait(m, A);
	k_switch(m, 0, false, B);
	at(m, 20);
	k_sleep(m, B);
	k_switch(m, 0, false, IDLE);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(1, m->e[A].listed);
	at(m, 30);
	k_block(m, 0, A);
	EXPECT_EQ(1, m->nr_iowait[0]);
	EXPECT_EQ(0, m->acct[0].mirror);
	at(m, 40);
	k_switch(m, 0, false, C);
	EXPECT_MIRROR(m, 0, 1);
	EXPECT_EQ(1ULL, m->late_block);
	at(m, 50);
	k_wake(m, 0, A, 0, false);
	EXPECT_MIRROR(m, 0, 0);
	r = peek(m, 0, 60);
	EXPECT_TIMES(r, 40, 20, 0);
}

/*
 * A and B fell asleep in iowait on CPU0 before the probes existed: the
 * kernel counts 2, the module 0 (the warm-up gap, unseeded).  A wakes on
 * CPU0 at 10; B is taken to CPU1 at 20.  Both kernel decrements are
 * ignored: no mirror goes negative, no anomaly.  At 30: CPU0 idle 30,
 * iowait 0.
 */
TEST_F(model, unknown_task_wakeup_ignored)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	k_preload(m, A, 0, false);
	k_preload(m, B, 0, false);
	EXPECT_EQ(2, m->nr_iowait[0]);
	at(m, 10);
	k_wake(m, 0, A, 0, false);
	at(m, 20);
	k_wake(m, 1, B, 1, false);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_MIRROR(m, 1, 0);
	EXPECT_EQ(0, followed(m));
	r = peek(m, 0, 30);
	EXPECT_EQ(30ULL, r.idle_ns);
	EXPECT_EQ(0ULL, r.iowait_ns);
	EXPECT_EQ(0ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0ULL, m->cnt[0].anomalies);
	EXPECT_EQ(0ULL, m->cnt[1].anomalies);
}

/*
 * Before load: A asleep in iowait on CPU0 (counted), B delayed on CPU1
 * (6.12, uncounted), C asleep plainly, D running on CPU1 with in_iowait
 * set, E a preempted iowait sleeper on CPU0 (queued, not delayed).
 * Seeding follows A as counted and B as pending, nothing else.  At 10
 * CPU2 wakes A and takes it (-1 on CPU0, remote, idle).  At 20 D sleeps,
 * the pick blocks B on CPU1 (+1), counted at the switch; B wakes on CPU1
 * at 30 (-1).  At 40: CPU0 idle 40, iowait 10; CPU1 busy 20, idle 20,
 * iowait 10.
 */
TEST_F(model, seed_follows_sleepers_from_before_load)
{
	struct model *m = &self->m;
	struct iowprobe_acct r;

	k_switch(m, 1, false, D);
	m->t[D].in_iowait = 1;
	k_preload(m, A, 0, false);
	k_preload(m, B, 1, true);
	m->t[C].state = K_SLEEPING;
	m->t[C].on_rq = 0;
	k_io_wait(m, E);
	mod_seed(m);
	EXPECT_EQ(2ULL, m->seeded);
	EXPECT_EQ(0ULL, m->seed_raced);
	EXPECT_MIRROR(m, 0, 1);
	EXPECT_MIRROR(m, 1, 0);
	EXPECT_EQ(IOWPROBE_T_COUNTED, m->e[A].state);
	EXPECT_EQ(IOWPROBE_T_PENDING, m->e[B].state);
	EXPECT_EQ(1, m->e[B].listed);
	EXPECT_EQ(1, m->e[B].cpu);
	EXPECT_EQ(2, followed(m));
	at(m, 10);
	k_wake(m, 2, A, 2, false);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(1ULL, m->cnt[0].remote_dec_idle);
	at(m, 20);
	k_sleep(m, D);
	k_block(m, 1, B);
	k_switch(m, 1, false, IDLE);
	EXPECT_MIRROR(m, 1, 1);
	at(m, 30);
	k_wake(m, 1, B, 1, false);
	EXPECT_MIRROR(m, 1, 0);
	EXPECT_EQ(0, followed(m));
	r = peek(m, 0, 40);
	EXPECT_EQ(40ULL, r.idle_ns);
	EXPECT_EQ(10ULL, r.iowait_ns);
	r = peek(m, 1, 40);
	EXPECT_TIMES(r, 20, 20, 10);
}

/*
 * A wakes between the scan and the entry's publication: the wakeup sees
 * no entry, seeding counts (+1), the recheck sees A awake and takes the
 * entry back (-1): a seed race, mirror 0 like the kernel's count.
 */
TEST_F(model, seed_races_wakeup_before_publish)
{
	struct model *m = &self->m;

	k_preload(m, A, 0, false);
	m->before_publish = wake_in_place;
	mod_seed(m);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(0ULL, m->seeded);
	EXPECT_EQ(1ULL, m->seed_raced);
	EXPECT_EQ(0ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0, followed(m));
}

/*
 * A wakes after the entry is published: the wakeup finds it and
 * decrements; the recheck finds A awake and no entry left: neither
 * seeded nor raced, mirror 0 like the kernel's count.
 */
TEST_F(model, seed_races_wakeup_after_publish)
{
	struct model *m = &self->m;

	k_preload(m, A, 0, false);
	m->after_publish = wake_in_place;
	mod_seed(m);
	EXPECT_MIRROR(m, 0, 0);
	EXPECT_EQ(0ULL, m->seeded);
	EXPECT_EQ(0ULL, m->seed_raced);
	EXPECT_EQ(1ULL, m->cnt[0].wakeups);
	EXPECT_EQ(0, followed(m));
}

TEST_HARNESS_MAIN
