/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_bpf.h - what iowprobe.bpf.c and backend_bpf.c share: the layout
 * of the maps and the count clocks
 *
 * The module changes a CPU's nr_iowait mirror under that CPU's lock, closing
 * the CPU's open segment first.  Tracing programs cannot take bpf_spin_lock,
 * so here a condition that other CPUs change (the mirror, the requests in
 * flight) is a count clock instead: one 64-bit word holding the count and
 * the integral of "count > 0" over time, which any CPU changes with one
 * compare-and-swap.  The CPU that owns the idle state integrates the clock
 * over its own idle stretches at its own boundaries, the way the core
 * already integrates the disk clock into blk_any: an iowprobe_acct fed with
 * the mirror clock books iowait in its blk_any_ns, one fed with the local
 * requests clock books blk_local.  README.bpf.md derives the error bound.
 */
#ifndef IOWPROBE_BPF_H
#define IOWPROBE_BPF_H

#include "iowprobe_cc.h"
#include "iowprobe_core.h"

/*
 * struct iowprobe_cc - a count clock
 * @w:    the word above, changed by compare-and-swap only
 * @owed: count changes an update could not store (it lost every race);
 *        the next update of this clock claims and stores them
 */
struct iowprobe_cc {
	__u64 w;
	__s64 owed;
};

/*
 * A share clock word: bit 63 set while its CPU is idle (and online), bits
 * 62..46 the CPU's iowait sleepers counted in it (n), bits 45..0 the clock
 * modulo 2^46 ns: S = the integral of idle * [n > 0] / n, each sleeper's
 * share of the CPU's iowait.  Stored so that S at @now is the low bits
 * plus @now / n while the clock runs (idle, n > 0), the low bits while it
 * does not; every change (n += delta by any CPU, the idle bit by the
 * owner) rebases the low bits at its own @now with the same division, so
 * S loses less than a ns per change.  A sleeper notes S from the word it
 * swapped in when it joins and takes the difference when it leaves.
 */
#define IOWPROBE_SC_IDLE	(~0ULL ^ (~0ULL >> 1))	/* bit 63 */
#define IOWPROBE_SC_SHIFT	IOWPROBE_CC_SHIFT
#define IOWPROBE_SC_MAX		((1ULL << (63 - IOWPROBE_SC_SHIFT)) - 1)

static __always_inline __u64 iowprobe_sc_count(__u64 w)
{
	return (w & ~IOWPROBE_SC_IDLE) >> IOWPROBE_SC_SHIFT;
}

/* iowprobe_sc_value() - S at @now, modulo 2^46 */
static __always_inline __u64 iowprobe_sc_value(__u64 w, __u64 now)
{
	__u64 n = iowprobe_sc_count(w), s = w & IOWPROBE_CC_MASK;

	if (!(w & IOWPROBE_SC_IDLE) || !n)
		return s;
	return (s + now / n) & IOWPROBE_CC_MASK;
}

/*
 * iowprobe_sc_next() - the word after n += @delta and the idle bit set to
 * @idle (-1: kept) at @now
 * Return: 0, or -1 when n would leave 0..IOWPROBE_SC_MAX.
 */
static __always_inline int iowprobe_sc_next(__u64 w, __s64 delta, int idle,
					    __u64 now, __u64 *out)
{
	__u64 n = iowprobe_sc_count(w), v = iowprobe_sc_value(w, now);
	__u64 bit = idle < 0 ? w & IOWPROBE_SC_IDLE :
			       idle ? IOWPROBE_SC_IDLE : 0;

	if ((delta < 0 && n < (__u64)-delta) ||
	    (delta > 0 && (__u64)delta > IOWPROBE_SC_MAX - n))
		return -1;
	n += delta;
	if (bit && n)
		v = (v - now / n) & IOWPROBE_CC_MASK;
	*out = bit | n << IOWPROBE_SC_SHIFT | v;
	return 0;
}

/*
 * struct iowprobe_bpf_issuer - per CPU, who the last request submitted
 * from it was found to be, so that the next one from the same task to the
 * same queue loads none of their fields again: each such load through a
 * kernel pointer is guarded by the JIT (six instructions on 6.1)
 * @task:  the user task that issued it (iowprobe.bpf.c's kid()), 0 while
 *         the entry is rewritten; never a kernel thread
 * @gen:   the count of tasks freed when it was written: a task struct
 *         freed and reused is not it, told without a load from the task
 * @tag:   its process's tag, iowprobe_bpf_proc_tag()
 * @q:     the request's queue (kid()), 0 while rewritten
 * @dev:   that queue's disk's dev_t (a queue keeps its disk for life)
 *
 * Requests of one CPU may be issued on several at once (a kworker runs
 * another CPU's queue), so each half is written key last, after the key
 * is zeroed, and a reader that finds its key reads it again after the
 * values: a torn entry reads as a miss.
 */
