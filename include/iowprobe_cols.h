/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_cols.h - the cpus file's columns, in file order: the one list
 *
 * Each includer defines IOWPROBE_COL(name, kind) (enum iowprobe_col_kind,
 * iowprobe_abi.h) and, to tell the per-CPU counts apart, may define
 * IOWPROBE_COUNTER(name); both are undefined again at the end.  No include
 * guard: every inclusion expands the list its own way.  A new column goes
 * at the end (or at the end of the counters, which bumps IOWPROBE_ABI),
 * with its description in doc/abi.md and man/iowprobe.4.
 */
#ifndef IOWPROBE_COUNTER
#define IOWPROBE_COUNTER(name)	IOWPROBE_COL(name, IOWPROBE_COUNT)
#endif

IOWPROBE_COL(busy_ns,		IOWPROBE_SPLIT)
IOWPROBE_COL(idle_ns,		IOWPROBE_SPLIT)
IOWPROBE_COL(iowait_ns,		IOWPROBE_SPLIT)
IOWPROBE_COL(blk_local_ns,	IOWPROBE_SPLIT)
IOWPROBE_COL(blk_any_ns,	IOWPROBE_SPLIT)
IOWPROBE_COL(k_idle_ns,		IOWPROBE_KERNEL)
IOWPROBE_COL(k_iowait_ns,	IOWPROBE_KERNEL)
IOWPROBE_COL(t_idle_ns,		IOWPROBE_TICK)
IOWPROBE_COL(t_iowait_ns,	IOWPROBE_TICK)
IOWPROBE_COL(nr_iowait,		IOWPROBE_LEVEL)
IOWPROBE_COL(online,		IOWPROBE_LEVEL)
IOWPROBE_COUNTER(sleeps)
IOWPROBE_COUNTER(wakeups)
IOWPROBE_COUNTER(remote_dec_idle)
IOWPROBE_COUNTER(anomalies)
IOWPROBE_COUNTER(rq_issued)
IOWPROBE_COUNTER(rq_completed)
IOWPROBE_COUNTER(read_bytes)
IOWPROBE_COUNTER(write_bytes)
IOWPROBE_COL(now_ns,		IOWPROBE_INSTANT)
IOWPROBE_COL(k_idle_load_ns,	IOWPROBE_KLOAD)
IOWPROBE_COL(k_iowait_load_ns,	IOWPROBE_KLOAD)
IOWPROBE_COL(t_idle_load_ns,	IOWPROBE_TLOAD)
IOWPROBE_COL(t_iowait_load_ns,	IOWPROBE_TLOAD)
IOWPROBE_COL(iowait_blk_ns,	IOWPROBE_MSPLIT)

#undef IOWPROBE_COL
#undef IOWPROBE_COUNTER
