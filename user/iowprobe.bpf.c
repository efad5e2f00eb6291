// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowprobe.bpf.c - iowprobe's exact split of idle time as BPF programs on
 * raw tracepoints, for machines that cannot load the module (iowstat --bpf)
 *
 * The same rules as the module (KERNEL-NOTES.md section 5, kmod/acct.c,
 * kmod/blk.c) with the same core (iowprobe_core.h): the nr_iowait mirror
 * goes +1 on the sleep CPU when a task with in_iowait leaves the runqueue
 * (6.12: when a delayed dequeue is later found blocked), -1 on that CPU when
 * try_to_wake_up() brings it back; requests are in flight from issue to the
 * completion that finishes them.
 *
 * Cross-CPU updates, without locks.  Tracing programs cannot take
 * bpf_spin_lock, and a bounded try-lock would fail whenever its holder is
 * interrupted on the same CPU by a program that needs it (a completion
 * interrupting an issue).  So nothing here closes another CPU's segment:
 * - a CPU's busy/idle state and its accts are written only by its own
 *   sched_switch program (interrupts off, so never nested), inside a
 *   seqcount for the reader;
 * - the conditions other CPUs change (mirror, local requests, any request)
 *   are count clocks (iowprobe_bpf.h): one word each, changed with one
 *   compare-and-swap stamped with the updater's own clock read;
 * - the owner integrates each clock over its idle stretches at its own
 *   boundaries through the core's acct_close(), as the module does for
 *   blk_any.
 * The bound: a transition stamped at t and stored at t' >= t can be seen on
 * the wrong side by a boundary or read falling in (t, t'), so each such
 * coincidence moves at most t' - t of idle time between buckets (or the
 * owner's own stamp-to-read time, a few instructions) and never accumulates
 * (the unwrap clamps a clock seen going back).  t' - t is one program's
 * run: well under a microsecond for the scheduler programs (interrupts
 * off), plus nested interrupt handlers for the block ones.  An update that
 * loses IOWPROBE_CLOCK_TRIES races in a row is deferred to the next update
 * of the same clock (counted in clock_deferred).  README.bpf.md has the
 * derivation.
 *
 * Per-task and per-request state lives in preallocated hash maps.  An entry
 * is ended by exactly one event (a wakeup, a migration, a free, a
 * completion), which claims it by exchanging its state word with DEAD
 * before deleting it; the 6.12 reconcile and the load balancer's move only
 * compare-and-swap a PENDING state of their own CPU, under that CPU's
 * runqueue lock, so a recycled element is never mistaken for another task.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "iowprobe_bpf.h"

#define PF_IDLE			0x00000002	/* include/linux/sched.h */
#define TASK_WAKING		0x00000200
#define EEXIST			17		/* include/uapi/asm-generic/errno-base.h */
#define REQ_OP_MASK		0xff		/* (1 << REQ_OP_BITS) - 1 */
#define REQ_OP_READ		0
#define REQ_OP_WRITE		1
#define IOWPROBE_CLOCK_TRIES	64
#define IOWPROBE_TASKS		4096		/* the module's default */
#define IOWPROBE_REQUESTS	16384		/* deep NVMe queues */

#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

char LICENSE[] SEC("license") = "GPL";

/* possible CPUs: bounds blk_mq_rq_cpu() */
const volatile __u32 nr_cpus = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* the possible CPUs, set at open */
	__type(key, __u32);
	__type(value, struct iowprobe_bpf_cpu);
} cpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);	/* preallocated */
	__uint(max_entries, IOWPROBE_TASKS);
	__type(key, __u64);			/* struct task_struct * */
	__type(value, struct iowprobe_bpf_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOWPROBE_REQUESTS);
	__type(key, __u64);			/* struct request * */
	__type(value, struct iowprobe_bpf_rq);
} requests SEC(".maps");

/*
 * Global data, each on its own cache line: the disk clock (any request in
 * flight, which every CPU's blk_any integrates), the number of tasks
 * followed now (wakeups and frees look nothing up while it is 0), and what
 * could not be followed.
 */
struct iowprobe_cc disk_clock __attribute__((aligned(64)));
static __u64 followed __attribute__((aligned(64)));
struct iowprobe_bpf_stats stats __attribute__((aligned(64)));