struct iowprobe_bpf_issuer {
	__u64 task;
	__u64 gen;
	__u64 tag;
	__u64 q;
	__u64 dev;
};

/*
 * 6.12: delayed iowait sleepers parked per CPU until found blocked.  A CPU
 * with hundreds of runnable tasks holds dozens of them at once (16 slots
 * lost most sleeps of 1,250 readers on 7.3); the state word's slot field
 * has 8 bits, so 256 at most.
 */
#define IOWPROBE_BPF_PENDING		256
#define IOWPROBE_BPF_PENDING_WORDS	(IOWPROBE_BPF_PENDING / 64)

/*
 * struct iowprobe_bpf_cpu - one CPU, an element of the mmapable "cpus" array
 * @seq:      odd while this CPU's programs (sched_switch, hotplug) write
 *            the accts
 * @all:      busy and idle; its blk_any_ns is blk_any (fed the disk clock)
 * @iow:      its blk_any_ns is iowait (fed the mirror clock)
 * @loc:      its blk_any_ns is blk_local (fed the local requests clock);
 *            of these two only t, idle, online, g_snap and blk_any_ns
 *            are kept (busy and idle time are @all's)
 * @inited:   this CPU has seen its first sched_switch: figures are valid
 * @idle_task: this CPU's idle task, once seen (a pointer, compared only)
 * @going_down: a teardown's CPUHP_AP_ACTIVE step runs on this CPU
 * @mirror:   count clock of this CPU's nr_iowait mirror
 * @local:    count clock of the requests submitted from this CPU in flight
 *            (the count of both: cc_count(w) + owed)
 * @share:    share clock word of this CPU's iowait sleepers
 * @pending_nr: how many slots are taken, so that a switch with none
 *            parked reads one word, not every mask
 * @pending_mask, @pending: parked tasks (pointers), one bit per used slot,
 *            64 slots a word
 * @counters: enum iowprobe_counter
 * @issuer:   the last request submitted from this CPU (rq_issue())
 *
 * Everything up to @going_down is written only by this CPU; the rest, on its
 * own cache lines, by any CPU with atomic operations, but @issuer, a cache
 * written and read as its own comment says.
 */
struct iowprobe_bpf_cpu {
	__u64 seq;
	struct iowprobe_acct all;
	struct iowprobe_acct iow;
	struct iowprobe_acct loc;
	__u64 inited;
	__u64 idle_task;
	__u64 going_down;
	struct iowprobe_cc mirror __attribute__((aligned(64)));
	struct iowprobe_cc local;
	__u64 share;
	__u64 pending_nr;
	__u64 pending_mask[IOWPROBE_BPF_PENDING_WORDS];
	__u64 pending[IOWPROBE_BPF_PENDING];
	__u64 counters[IOWPROBE_C_NR];
	struct iowprobe_bpf_issuer issuer __attribute__((aligned(64)));
} __attribute__((aligned(64)));

/*
 * What iowstat --bpf attach leaves pinned beside the programs' own maps, for
 * every later reader: the layout of the pinned state (a reader built for
 * another refuses it, as it refuses a foreign debugfs ABI), when it was
 * attached, and each CPU's kernel view at that moment.  Bump
 * IOWPROBE_BPF_LAYOUT with any change to the shape of a pinned map or of
 * the program's global data.
 */
#define IOWPROBE_BPF_LAYOUT	10

struct iowprobe_bpf_meta {
	__u64 layout;
	__u64 attached_ns;	/* CLOCK_MONOTONIC */
};

struct iowprobe_bpf_kview {
	__u64 idle_ns;
	__u64 iowait_ns;
};

/*
 * The state word of a followed task: 0 once claimed by the one event that
 * ends it, else kind (enum iowprobe_task_state), charged CPU and pending
 * slot.
 */
#define IOWPROBE_BPF_DEAD	0ULL

static __always_inline __u64 iowprobe_bpf_state(__u32 kind, __u32 cpu,
						__u32 slot)
{
	return (__u64)kind << 32 | (__u64)(slot & 0xff) << 24 |
	       (cpu & 0xffffff);
}

static __always_inline __u32 iowprobe_bpf_kind(__u64 s)
{
	return s >> 32;
}

