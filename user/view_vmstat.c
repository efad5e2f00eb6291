// SPDX-License-Identifier: GPL-2.0-only
/*
 * view_vmstat.c - the default view: the line procps-ng 4.0.2 vmstat
 * prints, byte for byte, then the exact group.  The arithmetic follows
 * procps's on purpose, including its quirks, so that scripts written
 * for vmstat read the same numbers:
 *  - the first line divides event counts by the sum of all CPUs' ticks
 *    (times USER_HZ), not by the uptime;
 *  - later lines divide by the nominal interval, rounding half up;
 *  - percentages are (100 * part + total / 2) / total over the tick
 *    deltas, each clamped at zero, with guest time taken out of us;
 *  - memory is converted through a float, as procps does;
 *  - memory columns keep the values read at start: 4.0.2 selects
 *    /proc/meminfo once, before its loop (later procps re-read it).
 */
#include <limits.h>
#include <string.h>

#include "view_vmstat.h"

/* The header strings of procps 4.0.2; column widths below match them. */
static const char head[] =
	"procs -----------memory---------- ---swap-- -----io---- -system-- "
	"------cpu-----";
static const char head_wide[] =
	"--procs-- -----------------------memory---------------------- "
	"---swap-- -----io---- -system-- ----------cpu----------";
static const char head_ts[] = " -----timestamp-----";

static const char *const names[VM_NR] = {
	"r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo",
	"in", "cs", "us", "sy", "id", "wa", "st", "gu",
};

static const int width[VM_NR] = {
	2, 2, 6, 6, 6, 6, 4, 4, 5, 5, 4, 4, 2, 2, 2, 2, 2, 2,
};

static const int width_wide[VM_NR] = {
	4, 4, 12, 12, 12, 12, 4, 4, 5, 5, 4, 4, 3, 3, 3, 3, 3, 3,
};

static const char *const xnames[X_NR] = { "xwa", "bl", "ba", "err" };
static const int xwidth[X_NR] = { 3, 3, 3, 4 };
static const int xwidth_wide[X_NR] = { 4, 4, 4, 5 };

/*
 * unit_convert - procps's unitConvert(): KiB to -S units, via float;
 * saturated where the float no longer fits (converting it would be UB)
 */
static unsigned long unit_convert(unsigned long kib, unsigned long unit)
{
	float v = (float)kib / unit * 1024;

	return v < (float)ULONG_MAX ? (unsigned long)v : ULONG_MAX;
}

/* up - @cur - @prev, 0 when the counter went backwards: no spike */
static uint64_t up(uint64_t cur, uint64_t prev)
{
	return cur > prev ? cur - prev : 0;
}

/*
 * procps's long long, widened: 100 * ticks of a damaged recording must
 * neither overflow (UB) nor wrap into a column above 100
 */
struct cpu_split {
	unsigned __int128 use, sys, idl, iow, sto, gue, div, divo2;
};

/* split - procps's grouping of the tick columns, and its divisor */
static void split(const uint64_t *t, struct cpu_split *c)
{
	c->use = (unsigned __int128)t[T_USER] + t[T_NICE];
	c->sys = (unsigned __int128)t[T_SYSTEM] + t[T_IRQ] + t[T_SOFTIRQ];
	c->idl = t[T_IDLE];
	c->iow = t[T_IOWAIT];
	c->sto = t[T_STEAL];
	c->gue = (unsigned __int128)t[T_GUEST] + t[T_GNICE];
	c->div = c->use + c->sys + c->idl + c->iow + c->sto;
	if (!c->div) {
		c->div = 1;
		c->idl = 1;
	}
	c->divo2 = c->div / 2;
	c->use = c->use >= c->gue ? c->use - c->gue : 0;
}

static void cpu_columns(const struct cpu_split *c, unsigned long *v)
{
	v[VM_US] = (unsigned int)((100 * c->use + c->divo2) / c->div);
	v[VM_SY] = (unsigned int)((100 * c->sys + c->divo2) / c->div);
	v[VM_ID] = (unsigned int)((100 * c->idl + c->divo2) / c->div);
	v[VM_WA] = (unsigned int)((100 * c->iow + c->divo2) / c->div);
	v[VM_ST] = (unsigned int)((100 * c->sto + c->divo2) / c->div);
	v[VM_GU] = (unsigned int)((100 * c->gue + c->divo2) / c->div);
}

