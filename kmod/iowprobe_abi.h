/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_abi.h - what the module and its readers agree on
 *
 * The debugfs text format is versioned by IOWPROBE_ABI.  Columns may be
 * appended at the end of a header line without bumping it; renaming,
 * removing or reordering a column does bump it.
 */
#ifndef IOWPROBE_ABI_H
#define IOWPROBE_ABI_H

#define IOWPROBE_VERSION	"0.1.0"
#define IOWPROBE_ABI		1
#define IOWPROBE_ABI_LINE	"# iowprobe abi 1"
#define IOWPROBE_DIR		"iowprobe"

/* log2 latency histogram: slot i holds [2^i, 2^(i+1)) ns, the last one more */
#define IOWPROBE_LAT_SLOTS	40

/*
 * The cpus file: the time columns, the kernel's view, then the per-CPU
 * counters (the module's enum iowprobe_counter follows this order), the
 * instant the row describes, and the kernel's view when the module was
 * loaded (so that a reader can put the kernel's since-boot figures on the
 * same since-load footing as the module's).
 */
#define IOWPROBE_CPUS_HEADER						\
	"cpu busy_ns idle_ns iowait_ns blk_local_ns blk_any_ns "	\
	"k_idle_ns k_iowait_ns t_idle_ns t_iowait_ns nr_iowait online "	\
	"sleeps wakeups remote_dec_idle anomalies rq_issued rq_completed " \
	"read_bytes write_bytes now_ns "				\
	"k_idle_load_ns k_iowait_load_ns t_idle_load_ns t_iowait_load_ns"

#define IOWPROBE_DEVICES_HEADER \
	"device major:minor requests read_bytes write_bytes inflight busy_ns"

#define IOWPROBE_LATENCY_HEADER	"device major:minor lo_ns hi_ns count"

#endif /* IOWPROBE_ABI_H */
