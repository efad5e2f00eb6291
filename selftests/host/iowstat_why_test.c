// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowstat_why_test.c - --why's arithmetic on hand-built snapshots: the
 * disk's share of wa and the rest, the bound without iowait_blk_ns, the
 * kernel's over-count, PSI's split and the words themselves.  Expected
 * values are worked out by hand in each test's comment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "delta.h"
#include "why.h"

#define G	1000000000ull
#define M	1000000ull

FIXTURE(why) {
	struct iowstat_snapshot *a, *b;
	struct iowstat_delta *d;
	struct top_view tv;
	struct owner_row rows[2];
	struct top_row trows[2];
	struct why w;
};

/* set_cpu - one CPU's split; the kernel's view is its idle and iowait */
static void set_cpu(struct iowstat_snapshot *s, unsigned int i,
		    uint64_t busy, uint64_t idle, uint64_t iow, uint64_t bl,
		    uint64_t iow_blk)
{
	uint64_t *v = s->cpu[i].v;

	s->cpu[i].present = true;
	v[IOWPROBE_COL_busy_ns] = busy;
	v[IOWPROBE_COL_idle_ns] = idle;
	v[IOWPROBE_COL_iowait_ns] = iow;
	v[IOWPROBE_COL_blk_local_ns] = bl;
	v[IOWPROBE_COL_iowait_blk_ns] = iow_blk;
	v[IOWPROBE_COL_k_idle_ns] = idle - iow;
	v[IOWPROBE_COL_k_iowait_ns] = iow;
	if (i + 1 > s->nr_cpus)
		s->nr_cpus = i + 1;
	s->stat_cpu[i].present = true;
	s->stat_cpu[i].t[T_USER] = busy / (10 * M);
	if (i + 1 > s->nr_stat_cpus)
		s->nr_stat_cpus = i + 1;
}

FIXTURE_SETUP(why)
{
	self->a = calloc(1, sizeof(*self->a));
	self->b = calloc(1, sizeof(*self->b));
	self->d = calloc(1, sizeof(*self->d));
	ASSERT_TRUE(self->a && self->b && self->d);
	self->a->have = self->b->have = HAVE_CPUS | HAVE_IOWAIT_BLK | HAVE_PSI;
	self->a->mono_ns = 10 * G;
	self->b->mono_ns = 11 * G;
	set_cpu(self->a, 0, 0, 0, 0, 0, 0);
	set_cpu(self->a, 1, 0, 0, 0, 0, 0);
	/*
	 * One second: cpu0 idles 0.8 s, 0.6 s of it in iowait with no
	 * request (io_uring); cpu1 idles 0.5 s, 0.4 s in iowait, 0.35 s of
	 * it with a request of its own in flight (blk_local 0.45 s).
	 */
	set_cpu(self->b, 0, 200 * M, 800 * M, 600 * M, 0, 0);
	set_cpu(self->b, 1, 500 * M, 500 * M, 400 * M, 450 * M, 350 * M);
	self->b->psi_some_us = 700000;	/* 0.7 s of 1 s */
	self->b->psi_full_us = 300000;
	self->tv.rows = self->trows;
}

FIXTURE_TEARDOWN(why)
{
	free(self->a);
	free(self->b);
	free(self->d);
}

/*
 * Of 2 s of CPU time: wa 1.0 s = 50; disk 0.35 s = 17.5, rounded half
 * up as vmstat rounds = 18; no disk 50 - 18 = 32, so that the printed
 * parts add up.  No owner rows: no PSI split.
 */
TEST_F(why, disk_and_no_disk_add_up)
{
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, NULL, 100, &self->w);
	EXPECT_EQ(50, self->w.wa);
	EXPECT_EQ(18, self->w.disk);
	EXPECT_EQ(32, self->w.nodisk);
	EXPECT_EQ(50, self->w.kwa);
	EXPECT_FALSE(self->w.disk_bound);
	EXPECT_EQ(-1, self->w.over_cpu);
	EXPECT_EQ(70, self->w.psi_some);
	EXPECT_EQ(30, self->w.psi_full);
	EXPECT_EQ(-1, self->w.psi_disk);
}

/*
 * Without iowait_blk_ns (--bpf): per CPU the smaller of iowait and
 * blk_local, cpu0 min(0.6, 0) = 0, cpu1 min(0.4, 0.45) = 0.4: 20 points,
 * said to be a bound.  The module's column, 0 in the sample, is unused.
 */
TEST_F(why, bound_without_iowait_blk)
{
	self->a->have &= ~HAVE_IOWAIT_BLK;
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, NULL, 100, &self->w);
	EXPECT_EQ(400 * M, self->d->cpu[1][IOWPROBE_COL_iowait_blk_ns]);
	EXPECT_EQ(0ull, self->d->cpu[0][IOWPROBE_COL_iowait_blk_ns]);
	EXPECT_EQ(20, self->w.disk);
	EXPECT_EQ(30, self->w.nodisk);
	EXPECT_TRUE(self->w.disk_bound);
}

/*
 * /proc/stat's cpu1 grows 0.5 s busy (50 ticks) + 0.1 s idle + 0.48 s
 * iowait = 1.08 s in a 1 s wall: 108%, past the noise (2 ticks + 1% =
 * 1.03 s).  At 1.02 s it is noise: nothing said.
 */
