// SPDX-License-Identifier: GPL-2.0-only
/*
 * view_cpus.c - -P: a per-CPU table in sysstat mpstat's layout (banner,
 * one block per interval, "Average:"), with the kernel's %idle/%iowait
 * beside iowprobe's exact %idle/%iowait/%blk.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "view_cpus.h"

static int sel_range(const char *a, const char *b, struct cpu_sel *sel)
{
	uint32_t lo, hi, i;

	if (parse_u32(a, 0, IOWSTAT_MAX_CPUS - 1, &lo) ||
	    parse_u32(b, lo, IOWSTAT_MAX_CPUS - 1, &hi))
		return -EINVAL;
	for (i = lo; i <= hi; i++)
		sel->cpu[i] = true;
	if (hi + 1 > sel->max)
		sel->max = hi + 1;
	return 0;
}

/**
 * cpu_sel_parse() - "ALL" (as mpstat spells it) or a list like "0,2,4-7":
 * every element a number or a range, none empty, nothing after.
 * Return: 0 or -EINVAL.
 */
int cpu_sel_parse(const char *arg, struct cpu_sel *sel)
{
	char tok[32], *dash;
	size_t n;
	int err;

	memset(sel, 0, sizeof(*sel));
	sel->given = true;
	if (strcmp(arg, "ALL") == 0) {
		sel->every = true;
		return 0;
	}
	do {
		n = strcspn(arg, ",");
		if (n == 0 || n >= sizeof(tok))
			return -EINVAL;
		memcpy(tok, arg, n);
		tok[n] = '\0';
		dash = strchr(tok, '-');
		if (dash)
			*dash++ = '\0';
		err = sel_range(tok, dash ? dash : tok, sel);
		if (err)
			return -EINVAL;
		arg += n;
	} while (*arg++ == ',');
	return 0;
}

bool cpu_sel_has(const struct cpu_sel *sel, unsigned int cpu)
{
	return sel->every || (cpu < IOWSTAT_MAX_CPUS && sel->cpu[cpu]);
}

void cpu_row_compute(const uint64_t *d, struct cpu_row *r)
{
	uint64_t tot = delta_total(d);
	uint64_t idle = d[IOWPROBE_COL_idle_ns], iow = d[IOWPROBE_COL_iowait_ns];

	r->kidle = delta_pct(d[IOWPROBE_COL_k_idle_ns], tot);
	r->kiowait = delta_pct(d[IOWPROBE_COL_k_iowait_ns], tot);
	r->xidle = delta_pct(idle > iow ? idle - iow : 0, tot);
	r->xiowait = delta_pct(iow, tot);
	r->xblk = delta_pct(d[IOWPROBE_COL_blk_local_ns], tot);
	r->xblkany = delta_pct(d[IOWPROBE_COL_blk_any_ns], tot);
	r->err = r->kiowait - r->xiowait;
	r->xdisk = delta_pct(d[IOWPROBE_COL_iowait_blk_ns], tot);
	r->xnodisk = r->xiowait - r->xdisk;
	r->kiwall = tot ? 100.0 * (double)(d[IOWPROBE_COL_k_idle_ns] +
					   d[IOWPROBE_COL_k_iowait_ns]) / tot :
			  0.0;
}

/* sys_row_compute - as mpstat: guest is inside user, so not in the total */
void sys_row_compute(const uint64_t *t, struct sys_row *r)
{
	uint64_t tot = t[T_USER] + t[T_NICE] + t[T_SYSTEM] + t[T_IDLE] +
		       t[T_IOWAIT] + t[T_IRQ] + t[T_SOFTIRQ] + t[T_STEAL];

	r->usr = delta_pct(t[T_USER] > t[T_GUEST] ?
			   t[T_USER] - t[T_GUEST] : 0, tot);
	r->nice = delta_pct(t[T_NICE] > t[T_GNICE] ?
			    t[T_NICE] - t[T_GNICE] : 0, tot);
	r->sys = delta_pct(t[T_SYSTEM], tot);
	r->iowait = delta_pct(t[T_IOWAIT], tot);
	r->irq = delta_pct(t[T_IRQ], tot);
	r->soft = delta_pct(t[T_SOFTIRQ], tot);
	r->steal = delta_pct(t[T_STEAL], tot);
	r->guest = delta_pct(t[T_GUEST], tot);
	r->gnice = delta_pct(t[T_GNICE], tot);
	r->idle = delta_pct(t[T_IDLE], tot);
}

/* fmt_clock - strftime of a recorded CLOCK_REALTIME, in local time */
void fmt_clock(char *buf, size_t n, const char *fmt, uint64_t real_ns)
{
	time_t t = real_ns / 1000000000ull;
	struct tm tm;

	buf[0] = '\0';
	if (localtime_r(&t, &tm))
		strftime(buf, n, fmt, &tm);
}

void cpus_print_banner(FILE *f, const struct iowstat_meta *m,
		       unsigned int ncpus, uint64_t real_ns)
{
	char date[32];

	fmt_clock(date, sizeof(date), "%x", real_ns);
	fprintf(f, "%s %s (%s) \t%s \t_%s_\t(%u CPU)\n", m->sysname,
		m->release, m->nodename, date, m->machine, ncpus);
}

static void print_row(FILE *f, const char *label, const char *cpu,
		      const uint64_t *d)
{
	struct cpu_row r;

	cpu_row_compute(d, &r);
	fprintf(f, "%-11s %4s %7.2f %7.2f  %7.2f %8.2f %7.2f %8.2f %7.2f "
		"%7.2f %10.2f\n", label, cpu, r.kidle, r.kiowait, r.xidle,
		r.xiowait, r.xblk, r.xblkany, r.err, r.xdisk, r.kiwall);
}

/**
 * cpus_print_block() - a blank line, the header, "all", then each CPU
 * of @sel.  Kernel columns first, then the exact ones, then the error.
 */
void cpus_print_block(FILE *f, const char *hdr_label, const char *row_label,
		      const struct iowstat_delta *d, const struct cpu_sel *sel)
{
	char id[16];
	unsigned int i;

	fprintf(f, "\n%-11s %4s %7s %7s  %7s %8s %7s %8s %7s %7s %10s\n",
		hdr_label, "CPU", "%idle", "%iowait", "%xidle", "%xiowait",
		"%xblk", "%xblkany", "%err", "%xdisk", "%kidle+iow");
	print_row(f, row_label, "all", d->all);
	for (i = 0; i < d->nr_cpus; i++) {
		if (!cpu_sel_has(sel, i))
			continue;
		snprintf(id, sizeof(id), "%u", i);
		print_row(f, row_label, id, d->cpu[i]);
	}
}
