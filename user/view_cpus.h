/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_VIEW_CPUS_H
#define IOWSTAT_VIEW_CPUS_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "delta.h"
#include "snapshot.h"

/* -P: which CPUs get a row; the "all" row is always shown */
struct cpu_sel {
	bool given;			/* -P was used */
	bool every;			/* -P ALL */
	bool cpu[IOWSTAT_MAX_CPUS];
	unsigned int max;		/* highest id asked for, + 1 */
};

/*
 * One row of the per-CPU view, in percent of the CPU's busy+idle time
 * (its wall time while online).  kidle and kiowait are clamped at 100
 * each, as mpstat's are; kiwall is not: over 100, the kernel counted
 * idle time twice (doc/design.md#the-kernels-over-count).
 */
struct cpu_row {
	double kidle, kiowait;			/* the kernel's view */
	double xidle, xiowait, xblk, xblkany;	/* iowprobe's exact split */
	double err;				/* kiowait - xiowait */
	double xdisk, xnodisk;			/* xiowait on a disk or not */
	double kiwall;				/* kernel idle + iowait */
};

/* sysstat's mpstat columns, from /proc/stat ticks */
struct sys_row {
	double usr, nice, sys, iowait, irq, soft, steal, guest, gnice, idle;
};

int cpu_sel_parse(const char *arg, struct cpu_sel *sel);
bool cpu_sel_has(const struct cpu_sel *sel, unsigned int cpu);
void cpu_row_compute(const uint64_t *d, struct cpu_row *r);
void sys_row_compute(const uint64_t *t, struct sys_row *r);
void fmt_clock(char *buf, size_t n, const char *fmt, uint64_t real_ns);

void cpus_print_banner(FILE *f, const struct iowstat_meta *m,
		       unsigned int ncpus, uint64_t real_ns);
void cpus_print_block(FILE *f, const char *hdr_label, const char *row_label,
		      const struct iowstat_delta *d, const struct cpu_sel *sel);

#endif /* IOWSTAT_VIEW_CPUS_H */
