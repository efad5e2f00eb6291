// SPDX-License-Identifier: GPL-2.0-only
/*
 * delta.c - differences between two snapshots.  A CPU whose own counters
 * went backwards (module reloaded, CPU unplugged) contributes nothing for
 * that interval: it is re-baselined on the new values, and stderr says so
 * once per CPU.
 *
 * The kernel's idle or iowait also falls on its own: the kernel counts an
 * idle stretch still going on as iowait while a task sleeps in iowait,
 * and books it as idle if that task's wakeup came first.  Such a fall
 * costs none of iowprobe's figures.  Each interval gets the growth of the
 * kernel's idle + iowait, which never falls, and the iowait it has shown
 * too much is taken from its later growth, so that the intervals add up
 * to the run's growth of each (kernel_deltas()).  Only where the sum
 * falls (a reset, a damaged recording) are the kernel's figures
 * re-baselined.  Either is said once per CPU.
 */
#include <stdio.h>
#include <string.h>

#include "delta.h"
#include "util.h"

uint64_t delta_total(const uint64_t *v)
{
	return v[IOWPROBE_COL_busy_ns] + v[IOWPROBE_COL_idle_ns];
}

/*
 * delta_pct - at most 100: the kernel's idle (another clock, or ticks for
 * the BPF backend) can pass iowprobe's busy+idle, and so can any counter
 * of a damaged recording
 */
double delta_pct(uint64_t num, uint64_t den)
{
	if (!den)
		return 0.0;
	return num >= den ? 100.0 : 100.0 * (double)num / (double)den;
}

/* own_clock - iowprobe's own clocks, the split: they only ever grow */
static bool own_clock(unsigned char kind)
{
	return kind == IOWPROBE_SPLIT || kind == IOWPROBE_MSPLIT;
}

/* own_went_back - true when one of iowprobe's own clocks decreased */
static bool own_went_back(const struct iowstat_cpu *p,
			  const struct iowstat_cpu *c)
{
	unsigned int i;

	for (i = 0; i < IOWPROBE_COL_NR; i++)
		if (own_clock(iowstat_col_kind[i]) && c->v[i] < p->v[i])
			return true;
	return false;
}

/* say_once - true the first time for @said; NULL (no state kept): never */
static bool say_once(bool *said)
{
	if (!said || *said)
		return false;
	*said = true;
	return true;
}

static void warn_rebase(unsigned int cpu, struct rebase_state *rs)
{
	if (say_once(rs ? &rs->warned[cpu] : NULL))
		err_msg("cpu %u: iowprobe's counters (module reloaded?) went "
			"backwards; re-baselined (said once)\n", cpu);
}

static bool load_col(unsigned int k)
{
	return iowstat_col_kind[k] == IOWPROBE_KLOAD ||
	       iowstat_col_kind[k] == IOWPROBE_TLOAD;
}

/*
 * since_load - column @k of @c over the backend's whole life: the kernel's
 * since-boot figures less what they were at load, so that the first line
 * compares like with like
 */
static uint64_t since_load(const struct iowstat_cpu *c, unsigned int k)
{
	unsigned int base;

	switch (k) {
	case IOWPROBE_COL_k_idle_ns:
		base = IOWPROBE_COL_k_idle_load_ns;
		break;
	case IOWPROBE_COL_k_iowait_ns:
		base = IOWPROBE_COL_k_iowait_load_ns;
		break;
	case IOWPROBE_COL_t_idle_ns:
		base = IOWPROBE_COL_t_idle_load_ns;
		break;
	case IOWPROBE_COL_t_iowait_ns:
		base = IOWPROBE_COL_t_iowait_load_ns;
		break;
	default:
		return c->v[k];
	}
	return c->v[k] > c->v[base] ? c->v[k] - c->v[base] : 0;
}

/* new_baseline - CPU @cpu's kernel figures start over: nothing carried */
static void new_baseline(unsigned int cpu, struct rebase_state *rs)
{
	if (rs)
		rs->iowait_ahead[cpu] = 0;
}

/* a step past this (146 years of ns) is a damaged file, not a clock */
#define KERNEL_STEP_MAX	(INT64_MAX / 2)

/*
 * kernel_steps - the kernel's idle and iowait of a CPU from @p to @c, as
 * signed steps; false where one is past KERNEL_STEP_MAX
 */
