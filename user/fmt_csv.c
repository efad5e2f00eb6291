// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_csv.c - -o csv: one header row, then one row per CPU per interval.
 * Timestamps are UTC (RFC 3339) so files from different hosts compare.
 */
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "names.h"

void fmt_csv_header(FILE *f)
{
	fputs("timestamp,cpu,usr,nice,sys,iowait,irq,soft,steal,guest,gnice,"
	      "idle,kidle,kiowait,xidle,xiowait,xblk,xblkany,xerr,"
	      "psi_some_total_us,psi_full_total_us,xdisk,xnodisk,kiwall\n", f);
}

static void csv_row(FILE *f, const char *ts, const char *cpu,
		    const uint64_t *t, const uint64_t *d,
		    const struct iowstat_snapshot *s)
{
	struct sys_row y;
	struct cpu_row r;

	sys_row_compute(t, &y);
	cpu_row_compute(d, &r);
	fprintf(f, "%s,%s,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,",
		ts, cpu, y.usr, y.nice, y.sys, y.iowait, y.irq, y.soft,
		y.steal, y.guest, y.gnice, y.idle);
	fprintf(f, "%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,", r.kidle, r.kiowait,
		r.xidle, r.xiowait, r.xblk, r.xblkany, r.err);
	if (s->have & HAVE_PSI)
		fprintf(f, "%" PRIu64 ",%" PRIu64, s->psi_some_us,
			s->psi_full_us);
	else
		fputc(',', f);
	fprintf(f, ",%.2f,%.2f,%.2f\n", r.xdisk, r.xnodisk, r.kiwall);
}

void fmt_csv_sample(FILE *f, const struct iowstat_snapshot *cur,
		    const struct iowstat_delta *d, const struct cpu_sel *sel)
{
	time_t t = cur->real_ns / 1000000000ull;
	char ts[32] = "", id[16];
	unsigned int i;
	struct tm tm;

	if (gmtime_r(&t, &tm))
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	csv_row(f, ts, "all", d->tick_all, d->all, cur);
	for (i = 0; i < d->nr_cpus; i++) {
		if (!cpu_sel_has(sel, i))
			continue;
		snprintf(id, sizeof(id), "%u", i);
		csv_row(f, ts, id, d->tick[i], d->cpu[i], cur);
	}
}

void fmt_csv_top_header(FILE *f, enum iowprobe_owner_kind kind)
{
	unsigned int k;

	if (kind == IOWPROBE_PROCS)
		fputs("timestamp,pid,command,cgroup,wait,wa,blk,device", f);
	else
		fputs("timestamp,cgroup,wait,wa,blk,device", f);
	/* where it waited: the dominant kind, then "wait" by kind */
	fputs(",waits_in", f);
	for (k = 0; k < IOWPROBE_WAIT_KINDS; k++)
		fprintf(f, ",wait_%s", owner_wait_kind_name(k));
	fputc('\n', f);
}

/* csv_str - RFC 4180: quoted when it holds a comma, a quote or a newline */
static void csv_str(FILE *f, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* csv_kinds - the row's end: waits_in ("" for none), wait_<kind>... */
static void csv_kinds(FILE *f, const struct top_row *r)
{
	unsigned int k;

	fprintf(f, ",%s", r->waits_in < 0 ? "" :
		owner_wait_kind_name(r->waits_in));
	for (k = 0; k < IOWPROBE_WAIT_KINDS; k++)
		fprintf(f, ",%.2f", r->kinds[k]);
	fputc('\n', f);
}

void fmt_csv_top_sample(FILE *f, const struct iowstat_snapshot *cur,
			const struct top_view *v)
{
	time_t t = cur->real_ns / 1000000000ull;
	const struct top_row *r;
	char ts[32] = "", dev[32];
	struct tm tm;
	size_t i;

	if (gmtime_r(&t, &tm))
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	for (i = 0; i < v->n; i++) {
		r = &v->rows[i];
		fprintf(f, "%s,", ts);
		if (v->kind == IOWPROBE_PROCS) {
			fprintf(f, "%" PRIu64 ",", r->key);
			csv_str(f, r->row->comm);
			fputc(',', f);
		}
		csv_str(f, names_cgroup(r->row->v[IOWPROBE_OCOL_cgroup]));
		fprintf(f, ",%.2f,%.2f,%.2f,", r->wait, r->wa, r->blk);
		csv_str(f, names_dev(r->row, dev, sizeof(dev)));
		csv_kinds(f, r);
	}
}
