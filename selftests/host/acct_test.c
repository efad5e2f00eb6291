// SPDX-License-Identifier: GPL-2.0-only
/*
 * acct_test.c - the module's own kmod/acct.c, kmod/table.c and kmod/blk.c
 * on the host, against the kernel shim in shim/
 *
 * The test plays the kernel: a few CPUs and tasks whose nr_iowait it keeps
 * by the kernel's own rule (doc/design.md#increment-and-decrement,
 * doc/design.md#delayed-dequeue), calling the module's entry points where
 * the tracepoints fire, in the orders of doc/design.md#races.  It reads
 * the results back the way debugfs does: iowprobe_cpu_read() for a CPU's
 * figures and counters, the status printers for the rest.  Every expected
 * value is worked out by hand in the comment above its test.  The shim's
 * clock only moves when a test says so, and its locks abort the test on a
 * deadlock or an unbalanced unlock.
 *
 * Built twice, as Kbuild builds the module: with
 * IOWPROBE_HAVE_DELAYED_DEQUEUE for 6.12 and later (acct_test), and
 * without it for 6.1 (acct_test_61), which skips the delayed-dequeue
 * scenarios: that kernel never delays a dequeue.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <linux/blk-mq.h>
#include <linux/cpuhotplug.h>
#include <linux/percpu.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>

#include "devs.h"
#include "iowprobe.h"

/* the pool sizes of main.c's parameters; main.c itself is not built here */
static unsigned int task_pool = 4096;
static unsigned int request_pool = 4096;

/* ---- the kernel: tasks, runqueues, nr_iowait ---- */

#define IDLE	(-1)		/* the CPU's idle task */
#define HP	(-2)		/* the CPU's hotplug thread */
#define NTASK	20

enum { A, B, C, D, E, F };

/* struct ktask - a task, and what decides how its next sleep goes */
struct ktask {
	struct task_struct ts;
	bool ineligible;	/* 6.12: its sleeps are delayed dequeues */
	bool signal;		/* a signal is pending: its sleep fails */
};

struct kernel {
	struct ktask t[NTASK];
	struct ktask idle[SHIM_NR_CPUS];
	struct ktask hp[SHIM_NR_CPUS];
	int nr_iowait[SHIM_NR_CPUS];
	bool probes_off;	/* the next event is missed by the module */
};

static int in_hook;		/* a hook runs inside a module call */

static struct ktask *kt(struct kernel *k, int cpu, int p)
{
	if (p == IDLE)
		return &k->idle[cpu];
	if (p == HP)
		return &k->hp[cpu];
	return &k->t[p];
}

static void at(u64 now)
{
	shim_now = now;
}

/* quiet() - after a module call: every lock dropped, irqs back on */
static void quiet(void)
{
	if (!in_hook)
		shim_assert_quiet();
}

/*
 * the sched probes: acct.c's own switch probe, and those of kmod/probes.c
 * as they call into acct.c
 */
static void tp_switch(int cpu, bool preempt, struct task_struct *prev,
		      struct task_struct *next)
{
	shim_cpu = cpu;
	shim_irq_disable();	/* __schedule() holds the runqueue lock */
	iowprobe_probe_sched_switch(NULL, preempt, prev, next, 0);
	shim_irq_enable();
	quiet();
}

static void tp_wakeup(struct kernel *k, int cpu, struct task_struct *p)
{
	shim_cpu = cpu;
	if (p->in_iowait && !k->probes_off)	/* probe_sched_wakeup() */
		iowprobe_on_wakeup(p);
	quiet();
}

static void tp_migrate(struct kernel *k, int cpu, struct task_struct *p,
		       int dest)
{
	shim_cpu = cpu;
	if (p->in_iowait && !k->probes_off)	/* probe_sched_migrate_task() */
		iowprobe_on_migrate(p, dest);
	quiet();
}

static void tp_free(int cpu, struct task_struct *p)
{
	shim_cpu = cpu;
	iowprobe_on_free(p);
	quiet();
}

/*
 * tp_nr_running() - add_nr_running() or sub_nr_running() of a runqueue,
 * run on @cpu: sched_update_nr_running_tp, probed on 6.12 only
 */
static void tp_nr_running(struct kernel *k, int cpu, int change)
{
#ifdef IOWPROBE_HAVE_DELAYED_DEQUEUE
	if (k->probes_off)
		return;
	shim_cpu = cpu;
	shim_irq_disable();	/* under a runqueue lock */
	iowprobe_probe_nr_running(NULL, NULL, change);
	shim_irq_enable();
	quiet();
#else
	(void)k, (void)cpu, (void)change;
#endif
}

/*
 * k_block_by() - __block_task() of @p queued on @cpu, done on @by: off the
 * runqueue, +1 on @cpu if in_iowait
 */
static void k_block_by(struct kernel *k, int by, int cpu, int p)
{
	struct task_struct *ts = &kt(k, cpu, p)->ts;

	tp_nr_running(k, by, -1);	/* dequeue_entities() */
	ts->on_rq = 0;
	ts->se.sched_delayed = 0;
	if (ts->in_iowait)
		k->nr_iowait[cpu]++;
}

/* k_block() - a pick on @cpu blocks @p (or @p blocks itself there) */
static void k_block(struct kernel *k, int cpu, int p)
{
	k_block_by(k, cpu, cpu, p);
}

/* k_io_wait() - io_schedule_prepare() and a sleep state, before schedule() */
static void k_io_wait(struct kernel *k, int p)
{
	k->t[p].ts.in_iowait = 1;
	k->t[p].ts.__state = TASK_UNINTERRUPTIBLE;
}

/* k_sleep() - a plain sleep (io_schedule_finish() restored in_iowait) */
static void k_sleep(struct kernel *k, int p)
{
	k->t[p].ts.in_iowait = 0;
	k->t[p].ts.__state = TASK_INTERRUPTIBLE;
}

/* k_switch() - __schedule() on @cpu from its current task to @next */
static void k_switch(struct kernel *k, int cpu, bool preempt, int next)
{
	struct task_struct *prev = shim_curr[cpu];
	struct ktask *t = container_of(prev, struct ktask, ts);
	struct task_struct *n = &kt(k, cpu, next)->ts;

	if (!preempt && prev->__state != TASK_RUNNING) {
		if (t->signal) {	/* 6.12 also reports prev_state 0 */
			prev->__state = TASK_RUNNING;
		} else if (t->ineligible) {	/* delayed: no increment */
			prev->se.sched_delayed = 1;
		} else {
			tp_nr_running(k, cpu, -1);
			prev->on_rq = 0;
			prev->se.sched_delayed = 0;
			if (prev->in_iowait)
				k->nr_iowait[cpu]++;
		}
	}
	tp_switch(cpu, preempt, prev, n);	/* sched_switch */
	prev->on_cpu = 0;
	shim_curr[cpu] = n;
	n->on_cpu = 1;
	n->cpu = cpu;
}

/*
 * k_sleep_delayed() - 6.12: @p, running on @cpu and not eligible, sleeps in
 * iowait and @next runs: its dequeue is delayed, nothing counted yet
 */
static void k_sleep_delayed(struct kernel *k, int cpu, int p, int next)
{
	k->t[p].ineligible = true;
	k_io_wait(k, p);
	k_switch(k, cpu, false, next);
}

/*
 * k_wake() - try_to_wake_up(@p) on @waker, placing it on @target
 * @ipi: ttwu_do_activate() runs on @target from the wakelist IPI
 *
 * sched_waking is left out: the module does nothing there.
 */
static void k_wake(struct kernel *k, int waker, int p, int target, bool ipi)
{
	struct task_struct *ts = &k->t[p].ts;

	if (ts->on_rq) {		/* ttwu_runnable(): no change */
		ts->se.sched_delayed = 0;
		ts->__state = TASK_RUNNING;
		tp_wakeup(k, waker, ts);
		return;
	}
	ts->__state = TASK_WAKING;
	if (target != (int)ts->cpu) {	/* old rq, then set_task_cpu() */
		if (ts->in_iowait)
			k->nr_iowait[ts->cpu]--;
		tp_migrate(k, waker, ts, target);
		ts->cpu = target;
	} else if (ts->in_iowait) {	/* ttwu_do_activate(), !WF_MIGRATED */
		k->nr_iowait[ts->cpu]--;
	}
	tp_nr_running(k, ipi ? target : waker, 1);	/* activate_task() */
	ts->on_rq = TASK_ON_RQ_QUEUED;
	ts->__state = TASK_RUNNING;
	tp_wakeup(k, ipi ? target : waker, ts);
}

/* k_balance() - 6.12: the load balancer on @this_cpu moves queued @p */
static void k_balance(struct kernel *k, int this_cpu, int p, int dest)
{
	struct task_struct *ts = &k->t[p].ts;

	tp_nr_running(k, this_cpu, -1);	/* detach_task() */
	ts->on_rq = TASK_ON_RQ_MIGRATING;
	tp_migrate(k, this_cpu, ts, dest);
	ts->cpu = dest;
	tp_nr_running(k, this_cpu, 1);	/* attach_task() */
	ts->on_rq = TASK_ON_RQ_QUEUED;
}

/* k_preload() - @p fell asleep in iowait on @cpu before the probes */
static void k_preload(struct kernel *k, int p, int cpu, bool delayed)
{
	struct task_struct *ts = &k->t[p].ts;

	ts->in_iowait = 1;
	ts->__state = TASK_UNINTERRUPTIBLE;
	ts->cpu = cpu;
	ts->on_cpu = 0;
	if (delayed) {
		ts->se.sched_delayed = 1;
	} else {
		ts->on_rq = 0;
		k->nr_iowait[cpu]++;
	}
}

/*
 * k_load() - boot: every task queued on CPU0, every CPU in its hotplug
 * thread; then main.c's load order without the tracepoints, and each
 * hotplug thread sleeps, so every CPU is online and idle from 0.
 */
