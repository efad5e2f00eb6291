// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowprobe.bpf.c - iowprobe's exact split of idle time as BPF programs on
 * raw tracepoints, for machines that cannot load the module (iowstat --bpf)
 *
 * The programs are BTF-typed (tp_btf): a field of a tracepoint argument is
 * one load, where a plain raw_tp program pays a bpf_probe_read_kernel()
 * call for it.  They need the kernel BTF that CO-RE needs anyway.
 *
 * The same rules as the module (doc/design.md#the-algorithm, kmod/acct.c,
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
 * Per-task state lives in the kernel's task storage (a preallocated hash
 * map where that is unsafe: task_entry()), per-request state in a table of
 * fixed slots (the requests map).  An entry is ended by exactly one event
 * (a wakeup, a migration, a free, a completion): a task's by exchanging
 * its state word with DEAD (claim_task()), a request's by freeing its
 * slot with compare-and-swap; the 6.12 reconcile and the load balancer's
 * move only compare-and-swap a PENDING state of their own CPU, under that
 * CPU's runqueue lock, so a recycled element is never mistaken for
 * another task.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "iowprobe_bpf.h"
#include "ksyms.bpf.h"

#define PF_IDLE			0x00000002	/* include/linux/sched.h */
#define TASK_WAKING		0x00000200
#define EEXIST			17		/* include/uapi/asm-generic/errno-base.h */
#define REQ_OP_MASK		0xff		/* (1 << REQ_OP_BITS) - 1 */
#define REQ_OP_READ		0
#define REQ_OP_WRITE		1
#define IOWPROBE_CLOCK_TRIES	64
/* the global request table: 4096 buckets of 8 slots, 32768 in all */
#define IOWPROBE_BPF_RQ_BUCKET_BITS	12

#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);		/* the possible CPUs, set at open */
	__type(key, __u32);
	__type(value, struct iowprobe_bpf_cpu);
} cpus SEC(".maps");

/* written by iowstat --bpf attach for the readers of the pinned state */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iowprobe_bpf_meta);
} meta SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* the possible CPUs, set at open */
	__type(key, __u32);
	__type(value, struct iowprobe_bpf_kview);
} k_load SEC(".maps");

/*
 * The followed tasks: each task's entry in the kernel's own task storage
 * where iowstat may create it under the runqueue lock (task_storage set),
 * else in a preallocated hash map keyed by the task (iowstat sets its
 * entries to 1 when unused).  user/bpf/backend_bpf.c's tasks_mode() says
 * which, and README.bpf.md why.
 */
const volatile bool task_storage;
/* ... and the parked sleepers of 6.12 are found by pid (reconcile_slot()) */
const volatile bool parked_by_pid;
/*
 * ... and every wait is booked as "other", unsorted: set only to measure
 * what sorting the waits costs (IOWSTAT_BPF_NO_WAIT_KINDS, scripts/bench's
 * bpfnokinds); the verifier drops the code it skips
 */
const volatile bool wait_kinds_off;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct iowprobe_bpf_task);
} task_store SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);	/* preallocated */
	__uint(max_entries, IOWPROBE_TASKS_DEFAULT);
	__type(key, __u64);			/* struct task_struct * */
	__type(value, struct iowprobe_bpf_task);
} tasks SEC(".maps");

/*
 * The requests in flight, found again by their completion: buckets of
 * IOWPROBE_BPF_RQ_WAYS slots, a request's bucket picked by hashing it.
 * On the I/O path that is an index into the global data, a few compares
 * and compare-and-swaps, where a hash map takes a bucket lock, its free
 * list and a jhash per insert, lookup and delete (and an array map's
 * lookup a bound check and a null check more, each way).  A request whose
 * bucket is full is not followed (rqs_full).
 */
static struct iowprobe_bpf_rqs requests[1 << IOWPROBE_BPF_RQ_BUCKET_BITS]
	__attribute__((aligned(64)));

/*
 * Global data, each on its own cache line: the disk clock (any request in
 * flight, which every CPU's blk_any integrates), the number of tasks
 * followed now (wakeups and frees look nothing up while it is 0), the
 * number of tasks freed (the issuer caches' generation), and what could
 * not be followed.
 */
struct iowprobe_cc disk_clock __attribute__((aligned(64)));
static __u64 followed __attribute__((aligned(64)));
static __u64 tasks_freed __attribute__((aligned(64)));
struct iowprobe_bpf_stats stats __attribute__((aligned(64)));

/*
 * 6.1's task storage: wakeups that could not look their task up (another
 * task storage user, interrupted on this CPU, held its busy count), each
 * the task and the instant, ended when the task is next switched in (its
 * first run after the wakeup, with interrupts off); late_nr counts the
 * slots taken, so that a switch reads one word while there are none.
 */
#define IOWPROBE_BPF_LATE	8
static __u64 late_task[IOWPROBE_BPF_LATE] __attribute__((aligned(64)));
static __u64 late_at[IOWPROBE_BPF_LATE];
static __u64 late_nr;

/* commit 2f064a59a11f ("sched: Change task_struct::state"), v5.14 */
struct task_struct___state {
	unsigned int __state;
} __attribute__((preserve_access_index));

struct task_struct___old_state {
	long state;
} __attribute__((preserve_access_index));

/* task_struct::cpu before v5.16, thread_info::cpu since (commit bcf9033e5449) */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

struct thread_info___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

struct task_struct___ti_cpu {
	struct thread_info___cpu thread_info;
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

/*
 * cas() - compare-and-swap *@p from @old to @new; true when it stored.
 * The empty asm hides where the answer came from: clang 14 otherwise
 * turns the compare into a bool it computes and tests again, four BPF
 * instructions more a compare-and-swap (fio on 6.1 turns eight a request).
 */
static __always_inline bool cas(__u64 *p, __u64 old, __u64 new)
{
	__u64 got = __sync_val_compare_and_swap(p, old, new);

	asm volatile("" : "+r"(got));
	return got == old;
}

static __always_inline struct iowprobe_bpf_cpu *cpu_state(__u32 cpu)
{
	return bpf_map_lookup_elem(&cpus, &cpu);
}

static __always_inline void count(struct iowprobe_bpf_cpu *c,
				  enum iowprobe_counter n, __u64 v)
{
	if (n < IOWPROBE_C_NR)
		__sync_fetch_and_add(&c->counters[n], v);
}

static __always_inline void anomaly(__u32 cpu)
{
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);

	if (c)
		count(c, IOWPROBE_C_anomalies, 1);
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
	if (!(p->flags & PF_IDLE) || p->pid)
		return false;
	c->idle_task = (__u64)p;
	return true;
}

/* (not @p: libbpf 1.1's BPF_CORE_READ_BITFIELD() has a local of that name) */
static __always_inline bool task_in_iowait(struct task_struct *task)
{
	return BPF_CORE_READ_BITFIELD(task, in_iowait);
}

/*
 * on_rq and on_cpu are ints in 6.1, 6.12 and 6.18, u8 in 7.3.  CO-RE narrows
 * a plain load only for an unsigned local field, and libbpf poisons the
 * program otherwise: read them as bitfields, which reads the target's own
 * width.  (BPF_CORE_READ() would read the local width, 4 bytes, past them.)
 */
