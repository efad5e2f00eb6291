/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_SNAPSHOT_H
#define IOWSTAT_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "iowprobe_abi.h"
#include "owner_files.h"

/* CPU ids at or above this are refused with a message, never dropped. */
#define IOWSTAT_MAX_CPUS	1024

/*
 * The columns of the debugfs "cpus" file are the ABI table's (enum
 * iowprobe_col, iowprobe_abi.h), found by header name: the file may carry
 * more columns, which are ignored, and may lack the optional ones.
 */
extern const char *const iowstat_col_name[IOWPROBE_COL_NR];
extern const unsigned char iowstat_col_kind[IOWPROBE_COL_NR];

/*
 * One CPU of the backend (module or BPF): nanoseconds since load, but the
 * kernel's own k_* and t_* since boot; the *_LOAD columns are what those
 * read at load (0 from a module that predates them).
 */
struct iowstat_cpu {
	uint64_t v[IOWPROBE_COL_NR];	/* LEVEL: (uint64_t) of an s64 */
	bool present;
};

/* /proc/stat tick columns, in file order. */
enum iowstat_tick {
	T_USER, T_NICE, T_SYSTEM, T_IDLE, T_IOWAIT, T_IRQ, T_SOFTIRQ,
	T_STEAL, T_GUEST, T_GNICE, T_NR
};

struct iowstat_ticks {
	uint64_t t[T_NR];
	bool present;
};

enum iowstat_have {
	HAVE_STAT	= 1 << 0,
	HAVE_VMSTAT	= 1 << 1,
	HAVE_MEMINFO	= 1 << 2,
	HAVE_PSI	= 1 << 3,
	HAVE_CPUS	= 1 << 4,
	HAVE_PROCS	= 1 << 5,	/* HAVE_OWNERS(IOWPROBE_PROCS) */
	HAVE_CGROUPS	= 1 << 6,
	HAVE_IOWAIT_BLK	= 1 << 7,	/* the module's iowait_blk_ns */
};

/* the flag of an owner file: procs or cgroups */
#define HAVE_OWNERS(kind)	(HAVE_PROCS << (kind))

/*
 * struct iowstat_snapshot - everything read at one sampling instant.
 * Filled by the /proc parsers and by a backend (debugfs or BPF).
 */
struct iowstat_snapshot {
	uint64_t mono_ns;	/* CLOCK_MONOTONIC at the read */
	uint64_t real_ns;	/* CLOCK_REALTIME at the read */
	unsigned int have;	/* enum iowstat_have */

	/* /proc/stat */
	struct iowstat_ticks stat_all;
	unsigned int nr_stat_cpus;	/* highest cpuN + 1 */
	struct iowstat_ticks stat_cpu[IOWSTAT_MAX_CPUS];
	uint64_t intr, ctxt, procs_running, procs_blocked;

	/* /proc/vmstat, in pages (pgpg* in KiB, as the kernel reports) */
	uint64_t pgpgin, pgpgout, pswpin, pswpout;

	/* /proc/meminfo, KiB */
	uint64_t mem_free, buffers, cached, sreclaimable;
	uint64_t swap_total, swap_free, active, inactive;

	/* /proc/pressure/io totals, microseconds */
	uint64_t psi_some_us, psi_full_us;

	/* backend "cpus" */
	unsigned int nr_cpus;		/* highest cpu id + 1 */
	struct iowstat_cpu cpu[IOWSTAT_MAX_CPUS];

	/*
	 * the module's procs and cgroups files (--top): heap rows, reused
	 * from sample to sample and freed by snapshot_free(); a struct copy
	 * of a snapshot shares them
	 */
	struct owner_table owners[IOWPROBE_OWNER_KINDS];
};

/* Facts about the machine, recorded once with the samples. */
struct iowstat_meta {
	unsigned int hz;		/* USER_HZ, sysconf(_SC_CLK_TCK) */
	unsigned int pagesize;
	unsigned int interval;		/* seconds, as given live */
	char sysname[65], nodename[65], release[65], machine[65];
};

struct iowstat_snapshot *snapshot_alloc(void);
void snapshot_free(struct iowstat_snapshot *s);

#endif /* IOWSTAT_SNAPSHOT_H */
