// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_summary.c - the summary of a "-- CMD" run in -o json and -o csv
 *
 * Written to stdout once CMD has ended (the text summary goes to stderr,
 * as time(1) does).  Beside the percentages, the absolute nanoseconds of
 * each CPU over exactly CMD's lifetime, so a script can compare them with
 * a ground truth of its own; then the parts of its tree's thread-seconds
 * (fmt_tree.c).
 */
#include <inttypes.h>

#include "fmt.h"
#include "util.h"

/*
 * in_summary - the per-CPU columns the summary carries: the split and the
 * kernel's view, under their cpus file names
 */
static bool in_summary(unsigned int col)
{
	return iowprobe_col_required(iowstat_col_kind[col]);
}

static void json_cpu(FILE *f, const char *cpu, const uint64_t *v, bool last)
{
	unsigned int i;

	fprintf(f, "\t\t\t\t\t{\"cpu\": \"%s\"", cpu);
	for (i = 0; i < IOWPROBE_COL_NR; i++)
		if (in_summary(i))
			fprintf(f, ", \"%s\": %" PRIu64, iowstat_col_name[i],
				v[i]);
	fprintf(f, "}%s\n", last ? "" : ",");
}

/* fmt_json_command() - the "command" object: CMD's times and status */
void fmt_json_command(FILE *f, const struct cmd_result *c,
		      const struct iowstat_delta *acc,
		      const struct cpu_sel *sel)
{
	unsigned int i, last = 0;
	char id[16];

	for (i = 0; i < acc->nr_cpus; i++)
		if (cpu_sel_has(sel, i))
			last = i + 1;
	fprintf(f, "\t\t\t\"command\": {\n\t\t\t\t\"real-ns\": %" PRIu64
		", \"user-us\": %" PRIu64 ", \"sys-us\": %" PRIu64,
		c->wall_ns, c->user_us, c->sys_us);
	if (c->have_runq)
		fprintf(f, ", \"runq-ns\": %" PRIu64, c->runq_ns);
	fprintf(f, ", \"exit\": %d,\n\t\t\t\t\"cpu-ns\": [\n", c->status);
	json_cpu(f, "all", acc->all, last == 0);
	for (i = 0; i < acc->nr_cpus; i++) {
		if (!cpu_sel_has(sel, i))
			continue;
		snprintf(id, sizeof(id), "%u", i);
		json_cpu(f, id, acc->cpu[i], i + 1 == last);
	}
	fputs("\t\t\t\t]", f);
	fmt_json_tree(f, &c->tree);
	fputs("\n\t\t\t}", f);
}

static void csv_row(FILE *f, const struct cmd_result *c, const char *cpu,
		    const uint64_t *v)
{
	unsigned int i;

	fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", c->wall_ns,
		c->user_us, c->sys_us);
	if (c->have_runq)
		fprintf(f, "%" PRIu64, c->runq_ns);
	fprintf(f, ",%d,%s", c->status, cpu);
	for (i = 0; i < IOWPROBE_COL_NR; i++)
		if (in_summary(i))
			fprintf(f, ",%" PRIu64, v[i]);
	fmt_csv_tree(f, &c->tree);
	fputc('\n', f);
}

/* fmt_csv_command() - a header row, then "all" and one row per CPU */
void fmt_csv_command(FILE *f, const struct cmd_result *c,
		     const struct iowstat_delta *acc,
		     const struct cpu_sel *sel)
{
	unsigned int i;
	char id[16];

	fputs("real_ns,user_us,sys_us,runq_ns,exit,cpu", f);
	for (i = 0; i < IOWPROBE_COL_NR; i++)
		if (in_summary(i))
			fprintf(f, ",%s", iowstat_col_name[i]);
	fmt_csv_tree_header(f);
	fputc('\n', f);
	csv_row(f, c, "all", acc->all);
	for (i = 0; i < acc->nr_cpus; i++) {
		if (!cpu_sel_has(sel, i))
			continue;
		snprintf(id, sizeof(id), "%u", i);
		csv_row(f, c, id, acc->cpu[i]);
	}
}