static int k_load(struct kernel *k)
{
	int cpu, p, ret;

	memset(k, 0, sizeof(*k));
	at(0);
	shim_tasks = NULL;
	for (p = NTASK - 1; p >= 0; p--) {
		k->t[p].ts.on_rq = TASK_ON_RQ_QUEUED;
		/* each its own process, named after its letter */
		k->t[p].ts.tgid = 100 + p;
		k->t[p].ts.group_leader = &k->t[p].ts;
		k->t[p].ts.comm[0] = 'A' + p;
		k->t[p].ts.shim_next = shim_tasks;
		shim_tasks = &k->t[p].ts;
	}
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		k->idle[cpu].ts.group_leader = &k->idle[cpu].ts;
		k->hp[cpu].ts.group_leader = &k->hp[cpu].ts;
		k->hp[cpu].ts.flags = PF_KTHREAD;
		k->idle[cpu].ts.flags = PF_IDLE | PF_KTHREAD;
		k->idle[cpu].ts.on_rq = TASK_ON_RQ_QUEUED;
		k->idle[cpu].ts.cpu = cpu;
		k->hp[cpu].ts.on_rq = TASK_ON_RQ_QUEUED;
		k->hp[cpu].ts.on_cpu = 1;
		k->hp[cpu].ts.cpu = cpu;
		shim_curr[cpu] = &k->hp[cpu].ts;
	}
	shim_cpu = 0;
	ret = iowprobe_owners_init();
	if (ret)
		return ret;
	ret = iowprobe_acct_init(task_pool);
	if (ret)
		return ret;
	ret = iowprobe_blk_init(request_pool);
	if (ret)
		return ret;
	ret = iowprobe_hotplug_init();
	if (ret)
		return ret;
	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		k->hp[cpu].ts.__state = TASK_INTERRUPTIBLE;
		k_switch(k, cpu, false, IDLE);
	}
	return 0;
}

/* k_unload() - main.c's unload order, less debugfs and the tracepoints */
static void k_unload(void)
{
	shim_cpu = 0;
	iowprobe_hotplug_exit();
	iowprobe_blk_exit();
	iowprobe_acct_exit();
	iowprobe_owners_exit();
	shim_assert_quiet();
	if (shim_allocs)
		shim_bug("%ld allocations left after unload", shim_allocs);
}

/* ---- reading back, as debugfs does ---- */

struct cpu_read {
	struct iowprobe_acct a;
	u64 c[IOWPROBE_C_NR];
};

/* peek() - @cpu's figures and counters at @now (the clock stays there) */
static struct cpu_read peek(int cpu, u64 now)
{
	struct cpu_read r;

	at(now);
	shim_cpu = 0;
	if (iowprobe_cpu_read(cpu, &r.a, r.c) != now + shim_clock_skew[cpu])
		shim_bug("iowprobe_cpu_read() returned another instant");
	quiet();
	return r;
}

static struct cpu_read now_of(int cpu)
{
	return peek(cpu, shim_now);
}

static int mirror(int cpu)
{
	return now_of(cpu).a.mirror;
}

static u64 cnt(int cpu, enum iowprobe_counter n)
{
	return now_of(cpu).c[n];
}

/* status() - the status file's lines from acct.c and blk.c */
static void status(char *buf, size_t size)
{
	struct seq_file m = { .buf = buf, .size = size };

	shim_cpu = 0;
	iowprobe_acct_status(&m);
	iowprobe_blk_status(&m);
	quiet();
}

/* status_str() - the value of status line @key, up to its newline */
static const char *status_str(const char *key)
{
	static char buf[4096], val[64];
	size_t n = strlen(key);
	const char *s;

	status(buf, sizeof(buf));
	for (s = buf; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		if (strncmp(s, key, n) || strncmp(s + n, ": ", 2))
			continue;
		s += n + 2;
		n = strcspn(s, "\n");
		if (n >= sizeof(val))
			break;
		memcpy(val, s, n);
		val[n] = '\0';
		return val;
	}
	shim_bug("no status line %s", key);
}

/* status_num() - a status line's leading number ("3/16 used": 3) */
static long long status_num(const char *key)
{
	return strtoll(status_str(key), NULL, 10);
}

/* followed() - tasks in the task table, as status's task_pool counts them */
static long long followed(void)
{
	return status_num("task_pool");
}

/* entry_of() - the task table's entry for @p, or NULL */
static struct iowprobe_entry *entry_of(struct kernel *k, int p)
{
	struct iowprobe_entry *e;
	unsigned int b;

	for (b = 0; b < 1U << iowprobe_tasks.bits; b++)
		hlist_for_each_entry(e, &iowprobe_tasks.buckets[b], node)
			if (e->key == &k->t[p].ts)
				return e;
	return NULL;
}

static int entry_state(struct kernel *k, int p)
{
	struct iowprobe_entry *e = entry_of(k, p);

	return e ? e->task.state : 0;
}

/* listed_on() - the CPU whose pending list holds @p's entry, or -1 */
static int listed_on(struct kernel *k, int p)
{
	struct iowprobe_entry *e;
	int cpu;

	struct list_head *h;

	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		h = &per_cpu_ptr(iowprobe_cpus, cpu)->pending;
		list_for_each_entry(e, h, task.pending)
			if (e->key == &k->t[p].ts)
				return cpu;
	}
	return -1;
}

/* the module's mirror of @cpu and the kernel's count are both @n */
#define EXPECT_MIRROR(k, cpu, n) do {				\
	EXPECT_EQ((n), mirror(cpu));				\
	EXPECT_EQ((n), (k)->nr_iowait[(cpu)]);			\
} while (0)

/* a read CPU's busy, idle and iowait time */
#define EXPECT_TIMES(r, busy, idle, iowait) do {		\
	EXPECT_EQ((u64)(busy), (r).a.busy_ns);			\
	EXPECT_EQ((u64)(idle), (r).a.idle_ns);			\
	EXPECT_EQ((u64)(iowait), (r).a.iowait_ns);		\
} while (0)

#define C_(name)	IOWPROBE_C_##name

/* a scenario only kernels with delayed dequeue (6.12 and later) have */
#ifdef IOWPROBE_HAVE_DELAYED_DEQUEUE
#define NEEDS_DELAYED_DEQUEUE()	do { } while (0)
#else
#define NEEDS_DELAYED_DEQUEUE()	SKIP(return, "no delayed dequeue before 6.12")
#endif

/* every CPU online and idle from 0; every task queued, not running */
FIXTURE(sched) {
	struct kernel k;
};

FIXTURE_SETUP(sched)
{
	ASSERT_EQ(0, k_load(&self->k));
}

FIXTURE_TEARDOWN(sched)
{
	memset(shim_clock_skew, 0, sizeof(shim_clock_skew));
	k_unload();
}

/* the load itself: all CPUs online, idle, nothing booked, nothing followed */
TEST_F(sched, load_starts_every_cpu_idle)
{
	struct cpu_read r;
	int cpu;

	for (cpu = 0; cpu < SHIM_NR_CPUS; cpu++) {
		r = peek(cpu, 10);
		EXPECT_EQ(1, r.a.online);
		EXPECT_EQ(1, r.a.idle);
		EXPECT_TIMES(r, 0, 10, 0);
		EXPECT_EQ(0, r.a.mirror);
	}
	EXPECT_EQ(0, followed());
	EXPECT_STREQ("yes", status_str("exact_iowait"));
	EXPECT_STREQ("yes", status_str("exact_blk"));
}

/*
 * CPU0: A runs 0..10 and sleeps in iowait (+1); the completion irq on
 * CPU0 wakes it at 30 (-1); it runs from 32.  At 40: busy 10 + 8 = 18,
 * idle 22, iowait 20.
 */
TEST_F(sched, plain_sleep_wake_one_cpu)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_EQ(1, followed());
	EXPECT_EQ(IOWPROBE_T_COUNTED, entry_state(k, A));
	at(30);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	at(32);
	k_switch(k, 0, false, A);
	r = peek(0, 40);
	EXPECT_TIMES(r, 18, 22, 20);
	EXPECT_EQ(1ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(remote_dec_idle)]);
	EXPECT_EQ(0ULL, r.c[C_(anomalies)]);
	EXPECT_EQ(0, followed());
}

/*
 * CPU0: A sets in_iowait and a sleep state but B preempts it at 10 before
 * schedule(): it stays queued, nothing is counted.  The completion wakes
 * it at 15 (ttwu_runnable); B sleeps at 20, A runs to 30, then sleeps
 * plainly: idle 30..40 is true idle.  busy 30, idle 10, iowait 0.
 */
TEST_F(sched, preempted_iowait_task_not_counted)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, true, B);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, followed());
	at(15);
	k_wake(k, 0, A, 0, false);
	at(20);
	k_sleep(k, B);
	k_switch(k, 0, false, A);
	at(30);
	k_sleep(k, A);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 40);
	EXPECT_TIMES(r, 30, 10, 0);
	EXPECT_EQ(0ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(0ULL, r.c[C_(wakeups)]);
}

/*
 * CPU0: A calls schedule() in iowait at 10 with a signal pending: 6.1
 * still reports prev_state != 0, but A stays queued (on_rq 1): no count.
 * B runs; A runs again at 20 and sleeps in iowait for real at 25 (+1),
 * woken on CPU0 at 35 (-1), runs at 36.  At 40: busy 25 + 4 = 29,
 * idle 11, iowait 10, one sleep, no anomaly.
 */
TEST_F(sched, signal_pending_sleep_not_counted)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k->t[A].signal = true;
	k_switch(k, 0, false, B);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(1, k->t[A].ts.on_rq);
	EXPECT_EQ(0, followed());
	at(20);
	k_sleep(k, B);
	k_switch(k, 0, false, A);
	at(25);
	k->t[A].signal = false;
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 1);
	at(35);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	at(36);
	k_switch(k, 0, false, A);
	r = peek(0, 40);
	EXPECT_TIMES(r, 29, 11, 10);
	EXPECT_EQ(1ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(0ULL, r.c[C_(anomalies)]);
}