TEST_F(why, over_count_past_the_ticks)
{
	self->b->cpu[1].v[IOWPROBE_COL_k_iowait_ns] = 480 * M;
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, NULL, 100, &self->w);
	EXPECT_EQ(1, self->w.over_cpu);
	EXPECT_EQ(108, self->w.over_pct);
	EXPECT_TRUE(why_wanted(&self->w, WHY_AUTO));

	self->b->cpu[1].v[IOWPROBE_COL_k_iowait_ns] = 420 * M;
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, NULL, 100, &self->w);
	EXPECT_EQ(-1, self->w.over_cpu);
}

/*
 * A run's sums can hide an interval's over-count: the run takes its
 * worst interval's, and says so; a larger one of its own stays
 */
TEST(over_worst_interval)
{
	struct why run = { .over_cpu = -1 };
	struct why a = { .over_cpu = 1, .over_pct = 113 };
	struct why b = { .over_cpu = 0, .over_pct = 104 };
	struct why none = { .over_cpu = -1 };

	why_over_worst(&run, &none);
	EXPECT_EQ(-1, run.over_cpu);
	why_over_worst(&run, &b);
	why_over_worst(&run, &a);
	why_over_worst(&run, &b);
	EXPECT_EQ(1, run.over_cpu);
	EXPECT_EQ(113, run.over_pct);
	EXPECT_TRUE(run.over_worst);
	run.over_pct = 120;
	run.over_worst = false;
	why_over_worst(&run, &a);
	EXPECT_EQ(120, run.over_pct);
	EXPECT_FALSE(run.over_worst);
}

/* The first line counts since boot: no over-count from it */
TEST_F(why, no_over_count_since_boot)
{
	self->b->cpu[1].v[IOWPROBE_COL_k_iowait_ns] = 900 * M;
	delta_compute(NULL, self->b, self->d, NULL);
	why_compute(self->d, NULL, 100, &self->w);
	EXPECT_EQ(-1, self->w.over_cpu);
	EXPECT_EQ(-1, self->w.psi_some);
}

/*
 * --why=auto: from 5 points of wa, of the kernel's wa or of their gap,
 * or an over-count; never and always regardless
 */
TEST_F(why, auto_threshold)
{
	struct why w = { .over_cpu = -1, .wa = 4, .kwa = 4 };

	EXPECT_FALSE(why_wanted(&w, WHY_AUTO));
	EXPECT_TRUE(why_wanted(&w, WHY_ALWAYS));
	w.wa = 5;
	EXPECT_TRUE(why_wanted(&w, WHY_AUTO));
	EXPECT_FALSE(why_wanted(&w, WHY_NEVER));
	w.wa = 0;
	w.kwa = 5;
	EXPECT_TRUE(why_wanted(&w, WHY_AUTO));
}

/* add_row - a process of the interval: wa and blk in %, its wait kind */
static void add_row(struct top_view *tv, struct owner_row *r,
		    struct top_row *t, uint64_t pid, const char *comm,
		    double wait, double wa, double blk, int kind)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	r->v[IOWPROBE_OCOL_WAIT(kind)] = 1;
	t->key = pid;
	t->row = r;
	t->wait = wait;
	t->wa = wa;
	t->blk = blk;
	t->waits_in = kind;
	tv->n++;
}

/*
 * The words: a reader (99% of its wait on its own requests, share 20)
 * and an io_uring waiter (share 30).  PSI some 70 cannot be split: its
 * disk part lies between 70 - (60 + 0.4) = 9.6 and 40 * 0.99 = 39.6.
 * The reader's share 20 and the per-CPU disk 18 differ by 2: the note
 * says which is which.  The kernel's wa is 50 as the exact: no
 * misbooking.
 */
TEST_F(why, words)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT_TRUE(f);
	add_row(&self->tv, &self->rows[0], &self->trows[0], 300, "iou_wait",
		60, 30, 0, IOWPROBE_WAIT_uring);
	add_row(&self->tv, &self->rows[1], &self->trows[1], 200, "dd", 40, 20,
		99, IOWPROBE_WAIT_rw);
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, &self->tv, 100, &self->w);
	EXPECT_EQ(-1, self->w.psi_disk);
	why_print(f, &self->w);
	fclose(f);
	EXPECT_STREQ("# wa 50 = disk 18 + no disk 32; kernel 50; psi io some "
		     "70 full 30\n"
		     "#   disk 18 (a request of the CPU in flight): no disk "
		     "named; dd[200] share 20 in rw\n"
		     "#   no disk 32 (no request of the CPU in flight): "
		     "iou_wait[300] share 30 in uring\n"
		     "#   disk and no disk are per CPU; a share is one "
		     "process's: 1/N of its CPU's iowait while N waited\n",
		     text);
	free(text);
}

/*
 * The reader alone, waiting 80% of the wall, 99% of it on its own
 * requests: PSI some 70's disk part lies between 70 - 0.8 = 69.2 and
 * min(70, 79.2) = 70, 0.8 apart: (69.2 + 70) / 2 = 69.6 -> 70.  PSI's
 * 1.05 s of a 1 s wall (two clocks) is at most 100.
 */
TEST_F(why, psi_split_where_it_can_be_told)
{
	add_row(&self->tv, &self->rows[0], &self->trows[0], 200, "dd", 80, 40,
		99, IOWPROBE_WAIT_rw);
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, &self->tv, 100, &self->w);
	EXPECT_EQ(70, self->w.psi_disk);
	self->b->psi_some_us = 1050000;
	delta_compute(self->a, self->b, self->d, NULL);
	why_compute(self->d, &self->tv, 100, &self->w);
	EXPECT_EQ(100, self->w.psi_some);
}

TEST_HARNESS_MAIN
