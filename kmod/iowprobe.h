/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * iowprobe.h - declarations shared by the module's files
 */
#ifndef IOWPROBE_H
#define IOWPROBE_H

#include <linux/blk_types.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/seqlock.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "iowprobe_core.h"
#include "pool.h"

struct task_struct;
struct request;
struct seq_file;

/*
 * 6.12: a pick blocks a delayed sleeper with no tracepoint of its own, but
 * it dequeues it, and the runqueue's count of tasks has a bare tracepoint;
 * registered before the switch probe that reads what it counts.
 */
#ifdef IOWPROBE_HAVE_DELAYED_DEQUEUE
#define IOWPROBE_TP_DEQUEUES(TP)				\
	TP(sched_update_nr_running_tp, iowprobe_probe_nr_running)
#else
#define IOWPROBE_TP_DEQUEUES(TP)
#endif

/*
 * The tracepoints and their probes (probes.c), listed once, in the order
 * they are registered: what takes an entry away (free, wakeup, migrate,
 * complete, requeue) before what creates one (switch, issue), so that no
 * entry is ever created that nothing would take away.  Unregistered in
 * reverse.  Each expands TP(tracepoint, probe).
 */
#define IOWPROBE_TRACEPOINTS(TP)				\
	TP(sched_process_free,	probe_sched_process_free)	\
	TP(sched_wakeup,	probe_sched_wakeup)		\
	TP(sched_migrate_task,	probe_sched_migrate_task)	\
	IOWPROBE_TP_DEQUEUES(TP)				\
	TP(block_rq_complete,	iowprobe_probe_rq_complete)	\
	TP(block_rq_requeue,	iowprobe_probe_rq_requeue)	\
	TP(sched_switch,	iowprobe_probe_sched_switch)	\
	TP(block_rq_issue,	iowprobe_probe_rq_issue)

/* tracepoint hits; status prints them as events_<tracepoint> */
#define IOWPROBE_EV_ENUM(tp, probe)	IOWPROBE_EV_##tp,
enum iowprobe_event {
	IOWPROBE_TRACEPOINTS(IOWPROBE_EV_ENUM)
	IOWPROBE_EV_NR
};

#undef IOWPROBE_EV_ENUM

/*
 * struct iowprobe_cpu - one CPU's state
 * @lock:     lock over everything but @events; taken irqsave, because
 *            block completions arrive in hard and soft irq; two leaf locks
 *            nest inside it: a process or cgroup row's lock (owners.c) and
 *            a pool's lock (pool.h)
 * @acct:     the accounting core's state
 * @pending:  6.12 delayed iowait sleepers charged to this CPU
 * @dequeues: 6.12: tasks dequeued from a runqueue by this CPU since its
 *            last switch while @pending was not empty; this CPU only,
 *            with interrupts off (acct.c, picks_blocked())
 * @counters: what happened to this CPU, possibly seen from another CPU
 * @rq_hash:  requests submitted from this CPU in flight, keyed by request:
 *            issue and completion find them under @lock, which they take
 *            anyway, instead of under a table lock of their own; sized by
 *            the request pool at load (blk.c), so that a chain stays short
 *            however many requests are in flight
 * @events:   tracepoint hits on this CPU, this_cpu_inc() only
 */
struct iowprobe_cpu {
	raw_spinlock_t lock;
	struct iowprobe_acct acct;
	struct list_head pending;
	unsigned int dequeues;
	struct hlist_head *rq_hash;
	u64 counters[IOWPROBE_C_NR];
	u64 events[IOWPROBE_EV_NR];
};

extern struct iowprobe_cpu __percpu *iowprobe_cpus;

/* iowprobe_hit() - count a hit of tracepoint @ev on this CPU */
static inline void iowprobe_hit(enum iowprobe_event ev)
{
	this_cpu_inc(iowprobe_cpus->events[ev]);
}

struct iowprobe_owner;