/* commit 2f064a59a11f ("sched: Change task_struct::state"), v5.14 */
struct task_struct___state {
	unsigned int __state;
} __attribute__((preserve_access_index));

struct task_struct___old_state {
	long state;
} __attribute__((preserve_access_index));

/* commit 152e11f6df29 ("sched/fair: Implement delayed dequeue"), v6.12 */
struct sched_entity___delayed {
	unsigned char sched_delayed;
} __attribute__((preserve_access_index));

struct task_struct___delayed {
	struct sched_entity___delayed se;
} __attribute__((preserve_access_index));

static __always_inline void stat_inc(__u64 *counter)
{
	__sync_fetch_and_add(counter, 1);
}

static __always_inline struct iowprobe_bpf_cpu *cpu_state(__u32 cpu)
{
	return bpf_map_lookup_elem(&cpus, &cpu);
}

static __always_inline void count(struct iowprobe_bpf_cpu *c,
				  enum iowprobe_bpf_counter n, __u64 v)
{
	if (n < IOWPROBE_BPF_C_NR)
		__sync_fetch_and_add(&c->counters[n], v);
}

static __always_inline void anomaly(__u32 cpu)
{
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);

	if (c)
		count(c, IOWPROBE_BPF_C_anomalies, 1);
}

/*
 * is_idle() - whether @p is the idle task of this CPU (@c)
 *
 * Learned once from PF_IDLE and pid 0, then a pointer comparison: two
 * probe reads fewer on every switch.  Idle-injection kthreads
 * (play_idle_precise()) also set PF_IDLE, and the module's is_idle_task()
 * counts them as idle; here they are busy (README.bpf.md).
 */
static __always_inline bool is_idle(struct iowprobe_bpf_cpu *c,
				    struct task_struct *p)
{
	if (c->idle_task)
		return (__u64)p == c->idle_task;
	if (!(BPF_CORE_READ(p, flags) & PF_IDLE) || BPF_CORE_READ(p, pid))
		return false;
	c->idle_task = (__u64)p;
	return true;
}

static __always_inline bool task_in_iowait(struct task_struct *p)
{
	return BPF_CORE_READ_BITFIELD_PROBED(p, in_iowait);
}

static __always_inline unsigned int task_state(struct task_struct *p)
{
	struct task_struct___old_state *old = (void *)p;

	if (bpf_core_field_exists(struct task_struct___state, __state))
		return BPF_CORE_READ((struct task_struct___state *)p, __state);
	return BPF_CORE_READ(old, state);
}

/* a 6.12 task whose dequeue was delayed: still queued, not yet counted */
static __always_inline int task_delayed(struct task_struct *p)
{
	struct task_struct___delayed *t = (void *)p;

	if (bpf_core_field_exists(t->se.sched_delayed))
		return BPF_CORE_READ(t, se.sched_delayed);
	return 0;
}

/*
 * cc_add() - count += @delta on a count clock, stamped @now
 *
 * Whatever an earlier update could not store is claimed first and stored
 * with this one, so no change is ever lost, only late.  A global function:
 * the verifier checks its loop once, not at every caller.
 * Return: 0, or 1 when the change was left to the next update.
 */
__noinline int cc_add(struct iowprobe_cc *cc, __s64 delta, __u64 now)
{
	__u64 old, new;
	int i;

	if (!cc)
		return 0;
	if (READ_ONCE(cc->owed))
		delta += __sync_lock_test_and_set(&cc->owed, 0);
	if (!delta)
		return 0;
	for (i = 0; i < IOWPROBE_CLOCK_TRIES; i++) {
		old = READ_ONCE(cc->w);
		if (iowprobe_cc_next(old, delta, now, &new))
			break;
		if (__sync_val_compare_and_swap(&cc->w, old, new) == old)
			return 0;
	}
	__sync_fetch_and_add(&cc->owed, delta);
	stat_inc(&stats.clock_deferred);
	return 1;
}

/*
 * seq_bump() - xchg, fully ordered: the reader sees seq change around
 * everything written between two bumps
 */
