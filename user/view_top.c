// SPDX-License-Identifier: GPL-2.0-only
/*
 * view_top.c - --top: per interval, the processes (or, with --cgroup,
 * the cgroups) that waited most, from two reads of the module's procs
 * (cgroups) file.  A row is matched to its row in the earlier read by
 * key; one that was not there, or whose counters went backwards (a
 * module reload), counts from 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "util.h"
#include "view_top.h"

/*
 * prev_row - @r's row in the earlier read.  An exited row continues
 * the live one of its pid; a live row whose pid also has an exited row
 * now, that the earlier read did not have, is a new process on a reused
 * pid: the earlier live row was the one that exited.
 */
static const struct owner_row *prev_row(const struct owner_table *pt,
					const struct owner_table *ct,
					const struct owner_row *r)
{
	uint64_t key = owner_key(ct, r);
	const struct owner_row *p;

	if (r->v[IOWPROBE_OCOL_exited]) {
		p = owners_find(pt, key, true);
		return p ? p : owners_find(pt, key, false);
	}
	if (owners_find(ct, key, true) && !owners_find(pt, key, true))
		return NULL;
	return owners_find(pt, key, false);
}

static const int counted[] = {
	IOWPROBE_OCOL_sleeps, IOWPROBE_OCOL_wait_ns,
	IOWPROBE_OCOL_wait_blk_ns, IOWPROBE_OCOL_wa_ns,
};

/* went_back - a counter smaller than before: not the same row */
static bool went_back(const struct owner_row *p, const struct owner_row *r)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counted); i++)
		if (r->v[counted[i]] < p->v[counted[i]])
			return true;
	return false;
}

static double pct(uint64_t num, double den)
{
	return den > 0 ? 100.0 * (double)num / den : 0;
}

/* top_online_cpus - CPUs online in the cpus file (all present ones in a
 * file without the online column)
 */
unsigned int top_online_cpus(const struct iowstat_snapshot *s)
{
	unsigned int i, online = 0, present = 0;

	for (i = 0; i < s->nr_cpus; i++) {
		present += s->cpu[i].present;
		online += s->cpu[i].present &&
			  s->cpu[i].v[IOWPROBE_COL_online];
	}
	return online ? online : present;
}

/* table_now - the module's instant of the read; a file without rows has
 * none, and the sample's own clock stands in
 */
static uint64_t table_now(const struct iowstat_snapshot *s,
			  enum iowprobe_owner_kind k)
{
	return s->owners[k].n ? s->owners[k].now_ns : s->mono_ns;
}

/* one_row - @r's interval in @out; false when nothing changed */
static bool one_row(const struct owner_table *pt, const struct owner_table *ct,
		    const struct owner_row *r, double wall, unsigned int ncpus,
		    struct top_row *out)
{
	const struct owner_row *p = prev_row(pt, ct, r);
	uint64_t d[IOWPROBE_OCOL_NR] = { 0 };
	unsigned int i;
	bool changed = false;

	if (p && went_back(p, r))
		p = NULL;
	for (i = 0; i < ARRAY_SIZE(counted); i++) {
		d[counted[i]] = r->v[counted[i]] - (p ? p->v[counted[i]] : 0);
		changed |= d[counted[i]] != 0;
	}
	out->key = owner_key(ct, r);
	out->row = r;
	out->wait = pct(d[IOWPROBE_OCOL_wait_ns], wall);
	out->wa = pct(d[IOWPROBE_OCOL_wa_ns], wall * ncpus);
	out->blk = pct(d[IOWPROBE_OCOL_wait_blk_ns],
		       d[IOWPROBE_OCOL_wait_ns]);
	return changed;
}

/* cmp_top - most %wa first, then most %wait, then by key: stable output */
static int cmp_top(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->wa != y->wa)
		return x->wa > y->wa ? -1 : 1;
	if (x->wait != y->wait)
		return x->wait > y->wait ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	/* a reused pid: the exited process first */
	return (int)y->row->v[IOWPROBE_OCOL_exited] -
	       (int)x->row->v[IOWPROBE_OCOL_exited];
}

/**
 * top_compute() - the interval from @p to @c of @v->kind's rows that
 * changed, most iowait first, at most @limit of them.
 * Return: 0 or -ENOMEM.
 */
int top_compute(struct top_view *v, const struct iowstat_snapshot *p,
		const struct iowstat_snapshot *c, unsigned int limit)
{
	const struct owner_table *pt = &p->owners[v->kind];
	const struct owner_table *ct = &c->owners[v->kind];
	uint64_t t0 = table_now(p, v->kind), t1 = table_now(c, v->kind);
	double wall = t1 > t0 ? (double)(t1 - t0) : 0;
	unsigned int ncpus = top_online_cpus(c);
	struct top_row *nr;
	size_t i;

	v->n = 0;
	if (ct->n > v->cap) {
		nr = realloc(v->rows, ct->n * sizeof(*nr));
		if (!nr)
			return -ENOMEM;
		v->rows = nr;
		v->cap = ct->n;
	}
	for (i = 0; i < ct->n; i++)
		if (one_row(pt, ct, &ct->row[i], wall, ncpus, &v->rows[v->n]))
			v->n++;
	if (v->n > 1)	/* no rows: none allocated, and qsort wants some */
		qsort(v->rows, v->n, sizeof(*v->rows), cmp_top);
	if (v->n > limit)
		v->n = limit;
	return 0;
}

void top_free(struct top_view *v)
{
	free(v->rows);
	v->rows = NULL;
	v->n = 0;
	v->cap = 0;
}

/* comm_shown - a process may name itself anything: no control characters */
static void comm_shown(const char *comm, char *out, size_t n)
{
	size_t i;

	for (i = 0; comm[i] && i + 1 < n; i++)
		out[i] = (unsigned char)comm[i] < 0x20 || comm[i] == 0x7f ?
			 '?' : comm[i];
	out[i] = '\0';
}

/**
 * top_print_block() - a blank line, the header, then the rows, pidstat's
 * way: the numbers first, the names that may hold blanks last.
 */
void top_print_block(FILE *f, const char *label, const struct top_view *v)
{
	char dev[32], comm[OWNER_COMM_MAX];
	const struct top_row *r;
	size_t i;

	if (v->kind == IOWPROBE_PROCS)
		fprintf(f, "\n%-11s %7s %7s %7s %7s  %-8s %-16s %s\n", label,
			"PID", "%wait", "%wa", "%blk", "DEVICE", "COMMAND",
			"CGROUP");
	else
		fprintf(f, "\n%-11s %7s %7s %7s  %-8s %s\n", label, "%wait",
			"%wa", "%blk", "DEVICE", "CGROUP");
	for (i = 0; i < v->n; i++) {
		r = &v->rows[i];
		if (v->kind == IOWPROBE_PROCS) {
			comm_shown(r->row->comm, comm, sizeof(comm));
			fprintf(f, "%-11s %7llu %7.2f %7.2f %7.2f  %-8s %-16s "
				"%s\n", label, (unsigned long long)r->key,
				r->wait, r->wa, r->blk,
				names_dev(r->row, dev, sizeof(dev)), comm,
				names_cgroup(r->row->v[IOWPROBE_OCOL_cgroup]));
		} else {
			fprintf(f, "%-11s %7.2f %7.2f %7.2f  %-8s %s\n", label,
				r->wait, r->wa, r->blk,
				names_dev(r->row, dev, sizeof(dev)),
				names_cgroup(r->key));
		}
	}
}