/*
 * struct iowprobe_wait - what a followed sleeper noted when it went to
 * sleep, to settle on its rows when it wakes (owners.c)
 * @owner:      its process's and its cgroup's rows (NULL: none free)
 * @cgroup:     the cgroup it slept in, looked up once a sleep
 * @t_sleep:    when it went to sleep
 * @blk_snap:   its process row's in-flight clock at @t_sleep
 * @share_snap: its CPU's share_ns when it was counted there
 * @kind:       where it waits, enum iowprobe_wait_kind
 */
struct iowprobe_wait {
	struct iowprobe_owner *owner[IOWPROBE_OWNER_KINDS];
	u64 cgroup;
	u64 t_sleep;
	u64 blk_snap;
	u64 share_snap;
	u8 kind;
};

/* one entry of a pointer-keyed table: a followed task or request */
struct iowprobe_entry {
	struct hlist_node node;
	const void *key;
	union {
		struct {
			struct list_head pending;
			struct iowprobe_wait wait;
			int cpu;
			u8 state;	/* enum iowprobe_task_state */
		} task;
		struct {
			struct iowprobe_owner *owner;	/* its process */
			u64 t_issue;
			u32 bytes;
			u16 dev;
			u8 op;		/* enum iowprobe_op */
		} rq;
	};
};

/*
 * struct iowprobe_table - a hash over a pool (pool.h) of preallocated
 * entries, so that no probe ever allocates: a full pool is counted in
 * @pool.exhausted, never a crash
 */
struct iowprobe_table {
	struct hlist_head *buckets;
	raw_spinlock_t *locks;
	struct iowprobe_entry *entries;
	struct iowprobe_pool pool;
	unsigned int bits;
	unsigned int lock_mask;
};

int iowprobe_table_init(struct iowprobe_table *t, const char *name,
			unsigned int size, bool keyed);
void iowprobe_table_destroy(struct iowprobe_table *t);

/* iowprobe_entry_get() - an unused entry, or NULL (counted) if none is left */
static __always_inline struct iowprobe_entry *
iowprobe_entry_get(struct iowprobe_table *t)
{
	return iowprobe_pool_get(&t->pool);
}

static __always_inline void iowprobe_entry_put(struct iowprobe_table *t,
					       struct iowprobe_entry *e)
{
	iowprobe_pool_put(&t->pool, e);
}

struct iowprobe_entry *iowprobe_table_add(struct iowprobe_table *t,
					  const void *key,
					  struct iowprobe_entry *e);
bool iowprobe_table_add_new(struct iowprobe_table *t, const void *key,
			    struct iowprobe_entry *e);
struct iowprobe_entry *iowprobe_table_del(struct iowprobe_table *t,
					  const void *key);
unsigned int iowprobe_table_used(struct iowprobe_table *t);
void iowprobe_table_for_each(struct iowprobe_table *t,
			     void (*fn)(struct iowprobe_entry *e, void *arg),
			     void *arg);
void iowprobe_table_settle(struct iowprobe_table *t);

/*
 * iowprobe_table_exact() - false while something the pool could not hold
 * may still be going on: from a failed get until nothing the table follows
 * is in flight (the pool empty, or for requests iowprobe_table_settle())
 */
static inline bool iowprobe_table_exact(struct iowprobe_table *t)
{
	return !READ_ONCE(t->pool.overflowed);
}

/* acct.c: per-CPU time and the nr_iowait mirror */
extern struct iowprobe_table iowprobe_tasks;

int iowprobe_acct_init(unsigned int pool);
void iowprobe_acct_exit(void);
int iowprobe_hotplug_init(void);
void iowprobe_hotplug_exit(void);
void iowprobe_seed(void);
/*
 * The probes and the out-of-line helpers of their common paths are notrace,
 * as the kernel's own trace event probes are: the function tracer's entry,
 * a nop while it is off, would be one instruction more of every switch and
 * every request.
 */
/* the switch probe, there and not in probes.c: one call less per switch */
void iowprobe_probe_sched_switch(void *data, bool preempt,
				 struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state);