/*
 * a_waits_on_idle_cpu0() - A on CPU0 and B on CPU1 from 0; at 10 A sleeps
 * in iowait and CPU0 idles: the start of the remote wakeups below
 */
static void a_waits_on_idle_cpu0(struct kernel *k)
{
	at(0);
	k_switch(k, 0, false, A);
	k_switch(k, 1, false, B);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
}

/*
 * A sleeps in iowait on CPU0 at 10; CPU0 idles to the end.  B, running
 * on CPU1, wakes A at 30 and ttwu moves it to CPU1: the kernel
 * decrements CPU0 (task_rq before set_task_cpu), from CPU1, while CPU0
 * idles.  CPU1 never goes to -1.  At 50: CPU0 busy 10, idle 40,
 * iowait 20, one remote decrement on an idle CPU; CPU1 busy 50.
 */
TEST_F(sched, migrating_wakeup_charges_sleep_cpu)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	a_waits_on_idle_cpu0(k);
	EXPECT_MIRROR(k, 0, 1);
	at(30);
	k_wake(k, 1, A, 1, false);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_MIRROR(k, 1, 0);
	EXPECT_EQ(0, followed());
	at(31);
	k_sleep(k, B);
	k_switch(k, 1, false, A);
	r = peek(0, 50);
	EXPECT_TIMES(r, 10, 40, 20);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(1ULL, r.c[C_(remote_dec_idle)]);
	r = peek(1, 50);
	EXPECT_EQ(50ULL, r.a.busy_ns);
	EXPECT_EQ(0ULL, r.a.iowait_ns);
	EXPECT_EQ(0ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(remote_dec_idle)]);
}

/*
 * The same migrating wakeup with CPU1's clock 7 ahead of CPU0's (an
 * unstable sched_clock): the decrement cuts CPU0's idle stretch at CPU0's
 * clock, read from CPU1, so CPU0's iowait is still 20, not 27.
 */
TEST_F(sched, remote_wakeup_cuts_in_sleep_cpu_clock)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	shim_clock_skew[1] = 7;
	a_waits_on_idle_cpu0(k);
	at(30);
	k_wake(k, 1, A, 1, false);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 50);
	EXPECT_TIMES(r, 10, 40, 20);
	EXPECT_EQ(1ULL, r.c[C_(remote_dec_idle)]);
}

/*
 * A sleeps in iowait on CPU0 at 10, CPU0 idles.  B on CPU1 wakes it for
 * CPU0 at 30 (sched_waking: nothing yet); CPU0 is idle, so ttwu queues
 * it on CPU0's wakelist and the IPI runs ttwu_do_activate() on CPU0 at
 * 31 (-1 there, local).  A runs at 32.  At 40: busy 18, idle 22,
 * iowait 21 (up to the decrement, not the waking), not remote.
 */
TEST_F(sched, ipi_wakeup_decrements_on_sleep_cpu)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	a_waits_on_idle_cpu0(k);
	at(31);
	k_wake(k, 1, A, 0, true);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_MIRROR(k, 1, 0);
	at(32);
	k_switch(k, 0, false, A);
	r = peek(0, 40);
	EXPECT_TIMES(r, 18, 22, 21);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(remote_dec_idle)]);
}

/*
 * A sleeps in iowait on CPU0 at 10 and C runs there; B on CPU1 wakes A
 * on CPU0 directly at 20 (same LLC, CPU0 busy): -1 on CPU0 from CPU1,
 * but CPU0 is not idle, so no iowait and no remote idle decrement.  C
 * sleeps at 25, A runs to 30 and sleeps plainly.  At 40: busy 30, idle
 * 10, iowait 0.
 */
TEST_F(sched, remote_wakeup_of_busy_cpu)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	k_switch(k, 1, false, B);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, C);
	EXPECT_MIRROR(k, 0, 1);
	at(20);
	k_wake(k, 1, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	at(25);
	k_sleep(k, C);
	k_switch(k, 0, false, A);
	at(30);
	k_sleep(k, A);
	k_switch(k, 0, false, IDLE);
	r = peek(0, 40);
	EXPECT_TIMES(r, 30, 10, 0);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(remote_dec_idle)]);
}

/*
 * CPU0: A sleeps in iowait at 10, B (also queued on CPU0) runs to 20 and
 * sleeps in iowait too: 2.  CPU1 wakes and takes A at 30 (1), then B at
 * 35 (0).  At 50: busy 20, idle 30, iowait 20..35 = 15, two remote
 * decrements on an idle CPU.
 */
TEST_F(sched, two_sleepers_cut_at_each_wakeup)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	k_switch(k, 1, false, C);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, B);
	at(20);
	k_io_wait(k, B);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 2);
	at(30);
	k_wake(k, 1, A, 1, false);
	EXPECT_MIRROR(k, 0, 1);
	at(35);
	k_wake(k, 1, B, 1, false);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_MIRROR(k, 1, 0);
	r = peek(0, 50);
	EXPECT_TIMES(r, 20, 30, 15);
	EXPECT_EQ(2ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(2ULL, r.c[C_(remote_dec_idle)]);
}

/*
 * 6.12, CPU0: A sleeps in iowait at 10 while not eligible: the dequeue is
 * delayed, A stays queued and uncounted, B runs.  At 20 B sleeps; the
 * pick finds A delayed and blocks it (+1, no tracepoint), then the switch
 * B -> idle counts it before the idle segment opens.  A is woken on CPU0
 * at 40 and runs at 41.  At 50: busy 20 + 9 = 29, idle 21, iowait 20.
 */
TEST_F(sched, delayed_counted_at_next_switch)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(IOWPROBE_T_PENDING, entry_state(k, A));
	EXPECT_EQ(0, listed_on(k, A));
	at(20);
	k_sleep(k, B);
	k_block(k, 0, A);		/* pick_next_entity() */
	EXPECT_EQ(1, k->nr_iowait[0]);
	EXPECT_EQ(0, mirror(0));
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_EQ(IOWPROBE_T_COUNTED, entry_state(k, A));
	EXPECT_EQ(-1, listed_on(k, A));
	EXPECT_EQ(0, status_num("late_block"));
	EXPECT_EQ(1, status_num("delayed_parked"));
	EXPECT_EQ(1, status_num("delayed_blocked"));
	at(40);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	at(41);
	k_switch(k, 0, false, A);
	r = peek(0, 50);
	EXPECT_TIMES(r, 29, 21, 20);
	EXPECT_EQ(1ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0, followed());
}

/*
 * 6.12, CPU0: A sleeps delayed at 10 (pending), B runs; the completion
 * wakes A at 15 while still queued: ttwu_runnable() requeues it, no +1
 * and no -1 ever; the entry is dropped.  B sleeps at 20, A runs to 30
 * and sleeps plainly.  At 40: busy 30, idle 10, iowait 0.
 */
TEST_F(sched, delayed_woken_by_ttwu_runnable_never_counted)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	EXPECT_EQ(0, listed_on(k, A));
	at(15);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, followed());
	EXPECT_EQ(-1, listed_on(k, A));
	at(20);
	k_sleep(k, B);
	k_switch(k, 0, false, A);
	at(30);
	k->t[A].ineligible = false;
	k_sleep(k, A);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 40);
	EXPECT_TIMES(r, 30, 10, 0);
	EXPECT_EQ(0ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(0ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(anomalies)]);
}

/*
 * 6.12: A sleeps delayed on CPU0 at 10, B runs on CPU0 to the end.  C on
 * CPU1 sleeps at 15; CPU1's newidle balance pulls A (sched_migrate_task,
 * not waking: the entry follows it), the pick blocks it on CPU1 (+1 on
 * CPU1) and CPU1 switches C -> idle.  CPU1's completion irq wakes A at
 * 35 (-1 on CPU1), A runs at 36.  At 50: CPU0 busy 50, iowait 0; CPU1
 * busy 15 + 14 = 29, idle 21, iowait 20.
 */
TEST_F(sched, delayed_load_balanced_charges_destination)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	k_switch(k, 1, false, C);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	at(15);
	k_sleep(k, C);
	k_balance(k, 1, A, 1);
	EXPECT_EQ(1, listed_on(k, A));
	EXPECT_EQ(1, entry_of(k, A) ? entry_of(k, A)->task.cpu : -1);
	EXPECT_EQ(IOWPROBE_T_PENDING, entry_state(k, A));
	k_block(k, 1, A);
	k_switch(k, 1, false, IDLE);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_MIRROR(k, 1, 1);
	at(35);
	k_wake(k, 1, A, 1, false);
	EXPECT_MIRROR(k, 1, 0);
	at(36);
	k_switch(k, 1, false, A);
	r = peek(0, 50);
	EXPECT_EQ(50ULL, r.a.busy_ns);
	EXPECT_EQ(0ULL, r.a.iowait_ns);
	EXPECT_EQ(0ULL, r.c[C_(sleeps)]);
	r = peek(1, 50);
	EXPECT_TIMES(r, 29, 21, 20);
	EXPECT_EQ(1ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(anomalies)]);
}

/*
 * 6.12 race 5: A sleeps delayed on CPU0 at 10, B runs.  At 20, inside
 * CPU0's __schedule() (C preempts B), the pick blocks A (+1 on CPU0,
 * on_rq 0 visible), and before CPU0's sched_switch, D on CPU1 wakes A
 * and moves it (-1 on CPU0; sched_migrate_task while waking drops the
 * pending entry).  CPU0's switch finds nothing to reconcile.  Net zero on
 * both CPUs; CPU0 was busy throughout.
 */
TEST_F(sched, pick_block_then_migrating_wakeup_nets_zero)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	k_switch(k, 1, false, D);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	at(20);
	k_block(k, 0, A);
	EXPECT_EQ(1, k->nr_iowait[0]);
	k_wake(k, 1, A, 1, false);
	EXPECT_EQ(0, followed());
	EXPECT_EQ(-1, listed_on(k, A));
	k_switch(k, 0, true, C);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_MIRROR(k, 1, 0);
	at(21);
	k_sleep(k, D);
	k_switch(k, 1, false, A);
	r = peek(0, 30);
	EXPECT_EQ(30ULL, r.a.busy_ns);
	EXPECT_EQ(0ULL, r.a.iowait_ns);
	EXPECT_EQ(0ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(0ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(anomalies)]);
	EXPECT_EQ(0, status_num("late_block"));
}