static bool kernel_steps(const struct iowstat_cpu *p,
			 const struct iowstat_cpu *c, int64_t *di, int64_t *dw)
{
	uint64_t pi = p->v[IOWPROBE_COL_k_idle_ns];
	uint64_t ci = c->v[IOWPROBE_COL_k_idle_ns];
	uint64_t pw = p->v[IOWPROBE_COL_k_iowait_ns];
	uint64_t cw = c->v[IOWPROBE_COL_k_iowait_ns];

	if ((ci > pi ? ci - pi : pi - ci) >= KERNEL_STEP_MAX ||
	    (cw > pw ? cw - pw : pw - cw) >= KERNEL_STEP_MAX)
		return false;
	*di = ci >= pi ? (int64_t)(ci - pi) : -(int64_t)(pi - ci);
	*dw = cw >= pw ? (int64_t)(cw - pw) : -(int64_t)(pw - cw);
	return true;
}

static void warn_moved(unsigned int cpu, int64_t di, int64_t dw,
		       struct rebase_state *rs)
{
	const char *from = dw < 0 ? "iowait" : "idle";
	const char *to = dw < 0 ? "idle" : "iowait";

	if (!say_once(rs ? &rs->moved_said[cpu] : NULL))
		return;
	err_msg("cpu %u: the kernel moved %.3f ms of its %s time to %s; %s's "
		"later growth is shown as %s until they agree (said once)\n",
		cpu, (double)(dw < 0 ? -dw : -di) / 1e6, from, to, from, to);
}

static void warn_kernel_rebase(unsigned int cpu, struct rebase_state *rs)
{
	if (say_once(rs ? &rs->kernel_rebased_said[cpu] : NULL))
		err_msg("cpu %u: the kernel's idle and iowait time went "
			"backwards; the kernel's figures re-baselined (said "
			"once)\n", cpu);
}

/*
 * kernel_deltas - the kernel's idle and iowait of CPU @cpu from @p to @c.
 * Their sum never falls: where it did (a reset, a damaged file) the
 * kernel's figures are re-baselined, nothing this interval.  Between the
 * two the kernel moves time (this file's head).  The interval gets the
 * sum's growth, split so that neither part is negative and the iowait
 * shown over the run stays as near the kernel's as that allows: what it
 * holds beyond the kernel's (@rs->iowait_ahead, negative when behind) is
 * made up from later growth.
 */
static void kernel_deltas(const struct iowstat_cpu *p,
			  const struct iowstat_cpu *c, unsigned int cpu,
			  uint64_t *out, struct rebase_state *rs)
{
	int64_t di, dw, ahead = rs ? rs->iowait_ahead[cpu] : 0, w;

	out[IOWPROBE_COL_k_idle_ns] = 0;
	out[IOWPROBE_COL_k_iowait_ns] = 0;
	if (!kernel_steps(p, c, &di, &dw) || di + dw < 0) {
		warn_kernel_rebase(cpu, rs);
		new_baseline(cpu, rs);
		return;
	}
	if (di < 0 || dw < 0)
		warn_moved(cpu, di, dw, rs);
	w = dw - ahead;
	w = w < 0 ? 0 : w > di + dw ? di + dw : w;
	out[IOWPROBE_COL_k_iowait_ns] = w;
	out[IOWPROBE_COL_k_idle_ns] = di + dw - w;
	ahead += w - dw;
	if (rs)
		rs->iowait_ahead[cpu] = ahead > -KERNEL_STEP_MAX &&
					ahead < KERNEL_STEP_MAX ? ahead : 0;
}

static void cpu_delta(const struct iowstat_snapshot *prev,
		      const struct iowstat_snapshot *cur, unsigned int i,
		      uint64_t *out, struct rebase_state *rs)
{
	const struct iowstat_cpu *c = &cur->cpu[i];
	const struct iowstat_cpu *p = prev ? &prev->cpu[i] : NULL;
	unsigned int k;

	memset(out, 0, sizeof(uint64_t) * IOWPROBE_COL_NR);
	if (!c->present || (p && !p->present)) {
		new_baseline(i, rs);
		return;		/* appeared now: baseline only */
	}
	if (p && own_went_back(p, c)) {
		warn_rebase(i, rs);
		new_baseline(i, rs);
		return;
	}
	for (k = 0; k < IOWPROBE_COL_NR; k++) {
		if (iowstat_col_kind[k] == IOWPROBE_LEVEL)
			out[k] = c->v[k];	/* levels: the current value */
		else if (load_col(k))
			out[k] = 0;		/* a constant, not an amount */
		else if (!p)
			out[k] = since_load(c, k);
		else if (iowstat_col_kind[k] != IOWPROBE_KERNEL)
			out[k] = c->v[k] >= p->v[k] ? c->v[k] - p->v[k] : 0;
	}
	if (p)
		kernel_deltas(p, c, i, out, rs);	/* the kernel's clocks */
}

