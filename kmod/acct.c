// SPDX-License-Identifier: GPL-2.0-only
/*
 * acct.c - per-CPU time and the mirror of each CPU's nr_iowait
 *
 * The mirror follows the kernel's own rule (doc/design.md#the-iowait-rule):
 * +1 on the sleep CPU when a task with in_iowait leaves the runqueue, -1 on
 * that same CPU when try_to_wake_up() brings it back, whichever CPU wakes it.
 * Every change closes the CPU's open segment first, so idle time is cut at
 * each change instead of being classified as a whole at its end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/irqflags.h>
#include <linux/limits.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>

#include "busy.h"
#include "compat.h"
#include "iowprobe.h"

struct iowprobe_cpu __percpu *iowprobe_cpus;
struct iowprobe_table iowprobe_tasks;

static enum cpuhp_state hotplug_state;
static atomic64_t seeded;
static atomic64_t seed_raced;
static atomic64_t late_block;
static atomic64_t delayed_parked;	/* 6.12: PENDING entries made */
static atomic64_t delayed_blocked;	/* ... then found blocked */

static struct iowprobe_cpu *cpu_state(int cpu)
{
	return per_cpu_ptr(iowprobe_cpus, cpu);
}

/* iowprobe_acct_init() - every CPU's state, and a pool of @pool sleepers */
int iowprobe_acct_init(unsigned int pool)
{
	int cpu, ret;

	iowprobe_cpus = alloc_percpu(struct iowprobe_cpu);
	if (!iowprobe_cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		raw_spin_lock_init(&cpu_state(cpu)->lock);
		INIT_LIST_HEAD(&cpu_state(cpu)->pending);
	}
	ret = iowprobe_table_init(&iowprobe_tasks, "tasks", pool, true);
	if (ret)
		free_percpu(iowprobe_cpus);
	return ret;
}

void iowprobe_acct_exit(void)
{
	iowprobe_table_destroy(&iowprobe_tasks);
	free_percpu(iowprobe_cpus);
}

static void count(struct iowprobe_cpu *c, enum iowprobe_counter n)
{
	c->counters[n]++;	/* c->lock held */
}

/*
 * clock_once() - the instant of a locked section: read once, however many
 * changes it makes (@now: 0 until read)
 */
static u64 clock_once(u64 *now)
{
	if (!*now)
		*now = iowprobe_now();
	return *now;
}

/* add_mirror() - the kernel changed @c's nr_iowait by @delta at @now */
static void add_mirror(struct iowprobe_cpu *c, int delta, u64 now)
{
	iowprobe_acct_add_mirror(&c->acct, now,
				 iowprobe_blk_gclock(&c->acct, now), delta);
}

/*
 * release() - stop following a task whose entry the caller owns
 * @dec: the kernel decremented the sleep CPU's nr_iowait for it
 */