/*
 * 6.12 race 4, the exception: A, delayed on CPU0, is in a throttled
 * cfs_rq, so CPU0 idles at 20 with A still queued.  At 30
 * wait_task_inactive() elsewhere blocks it (+1 on CPU0, no tracepoint)
 * while CPU0 idles; the module sees it only at CPU0's next switch (40),
 * counts it there and reports it as a late block.  The kernel's rule
 * gives iowait 30..40 that the module misses: the documented bound.
 * A is woken on CPU0 at 50.  At 60: busy 20 + 20 = 40, idle 20, iowait 0.
 */
TEST_F(sched, delayed_blocked_while_idle_is_late)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	at(20);
	k_sleep(k, B);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, listed_on(k, A));
	at(30);
	k_block_by(k, 1, 0, A);
	EXPECT_EQ(1, k->nr_iowait[0]);
	EXPECT_EQ(0, mirror(0));
	at(40);
	k_switch(k, 0, false, C);
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_EQ(1, status_num("late_block"));
	at(50);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 60);
	EXPECT_TIMES(r, 40, 20, 0);
}

/*
 * A and B fell asleep in iowait on CPU0 before the probes existed, and
 * the module was loaded without its seed: the kernel counts 2, the
 * module 0.  A wakes on CPU0 at 10; B is taken to CPU1 at 20.  Both
 * kernel decrements are ignored: no mirror goes negative, no anomaly.
 * At 30: CPU0 idle 30, iowait 0.
 */
TEST_F(sched, unknown_task_wakeup_ignored)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	k_preload(k, A, 0, false);
	k_preload(k, B, 0, false);
	EXPECT_EQ(2, k->nr_iowait[0]);
	at(10);
	k_wake(k, 0, A, 0, false);
	at(20);
	k_wake(k, 1, B, 1, false);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_MIRROR(k, 1, 0);
	EXPECT_EQ(0, followed());
	r = peek(0, 30);
	EXPECT_EQ(30ULL, r.a.idle_ns);
	EXPECT_EQ(0ULL, r.a.iowait_ns);
	EXPECT_EQ(0ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0ULL, r.c[C_(anomalies)]);
	EXPECT_EQ(0ULL, cnt(1, C_(anomalies)));
}

/*
 * Before the seed: A asleep in iowait on CPU0 (counted), B delayed on
 * CPU1 (6.12, uncounted), C asleep plainly, D running on CPU1 with
 * in_iowait set, E a preempted iowait sleeper on CPU0 (queued, not
 * delayed).  Seeding follows A as counted and B as pending, nothing
 * else.  At 10 CPU2 wakes A and takes it (-1 on CPU0, remote, idle).  At
 * 20 D sleeps, the pick blocks B on CPU1 (+1), counted at the switch; B
 * wakes on CPU1 at 30 (-1).  At 40: CPU0 idle 40, iowait 10; CPU1 busy
 * 20, idle 20, iowait 10.
 */
TEST_F(sched, seed_follows_sleepers_from_before_load)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	k_switch(k, 1, false, D);
	k->t[D].ts.in_iowait = 1;
	k_preload(k, A, 0, false);
	k_preload(k, B, 1, true);
	k->t[C].ts.__state = TASK_INTERRUPTIBLE;
	k->t[C].ts.on_rq = 0;
	k_io_wait(k, E);
	iowprobe_seed();
	quiet();
	EXPECT_EQ(2, status_num("seeded"));
	EXPECT_EQ(0, status_num("seed_raced"));
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_MIRROR(k, 1, 0);
	EXPECT_EQ(IOWPROBE_T_COUNTED, entry_state(k, A));
	EXPECT_EQ(IOWPROBE_T_PENDING, entry_state(k, B));
	EXPECT_EQ(1, listed_on(k, B));
	EXPECT_EQ(2, followed());
	at(10);
	k_wake(k, 2, A, 2, false);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(1ULL, cnt(0, C_(remote_dec_idle)));
	at(20);
	k_sleep(k, D);
	k_block(k, 1, B);
	k_switch(k, 1, false, IDLE);
	EXPECT_MIRROR(k, 1, 1);
	at(30);
	k_wake(k, 1, B, 1, false);
	EXPECT_MIRROR(k, 1, 0);
	EXPECT_EQ(0, followed());
	r = peek(0, 40);
	EXPECT_EQ(40ULL, r.a.idle_ns);
	EXPECT_EQ(10ULL, r.a.iowait_ns);
	r = peek(1, 40);
	EXPECT_TIMES(r, 20, 20, 10);
}

/* wake_a_in_place() - another CPU's wakeup of A where it slept */
static void wake_a_in_place(void *arg)
{
	struct kernel *k = arg;
	int cpu = k->t[A].ts.cpu;

	in_hook++;
	k_wake(k, cpu, A, cpu, false);
	in_hook--;
}

/*
 * A wakes between the scan and the entry's publication (before seed_one()
 * takes an entry from the pool): the wakeup sees no entry, seeding counts
 * (+1), the recheck sees A awake and takes the entry back (-1): a seed
 * race, mirror 0 like the kernel's count.
 */
TEST_F(sched, seed_races_wakeup_before_publish)
{
	struct kernel *k = &self->k;

	k_preload(k, A, 0, false);
	shim_hook = wake_a_in_place;
	shim_hook_arg = k;
	shim_hook_lock = &iowprobe_tasks.pool.lock;
	iowprobe_seed();
	quiet();
	EXPECT_TRUE(shim_hook == NULL);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, status_num("seeded"));
	EXPECT_EQ(1, status_num("seed_raced"));
	EXPECT_EQ(0ULL, cnt(0, C_(wakeups)));
	EXPECT_EQ(0, followed());
}

/*
 * A wakes after the entry is published and counted (seed_one()'s
 * smp_mb()): the wakeup finds it and decrements; the recheck finds A
 * awake and no entry left: neither seeded nor raced, mirror 0 like the
 * kernel's count.
 */
TEST_F(sched, seed_races_wakeup_after_publish)
{
	struct kernel *k = &self->k;

	k_preload(k, A, 0, false);
	shim_hook = wake_a_in_place;
	shim_hook_arg = k;
	shim_hook_at_mb = true;
	iowprobe_seed();
	quiet();
	EXPECT_TRUE(shim_hook == NULL);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, status_num("seeded"));
	EXPECT_EQ(0, status_num("seed_raced"));
	EXPECT_EQ(1ULL, cnt(0, C_(wakeups)));
	EXPECT_EQ(0, followed());
}

/*
 * 6.12: A is a delayed sleeper at load (parked, not counted).  Its wakeup
 * comes while seed_one() is about to take CPU0's lock to park it.  The
 * entry must not be published yet: a wakeup that found it would return
 * it to the pool, and the parking that follows would put a free entry on
 * CPU0's pending list (7.3 in CI: "list_add double add" at the next
 * load).  Here the wakeup finds nothing, the entry is parked and
 * published, the recheck sees A awake and takes it back: a seed race,
 * nothing parked, nothing followed.
 */
TEST_F(sched, seed_parks_before_it_publishes)
{
	struct kernel *k = &self->k;

	NEEDS_DELAYED_DEQUEUE();
	k_preload(k, A, 0, true);
	shim_hook = wake_a_in_place;
	shim_hook_arg = k;
	shim_hook_lock = &per_cpu_ptr(iowprobe_cpus, 0)->lock;
	iowprobe_seed();
	quiet();
	EXPECT_TRUE(shim_hook == NULL);
	EXPECT_EQ(1, status_num("seed_raced"));
	EXPECT_EQ(0, status_num("seeded"));
	EXPECT_EQ(0ULL, cnt(0, C_(anomalies)));
	EXPECT_TRUE(list_empty(&per_cpu_ptr(iowprobe_cpus, 0)->pending));
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, followed());
}

/*
 * A sleeps in iowait on CPU0 at 10; its wakeup at 20 is missed (the
 * kernel decrements, the module sees nothing) and A exits; its
 * sched_process_free at 25 ends the entry as an anomaly and undoes the
 * count.  CPU0 idles from 10: iowait 10..25 = 15 (the miss is the
 * error), idle 30 at 40, busy 10.
 */
TEST_F(sched, free_of_followed_task_is_anomaly)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	at(20);
	k->probes_off = true;
	k_wake(k, 1, A, 1, false);
	k->probes_off = false;
	EXPECT_EQ(0, k->nr_iowait[0]);
	EXPECT_EQ(1, mirror(0));
	EXPECT_EQ(1, followed());
	at(25);
	tp_free(1, &k->t[A].ts);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, followed());
	r = peek(0, 40);
	EXPECT_TIMES(r, 10, 30, 15);
	EXPECT_EQ(1ULL, r.c[C_(anomalies)]);
	EXPECT_EQ(0ULL, r.c[C_(wakeups)]);
	/* a task never followed: nothing at all */
	tp_free(1, &k->t[B].ts);
	EXPECT_EQ(1ULL, cnt(0, C_(anomalies)));
}

/*
 * A sleeps in iowait on CPU0 at 10 (+1); its wakeup at 20 is missed and
 * A runs on CPU0 from 20.  It sleeps in iowait again at 30: the new
 * entry finds the old one, an anomaly, which is undone (-1) before the
 * new count (+1): mirror 1, as the kernel's.  Woken on CPU0 at 40, A
 * runs from 45.  At 50: busy 10 + 10 + 5 = 25, idle 25, iowait 10 + 10
 * = 20 (A ran at once after the missed wakeup, so the miss cost none).
 */
