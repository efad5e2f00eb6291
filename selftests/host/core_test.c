// SPDX-License-Identifier: GPL-2.0-only
/*
 * core_test.c - host unit tests of the accounting core (include/iowprobe_core.h)
 *
 * The arithmetic of struct iowprobe_acct, struct iowprobe_gclock and the
 * count clock (include/iowprobe_cc.h), the latency slots and the verdict
 * tables, each function on its own.  How
 * kmod/acct.c, kmod/table.c and kmod/blk.c put them together, with their
 * tables, lists and locks, is tested on the module's own code in
 * acct_test.c.  Every expected value is worked out by hand in the
 * comment above its test.
 */
#include <asm/unistd_64.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"
#include "iowprobe_cc.h"
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
	EXPECT_EQ((x).iowait_blk_ns, (y).iowait_blk_ns);	\
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
 * The disk's share of iowait: idle 0..30; a sleeper 5..25 and 28..30
 * (mirror 1); a local request 0..10 and 20..30.  iowait 22, blk_local 20,
 * and iowait_blk only where both held: 5..10 + 20..25 + 28..30 = 12.
 * Busy time with both held (30..35) adds nothing.
 */
TEST_F(acct, iowait_blk_needs_both)
{
	struct iowprobe_acct *a = &self->a;

	iowprobe_acct_add_lfl(a, 0, 0, 1);
	iowprobe_acct_set_idle(a, 0, 0, 1);
	iowprobe_acct_add_mirror(a, 5, 0, 1);
	iowprobe_acct_add_lfl(a, 10, 0, -1);
	iowprobe_acct_add_lfl(a, 20, 0, 1);
	iowprobe_acct_add_mirror(a, 25, 0, -1);
	iowprobe_acct_add_mirror(a, 28, 0, 1);
	iowprobe_acct_set_idle(a, 30, 0, 0);
	iowprobe_acct_close(a, 35, 0);
	EXPECT_EQ(22ULL, a->iowait_ns);
	EXPECT_EQ(20ULL, a->blk_local_ns);
	EXPECT_EQ(12ULL, a->iowait_blk_ns);
	EXPECT_EQ(5ULL, a->busy_ns);
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

/* ---- the count clock (iowprobe_cc.h) ---- */

/* cc_next() of +1 at @now, or ~0 when the count would leave its range */
static __u64 cc_next_of(__u64 w, __s64 delta, __u64 now)
{
	__u64 out;

	return iowprobe_cc_next(w, delta, now, &out) ? ~0ULL : out;
}

/*
 * The module's +1 and -1 steps are the general step's, bit for bit, for
 * every count they are given (the start below IOWPROBE_CC_MAX, the stop
 * above 0), at clock values and instants either side of the wrap.
 */
TEST(cc_start_and_stop_are_cc_next_of_one)
{
	const __u64 counts[] = { 0, 1, 2, 3, 1000, IOWPROBE_CC_MAX - 1,
				 IOWPROBE_CC_MAX };
	const __u64 clocks[] = { 0, 1, 7, IOWPROBE_CC_MASK / 2,
				 IOWPROBE_CC_MASK - 1, IOWPROBE_CC_MASK };
	const __u64 nows[] = { 0, 5, 1000000007, IOWPROBE_CC_MASK,
			       IOWPROBE_CC_MASK + 3, 1ULL << 62, ~0ULL };
	unsigned int i, j, k, n = 0;

	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		for (j = 0; j < sizeof(clocks) / sizeof(clocks[0]); j++)
			for (k = 0; k < sizeof(nows) / sizeof(nows[0]); k++) {
				__u64 w = counts[i] << IOWPROBE_CC_SHIFT |
					  clocks[j];
				__u64 now = nows[k];

				if (counts[i] < IOWPROBE_CC_MAX) {
					ASSERT_EQ(cc_next_of(w, 1, now),
						  iowprobe_cc_start(w, now));
					n++;
				}
				if (counts[i] > 0) {
					ASSERT_EQ(cc_next_of(w, -1, now),
						  iowprobe_cc_stop(w, now));
					n++;
				}
			}
	EXPECT_EQ(2U * 7 * 6 * 7 - 2 * 6 * 7, n);
}

/*
 * Two requests, 10..30 and 20..50, then one 60..70: the clock runs 10..50
 * and 60..70, so it reads 0 at 10, 15 at 25, 40 at 55, 45 at 65, 50 at 99,
 * and counts 1, 2, 1, 0, 1, 0.
 */
TEST(cc_runs_while_any_is_counted)
{
	__u64 w = 0;

	w = iowprobe_cc_start(w, 10);
	EXPECT_EQ(1ULL, iowprobe_cc_count(w));
	EXPECT_EQ(0ULL, iowprobe_cc_value(w, 10));
	w = iowprobe_cc_start(w, 20);
	EXPECT_EQ(2ULL, iowprobe_cc_count(w));
	EXPECT_EQ(15ULL, iowprobe_cc_value(w, 25));
	w = iowprobe_cc_stop(w, 30);
	EXPECT_EQ(1ULL, iowprobe_cc_count(w));
	w = iowprobe_cc_stop(w, 50);
	EXPECT_EQ(0ULL, iowprobe_cc_count(w));
	EXPECT_EQ(40ULL, iowprobe_cc_value(w, 55));
	w = iowprobe_cc_start(w, 60);
	EXPECT_EQ(45ULL, iowprobe_cc_value(w, 65));
	w = iowprobe_cc_stop(w, 70);
	EXPECT_EQ(50ULL, iowprobe_cc_value(w, 99));
}

/*
 * A snapshot taken when the 46-bit value was 2^46 - 10: a value of 0 has
 * wrapped and is 10 ns on (snapshot + 10), 5 is snapshot + 15; a value 3 ns
 * behind the snapshot (a change stamped before the snapshot, stored after
 * it) unwraps to the snapshot.
 */
TEST(cc_unwrap_across_the_modulus)
{
	__u64 snap = (1ULL << 50) + IOWPROBE_CC_MASK - 9;

	EXPECT_EQ(snap + 10, iowprobe_cc_unwrap(0, snap));
	EXPECT_EQ(snap + 15, iowprobe_cc_unwrap(5, snap));
	EXPECT_EQ(snap, iowprobe_cc_unwrap((snap - 3) & IOWPROBE_CC_MASK,
					   snap));
}

/* ---- where a sleeper waits: the system call it is in ---- */

/*
 * The kinds of the doc (doc/abi.md, the wait_<kind>_ns columns), each
 * call by the C library's own number for it: a wrong number in the core
 * sorts that call as "other".
 */
TEST(wait_kind_by_system_call)
{
	static const struct {
		long nr;
		enum iowprobe_wait_kind kind;
	} calls[] = {
		{ __NR_io_uring_enter, IOWPROBE_WAIT_uring },
		{ __NR_read, IOWPROBE_WAIT_rw },
		{ __NR_write, IOWPROBE_WAIT_rw },
		{ __NR_pread64, IOWPROBE_WAIT_rw },
		{ __NR_pwrite64, IOWPROBE_WAIT_rw },
		{ __NR_readv, IOWPROBE_WAIT_rw },
		{ __NR_writev, IOWPROBE_WAIT_rw },
		{ __NR_preadv, IOWPROBE_WAIT_rw },
		{ __NR_pwritev, IOWPROBE_WAIT_rw },
		{ __NR_preadv2, IOWPROBE_WAIT_rw },
		{ __NR_pwritev2, IOWPROBE_WAIT_rw },
		{ __NR_sendfile, IOWPROBE_WAIT_rw },
		{ __NR_copy_file_range, IOWPROBE_WAIT_rw },
		{ __NR_splice, IOWPROBE_WAIT_rw },
		{ __NR_tee, IOWPROBE_WAIT_rw },
		{ __NR_vmsplice, IOWPROBE_WAIT_rw },
		{ __NR_fsync, IOWPROBE_WAIT_sync },
		{ __NR_fdatasync, IOWPROBE_WAIT_sync },
		{ __NR_sync, IOWPROBE_WAIT_sync },
		{ __NR_syncfs, IOWPROBE_WAIT_sync },
		{ __NR_sync_file_range, IOWPROBE_WAIT_sync },
		{ __NR_msync, IOWPROBE_WAIT_sync },
		{ -1, IOWPROBE_WAIT_fault },	/* no system call */
		{ __NR_openat, IOWPROBE_WAIT_other },
		{ __NR_execve, IOWPROBE_WAIT_other },
		{ __NR_io_uring_setup, IOWPROBE_WAIT_other },
		{ __NR_io_uring_register, IOWPROBE_WAIT_other },	/* 427 */
		{ __NR_io_getevents, IOWPROBE_WAIT_other },
		{ __NR_close, IOWPROBE_WAIT_other },
		{ 100000, IOWPROBE_WAIT_other },	/* no such call */
	};
	unsigned int i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (iowprobe_wait_kind_of(calls[i].nr) != calls[i].kind)
			TH_LOG("system call %ld", calls[i].nr);
		EXPECT_EQ(calls[i].kind, iowprobe_wait_kind_of(calls[i].nr));
	}
}

TEST_HARNESS_MAIN
