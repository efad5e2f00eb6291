// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowstat_calc_test.c - iowstat's arithmetic on hand-built snapshots:
 * vmstat's formulas (expected values worked out by hand from procps
 * 4.0.2), the exact group, the per-CPU rows and re-baselining.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "delta.h"
#include "view_cpus.h"
#include "view_vmstat.h"

#define G	1000000000ull

FIXTURE(two) {
	struct iowstat_snapshot *a, *b;
	struct iowstat_delta *d;
	struct iowstat_meta m;
	struct vmstat_opts o;
};

static void set_cpu(struct iowstat_snapshot *s, unsigned int i,
		    uint64_t busy, uint64_t idle, uint64_t iow, uint64_t bl,
		    uint64_t ba, uint64_t kidle, uint64_t kiow)
{
	struct iowstat_cpu *c = &s->cpu[i];

	c->present = true;
	c->v[IOWPROBE_COL_busy_ns] = busy;
	c->v[IOWPROBE_COL_idle_ns] = idle;
	c->v[IOWPROBE_COL_iowait_ns] = iow;
	c->v[IOWPROBE_COL_blk_local_ns] = bl;
	c->v[IOWPROBE_COL_blk_any_ns] = ba;
	c->v[IOWPROBE_COL_k_idle_ns] = kidle;
	c->v[IOWPROBE_COL_k_iowait_ns] = kiow;
	if (i + 1 > s->nr_cpus)
		s->nr_cpus = i + 1;
}

static void set_ticks(struct iowstat_snapshot *s, uint64_t us, uint64_t sy,
		      uint64_t id, uint64_t wa, uint64_t st, uint64_t gu)
{
	memset(&s->stat_all, 0, sizeof(s->stat_all));
	s->stat_all.t[T_USER] = us;
	s->stat_all.t[T_SYSTEM] = sy;
	s->stat_all.t[T_IDLE] = id;
	s->stat_all.t[T_IOWAIT] = wa;
	s->stat_all.t[T_STEAL] = st;
	s->stat_all.t[T_GUEST] = gu;
}

FIXTURE_SETUP(two)
{
	self->a = calloc(1, sizeof(*self->a));
	self->b = calloc(1, sizeof(*self->b));
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(self->a && self->b && self->d);
	self->m.hz = 100;
	self->m.pagesize = 4096;
	self->o.unit = 1024;
	self->o.interval = 2;
}

FIXTURE_TEARDOWN(two)
{
	free(self->a);
	free(self->b);
	free(self->d);
}

/*
 * Since boot: ticks 300 us, 100 sy, 550 id, 50 wa -> Div 1000, Div/2 500.
 * us = (30000 + 500) / 1000 = 30, wa = (5000 + 500) / 1000 = 5.
 * intr 12345: (12345 * 100 + 500) / 1000 = 1235 (1234.5 + 0.5 rounds up).
 * pswpin 7 pages = 28 KiB: (2800 + 500) / 1000 = 3.
 */
TEST_F(two, vmstat_since_boot)
{
	unsigned long v[VM_NR];

	set_ticks(self->a, 300, 100, 550, 50, 0, 0);
	self->a->intr = 12345;
	self->a->pswpin = 7;
	self->a->mem_free = 2048;
	vmstat_values(&self->m, &self->o, self->a, NULL, self->a, v);
	EXPECT_EQ(30, v[VM_US]);
	EXPECT_EQ(10, v[VM_SY]);
	EXPECT_EQ(55, v[VM_ID]);
	EXPECT_EQ(5, v[VM_WA]);
	EXPECT_EQ(1235, v[VM_IN]);
	EXPECT_EQ(3, v[VM_SI]);
	EXPECT_EQ(2048, v[VM_FREE]);
}

