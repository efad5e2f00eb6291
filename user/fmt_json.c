// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_json.c - -o json.  The document has the shape of sysstat's
 * "mpstat -o JSON" so that its consumers keep working: "cpu-load" entries
 * keep sysstat's keys (computed from /proc/stat as mpstat does) and get
 * iowprobe's keys beside them.  The closing brackets are always written,
 * Ctrl-C included, so the output parses.
 */
#include <inttypes.h>

#include "fmt.h"
#include "names.h"

static unsigned int nsamples;

#define SYS_KEY(name)	{ #name, #name, offsetof(struct sys_row, name) }

const struct fmt_key fmt_sys_keys[] = {
	SYS_KEY(usr), SYS_KEY(nice), SYS_KEY(sys), SYS_KEY(iowait),
	SYS_KEY(irq), SYS_KEY(soft), SYS_KEY(steal), SYS_KEY(guest),
	SYS_KEY(gnice), SYS_KEY(idle), { NULL, NULL, 0 }
};

#define CPU_KEY(json, csv, name) { json, csv, offsetof(struct cpu_row, name) }

const struct fmt_key fmt_cpu_keys[] = {
	CPU_KEY("kernel-idle", "kernel_idle", kidle),
	CPU_KEY("kernel-iowait", "kernel_iowait", kiowait),
	CPU_KEY("xidle", "xidle", xidle), CPU_KEY("xiowait", "xiowait", xiowait),
	CPU_KEY("xblk", "xblk", xblk), CPU_KEY("xblkany", "xblkany", xblkany),
	CPU_KEY("err", "err", err),
	CPU_KEY("xdisk", "xdisk", xdisk), CPU_KEY("xnodisk", "xnodisk", xnodisk),
	CPU_KEY("kernel-idle-iowait", "kernel_idle_iowait", kiwall),
	{ NULL, NULL, 0 }
};

/* fmt_key_value() - the percentage of key @k in @row */
double fmt_key_value(const struct fmt_key *k, const void *row)
{
	return *(const double *)((const char *)row + k->off);
}

/* json_str - host names and releases are plain, but escape anyway */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void fmt_json_begin(FILE *f, const struct iowstat_meta *m,
		    const struct iowstat_snapshot *first)
{
	char date[32];

	fmt_clock(date, sizeof(date), "%x", first->real_ns);
	fputs("{\"sysstat\": {\n\t\"hosts\": [\n\t\t{\n", f);
	fputs("\t\t\t\"nodename\": ", f);
	json_str(f, m->nodename);
	fputs(",\n\t\t\t\"sysname\": ", f);
	json_str(f, m->sysname);
	fputs(",\n\t\t\t\"release\": ", f);
	json_str(f, m->release);
	fputs(",\n\t\t\t\"machine\": ", f);
	json_str(f, m->machine);
	fprintf(f, ",\n\t\t\t\"number-of-cpus\": %u,\n\t\t\t\"date\": ",
		first->nr_cpus);
	json_str(f, date);
	fputs(",\n\t\t\t\"statistics\": [", f);
	nsamples = 0;
}

static void json_row(FILE *f, const char *cpu, const uint64_t *t,
		     const uint64_t *d, bool last)
{
	const struct fmt_key *k;
	struct sys_row s;
	struct cpu_row r;

	sys_row_compute(t, &s);
	cpu_row_compute(d, &r);
	fprintf(f, "\t\t\t\t\t\t{\"cpu\": \"%s\"", cpu);
	for (k = fmt_sys_keys; k->json; k++)
		fprintf(f, ", \"%s\": %.2f", k->json, fmt_key_value(k, &s));
	for (k = fmt_cpu_keys; k->json; k++)
		fprintf(f, ", \"%s\": %.2f", k->json, fmt_key_value(k, &r));
	fprintf(f, "}%s\n", last ? "" : ",");
}

static unsigned int last_shown(const struct iowstat_delta *d,
			       const struct cpu_sel *sel)
{
	unsigned int i, last = UINT32_MAX;

	for (i = 0; i < d->nr_cpus; i++)
		if (cpu_sel_has(sel, i))
			last = i;
	return last;
}