static __always_inline __u32 iowprobe_bpf_cpu_of(__u64 s)
{
	return s & 0xffffff;
}

static __always_inline __u32 iowprobe_bpf_slot(__u64 s)
{
	return (s >> 24) & 0xff;
}

/*
 * A row of the procs map is keyed by its process's tag,
 * iowprobe_bpf_proc_tag() (a reused tgid is another process), a row of the
 * cgroups map by the cgroup's id: one word, where two cost each lookup of
 * a row twice the hashing.
 */

/* devices a row remembers its wait on, to name the one it waited on most */
#define IOWPROBE_BPF_OWNER_DEVS	4

/*
 * struct iowprobe_bpf_owner - a row of the procs or cgroups map; changed
 * with atomic operations by any CPU
 * @wait_kind_ns: its tasks' wait in iowait, by where they waited: their
 *            sum is its wait_ns (one atomic add a sleep, not two)
 * @asleep:   its tasks followed asleep in iowait now
 * @cgroup:   procs: the cgroup of its latest sleeper
 * @t_exit:   procs: when its group leader was freed (0: live)
 * @dev, @dev_ns: the disks it waited on with a request in flight, and
 *            how long; a full set gives its least slot to a new disk
 * @comm:     procs: its group leader's name
 */
struct iowprobe_bpf_owner {
	__u64 sleeps;
	__u64 wait_blk_ns;
	__u64 wa_ns;
	__u64 wait_kind_ns[IOWPROBE_WAIT_KINDS];
	__s64 asleep;
	__u64 cgroup;
	__u64 t_exit;
	__u64 dev[IOWPROBE_BPF_OWNER_DEVS];
	__u64 dev_ns[IOWPROBE_BPF_OWNER_DEVS];
	char comm[16];
};

/* share_snap of a sleeper not in its CPU's share clock */
#define IOWPROBE_BPF_NO_SHARE	(~0ULL)

/*
 * struct iowprobe_bpf_task - a followed task: its state word, and what it
 * noted when it went to sleep, to settle on its rows when it wakes
 * @t_sleep:    when it went to sleep
 * @share_snap: its CPU's share clock when it was counted there
 * @blk_snap:   its process's in-flight clock at @t_sleep
 * @blk_way:    where that clock is: iowprobe_bpf_way(), ~0 when nowhere
 * @proc:       its process row's key, its tag (0: none)
 * @cgroup:     its cgroup row's id (0: none)
 * @kind:       where it waits, enum iowprobe_wait_kind
 */
struct iowprobe_bpf_task {
	__u64 state;
	__u64 t_sleep;
	__u64 share_snap;
	__u64 blk_snap;
	__u64 blk_way;
	__u64 proc;
	__u64 cgroup;
	__u64 kind;
};

/*
 * The in-flight table: per process, the count clock of its requests in
 * flight, apart from its row so that a request finds it without a hash
 * lookup.  A process lives in set tgid % IOWPROBE_BPF_BLK_SETS (pids are
 * handed out in sequence, so the sets fill evenly), in the first of its
 * ways it claims, under its tag: the tgid and the low half of its group
 * leader's start_time (a reused tgid is another process).  The way is
 * claimed at its first request or sleep and given back once its leader
 * is freed with nothing in flight.
 *
 * Its columns are arrays of their own in the global data, indexed by way
 * number (iowprobe_bpf_way(): set s is ways 4s to 4s + 3), so that a
 * request's end reaches its clock from the number alone, without
 * splitting it into set and way, and each column has an address of its
 * own (a BPF load's offset has 16 bits: a field more than 32 KiB into a
 * struct costs an add at every use):
 * inflight_tag:    each way's process, iowprobe_bpf_proc_tag(); 0 if free
 * inflight_exited: 1 once its group leader is freed: the last request to
 *                  end gives the way back
 * inflight_dev:    the disk of its latest request (kernel dev_t)
 * inflight_blk:    count clock of its requests in flight
 */
#define IOWPROBE_BPF_BLK_WAYS	4
#define IOWPROBE_BPF_BLK_SETS	1024
#define IOWPROBE_BPF_BLK_ALL	(IOWPROBE_BPF_BLK_SETS * IOWPROBE_BPF_BLK_WAYS)
#define IOWPROBE_BPF_NO_WAY	(~0ULL)

static __always_inline __u64 iowprobe_bpf_proc_tag(__u32 tgid, __u64 start)
{
	return (__u64)tgid << 32 | (__u32)start;
}

