/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_WHY_H
#define IOWSTAT_WHY_H

#include <stdbool.h>
#include <stdio.h>

#include "delta.h"
#include "view_top.h"

/* --why: when the words follow a line, a block or a summary */
enum why_when { WHY_AUTO, WHY_ALWAYS, WHY_NEVER };

/* --why=auto speaks from this many points of wa, either's, or their gap */
#define WHY_AUTO_POINTS	5

/* processes named on the disk line and on the no-disk line, at most */
#define WHY_NAMED	3

/*
 * struct why - the wa of an interval (or of a -- CMD run) taken apart, in
 * points of all CPUs' time as vmstat's wa and iowstat's xwa are, rounded
 * as vmstat rounds (doc/design.md#the-disks-share-of-wa)
 * @wa:         exact iowait, xwa; = @disk + @nodisk
 * @disk:       iowait while a request issued from that CPU was in flight
 * @nodisk:     iowait with no request of that CPU in flight
 * @disk_bound: @disk is an upper bound (no iowait_blk_ns: --bpf)
 * @kwa:        the kernel's iowait over the same CPU time
 * @over_cpu:   the CPU whose /proc/stat grew most past the wall, or -1
 * @over_pct:   its busy + idle + iowait, in % of its wall time
 * @over_worst: that is the worst interval of a run (why_over_worst())
 * @psi_some, @psi_full: /proc/pressure/io, % of the wall; -1: none
 * @psi_disk:   the part of @psi_some with a request of the stalled task's
 *              own in flight; -1: it cannot be told (why.c's psi())
 * @who, @nwho: the processes that waited, most wa first: those whose
 *              wait was mostly on their own requests go on the disk line
 */
struct why {
	long wa, disk, nodisk, kwa;
	bool disk_bound;
	int over_cpu;
	long over_pct;
	bool over_worst;
	long psi_some, psi_full, psi_disk;
	const struct top_row *who;
	size_t nwho;
};

void why_compute(const struct iowstat_delta *d, const struct top_view *tv,
		 unsigned int hz, struct why *w);
void why_over_count(const struct iowstat_delta *d, unsigned int hz,
		    struct why *w);
void why_over_worst(struct why *w, const struct why *interval);
bool why_wanted(const struct why *w, enum why_when when);
void why_print(FILE *f, const struct why *w);
int why_parse_when(const char *arg, enum why_when *when);

#endif /* IOWSTAT_WHY_H */