static __always_inline void seq_bump(struct iowprobe_bpf_cpu *c)
{
	__sync_lock_test_and_set(&c->seq, c->seq + 1);
}

/* acct_at() - @a's clock @cc at @now, unwrapped against @a's snapshot */
static __always_inline __u64 acct_at(struct iowprobe_acct *a,
				     struct iowprobe_cc *cc, __u64 now)
{
	__u64 v = iowprobe_cc_value(READ_ONCE(cc->w), now);

	return iowprobe_cc_unwrap(v, a->g_snap);
}

/* cpu_set_idle() - this CPU switches between idle and busy at @now */
static __always_inline void cpu_set_idle(struct iowprobe_bpf_cpu *c,
					 __u64 now, int idle)
{
	seq_bump(c);
	iowprobe_acct_set_idle(&c->all, now, acct_at(&c->all, &disk_clock, now),
			       idle);
	iowprobe_acct_set_idle(&c->iow, now, acct_at(&c->iow, &c->mirror, now),
			       idle);
	iowprobe_acct_set_idle(&c->loc, now, acct_at(&c->loc, &c->local, now),
			       idle);
	seq_bump(c);
}

static __always_inline void acct_start(struct iowprobe_acct *a,
				       struct iowprobe_cc *cc, __u64 now,
				       int idle)
{
	/* the first snapshot is the raw value: there is nothing to unwrap */
	iowprobe_acct_set_online(a, now,
				 iowprobe_cc_value(READ_ONCE(cc->w), now), 1);
	a->idle = idle;
}

/* cpu_init() - the first switch seen on this CPU starts its clock */
static __always_inline void cpu_init(struct iowprobe_bpf_cpu *c, __u64 now,
				     int idle)
{
	seq_bump(c);
	acct_start(&c->all, &disk_clock, now, idle);
	acct_start(&c->iow, &c->mirror, now, idle);
	acct_start(&c->loc, &c->local, now, idle);
	c->inited = 1;
	seq_bump(c);
}

/*
 * park() - a pending slot of @c for task @p, or -1 when all are taken
 * (global, like reconcile(): its loop is checked once)
 */
__noinline int park(struct iowprobe_bpf_cpu *c, __u64 p)
{
	__u64 mask, bit;
	int i;

	if (!c)
		return -1;
	for (i = 0; i < IOWPROBE_BPF_PENDING; i++) {
		mask = READ_ONCE(c->pending_mask);
		bit = 1ULL << i;
		if (mask & bit)
			continue;
		if (__sync_val_compare_and_swap(&c->pending_mask, mask,
						mask | bit) != mask)
			continue;
		WRITE_ONCE(c->pending[i], p);
		return i;
	}
	return -1;
}

static __always_inline void unpark(struct iowprobe_bpf_cpu *c, __u32 slot)
{
	slot &= IOWPROBE_BPF_PENDING - 1;
	WRITE_ONCE(c->pending[slot], 0);
	__sync_fetch_and_and(&c->pending_mask, ~(1ULL << slot));
}

/*
 * claim_task() - end the following of task @p
 * Return: its state before, or DEAD when it was not followed.
 */
static __always_inline __u64 claim_task(__u64 p)
{
	struct iowprobe_bpf_task *e = bpf_map_lookup_elem(&tasks, &p);
	__u64 s;

	if (!e)
		return IOWPROBE_BPF_DEAD;
	s = __sync_lock_test_and_set(&e->state, IOWPROBE_BPF_DEAD);
	if (s == IOWPROBE_BPF_DEAD)
		return s;
	__sync_fetch_and_add(&followed, -1);
	if (bpf_map_delete_elem(&tasks, &p))
		stat_inc(&stats.map_busy);	/* a DEAD entry stays behind */
	return s;
}

/*
 * release() - undo what a claimed task state @s added
 * @dec: the kernel decremented the sleep CPU's nr_iowait for it
 */
