// SPDX-License-Identifier: GPL-2.0-only
/*
 * debugfs.c - /sys/kernel/debug/iowprobe: text only, no state of its own
 *
 * Every file starts with IOWPROBE_ABI_LINE and is read-only and root-only.
 * The one thing kept here is the kernel's view at load, for the cpus file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kernel_stat.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tick.h>
#include <linux/utsname.h>

#include "iowprobe.h"

/* what the kernel says of one CPU's idle and iowait time */
struct kernel_view {
	u64 k_idle;
	u64 k_iowait;
	u64 t_idle;
	u64 t_iowait;
};

/* one line of the cpus file */
struct cpu_row {
	struct iowprobe_acct a;
	struct kernel_view k;
	u64 counters[IOWPROBE_C_NR];
	u64 t;
	struct kernel_view k_load;
};

static struct dentry *dir;
static struct kernel_view *at_load;	/* per possible CPU; NULL: no memory */

/*
 * kernel_view() - what /proc/stat says for @cpu right now (fs/proc/stat.c:
 * the tick_sched counters for an online CPU when nohz is active, else the
 * tick-sampled kcpustat), plus kcpustat itself.  last == NULL: on 6.1 a
 * pointer would make us an unlocked writer of another CPU's counters.
 */
static void kernel_view(int cpu, struct kernel_view *k)
{
	struct kernel_cpustat kcs;
	u64 idle = -1ULL, iowait = -1ULL;

	kcpustat_cpu_fetch(&kcs, cpu);
	k->t_idle = kcs.cpustat[CPUTIME_IDLE];
	k->t_iowait = kcs.cpustat[CPUTIME_IOWAIT];
	if (cpu_online(cpu)) {
		idle = get_cpu_idle_time_us(cpu, NULL);
		iowait = get_cpu_iowait_time_us(cpu, NULL);
	}
	k->k_idle = idle == -1ULL ? k->t_idle : idle * NSEC_PER_USEC;
	k->k_iowait = iowait == -1ULL ? k->t_iowait : iowait * NSEC_PER_USEC;
}

static void view_add(struct kernel_view *sum, const struct kernel_view *k)
{
	sum->k_idle += k->k_idle;
	sum->k_iowait += k->k_iowait;
	sum->t_idle += k->t_idle;
	sum->t_iowait += k->t_iowait;
}

static void row_add(struct cpu_row *sum, const struct cpu_row *r)
{
	int i;

	sum->a.busy_ns += r->a.busy_ns;
	sum->a.idle_ns += r->a.idle_ns;
	sum->a.iowait_ns += r->a.iowait_ns;
	sum->a.blk_local_ns += r->a.blk_local_ns;
	sum->a.blk_any_ns += r->a.blk_any_ns;
	sum->a.mirror += r->a.mirror;
	sum->a.online += r->a.online;
	view_add(&sum->k, &r->k);
	view_add(&sum->k_load, &r->k_load);
	for (i = 0; i < IOWPROBE_C_NR; i++)
		sum->counters[i] += r->counters[i];
	sum->t = max(sum->t, r->t);
}

static void row_show(struct seq_file *m, const struct cpu_row *r)
{
	int i;

	seq_printf(m, " %llu %llu %llu %llu %llu %llu %llu %llu %llu %d %u",
		   r->a.busy_ns, r->a.idle_ns, r->a.iowait_ns,
		   r->a.blk_local_ns, r->a.blk_any_ns, r->k.k_idle,
		   r->k.k_iowait, r->k.t_idle, r->k.t_iowait, r->a.mirror,
		   r->a.online);
	for (i = 0; i < IOWPROBE_C_NR; i++)
		seq_printf(m, " %llu", r->counters[i]);
	seq_printf(m, " %llu %llu %llu %llu %llu\n", r->t, r->k_load.k_idle,
		   r->k_load.k_iowait, r->k_load.t_idle, r->k_load.t_iowait);
}

static int cpus_show(struct seq_file *m, void *v)
{
	struct cpu_row r, sum = { 0 };
	int cpu;

	seq_puts(m, IOWPROBE_ABI_LINE "\n" IOWPROBE_CPUS_HEADER "\n");
	for_each_possible_cpu(cpu) {
		r.t = iowprobe_cpu_read(cpu, &r.a, r.counters);
		kernel_view(cpu, &r.k);
		if (at_load)
			r.k_load = at_load[cpu];
		else	/* no snapshot: since-load figures read as since boot */
			memset(&r.k_load, 0, sizeof(r.k_load));
		seq_printf(m, "%d", cpu);
		row_show(m, &r);
		row_add(&sum, &r);
	}
	seq_puts(m, "all");
	row_show(m, &sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cpus);

static int devices_show(struct seq_file *m, void *v)
{
	iowprobe_blk_devices_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devices);

static int latency_show(struct seq_file *m, void *v)
{
	iowprobe_blk_latency_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

static int status_show(struct seq_file *m, void *v)
{
	seq_puts(m, IOWPROBE_ABI_LINE "\n");
	seq_puts(m, "version: " IOWPROBE_VERSION "\n");
	seq_printf(m, "kernel: %s\n", utsname()->release);
	iowprobe_probes_status(m);
	seq_printf(m, "cpus_possible: %u\n", num_possible_cpus());
	seq_printf(m, "cpus_online: %u\n", num_online_cpus());
	iowprobe_acct_status(m);
	iowprobe_blk_status(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(status);

void iowprobe_debugfs_init(void)
{
	int cpu;

	/* called just after the probes began counting: the same start */
	at_load = kcalloc(nr_cpu_ids, sizeof(*at_load), GFP_KERNEL);
	if (at_load)
		for_each_possible_cpu(cpu)
			kernel_view(cpu, &at_load[cpu]);
	/* debugfs errors are not fatal: the module keeps counting */
	dir = debugfs_create_dir(IOWPROBE_DIR, NULL);
	debugfs_create_file("status", 0400, dir, NULL, &status_fops);
	debugfs_create_file("cpus", 0400, dir, NULL, &cpus_fops);
	debugfs_create_file("devices", 0400, dir, NULL, &devices_fops);
	debugfs_create_file("latency", 0400, dir, NULL, &latency_fops);
}

void iowprobe_debugfs_exit(void)
{
	debugfs_remove_recursive(dir);
	kfree(at_load);
	at_load = NULL;
}