TEST_F(sched, missed_wakeup_found_at_next_sleep)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	at(20);
	k->probes_off = true;
	k_wake(k, 0, A, 0, false);
	k->probes_off = false;
	k_switch(k, 0, false, A);
	EXPECT_EQ(1, mirror(0));
	EXPECT_EQ(0, k->nr_iowait[0]);
	at(30);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_EQ(1, followed());
	at(40);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	at(45);
	k_switch(k, 0, false, A);
	r = peek(0, 50);
	EXPECT_TIMES(r, 25, 25, 20);
	EXPECT_EQ(2ULL, r.c[C_(sleeps)]);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(1ULL, r.c[C_(anomalies)]);
	EXPECT_EQ(0, followed());
	/* the old entry left the hash too */
	EXPECT_TRUE(entry_of(k, A) == NULL);
}

/*
 * A counted sleeper moved by something other than a wakeup cannot happen
 * (only 6.12's delayed tasks are moved asleep): an anomaly on its sleep
 * CPU, and the entry stays, so the real wakeup at 30 still decrements.
 * At 40: CPU0 busy 10, idle 30, iowait 20.
 */
TEST_F(sched, counted_task_moved_asleep_is_anomaly)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	at(20);
	tp_migrate(k, 1, &k->t[A].ts, 1);
	EXPECT_EQ(1ULL, cnt(0, C_(anomalies)));
	EXPECT_EQ(IOWPROBE_T_COUNTED, entry_state(k, A));
	EXPECT_MIRROR(k, 0, 1);
	at(30);
	k_wake(k, 1, A, 1, false);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 40);
	EXPECT_TIMES(r, 10, 30, 20);
	EXPECT_EQ(1ULL, r.c[C_(wakeups)]);
	EXPECT_EQ(0, followed());
}

/*
 * CPU2: A runs 0..5 and sleeps in iowait (+1).  At 10 the hotplug thread
 * runs, and at 12 takes CPU2 down; the dying CPU idles from 13.  At 20
 * CPU0 wakes A and takes it: CPU2's mirror drops to 0 although CPU2 is
 * offline, as the kernel's counter does, and no remote decrement on an
 * idle CPU is counted: an offline CPU books no idle time to misbook.  At 30 CPU2 boots into its
 * hotplug thread, online at 31, idle from 33.  Read at 25: offline,
 * busy 5 + 2, idle 5, iowait 5.  At 40: busy 5 + 2 + 2 = 9, idle
 * 5 + 7 = 12, iowait 5: 12..31 booked nowhere.
 */
TEST_F(sched, offline_cpu_books_nothing)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	at(0);
	k_switch(k, 2, false, A);
	at(5);
	k_io_wait(k, A);
	k_switch(k, 2, false, IDLE);
	EXPECT_MIRROR(k, 2, 1);
	at(10);
	k->hp[2].ts.__state = TASK_RUNNING;
	k_switch(k, 2, false, HP);
	at(12);
	EXPECT_EQ(0, shim_cpu_down(2));
	quiet();
	at(13);
	k->hp[2].ts.__state = TASK_INTERRUPTIBLE;
	k_switch(k, 2, false, IDLE);
	at(20);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 2, 0);
	EXPECT_EQ(1ULL, cnt(2, C_(wakeups)));
	/* no idle time was misbooked: an offline CPU books none */
	EXPECT_EQ(0ULL, cnt(2, C_(remote_dec_idle)));
	r = peek(2, 25);
	EXPECT_EQ(0, r.a.online);
	EXPECT_TIMES(r, 7, 5, 5);
	at(30);
	k->hp[2].ts.__state = TASK_RUNNING;
	k_switch(k, 2, false, HP);
	at(31);
	EXPECT_EQ(0, shim_cpu_up(2));
	quiet();
	at(33);
	k->hp[2].ts.__state = TASK_INTERRUPTIBLE;
	k_switch(k, 2, false, IDLE);
	r = peek(2, 40);
	EXPECT_EQ(1, r.a.online);
	EXPECT_TIMES(r, 9, 12, 5);
	EXPECT_EQ(0, r.a.mirror);
	/* the other CPUs never noticed */
	r = peek(1, 40);
	EXPECT_TIMES(r, 0, 40, 0);
}

/*
 * 6.12, CPU0: A sleeps delayed at 10, B runs.  At 20 CPU1 blocks A (a
 * dequeue done elsewhere: no count on CPU0) and B sleeps plainly, its own
 * dequeue; the switch to C walks nothing, as no pick of CPU0 blocked a
 * sleeper: the mirror is 0 against the kernel's 1, while CPU0 is busy.
 * At 30 C sleeps and CPU0 idles: that switch walks every parked sleeper
 * and counts A.  At 40 A wakes.  At 50: busy 30, idle 20, iowait 10, as
 * the kernel's rule gives: the count came late only while CPU0 was busy.
 */
TEST_F(sched, delayed_found_at_idle_when_no_pick_blocked_it)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	at(20);
	k_block_by(k, 1, 0, A);
	k_sleep(k, B);
	k_switch(k, 0, false, C);
	EXPECT_EQ(1, k->nr_iowait[0]);
	EXPECT_EQ(0, mirror(0));
	EXPECT_EQ(0, listed_on(k, A));
	at(30);
	k_sleep(k, C);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_EQ(-1, listed_on(k, A));
	at(40);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 50);
	EXPECT_TIMES(r, 30, 20, 10);
	EXPECT_EQ(1, status_num("delayed_blocked"));
	EXPECT_EQ(0, status_num("late_block"));
}

/*
 * 6.12, CPU0: A, then D, sleep delayed (at 10 and 20) while B, then C,
 * run.  At 30 CPU1 blocks A; at 40 a pick of CPU0 blocks D and C is
 * preempted by B.  That switch looks for one blocked sleeper, oldest
 * first, and finds A: D stays parked, and is counted when CPU0 idles at
 * 50 (nothing was lost: CPU0 was busy).  Both wake at 60.  At 70: busy
 * 50, idle 20, iowait 10.
 */
TEST_F(sched, delayed_walk_stops_at_the_blocks_counted)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_sleep_delayed(k, 0, A, D);
	at(20);
	k_sleep_delayed(k, 0, D, C);
	at(30);
	k_block_by(k, 1, 0, A);
	at(40);
	k_block(k, 0, D);
	k_switch(k, 0, true, B);
	EXPECT_EQ(2, k->nr_iowait[0]);
	EXPECT_EQ(1, mirror(0));
	EXPECT_EQ(-1, listed_on(k, A));
	EXPECT_EQ(0, listed_on(k, D));
	at(50);
	k_sleep(k, B);
	k_switch(k, 0, false, IDLE);
	EXPECT_MIRROR(k, 0, 2);
	at(60);
	k_wake(k, 0, A, 0, false);
	k_wake(k, 0, D, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 70);
	EXPECT_TIMES(r, 50, 20, 10);
	EXPECT_EQ(2, status_num("delayed_blocked"));
}

/*
 * 6.12, CPU0: A sleeps delayed at 10, B runs.  At 20 C preempts B and
 * the pick blocks A on the way (+1): a busy-to-busy switch, which must
 * still reconcile, so the mirror is 1 before CPU0 idles at 30.  A is
 * woken on CPU0 at 40.  At 50: busy 30, idle 20, iowait 10.
 */
