/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * iowprobe_core.h - the accounting core, shared by the module, the BPF
 * program and the host unit tests
 *
 * Pure functions over plain structs: no locks, no allocation, no clock.  The
 * includer serialises calls per struct and passes the time in.  See
 * doc/design.md#the-algorithm for the algorithm and doc/design.md#races for
 * its races.
 */
#ifndef IOWPROBE_CORE_H
#define IOWPROBE_CORE_H

#if !defined(__bpf__)		/* clang -target bpf: vmlinux.h came first */
#include <linux/types.h>	/* kernel header or UAPI header: both give __u64 */
#endif
#if defined(__KERNEL__) && !defined(__bpf__)
#include <linux/bitops.h>
#endif
#ifndef __always_inline		/* userspace has no such macro */
#define __always_inline inline
#endif

#include "iowprobe_abi.h"

/*
 * struct iowprobe_acct - where one CPU's time went since load
 * @t:            last boundary (ns); time after it is the open segment
 * @g_snap:       the in-flight clock's value at @t, ns (the module reads
 *                it from a struct iowprobe_gclock, --bpf from a count
 *                clock, struct iowprobe_cc)
 * @busy_ns:      a non-idle task was current
 * @idle_ns:      the idle task was current
 * @iowait_ns:    idle and @mirror > 0 (the kernel's rule, integrated)
 * @blk_local_ns: idle and a request submitted from this CPU in flight
 * @blk_any_ns:   idle and any request in flight
 * @iowait_blk_ns: idle, @mirror > 0 and a request submitted from this CPU
 *                in flight: the disk's share of iowait
 *                (doc/design.md#the-disks-share-of-wa)
 * @share_ns:     idle and @mirror > 0, divided by @mirror: what each of the
 *                CPU's iowait sleepers earned (doc/design.md#who-waits).  A
 *                sleeper notes it when counted and takes the difference when
 *                it wakes; the shares of all sleepers add up to @iowait_ns.
 * @share_rem:    the ns of @iowait_ns not yet in @share_ns: the remainder
 *                of the division, carried so that none is ever lost
 * @mirror:       the module's copy of this CPU's rq->nr_iowait
 * @lfl:          requests submitted from this CPU in flight
 * @idle:         the idle task is current
 * @online:       the CPU is online: time only accrues while it is
 */
struct iowprobe_acct {
	__u64 t;
	__u64 g_snap;
	__u64 busy_ns;
	__u64 idle_ns;
	__u64 iowait_ns;
	__u64 blk_local_ns;
	__u64 blk_any_ns;
	__u64 iowait_blk_ns;
	__u64 share_ns;
	__u32 share_rem;
	__s32 mirror;
	__s32 lfl;
	__u8 idle;
	__u8 online;
};

/*
 * struct iowprobe_gclock - integral of "something is in flight" over time
 *
 * G(t) only grows.  The idle time of a CPU that overlapped in-flight I/O
 * over an idle stretch [s, e] is G(e) - G(s), so no I/O event ever has to
 * touch another CPU's state.
 */
struct iowprobe_gclock {
	__u64 acc;
	__u64 t;
	__u8 running;
};

static __always_inline __u64 iowprobe_since(__u64 now, __u64 then)
{
	/* the fast clock can step back slightly across timekeeper updates */
	return now > then ? now - then : 0;
}

static __always_inline __u64
iowprobe_gclock_read(const struct iowprobe_gclock *g, __u64 now)
{
	return g->acc + (g->running ? iowprobe_since(now, g->t) : 0);
}

/* iowprobe_gclock_set() - from @now on, something is in flight or not */
static __always_inline void
iowprobe_gclock_set(struct iowprobe_gclock *g, __u64 now, int running)
{
	g->acc = iowprobe_gclock_read(g, now);
	if (now > g->t)
		g->t = now;
	g->running = running ? 1 : 0;
}

/*
 * iowprobe_acct_close() - book the open segment up to @now
 *
 * Called before every change of a condition, so each condition is
 * integrated exactly over the time it held.
 */