/*
 * Interval 2 s, half = 1.  Δintr 5 -> (5 + 1) / 2 = 3.  Δpgpgin 4 -> 2.
 * Δticks: us 10 (guest 4 of it), id 7, wa 3 -> Div 20: us = (600+10)/20
 * = 30, id = (700 + 10) / 20 = 35, wa = (300 + 10) / 20 = 15, gu = 20.
 * Memory with -S M: 3 GiB in KiB -> 3072.
 */
TEST_F(two, vmstat_interval)
{
	unsigned long v[VM_NR];

	set_ticks(self->a, 100, 0, 100, 100, 0, 10);
	set_ticks(self->b, 110, 0, 107, 103, 0, 14);
	self->b->intr = 5;
	self->b->pgpgin = 4;
	self->a->mem_free = 3 * 1024 * 1024;
	self->o.unit = 1048576;
	vmstat_values(&self->m, &self->o, self->a, self->a, self->b, v);
	EXPECT_EQ(3, v[VM_IN]);
	EXPECT_EQ(2, v[VM_BI]);
	EXPECT_EQ(30, v[VM_US]);
	EXPECT_EQ(35, v[VM_ID]);
	EXPECT_EQ(15, v[VM_WA]);
	EXPECT_EQ(20, v[VM_GU]);
	EXPECT_EQ(3072, v[VM_FREE]);
}

/* A tick column running backwards is clamped at 0, as procps does. */
TEST_F(two, vmstat_ticks_backwards)
{
	unsigned long v[VM_NR];

	set_ticks(self->a, 100, 0, 100, 100, 0, 0);
	set_ticks(self->b, 110, 0, 90, 110, 0, 0);
	vmstat_values(&self->m, &self->o, self->a, self->a, self->b, v);
	EXPECT_EQ(0, v[VM_ID]);
	EXPECT_EQ(50, v[VM_US]);
	EXPECT_EQ(50, v[VM_WA]);
}

/* No ticks at all: procps divides by 1 and calls it idle. */
TEST_F(two, vmstat_zero_ticks)
{
	unsigned long v[VM_NR];

	vmstat_values(&self->m, &self->o, self->a, self->a, self->a, v);
	EXPECT_EQ(100, v[VM_ID]);
	EXPECT_EQ(0, v[VM_US]);
}

/* Exact group: 1 s of iowait over 4 s of two CPUs = 25; kernel wa 40. */
TEST_F(two, exact_group)
{
	long x[X_NR];

	set_cpu(self->a, 0, 0, 0, 0, 0, 0, 0, 0);
	set_cpu(self->a, 1, 0, 0, 0, 0, 0, 0, 0);
	set_cpu(self->b, 0, 1 * G, 1 * G, 1 * G, G / 2, G, 0, 0);
	set_cpu(self->b, 1, 2 * G, 0, 0, 0, 0, 0, 0);
	delta_compute(self->a, self->b, self->d, NULL);
	vmstat_exact(self->d, 40, x);
	EXPECT_EQ(25, x[X_WA]);
	EXPECT_EQ(13, x[X_BL]);		/* 12.5 rounds half up */
	EXPECT_EQ(25, x[X_BA]);
	EXPECT_EQ(15, x[X_ERR]);
}

TEST_F(two, exact_group_big_counters)
{
	long x[X_NR];

	/* 100 * ns overflows 64 bits after a few days of many CPUs */
	set_cpu(self->b, 0, 0, 16000000000000000000ull,
		4000000000000000000ull, 0, 0, 0, 0);
	delta_compute(NULL, self->b, self->d, NULL);
	vmstat_exact(self->d, 0, x);
	EXPECT_EQ(25, x[X_WA]);
}

