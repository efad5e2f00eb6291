/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_RUN_H
#define IOWSTAT_RUN_H

#include <signal.h>
#include <stdio.h>

#include "backend.h"
#include "options.h"
#include "record.h"
#include "sample.h"

/* struct source - where samples come from: live (+ --record) or replay */
struct source {
	struct iowstat_backend *be;
	struct replay *rp;
	FILE *rec;
	struct iowstat_raw raw;
	unsigned int n;			/* samples taken so far */
	uint64_t t0;			/* first sample, CLOCK_MONOTONIC */
	unsigned int interval;
	bool owners;			/* live --top: read procs and cgroups */
	bool owners_lazy;		/* ... only after an interval that had
					 * iowait (--why alone names processes
					 * only then)
					 */
	uint64_t iowait_mark;		/* the iowait seen so far, ns + ticks */
	bool fresh;			/* live --bpf, programs loaded for this
					 * run: nothing is known from before it
					 */
	bool hold;			/* -- CMD: the last sample waits for
					 * the tree, recorded with it
					 */
};

extern volatile sig_atomic_t exiting;

int source_next(struct source *src, struct iowstat_snapshot *s, bool wait);
int run_views(const struct env *env, const struct iowstat_meta *m,
	      struct source *src);
int run_cmd(const struct env *env, const struct iowstat_meta *m,
	    struct source *src);
int run_cmd_replay(const struct env *env, const struct iowstat_meta *m,
		   const struct cmd_result *c, struct source *src);
void cmd_print_summary(FILE *f, const struct cmd_result *c,
		       const struct iowstat_delta *acc,
		       const struct cpu_sel *sel);

#endif /* IOWSTAT_RUN_H */