static __always_inline void
iowprobe_acct_close(struct iowprobe_acct *a, __u64 now, __u64 g)
{
	/* each boundary moves on, never back: one compare each, not two */
	__u64 t = now > a->t ? now : a->t;
	__u64 g_snap = g > a->g_snap ? g : a->g_snap;
	__u64 d = t - a->t, gd = g_snap - a->g_snap;

	a->t = t;
	a->g_snap = g_snap;
	/* an offline CPU books nothing: a branch, as CPUs are rarely so */
	if (!a->online)
		return;
	if (a->idle) {
		a->idle_ns += d;
		if (a->mirror > 0) {
			__u64 t = d + a->share_rem;

			a->iowait_ns += d;
			a->share_ns += t / (__u32)a->mirror;
			a->share_rem = t % (__u32)a->mirror;
			if (a->lfl > 0)
				a->iowait_blk_ns += d;
		}
		if (a->lfl > 0)
			a->blk_local_ns += d;
		/* clocks read a few ns apart must not make blk_any > idle */
		a->blk_any_ns += gd < d ? gd : d;
	} else {
		a->busy_ns += d;
	}
}

static __always_inline void
iowprobe_acct_set_idle(struct iowprobe_acct *a, __u64 now, __u64 g, int idle)
{
	iowprobe_acct_close(a, now, g);
	a->idle = idle ? 1 : 0;
}

static __always_inline void
iowprobe_acct_set_online(struct iowprobe_acct *a, __u64 now, __u64 g,
			 int online)
{
	iowprobe_acct_close(a, now, g);
	a->online = online ? 1 : 0;
}

static __always_inline void
iowprobe_acct_add_mirror(struct iowprobe_acct *a, __u64 now, __u64 g,
			 int delta)
{
	iowprobe_acct_close(a, now, g);
	a->mirror += delta;
}

/*
 * iowprobe_acct_io_matters() - does what is in flight change how the open
 * segment is booked?  Only while idle: a busy segment is busy whatever is
 * in flight, so a change of lfl need not cut it, nor need the caller read
 * the in-flight clock for it.
 */
static __always_inline int
iowprobe_acct_io_matters(const struct iowprobe_acct *a)
{
	return a->idle && a->online;
}

/*
 * iowprobe_acct_add_lfl() - @delta requests of this CPU start or end
 * @g: the in-flight clock at @now; only read when
 *     iowprobe_acct_io_matters(@a), so pass 0 otherwise
 */
static __always_inline void
iowprobe_acct_add_lfl(struct iowprobe_acct *a, __u64 now, __u64 g, int delta)
{
	if (iowprobe_acct_io_matters(a))
		iowprobe_acct_close(a, now, g);
	a->lfl += delta;
}

/* iowprobe_acct_peek() - @a as it would be if closed at @now; @a unchanged */
static __always_inline void
iowprobe_acct_peek(const struct iowprobe_acct *a, __u64 now, __u64 g,
		   struct iowprobe_acct *out)
{
	*out = *a;
	iowprobe_acct_close(out, now, g);
}

/*
 * What a sched_switch means for the task switched out.  The kernel counts
 * it in nr_iowait when it really left the runqueue with in_iowait set:
 * prev_state is not proof (preemption, a pending signal, and 6.12's delayed
 * dequeue all leave the task queued), on_rq == 0 is.  A 6.12 task whose
 * dequeue was delayed is counted later, at pick time, with no tracepoint:
 * it is PENDING until a later switch on that CPU finds it off the runqueue.
 */
enum iowprobe_switch_verdict {
	IOWPROBE_SW_NONE,
	IOWPROBE_SW_COUNT,
	IOWPROBE_SW_PENDING,
};

/*
 * iowprobe_switch_may_count() - can the verdict be other than NONE?  The
 * two fields every switch reads; on_rq and delay only matter past them.
 */
static __always_inline int iowprobe_switch_may_count(int preempt,
						     int in_iowait)
{
	return !preempt && in_iowait;
}

