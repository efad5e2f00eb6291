/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_abi.h - what the module, the BPF backend and iowstat agree on
 *
 * The cpus file's columns are listed once, in iowprobe_cols.h: the
 * module's and the BPF backend's printers, the counter enum both count
 * into and iowstat's parser are all made from that list.  Adding a column
 * is a line there plus its documentation (doc/abi.md and man/iowprobe.4,
 * which make lint checks against the list).
 *
 * The text format is versioned by IOWPROBE_ABI.  Columns may be appended
 * at the end of a table without bumping it; renaming, removing or
 * reordering a column does bump it.
 */
#ifndef IOWPROBE_ABI_H
#define IOWPROBE_ABI_H

#define IOWPROBE_VERSION	"0.1.0"
#define IOWPROBE_ABI		1
#define IOWPROBE_ABI_LINE	"# iowprobe abi 1"
#define IOWPROBE_DIR		"iowprobe"

/*
 * The tables' default sizes: the module's tasks=, requests=, procs= and
 * cgroups= parameters; the BPF backend's tasks, procs and cgroups maps,
 * which have no others (its requests go to a table of its own, 32768
 * slots: bpf/iowprobe.bpf.c)
 */
#define IOWPROBE_TASKS_DEFAULT		4096
#define IOWPROBE_REQUESTS_DEFAULT	4096
#define IOWPROBE_PROCS_DEFAULT		4096
#define IOWPROBE_CGROUPS_DEFAULT	1024

/* log2 latency histogram: slot i holds [2^i, 2^(i+1)) ns, the last one more */
#define IOWPROBE_LAT_SLOTS	40

/*
 * The kind of a cpus column says who fills it, whether a reader
 * may go without it, and how the "all" row combines the CPUs:
 *   SPLIT    the exact split, ns since load; a reader needs it
 *   KERNEL   the kernel's own idle/iowait (what /proc/stat prints), ns
 *            since boot; a reader needs it
 *   TICK     the tick-sampled kcpustat, ns since boot; the module only
 *   LEVEL    a level, not a total: nr_iowait (signed: a wakeup seen
 *            before its sleep leaves it below zero for a moment), online
 *   COUNT    a per-CPU count (enum iowprobe_counter)
 *   INSTANT  the instant the row describes, in ns of the backend's clock
 *            (the module: the scheduler's, sched_clock_cpu(); --bpf:
 *            CLOCK_MONOTONIC), so only its differences mean anything; the
 *            "all" row takes the latest, every other kind sums
 *   KLOAD    a KERNEL column as it read at load (0 from old modules)
 *   TLOAD    a TICK column as it read at load; the module only
 *   MSPLIT   a part of the exact split that the module keeps and --bpf
 *            has not (no one CPU owns both of its conditions there);
 *            a reader goes without it from --bpf and older modules
 */
enum iowprobe_col_kind {
	IOWPROBE_SPLIT,
	IOWPROBE_KERNEL,
	IOWPROBE_TICK,
	IOWPROBE_LEVEL,
	IOWPROBE_COUNT,
	IOWPROBE_INSTANT,
	IOWPROBE_KLOAD,
	IOWPROBE_TLOAD,
	IOWPROBE_MSPLIT,
};

/* the cpus columns, by position (iowprobe_cols.h) */
enum iowprobe_col {
#define IOWPROBE_COL(name, kind)	IOWPROBE_COL_##name,
#include "iowprobe_cols.h"
	IOWPROBE_COL_NR
};

/* the per-CPU counts, which the module and the BPF program keep */
enum iowprobe_counter {
#define IOWPROBE_COL(name, kind)
#define IOWPROBE_COUNTER(name)	IOWPROBE_C_##name,
#include "iowprobe_cols.h"
	IOWPROBE_C_NR
};

/* whether the column needs the tick-sampled view, which --bpf has not */
static inline int iowprobe_col_tick_only(enum iowprobe_col_kind kind)
{
	return kind == IOWPROBE_TICK || kind == IOWPROBE_TLOAD;
}

/* whether only the module has the column: --bpf leaves it out */
static inline int iowprobe_col_module_only(enum iowprobe_col_kind kind)
{
	return iowprobe_col_tick_only(kind) || kind == IOWPROBE_MSPLIT;
}

/* whether iowstat refuses a cpus file without the column */
static inline int iowprobe_col_required(enum iowprobe_col_kind kind)
{
	return kind == IOWPROBE_SPLIT || kind == IOWPROBE_KERNEL;
}

/* how the "all" row combines the CPUs' values of the column */
static inline unsigned long long
iowprobe_col_combine(enum iowprobe_col_kind kind, unsigned long long sum,
		     unsigned long long v)
{
	if (kind == IOWPROBE_INSTANT)
		return v > sum ? v : sum;
	return sum + v;
}

/* where an iowait sleeper waits, by position (iowprobe_wait_kinds.h) */
enum iowprobe_wait_kind {
#define IOWPROBE_WAIT_KIND(kind)	IOWPROBE_WAIT_##kind,
#include "iowprobe_wait_kinds.h"
	IOWPROBE_WAIT_KINDS
};

/*
 * In the owner column list, a column that a later module added: printed
 * as any other, but a reader takes 0 from a module without it
 */
#define IOWPROBE_OCOL_ADDED	2

/* the procs and cgroups columns, by position (iowprobe_owner_cols.h) */
enum iowprobe_owner_col {
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	IOWPROBE_OCOL_##name,
#include "iowprobe_owner_cols.h"
	IOWPROBE_OCOL_NR
};

/* the wait_<kind>_ns column of a kind: they follow the kinds' order */
#define IOWPROBE_OCOL_WAIT(kind)	(IOWPROBE_OCOL_wait_uring_ns + (kind))

/* who a row of the owner files stands for: its file is the kind's name */
enum iowprobe_owner_kind {
	IOWPROBE_PROCS,		/* a thread group: its rows' key is the tgid */
	IOWPROBE_CGROUPS,	/* a cgroup v2: its key is the cgroup id */
	IOWPROBE_OWNER_KINDS
};

#define IOWPROBE_OWNER_FILES	{ "procs", "cgroups" }

#define IOWPROBE_DEVICES_HEADER \
	"device major:minor requests read_bytes write_bytes inflight busy_ns"

#define IOWPROBE_LATENCY_HEADER	"device major:minor lo_ns hi_ns count"

/* a request's direction, as the module and the BPF program record it */
enum iowprobe_op { IOWPROBE_OP_OTHER, IOWPROBE_OP_READ, IOWPROBE_OP_WRITE };

#endif /* IOWPROBE_ABI_H */
