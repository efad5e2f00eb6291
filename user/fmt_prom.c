// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_prom.c - -o prom: the Prometheus text format for node_exporter's
 * textfile collector.  Own prefix "iowprobe_", never node_cpu_*: these
 * counters overlap (iowait and blk are parts of idle) and must not be
 * summed with node_exporter's.  Counters are seconds since module load.
 */
#include <inttypes.h>

#include "fmt.h"
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
	{ "iowprobe_kernel_idle_seconds_total",
	  "The kernel's idle time (as in /proc/stat), read with the above.",
	  IOWPROBE_COL_k_idle_ns, true, false },
	{ "iowprobe_kernel_iowait_seconds_total",
	  "The kernel's iowait time (as in /proc/stat), read with the above.",
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

void fmt_prom(FILE *f, const struct iowstat_snapshot *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(metrics); i++)
		prom_metric(f, s, &metrics[i]);
	if (s->have & HAVE_PSI) {
		prom_psi(f, "some", s->psi_some_us);
		prom_psi(f, "full", s->psi_full_us);
	}
}