static void mem_columns(const struct vmstat_opts *o,
			const struct iowstat_snapshot *s, unsigned long *v)
{
	v[VM_SWPD] = unit_convert(up(s->swap_total, s->swap_free), o->unit);
	v[VM_FREE] = unit_convert(s->mem_free, o->unit);
	v[VM_BUFF] = unit_convert(s->buffers, o->unit);
	v[VM_CACHE] = unit_convert(s->cached + s->sreclaimable, o->unit);
}

/* since_boot - first line: totals times USER_HZ over all CPUs' ticks */
static void since_boot(const struct iowstat_meta *m,
		       const struct vmstat_opts *o,
		       const struct iowstat_snapshot *s,
		       const struct cpu_split *c, unsigned long *v)
{
	unsigned long kpp = m->pagesize / 1024;
	unsigned __int128 hz = m->hz, d = c->div, h = c->divo2;

	v[VM_SI] = (unsigned int)((unit_convert(s->pswpin * kpp, o->unit) *
				   hz + h) / d);
	v[VM_SO] = (unsigned int)((unit_convert(s->pswpout * kpp, o->unit) *
				   hz + h) / d);
	v[VM_BI] = (unsigned int)((s->pgpgin * hz + h) / d);
	v[VM_BO] = (unsigned int)((s->pgpgout * hz + h) / d);
	v[VM_IN] = (unsigned int)((s->intr * hz + h) / d);
	v[VM_CS] = (unsigned int)((s->ctxt * hz + h) / d);
}

/* sys_delta - procps keeps intr/ctxt deltas in an int, clamped at 0 */
static unsigned int sys_delta(uint64_t cur, uint64_t prev)
{
	int d = (int)(uint32_t)(cur - prev);

	return d < 0 ? 0 : d;
}

/* per_interval - later lines: deltas over the nominal interval */
static void per_interval(const struct iowstat_meta *m,
			 const struct vmstat_opts *o,
			 const struct iowstat_snapshot *p,
			 const struct iowstat_snapshot *s, unsigned long *v)
{
	unsigned long kpp = m->pagesize / 1024;
	unsigned int t = o->interval ? o->interval : 1, half = t / 2;

	v[VM_SI] = (unsigned int)((unit_convert(up(s->pswpin, p->pswpin) * kpp,
						o->unit) + half) / t);
	v[VM_SO] = (unsigned int)((unit_convert(up(s->pswpout, p->pswpout) *
						kpp, o->unit) + half) / t);
	v[VM_BI] = (unsigned int)((up(s->pgpgin, p->pgpgin) + half) / t);
	v[VM_BO] = (unsigned int)((up(s->pgpgout, p->pgpgout) + half) / t);
	v[VM_IN] = (sys_delta(s->intr, p->intr) + half) / t;
	v[VM_CS] = (sys_delta(s->ctxt, p->ctxt) + half) / t;
}

/**
 * vmstat_values() - the numbers vmstat prints for @cur; @prev NULL means
 * the first, "since boot" line.  Memory comes from @mem, the first
 * sample, as in procps 4.0.2.  @v has VM_NR entries.
 */
void vmstat_values(const struct iowstat_meta *m, const struct vmstat_opts *o,
		   const struct iowstat_snapshot *mem,
		   const struct iowstat_snapshot *prev,
		   const struct iowstat_snapshot *cur, unsigned long *v)
{
	uint64_t t[T_NR];
	struct cpu_split c;
	unsigned int k;

	for (k = 0; k < T_NR; k++)
		t[k] = !prev ? cur->stat_all.t[k] :
		       cur->stat_all.t[k] > prev->stat_all.t[k] ?
		       cur->stat_all.t[k] - prev->stat_all.t[k] : 0;
	split(t, &c);
	mem_columns(o, mem, v);
	v[VM_R] = cur->procs_running;
	v[VM_B] = cur->procs_blocked;
	if (prev)
		per_interval(m, o, prev, cur, v);
	else
		since_boot(m, o, cur, &c, v);
	cpu_columns(&c, v);
}