static __always_inline void release(__u64 s, bool dec)
{
	__u32 cpu = iowprobe_bpf_cpu_of(s);
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);

	if (!c)
		return;
	if (iowprobe_bpf_kind(s) == IOWPROBE_T_PENDING) {
		unpark(c, iowprobe_bpf_slot(s));
		return;
	}
	if (iowprobe_bpf_kind(s) != IOWPROBE_T_COUNTED)
		return;
	cc_add(&c->mirror, -1, bpf_ktime_get_ns());
	if (!dec)
		return;
	count(c, IOWPROBE_BPF_C_wakeups, 1);
	/* racy read of the owner's flag: a diagnostic counter only */
	if (cpu != bpf_get_smp_processor_id() && READ_ONCE(c->all.idle))
		count(c, IOWPROBE_BPF_C_remote_dec_idle, 1);
}

/*
 * publish_task() - insert @t for @p; a stale entry is an anomaly
 *
 * @followed goes up before the task can be woken: its waker waits for
 * p->on_cpu == 0 (or runs on this CPU after the switch), which the
 * scheduler stores with release semantics after this program.
 */
static __always_inline int publish_task(__u64 p, struct iowprobe_bpf_task *t)
{
	__u64 s;
	int err;

	err = bpf_map_update_elem(&tasks, &p, t, BPF_NOEXIST);
	if (err == -EEXIST) {
		s = claim_task(p);	/* a wakeup we never saw */
		if (s != IOWPROBE_BPF_DEAD) {
			anomaly(iowprobe_bpf_cpu_of(s));
			release(s, false);
		}
		err = bpf_map_update_elem(&tasks, &p, t, BPF_ANY);
	}
	if (!err)
		__sync_fetch_and_add(&followed, 1);
	return err;
}

/* follow() - @p leaves this CPU in iowait: count it now or park it */
static __always_inline void follow(struct iowprobe_bpf_cpu *c, __u32 cpu,
				   __u64 p, enum iowprobe_switch_verdict v,
				   __u64 now)
{
	struct iowprobe_bpf_task t;
	int slot;

	if (v == IOWPROBE_SW_PENDING) {
		slot = park(c, p);
		if (slot < 0) {
			stat_inc(&stats.pending_full);
			return;
		}
		t.state = iowprobe_bpf_state(IOWPROBE_T_PENDING, cpu, slot);
		if (publish_task(p, &t)) {
			unpark(c, slot);
			stat_inc(&stats.tasks_full);
			return;
		}
		stat_inc(&stats.delayed_parked);
		return;
	}
	/* the count follows the entry: a wakeup cannot run before we end */
	t.state = iowprobe_bpf_state(IOWPROBE_T_COUNTED, cpu, 0);
	if (publish_task(p, &t)) {
		stat_inc(&stats.tasks_full);
		return;
	}
	cc_add(&c->mirror, 1, now);
	count(c, IOWPROBE_BPF_C_sleeps, 1);
}

/*
 * reconcile() - 6.12: count the parked sleepers that a pick on this CPU has
 * blocked since (__block_task() has no tracepoint); before the idle segment
 * opens, since this CPU cannot go idle with a delayed entity queued
 */
__noinline int reconcile(struct iowprobe_bpf_cpu *c, __u32 cpu, __u64 now,
			 int was_idle)
{
	struct iowprobe_bpf_task *e;
	__u64 p, want, counted, n = 0;
	int i;

	if (!c)
		return 0;
	for (i = 0; i < IOWPROBE_BPF_PENDING; i++) {
		if (!(READ_ONCE(c->pending_mask) & (1ULL << i)))
			continue;
		p = READ_ONCE(c->pending[i]);
		if (!p || BPF_CORE_READ((struct task_struct *)p, on_rq))
			continue;
		e = bpf_map_lookup_elem(&tasks, &p);
		if (!e)
			continue;
		want = iowprobe_bpf_state(IOWPROBE_T_PENDING, cpu, i);
		counted = iowprobe_bpf_state(IOWPROBE_T_COUNTED, cpu, 0);
		if (__sync_val_compare_and_swap(&e->state, want, counted) !=
		    want)
			continue;	/* its wakeup claimed it first */
		unpark(c, i);
		n++;
	}
	if (!n)
		return 0;
	/* one clock update for all: they were all found at @now */
	cc_add(&c->mirror, n, now);
	count(c, IOWPROBE_BPF_C_sleeps, n);
	__sync_fetch_and_add(&stats.delayed_blocked, n);
	if (was_idle)	/* blocked remotely while we idled */
		__sync_fetch_and_add(&stats.late_block, n);
	return n;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(iow_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);
	enum iowprobe_switch_verdict v = IOWPROBE_SW_NONE;
	bool was_idle, idle;
	__u64 now;

	if (!c)
		return 0;
	was_idle = is_idle(c, prev);
	idle = is_idle(c, next);
	if (!preempt && task_in_iowait(prev))
		v = iowprobe_switch_verdict(0, 1, BPF_CORE_READ(prev, on_rq),
					    task_delayed(prev));
	if (v == IOWPROBE_SW_NONE && was_idle == idle && c->inited &&
	    !READ_ONCE(c->pending_mask))
		return 0;	/* the common case: nothing shared touched */
	now = bpf_ktime_get_ns();
	if (!c->inited)
		cpu_init(c, now, was_idle);
	if (READ_ONCE(c->pending_mask))
		reconcile(c, cpu, now, was_idle);
	if (v != IOWPROBE_SW_NONE)
		follow(c, cpu, (__u64)prev, v, now);
	if (was_idle != idle)
		cpu_set_idle(c, now, idle);
	return 0;
}