TEST_F(sched, delayed_counted_at_busy_switch)
{
	struct kernel *k = &self->k;
	struct cpu_read r;

	NEEDS_DELAYED_DEQUEUE();
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_sleep_delayed(k, 0, A, B);
	at(20);
	k_block(k, 0, A);
	k_switch(k, 0, true, C);
	EXPECT_MIRROR(k, 0, 1);
	EXPECT_EQ(-1, listed_on(k, A));
	at(30);
	k_sleep(k, C);
	k_switch(k, 0, false, IDLE);
	at(40);
	k_wake(k, 0, A, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	r = peek(0, 50);
	EXPECT_TIMES(r, 30, 20, 10);
	EXPECT_EQ(0, status_num("late_block"));
}

/*
 * F is in the middle of its own switch-out on CPU2 when the seed walks
 * the tasks: the kernel counted it (+1 on CPU2), but it is still on the
 * CPU, so the seed leaves it to its own sched_switch, which follows next.
 * Mirror 1, one follow, seeded 0, no anomaly.
 */
TEST_F(sched, seed_skips_task_switching_out)
{
	struct kernel *k = &self->k;
	struct task_struct *f = &k->t[F].ts;

	k_switch(k, 2, false, F);
	k_io_wait(k, F);
	k_block(k, 2, F);		/* block_task(), before sched_switch */
	iowprobe_seed();
	quiet();
	EXPECT_EQ(0, status_num("seeded"));
	EXPECT_EQ(0, mirror(2));
	tp_switch(2, false, f, &k->idle[2].ts);
	EXPECT_MIRROR(k, 2, 1);
	EXPECT_EQ(1, followed());
	EXPECT_EQ(0ULL, cnt(2, C_(anomalies)));
}

/* ---- small pools ---- */

FIXTURE(small) {
	struct kernel k;
};

FIXTURE_SETUP(small)
{
	task_pool = 16;
	request_pool = 16;
	ASSERT_EQ(0, k_load(&self->k));
}

FIXTURE_TEARDOWN(small)
{
	k_unload();
}

/*
 * 17 tasks sleep in iowait on CPU0, one after the other at 1..17, with a
 * pool of 16: the 17th is not followed (counted as exhausted, figures
 * marked inexact), so the mirror reads 16 where the kernel has 17.  All
 * wake on CPU0 at 20: still inexact while one entry is out, then the
 * 17th's wakeup finds nothing, so the mirror ends at 0, never below, and
 * the figures are exact again.
 */
TEST_F(small, task_pool_exhausted)
{
	struct kernel *k = &self->k;
	int p;

	for (p = 0; p < 17; p++) {
		at(p);
		k_switch(k, 0, false, p);
		at(p + 1);
		k_io_wait(k, p);
	}
	k_switch(k, 0, false, IDLE);
	EXPECT_EQ(17, k->nr_iowait[0]);
	EXPECT_EQ(16, mirror(0));
	EXPECT_EQ(16, followed());
	EXPECT_EQ(1, status_num("task_pool_exhausted"));
	EXPECT_STREQ("no", status_str("exact_iowait"));
	at(20);
	for (p = 0; p < 15; p++)
		k_wake(k, 0, p, 0, false);
	EXPECT_EQ(1, followed());
	EXPECT_STREQ("no", status_str("exact_iowait"));
	for (; p < 17; p++)
		k_wake(k, 0, p, 0, false);
	EXPECT_MIRROR(k, 0, 0);
	EXPECT_EQ(0, followed());
	EXPECT_STREQ("yes", status_str("exact_iowait"));
	EXPECT_EQ(16ULL, cnt(0, C_(wakeups)));
}

/* ---- block requests ---- */

struct disk {
	struct gendisk gd;
	struct request_queue q;
};

static void disk_init(struct disk *d, const char *name, int major, int minor)
{
	memset(d, 0, sizeof(*d));
	strcpy(d->gd.disk_name, name);
	d->gd.major = major;
	d->gd.first_minor = minor;
	d->q.disk = &d->gd;
}

static void rq_init(struct request *rq, struct disk *d, int cpu,
		    enum req_op op, unsigned int bytes)
{
	memset(rq, 0, sizeof(*rq));
	rq->q = &d->q;
	rq->cpu = cpu;
	rq->cmd_flags = op;
	rq->__data_len = bytes;
}

/* the block probes, each on the CPU its tracepoint fires on */
static void tp_issue(int cpu, struct request *rq)
{
	shim_cpu = cpu;
	iowprobe_probe_rq_issue(NULL, rq);
	quiet();
}

static void tp_complete(int cpu, struct request *rq, unsigned int nr_bytes)
{
	shim_cpu = cpu;
	iowprobe_probe_rq_complete(NULL, rq, 0, nr_bytes);
	quiet();
}

static void tp_requeue(int cpu, struct request *rq)
{
	shim_cpu = cpu;
	iowprobe_probe_rq_requeue(NULL, rq);
	quiet();
}

/* show() - a devices or latency file */
static const char *show(void (*fn)(struct seq_file *m))
{
	static char buf[4096];
	struct seq_file m = { .buf = buf, .size = sizeof(buf) };

	shim_cpu = 0;
	fn(&m);
	quiet();
	return buf;
}

#define DEVICES_HEAD	IOWPROBE_ABI_LINE "\n" IOWPROBE_DEVICES_HEADER "\n"
#define LATENCY_HEAD	IOWPROBE_ABI_LINE "\n" IOWPROBE_LATENCY_HEADER "\n"

/*
 * A read of 4096 bytes submitted from CPU1 is issued at 10 and completed
 * at 30 by an irq on CPU0; every CPU idles.  At 40: CPU1 blk_local 20,
 * blk_any 20; CPU0 and CPU2 blk_local 0, blk_any 20; no iowait anywhere.
 * The disk: 1 request, 4096 bytes read, busy 20, its latency of 20 ns in
 * the slot 16..31.
 */
TEST_F(sched, request_in_flight_while_idle)
{
	struct request rq;
	struct cpu_read r;
	struct disk d;

	disk_init(&d, "vda", 253, 0);
	rq_init(&rq, &d, 1, REQ_OP_READ, 4096);
	at(10);
	tp_issue(1, &rq);
	EXPECT_EQ(1, now_of(1).a.lfl);
	EXPECT_EQ(1, status_num("requests_in_flight"));
	at(30);
	tp_complete(0, &rq, 4096);
	r = peek(1, 40);
	EXPECT_EQ(0, r.a.lfl);
	EXPECT_EQ(20ULL, r.a.blk_local_ns);
	EXPECT_EQ(20ULL, r.a.blk_any_ns);
	EXPECT_EQ(40ULL, r.a.idle_ns);
	EXPECT_EQ(0ULL, r.a.iowait_ns);
	EXPECT_EQ(1ULL, r.c[C_(rq_issued)]);
	EXPECT_EQ(1ULL, r.c[C_(rq_completed)]);
	EXPECT_EQ(4096ULL, r.c[C_(read_bytes)]);
	EXPECT_EQ(0ULL, r.c[C_(write_bytes)]);
	r = peek(0, 40);
	EXPECT_EQ(0ULL, r.a.blk_local_ns);
	EXPECT_EQ(20ULL, r.a.blk_any_ns);
	EXPECT_EQ(0ULL, r.c[C_(rq_completed)]);
	EXPECT_EQ(20ULL, peek(2, 40).a.blk_any_ns);
	EXPECT_EQ(0, status_num("requests_in_flight"));
	EXPECT_EQ(1, status_num("devices"));
	EXPECT_EQ(0, status_num("request_anomalies"));
	EXPECT_STREQ(DEVICES_HEAD "vda 253:0 1 4096 0 0 20\n",
		     show(iowprobe_devs_show));
	EXPECT_STREQ(LATENCY_HEAD "vda 253:0 16 31 1\n",
		     show(iowprobe_devs_latency_show));
	EXPECT_EQ(1ULL, iowprobe_acct_events(IOWPROBE_EV_block_rq_issue));
	EXPECT_EQ(1ULL, iowprobe_acct_events(IOWPROBE_EV_block_rq_complete));
}

/*
 * CPU0 runs A 0..20 and idles after.  A write of 8192 bytes from CPU0 is
 * issued at 10: busy, so no blk time yet.  A partial completion of 4096
 * at 25 leaves it in flight (the kernel then shrinks the request to the
 * 4096 left); the last 4096 complete at 35.  At 40: busy 20, idle 20,
 * blk_local and blk_any 20..35 = 15; 8192 bytes written, one request.
 */
TEST_F(sched, partial_completion_stays_in_flight)
{
	struct kernel *k = &self->k;
	struct request rq;
	struct cpu_read r;
	struct disk d;

	disk_init(&d, "vdb", 253, 16);
	rq_init(&rq, &d, 0, REQ_OP_WRITE, 8192);
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	tp_issue(0, &rq);
	at(20);
	k_sleep(k, A);
	k_switch(k, 0, false, IDLE);
	at(25);
	tp_complete(0, &rq, 4096);
	rq.__data_len = 4096;
	EXPECT_EQ(1, now_of(0).a.lfl);
	EXPECT_EQ(0ULL, cnt(0, C_(rq_completed)));
	at(35);
	tp_complete(0, &rq, 4096);
	r = peek(0, 40);
	EXPECT_EQ(20ULL, r.a.busy_ns);
	EXPECT_EQ(20ULL, r.a.idle_ns);
	EXPECT_EQ(15ULL, r.a.blk_local_ns);
	EXPECT_EQ(15ULL, r.a.blk_any_ns);
	EXPECT_EQ(8192ULL, r.c[C_(write_bytes)]);
	EXPECT_EQ(1ULL, r.c[C_(rq_completed)]);
	EXPECT_STREQ(DEVICES_HEAD "vdb 253:16 1 0 8192 0 25\n",
		     show(iowprobe_devs_show));
}

/*
 * A read from CPU2 issued at 10 is requeued at 20 (out of flight, not
 * completed), issued again at 30 and completed at 40.  At 50: blk_local
 * 10 + 10 = 20, two issues, one completion, the disk's one request with
 * its 10 ns latency (slot 8..15), no anomaly.
 */
TEST_F(sched, requeue_ends_flight_without_completion)
{
	struct request rq;
	struct cpu_read r;
	struct disk d;

	disk_init(&d, "sda", 8, 0);
	rq_init(&rq, &d, 2, REQ_OP_READ, 512);
	at(10);
	tp_issue(2, &rq);
	at(20);
	tp_requeue(2, &rq);
	EXPECT_EQ(0, now_of(2).a.lfl);
	EXPECT_EQ(0, status_num("requests_in_flight"));
	at(30);
	tp_issue(2, &rq);
	at(40);
	tp_complete(2, &rq, 512);
	r = peek(2, 50);
	EXPECT_EQ(20ULL, r.a.blk_local_ns);
	EXPECT_EQ(20ULL, r.a.blk_any_ns);
	EXPECT_EQ(2ULL, r.c[C_(rq_issued)]);
	EXPECT_EQ(1ULL, r.c[C_(rq_completed)]);
	EXPECT_EQ(0, status_num("request_anomalies"));
	EXPECT_STREQ(LATENCY_HEAD "sda 8:0 8 15 1\n",
		     show(iowprobe_devs_latency_show));
	EXPECT_EQ(1ULL, iowprobe_acct_events(IOWPROBE_EV_block_rq_requeue));
}

/*
 * A completion with no issue seen (issued before load) is ignored.  A
 * request issued at 10 and again at 20 without a completion between is
 * an anomaly: the old record ends, the new one runs, so one request is
 * in flight until the completion at 30.  At 40: blk_local 20, two
 * issues, one completion.
 */
TEST_F(sched, unknown_completion_and_double_issue)
{
	struct request rq, old;
	struct cpu_read r;
	struct disk d;

	disk_init(&d, "vda", 253, 0);
	rq_init(&old, &d, 0, REQ_OP_READ, 4096);
	rq_init(&rq, &d, 0, REQ_OP_READ, 4096);
	at(5);
	tp_complete(0, &old, 4096);
	EXPECT_EQ(0, now_of(0).a.lfl);
	EXPECT_EQ(0ULL, cnt(0, C_(rq_completed)));
	EXPECT_EQ(0, status_num("devices"));
	at(10);
	tp_issue(0, &rq);
	at(20);
	tp_issue(0, &rq);
	EXPECT_EQ(1, status_num("request_anomalies"));
	EXPECT_EQ(1, now_of(0).a.lfl);
	EXPECT_EQ(1, status_num("requests_in_flight"));
	at(30);
	tp_complete(0, &rq, 4096);
	r = peek(0, 40);
	EXPECT_EQ(0, r.a.lfl);
	EXPECT_EQ(20ULL, r.a.blk_local_ns);
	EXPECT_EQ(2ULL, r.c[C_(rq_issued)]);
	EXPECT_EQ(1ULL, r.c[C_(rq_completed)]);
	EXPECT_EQ(0, status_num("requests_in_flight"));
}

/*
 * Two disks: a read of 512 on vda issued at 10, a write of 1024 on vdb
 * at 12, then another write of 1024 on vdb (known by now) at 14, all
 * from CPU0, all completed at 20.  Each disk counts its own: vda 1
 * request, 512 read, busy 10; vdb 2 requests, 2048 written, busy 8.
 */
TEST_F(sched, disks_counted_apart)
{
	struct request r1, r2, r3;
	struct disk a, b;

	disk_init(&a, "vda", 253, 0);
	disk_init(&b, "vdb", 253, 16);
	rq_init(&r1, &a, 0, REQ_OP_READ, 512);
	rq_init(&r2, &b, 0, REQ_OP_WRITE, 1024);
	rq_init(&r3, &b, 0, REQ_OP_WRITE, 1024);
	at(10);
	tp_issue(0, &r1);
	at(12);
	tp_issue(0, &r2);
	at(14);
	tp_issue(0, &r3);
	at(20);
	tp_complete(0, &r1, 512);
	tp_complete(0, &r2, 1024);
	tp_complete(0, &r3, 1024);
	EXPECT_EQ(2, status_num("devices"));
	EXPECT_STREQ(DEVICES_HEAD "vda 253:0 1 512 0 0 10\n"
		     "vdb 253:16 2 0 2048 0 8\n",
		     show(iowprobe_devs_show));
	EXPECT_EQ(10ULL, peek(0, 30).a.blk_any_ns);
}

#define SEC	1000000000ULL

/* reap() - one pass of the reaper (main.c's, not linked here): its parts */
static void reap(void)
{
	iowprobe_blk_reap();
	iowprobe_owners_reap();
}

/*
 * A request from CPU1 issued at 10 never completes.  The reaper at 100 s
 * leaves it (not 120 s old yet); the one at 10 + 120 s + 1 ends it as
 * stale.  blk_local then stops: 120 s + 1 ns of it, and nothing more by
 * 200 s.
 */
TEST_F(sched, reaper_ends_lost_requests)
{
	struct request rq;
	struct disk d;

	disk_init(&d, "vda", 253, 0);
	rq_init(&rq, &d, 1, REQ_OP_READ, 4096);
	at(10);
	tp_issue(1, &rq);
	at(100 * SEC);
	reap();
	quiet();
	EXPECT_EQ(0, status_num("request_stale"));
	EXPECT_EQ(1, now_of(1).a.lfl);
	at(10 + 120 * SEC + 1);
	reap();
	quiet();
	EXPECT_EQ(1, status_num("request_stale"));
	EXPECT_EQ(0, status_num("requests_in_flight"));
	EXPECT_EQ(0, now_of(1).a.lfl);
	EXPECT_EQ(120 * SEC + 1, peek(1, 200 * SEC).a.blk_local_ns);
	EXPECT_EQ(0ULL, cnt(1, C_(rq_completed)));
	/* its late completion finds nothing */
	tp_complete(0, &rq, 4096);
	EXPECT_EQ(0ULL, cnt(1, C_(rq_completed)));
	EXPECT_EQ(0, now_of(1).a.lfl);
}

/*
 * Requests pool 16, 4 CPUs (too small for the CPUs to keep entries of
 * their own: pool_caches below has them).  17 requests from CPU0 in
 * flight at 10: the 17th is refused (exhausted, inexact).  All 17
 * complete at 20; still inexact while one followed request is left, and
 * once nothing followed is in flight the figures are exact again and the
 * pool reads 0/16 used.
 */
TEST_F(small, request_pool_exhausted)
{
	struct request rq[17];
	struct disk d;
	int i;

	disk_init(&d, "vda", 253, 0);
	at(10);
	for (i = 0; i < 17; i++) {
		rq_init(&rq[i], &d, 0, REQ_OP_READ, 4096);
		tp_issue(0, &rq[i]);
	}
	EXPECT_EQ(16, status_num("requests_in_flight"));
	EXPECT_EQ(16, status_num("request_pool"));
	EXPECT_EQ(1, status_num("request_pool_exhausted"));
	EXPECT_STREQ("no", status_str("exact_blk"));
	EXPECT_EQ(16, now_of(0).a.lfl);
	at(20);
	for (i = 0; i < 15; i++)
		tp_complete(0, &rq[i], 4096);
	EXPECT_EQ(1, status_num("requests_in_flight"));
	EXPECT_STREQ("no", status_str("exact_blk"));
	for (; i < 17; i++)
		tp_complete(0, &rq[i], 4096);
	EXPECT_EQ(0, status_num("requests_in_flight"));
	EXPECT_EQ(0, status_num("request_pool"));
	EXPECT_STREQ("yes", status_str("exact_blk"));
	EXPECT_EQ(16ULL, cnt(0, C_(rq_completed)));
	EXPECT_EQ(10ULL, peek(0, 30).a.blk_local_ns);
}

/* ---- who waits: the procs and cgroups files ---- */

static void procs_show(struct seq_file *m)
{
	iowprobe_owners_show(m, IOWPROBE_PROCS, iowprobe_acct_asleep);
}

/*
 * owner_fig() - column @col of process @pid's line of the procs file read
 * at @now, or -1 when it has no line
 */
static long long owner_fig(int pid, const char *col, u64 now)
{
	char head[256], *line, *tok, *save;
	const char *text;
	int i, want = -1;

	at(now);
	text = show(procs_show);
	line = strchr(text, '\n') + 1;		/* past the ABI line */
	snprintf(head, sizeof(head), "%.*s", (int)strcspn(line, "\n"), line);
	for (i = 0, tok = strtok_r(head, " ", &save); tok;
	     i++, tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, col))
			want = i;
	if (want < 0)
		shim_bug("procs has no column %s", col);
	for (line = strchr(line, '\n') + 1; *line;
	     line = strchr(line, '\n') + 1) {
		char copy[256];

		snprintf(copy, sizeof(copy), "%.*s", (int)strcspn(line, "\n"),
			 line);
		if (atoi(copy) != pid)
			continue;
		for (i = 0, tok = strtok_r(copy, " ", &save); tok && i < want;
		     i++, tok = strtok_r(NULL, " ", &save))
			;
		return tok ? strtoll(tok, NULL, 10) : -1;
	}
	return -1;
}