static __always_inline unsigned int task_on_rq(struct task_struct *task)
{
	return BPF_CORE_READ_BITFIELD(task, on_rq);
}

/* the same, for a pointer that is only a number to the verifier */
static __always_inline unsigned int task_on_rq_probed(struct task_struct *task)
{
	return BPF_CORE_READ_BITFIELD_PROBED(task, on_rq);
}

static __always_inline unsigned int task_on_cpu(struct task_struct *task)
{
	return BPF_CORE_READ_BITFIELD(task, on_cpu);
}

static __always_inline unsigned int task_state(struct task_struct *p)
{
	struct task_struct___old_state *old = (void *)p;

	if (bpf_core_field_exists(struct task_struct___state, __state))
		return ((struct task_struct___state *)p)->__state;
	return old->state;
}

/* task_cpu_of() - the CPU @p last ran on: the one it sleeps on */
static __always_inline __u32 task_cpu_of(struct task_struct *p)
{
	struct task_struct___ti_cpu *ti = (void *)p;

	if (bpf_core_field_exists(struct task_struct___cpu, cpu))
		return ((struct task_struct___cpu *)p)->cpu;
	return ti->thread_info.cpu;
}

/* a 6.12 task whose dequeue was delayed: still queued, not yet counted */
static __always_inline int task_delayed(struct task_struct *p)
{
	struct task_struct___delayed *t = (void *)p;

	if (bpf_core_field_exists(t->se.sched_delayed))
		return t->se.sched_delayed;
	return 0;
}

/*
 * cc_try() - one compare-and-swap of count += @delta on word @w at @now; a
 * global function of its own, so that the verifier walks its branches
 * once, not once per try of cc_add_slow()
 * Return: 0 stored, 1 lost a race, -1 the count would leave its range.
 */
__noinline int cc_try(__u64 *w, __s64 delta, __u64 now)
{
	__u64 old, new;

	if (!w)
		return -1;
	old = READ_ONCE(*w);
	if (iowprobe_cc_next(old, delta, now, &new))
		return -1;
	return cas(w, old, new) ? 0 : 1;
}

/*
 * cc_add_slow() - count += @delta on a count clock, stamped @now
 *
 * Whatever an earlier update could not store is claimed first and stored
 * with this one, so no change is ever lost, only late.
 * Return: 0, or 1 when the change was left to the next update.
 */
__noinline int cc_add_slow(struct iowprobe_cc *cc, __s64 delta, __u64 now)
{
	int i, r = 1;

	if (!cc)
		return 0;
	if (READ_ONCE(cc->owed))
		delta += __sync_lock_test_and_set(&cc->owed, 0);
	if (!delta)
		return 0;
	for (i = 0; i < IOWPROBE_CLOCK_TRIES && r == 1; i++)
		r = cc_try(&cc->w, delta, now);
	if (!r)
		return 0;
	__sync_fetch_and_add(&cc->owed, delta);
	stat_inc(&stats.clock_deferred);
	return 1;
}

/*
 * cc_add() - count += @delta on a count clock, stamped @now
 *
 * One attempt here, before cc_add_slow()'s: with nothing owed and no race,
 * the usual case, that is the whole update without a call.
 */
static __always_inline void cc_add(struct iowprobe_cc *cc, __s64 delta,
				   __u64 now)
{
	__u64 old = READ_ONCE(cc->w), new;

	if (!READ_ONCE(cc->owed) && !iowprobe_cc_next(old, delta, now, &new) &&
	    cas(&cc->w, old, new))
		return;
	cc_add_slow(cc, delta, now);
}

/*
 * cc_inc(), cc_dec() - cc_add() of +1 and -1, the changes of every request
 * and sleep: their one attempt takes the +1 and -1 steps, a compare each,
 * where the general step checks its range both ways and shifts (fio on
 * 6.1, six clocks a request: 20 JIT instructions a request less, of 724).
 * No +1 checks the range: every clock turned by one counts entries of a
 * map (a CPU's followed sleepers, a CPU's or every request in flight, a
 * process's), at most 32,768 + a few racing, far below IOWPROBE_CC_MAX.
 * The compare-and-swap's answer is tested where it is made: a test of a
 * bool computed from it cost five instructions a clock more.
 */
static __always_inline void cc_inc(struct iowprobe_cc *cc, __u64 now)
{
	__u64 old = READ_ONCE(cc->w);

	if (READ_ONCE(cc->owed) || !cas(&cc->w, old, iowprobe_cc_start(old, now)))
		cc_add_slow(cc, 1, now);
}

static __always_inline void cc_dec(struct iowprobe_cc *cc, __u64 now)
{
	__u64 old = READ_ONCE(cc->w);

	if (READ_ONCE(cc->owed) || old < IOWPROBE_CC_ONE ||
	    !cas(&cc->w, old, iowprobe_cc_stop(old, now)))
		cc_add_slow(cc, -1, now);
}

/*
 * kid() - a kernel pointer as a number: its distance from one of our own
 * globals, fixed while the program is loaded, so one number per object
 * and never 0.  The verifier lets a typed kernel pointer only be offset or
 * compared, not hashed or stored; the difference of two pointers is a
 * plain number.
 */
static __always_inline __u64 kid(const void *p)
{
	return (__u64)p - (__u64)&stats;
}

#include "owners.bpf.h"

/* sc_try()'s answer when its compare-and-swap lost a race */
#define SC_RACED	(IOWPROBE_BPF_NO_SHARE - 1)

/*
 * sc_try() - one try of sc_add(); a global function of its own, so that the
 * verifier walks its branches once, not once per try
 * Return: S at @now, NO_SHARE when n would leave its range, SC_RACED.
 */
__noinline __u64 sc_try(__u64 *w, __s64 delta, int idle, __u64 now)
{
	__u64 old, new;

	if (!w)
		return IOWPROBE_BPF_NO_SHARE;
	old = READ_ONCE(*w);
	if (iowprobe_sc_next(old, delta, idle, now, &new))
		return IOWPROBE_BPF_NO_SHARE;
	if (!cas(w, old, new))
		return SC_RACED;
	return iowprobe_sc_value(old, now);
}

/*
 * sc_add() - n += @delta and the idle bit to @idle (-1: kept) on share
 * clock word @w at @now
 * Return: S at @now (the word's before the change), or NO_SHARE when
 * every try lost its race.
 */
__noinline __u64 sc_add(__u64 *w, __s64 delta, int idle, __u64 now)
{
	__u64 v = SC_RACED;
	int i;

	for (i = 0; i < IOWPROBE_CLOCK_TRIES && v == SC_RACED; i++)
		v = sc_try(w, delta, idle, now);
	if (v >= SC_RACED)
		stat_inc(&stats.share_lost);
	return v >= SC_RACED ? IOWPROBE_BPF_NO_SHARE : v;
}

/* sc_idle() - the share clock's idle bit for @c now: offline books nothing */
static __always_inline int sc_idle(struct iowprobe_bpf_cpu *c)
{
	return READ_ONCE(c->all.idle) && READ_ONCE(c->all.online);
}