/* move() - 6.12: the load balancer moved a parked sleeper to @dest */
static __always_inline void move(struct iowprobe_bpf_task *e, __u64 p,
				 __u64 s, __u32 dest)
{
	struct iowprobe_bpf_cpu *from = cpu_state(iowprobe_bpf_cpu_of(s));
	struct iowprobe_bpf_cpu *to = cpu_state(dest);
	__u64 moved;
	int slot;

	if (!from || !to)
		return;
	slot = park(to, p);
	if (slot < 0) {		/* stop following: it would go uncounted */
		stat_inc(&stats.pending_full);
		release(claim_task(p), false);
		return;
	}
	moved = iowprobe_bpf_state(IOWPROBE_T_PENDING, dest, slot);
	if (__sync_val_compare_and_swap(&e->state, s, moved) != s) {
		unpark(to, slot);
		return;
	}
	unpark(from, iowprobe_bpf_slot(s));
}

SEC("raw_tp/sched_migrate_task")
int BPF_PROG(iow_migrate, struct task_struct *p, int dest_cpu)
{
	__u64 key = (__u64)p, s;
	struct iowprobe_bpf_task *e;
	int waking;

	if (!READ_ONCE(followed) || !task_in_iowait(p))
		return 0;
	e = bpf_map_lookup_elem(&tasks, &key);
	if (!e)
		return 0;
	s = READ_ONCE(e->state);
	if (s == IOWPROBE_BPF_DEAD)
		return 0;
	waking = task_state(p) == TASK_WAKING;
	switch (iowprobe_migrate_action(waking, iowprobe_bpf_kind(s))) {
	case IOWPROBE_W_DEC:
	case IOWPROBE_W_DROP:
		/* decide again on the state actually claimed */
		s = claim_task(key);
		release(s, iowprobe_migrate_action(waking, iowprobe_bpf_kind(s))
			   == IOWPROBE_W_DEC);
		break;
	case IOWPROBE_W_MOVE:
		move(e, key, s, dest_cpu);
		break;
	default:
		anomaly(iowprobe_bpf_cpu_of(s));
		break;
	}
	return 0;
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(iow_wakeup, struct task_struct *p)
{
	__u64 s;

	/* in_iowait is still set: the task restores it after the wakeup */
	if (!READ_ONCE(followed) || !task_in_iowait(p))
		return 0;
	s = claim_task((__u64)p);
	if (s != IOWPROBE_BPF_DEAD)
		release(s, iowprobe_wakeup_action(iowprobe_bpf_kind(s)) ==
			   IOWPROBE_W_DEC);
	return 0;
}

/* a followed task freed: a wakeup we never saw */
SEC("raw_tp/sched_process_free")
int BPF_PROG(iow_free, struct task_struct *p)
{
	__u64 s;

	if (!READ_ONCE(followed))
		return 0;
	s = claim_task((__u64)p);
	if (s == IOWPROBE_BPF_DEAD)
		return 0;
	anomaly(iowprobe_bpf_cpu_of(s));
	release(s, false);
	return 0;
}

static __always_inline __u32 rq_cpu(struct request *rq)
{
	__u32 cpu = BPF_CORE_READ(rq, mq_ctx, cpu);	/* blk_mq_rq_cpu() */

	return cpu < nr_cpus ? cpu : bpf_get_smp_processor_id();
}

static __always_inline __u8 rq_op(struct request *rq)
{
	switch (BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK) {
	case REQ_OP_READ:
		return IOWPROBE_BPF_OP_READ;
	case REQ_OP_WRITE:
		return IOWPROBE_BPF_OP_WRITE;
	default:
		return IOWPROBE_BPF_OP_OTHER;
	}
}

/* claim_rq() - end request @rq; true with its entry in @v when ours */
static __always_inline bool claim_rq(__u64 rq, struct iowprobe_bpf_rq *v)
{
	struct iowprobe_bpf_rq *e = bpf_map_lookup_elem(&requests, &rq);

	if (!e)
		return false;
	v->bytes = e->bytes;
	v->op = e->op;
	v->state = __sync_lock_test_and_set(&e->state, IOWPROBE_BPF_DEAD);
	if (v->state == IOWPROBE_BPF_DEAD)
		return false;
	if (bpf_map_delete_elem(&requests, &rq))
		stat_inc(&stats.map_busy);
	return true;
}

/* rq_end() - the request of @v is no longer in flight */
static __always_inline void rq_end(struct iowprobe_bpf_rq *v, bool done)
{
	struct iowprobe_bpf_cpu *c = cpu_state(iowprobe_bpf_cpu_of(v->state));
	__u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	cc_add(&c->local, -1, now);
	cc_add(&disk_clock, -1, now);
	if (!done)
		return;
	count(c, IOWPROBE_BPF_C_rq_completed, 1);
	if (v->op == IOWPROBE_BPF_OP_READ)
		count(c, IOWPROBE_BPF_C_read_bytes, v->bytes);
	if (v->op == IOWPROBE_BPF_OP_WRITE)
		count(c, IOWPROBE_BPF_C_write_bytes, v->bytes);
}

/* publish_rq() - insert @v for @rq; a live stale entry is an anomaly */
static __always_inline int publish_rq(__u64 rq, struct iowprobe_bpf_rq *v)
{
	struct iowprobe_bpf_rq old;
	int err;

	err = bpf_map_update_elem(&requests, &rq, v, BPF_NOEXIST);
	if (err != -EEXIST)
		return err;
	if (claim_rq(rq, &old)) {	/* issued twice, no completion seen */
		stat_inc(&stats.rq_anomalies);
		rq_end(&old, false);
	}
	return bpf_map_update_elem(&requests, &rq, v, BPF_ANY);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(iow_rq_issue, struct request *rq)
{
	struct iowprobe_bpf_rq v = {};
	__u32 cpu = rq_cpu(rq);
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);
	__u64 now;

	if (!c)
		return 0;
	v.state = iowprobe_bpf_state(IOWPROBE_BPF_RQ_LIVE, cpu, 0);
	v.bytes = BPF_CORE_READ(rq, __data_len);
	v.op = rq_op(rq);
	/* published first: its completion cannot come before we end */
	if (publish_rq((__u64)rq, &v)) {
		stat_inc(&stats.rqs_full);
		return 0;
	}
	now = bpf_ktime_get_ns();
	cc_add(&c->local, 1, now);
	cc_add(&disk_clock, 1, now);
	count(c, IOWPROBE_BPF_C_rq_issued, 1);
	return 0;
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(iow_rq_complete, struct request *rq, int error,
	     unsigned int nr_bytes)
{
	struct iowprobe_bpf_rq v;

	if (nr_bytes < BPF_CORE_READ(rq, __data_len))
		return 0;	/* a partial completion: still in flight */
	if (claim_rq((__u64)rq, &v))
		rq_end(&v, true);
	return 0;
}

/* it will be issued again */
SEC("raw_tp/block_rq_requeue")
int BPF_PROG(iow_rq_requeue, struct request *rq)
{
	struct iowprobe_bpf_rq v;

	if (claim_rq((__u64)rq, &v))
		rq_end(&v, false);
	return 0;
}