/* tick_delta - like procps: each /proc/stat column clamped at zero */
static void tick_delta(const struct iowstat_ticks *p,
		       const struct iowstat_ticks *c, uint64_t *out)
{
	unsigned int k;

	for (k = 0; k < T_NR; k++)
		out[k] = !p ? c->t[k] :
			 c->t[k] > p->t[k] ? c->t[k] - p->t[k] : 0;
}

/*
 * delta_disk - the disk's share of iowait (doc/design.md#the-disks-share-
 * of-wa) where the backend has no iowait_blk_ns (--bpf, a module before
 * it): at most the iowait and at most the idle time with a request of
 * the CPU in flight, so the smaller of the two, and said to be a bound
 */
static void delta_disk(struct iowstat_delta *d)
{
	uint64_t *v;
	unsigned int i;

	d->disk_bound = true;
	d->all[IOWPROBE_COL_iowait_blk_ns] = 0;
	for (i = 0; i < d->nr_cpus; i++) {
		v = d->cpu[i];
		v[IOWPROBE_COL_iowait_blk_ns] =
			v[IOWPROBE_COL_iowait_ns] < v[IOWPROBE_COL_blk_local_ns] ?
			v[IOWPROBE_COL_iowait_ns] : v[IOWPROBE_COL_blk_local_ns];
		d->all[IOWPROBE_COL_iowait_blk_ns] +=
			v[IOWPROBE_COL_iowait_blk_ns];
	}
}

/* since - @c - @p, 0 when it went back */
static uint64_t since(uint64_t c, uint64_t p)
{
	return c > p ? c - p : 0;
}

/* delta_psi - the pressure totals' growth; the first line has none */
static void delta_psi(const struct iowstat_snapshot *prev,
		      const struct iowstat_snapshot *cur,
		      struct iowstat_delta *d)
{
	d->have_psi = prev && (prev->have & cur->have & HAVE_PSI);
	d->psi_some_us = d->have_psi ?
			 since(cur->psi_some_us, prev->psi_some_us) : 0;
	d->psi_full_us = d->have_psi ?
			 since(cur->psi_full_us, prev->psi_full_us) : 0;
	d->wall_ns = prev ? since(cur->mono_ns, prev->mono_ns) : 0;
}

/**
 * delta_compute() - @cur minus @prev; with @prev NULL, @cur itself (the
 * "since load" and "since boot" first line).
 */
void delta_compute(const struct iowstat_snapshot *prev,
		   const struct iowstat_snapshot *cur,
		   struct iowstat_delta *d, struct rebase_state *rs)
{
	unsigned int i, k;

	memset(d->all, 0, sizeof(d->all));
	d->nr_cpus = cur->nr_cpus;
	for (i = 0; i < cur->nr_cpus; i++) {
		cpu_delta(prev, cur, i, d->cpu[i], rs);
		for (k = 0; k < IOWPROBE_COL_NR; k++)
			d->all[k] += d->cpu[i][k];
	}
	d->disk_bound = false;
	if (!(cur->have & (prev ? prev->have : cur->have) & HAVE_IOWAIT_BLK))
		delta_disk(d);
	delta_psi(prev, cur, d);
	tick_delta(prev ? &prev->stat_all : NULL, &cur->stat_all, d->tick_all);
	for (i = 0; i < cur->nr_stat_cpus; i++)
		tick_delta(prev ? &prev->stat_cpu[i] : NULL, &cur->stat_cpu[i],
			   d->tick[i]);
	for (; i < IOWSTAT_MAX_CPUS && i < cur->nr_cpus; i++)
		memset(d->tick[i], 0, sizeof(d->tick[i]));
}

/* delta_add - accumulate @d into @acc (the Average: and -- CMD totals) */
void delta_add(struct iowstat_delta *acc, const struct iowstat_delta *d)
{
	unsigned int i, k;

	if (d->nr_cpus > acc->nr_cpus)
		acc->nr_cpus = d->nr_cpus;
	for (i = 0; i < d->nr_cpus; i++)
		for (k = 0; k < IOWPROBE_COL_NR; k++)
			acc->cpu[i][k] += d->cpu[i][k];
	for (k = 0; k < IOWPROBE_COL_NR; k++)
		acc->all[k] += d->all[k];
	for (i = 0; i < d->nr_cpus; i++)
		for (k = 0; k < T_NR; k++)
			acc->tick[i][k] += d->tick[i][k];
	for (k = 0; k < T_NR; k++)
		acc->tick_all[k] += d->tick_all[k];
	acc->disk_bound |= d->disk_bound;
	acc->have_psi |= d->have_psi;
	acc->psi_some_us += d->psi_some_us;
	acc->psi_full_us += d->psi_full_us;
	acc->wall_ns += d->wall_ns;
}