TEST_F(two, cpu_row)
{
	struct cpu_row r;

	set_cpu(self->a, 0, 0, 0, 0, 0, 0, 0, 0);
	set_cpu(self->b, 0, G, 3 * G, G, G / 2, 2 * G, 2 * G, G / 4);
	delta_compute(self->a, self->b, self->d, NULL);
	cpu_row_compute(self->d->cpu[0], &r);
	EXPECT_EQ(5000, (int)(r.kidle * 100 + 0.5));
	EXPECT_EQ(625, (int)(r.kiowait * 100 + 0.5));
	EXPECT_EQ(5000, (int)(r.xidle * 100 + 0.5));
	EXPECT_EQ(2500, (int)(r.xiowait * 100 + 0.5));
	EXPECT_EQ(1250, (int)(r.xblk * 100 + 0.5));
	EXPECT_EQ(5000, (int)(r.xblkany * 100 + 0.5));
	EXPECT_EQ(-1875, (int)(r.err * 100 - 0.5));
}

/*
 * The since-load line: the kernel's since-boot idle/iowait less what they
 * read at load, so 50% kernel idle over the module's 4 s, not 1000 s of it
 */
TEST_F(two, since_load_kernel_view)
{
	struct cpu_row r;

	set_cpu(self->b, 0, 2 * G, 2 * G, G, 0, 0, 1002 * G, 101 * G);
	self->b->cpu[0].v[IOWPROBE_COL_k_idle_load_ns] = 1000 * G;
	self->b->cpu[0].v[IOWPROBE_COL_k_iowait_load_ns] = 100 * G;
	delta_compute(NULL, self->b, self->d, NULL);
	EXPECT_EQ(2 * G, self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_k_iowait_ns]);
	EXPECT_EQ(0, self->d->cpu[0][IOWPROBE_COL_k_idle_load_ns]);
	cpu_row_compute(self->d->cpu[0], &r);
	EXPECT_EQ(5000, (int)(r.kidle * 100 + 0.5));
	EXPECT_EQ(2500, (int)(r.kiowait * 100 + 0.5));

	/* between two samples the load columns change nothing */
	*self->a = *self->b;
	self->b->cpu[0].v[IOWPROBE_COL_k_idle_ns] += G;
	self->b->cpu[0].v[IOWPROBE_COL_idle_ns] += G;
	delta_compute(self->a, self->b, self->d, NULL);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
}

/* A CPU whose counters go back gives nothing for that interval, once. */
TEST_F(two, rebaseline)
{
	struct rebase_state rs = { 0 };

	set_cpu(self->a, 0, 10 * G, 10 * G, 5 * G, 0, 0, 9 * G, 5 * G);
	set_cpu(self->a, 1, 10 * G, 10 * G, 5 * G, 0, 0, 9 * G, 5 * G);
	set_cpu(self->b, 0, 11 * G, 11 * G, 6 * G, 0, 0, 10 * G, 5 * G);
	set_cpu(self->b, 1, G, G, 0, 0, 0, 10 * G, 5 * G);
	delta_compute(self->a, self->b, self->d, &rs);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_busy_ns]);
	EXPECT_EQ(0, self->d->cpu[1][IOWPROBE_COL_busy_ns]);
	EXPECT_EQ(0, self->d->cpu[1][IOWPROBE_COL_idle_ns]);
	EXPECT_EQ(2 * G, delta_total(self->d->all));
	EXPECT_TRUE(rs.warned[1]);
	EXPECT_FALSE(rs.warned[0]);

	EXPECT_FALSE(rs.moved_said[1]);
}

/*
 * The kernel moves 1 s of iowait to idle (it booked a waiting stretch as
 * idle after all): iowprobe's figures still count; the interval gets the
 * kernel's idle + iowait growth, 1 s, as idle, and the next interval's
 * iowait growth goes to idle until the two agree, so that the intervals
 * add up to each one's growth.  Said once.
 */
