// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_prom.c - -o prom: the Prometheus text format for node_exporter's
 * textfile collector.  Own prefix "iowprobe_", never node_cpu_*: these
 * counters overlap (iowait and blk are parts of idle) and must not be
 * summed with node_exporter's.  Counters are seconds since module load,
 * the kernel's own since boot (their HELP says which): rate() and
 * increase() compare them, never their values.
 * Where the module has its cgroups file, the cgroups' figures follow,
 * labelled with the cgroup's path: as many series as the module keeps
 * rows (its cgroups= parameter, 1024 by default), less the cgroups whose
 * directory is gone, whose series end there.
 */
#include <inttypes.h>
#include <string.h>

#include "fmt.h"
#include "names.h"
#include "util.h"

struct prom_metric {
	const char *name;
	const char *help;
	int col;
	bool ns;		/* nanoseconds, printed as seconds */
	bool gauge;
};

static const struct prom_metric metrics[] = {
	{ "iowprobe_cpu_busy_seconds_total",
	  "Time a non-idle task ran on the CPU since iowprobe was loaded.",
	  IOWPROBE_COL_busy_ns, true, false },
	{ "iowprobe_cpu_idle_seconds_total",
	  "Time the CPU ran its idle task (iowait included).",
	  IOWPROBE_COL_idle_ns, true, false },
	{ "iowprobe_cpu_iowait_seconds_total",
	  "Exact idle time while a task that slept on this CPU waited for I/O.",
	  IOWPROBE_COL_iowait_ns, true, false },
	{ "iowprobe_cpu_blk_local_seconds_total",
	  "Idle time while a block request issued from this CPU was in flight.",
	  IOWPROBE_COL_blk_local_ns, true, false },
	{ "iowprobe_cpu_blk_any_seconds_total",
	  "Idle time while any block request was in flight.",
	  IOWPROBE_COL_blk_any_ns, true, false },
	{ "iowprobe_cpu_iowait_disk_seconds_total",
	  "The disk's share of iowait: iowait while a request of the CPU was in flight.",
	  IOWPROBE_COL_iowait_blk_ns, true, false },
	{ "iowprobe_kernel_idle_seconds_total",
	  "The kernel's idle time since boot (/proc/stat), read with these.",
	  IOWPROBE_COL_k_idle_ns, true, false },
	{ "iowprobe_kernel_iowait_seconds_total",
	  "The kernel's iowait since boot (/proc/stat), read with the above.",
	  IOWPROBE_COL_k_iowait_ns, true, false },
	{ "iowprobe_iowait_sleeps_total",
	  "Sleeps in io_schedule() counted on this CPU.",
	  IOWPROBE_COL_sleeps, false, false },
	{ "iowprobe_remote_wakeups_idle_total",
	  "Wakeups from another CPU that hit this CPU idle (kernel misbooks).",
	  IOWPROBE_COL_remote_dec_idle, false, false },
	{ "iowprobe_nr_iowait",
	  "Tasks that slept on this CPU and still wait for I/O.",
	  IOWPROBE_COL_nr_iowait, false, true },
};

static void prom_value(FILE *f, uint64_t v, const struct prom_metric *m)
{
	if (m->gauge && m->col == IOWPROBE_COL_nr_iowait)
		fprintf(f, "%" PRId64 "\n", (int64_t)v);
	else if (m->ns)
		fprintf(f, "%" PRIu64 ".%09" PRIu64 "\n",
			v / UINT64_C(1000000000), v % UINT64_C(1000000000));
	else
		fprintf(f, "%" PRIu64 "\n", v);
}

static void prom_metric(FILE *f, const struct iowstat_snapshot *s,
			const struct prom_metric *m)
{
	unsigned int i;

	/* the module's own column: none from --bpf, no bound in its place */
	if (iowstat_col_kind[m->col] == IOWPROBE_MSPLIT &&
	    !(s->have & HAVE_IOWAIT_BLK))
		return;
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m->name, m->help, m->name,
		m->gauge ? "gauge" : "counter");
	for (i = 0; i < s->nr_cpus; i++) {
		if (!s->cpu[i].present)
			continue;
		fprintf(f, "%s{cpu=\"%u\"} ", m->name, i);
		prom_value(f, s->cpu[i].v[m->col], m);
	}
}