/*
 * sc_set_idle() - the owner's idle switch or hotplug step at @now, on its
 * share clock
 *
 * Only while sleepers are counted: the clock does not run at n = 0, and
 * whoever brings n from 0 to 1 sets the bit itself (sc_idle()).  That is
 * this CPU's own switch, or the attach's seeding, which reads our state
 * racily: a switch of ours between its read and its swap leaves the bit
 * wrong until our next switch.
 */
static __always_inline void sc_set_idle(struct iowprobe_bpf_cpu *c, __u64 now)
{
	if (iowprobe_sc_count(READ_ONCE(c->share)))
		sc_add(&c->share, 0, sc_idle(c), now);
}

/*
 * seq_bump() - xchg, fully ordered: the reader sees seq change around
 * everything written between two bumps
 */
static __always_inline void seq_bump(struct iowprobe_bpf_cpu *c)
{
	__sync_lock_test_and_set(&c->seq, c->seq + 1);
}

/*
 * acct_at() - @a's clock @cc at @now, unwrapped against @a's snapshot.  A
 * word still at the snapshot, stopped, is the snapshot: the unwrap without
 * its arithmetic, at every idle switch with no request in flight.
 */
static __always_inline __u64 acct_at(struct iowprobe_acct *a,
				     struct iowprobe_cc *cc, __u64 now)
{
	__u64 w = READ_ONCE(cc->w);

	if (w == (a->g_snap & IOWPROBE_CC_MASK))
		return a->g_snap;
	return iowprobe_cc_unwrap(iowprobe_cc_value(w, now), a->g_snap);
}

/*
 * acct_follow() - iowprobe_acct_set_idle() at @now for @a, an acct fed
 * count clock @cc that shares the boundaries and online state of @c->all,
 * given the length @d of the segment just closed in @c->all
 *
 * iow and loc are kept only for what their blk_any_ns integrates (their
 * mirror and lfl stay 0; busy_ns and idle_ns are @c->all's), so this is
 * the core's close without the steps that change nothing here.  A clock
 * still at our snapshot with its count 0 (the common case: no iowait
 * sleeper, no request from this CPU) adds nothing: the whole computation
 * would give back the snapshot.
 */
static __always_inline void acct_follow(struct iowprobe_acct *a,
					const struct iowprobe_acct *all,
					struct iowprobe_cc *cc, __u64 now,
					__u64 d, int idle)
{
	__u64 w = READ_ONCE(cc->w), g, gd;
	int was_idle = a->idle;

	a->t = all->t;
	a->idle = idle;
	if (w == (a->g_snap & IOWPROBE_CC_MASK))
		return;
	g = iowprobe_cc_unwrap(iowprobe_cc_value(w, now), a->g_snap);
	gd = iowprobe_since(g, a->g_snap);
	if (was_idle)
		a->blk_any_ns += gd < d ? gd : d;
	if (g > a->g_snap)
		a->g_snap = g;
}

/* cpu_set_idle() - this CPU switches between idle and busy at @now */
static __always_inline void cpu_set_idle(struct iowprobe_bpf_cpu *c,
					 __u64 now, int idle)
{
	__u64 d = c->all.online ? iowprobe_since(now, c->all.t) : 0;

	seq_bump(c);
	iowprobe_acct_set_idle(&c->all, now, acct_at(&c->all, &disk_clock, now),
			       idle);
	acct_follow(&c->iow, &c->all, &c->mirror, now, d, idle);
	acct_follow(&c->loc, &c->all, &c->local, now, d, idle);
	seq_bump(c);
	sc_set_idle(c, now);
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
	sc_set_idle(c, now);
}

/*
 * bit_index() - which bit of a word is @bit, its only one set: @bit times
 * a de Bruijn sequence of order 6 has a distinct top six bits for each
 * (BPF has no count-trailing-zeros); the table maps them back.
 */
static const __u8 bit_of_debruijn[64] = {
	0, 1, 2, 53, 3, 7, 54, 27, 4, 38, 41, 8, 34, 55, 48, 28,
	62, 5, 39, 46, 44, 42, 22, 9, 24, 35, 59, 56, 49, 18, 29, 11,
	63, 52, 6, 26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
	51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12,
};

static __always_inline int bit_index(__u64 bit)
{
	return bit_of_debruijn[(bit * 0x022fdd63cc95386dULL) >> 58];
}

/* top_bit() - the highest bit set of @mask, alone; 0 for 0 */
static __always_inline __u64 top_bit(__u64 mask)
{
	mask |= mask >> 1;
	mask |= mask >> 2;
	mask |= mask >> 4;
	mask |= mask >> 8;
	mask |= mask >> 16;
	mask |= mask >> 32;
	return mask ^ (mask >> 1);
}

/*
 * take_slot() - a free pending slot of @c, now taken, or -1 when all are
 * (global, like reconcile(): its loop is checked once).  A word whose
 * lowest free bit keeps being taken under us is left for the next.
 */
__noinline int take_slot(struct iowprobe_bpf_cpu *c)
{
	__u64 mask, bit;
	int w, i;

	if (!c)
		return -1;
	for (w = 0; w < IOWPROBE_BPF_PENDING_WORDS; w++) {
		for (i = 0; i < IOWPROBE_CLOCK_TRIES; i++) {
			mask = READ_ONCE(c->pending_mask[w]);
			if (mask == ~0ULL)
				break;
			bit = ~mask & (mask + 1);	/* the lowest free */
			if (!cas(&c->pending_mask[w], mask, mask | bit))
				continue;
			__sync_fetch_and_add(&c->pending_nr, 1);
			return w * 64 + bit_index(bit);
		}
	}
	return -1;
}

/*
 * park() - a pending slot of @c for task @p, or -1 when all are taken
 *
 * The task is stored here, not in take_slot(): a global function takes
 * no typed kernel pointer.  reconcile() skips a slot still 0.
 */
static __always_inline int park(struct iowprobe_bpf_cpu *c, __u64 p)
{
	int slot = take_slot(c);

	if (slot >= 0)
		WRITE_ONCE(c->pending[slot & (IOWPROBE_BPF_PENDING - 1)], p);
	return slot;
}

static __always_inline void unpark(struct iowprobe_bpf_cpu *c, __u32 slot)
{
	slot &= IOWPROBE_BPF_PENDING - 1;
	WRITE_ONCE(c->pending[slot], 0);
	__sync_fetch_and_and(&c->pending_mask[slot / 64],
			     ~(1ULL << (slot % 64)));
	__sync_fetch_and_add(&c->pending_nr, -1);
}

/*
 * task_entry() - @p's entry, NULL when it has none; with @make, a task
 * storage entry is made for it (zeroed: DEAD) if it has none yet
 *
 * A task storage entry lives as long as its task (the kernel frees it
 * with the task struct), so after a task's first sleep its entry is only
 * found again: no allocation, no delete, no hash.  NULL also when another
 * task storage user holds this CPU's busy count (6.1: any lookup; later
 * kernels: the making only): the callers count what they could not follow.
 */
