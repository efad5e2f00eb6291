/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_VIEW_TOP_H
#define IOWSTAT_VIEW_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "snapshot.h"

/*
 * struct top_row - a process's or cgroup's iowait over one interval
 * @row:   its row in the later sample (comm, cgroup, dev)
 * @wait:  Δwait_ns per wall ns, in %: over 100 when threads waited at once
 * @wa:    Δwa_ns of all online CPUs' time, in %: its part of vmstat's wa
 * @blk:   Δwait_blk_ns of Δwait_ns, in %: the part with its own I/O
 * @kinds: @wait by where it waited (enum iowprobe_wait_kind), in %
 * @waits_in:       the kind of most of it, -1 for none (WAITS-IN)
 * @waits_in_share: that kind's part of the kinds' sum, in %
 */
struct top_row {
	uint64_t key;
	const struct owner_row *row;
	double wait, wa, blk;
	double kinds[IOWPROBE_WAIT_KINDS];
	int waits_in;
	double waits_in_share;
};

/* struct top_view - the rows of one interval, sorted, at most --top=N */
struct top_view {
	enum iowprobe_owner_kind kind;
	struct top_row *rows;
	size_t n, cap;
};

/*
 * struct top_total - one process's (cgroup's) iowait over the whole run:
 * its rows from interval to interval, matched as an interval matches them
 * @row:  its last row read (comm, cgroup, dev; exited)
 * @d:    the counted columns' deltas, summed over the intervals
 * @seen: the last interval that added to it
 */
struct top_total {
	struct owner_row row;
	uint64_t d[IOWPROBE_OCOL_NR];
	unsigned int seen;
};

/*
 * struct top_avg - the sums of the Average: block, pidstat's: every
 * process (cgroup) that waited in any interval, exited ones included
 * @of:     for each row of the last read, its total's index + 1 (0: none)
 * @wall:   the intervals' wall ns, summed
 * @cpu_ns: each interval's wall times its online CPUs, summed
 */
struct top_avg {
	enum iowprobe_owner_kind kind;
	struct top_total *t;
	size_t n, cap;
	size_t *of, nof;
	double wall, cpu_ns;
	unsigned int intervals;
};

int top_compute(struct top_view *v, const struct iowstat_snapshot *p,
		const struct iowstat_snapshot *c, unsigned int limit);
void top_free(struct top_view *v);
unsigned int top_online_cpus(const struct iowstat_snapshot *s);
int top_avg_add(struct top_avg *a, const struct iowstat_snapshot *p,
		const struct iowstat_snapshot *c);
int top_avg_view(const struct top_avg *a, struct top_view *v,
		 unsigned int limit);
void top_avg_free(struct top_avg *a);
void top_print_block(FILE *f, const char *label, const struct top_view *v);
const char *top_waits_in(const struct top_row *r, char *buf, size_t n);

#endif /* IOWSTAT_VIEW_TOP_H */
