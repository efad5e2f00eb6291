/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_SNAPSHOT_H
#define IOWSTAT_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

/* CPU ids at or above this are refused with a message, never dropped. */
#define IOWSTAT_MAX_CPUS	1024

/*
 * The columns of the debugfs "cpus" file (ABI 1) that iowstat uses, by
 * header name.  The file may carry more columns; they are ignored.
 * X(enum suffix, header name, must be present)
 */
#define IOWSTAT_CPU_COLUMNS(X)					\
	X(BUSY,		"busy_ns",		true)		\
	X(IDLE,		"idle_ns",		true)		\
	X(IOWAIT,	"iowait_ns",		true)		\
	X(BLK_LOCAL,	"blk_local_ns",		true)		\
	X(BLK_ANY,	"blk_any_ns",		true)		\
	X(K_IDLE,	"k_idle_ns",		true)		\
	X(K_IOWAIT,	"k_iowait_ns",		true)		\
	X(T_IDLE,	"t_idle_ns",		false)		\
	X(T_IOWAIT,	"t_iowait_ns",		false)		\
	X(NR_IOWAIT,	"nr_iowait",		false)		\
	X(ONLINE,	"online",		false)		\
	X(SLEEPS,	"sleeps",		false)		\
	X(WAKEUPS,	"wakeups",		false)		\
	X(REMOTE_DEC,	"remote_dec_idle",	false)		\
	X(ANOMALIES,	"anomalies",		false)		\
	X(RQ_ISSUED,	"rq_issued",		false)		\
	X(RQ_DONE,	"rq_completed",		false)		\
	X(READ_BYTES,	"read_bytes",		false)		\
	X(WRITE_BYTES,	"write_bytes",		false)		\
	X(K_IDLE_LOAD,	"k_idle_load_ns",	false)		\
	X(K_IOWAIT_LOAD, "k_iowait_load_ns",	false)		\
	X(T_IDLE_LOAD,	"t_idle_load_ns",	false)		\
	X(T_IOWAIT_LOAD, "t_iowait_load_ns",	false)

#define IOWSTAT_COL_ENUM(e, name, req)	IOWSTAT_C_##e,
enum iowstat_col { IOWSTAT_CPU_COLUMNS(IOWSTAT_COL_ENUM) IOWSTAT_C_NR };
#undef IOWSTAT_COL_ENUM

/* Columns that only ever grow; a decrease means re-baselining. */
#define IOWSTAT_MONOTONIC_MASK					\
	((1u << IOWSTAT_C_BUSY) | (1u << IOWSTAT_C_IDLE) |	\
	 (1u << IOWSTAT_C_IOWAIT) | (1u << IOWSTAT_C_BLK_LOCAL) |	\
	 (1u << IOWSTAT_C_BLK_ANY) | (1u << IOWSTAT_C_K_IDLE) |	\
	 (1u << IOWSTAT_C_K_IOWAIT))

/*
 * One CPU of the backend (module or BPF): nanoseconds since load, but the
 * kernel's own k_* and t_* since boot; the *_LOAD columns are what those
 * read at load (0 from a module that predates them).
 */
struct iowstat_cpu {
	uint64_t v[IOWSTAT_C_NR];	/* nr_iowait: (uint64_t) of an s64 */
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
};

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
};

/* Facts about the machine, recorded once with the samples. */
struct iowstat_meta {
	unsigned int hz;		/* USER_HZ, sysconf(_SC_CLK_TCK) */
	unsigned int pagesize;
	unsigned int interval;		/* seconds, as given live */
	char sysname[65], nodename[65], release[65], machine[65];
};

#endif /* IOWSTAT_SNAPSHOT_H */