/*
 * pct_round - (100 * num + den / 2) / den, vmstat's rounding, in 128 bits;
 * at most 100 (num > den: a damaged recording)
 */
static long pct_round(uint64_t num, uint64_t den)
{
	unsigned __int128 n = num;

	if (!den)
		return 0;
	if (num >= den)
		return 100;
	return (long)((n * 100 + den / 2) / den);
}

/**
 * vmstat_exact() - the appended group: exact wa, bl, ba over the sum of
 * all CPUs' busy+idle nanoseconds, and the kernel's wa minus exact wa.
 */
void vmstat_exact(const struct iowstat_delta *d, unsigned long kernel_wa,
		  long *x)
{
	uint64_t tot = delta_total(d->all);

	x[X_WA] = pct_round(d->all[IOWPROBE_COL_iowait_ns], tot);
	x[X_BL] = pct_round(d->all[IOWPROBE_COL_blk_local_ns], tot);
	x[X_BA] = pct_round(d->all[IOWPROBE_COL_blk_any_ns], tot);
	x[X_ERR] = (long)kernel_wa - x[X_WA];
}

/**
 * vmstat_kernel_wa() - the kernel's wa over @d, from the backend's view of
 * it (k_iowait_ns) as xwa is computed: on the first line both count from
 * the module's load or the attach, while vmstat's own wa counts from boot
 */
unsigned long vmstat_kernel_wa(const struct iowstat_delta *d)
{
	return pct_round(d->all[IOWPROBE_COL_k_iowait_ns],
			 delta_total(d->all));
}

static int ncols(const struct vmstat_opts *o)
{
	return o->wide ? VM_NR : VM_GU;
}

/* group_label - " ---exact---" spanning the appended columns */
static void group_label(FILE *f, const int *xw)
{
	static const char label[] = "exact";
	int w = -1, i, left;

	for (i = 0; i < X_NR; i++)
		w += xw[i] + 1;
	left = (w - (int)strlen(label)) / 2;
	fputc(' ', f);
	for (i = 0; i < left; i++)
		fputc('-', f);
	fputs(label, f);
	for (i = left + strlen(label); i < w; i++)
		fputc('-', f);
}

void vmstat_print_header(FILE *f, const struct vmstat_opts *o, time_t now)
{
	const int *w = o->wide ? width_wide : width;
	const int *xw = o->wide ? xwidth_wide : xwidth;
	char tz[32] = "";
	struct tm tm;
	int i;

	fputs(o->wide ? head_wide : head, f);
	if (o->timestamp)
		fputs(head_ts, f);
	group_label(f, xw);
	fputc('\n', f);
	for (i = 0; i < ncols(o); i++)
		fprintf(f, i ? " %*s" : "%*s", w[i], names[i]);
	if (o->timestamp) {
		if (localtime_r(&now, &tm))
			strftime(tz, sizeof(tz), "%Z", &tm);
		tz[sizeof(head_ts) - 2] = '\0';
		fprintf(f, " %*s", (int)sizeof(head_ts) - 2, tz);
	}
	for (i = 0; i < X_NR; i++)
		fprintf(f, " %*s", xw[i], xnames[i]);
	fputc('\n', f);
}

void vmstat_print_line(FILE *f, const struct vmstat_opts *o,
		       const unsigned long *v, const long *x, time_t now)
{
	const int *w = o->wide ? width_wide : width;
	const int *xw = o->wide ? xwidth_wide : xwidth;
	char ts[32] = "";
	struct tm tm;
	int i;

	for (i = 0; i < ncols(o); i++)
		fprintf(f, i ? " %*lu" : "%*lu", w[i], v[i]);
	if (o->timestamp) {
		if (localtime_r(&now, &tm))
			strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, " %s", ts);
	}
	for (i = 0; i < X_NR; i++)
		fprintf(f, " %*ld", xw[i], x[i]);
	fputc('\n', f);
}