#define PID_OF(p)	(100 + (p))	/* k_load()'s tgids */

/*
 * CPU0: A issues a read at 5 and sleeps in iowait at 10 (B runs), B sleeps
 * in iowait at 20 (idle); the read completes at 25; CPU1 wakes A at 30 and
 * B at 35.  CPU0's iowait is 20..35, 15: 20..30 is shared by both (5
 * each), 30..35 is B's alone.  A waited 20, 15 of it with its read in
 * flight; B waited 15, with no read of its own.
 */
TEST_F(sched, owners_share_the_cpus_iowait)
{
	struct kernel *k = &self->k;
	struct request rq;
	struct disk d;

	disk_init(&d, "vda", 253, 0);
	rq_init(&rq, &d, 0, REQ_OP_READ, 4096);
	strcpy(k->t[A].ts.comm, "a\nb");	/* any task can name itself */
	at(0);
	k_switch(k, 0, false, A);
	at(5);
	tp_issue(0, &rq);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, B);
	at(20);
	k_io_wait(k, B);
	k_switch(k, 0, false, IDLE);
	/* read while both sleep: their parts so far, 20..25 halved */
	EXPECT_EQ(15, owner_fig(PID_OF(A), "wait_ns", 25));
	EXPECT_EQ(2, owner_fig(PID_OF(A), "wa_ns", 25));
	EXPECT_EQ(2, owner_fig(PID_OF(B), "wa_ns", 25));
	EXPECT_EQ(1, owner_fig(PID_OF(A), "asleep", 25));
	at(25);
	tp_complete(0, &rq, 4096);
	at(30);
	k_wake(k, 1, A, 1, false);
	at(35);
	k_wake(k, 1, B, 1, false);
	EXPECT_EQ(15ULL, peek(0, 40).a.iowait_ns);
	EXPECT_EQ(20, owner_fig(PID_OF(A), "wait_ns", 40));
	EXPECT_EQ(15, owner_fig(PID_OF(A), "wait_blk_ns", 40));
	EXPECT_EQ(5, owner_fig(PID_OF(A), "wa_ns", 40));
	EXPECT_EQ(1, owner_fig(PID_OF(A), "sleeps", 40));
	EXPECT_EQ(0, owner_fig(PID_OF(A), "asleep", 40));
	EXPECT_EQ(15, owner_fig(PID_OF(B), "wait_ns", 40));
	EXPECT_EQ(0, owner_fig(PID_OF(B), "wait_blk_ns", 40));
	EXPECT_EQ(10, owner_fig(PID_OF(B), "wa_ns", 40));
	EXPECT_EQ(-1, owner_fig(PID_OF(C), "wait_ns", 40));
	/* a newline in a name never splits a row */
	EXPECT_EQ(NULL, strstr(show(procs_show), "a\nb"));
	EXPECT_NE(NULL, strstr(show(procs_show), " a?b\n"));
}

/*
 * Where each sleeper waits, sorted at its sleep: CPU0 runs A to F in turn,
 * each sleeping in iowait 10 ns after the one before (A at 10 ... F at 60),
 * then idles; CPU1 wakes them all at 100.  A is in read (system call 0),
 * B in no system call (a fault), C a kernel thread (its registers zeros,
 * as read's number), D an io_uring worker (its registers its creator's:
 * read again), E in io_uring_enter, F in fsync.  Each one's wait (A 90
 * ... F 40) is booked in its kind alone; a read at 70 gives E's 20 so far.
 */
