// SPDX-License-Identifier: GPL-2.0-only
/*
 * floor.c - the cheapest useful probe: a per-CPU counter increment on the
 * four tracepoints every event-driven iowait tool needs (sched_switch,
 * sched_waking, block_rq_issue, block_rq_complete)
 *
 * scripts/bench loads it as the reference: what any module that hooks these
 * tracepoints pays before doing any work of its own.  It is found and
 * attached the way iowprobe attaches (kmod/probes.c), so the difference
 * between the two is iowprobe's own work.  The counts are printed at unload,
 * which tells the benchmark the probes did run.
 *
 * Built with FLOOR_CLOCK defined (clock.c, iowprobe_floor_clock.ko) it is the
 * clock floor: each probe also reads the scheduler's clock, as iowprobe reads
 * it for that event (kmod/iowprobe.h, iowprobe_clock()), and adds it to a
 * per-CPU sum: the least a probe that times every event can pay.  The sums
 * are printed too, so the compiler cannot drop the reads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/block.h>
#include <trace/events/sched.h>

/* 1: the clock floor (clock.c) */
#ifndef FLOOR_CLOCK
#define FLOOR_CLOCK	0
#endif

/* checks a probe against TP_PROTO; sizeof() never evaluates its operand */
#define TP_TYPECHECK(tp, fn)	((void)sizeof(register_trace_##tp(fn, NULL)))

enum floor_event {
	FLOOR_SCHED_SWITCH,
	FLOOR_SCHED_WAKING,
	FLOOR_BLOCK_RQ_ISSUE,
	FLOOR_BLOCK_RQ_COMPLETE,
	FLOOR_NR
};

struct floor_counts {
	u64 n[FLOOR_NR];
	u64 ns[FLOOR_NR];	/* the clock floor's sums of its reads */
};

static struct floor_counts __percpu *counts;

/*
 * floor_event() - count @ev on this CPU; the clock floor also adds what the
 * scheduler's clock of @cpu reads now, the read iowprobe makes for every
 * event (kmod/iowprobe.h, iowprobe_clock()).  @cpu is a function of the
 * event, not a number, so that the floor never computes it.
 */
#if FLOOR_CLOCK
#define floor_event(ev, cpu)	floor_add(ev, sched_clock_cpu(cpu))
#else
#define floor_event(ev, cpu)	floor_add(ev, 0)
#endif

static __always_inline void floor_add(enum floor_event ev, u64 ns)
{
	this_cpu_inc(counts->n[ev]);
	if (FLOOR_CLOCK)
		this_cpu_add(counts->ns[ev], ns);
}

/* the submitting CPU of @rq, as iowprobe's rq_cpu_nr() takes it */
static __always_inline int floor_rq_cpu(struct request *rq)
{
	unsigned int cpu = blk_mq_rq_cpu(rq);

	return cpu < nr_cpu_ids ? cpu : 0;
}

static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	floor_event(FLOOR_SCHED_SWITCH, smp_processor_id());
}

static void probe_sched_waking(void *data, struct task_struct *p)
{
	floor_event(FLOOR_SCHED_WAKING, task_cpu(p));
}

static void probe_block_rq_issue(void *data, struct request *rq)
{
	floor_event(FLOOR_BLOCK_RQ_ISSUE, floor_rq_cpu(rq));
}

static void probe_block_rq_complete(void *data, struct request *rq,
				    blk_status_t error, unsigned int nr_bytes)
{
	floor_event(FLOOR_BLOCK_RQ_COMPLETE, floor_rq_cpu(rq));
}

/* one entry per enum floor_event, in the same order */
static struct floor_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} tps[] = {
	{ .name = "sched_switch",	.probe = probe_sched_switch },
	{ .name = "sched_waking",	.probe = probe_sched_waking },
	{ .name = "block_rq_issue",	.probe = probe_block_rq_issue },
	{ .name = "block_rq_complete",	.probe = probe_block_rq_complete },
};

static void __maybe_unused floor_typecheck(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(tps) != FLOOR_NR);
	TP_TYPECHECK(sched_switch, probe_sched_switch);
	TP_TYPECHECK(sched_waking, probe_sched_waking);
	TP_TYPECHECK(block_rq_issue, probe_block_rq_issue);
	TP_TYPECHECK(block_rq_complete, probe_block_rq_complete);
}

static void match_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tps); i++)
		if (!strcmp(tp->name, tps[i].name))
			tps[i].tp = tp;
}

/* unregister_first() - detach the first @n probes, wait for running ones */
static void unregister_first(int n)
{
	while (--n >= 0)
		tracepoint_probe_unregister(tps[n].tp, tps[n].probe, NULL);
	tracepoint_synchronize_unregister();
}

static int __init floor_init(void)
{
	int i, ret;

	counts = alloc_percpu(struct floor_counts);
	if (!counts)
		return -ENOMEM;
	for_each_kernel_tracepoint(match_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		if (!tps[i].tp) {
			pr_err("tracepoint %s not found\n", tps[i].name);
			ret = -ENOENT;
			goto err_free;
		}
	}
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", tps[i].name, ret);
			goto err_unregister;
		}
	}
	return 0;

err_unregister:
	unregister_first(i);
err_free:
	free_percpu(counts);
	return ret;
}

static void __exit floor_exit(void)
{
	u64 sum[FLOOR_NR] = { 0 }, ns = 0;
	int cpu, i;

	unregister_first(ARRAY_SIZE(tps));
	for_each_possible_cpu(cpu) {
		for (i = 0; i < FLOOR_NR; i++) {
			sum[i] += per_cpu_ptr(counts, cpu)->n[i];
			ns += per_cpu_ptr(counts, cpu)->ns[i];
		}
	}
	pr_info("sched_switch %llu sched_waking %llu block_rq_issue %llu block_rq_complete %llu clock_sum %llu\n",
		sum[FLOOR_SCHED_SWITCH], sum[FLOOR_SCHED_WAKING],
		sum[FLOOR_BLOCK_RQ_ISSUE], sum[FLOOR_BLOCK_RQ_COMPLETE], ns);
	free_percpu(counts);
}

module_init(floor_init);
module_exit(floor_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("iowprobe benchmark floor: per-CPU hit counts on 4 tracepoints");
MODULE_AUTHOR("iowprobe developers");