struct rq;
void iowprobe_probe_nr_running(void *data, struct rq *rq, int change);
void iowprobe_on_migrate(struct task_struct *p, int dest_cpu);
void iowprobe_on_wakeup(struct task_struct *p);
void iowprobe_on_free(struct task_struct *p);
u64 iowprobe_cpu_read(int cpu, struct iowprobe_acct *a, u64 *counters);
void iowprobe_acct_status(struct seq_file *m);
u64 iowprobe_acct_events(enum iowprobe_event ev);

/* blk.c: requests in flight (their disks: devs.h) */
int iowprobe_blk_init(unsigned int pool);
void iowprobe_blk_exit(void);
void iowprobe_blk_reap(void);
/* the block probes, there and not in probes.c: one call less per request */
void iowprobe_probe_rq_issue(void *data, struct request *rq);
void iowprobe_probe_rq_complete(void *data, struct request *rq,
				blk_status_t error, unsigned int nr_bytes);
void iowprobe_probe_rq_requeue(void *data, struct request *rq);
void iowprobe_blk_status(struct seq_file *m);

/* probes.c */
int iowprobe_probes_register(void);
void iowprobe_probes_unregister(void);
void iowprobe_probes_status(struct seq_file *m);

/* owners.c: who waits, per process and per cgroup */
extern unsigned int iowprobe_owner_pool[IOWPROBE_OWNER_KINDS];

int iowprobe_owners_init(void);
void iowprobe_owners_exit(void);
void iowprobe_owners_reap(void);
void iowprobe_owners_of(struct task_struct *p, struct iowprobe_wait *w);
void iowprobe_owners_sleep(struct iowprobe_wait *w, struct task_struct *p,
			   u64 now);
void iowprobe_owners_wake(const struct iowprobe_wait *w, u64 now, u64 share);
struct iowprobe_owner *iowprobe_owner_proc(struct task_struct *p);
void iowprobe_owners_exited(struct task_struct *p);
/*
 * a walk of every followed sleeper, calling @fn with its wait and its share
 * of its CPU's iowait up to @now: acct.c's, which the procs and cgroups
 * files' reader (debugfs.c) hands to owners.c, so owners.c never calls
 * into acct.c, which calls into it
 */
typedef void (*iowprobe_asleep_fn)(const struct iowprobe_wait *w, u64 share,
				   void *arg);
typedef void (*iowprobe_asleep_walk)(u64 now, iowprobe_asleep_fn fn,
				     void *arg);
void iowprobe_owners_show(struct seq_file *m, enum iowprobe_owner_kind k,
			  iowprobe_asleep_walk asleep);
void iowprobe_owners_status(struct seq_file *m);
/* acct.c: the followed sleepers' own part of the owner rows, as of @now */
void iowprobe_acct_asleep(u64 now, iowprobe_asleep_fn fn, void *arg);

/* debugfs.c */
void iowprobe_debugfs_init(void);
void iowprobe_debugfs_exit(void);

/* testing.c, testing builds only: the deliberate bugs asked for at load */
#ifdef IOWPROBE_TESTING
void iowprobe_testing_run(void);
#else
static inline void iowprobe_testing_run(void)
{
}
#endif

/*
 * The module's clock is the scheduler's (doc/design.md#the-clock), never
 * the clocksource: sched_clock is the TSC on x86 even where the kernel
 * keeps time with the HPET or acpi_pm, whose every read costs about a
 * microsecond, and the scheduler reads it at every switch anyway.
 *
 * iowprobe_clock() - the clock of @cpu: what that CPU's state is cut in.
 * Where the kernel calls sched_clock stable, one clock for every CPU; where
 * not, a read for another CPU couples the two CPUs' clocks, so it is never
 * behind what @cpu read itself.
 */
static inline u64 iowprobe_clock(int cpu)
{
	return sched_clock_cpu(cpu);
}

/* iowprobe_now() - this CPU's clock, for instants of no CPU's state */
static inline u64 iowprobe_now(void)
{
	return local_clock();
}

#endif /* IOWPROBE_H */