static __always_inline enum iowprobe_switch_verdict
iowprobe_switch_verdict(int preempt, int in_iowait, int on_rq, int delayed)
{
	if (!iowprobe_switch_may_count(preempt, in_iowait))
		return IOWPROBE_SW_NONE;
	if (on_rq == 0)
		return IOWPROBE_SW_COUNT;
	return delayed ? IOWPROBE_SW_PENDING : IOWPROBE_SW_NONE;
}

/* The state of a task the module follows */
enum iowprobe_task_state {
	IOWPROBE_T_COUNTED = 1,		/* in its sleep CPU's mirror */
	IOWPROBE_T_PENDING = 2,		/* 6.12: delayed, not counted yet */
};

enum iowprobe_wake_action {
	IOWPROBE_W_NONE,	/* leave the entry alone */
	IOWPROBE_W_DEC,		/* the kernel decremented: so do we, drop it */
	IOWPROBE_W_DROP,	/* never counted, or inc+dec: drop it */
	IOWPROBE_W_MOVE,	/* 6.12: a delayed task load-balanced: follow */
	IOWPROBE_W_ANOMALY,	/* cannot happen by the kernel's rules */
};

/*
 * iowprobe_migrate_action() - sched_migrate_task of a followed task
 * @waking: the task's __state is TASK_WAKING, i.e. try_to_wake_up() moves
 *          it and has already decremented the old CPU's nr_iowait
 */
static __always_inline enum iowprobe_wake_action
iowprobe_migrate_action(int waking, int state)
{
	if (state == IOWPROBE_T_COUNTED)
		return waking ? IOWPROBE_W_DEC : IOWPROBE_W_ANOMALY;
	if (state == IOWPROBE_T_PENDING)
		return waking ? IOWPROBE_W_DROP : IOWPROBE_W_MOVE;
	return IOWPROBE_W_ANOMALY;
}

/*
 * iowprobe_wakeup_action() - sched_wakeup of a followed task
 *
 * COUNTED: ttwu_do_activate() decremented.  PENDING: either ttwu_runnable()
 * requeued a delayed task (never counted) or the task was blocked at pick
 * time and woken before that CPU's next switch (counted and uncounted while
 * the CPU was busy); both are net zero.
 */
static __always_inline enum iowprobe_wake_action
iowprobe_wakeup_action(int state)
{
	if (state == IOWPROBE_T_COUNTED)
		return IOWPROBE_W_DEC;
	if (state == IOWPROBE_T_PENDING)
		return IOWPROBE_W_DROP;
	return IOWPROBE_W_ANOMALY;
}

/* iowprobe_lat_slot() - log2 bucket of @ns, clamped; loop-free for BPF */
static __always_inline __u32 iowprobe_lat_slot(__u64 ns)
{
	__u32 s = 0;

#if defined(__KERNEL__) && !defined(__bpf__)
	/* the module's completion path: one bsr, no test (0 and 1: slot 0) */
	s = fls64(ns | 1) - 1;
#else
	if (ns >> 32) {
		ns >>= 32;
		s += 32;
	}
	if (ns >> 16) {
		ns >>= 16;
		s += 16;
	}
	if (ns >> 8) {
		ns >>= 8;
		s += 8;
	}
	if (ns >> 4) {
		ns >>= 4;
		s += 4;
	}
	if (ns >> 2) {
		ns >>= 2;
		s += 2;
	}
	if (ns >> 1)
		s += 1;
#endif
	return s < IOWPROBE_LAT_SLOTS ? s : IOWPROBE_LAT_SLOTS - 1;
}

/*
 * The x86_64 system call numbers a wait is sorted by
 * (arch/x86/entry/syscalls/syscall_64.tbl: an ABI, never renumbered).
 * Here as numbers, not __NR_ names, for the BPF program has none;
 * selftests/host/core_test.c checks them against <asm/unistd_64.h>.
 */