void fmt_json_sample(FILE *f, const struct iowstat_snapshot *cur,
		     const struct iowstat_delta *d, const struct cpu_sel *sel)
{
	unsigned int i, last = last_shown(d, sel);
	char ts[32], id[16];

	fmt_clock(ts, sizeof(ts), "%X", cur->real_ns);
	fprintf(f, "%s\n\t\t\t\t{\n\t\t\t\t\t\"timestamp\": \"%s\",\n",
		nsamples++ ? "," : "", ts);
	if (cur->have & HAVE_PSI)
		fprintf(f, "\t\t\t\t\t\"psi-io\": {\"some-total-us\": %" PRIu64
			", \"full-total-us\": %" PRIu64 "},\n",
			cur->psi_some_us, cur->psi_full_us);
	fputs("\t\t\t\t\t\"cpu-load\": [\n", f);
	json_row(f, "all", d->tick_all, d->all, last == UINT32_MAX);
	for (i = 0; i < d->nr_cpus; i++) {
		if (!cpu_sel_has(sel, i))
			continue;
		snprintf(id, sizeof(id), "%u", i);
		json_row(f, id, d->tick[i], d->cpu[i], i == last);
	}
	fputs("\t\t\t\t\t]\n\t\t\t\t}", f);
}

/*
 * json_top_kinds - "waits-in": the kind of most of the wait (null for
 * none), "wait-kinds": "wait" by kind, in its unit, so they add up to it
 */
static void json_top_kinds(FILE *f, const struct top_row *r)
{
	unsigned int k;

	fputs(", \"waits-in\": ", f);
	if (r->waits_in < 0)
		fputs("null", f);
	else
		json_str(f, owner_wait_kind_name(r->waits_in));
	fputs(", \"wait-kinds\": {", f);
	for (k = 0; k < IOWPROBE_WAIT_KINDS; k++)
		fprintf(f, "%s\"%s\": %.2f", k ? ", " : "",
			owner_wait_kind_name(k), r->kinds[k]);
	fputc('}', f);
}

static void json_top_row(FILE *f, enum iowprobe_owner_kind kind,
			 const struct top_row *r, bool last)
{
	uint64_t cgroup = r->row->v[IOWPROBE_OCOL_cgroup];
	char dev[32];

	fputs("\t\t\t\t\t\t{", f);
	if (kind == IOWPROBE_PROCS) {
		fprintf(f, "\"pid\": %" PRIu64 ", \"command\": ", r->key);
		json_str(f, r->row->comm);
		fputs(", ", f);
	}
	fputs("\"cgroup\": ", f);
	json_str(f, names_cgroup(cgroup));
	fprintf(f, ", \"cgroup-id\": %" PRIu64 ", \"wait\": %.2f, "
		"\"wa\": %.2f, \"blk\": %.2f, \"device\": ", cgroup, r->wait,
		r->wa, r->blk);
	json_str(f, names_dev(r->row, dev, sizeof(dev)));
	json_top_kinds(f, r);
	fprintf(f, "}%s\n", last ? "" : ",");
}

/* fmt_json_top_sample - "top-procs" or "top-cgroups", most iowait first */
void fmt_json_top_sample(FILE *f, const struct iowstat_snapshot *cur,
			 const struct top_view *v)
{
	char ts[32];
	size_t i;

	fmt_clock(ts, sizeof(ts), "%X", cur->real_ns);
	fprintf(f, "%s\n\t\t\t\t{\n\t\t\t\t\t\"timestamp\": \"%s\",\n",
		nsamples++ ? "," : "", ts);
	fprintf(f, "\t\t\t\t\t\"top-%s\": [\n",
		v->kind == IOWPROBE_PROCS ? "procs" : "cgroups");
	for (i = 0; i < v->n; i++)
		json_top_row(f, v->kind, &v->rows[i], i + 1 == v->n);
	fputs("\t\t\t\t\t]\n\t\t\t\t}", f);
}

/*
 * fmt_json_top_average() - --top's Average: rows, after the statistics:
 * "average": {"wall-ns", "top-procs" or "top-cgroups"}
 */
void fmt_json_top_average(FILE *f, const struct top_view *v, double wall_ns)
{
	size_t i;

	fprintf(f, "\t\t\t\"average\": {\n\t\t\t\t\"wall-ns\": %.0f,\n"
		"\t\t\t\t\"top-%s\": [\n", wall_ns,
		v->kind == IOWPROBE_PROCS ? "procs" : "cgroups");
	for (i = 0; i < v->n; i++)
		json_top_row(f, v->kind, &v->rows[i], i + 1 == v->n);
	fputs("\t\t\t\t]\n\t\t\t}", f);
}

void fmt_json_statistics_end(FILE *f)
{
	fputs("\n\t\t\t],\n", f);
}

void fmt_json_host_end(FILE *f)
{
	fputs("\n\t\t}\n\t]\n}}\n", f);
}

void fmt_json_end(FILE *f)
{
	fputs("\n\t\t\t]\n\t\t}\n\t]\n}}\n", f);
}
