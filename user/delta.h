/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_DELTA_H
#define IOWSTAT_DELTA_H

#include <stdbool.h>
#include <stdint.h>

#include "snapshot.h"

/* Per-CPU differences between two snapshots, never negative. */
struct iowstat_delta {
	unsigned int nr_cpus;
	uint64_t cpu[IOWSTAT_MAX_CPUS][IOWPROBE_COL_NR];
	uint64_t all[IOWPROBE_COL_NR];		/* sum over the CPUs */
	uint64_t tick[IOWSTAT_MAX_CPUS][T_NR];	/* /proc/stat cpuN */
	uint64_t tick_all[T_NR];		/* /proc/stat cpu */
	bool disk_bound;	/* iowait_blk_ns is a bound (delta_disk()) */
	bool have_psi;
	uint64_t psi_some_us, psi_full_us;	/* /proc/pressure/io */
	uint64_t wall_ns;	/* CLOCK_MONOTONIC between the samples */
};

/*
 * struct rebase_state - what delta_compute() carries between intervals
 * @warned:	a CPU re-baselined, said once
 * @moved_said:	the kernel moved time between a CPU's idle and iowait,
 *		said once
 * @kernel_rebased_said: a CPU's kernel figures re-baselined, said once
 * @iowait_ahead: ns of iowait the intervals have shown beyond the kernel's
 *		own for that CPU (negative: behind), made up from later growth
 */
struct rebase_state {
	bool warned[IOWSTAT_MAX_CPUS];
	bool moved_said[IOWSTAT_MAX_CPUS];
	bool kernel_rebased_said[IOWSTAT_MAX_CPUS];
	int64_t iowait_ahead[IOWSTAT_MAX_CPUS];
};

void delta_compute(const struct iowstat_snapshot *prev,
		   const struct iowstat_snapshot *cur,
		   struct iowstat_delta *d, struct rebase_state *rs);
void delta_add(struct iowstat_delta *acc, const struct iowstat_delta *d);

/* delta_pct - 100 * num / den, at most 100; 0 when den is 0 */
double delta_pct(uint64_t num, uint64_t den);
/* delta_total - busy+idle */
uint64_t delta_total(const uint64_t *v);

#endif /* IOWSTAT_DELTA_H */