static __always_inline __u32 iowprobe_bpf_tag_tgid(__u64 tag)
{
	return tag >> 32;
}

static __always_inline __u32 iowprobe_bpf_blk_set_of(__u64 tag)
{
	return iowprobe_bpf_tag_tgid(tag) % IOWPROBE_BPF_BLK_SETS;
}

/* iowprobe_bpf_way() - a way's place in the table: set and way in one */
static __always_inline __u64 iowprobe_bpf_way(__u32 set, __u32 way)
{
	return (__u64)set * IOWPROBE_BPF_BLK_WAYS + way;
}

/*
 * struct iowprobe_bpf_rqs - a bucket of the requests table
 * @rq:   the request in each slot (iowprobe.bpf.c's kid()), 0 when free;
 *        taken and freed by compare-and-swap, so the one event that frees
 *        it ends the request
 * @info: the request's charged CPU (as in the state word), op (the
 *        kernel's REQ_OP_*) and bytes, iowprobe_bpf_rq_info()
 * @way:  where the in-flight table counts it for the process that issued
 *        it (IOWPROBE_BPF_NO_WAY: nobody's); the way names the process,
 *        as no way is given back while a request counted there is in
 *        flight
 * @taken: at least the number of slots taken (raised before a slot is
 *        taken, lowered after it is freed): 0 when all are free
 */
#define IOWPROBE_BPF_RQ_WAYS	8

struct iowprobe_bpf_rqs {
	__s64 taken;
	__u64 rq[IOWPROBE_BPF_RQ_WAYS];
	__u64 info[IOWPROBE_BPF_RQ_WAYS];
	__u64 way[IOWPROBE_BPF_RQ_WAYS];
};

static __always_inline __u64 iowprobe_bpf_rq_info(__u32 cpu, __u8 op,
						  __u32 bytes)
{
	return (__u64)bytes << 32 | (__u64)op << 24 | (cpu & 0xffffff);
}

static __always_inline __u8 iowprobe_bpf_rq_op(__u64 info)
{
	return (info >> 24) & 0xff;
}

static __always_inline __u32 iowprobe_bpf_rq_bytes(__u64 info)
{
	return info >> 32;
}

/*
 * struct iowprobe_bpf_stats - what the program could not follow, global
 * @tasks_full:    iowait sleeps not followed: no entry for the task (the
 *                 tasks map full; task storage out of memory, or busy on
 *                 this CPU: another task storage user nested)
 * @rqs_full:      requests not followed: their bucket was full
 * @pending_full:  6.12 delayed sleeps not followed: no free parking slot
 * @clock_deferred: count clock updates left to the next one (lost every
 *                 compare-and-swap race, or out of range)
 * @map_busy:      map deletions refused (-EBUSY, re-entry on one CPU)
 * @rq_anomalies:  a request issued twice without a completion seen
 * @delayed_parked, @delayed_blocked, @late_block: as the module's status
 * @seeded:        tasks found asleep in iowait at attach, now followed
 * @seed_raced:    ... that woke while being seeded, so not followed
 * @procs_full, @cgroups_full: sleeps left without their row: the procs
 *                 or cgroups map was full
 * @blk_full:      requests or sleeps left without an in-flight clock: their
 *                 set of the in-flight table was full
 * @share_lost:    sleepers left out of their CPU's share clock (lost every
 *                 compare-and-swap race)
 * @untraced_switches: switches between a task and the idle task that the
 *                 kernel did not trace on an online CPU, found from the
 *                 next one traced (its prev is not what the last one put
 *                 on the CPU): the time between stays booked as the last
 *                 one left it
 * @late_wakeups:  6.1's task storage: wakeups that found it busy (another
 *                 user interrupted on their CPU), ended at the task's
 *                 switch in, as of the wakeup
 * @late_full:     ... that found no slot to wait in: ended by the task's
 *                 next sleep or its free, as a wakeup never seen (anomaly)
 */
struct iowprobe_bpf_stats {
	__u64 tasks_full;
	__u64 rqs_full;
	__u64 pending_full;
	__u64 clock_deferred;
	__u64 map_busy;
	__u64 rq_anomalies;
	__u64 delayed_parked;
	__u64 delayed_blocked;
	__u64 late_block;
	__u64 seeded;
	__u64 seed_raced;
	__u64 procs_full;
	__u64 cgroups_full;
	__u64 share_lost;
	__u64 blk_full;
	__u64 untraced_switches;
	__u64 late_wakeups;
	__u64 late_full;
};

#endif /* IOWPROBE_BPF_H */