TEST_F(two, kernel_moves_time)
{
	struct rebase_state rs = { 0 };
	uint64_t idle1, iowait1;

	set_cpu(self->a, 0, 10 * G, 10 * G, 5 * G, 0, 0, 9 * G, 5 * G);
	set_cpu(self->b, 0, 11 * G, 11 * G, 6 * G, 0, 0, 11 * G, 4 * G);
	delta_compute(self->a, self->b, self->d, &rs);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_busy_ns]);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_iowait_ns]);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
	EXPECT_EQ(0, self->d->cpu[0][IOWPROBE_COL_k_iowait_ns]);
	EXPECT_EQ(2 * G, delta_total(self->d->all));
	EXPECT_EQ((int64_t)G, rs.iowait_ahead[0]);
	idle1 = self->d->cpu[0][IOWPROBE_COL_k_idle_ns];
	iowait1 = self->d->cpu[0][IOWPROBE_COL_k_iowait_ns];
	EXPECT_TRUE(rs.moved_said[0]);
	EXPECT_FALSE(rs.warned[0]);

	/* iowait grows 3 s, idle 0: 1 s of it to idle, then they agree */
	*self->a = *self->b;
	set_cpu(self->b, 0, 12 * G, 12 * G, 7 * G, 0, 0, 11 * G, 7 * G);
	delta_compute(self->a, self->b, self->d, &rs);
	EXPECT_EQ(2 * G, self->d->cpu[0][IOWPROBE_COL_k_iowait_ns]);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
	EXPECT_EQ(0, rs.iowait_ahead[0]);

	/* over both: idle 9 -> 11 and iowait 5 -> 7, as the kernel says */
	EXPECT_EQ(2 * G, idle1 + self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
	EXPECT_EQ(2 * G, iowait1 + self->d->cpu[0][IOWPROBE_COL_k_iowait_ns]);

	/* idle and iowait falling together: the kernel's figures re-based */
	*self->a = *self->b;
	set_cpu(self->b, 0, 13 * G, 13 * G, 8 * G, 0, 0, 10 * G, 7 * G);
	delta_compute(self->a, self->b, self->d, &rs);
	EXPECT_EQ(0, self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
	EXPECT_EQ(0, self->d->cpu[0][IOWPROBE_COL_k_iowait_ns]);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_iowait_ns]);
	EXPECT_TRUE(rs.kernel_rebased_said[0]);

	/* without a state kept, the interval's split alone */
	set_cpu(self->b, 0, 13 * G, 13 * G, 8 * G, 0, 0, 13 * G, 6 * G);
	delta_compute(self->a, self->b, self->d, NULL);
	EXPECT_EQ(0, self->d->cpu[0][IOWPROBE_COL_k_iowait_ns]);
	EXPECT_EQ(G, self->d->cpu[0][IOWPROBE_COL_k_idle_ns]);
}

TEST(cpu_sel)
{
	struct cpu_sel s;

	ASSERT_EQ(0, cpu_sel_parse("0,2,4-6", &s));
	EXPECT_TRUE(cpu_sel_has(&s, 0));
	EXPECT_FALSE(cpu_sel_has(&s, 1));
	EXPECT_TRUE(cpu_sel_has(&s, 5));
	EXPECT_EQ(7, s.max);
	ASSERT_EQ(0, cpu_sel_parse("ALL", &s));
	EXPECT_TRUE(cpu_sel_has(&s, 1000));
	EXPECT_NE(0, cpu_sel_parse("1,x", &s));
	EXPECT_NE(0, cpu_sel_parse("3-1", &s));
	EXPECT_NE(0, cpu_sel_parse("", &s));
	/* no empty element, nothing after the list; mpstat's ALL only */
	EXPECT_NE(0, cpu_sel_parse("0,,1", &s));
	EXPECT_NE(0, cpu_sel_parse("0,", &s));
	EXPECT_NE(0, cpu_sel_parse(",0", &s));
	EXPECT_NE(0, cpu_sel_parse("1-", &s));
	EXPECT_NE(0, cpu_sel_parse("0-1-2", &s));
	EXPECT_NE(0, cpu_sel_parse("all", &s));
}

TEST_HARNESS_MAIN