static __always_inline struct iowprobe_bpf_task *
task_entry(struct task_struct *p, bool make)
{
	__u64 key = (__u64)p;

	if (task_storage)
		return bpf_task_storage_get(&task_store, p, NULL,
					    make ? BPF_LOCAL_STORAGE_GET_F_CREATE :
						   0);
	return bpf_map_lookup_elem(&tasks, &key);
}

/*
 * claim_entry() - end the following of task @p, whose entry is @e (NULL:
 * none); its entry as it was, in @t, read before the entry can be reused
 * Return: its state before, or DEAD when it was not followed.
 *
 * Exactly one event ends a sleep: each claimer (wakeup, waking migration,
 * free, the seed's second look, a missed wakeup found by the next sleep)
 * exchanges the state with DEAD and acts only on a live state it got; the
 * 6.12 reconcile and move compare-and-swap a PENDING state of their own.
 * The copy after the exchange is the sleep's: a hash element is deleted
 * only after it, and a task storage entry, the task's own for life, is
 * written again only by the task's next sleep, which cannot come before
 * this program ends (the wakeup and the migration run before the task can
 * run again, the free after it has died).
 */
static __always_inline __u64 claim_entry(struct iowprobe_bpf_task *e,
					 struct task_struct *p,
					 struct iowprobe_bpf_task *t)
{
	__u64 s, key = (__u64)p;

	t->state = IOWPROBE_BPF_DEAD;
	if (!e)
		return IOWPROBE_BPF_DEAD;
	s = __sync_lock_test_and_set(&e->state, IOWPROBE_BPF_DEAD);
	if (s == IOWPROBE_BPF_DEAD)
		return s;
	*t = *e;
	t->state = s;
	__sync_fetch_and_add(&followed, -1);
	if (task_storage)
		return s;	/* kept, DEAD, for the task's next sleep */
	if (bpf_map_delete_elem(&tasks, &key))
		stat_inc(&stats.map_busy);	/* a DEAD entry stays behind */
	return s;
}

static __always_inline __u64 claim_task(struct task_struct *p,
					struct iowprobe_bpf_task *t)
{
	return claim_entry(task_entry(p, false), p, t);
}

/*
 * release_at() - undo what a claimed task @t added, and settle its sleep on
 * its rows, at @now
 * @dec: the kernel decremented the sleep CPU's nr_iowait for it
 */
static __always_inline void release_at(const struct iowprobe_bpf_task *t,
				       bool dec, __u64 now)
{
	__u64 s = t->state, share = 0, v;
	__u32 cpu = iowprobe_bpf_cpu_of(s);
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);

	if (!c || s == IOWPROBE_BPF_DEAD)
		return;
	if (iowprobe_bpf_kind(s) == IOWPROBE_T_PENDING) {
		unpark(c, iowprobe_bpf_slot(s));
		owners_wake(t, now, 0);
		return;
	}
	if (iowprobe_bpf_kind(s) != IOWPROBE_T_COUNTED)
		return;
	cc_dec(&c->mirror, now);
	if (t->share_snap != IOWPROBE_BPF_NO_SHARE) {
		v = sc_add(&c->share, -1, -1, now);
		if (v != IOWPROBE_BPF_NO_SHARE)
			share = iowprobe_cc_since(v, t->share_snap);
	}
	owners_wake(t, now, share);
	if (!dec)
		return;
	count(c, IOWPROBE_C_wakeups, 1);
	/*
	 * racy reads of the owner's flags: a diagnostic counter only; an
	 * offline CPU books no time, idle or not
	 */
	if (cpu != bpf_get_smp_processor_id() && READ_ONCE(c->all.idle) &&
	    READ_ONCE(c->all.online))
		count(c, IOWPROBE_C_remote_dec_idle, 1);
}

static __always_inline void release(const struct iowprobe_bpf_task *t,
				    bool dec)
{
	release_at(t, dec, bpf_ktime_get_ns());
}

/*
 * publish_task() - follow @p from its entry @t on; a live entry found is a
 * wakeup we never saw (6.1: its lookup found task storage busy), ended now
 * as an anomaly
 *
 * @followed goes up before the task can be woken: its waker waits for
 * p->on_cpu == 0 (or runs on this CPU after the switch), which the
 * scheduler stores with release semantics after this program.
 */
static __always_inline int publish_task(struct task_struct *p,
					struct iowprobe_bpf_task *t)
{
	struct iowprobe_bpf_task old, *e;
	__u64 key = (__u64)p;
	int err;

	if (task_storage) {
		e = task_entry(p, true);
		if (!e)
			return -1;
		if (READ_ONCE(e->state) != IOWPROBE_BPF_DEAD &&
		    claim_task(p, &old) != IOWPROBE_BPF_DEAD) {
			anomaly(iowprobe_bpf_cpu_of(old.state));
			release(&old, false);
		}
		e->t_sleep = t->t_sleep;
		e->share_snap = t->share_snap;
		e->blk_snap = t->blk_snap;
		e->blk_way = t->blk_way;
		e->proc = t->proc;
		e->cgroup = t->cgroup;
		e->kind = t->kind;
		/* xchg, fully ordered: a claimer that sees the state sees all */
		__sync_lock_test_and_set(&e->state, t->state);
		__sync_fetch_and_add(&followed, 1);
		return 0;
	}
	err = bpf_map_update_elem(&tasks, &key, t, BPF_NOEXIST);
	if (err == -EEXIST) {
		if (claim_task(p, &old) != IOWPROBE_BPF_DEAD) {
			anomaly(iowprobe_bpf_cpu_of(old.state));
			release(&old, false);
		}
		err = bpf_map_update_elem(&tasks, &key, t, BPF_ANY);
	}
	if (!err)
		__sync_fetch_and_add(&followed, 1);
	return err;
}

/*
 * forget() - undo what owners_sleep() and the share clock took for @t,
 * which could not be followed after all
 */
static __always_inline void forget(struct iowprobe_bpf_cpu *c,
				   const struct iowprobe_bpf_task *t)
{
	if (t->share_snap != IOWPROBE_BPF_NO_SHARE)
		sc_add(&c->share, -1, -1, bpf_ktime_get_ns());
	owners_forget(t);
}

/* follow() - @p leaves this CPU in iowait: count it now or park it */
static __always_inline void follow(struct iowprobe_bpf_cpu *c, __u32 cpu,
				   struct task_struct *p,
				   enum iowprobe_switch_verdict v, __u64 now)
{
	struct iowprobe_bpf_task t;
	int slot;

	t.share_snap = IOWPROBE_BPF_NO_SHARE;
	if (v == IOWPROBE_SW_PENDING) {
		slot = park(c, (__u64)p);
		if (slot < 0) {
			stat_inc(&stats.pending_full);
			return;
		}
		t.state = iowprobe_bpf_state(IOWPROBE_T_PENDING, cpu, slot);
		owners_sleep(&t, p, now);
		if (publish_task(p, &t)) {
			unpark(c, slot);
			forget(c, &t);
			stat_inc(&stats.tasks_full);
			return;
		}
		stat_inc(&stats.delayed_parked);
		return;
	}
	/* the count follows the entry: a wakeup cannot run before we end */
	t.state = iowprobe_bpf_state(IOWPROBE_T_COUNTED, cpu, 0);
	t.share_snap = sc_add(&c->share, 1, sc_idle(c), now);
	owners_sleep(&t, p, now);
	if (publish_task(p, &t)) {
		forget(c, &t);
		stat_inc(&stats.tasks_full);
		return;
	}
	cc_inc(&c->mirror, now);
	count(c, IOWPROBE_C_sleeps, 1);
}

