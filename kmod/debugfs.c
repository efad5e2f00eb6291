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
#include <linux/stringify.h>
#include <linux/tick.h>
#include <linux/utsname.h>

#include "devs.h"
#include "iowprobe.h"

/* what the kernel says of one CPU's idle and iowait time */
struct kernel_view {
	u64 k_idle;
	u64 k_iowait;
	u64 t_idle;
	u64 t_iowait;
};

/* one line of the cpus file, by enum iowprobe_col */
struct cpu_row {
	u64 v[IOWPROBE_COL_NR];
};

static const char *const col_name[IOWPROBE_COL_NR] = {
#define IOWPROBE_COL(name, kind)	__stringify(name),
#include "iowprobe_cols.h"
};

static const u8 col_kind[IOWPROBE_COL_NR] = {
#define IOWPROBE_COL(name, kind)	kind,
#include "iowprobe_cols.h"
};

/* the column of each enum iowprobe_counter */
static const u8 counter_col[IOWPROBE_C_NR] = {
#define IOWPROBE_COL(name, kind)
#define IOWPROBE_COUNTER(name)		IOWPROBE_COL_##name,
#include "iowprobe_cols.h"
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

/* row_read() - @cpu's line: the split, the kernel's view now and at load */
static void row_read(int cpu, struct cpu_row *r)
{
	static const struct kernel_view none;
	const struct kernel_view *l = at_load ? &at_load[cpu] : &none;
	u64 counters[IOWPROBE_C_NR];
	struct iowprobe_acct a;
	struct kernel_view k;
	u64 *v = r->v;
	int i;

	v[IOWPROBE_COL_now_ns] = iowprobe_cpu_read(cpu, &a, counters);
	kernel_view(cpu, &k);
	v[IOWPROBE_COL_busy_ns] = a.busy_ns;
	v[IOWPROBE_COL_idle_ns] = a.idle_ns;
	v[IOWPROBE_COL_iowait_ns] = a.iowait_ns;
	v[IOWPROBE_COL_blk_local_ns] = a.blk_local_ns;
	v[IOWPROBE_COL_blk_any_ns] = a.blk_any_ns;
	v[IOWPROBE_COL_iowait_blk_ns] = a.iowait_blk_ns;
	v[IOWPROBE_COL_k_idle_ns] = k.k_idle;
	v[IOWPROBE_COL_k_iowait_ns] = k.k_iowait;
	v[IOWPROBE_COL_t_idle_ns] = k.t_idle;
	v[IOWPROBE_COL_t_iowait_ns] = k.t_iowait;
	v[IOWPROBE_COL_nr_iowait] = (s64)a.mirror;
	v[IOWPROBE_COL_online] = a.online;
	for (i = 0; i < IOWPROBE_C_NR; i++)
		v[counter_col[i]] = counters[i];
	/* no snapshot at load: the since-load figures read as since boot */
	v[IOWPROBE_COL_k_idle_load_ns] = l->k_idle;
	v[IOWPROBE_COL_k_iowait_load_ns] = l->k_iowait;
	v[IOWPROBE_COL_t_idle_load_ns] = l->t_idle;
	v[IOWPROBE_COL_t_iowait_load_ns] = l->t_iowait;
}

static void row_add(struct cpu_row *sum, const struct cpu_row *r)
{
	int i;

	for (i = 0; i < IOWPROBE_COL_NR; i++)
		sum->v[i] = iowprobe_col_combine(col_kind[i], sum->v[i],
						 r->v[i]);
}

static void row_show(struct seq_file *m, const struct cpu_row *r)
{
	int i;

	for (i = 0; i < IOWPROBE_COL_NR; i++) {
		if (col_kind[i] == IOWPROBE_LEVEL)
			seq_printf(m, " %lld", (s64)r->v[i]);
		else
			seq_printf(m, " %llu", r->v[i]);
	}
	seq_putc(m, '\n');
}

static int cpus_show(struct seq_file *m, void *v)
{
	struct cpu_row r, sum = { 0 };
	int cpu, i;

	seq_puts(m, IOWPROBE_ABI_LINE "\ncpu");
	for (i = 0; i < IOWPROBE_COL_NR; i++)
		seq_printf(m, " %s", col_name[i]);
	seq_putc(m, '\n');
	for_each_possible_cpu(cpu) {
		row_read(cpu, &r);
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
	iowprobe_devs_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devices);

static int latency_show(struct seq_file *m, void *v)
{
	iowprobe_devs_latency_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(latency);

static int procs_show(struct seq_file *m, void *v)
{
	iowprobe_owners_show(m, IOWPROBE_PROCS, iowprobe_acct_asleep);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(procs);

static int cgroups_show(struct seq_file *m, void *v)
{
	iowprobe_owners_show(m, IOWPROBE_CGROUPS, iowprobe_acct_asleep);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cgroups);

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
	iowprobe_owners_status(m);
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
	debugfs_create_file("procs", 0400, dir, NULL, &procs_fops);
	debugfs_create_file("cgroups", 0400, dir, NULL, &cgroups_fops);
}

void iowprobe_debugfs_exit(void)
{
	debugfs_remove_recursive(dir);
	kfree(at_load);
	at_load = NULL;
}
