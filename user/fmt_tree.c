// SPDX-License-Identifier: GPL-2.0-only
/*
 * fmt_tree.c - the parts of the thread-seconds of CMD's tree, after the
 * summary: "Tree:" rows in text, a "tree" object in -o json, columns in
 * -o csv.  A part that could not be measured is "-" (json: left out, csv:
 * empty), and one line says which is missing and why.
 */
#include <inttypes.h>

#include "fmt.h"

#define NS_PER_S	1e9

/*
 * tree_printed - a recording without the tree file (an older iowstat's)
 * has no tree: its replay prints none
 */
static bool tree_printed(const struct tree_parts *t)
{
	return t->have_tree || t->have_iowait || t->no_tree[0] ||
	       t->no_iowait[0];
}

static void sec(FILE *f, int width, bool have, double ns)
{
	if (have)
		fprintf(f, " %*.3f", width, ns / NS_PER_S);
	else
		fprintf(f, " %*s", width, "-");
}

static void pct(FILE *f, int width, bool have, double ns, double of)
{
	if (have && of > 0)
		fprintf(f, " %*.2f", width, 100.0 * ns / of);
	else
		fprintf(f, " %*s", width, "-");
}

/* the notes: what is missing, what is not counted, what disagrees */
static void tree_notes(FILE *f, const struct tree_parts *t)
{
	if (t->no_tree[0])
		fprintf(f, "%-11s missing: processes, threads, thread-s, user, "
			"sys, runq, other: %s\n", "Tree:", t->no_tree);
	if (t->no_iowait[0])
		fprintf(f, "%-11s missing: iowait, iowblk, wa: %s; other "
			"includes iowait\n", "Tree:", t->no_iowait);
	if (t->left)
		fprintf(f, "%-11s %u processes of the tree still ran at the "
			"end: not counted, moved back to iowstat's cgroup\n",
			"Tree:", t->left);
	if (t->lost)
		fprintf(f, "%-11s some exit records were lost (no memory or "
			"the socket overflowed): the parts are short\n",
			"Tree:");
	if (t->have_tree && t->other_ns < 0)
		fprintf(f, "%-11s the measured parts exceed thread-s by "
			"%.3f s\n", "Tree:", -(double)t->other_ns / NS_PER_S);
}

/**
 * fmt_text_tree() - a blank line, how many processes and threads, the
 * header, the seconds of each part, their share of the thread-seconds
 * (each row says its unit), then the notes
 */
void fmt_text_tree(FILE *f, const struct tree_parts *t)
{
	bool tr = t->have_tree, io = t->have_iowait;
	double all = t->thread_ns;

	if (!tree_printed(t))
		return;
	fputc('\n', f);
	if (tr)
		fprintf(f, "%-11s %u processes, %u threads\n", "Tree:",
			t->processes, t->threads);
	fprintf(f, "%-11s %4s %9s %8s %8s %8s %8s %8s %8s %8s\n", "Tree:",
		"unit", "thread-s", "user", "sys", "runq", "iowait", "other",
		"iowblk", "wa");
	fprintf(f, "%-11s %4s", "Tree:", "s");
	sec(f, 9, tr, t->thread_ns);
	sec(f, 8, tr, t->user_ns);
	sec(f, 8, tr, t->sys_ns);
	sec(f, 8, tr, t->runq_ns);
	sec(f, 8, io, t->iowait_ns);
	sec(f, 8, tr, t->other_ns);
	sec(f, 8, io, t->iowait_blk_ns);
	sec(f, 8, io, t->wa_ns);
	fprintf(f, "\n%-11s %4s", "Tree:", "%");
	pct(f, 9, tr, t->thread_ns, all);
	pct(f, 8, tr, t->user_ns, all);
	pct(f, 8, tr, t->sys_ns, all);
	pct(f, 8, tr, t->runq_ns, all);
	pct(f, 8, tr && io, t->iowait_ns, all);
	pct(f, 8, tr, t->other_ns, all);
	pct(f, 8, tr && io, t->iowait_blk_ns, all);
	fputc('\n', f);
	tree_notes(f, t);
}

static void json_u64(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ", \"%s\": %" PRIu64, key, v);
}

/* fmt_json_tree() - ",\n "tree": {...}" inside the "command" object */
void fmt_json_tree(FILE *f, const struct tree_parts *t)
{
	if (!tree_printed(t))
		return;
	/* complete: every part measured and no thread left out; a negative
	 * other-sleep-ns is a disagreement of clocks, said by its own sign
	 */
	fputs(",\n\t\t\t\t\"tree\": {\"complete\": ", f);
	fputs(t->have_tree && t->have_iowait && !t->left && !t->lost ?
	      "true" : "false", f);
	if (t->have_tree) {
		fprintf(f, ", \"processes\": %u, \"threads\": %u",
			t->processes, t->threads);
		json_u64(f, "thread-ns", t->thread_ns);
		json_u64(f, "user-ns", t->user_ns);
		json_u64(f, "sys-ns", t->sys_ns);
		json_u64(f, "runq-ns", t->runq_ns);
		fprintf(f, ", \"%s\": %" PRId64, t->have_iowait ?
			"other-sleep-ns" : "sleep-ns", t->other_ns);
		json_u64(f, "tick-ns", t->tick_ns);
	}
	if (t->have_tree && t->have_blkio)
		json_u64(f, "blkio-delay-ns", t->blkio_ns);
	if (t->have_iowait) {
		json_u64(f, "iowait-ns", t->iowait_ns);
		json_u64(f, "iowait-blk-ns", t->iowait_blk_ns);
		json_u64(f, "wa-ns", t->wa_ns);
	}
	fprintf(f, ", \"still-running\": %u, \"lost\": %s", t->left,
		t->lost ? "true" : "false");
	if (t->no_tree[0])
		fprintf(f, ", \"no-tree\": \"%s\"", t->no_tree);
	if (t->no_iowait[0])
		fprintf(f, ", \"no-iowait\": \"%s\"", t->no_iowait);
	fputc('}', f);
}

/* the csv columns, after the per-CPU ones: empty where not measured */
void fmt_csv_tree_header(FILE *f)
{
	fputs(",tree_processes,tree_threads,tree_thread_ns,tree_user_ns,"
	      "tree_sys_ns,tree_runq_ns,tree_iowait_ns,tree_other_ns,"
	      "tree_iowait_blk_ns,tree_wa_ns", f);
}

static void csv_u64(FILE *f, bool have, uint64_t v)
{
	if (have)
		fprintf(f, ",%" PRIu64, v);
	else
		fputc(',', f);
}

void fmt_csv_tree(FILE *f, const struct tree_parts *t)
{
	bool tr = t->have_tree, io = t->have_iowait;

	csv_u64(f, tr, t->processes);
	csv_u64(f, tr, t->threads);
	csv_u64(f, tr, t->thread_ns);
	csv_u64(f, tr, t->user_ns);
	csv_u64(f, tr, t->sys_ns);
	csv_u64(f, tr, t->runq_ns);
	csv_u64(f, io, t->iowait_ns);
	if (tr)
		fprintf(f, ",%" PRId64, t->other_ns);
	else
		fputc(',', f);
	csv_u64(f, io, t->iowait_blk_ns);
	csv_u64(f, io, t->wa_ns);
}