/*
 * pending_blocked() - how many of @c's parked sleepers a pick on this CPU
 * has blocked since the last look: as many as the kernel counts in iowait
 * here beyond the mirror, once @prev_counted (the sleeper leaving now,
 * blocked already, counted after this look) is added to it.  All, when
 * @rq_seen is false.  A sleep not followed makes the kernel's count more
 * (a look too many costs time); a remote wakeup seen by the kernel before
 * us makes it less (a look put off to the next switch loses nothing, as
 * the CPU stays busy in between: one that idles always looks at all).
 */
static __always_inline int pending_blocked(struct iowprobe_bpf_cpu *c,
					   bool rq_seen, bool prev_counted)
{
	__s64 d;

	if (!rq_seen)
		return IOWPROBE_BPF_PENDING;
	d = this_cpu_nr_iowait() - prev_counted -
	    (__s64)(iowprobe_cc_count(READ_ONCE(c->mirror.w)) +
		    READ_ONCE(c->mirror.owed));
	return d <= 0 ? 0 : d < IOWPROBE_BPF_PENDING ? d : IOWPROBE_BPF_PENDING;
}

/*
 * count_parked() - 6.12: the parked sleeper of slot @i of @c, whose entry is
 * @e, found blocked at @now: counted, unless its wakeup claimed it first;
 * 1 if counted
 */
static __always_inline int count_parked(struct iowprobe_bpf_cpu *c, __u32 cpu,
					int i, __u64 now,
					struct iowprobe_bpf_task *e)
{
	__u64 want, counted, snap;

	want = iowprobe_bpf_state(IOWPROBE_T_PENDING, cpu, i);
	counted = iowprobe_bpf_state(IOWPROBE_T_COUNTED, cpu, 0);
	/* noted before it is counted: a wakeup that claims it COUNTED finds it */
	snap = sc_add(&c->share, 1, sc_idle(c), now);
	WRITE_ONCE(e->share_snap, snap);
	if (!cas(&e->state, want, counted)) {
		/* its wakeup claimed it first */
		if (snap != IOWPROBE_BPF_NO_SHARE)
			sc_add(&c->share, -1, -1, now);
		return 0;
	}
	unpark(c, i);
	return 1;
}

/*
 * reconcile_slot() - 6.12: count the parked sleeper of slot @i of @c if a
 * pick has blocked it since; 1 if so
 *
 * The slot holds the task's address, a number to the verifier, which task
 * storage does not take: there the task is found again by its pid
 * (bpf_task_from_pid(), 6.2) and taken only if it is still that task.
 */
__noinline int reconcile_slot(struct iowprobe_bpf_cpu *c, __u32 cpu, int i,
			      __u64 now)
{
	struct iowprobe_bpf_task *e;
	struct task_struct *t;
	int n = 0;
	__u64 p;

	if (!c || i < 0 || i >= IOWPROBE_BPF_PENDING ||
	    !(READ_ONCE(c->pending_mask[i / 64]) & (1ULL << (i % 64))))
		return 0;
	p = READ_ONCE(c->pending[i]);
	if (!p || task_on_rq_probed((struct task_struct *)p))
		return 0;
	if (!task_storage) {
		e = bpf_map_lookup_elem(&tasks, &p);
		return e ? count_parked(c, cpu, i, now, e) : 0;
	}
	if (!parked_by_pid)
		return 0;
	t = bpf_task_from_pid(BPF_CORE_READ((struct task_struct *)p, pid));
	if (!t)
		return 0;
	if ((__u64)t == p) {
		e = bpf_task_storage_get(&task_store, t, NULL, 0);
		if (e)
			n = count_parked(c, cpu, i, now, e);
	}
	bpf_task_release(t);
	return n;
}

/*
 * reconcile_word() - reconcile_slot() for the parked sleepers of word @w of
 * @c's mask (0 to IOWPROBE_BPF_PENDING_WORDS - 1) found off the runqueue,
 * until @want are found
 *
 * A switch looks at the taken slots only, and a slot's task first with one
 * probed load: most are still queued, and the rest of reconcile_slot() is
 * for those found blocked.  It looks from the highest slot down: a park
 * takes the lowest free one, so the high ones hold sleepers parked for
 * longer, more likely blocked since (on 7.3's sleepers bench, 61 looks a
 * walk instead of 67, iowstat --bpf 1.353 instead of 1.387).
 */
__noinline int reconcile_word(struct iowprobe_bpf_cpu *c, __u32 cpu, int w,
			      __u64 now, int want)
{
	__u32 word = w & (IOWPROBE_BPF_PENDING_WORDS - 1), slot;
	__u64 mask, bit, p;
	int n = 0, i;

	if (!c)
		return 0;
	mask = READ_ONCE(c->pending_mask[word]);
	for (i = 0; i < 64 && mask && n < want; i++) {
		bit = top_bit(mask);
		mask &= ~bit;
		slot = (word * 64 + bit_index(bit)) &
		       (IOWPROBE_BPF_PENDING - 1);
		p = READ_ONCE(c->pending[slot]);
		if (!p || task_on_rq_probed((struct task_struct *)p))
			continue;
		n += reconcile_slot(c, cpu, slot, now);
	}
	return n;
}

/*
 * reconcile() - 6.12: count the parked sleepers that a pick on this CPU has
 * blocked since (__block_task() has no tracepoint), @want of them at most
 * (IOWPROBE_BPF_PENDING: all); before the idle segment opens, since this CPU
 * cannot go idle with a delayed entity queued
 */
__noinline int reconcile(struct iowprobe_bpf_cpu *c, __u32 cpu, __u64 now,
			 int was_idle, int want)
{
	int n = 0, w;

	if (!c)
		return 0;
	for (w = IOWPROBE_BPF_PENDING_WORDS - 1; w >= 0 && n < want; w--)
		n += reconcile_word(c, cpu, w, now, want - n);
	if (n <= 0)
		return 0;
	/* one clock update for all: they were all found at @now */
	cc_add(&c->mirror, n, now);
	count(c, IOWPROBE_C_sleeps, n);
	__sync_fetch_and_add(&stats.delayed_blocked, n);
	if (was_idle)	/* blocked remotely while we idled */
		__sync_fetch_and_add(&stats.late_block, n);
	return n;
}

/*
 * late_claim() - @p is switched in: if its wakeup was left to now, end its
 * sleep as that wakeup would have, at the wakeup's instant.  The wakeup
 * came first (the task cannot run before it) and wrote its slot whole;
 * the instant is read before the slot is freed to the next.
 */