static void release(struct iowprobe_entry *e, bool dec)
{
	struct iowprobe_cpu *c = cpu_state(e->task.cpu);
	unsigned long flags;
	u64 now, share = 0;

	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(e->task.cpu);	/* often a remote wakeup */
	if (e->task.state == IOWPROBE_T_PENDING) {
		list_del(&e->task.pending);
		goto out;
	}
	/* a wakeup, or without @dec the undoing of a count we cannot follow */
	add_mirror(c, -1, now);
	share = c->acct.share_ns - e->task.wait.share_snap;
	if (dec) {
		count(c, IOWPROBE_C_wakeups);
		/* an offline CPU books no time, idle or not */
		if (c->acct.idle && c->acct.online &&
		    e->task.cpu != smp_processor_id())
			count(c, IOWPROBE_C_remote_dec_idle);
	}
out:
	/* its rows' locks nest in c->lock, as on the sleep path */
	iowprobe_owners_wake(&e->task.wait, now, share);
	/* here, where interrupts are off also for the free and seed paths */
	iowprobe_entry_put(&iowprobe_tasks, e);
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

static void anomaly(int cpu)
{
	struct iowprobe_cpu *c = cpu_state(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	count(c, IOWPROBE_C_anomalies);
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * entry_for() - an entry for @p, charged to @cpu, with @p's process and
 * cgroup rows; NULL when the pool is empty (counted in the table; the
 * sleep then goes uncounted, which status reports)
 */
static struct iowprobe_entry *entry_for(struct task_struct *p, int cpu,
					u8 state)
{
	struct iowprobe_entry *e = iowprobe_entry_get(&iowprobe_tasks);

	if (!e)
		return NULL;
	e->task.cpu = cpu;
	e->task.state = state;
	INIT_LIST_HEAD(&e->task.pending);
	iowprobe_owners_of(p, &e->task.wait);
	return e;
}

/*
 * follow() - start following @p, charged to @cpu
 *
 * Return: the published entry, or NULL when the pool is empty.
 */
static struct iowprobe_entry *follow(struct task_struct *p, int cpu, u8 state)
{
	struct iowprobe_entry *e, *old;

	e = entry_for(p, cpu, state);
	if (!e)
		return NULL;
	old = iowprobe_table_add(&iowprobe_tasks, p, e);
	if (old) {		/* a wakeup we never saw */
		anomaly(old->task.cpu);
		release(old, false);
	}
	return e;
}

/*
 * charge() - publish a followed entry on its CPU at @now: count it or park
 * it; c->lock held
 */
static void charge(struct iowprobe_cpu *c, struct iowprobe_entry *e,
		   u64 now)
{
	if (e->task.state == IOWPROBE_T_COUNTED) {
		add_mirror(c, 1, now);
		/* from here on, its share of @c's iowait grows */
		e->task.wait.share_snap = c->acct.share_ns;
		count(c, IOWPROBE_C_sleeps);
	} else {
		list_add(&e->task.pending, &c->pending);
		atomic64_inc(&delayed_parked);
	}
}

/*
 * sleep_start() - @p, followed by the new entry @e, sleeps from @now on:
 * on its rows and on its CPU @c; c->lock held
 */
static void sleep_start(struct iowprobe_cpu *c, struct iowprobe_entry *e,
			struct task_struct *p, u64 now)
{
	iowprobe_owners_sleep(&e->task.wait, p, now);
	charge(c, e, now);
}

/*
 * reconcile() - 6.12: count the delayed sleepers parked on @c that a pick
 * has blocked since (__block_task() has no tracepoint), until @want are
 * found; c->lock held.  Oldest first: a sleeper parked longer is likelier
 * to have been blocked.
 */
static void reconcile(struct iowprobe_cpu *c, bool was_idle, int want,
		      u64 *now)
{
	struct iowprobe_entry *e, *tmp;

	list_for_each_entry_safe_reverse(e, tmp, &c->pending, task.pending) {
		const struct task_struct *p = e->key;

		if (!want)
			break;
		if (READ_ONCE(p->on_rq))
			continue;
		want--;
		list_del_init(&e->task.pending);
		e->task.state = IOWPROBE_T_COUNTED;
		charge(c, e, clock_once(now));
		atomic64_inc(&delayed_blocked);
		if (was_idle)	/* blocked remotely while we idled */
			atomic64_inc(&late_block);
	}
}

/* reconcile()'s @want where the CPU idles or stops idling: all of them */
#define IOWPROBE_WALK_ALL	INT_MAX

#ifdef IOWPROBE_HAVE_DELAYED_DEQUEUE
/*
 * iowprobe_probe_nr_running() - 6.12: a runqueue's count of tasks changed,
 * under its lock, on this CPU.  A pick that blocks a delayed sleeper
 * dequeues it here and nowhere traced: while sleepers are parked on this
 * CPU, count its dequeues, so that its next switch walks them only when a
 * pick may have blocked one (picks_blocked()).
 */
notrace void iowprobe_probe_nr_running(void *data, struct rq *rq, int change)
{
	struct iowprobe_cpu *c = this_cpu_ptr(iowprobe_cpus);

	iowprobe_hit(IOWPROBE_EV_sched_update_nr_running_tp);
	if (change < 0 && !list_empty(&c->pending))
		c->dequeues -= change;
}
#endif

/*
 * picks_blocked() - how many parked sleepers a pick on @c may have blocked
 * since its last switch: its dequeues since then, less @prev's own (a
 * sleep off the runqueue dequeues once; a delayed one not yet), and count
 * from here anew.  At most that many: some may be other tasks' dequeues.
 */
static int picks_blocked(struct iowprobe_cpu *c, struct task_struct *prev)
{
	int n = c->dequeues;

	if (!n)
		return 0;
	c->dequeues = 0;
	return n - !READ_ONCE(prev->on_rq);
}

/*
 * switch_idle() - the CPU idles (@idle) or stops idling, and nothing else
 * changes: no sleeper to follow, none parked.  The pipe's every switch.
 * Out of line, so that the common switch saves no registers, and apart
 * from switch_locked(), so that this one saves only two.
 */
static noinline notrace void switch_idle(struct iowprobe_cpu *c, bool idle)
{
	u64 now;

	/* __schedule() holds the runqueue lock: interrupts are off */
	lockdep_assert_irqs_disabled();
	raw_spin_lock(&c->lock);
	now = iowprobe_now();
	iowprobe_acct_set_idle(&c->acct, now,
			       iowprobe_blk_gclock(&c->acct, now), idle);
	raw_spin_unlock(&c->lock);
}

/*
 * switch_locked() - a switch that may change more of this CPU's state:
 * @prev may sleep in iowait, or sleepers are parked and a pick may have
 * blocked @want of them (IOWPROBE_WALK_ALL: the CPU idles or stops
 * idling).  Out of line, as switch_idle().
 */
static noinline notrace void switch_locked(struct iowprobe_cpu *c,
					   bool preempt,
					   struct task_struct *prev,
					   struct task_struct *next, int want)
{
	bool was_idle = is_idle_task(prev), idle = is_idle_task(next);
	enum iowprobe_switch_verdict v;
	struct iowprobe_entry *e = NULL;
	u64 now = 0;

	v = iowprobe_switch_verdict(preempt, prev->in_iowait,
				    READ_ONCE(prev->on_rq),
				    iowprobe_task_delayed(prev));
	if (v != IOWPROBE_SW_NONE)
		e = follow(prev, smp_processor_id(),
			   v == IOWPROBE_SW_COUNT ? IOWPROBE_T_COUNTED :
						    IOWPROBE_T_PENDING);
	lockdep_assert_irqs_disabled();
	raw_spin_lock(&c->lock);
	if (want > 0)
		reconcile(c, was_idle, want, &now);
	if (e)
		sleep_start(c, e, prev, clock_once(&now));
	if (was_idle != idle) {
		clock_once(&now);
		iowprobe_acct_set_idle(&c->acct, now,
				       iowprobe_blk_gclock(&c->acct, now),
				       idle);
	}
	raw_spin_unlock(&c->lock);
}

/*
 * iowprobe_probe_sched_switch() - here and not in probes.c, as the block
 * probes are blk.c's: one call less on every switch of the machine
 */
notrace void iowprobe_probe_sched_switch(void *data, bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next,
					 unsigned int prev_state)
{
	struct iowprobe_cpu *c = this_cpu_ptr(iowprobe_cpus);
	/* one test of the two tasks' PF_IDLE, not two */
	bool idles = (prev->flags ^ next->flags) & PF_IDLE;
	int blocked = picks_blocked(c, prev);

	iowprobe_hit(IOWPROBE_EV_sched_switch);
	/*
	 * the common case: nobody to follow, and no parked sleeper to count
	 * (none parked, or no pick blocked one and the CPU neither idles nor
	 * stops idling): no lock
	 */
	if (!iowprobe_switch_may_count(preempt, prev->in_iowait) &&
	    (list_empty(&c->pending) || (!idles && blocked <= 0))) {
		if (idles)
			switch_idle(c, is_idle_task(next));
		return;
	}
	switch_locked(c, preempt, prev, next,
		      idles ? IOWPROBE_WALK_ALL : blocked);
}

/* move() - 6.12: the load balancer moved a delayed sleeper to @dest */
static void move(struct task_struct *p, struct iowprobe_entry *e, int dest)
{
	struct iowprobe_cpu *c = cpu_state(e->task.cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	list_del(&e->task.pending);
	raw_spin_unlock_irqrestore(&c->lock, flags);

	e->task.cpu = dest;
	c = cpu_state(dest);
	raw_spin_lock_irqsave(&c->lock, flags);
	list_add(&e->task.pending, &c->pending);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	if (iowprobe_table_add(&iowprobe_tasks, p, e))
		anomaly(dest);	/* cannot happen: the rq lock is held */
}

void iowprobe_on_migrate(struct task_struct *p, int dest_cpu)
{
	struct iowprobe_entry *e = iowprobe_table_del(&iowprobe_tasks, p);
	bool waking;

	if (!e)
		return;
	waking = READ_ONCE(p->__state) == TASK_WAKING;
	switch (iowprobe_migrate_action(waking, e->task.state)) {
	case IOWPROBE_W_DEC:
		release(e, true);
		break;
	case IOWPROBE_W_DROP:
		release(e, false);
		break;
	case IOWPROBE_W_MOVE:
		move(p, e, dest_cpu);
		break;
	default:
		anomaly(e->task.cpu);
		iowprobe_table_add(&iowprobe_tasks, p, e);
		break;
	}
}

void iowprobe_on_wakeup(struct task_struct *p)
{
	struct iowprobe_entry *e = iowprobe_table_del(&iowprobe_tasks, p);

	if (e)
		release(e, iowprobe_wakeup_action(e->task.state) ==
			   IOWPROBE_W_DEC);
}

/* iowprobe_on_free() - a followed task freed: a wakeup we never saw */
void iowprobe_on_free(struct task_struct *p)
{
	struct iowprobe_entry *e;

	iowprobe_owners_exited(p);
	/* the lookup is the test: a count of those followed is the pool's sum */
	e = iowprobe_table_del(&iowprobe_tasks, p);
	if (!e)
		return;
	anomaly(e->task.cpu);
	release(e, false);
}

/* asleep() - @p still sleeps as the kernel counted (or will count) it */
static bool asleep(struct task_struct *p)
{
	unsigned int state = READ_ONCE(p->__state);

	if (state == TASK_RUNNING || state == TASK_WAKING)
		return false;
	return !READ_ONCE(p->on_rq) || iowprobe_task_delayed(p);
}

/*
 * seed_one() - follow a task that went to sleep before the probes existed
 *
 * The entry is counted (or parked), then published, then the task is
 * looked at again: a wakeup either finds the entry (and undoes the count)
 * or came before it, and then the recheck sees the task awake and takes
 * the entry back.  Counting before publishing matters: once published, a
 * wakeup may release the entry and return it to the pool at once, so it
 * must be on its CPU's lists by then, never after.  A task that a probe
 * already follows (it slept again after the probes attached) is the
 * probe's: ours is undone, and that is no anomaly.
 */
static void seed_one(struct task_struct *p, enum iowprobe_switch_verdict v)
{
	int cpu = task_cpu(p);
	struct iowprobe_cpu *c = cpu_state(cpu);
	struct iowprobe_entry *e;
	unsigned long flags;

	local_irq_save(flags);	/* the pool's, as on the sleep path */
	e = entry_for(p, cpu, v == IOWPROBE_SW_COUNT ? IOWPROBE_T_COUNTED :
						      IOWPROBE_T_PENDING);
	local_irq_restore(flags);
	if (!e)
		return;
	raw_spin_lock_irqsave(&c->lock, flags);
	/* asleep since before load: its rows count its sleep from now */
	sleep_start(c, e, p, iowprobe_clock(cpu));
	raw_spin_unlock_irqrestore(&c->lock, flags);
	if (!iowprobe_table_add_new(&iowprobe_tasks, p, e)) {
		release(e, false);
		return;
	}
	smp_mb();	/* publish the entry before reading the task's state */
	if (asleep(p)) {
		atomic64_inc(&seeded);
		return;
	}
	e = iowprobe_table_del(&iowprobe_tasks, p);
	if (e) {
		release(e, false);
		atomic64_inc(&seed_raced);
	}
}

/*
 * iowprobe_seed() - count the tasks already asleep in iowait at load, so the
 * mirror is right from the start instead of after they all woke
 */
void iowprobe_seed(void)
{
	struct task_struct *g, *p;
	enum iowprobe_switch_verdict v;

	rcu_read_lock();
	for_each_process_thread(g, p) {
		if (!p->in_iowait || READ_ONCE(p->on_cpu) || !asleep(p))
			continue;
		v = iowprobe_switch_verdict(0, 1, READ_ONCE(p->on_rq),
					    iowprobe_task_delayed(p));
		if (v != IOWPROBE_SW_NONE)
			seed_one(p, v);
	}
	rcu_read_unlock();
}

static int cpu_online_cb(unsigned int cpu)
{
	struct iowprobe_cpu *c = cpu_state(cpu);
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	/* runs in the hotplug thread on @cpu: a task, not idle */
	c->acct.idle = is_idle_task(current);
	iowprobe_acct_set_online(&c->acct, now,
				 iowprobe_blk_gclock(&c->acct, now), 1);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

static int cpu_offline_cb(unsigned int cpu)
{
	struct iowprobe_cpu *c = cpu_state(cpu);
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	iowprobe_acct_set_online(&c->acct, now,
				 iowprobe_blk_gclock(&c->acct, now), 0);
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return 0;
}

/* iowprobe_hotplug_init() - also starts the clock of every online CPU */
int iowprobe_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "iowprobe:online",
				cpu_online_cb, cpu_offline_cb);
	if (ret < 0)
		return ret;
	hotplug_state = ret;
	return 0;
}

void iowprobe_hotplug_exit(void)
{
	cpuhp_remove_state_nocalls(hotplug_state);
}

/*
 * iowprobe_cpu_read() - @cpu's figures with its open segment up to now
 *
 * Return: that instant (ns, @cpu's clock), so a reader can take deltas
 * between the very instants the figures describe.
 */
u64 iowprobe_cpu_read(int cpu, struct iowprobe_acct *a, u64 *counters)
{
	struct iowprobe_cpu *c = cpu_state(cpu);
	unsigned long flags;
	u64 now;

	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	iowprobe_acct_peek(&c->acct, now, iowprobe_blk_gclock(&c->acct, now),
			   a);
	memcpy(counters, c->counters, sizeof(c->counters));
	raw_spin_unlock_irqrestore(&c->lock, flags);
	return now;
}

struct asleep_walk {
	u64 now;
	void (*fn)(const struct iowprobe_wait *w, u64 share, void *arg);
	void *arg;
};

/* asleep_one() - a followed sleeper's share so far; its bucket locked */
static void asleep_one(struct iowprobe_entry *e, void *arg)
{
	struct iowprobe_cpu *c = cpu_state(e->task.cpu);
	struct asleep_walk *walk = arg;
	struct iowprobe_acct a;
	unsigned long flags;
	u64 share = 0;

	raw_spin_lock_irqsave(&c->lock, flags);
	if (e->task.state == IOWPROBE_T_COUNTED) {
		iowprobe_acct_peek(&c->acct, walk->now,
				   iowprobe_blk_gclock(&c->acct, walk->now), &a);
		share = iowprobe_since(a.share_ns, e->task.wait.share_snap);
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
	walk->fn(&e->task.wait, share, walk->arg);
}

/*
 * iowprobe_acct_asleep() - call @fn for every followed sleeper with its
 * share of its CPU's iowait up to @now, for a reader of the owner rows
 */
void iowprobe_acct_asleep(u64 now, iowprobe_asleep_fn fn, void *arg)
{
	struct asleep_walk walk = { .now = now, .fn = fn, .arg = arg };

	iowprobe_table_for_each(&iowprobe_tasks, asleep_one, &walk);
}

/* iowprobe_acct_events() - hits of one tracepoint on all CPUs */
u64 iowprobe_acct_events(enum iowprobe_event ev)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(cpu_state(cpu)->events[ev]);
	return sum;
}

void iowprobe_acct_status(struct seq_file *m)
{
	struct iowprobe_table *t = &iowprobe_tasks;

	/*
	 * sleepers from before load are seeded before this file exists, so
	 * the mirror starts exact: a constant, kept for ABI 1's readers
	 */
	seq_puts(m, "warmup: seeded\n");
	seq_printf(m, "seeded: %lld\n", atomic64_read(&seeded));
	seq_printf(m, "seed_raced: %lld\n", atomic64_read(&seed_raced));
	seq_printf(m, "task_pool: %u/%u used\n", iowprobe_table_used(t),
		   t->pool.size);
	seq_printf(m, "task_pool_exhausted: %lld\n",
		   atomic64_read(&t->pool.exhausted));
	/* iowait_ns and nr_iowait miss the sleeps the pool could not hold */
	seq_printf(m, "exact_iowait: %s\n",
		   iowprobe_table_exact(t) ? "yes" : "no");
	seq_printf(m, "delayed_parked: %lld\n", atomic64_read(&delayed_parked));
	seq_printf(m, "delayed_blocked: %lld\n",
		   atomic64_read(&delayed_blocked));
	seq_printf(m, "late_block: %lld\n", atomic64_read(&late_block));
}
