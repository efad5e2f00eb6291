/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ksyms.bpf.h - the kernel's per-CPU variables the BPF programs read, and
 * the kernel functions (kfuncs) they call
 *
 * A program finds a per-CPU variable only where it is a symbol in
 * kallsyms (CONFIG_KALLSYMS_ALL, as Debian's kernels have): otherwise the
 * load fails even where the read is never reached.  So each reader has a
 * variant without the read, and iowstat loads one of the two after
 * looking in /proc/kallsyms (backend_bpf.c, kernel_syms_seen()).
 */
#ifndef IOWPROBE_KSYMS_BPF_H
#define IOWPROBE_KSYMS_BPF_H

/*
 * The preempt count, for in_task(): x86 keeps it in the per-CPU int
 * __preempt_count, in pcpu_hot from 6.2 to 6.14.  Both weak: whichever
 * this kernel has is there.  On PREEMPT_RT a softirq served in a task
 * shows in that task's softirq_disable_cnt instead, not read here.
 * Read by iow_rq_issue, not by iow_rq_issue_task.
 */
#define IOWPROBE_NOT_TASK	0x00ff0100	/* NMI | HARDIRQ | SOFTIRQ_OFFSET */

extern const int __preempt_count __ksym __weak;

struct pcpu_hot___iowprobe {
	int preempt_count;
} __attribute__((preserve_access_index));

extern const struct pcpu_hot___iowprobe pcpu_hot __ksym __weak;

/*
 * interrupt_bits() - the preempt count's bits that say "not a task":
 * nonzero in an interrupt, 0 in a task (or where neither symbol is known)
 */
static __always_inline __u32 interrupt_bits(void)
{
	const struct pcpu_hot___iowprobe *hot;
	const int *pc;

	if (&pcpu_hot) {
		hot = bpf_this_cpu_ptr(&pcpu_hot);
		return hot->preempt_count & IOWPROBE_NOT_TASK;
	}
	if (&__preempt_count) {
		pc = bpf_this_cpu_ptr(&__preempt_count);
		return *pc & IOWPROBE_NOT_TASK;
	}
	return 0;
}

/*
 * The scheduler's per-CPU runqueues, for this CPU's nr_iowait: read by
 * iow_switch, not by iow_switch_scan.
 */
struct rq___iowprobe {
	atomic_t nr_iowait;
} __attribute__((preserve_access_index));

extern struct rq___iowprobe runqueues __ksym __weak;

/* this_cpu_nr_iowait() - the kernel's count of this CPU's iowait sleepers */
static __always_inline __s64 this_cpu_nr_iowait(void)
{
	struct rq___iowprobe *rq = bpf_this_cpu_ptr(&runqueues);

	return rq->nr_iowait.counter;
}

/*
 * A task from its pid, with a reference, and the reference dropped (6.2;
 * weak: 6.1 has neither).  Called only where iowstat sets parked_by_pid,
 * which it does only where the kernel's BTF names them: the verifier drops
 * the calls elsewhere, as dead code, before it looks for the functions.
 */
struct task_struct *bpf_task_from_pid(s32 pid) __ksym __weak;
void bpf_task_release(struct task_struct *p) __ksym __weak;

#endif /* IOWPROBE_KSYMS_BPF_H */