static __always_inline void late_claim(struct task_struct *p)
{
	struct iowprobe_bpf_task t;
	__u64 at = 0, s;
	int i;

	for (i = 0; i < IOWPROBE_BPF_LATE; i++) {
		if (READ_ONCE(late_task[i]) != (__u64)p)
			continue;
		at = READ_ONCE(late_at[i]);
		if (cas(&late_task[i], (__u64)p, 0))
			break;
	}
	if (i >= IOWPROBE_BPF_LATE)
		return;
	__sync_fetch_and_add(&late_nr, -1);
	s = claim_task(p, &t);
	if (s == IOWPROBE_BPF_DEAD)
		return;		/* not followed after all */
	stat_inc(&stats.late_wakeups);
	release_at(&t, iowprobe_wakeup_action(iowprobe_bpf_kind(s)) ==
		       IOWPROBE_W_DEC, at);
}

/*
 * on_switch() - @prev leaves this CPU for @next; @rq_seen: the kernel's
 * nr_iowait can be read (pending_blocked())
 */
static __always_inline int on_switch(bool preempt, struct task_struct *prev,
				     struct task_struct *next, bool rq_seen)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);
	enum iowprobe_switch_verdict v = IOWPROBE_SW_NONE;
	bool was_idle, idle;
	int want = 0;
	__u64 now;

	if (!c)
		return 0;
	was_idle = is_idle(c, prev);
	idle = is_idle(c, next);
	if (!preempt && task_in_iowait(prev))
		v = iowprobe_switch_verdict(0, 1, task_on_rq(prev),
					    task_delayed(prev));
	/*
	 * Parked sleepers are looked at, all, when this CPU idles or stops
	 * idling (only then does its count of sleepers weigh) and, between,
	 * when the kernel counts sleepers the mirror does not: as many were
	 * blocked by a pick, each to be counted as a sleep.
	 */
	if (READ_ONCE(c->pending_nr))
		want = was_idle || idle ? IOWPROBE_BPF_PENDING :
		       pending_blocked(c, rq_seen, v == IOWPROBE_SW_COUNT);
	if (READ_ONCE(late_nr))
		late_claim(next);
	if (v == IOWPROBE_SW_NONE && was_idle == idle && c->inited && !want)
		return 0;	/* the common case: nothing shared touched */
	now = bpf_ktime_get_ns();
	if (!c->inited)
		cpu_init(c, now, was_idle);
	if (want)
		reconcile(c, cpu, now, was_idle, want);
	if (v != IOWPROBE_SW_NONE)
		follow(c, cpu, prev, v, now);
	if (was_idle != idle) {
		/*
		 * A switch the kernel did not trace (a sandbox's kernel
		 * hides some tasks').  Not counted across hotplug: no
		 * tracepoint fires on a CPU outside cpu_online_mask, so
		 * the switch to idle going down is always untraced.
		 */
		if (c->all.idle != was_idle && c->all.online)
			stat_inc(&stats.untraced_switches);
		cpu_set_idle(c, now, idle);
	}
	return 0;
}

