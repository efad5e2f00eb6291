/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * owners.h - the rows of who waits (owners.c), and the request path's
 * inline part: a block request finds its process's row in this CPU's cache
 * and counts itself in flight there with one atomic, without a call
 */
#ifndef IOWPROBE_OWNERS_H
#define IOWPROBE_OWNERS_H

#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "iowprobe.h"

/* devices a row remembers its wait on, to name the one it waited on most */
#define OWNER_DEVS	4

enum row_state { ROW_FREE, ROW_LIVE, ROW_EXITED };

/*
 * struct owner_figs - what a row counts; a new row starts it from zero
 * @key:      tgid or cgroup id; with @start, who the row is
 * @start:    a process's group leader's start_time: a reused pid is not it
 * @blk:      the time a request of the row's own was in flight, kept
 *            only while a sleeper of the row watches it: @asleep > 0
 * @inflight: its requests in flight, changed without the lock
 * @dev_last: the device slot (devs.h) of its latest request; a wait is
 *            booked on its disk
 * @cgroup_row: a process's: the row of @cgroup when it was last looked
 *            up, read and written without the lock and checked on use
 */
struct owner_figs {
	u64 key;
	u64 start;
	u64 cgroup;
	struct iowprobe_owner *cgroup_row;
	struct iowprobe_gclock blk;
	atomic_t inflight;
	atomic_t asleep;
	u64 sleeps;
	u64 wait_ns;
	u64 wait_blk_ns;
	u64 wa_ns;
	u64 wait_kind_ns[IOWPROBE_WAIT_KINDS];	/* wait_ns by kind */
	u64 t_exit;
	u8 state;	/* enum row_state */
	bool read;	/* read since it exited */
	u16 dev_last;
	dev_t dev[OWNER_DEVS];
	u64 dev_ns[OWNER_DEVS];
	char comm[TASK_COMM_LEN];
};

/*
 * struct iowprobe_owner - one process's or cgroup's row
 * @node: in its set's hash while live
 * @lock: a leaf lock over @f
 */
struct iowprobe_owner {
	struct hlist_node node;
	raw_spinlock_t lock;
	struct owner_figs f;
};

/*
 * struct owner_cache - per CPU, the process row a task was last found to
 * have: a task issues and sleeps on one CPU over and over, so most
 * lookups hit here and take no lock
 * @task:       the task the row is of
 * @task_start: its start_time: a task struct freed and reused is not it
 * @row:        its process's row, which remembers its cgroup's
 *
 * While @task lives, its process's row stays that process's: a row ends
 * only when its group leader is freed, after every thread, or when its pid
 * shows up again, after that.  So a hit on a live task needs no check of
 * the row; a cgroup's row is checked, since a task can move.  A kernel
 * thread, or a task with no row (the pool was empty), is not kept: the
 * request path counts on a hit being a user task's.
 */
struct owner_cache {
	const struct task_struct *task;
	u64 task_start;
	struct iowprobe_owner *row;
};

extern struct owner_cache __percpu *iowprobe_owner_caches;

void iowprobe_owner_turn(struct iowprobe_owner *o, u64 now);

static __always_inline bool owner_cache_hit(const struct owner_cache *c,
					    const struct task_struct *p)
{
	return c->task == p && c->task_start == p->start_time;
}

/*
 * iowprobe_owner_current() - the row of current's process, for a request
 * it issues; NULL for a kernel thread, which issues for others (writeback,
 * kblockd), or when the pool is empty.  Interrupts off, so the CPU's cache
 * is ours.
 */
static __always_inline struct iowprobe_owner *iowprobe_owner_current(void)
{
	const struct owner_cache *c = raw_cpu_ptr(iowprobe_owner_caches);

	lockdep_assert_irqs_disabled();
	if (likely(owner_cache_hit(c, current)))
		return c->row;
	if (current->flags & PF_KTHREAD)
		return NULL;
	return iowprobe_owner_proc(current);
}

/*
 * iowprobe_owner_rq() - @delta requests of process row @o, on device slot @dev,
 * start or end at @now; under a CPU's lock, so interrupts are off
 *
 * Only a turn of the count (0 <-> 1) while a sleeper watches takes the
 * row's lock: a process that never sleeps in iowait (polled or
 * interrupt-free I/O) pays one atomic operation a request.  The atomic's
 * full barrier pairs with blk_watch()'s.
 */
static __always_inline void iowprobe_owner_rq(struct iowprobe_owner *o,
					      u16 dev, int delta, u64 now)
{
	int n;

	if (!o)
		return;
	if (delta > 0)
		WRITE_ONCE(o->f.dev_last, dev);
	n = atomic_add_return(delta, &o->f.inflight);
	if (unlikely(atomic_read(&o->f.asleep)) && (delta > 0 ? n == 1 : !n))
		iowprobe_owner_turn(o, now);
}

#endif /* IOWPROBE_OWNERS_H */