enum iowprobe_sysnr {
	IOWPROBE_NR_read		= 0,
	IOWPROBE_NR_write		= 1,
	IOWPROBE_NR_pread64		= 17,
	IOWPROBE_NR_pwrite64		= 18,
	IOWPROBE_NR_readv		= 19,
	IOWPROBE_NR_writev		= 20,
	IOWPROBE_NR_msync		= 26,
	IOWPROBE_NR_sendfile		= 40,
	IOWPROBE_NR_fsync		= 74,
	IOWPROBE_NR_fdatasync		= 75,
	IOWPROBE_NR_sync		= 162,
	IOWPROBE_NR_splice		= 275,
	IOWPROBE_NR_tee			= 276,
	IOWPROBE_NR_sync_file_range	= 277,
	IOWPROBE_NR_vmsplice		= 278,
	IOWPROBE_NR_preadv		= 295,
	IOWPROBE_NR_pwritev		= 296,
	IOWPROBE_NR_syncfs		= 306,
	IOWPROBE_NR_copy_file_range	= 326,
	IOWPROBE_NR_preadv2		= 327,
	IOWPROBE_NR_pwritev2		= 328,
	IOWPROBE_NR_io_uring_enter	= 426,
};

/*
 * The kind of each system call a sleeper can be in, up to the last one
 * listed: the kind XOR IOWPROBE_WAIT_other, so that the calls not listed,
 * 0 here, read as other.  A table, not a switch: the kernel is built
 * without jump tables, and a switch of these 22 cases, a tree of
 * compares, cost 19 instructions more a sleep (scripts/step-profile -w
 * slow, 6.1).
 */
#define IOWPROBE_NR_KIND(nr, kind)	\
	[IOWPROBE_NR_##nr] = IOWPROBE_WAIT_##kind ^ IOWPROBE_WAIT_other

static const __u8 iowprobe_nr_kind[IOWPROBE_NR_io_uring_enter + 1] = {
	IOWPROBE_NR_KIND(io_uring_enter, uring),
	IOWPROBE_NR_KIND(read, rw),
	IOWPROBE_NR_KIND(write, rw),
	IOWPROBE_NR_KIND(pread64, rw),
	IOWPROBE_NR_KIND(pwrite64, rw),
	IOWPROBE_NR_KIND(readv, rw),
	IOWPROBE_NR_KIND(writev, rw),
	IOWPROBE_NR_KIND(preadv, rw),
	IOWPROBE_NR_KIND(pwritev, rw),
	IOWPROBE_NR_KIND(preadv2, rw),
	IOWPROBE_NR_KIND(pwritev2, rw),
	IOWPROBE_NR_KIND(sendfile, rw),
	IOWPROBE_NR_KIND(copy_file_range, rw),
	IOWPROBE_NR_KIND(splice, rw),
	IOWPROBE_NR_KIND(tee, rw),
	IOWPROBE_NR_KIND(vmsplice, rw),
	IOWPROBE_NR_KIND(fsync, sync),
	IOWPROBE_NR_KIND(fdatasync, sync),
	IOWPROBE_NR_KIND(sync, sync),
	IOWPROBE_NR_KIND(syncfs, sync),
	IOWPROBE_NR_KIND(sync_file_range, sync),
	IOWPROBE_NR_KIND(msync, sync),
};

#undef IOWPROBE_NR_KIND

/*
 * iowprobe_wait_kind_of() - where a user task sleeping in iowait waits,
 * from @nr, the system call it is in: its saved orig_ax, -1 (any
 * negative) outside a system call, which for a sleeper is a page fault
 * (doc/design.md#where-each-sleeper-waits).  A kernel thread has no
 * system call: the caller sorts it (other) and io_uring's own workers
 * (uring) first.
 */
static __always_inline enum iowprobe_wait_kind iowprobe_wait_kind_of(long nr)
{
	if ((unsigned long)nr < sizeof(iowprobe_nr_kind))
		return iowprobe_nr_kind[nr] ^ IOWPROBE_WAIT_other;
	return nr < 0 ? IOWPROBE_WAIT_fault : IOWPROBE_WAIT_other;
}

#endif /* IOWPROBE_CORE_H */