/* iow_switch, iow_switch_scan - one of the two is loaded, as for rq_issue */
SEC("tp_btf/sched_switch")
int BPF_PROG(iow_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(preempt, prev, next, true);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(iow_switch_scan, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(preempt, prev, next, false);
}

/* cpu_set_online() - this CPU goes offline or comes back at @now */
static __always_inline void cpu_set_online(struct iowprobe_bpf_cpu *c,
					   __u64 now, int online)
{
	seq_bump(c);
	iowprobe_acct_set_online(&c->all, now,
				 acct_at(&c->all, &disk_clock, now), online);
	iowprobe_acct_set_online(&c->iow, now,
				 acct_at(&c->iow, &c->mirror, now), online);
	iowprobe_acct_set_online(&c->loc, now,
				 acct_at(&c->loc, &c->local, now), online);
	seq_bump(c);
	sc_set_idle(c, now);
}

/*
 * iow_cpuhp_enter, iow_cpuhp_exit - CPU hotplug: time accrues only while a
 * CPU is online, as the module's hotplug callbacks have it
 *
 * CPUHP_AP_ACTIVE's step (sched_cpu_activate(), sched_cpu_deactivate())
 * runs on the CPU itself, in its hotplug thread, so the owner CPU writes
 * its own state, as everywhere else: the clock starts as that step begins
 * a bring-up (its last step) and stops once it has ended a teardown (its
 * first), after sched_cpu_deactivate()'s RCU grace period.
 */
static __always_inline bool hp_step(unsigned int cpu, int idx)
{
	return idx == bpf_core_enum_value(enum cpuhp_state, CPUHP_AP_ACTIVE) &&
	       cpu == bpf_get_smp_processor_id();
}

SEC("tp_btf/cpuhp_enter")
int BPF_PROG(iow_cpuhp_enter, unsigned int cpu, int target, int idx)
{
	struct iowprobe_bpf_cpu *c;

	if (!hp_step(cpu, idx))
		return 0;
	c = cpu_state(cpu);
	if (!c || !c->inited)
		return 0;
	c->going_down = target < idx;
	if (!c->going_down)
		cpu_set_online(c, bpf_ktime_get_ns(), 1);
	return 0;
}

SEC("tp_btf/cpuhp_exit")
int BPF_PROG(iow_cpuhp_exit, unsigned int cpu, int state, int idx, int ret)
{
	struct iowprobe_bpf_cpu *c;

	if (!hp_step(cpu, idx))
		return 0;
	c = cpu_state(cpu);
	if (!c || !c->going_down)
		return 0;
	c->going_down = 0;
	if (!ret)	/* a failed step rolls back: still online */
		cpu_set_online(c, bpf_ktime_get_ns(), 0);
	return 0;
}

/* move() - 6.12: the load balancer moved a parked sleeper to @dest */
static __always_inline void move(struct iowprobe_bpf_task *e,
				 struct task_struct *p, __u64 s, __u32 dest)
{
	struct iowprobe_bpf_cpu *from = cpu_state(iowprobe_bpf_cpu_of(s));
	struct iowprobe_bpf_cpu *to = cpu_state(dest);
	struct iowprobe_bpf_task t;
	__u64 moved;
	int slot;

	if (!from || !to)
		return;
	slot = park(to, (__u64)p);
	if (slot < 0) {		/* stop following: it would go uncounted */
		stat_inc(&stats.pending_full);
		claim_task(p, &t);
		release(&t, false);
		return;
	}
	moved = iowprobe_bpf_state(IOWPROBE_T_PENDING, dest, slot);
	if (!cas(&e->state, s, moved)) {
		unpark(to, slot);
		return;
	}
	unpark(from, iowprobe_bpf_slot(s));
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(iow_migrate, struct task_struct *p, int dest_cpu)
{
	struct iowprobe_bpf_task *e, t;
	int waking;
	__u64 s;

	if (!READ_ONCE(followed) || !task_in_iowait(p))
		return 0;
	e = task_entry(p, false);
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
		s = claim_task(p, &t);
		release(&t, iowprobe_migrate_action(waking,
						    iowprobe_bpf_kind(s)) ==
			    IOWPROBE_W_DEC);
		break;
	case IOWPROBE_W_MOVE:
		move(e, p, s, dest_cpu);
		break;
	default:
		anomaly(iowprobe_bpf_cpu_of(s));
		break;
	}
	return 0;
}

/*
 * late_note() - the wakeup of @p at @now could not look it up in task
 * storage: left to its switch in (late_claim()); a task not followed
 * after all is found so there and dropped.  With every slot taken it is
 * left to its next sleep or its free, which end it as a wakeup never seen.
 */
static __always_inline void late_note(struct task_struct *p, __u64 now)
{
	int i;

#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_LATE; i++) {
		if (READ_ONCE(late_task[i]) || !cas(&late_task[i], 0, (__u64)p))
			continue;
		WRITE_ONCE(late_at[i], now);
		__sync_fetch_and_add(&late_nr, 1);
		return;
	}
	stat_inc(&stats.late_full);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(iow_wakeup, struct task_struct *p)
{
	struct iowprobe_bpf_task t, *e;
	__u64 s, now;

	/* in_iowait is still set: the task restores it after the wakeup */
	if (!READ_ONCE(followed) || !task_in_iowait(p))
		return 0;
	now = bpf_ktime_get_ns();	/* the wait ends here, not after ours */
	e = task_entry(p, false);
	if (!e && task_storage && p->bpf_storage) {
		late_note(p, now);
		return 0;
	}
	s = claim_entry(e, p, &t);
	if (s != IOWPROBE_BPF_DEAD)
		release_at(&t, iowprobe_wakeup_action(iowprobe_bpf_kind(s)) ==
			       IOWPROBE_W_DEC, now);
	return 0;
}

/*
 * a freed group leader ends its process's row; a followed task freed is a
 * wakeup we never saw
 */
SEC("tp_btf/sched_process_free")
int BPF_PROG(iow_free, struct task_struct *p)
{
	struct iowprobe_bpf_task t;
	__u64 s;

	/* before the task struct can be reused: no issuer cache names it */
	__sync_fetch_and_add(&tasks_freed, 1);
	owners_exited(p, bpf_ktime_get_ns());
	/*
	 * a task that never slept in iowait has no task storage: one load,
	 * where the lookup (with interrupts on, here) would hold 6.1's busy
	 * count against a wakeup interrupting it (late_note())
	 */
	if (!READ_ONCE(followed) || (task_storage && !p->bpf_storage))
		return 0;
	s = claim_task(p, &t);
	if (s == IOWPROBE_BPF_DEAD)
		return 0;
	anomaly(iowprobe_bpf_cpu_of(s));
	release(&t, false);
	return 0;
}

/*
 * seed_asleep() - @p, in_iowait, still sleeps off the runqueue: counted in
 * nr_iowait by its CPU, as the sched_switch program would have counted it
 */
static __always_inline bool seed_asleep(struct task_struct *p)
{
	unsigned int state = task_state(p);

	return state != 0 && state != TASK_WAKING && !task_on_cpu(p) &&
	       !task_on_rq(p);
}

/*
 * iow_seed - follow the tasks already asleep in iowait at attach, as the
 * module's iowprobe_seed() does at load; run once through a task iterator
 * after every program above is attached
 *
 * The count goes up before the entry is published and the task is looked
 * at again after (publish_task()'s atomic orders the two): a wakeup either
 * finds the entry and takes the count back, or came first, and then the
 * second look sees the task awake and takes it back here.  A 6.12 sleeper
 * whose dequeue was delayed is not seeded (it is still on the runqueue).
 */
SEC("iter/task")
int iow_seed(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct iowprobe_bpf_task t;
	struct iowprobe_bpf_cpu *c;
	__u64 now;
	__u32 cpu;

	if (!p || !task_in_iowait(p) || !seed_asleep(p))
		return 0;
	cpu = task_cpu_of(p);
	c = cpu_state(cpu);
	if (!c)
		return 0;
	now = bpf_ktime_get_ns();
	cc_inc(&c->mirror, now);
	t.state = iowprobe_bpf_state(IOWPROBE_T_COUNTED, cpu, 0);
	/* another CPU's state, read racily: right but for a switch meanwhile */
	t.share_snap = sc_add(&c->share, 1, sc_idle(c), now);
	owners_sleep(&t, p, now);
	if (publish_task(p, &t)) {
		forget(c, &t);
		cc_dec(&c->mirror, bpf_ktime_get_ns());
		stat_inc(&stats.tasks_full);
		return 0;
	}
	if (task_in_iowait(p) && seed_asleep(p)) {
		stat_inc(&stats.seeded);
		return 0;
	}
	if (claim_task(p, &t) != IOWPROBE_BPF_DEAD) {
		release(&t, false);
		stat_inc(&stats.seed_raced);
	}
	return 0;
}

/*
 * iow_sleepers - the entry of every task followed now, for iowstat, which
 * adds what each sleeper has earned so far to its rows: an entry per task
 * followed, as struct iowprobe_bpf_task, in the order of the tasks
 *
 * A walk of the tasks, not of a map: a task storage map has no keys to
 * walk.  iowstat runs it at each read (--bpf attach pins its link).
 */
SEC("iter/task")
int iow_sleepers(struct bpf_iter__task *ctx)
{
	struct task_struct *p = ctx->task;
	struct iowprobe_bpf_task *e, t;

	if (!p)
		return 0;
	e = task_entry(p, false);
	if (!e)
		return 0;
	t = *e;
	if (t.state != IOWPROBE_BPF_DEAD)
		bpf_seq_write(ctx->meta->seq, &t, sizeof(t));
	return 0;
}

/*
 * rq_cpu() - the CPU that submitted @rq, blk_mq_rq_cpu(): a possible CPU,
 * whose cpus element the lookup finds (a CPU past them follows nothing)
 */
static __always_inline __u32 rq_cpu(struct request *rq)
{
	return rq->mq_ctx->cpu;
}

/* rq_dev() - the kernel dev_t of @rq's disk, disk_devt() */
static __always_inline __u64 rq_dev(struct request *rq)
{
	struct gendisk *disk = rq->q->disk;

	if (!disk)
		return 0;
	return (__u64)disk->major << 20 | disk->first_minor;
}

/*
 * rq_op() - @rq's operation, the kernel's REQ_OP_*: kept as it is in the
 * slot, and told apart only when the request ends, which counts reads'
 * and writes' bytes
 */
static __always_inline __u8 rq_op(struct request *rq)
{
	return rq->cmd_flags & REQ_OP_MASK;
}

/*
 * issuer_dev() - the dev_t of @rq's disk, from @is, this CPU's cache of the
 * last queue seen, when @rq is of that queue
 */
static __always_inline __u64 issuer_dev(struct iowprobe_bpf_issuer *is,
					struct request *rq)
{
	__u64 q = kid(rq->q), dev;

	if (READ_ONCE(is->q) == q) {
		dev = READ_ONCE(is->dev);
		if (READ_ONCE(is->q) == q)
			return dev;
	}
	dev = rq_dev(rq);
	WRITE_ONCE(is->q, 0);
	WRITE_ONCE(is->dev, dev);
	WRITE_ONCE(is->q, q);
	return dev;
}

/* rq_id() - what the requests table knows @rq by */
static __always_inline __u64 rq_id(struct request *rq)
{
	return kid(rq);
}

/* rq_bucket() - the bucket of @id: the top bits of a Fibonacci hash */
static __always_inline struct iowprobe_bpf_rqs *rq_bucket(__u64 id)
{
	return &requests[(id * 0x9e3779b97f4a7c15ULL) >>
			 (64 - IOWPROBE_BPF_RQ_BUCKET_BITS)];
}

#define RQ_WHOLE	(~0U)	/* claim_rq()'s @done: the request ends whole */

/*
 * claim_rq() - end request @id (@rq) in bucket @b, whose @done bytes were
 * completed (RQ_WHOLE: all of it, a requeue or a request issued again);
 * true with its info word in @info and its process's way in @way when it
 * was ours and has ended
 *
 * The slot is read before it is freed: a slot freed can be taken at once
 * by another request.  A completion of fewer bytes than the request had
 * at issue may be partial: it is, and the request still in flight, when
 * they are fewer than it has left.  Only then is that read from @rq, a
 * load the JIT guards: a request is whole at its completion as a rule.
 */
static __always_inline bool claim_rq(struct iowprobe_bpf_rqs *b, __u64 id,
				     struct request *rq, __u32 done,
				     __u64 *info, __u64 *way)
{
	int i;

#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_RQ_WAYS; i++) {
		if (READ_ONCE(b->rq[i]) != id)
			continue;
		*info = READ_ONCE(b->info[i]);
		*way = READ_ONCE(b->way[i]);
		if (done < iowprobe_bpf_rq_bytes(*info) &&
		    done < rq->__data_len)
			return false;
		if (!cas(&b->rq[i], id, 0))
			return false;
		__sync_fetch_and_add(&b->taken, -1);
		return true;
	}
	return false;
}

