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
 * @row:  its row in the later sample (comm, cgroup, dev)
 * @wait: Δwait_ns per wall ns, in %: over 100 when threads waited at once
 * @wa:   Δwa_ns of all online CPUs' time, in %: its part of vmstat's wa
 * @blk:  Δwait_blk_ns of Δwait_ns, in %: the part with its own I/O
 */
struct top_row {
	uint64_t key;
	const struct owner_row *row;
	double wait, wa, blk;
};

/* struct top_view - the rows of one interval, sorted, at most --top=N */
struct top_view {
	enum iowprobe_owner_kind kind;
	struct top_row *rows;
	size_t n, cap;
};

int top_compute(struct top_view *v, const struct iowstat_snapshot *p,
		const struct iowstat_snapshot *c, unsigned int limit);
void top_free(struct top_view *v);
unsigned int top_online_cpus(const struct iowstat_snapshot *s);
void top_print_block(FILE *f, const char *label, const struct top_view *v);

#endif /* IOWSTAT_VIEW_TOP_H */
