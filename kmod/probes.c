// SPDX-License-Identifier: GPL-2.0-only
/*
 * probes.c - the tracepoints iowprobe hooks: lookup by name, registration,
 * and thin sched probe bodies that count the hit and hand over to acct.c
 * (the switch probe is acct.c's own, the block probes blk.c's)
 *
 * None of these tracepoints is exported to modules, so they are found with
 * for_each_kernel_tracepoint() and attached with tracepoint_probe_register().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/block.h>
#include <trace/events/sched.h>

#include "iowprobe.h"

/*
 * Check a probe's signature against the tracepoint's TP_PROTO without a
 * reference to the unexported __tracepoint_* symbol: sizeof() never
 * evaluates its operand.
 */
#define TP_TYPECHECK(tp, fn)	sizeof(register_trace_##tp(fn, NULL))

static notrace void probe_sched_wakeup(void *data, struct task_struct *p)
{
	iowprobe_hit(IOWPROBE_EV_sched_wakeup);
	if (p->in_iowait)	/* still set: restored after the wakeup */
		iowprobe_on_wakeup(p);
}

static notrace void probe_sched_migrate_task(void *data,
					     struct task_struct *p,
					     int dest_cpu)
{
	iowprobe_hit(IOWPROBE_EV_sched_migrate_task);
	if (p->in_iowait)
		iowprobe_on_migrate(p, dest_cpu);
}

static notrace void probe_sched_process_free(void *data,
					     struct task_struct *p)
{
	iowprobe_hit(IOWPROBE_EV_sched_process_free);
	iowprobe_on_free(p);
}

/* one entry per tracepoint of IOWPROBE_TRACEPOINTS */
struct iowprobe_tp {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool registered;
};

/* in IOWPROBE_TRACEPOINTS' order (iowprobe.h), as enum iowprobe_event */
#define TP_ENTRY(tp, fn)	{ .name = #tp, .probe = fn },
static struct iowprobe_tp tps[] = {
	IOWPROBE_TRACEPOINTS(TP_ENTRY)
};

static_assert(ARRAY_SIZE(tps) == IOWPROBE_EV_NR);

/* each probe's signature against its tracepoint's, at build time */
#define TP_CHECK(tp, fn)	TP_TYPECHECK(tp, fn),
static const size_t tp_checks[] __maybe_unused = {
	IOWPROBE_TRACEPOINTS(TP_CHECK)
};

#ifdef IOWPROBE_TESTING
/*
 * Testing builds only (make modules-testing): one more tracepoint to
 * require after all probes are attached, to drive the -ENOENT path and its
 * unwinding.  The production module has no such parameter.
 */
static char *test_tracepoint;
module_param(test_tracepoint, charp, 0444);
MODULE_PARM_DESC(test_tracepoint,
		 "testing build: require this tracepoint after attaching");
static struct tracepoint *test_tp;

static int test_require(void)
{
	if (!test_tracepoint || test_tp)
		return 0;
	pr_err("tracepoint %s not found in this kernel\n", test_tracepoint);
	return -ENOENT;
}
#else
static const char *const test_tracepoint;
static struct tracepoint *test_tp;

static int test_require(void)
{
	return 0;
}
#endif

static void match_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tps); i++)
		if (!strcmp(tp->name, tps[i].name))
			tps[i].tp = tp;
	if (test_tracepoint && !strcmp(tp->name, test_tracepoint))
		test_tp = tp;
}

static void unregister_from(int i)
{
	while (--i >= 0) {
		if (tps[i].registered)
			tracepoint_probe_unregister(tps[i].tp, tps[i].probe,
						    NULL);
		tps[i].registered = false;
	}
	/* no probe may still run when the caller frees what probes touch */
	tracepoint_synchronize_unregister();
}

/**
 * iowprobe_probes_register() - find every tracepoint and attach its probe
 *
 * Return: 0, -ENOENT naming the first missing tracepoint, or the error of
 * tracepoint_probe_register(); nothing stays registered on error.
 */
int iowprobe_probes_register(void)
{
	int i, ret;

	for_each_kernel_tracepoint(match_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		if (!tps[i].tp) {
			pr_err("tracepoint %s not found in this kernel\n",
			       tps[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n", tps[i].name, ret);
			unregister_from(i);
			return ret;
		}
		tps[i].registered = true;
	}
	ret = test_require();
	if (ret)
		unregister_from(ARRAY_SIZE(tps));
	return ret;
}

void iowprobe_probes_unregister(void)
{
	unregister_from(ARRAY_SIZE(tps));
}

void iowprobe_probes_status(struct seq_file *m)
{
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(tps); i++)
		n += tps[i].registered;
	seq_printf(m, "tracepoints: %d/%zu", n, ARRAY_SIZE(tps));
	for (i = 0; i < ARRAY_SIZE(tps); i++)
		if (tps[i].registered)
			seq_printf(m, " %s", tps[i].name);
	seq_putc(m, '\n');
	for (i = 0; i < ARRAY_SIZE(tps); i++)
		seq_printf(m, "events_%s: %llu\n", tps[i].name,
			   iowprobe_acct_events(i));
}