TEST_F(sched, owners_book_wait_by_kind)
{
	static const struct {
		const char *col;
		long nr;
		unsigned int flags;
	} sleeper[] = {
		[A] = { "wait_rw_ns", 0, 0 },
		[B] = { "wait_fault_ns", -1, 0 },
		[C] = { "wait_other_ns", 0, PF_KTHREAD },
		[D] = { "wait_uring_ns", 0, PF_IO_WORKER },
		[E] = { "wait_uring_ns", 426, 0 },
		[F] = { "wait_sync_ns", 74, 0 },
	};
	static const char *const cols[] = {
		"wait_uring_ns", "wait_rw_ns", "wait_sync_ns", "wait_fault_ns",
		"wait_other_ns",
	};
	struct kernel *k = &self->k;
	unsigned int c;
	int p;

	at(0);
	k_switch(k, 0, false, A);
	for (p = A; p <= F; p++) {
		k->t[p].ts.shim_regs.orig_ax = sleeper[p].nr;
		k->t[p].ts.flags |= sleeper[p].flags;
		at(10 * (p + 1));
		k_io_wait(k, p);
		k_switch(k, 0, false, p < F ? p + 1 : IDLE);
	}
	EXPECT_EQ(20, owner_fig(PID_OF(E), "wait_uring_ns", 70));
	EXPECT_EQ(0, owner_fig(PID_OF(E), "wait_rw_ns", 70));
	at(100);
	for (p = A; p <= F; p++)
		k_wake(k, 1, p, 0, false);
	for (p = A; p <= F; p++) {
		for (c = 0; c < ARRAY_SIZE(cols); c++)
			EXPECT_EQ(strcmp(cols[c], sleeper[p].col) ? 0 :
				  90 - 10 * p,
				  owner_fig(PID_OF(p), cols[c], 110)) {
				TH_LOG("%c %s", 'A' + p, sleeper[p].col);
			}
		EXPECT_EQ(90 - 10 * p, owner_fig(PID_OF(p), "wait_ns", 110));
	}
}

/*
 * a_waits_10_to_30() - A runs on cpu0 from 0, sleeps in iowait 10..30 and
 * is woken onto cpu1: a process row with 20 ns of wait
 */
static void a_waits_10_to_30(struct kernel *k)
{
	at(0);
	k_switch(k, 0, false, A);
	at(10);
	k_io_wait(k, A);
	k_switch(k, 0, false, IDLE);
	at(30);
	k_wake(k, 1, A, 1, false);
}

/*
 * A sleeps in iowait 10..30 and exits; its leader is freed at 40.  Its
 * row stays, marked exited, through a reaper pass until it is read; the
 * pass after the read returns it to the pool.
 */
TEST_F(sched, exited_row_kept_until_read)
{
	struct kernel *k = &self->k;

	a_waits_10_to_30(k);
	at(40);
	tp_free(1, &k->t[A].ts);
	reap();				/* not read yet: kept */
	EXPECT_EQ(1, owner_fig(PID_OF(A), "exited", 50));
	EXPECT_EQ(20, owner_fig(PID_OF(A), "wait_ns", 50));
	reap();				/* read: dropped */
	EXPECT_EQ(-1, owner_fig(PID_OF(A), "wait_ns", 60));
}

/* procs_lines() - lines of the procs file for process @pid at @now */
static int procs_lines(int pid, u64 now)
{
	const char *line;
	int n = 0;

	at(now);
	for (line = strchr(show(procs_show), '\n') + 1; *line;
	     line = strchr(line, '\n') + 1)
		n += atoi(line) == pid;
	return n;
}

/*
 * A's pid is reused by a new process (another start time) while A's row
 * still stands: the lookup without the lock finds no row of the new
 * process, and the one under the lock marks A's row exited and makes a
 * new one, which the new process's sleep books.
 */
TEST_F(sched, reused_pid_gets_a_row_of_its_own)
{
	struct kernel *k = &self->k;

	a_waits_10_to_30(k);
	EXPECT_EQ(1, procs_lines(PID_OF(A), 35));
	k->t[A].ts.start_time += 1000;	/* the same pid, another process */
	at(40);
	k_switch(k, 1, false, A);
	at(50);
	k_io_wait(k, A);
	k_switch(k, 1, false, IDLE);
	at(55);
	k_wake(k, 0, A, 0, false);
	EXPECT_EQ(2, procs_lines(PID_OF(A), 60));
	EXPECT_EQ(1, owner_fig(PID_OF(A), "exited", 60));  /* the old, first */
	EXPECT_EQ(20, owner_fig(PID_OF(A), "wait_ns", 60));
}

/* ---- the pool's per-CPU caches (pool.h) ---- */

#define POOL_N		64	/* 4 CPUs: each keeps 64 / 32 = 2 at most */

/*
 * pool_take() - @n gets on @cpu, with interrupts off as in a probe; how
 * many came back non-NULL
 */
static int pool_take(struct iowprobe_pool *p, int cpu, int n, int **objs)
{
	int got = 0;

	shim_cpu = cpu;
	shim_irq_disable();
	while (n--) {
		*objs = iowprobe_pool_get(p);
		if (*objs) {
			objs++;
			got++;
		}
	}
	shim_irq_enable();
	return got;
}

static void pool_give(struct iowprobe_pool *p, int cpu, int n, int **objs)
{
	shim_cpu = cpu;
	shim_irq_disable();
	while (n--)
		iowprobe_pool_put(p, *objs++);
	shim_irq_enable();
}

/*
 * A CPU's gets and puts stay in its cache and off the shared list: a get
 * into an empty cache moves half a cache (1) plus the one it returns, a
 * put into a full cache moves half of it back with the one put.
 */
TEST(pool_caches_keep_a_cpus_objects)
{
	static int objs[POOL_N], *held[POOL_N];
	struct iowprobe_pool p;

	ASSERT_EQ(0, iowprobe_pool_init(&p, objs, sizeof(objs[0]), POOL_N));
	EXPECT_EQ(2U, p.cache_max);
	EXPECT_EQ(1, pool_take(&p, 0, 1, held));
	EXPECT_EQ(&objs[0], held[0]);	/* the first one first */
	EXPECT_EQ(1U, per_cpu_ptr(p.cache, 0)->n);
	EXPECT_EQ(62U, p.nfree);
	EXPECT_EQ(1U, iowprobe_pool_used(&p));
	pool_give(&p, 0, 1, held);
	EXPECT_EQ(2U, per_cpu_ptr(p.cache, 0)->n);
	EXPECT_EQ(62U, p.nfree);
	EXPECT_EQ(0U, iowprobe_pool_used(&p));
	/* got on CPU0, given back on CPU1: its cache fills, then spills */
	EXPECT_EQ(4, pool_take(&p, 0, 4, held));
	pool_give(&p, 1, 4, held);
	EXPECT_EQ(2U, per_cpu_ptr(p.cache, 1)->n);
	EXPECT_EQ(62U, p.nfree);
	EXPECT_EQ(0U, iowprobe_pool_used(&p));
	EXPECT_EQ(0, atomic64_read(&p.exhausted));
	iowprobe_pool_destroy(&p);
}

/*
 * Exhaustion with objects in another CPU's cache: the get fails (an
 * object kept by an idle CPU is not taken from it: at most an eighth of
 * the pool), the pool is overflowed, and from then on every put goes to
 * the shared list, caches and all, until every object is back: only then
 * is the pool exact again.
 */
TEST(pool_caches_overflow_and_settle)
{
	static int objs[POOL_N], *held[POOL_N + 1];
	struct iowprobe_pool p;

	ASSERT_EQ(0, iowprobe_pool_init(&p, objs, sizeof(objs[0]), POOL_N));
	EXPECT_EQ(POOL_N, pool_take(&p, 0, POOL_N, held));
	pool_give(&p, 1, 2, held);	/* CPU1 keeps them */
	EXPECT_EQ(2U, per_cpu_ptr(p.cache, 1)->n);
	EXPECT_EQ(0, pool_take(&p, 0, 1, &held[POOL_N]));
	EXPECT_EQ(1, atomic64_read(&p.exhausted));
	EXPECT_TRUE(p.overflowed);
	pool_give(&p, 0, POOL_N - 3, &held[2]);
	EXPECT_EQ(0U, per_cpu_ptr(p.cache, 0)->n);	/* all to the list */
	EXPECT_TRUE(p.overflowed);
	EXPECT_EQ(1U, iowprobe_pool_used(&p));
	pool_give(&p, 1, 1, &held[POOL_N - 1]);
	EXPECT_EQ(0U, per_cpu_ptr(p.cache, 1)->n);	/* spilled too */
	EXPECT_EQ((unsigned int)POOL_N, p.nfree);
	EXPECT_FALSE(p.overflowed);
	EXPECT_EQ(0U, iowprobe_pool_used(&p));
	iowprobe_pool_destroy(&p);
}

/* ---- load failures ---- */

/*
 * Every allocation of the load in turn fails: the load reports -ENOMEM
 * and frees what it had (ASan checks the frees), until one more
 * allocation than it needs is allowed.
 */
TEST(load_fails_cleanly_without_memory)
{
	int n, ret = -ENOMEM;

	for (n = 0; ret == -ENOMEM && n < 20; n++) {
		shim_alloc_fail_after = n;
		ret = iowprobe_acct_init(task_pool);
		if (!ret) {
			ret = iowprobe_blk_init(request_pool);
			if (ret)
				iowprobe_acct_exit();
		}
		if (!ret)
			break;
		EXPECT_EQ(-ENOMEM, ret);
		EXPECT_EQ(0, shim_allocs);
	}
	shim_alloc_fail_after = -1;
	EXPECT_EQ(0, ret);
	/*
	 * per-CPU, 5 for the task table (hash, locks, entries, the pool's
	 * list and caches); devices, 3 for the request pool, and each CPU's
	 * hash of requests
	 */
	EXPECT_EQ(10 + SHIM_NR_CPUS, n);
	if (!ret) {
		iowprobe_blk_exit();
		iowprobe_acct_exit();
	}
	EXPECT_EQ(0, shim_allocs);
	shim_assert_quiet();
}

TEST_HARNESS_MAIN
