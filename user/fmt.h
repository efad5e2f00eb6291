/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_FMT_H
#define IOWSTAT_FMT_H

#include <stddef.h>
#include <stdio.h>

#include "delta.h"
#include "record.h"
#include "snapshot.h"
#include "view_cpus.h"
#include "view_top.h"

/*
 * struct fmt_key - a key of a "cpu-load" entry (-o json) and its csv
 * column: the percentage at @off of struct sys_row, sysstat's keys from
 * /proc/stat's ticks as mpstat computes them, or of struct cpu_row,
 * iowprobe's: the kernel's figures read at the same instant as its exact
 * ones (-P's %idle %iowait), then its exact split (%xidle ...).  In
 * order, each list ends with a NULL key; man/iowstat.8 describes each
 * ("Keys of -o json and -o csv").
 */
struct fmt_key {
	const char *json, *csv;
	size_t off;
};

extern const struct fmt_key fmt_sys_keys[], fmt_cpu_keys[];
double fmt_key_value(const struct fmt_key *k, const void *row);

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