static void prom_psi(FILE *f, const char *kind, uint64_t us)
{
	fprintf(f, "# HELP iowprobe_pressure_io_%s_seconds_total "
		"/proc/pressure/io \"%s\" total.\n"
		"# TYPE iowprobe_pressure_io_%s_seconds_total counter\n"
		"iowprobe_pressure_io_%s_seconds_total %" PRIu64 ".%06" PRIu64
		"\n", kind, kind, kind, kind, us / 1000000, us % 1000000);
}

/* the cgroups file's figures, one metric each, labelled cgroup="PATH" */
static const struct prom_metric cgroup_metrics[] = {
	{ "iowprobe_cgroup_wait_seconds_total",
	  "Wall time the cgroup's tasks slept in iowait, summed over its tasks.",
	  IOWPROBE_OCOL_wait_ns, true, false },
	{ "iowprobe_cgroup_wait_blk_seconds_total",
	  "The part of that wait with a block request of its own in flight.",
	  IOWPROBE_OCOL_wait_blk_ns, true, false },
	{ "iowprobe_cgroup_cpu_iowait_seconds_total",
	  "Its share of the CPUs' exact iowait: the part of wa it caused.",
	  IOWPROBE_OCOL_wa_ns, true, false },
	{ "iowprobe_cgroup_iowait_sleeps_total",
	  "Sleeps in iowait of its tasks that ended.",
	  IOWPROBE_OCOL_sleeps, false, false },
};

/* prom_label - @v as a label value: backslash, quote and newline escaped */
static void prom_label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

static void prom_cgroup_metric(FILE *f, const struct owner_table *t,
			       const struct prom_metric *m)
{
	const char *path;
	size_t i;

	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", m->name, m->help,
		m->name);
	for (i = 0; i < t->n; i++) {
		path = names_cgroup(t->row[i].v[IOWPROBE_OCOL_cgroup]);
		if (!strcmp(path, "-"))
			continue;	/* its directory is gone */
		fprintf(f, "%s{cgroup=\"", m->name);
		prom_label(f, path);
		fputs("\"} ", f);
		prom_value(f, t->row[i].v[m->col], m);
	}
}

/*
 * prom_cgroup_kinds - the cgroups' wait by where it was, one series per
 * kind (they add up to iowprobe_cgroup_wait_seconds_total) for each
 * cgroup that waited: a module without the kinds has none
 */
static void prom_cgroup_kinds(FILE *f, const struct owner_table *t)
{
	static const struct prom_metric m = {
		"iowprobe_cgroup_wait_kind_seconds_total",
		"That wait by where the task waited: uring (io_uring_enter), "
		"rw (read/write calls), sync (fsync and kin), fault (a page "
		"fault), other.",
		IOWPROBE_OCOL_wait_ns, true, false,
	};
	const char *path;
	unsigned int k;
	size_t i;

	fprintf(f, "# HELP %s %s\n# TYPE %s counter\n", m.name, m.help,
		m.name);
	for (i = 0; i < t->n; i++) {
		path = names_cgroup(t->row[i].v[IOWPROBE_OCOL_cgroup]);
		if (!strcmp(path, "-") || !t->row[i].v[IOWPROBE_OCOL_wait_ns])
			continue;	/* its directory is gone, or no wait */
		for (k = 0; k < IOWPROBE_WAIT_KINDS; k++) {
			fprintf(f, "%s{cgroup=\"", m.name);
			prom_label(f, path);
			fprintf(f, "\",kind=\"%s\"} ", owner_wait_kind_name(k));
			prom_value(f, t->row[i].v[IOWPROBE_OCOL_WAIT(k)], &m);
		}
	}
}

void fmt_prom(FILE *f, const struct iowstat_snapshot *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(metrics); i++)
		prom_metric(f, s, &metrics[i]);
	if (s->have & HAVE_CGROUPS)
		for (i = 0; i < ARRAY_SIZE(cgroup_metrics); i++)
			prom_cgroup_metric(f, &s->owners[IOWPROBE_CGROUPS],
					   &cgroup_metrics[i]);
	if ((s->have & HAVE_CGROUPS) &&
	    s->owners[IOWPROBE_CGROUPS].has_wait_kinds)
		prom_cgroup_kinds(f, &s->owners[IOWPROBE_CGROUPS]);
	if (s->have & HAVE_PSI) {
		prom_psi(f, "some", s->psi_some_us);
		prom_psi(f, "full", s->psi_full_us);
	}
}
