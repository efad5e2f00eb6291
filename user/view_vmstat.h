/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_VIEW_VMSTAT_H
#define IOWSTAT_VIEW_VMSTAT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "delta.h"
#include "snapshot.h"

/* vmstat's 17 columns, plus gu which procps 4.0.2 prints only with -w */
enum {
	VM_R, VM_B, VM_SWPD, VM_FREE, VM_BUFF, VM_CACHE, VM_SI, VM_SO,
	VM_BI, VM_BO, VM_IN, VM_CS, VM_US, VM_SY, VM_ID, VM_WA, VM_ST, VM_GU,
	VM_NR
};

/* The appended group: exact wa, blk_local, blk_any, kernel wa - exact wa */
enum { X_WA, X_BL, X_BA, X_ERR, X_NR };

struct vmstat_opts {
	bool wide, timestamp;
	unsigned long unit;	/* bytes per unit for -S; 1024 by default */
	unsigned int interval;	/* the nominal one, as procps divides by it */
};

void vmstat_values(const struct iowstat_meta *m, const struct vmstat_opts *o,
		   const struct iowstat_snapshot *mem,
		   const struct iowstat_snapshot *prev,
		   const struct iowstat_snapshot *cur, unsigned long *v);
void vmstat_exact(const struct iowstat_delta *d, unsigned long kernel_wa,
		  long *x);
unsigned long vmstat_kernel_wa(const struct iowstat_delta *d);
void vmstat_print_header(FILE *f, const struct vmstat_opts *o, time_t now);
void vmstat_print_line(FILE *f, const struct vmstat_opts *o,
		       const unsigned long *v, const long *x, time_t now);

#endif /* IOWSTAT_VIEW_VMSTAT_H */
