/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_FMT_H
#define IOWSTAT_FMT_H

#include <stdio.h>

#include "delta.h"
#include "record.h"
#include "snapshot.h"
#include "view_cpus.h"
#include "view_top.h"

/* -o json: sysstat's "mpstat -o JSON" shape, new keys beside its own */
void fmt_json_begin(FILE *f, const struct iowstat_meta *m,
		    const struct iowstat_snapshot *first);
void fmt_json_sample(FILE *f, const struct iowstat_snapshot *cur,
		     const struct iowstat_delta *d, const struct cpu_sel *sel);
void fmt_json_end(FILE *f);
/* --top: a statistics entry with the interval's rows */
void fmt_json_top_sample(FILE *f, const struct iowstat_snapshot *cur,
			 const struct top_view *v);
/* --top: after the statistics, the Average: rows over the whole run */
void fmt_json_top_average(FILE *f, const struct top_view *v, double wall_ns);
/* between the statistics and the end: a "-- CMD" run's own figures */
void fmt_json_statistics_end(FILE *f);
void fmt_json_command(FILE *f, const struct cmd_result *c,
		      const struct iowstat_delta *acc,
		      const struct cpu_sel *sel);
void fmt_json_host_end(FILE *f);

/* -o csv: a header row, then one row per CPU per interval */
void fmt_csv_header(FILE *f);
void fmt_csv_sample(FILE *f, const struct iowstat_snapshot *cur,
		    const struct iowstat_delta *d, const struct cpu_sel *sel);

/* --top with -o csv: one row per process (cgroup) shown per interval */
void fmt_csv_top_header(FILE *f, enum iowprobe_owner_kind kind);
void fmt_csv_top_sample(FILE *f, const struct iowstat_snapshot *cur,
			const struct top_view *v);

/* -- CMD with -o csv: its summary, absolute nanoseconds per CPU */
void fmt_csv_command(FILE *f, const struct cmd_result *c,
		     const struct iowstat_delta *acc,
		     const struct cpu_sel *sel);

/* -- CMD: the parts of its tree's thread-seconds (fmt_tree.c) */
void fmt_text_tree(FILE *f, const struct tree_parts *t);
void fmt_json_tree(FILE *f, const struct tree_parts *t);
void fmt_csv_tree_header(FILE *f);
void fmt_csv_tree(FILE *f, const struct tree_parts *t);

/* -o prom: one exposition of the counters since load, in seconds */
void fmt_prom(FILE *f, const struct iowstat_snapshot *s);

#endif /* IOWSTAT_FMT_H */