/*
 * rq_end() - the request of @info, counted at @way of the in-flight table
 * for its process, is no longer in flight
 */
static __always_inline void rq_end(__u64 info, __u64 way, bool done)
{
	struct iowprobe_bpf_cpu *c = cpu_state(iowprobe_bpf_cpu_of(info));
	__u64 now = bpf_ktime_get_ns();

	if (!c)
		return;
	cc_dec(&c->local, now);
	cc_dec(&disk_clock, now);
	blk_end(way, now);
	if (!done)
		return;
	count(c, IOWPROBE_C_rq_completed, 1);
	if (iowprobe_bpf_rq_op(info) == REQ_OP_READ)
		count(c, IOWPROBE_C_read_bytes, iowprobe_bpf_rq_bytes(info));
	if (iowprobe_bpf_rq_op(info) == REQ_OP_WRITE)
		count(c, IOWPROBE_C_write_bytes, iowprobe_bpf_rq_bytes(info));
}

/*
 * publish_rq() - a slot of bucket @b for request @id with @info and @way
 * Return: 0, or -1 when all the bucket's slots are taken.
 *
 * A live entry of @id (issued twice, its completion not seen) is ended
 * first, so a request has at most one entry; then the first free slot is
 * taken.  Two passes, the first of compares only, cost fio less than one
 * that does both, and the first is skipped when the bucket is empty, as
 * it usually is (a request of fio: 8 compares less).  The slot's words
 * are written after it is taken: the completion cannot run before this
 * program returns, as blk_mq_start_request() traces before the driver
 * has the request.
 */
static __always_inline int publish_rq(struct iowprobe_bpf_rqs *b, __u64 id,
				      __u64 info, __u64 way)
{
	__u64 old_info, old_way;
	int i;

	if (!__sync_fetch_and_add(&b->taken, 1)) {
		/* empty: its first slot is free unless a racer took it */
		if (cas(&b->rq[0], 0, id))
			goto fill0;
	} else if (claim_rq(b, id, NULL, RQ_WHOLE, &old_info, &old_way)) {
		stat_inc(&stats.rq_anomalies);
		rq_end(old_info, old_way, false);
	}
#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_RQ_WAYS; i++) {
		if (READ_ONCE(b->rq[i]) || !cas(&b->rq[i], 0, id))
			continue;
		WRITE_ONCE(b->info[i], info);
		WRITE_ONCE(b->way[i], way);
		return 0;
	}
	__sync_fetch_and_add(&b->taken, -1);
	return -1;
fill0:
	WRITE_ONCE(b->info[0], info);
	WRITE_ONCE(b->way[0], way);
	return 0;
}

/*
 * rq_issue() - @rq is in flight; @irq_seen: this kernel's preempt count can
 * be read, so a request issued from an interrupt is nobody's
 */
static __always_inline int rq_issue(struct request *rq, bool irq_seen)
{
	/* the helpers first, while little is live across their calls */
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *p = bpf_get_current_task_btf();
	__u32 in_irq = irq_seen ? interrupt_bits() : 0;
	__u32 cpu = rq_cpu(rq);
	struct iowprobe_bpf_cpu *c = cpu_state(cpu);
	__u64 id = rq_id(rq), way = IOWPROBE_BPF_NO_WAY, info, owner;

	if (!c)
		return 0;
	info = iowprobe_bpf_rq_info(cpu, rq_op(rq), rq->__data_len);
	/* a process whose set is full owns none: its end finds none */
	owner = in_irq ? 0 : rq_owner(&c->issuer, p);
	if (owner)
		way = blk_issue(owner, issuer_dev(&c->issuer, rq), now);
	/* published first: its completion cannot come before we end */
	if (publish_rq(rq_bucket(id), id, info, way)) {
		blk_end(way, now);
		stat_inc(&stats.rqs_full);
		return 0;
	}
	cc_inc(&c->local, now);
	cc_inc(&disk_clock, now);
	count(c, IOWPROBE_C_rq_issued, 1);
	return 0;
}

/*
 * iow_rq_issue, iow_rq_issue_task - one of the two is loaded: the first
 * reads the preempt count, which needs its per-CPU symbol in kallsyms
 * (CONFIG_KALLSYMS_ALL); without it, the second takes the current user
 * task as the owner even in an interrupt, which issues rarely
 */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(iow_rq_issue, struct request *rq)
{
	return rq_issue(rq, true);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(iow_rq_issue_task, struct request *rq)
{
	return rq_issue(rq, false);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(iow_rq_complete, struct request *rq, int error,
	     unsigned int nr_bytes)
{
	__u64 id = rq_id(rq), info, way;
	struct iowprobe_bpf_rqs *b = rq_bucket(id);

	if (claim_rq(b, id, rq, nr_bytes, &info, &way))
		rq_end(info, way, true);
	return 0;
}

/* it will be issued again */
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(iow_rq_requeue, struct request *rq)
{
	__u64 id = rq_id(rq), info, way;
	struct iowprobe_bpf_rqs *b = rq_bucket(id);

	if (claim_rq(b, id, rq, RQ_WHOLE, &info, &way))
		rq_end(info, way, false);
	return 0;
}
