// SPDX-License-Identifier: GPL-2.0-only
/*
 * view_top.c - --top: per interval, the processes (or, with --cgroup,
 * the cgroups) that waited most, from two reads of the module's procs
 * (cgroups) file.  A row is matched to its row in the earlier read by
 * key; one that was not there, or whose counters went backwards (a
 * module reload), counts from 0.
 */
#include <errno.h>
#include <stdint.h>
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
#define IOWPROBE_WAIT_KIND(kind)	IOWPROBE_OCOL_wait_##kind##_ns,
#include "iowprobe_wait_kinds.h"
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

/*
 * interval_wall - ns from @p's read to @c's: the module's instants when both
 * reads have rows, else the samples' own (the module's clock is not
 * CLOCK_MONOTONIC, so the two never mix); 0 if time did not move
 */
static double interval_wall(const struct iowstat_snapshot *p,
			    const struct iowstat_snapshot *c,
			    enum iowprobe_owner_kind k)
{
	bool module = p->owners[k].n && c->owners[k].n;
	uint64_t t0 = module ? p->owners[k].now_ns : p->mono_ns;
	uint64_t t1 = module ? c->owners[k].now_ns : c->mono_ns;

	return t1 > t0 ? (double)(t1 - t0) : 0;
}

/*
 * row_delta - @r's counted columns less its row in @pt (from 0 for a new
 * process); Return: that row, NULL when there is none, and whether any
 * counter moved in *@changed
 */
static const struct owner_row *row_delta(const struct owner_table *pt,
					 const struct owner_table *ct,
					 const struct owner_row *r, uint64_t *d,
					 bool *changed)
{
	const struct owner_row *p = prev_row(pt, ct, r);
	unsigned int i;

	if (p && went_back(p, r))
		p = NULL;
	*changed = false;
	for (i = 0; i < ARRAY_SIZE(counted); i++) {
		d[counted[i]] = r->v[counted[i]] - (p ? p->v[counted[i]] : 0);
		*changed |= d[counted[i]] != 0;
	}
	return p;
}

/* figures - the percentages of deltas @d over @wall ns on @cpu_ns of CPUs */
static void figures(const uint64_t *d, double wall, double cpu_ns,
		    struct top_row *out)
{
	int k;

	out->wait = pct(d[IOWPROBE_OCOL_wait_ns], wall);
	out->wa = pct(d[IOWPROBE_OCOL_wa_ns], cpu_ns);
	out->blk = pct(d[IOWPROBE_OCOL_wait_blk_ns],
		       d[IOWPROBE_OCOL_wait_ns]);
	for (k = 0; k < IOWPROBE_WAIT_KINDS; k++)
		out->kinds[k] = pct(d[IOWPROBE_OCOL_WAIT(k)], wall);
	out->waits_in = owner_wait_dominant(d, &out->waits_in_share);
	out->waits_in_share *= 100;
}

/* one_row - @r's interval in @out; false when nothing changed */
static bool one_row(const struct owner_table *pt, const struct owner_table *ct,
		    const struct owner_row *r, double wall, unsigned int ncpus,
		    struct top_row *out)
{
	uint64_t d[IOWPROBE_OCOL_NR] = { 0 };
	bool changed;

	row_delta(pt, ct, r, d, &changed);
	out->key = owner_key(ct, r);
	out->row = r;
	figures(d, wall, wall * ncpus, out);
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

/* sort_limit - most iowait first, at most @limit rows */
static void sort_limit(struct top_view *v, unsigned int limit)
{
	if (v->n > 1)	/* no rows: none allocated, and qsort wants some */
		qsort(v->rows, v->n, sizeof(*v->rows), cmp_top);
	if (v->n > limit)
		v->n = limit;
}

/* view_room - room for @n rows in @v */
static int view_room(struct top_view *v, size_t n)
{
	struct top_row *nr;

	if (n <= v->cap)
		return 0;
	nr = realloc(v->rows, n * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	v->rows = nr;
	v->cap = n;
	return 0;
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
	double wall = interval_wall(p, c, v->kind);
	unsigned int ncpus = top_online_cpus(c);
	size_t i;

	v->n = 0;
	if (view_room(v, ct->n))
		return -ENOMEM;
	for (i = 0; i < ct->n; i++)
		if (one_row(pt, ct, &ct->row[i], wall, ncpus, &v->rows[v->n]))
			v->n++;
	sort_limit(v, limit);
	return 0;
}

void top_free(struct top_view *v)
{
	free(v->rows);
	v->rows = NULL;
	v->n = 0;
	v->cap = 0;
}

/*
 * total_of - the total that @r's row in @pt (@p) added to, if this
 * interval has not continued it already; 0, or its index + 1
 */
static size_t total_of(const struct top_avg *a, const struct owner_table *pt,
		       const struct owner_row *p)
{
	size_t k;

	if (!p || a->nof != pt->n)
		return 0;
	k = a->of[p - pt->row];
	return k && a->t[k - 1].seen != a->intervals ? k : 0;
}

/* new_total - a process (cgroup) first seen waiting; 0 on no memory */
static size_t new_total(struct top_avg *a)
{
	size_t cap = a->cap ? 2 * a->cap : 64;
	struct top_total *nt;

	if (a->n == a->cap) {
		nt = realloc(a->t, cap * sizeof(*nt));
		if (!nt)
			return 0;
		a->t = nt;
		a->cap = cap;
	}
	memset(&a->t[a->n], 0, sizeof(a->t[0]));
	return ++a->n;
}

/* add_row - @r's interval to its total; Return: the total's index + 1 */
static size_t add_row(struct top_avg *a, const struct owner_table *pt,
		      const struct owner_table *ct, const struct owner_row *r)
{
	uint64_t d[IOWPROBE_OCOL_NR] = { 0 };
	const struct owner_row *p;
	struct top_total *t;
	unsigned int i;
	bool changed;
	size_t k;

	p = row_delta(pt, ct, r, d, &changed);
	k = total_of(a, pt, p);
	if (!k && !changed)
		return 0;	/* it never waited: nothing to average yet */
	if (!k)
		k = new_total(a);
	if (!k)
		return SIZE_MAX;
	t = &a->t[k - 1];
	t->row = *r;
	t->seen = a->intervals;
	for (i = 0; i < ARRAY_SIZE(counted); i++)
		t->d[counted[i]] += d[counted[i]];
	return k;
}

/**
 * top_avg_add() - add the interval from @p to @c to the run's sums.  A
 * row is matched to its row in @p as top_compute() matches it, and
 * continues that row's total; a row no longer read (an exited process,
 * reaped) keeps what it added.
 * Return: 0 or -ENOMEM.
 */
int top_avg_add(struct top_avg *a, const struct iowstat_snapshot *p,
		const struct iowstat_snapshot *c)
{
	const struct owner_table *pt = &p->owners[a->kind];
	const struct owner_table *ct = &c->owners[a->kind];
	double wall = interval_wall(p, c, a->kind);
	size_t i, *of = calloc(ct->n ? ct->n : 1, sizeof(*of));

	if (!of)
		return -ENOMEM;
	a->intervals++;
	for (i = 0; i < ct->n; i++) {
		of[i] = add_row(a, pt, ct, &ct->row[i]);
		if (of[i] == SIZE_MAX) {
			free(of);
			return -ENOMEM;
		}
	}
	free(a->of);
	a->of = of;
	a->nof = ct->n;
	a->wall += wall;
	a->cpu_ns += wall * top_online_cpus(c);
	return 0;
}

/**
 * top_avg_view() - the Average: rows in @v: each total over the run's
 * wall (and the online CPUs' time), sorted and limited as an interval's.
 * @v's rows point into @a.  Return: 0 or -ENOMEM.
 */
int top_avg_view(const struct top_avg *a, struct top_view *v,
		 unsigned int limit)
{
	struct owner_table kt = { .kind = a->kind };
	struct top_row *out;
	size_t i;

	v->kind = a->kind;
	v->n = 0;
	if (view_room(v, a->n))
		return -ENOMEM;
	for (i = 0; i < a->n; i++) {
		out = &v->rows[v->n++];
		out->key = owner_key(&kt, &a->t[i].row);
		out->row = &a->t[i].row;
		figures(a->t[i].d, a->wall, a->cpu_ns, out);
	}
	sort_limit(v, limit);
	return 0;
}

void top_avg_free(struct top_avg *a)
{
	free(a->t);
	free(a->of);
	a->t = NULL;
	a->of = NULL;
	a->n = 0;
	a->cap = 0;
	a->nof = 0;
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

/*
 * top_waits_in() - WAITS-IN: where most of the row's wait was, as
 * "kind:NN%" of the kinds' sum, or "-" when none has a kind
 */
const char *top_waits_in(const struct top_row *r, char *buf, size_t n)
{
	if (r->waits_in < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%s:%.0f%%", owner_wait_kind_name(r->waits_in),
			 r->waits_in_share);
	return buf;
}

/**
 * top_print_block() - a blank line, the header, then the rows, pidstat's
 * way: the numbers first, the names that may hold blanks last.
 */
void top_print_block(FILE *f, const char *label, const struct top_view *v)
{
	char devbuf[32], in[32], comm[OWNER_COMM_MAX];
	const struct top_row *r;
	const char *dev;
	size_t i;

	if (v->kind == IOWPROBE_PROCS)
		fprintf(f, "\n%-11s %7s %7s %7s %7s  %-8s %-10s %-16s %s\n",
			label, "PID", "%wait", "%wa", "%blk", "DEVICE",
			"WAITS-IN", "COMMAND", "CGROUP");
	else
		fprintf(f, "\n%-11s %7s %7s %7s  %-8s %-10s %s\n", label,
			"%wait", "%wa", "%blk", "DEVICE", "WAITS-IN", "CGROUP");
	for (i = 0; i < v->n; i++) {
		r = &v->rows[i];
		dev = names_dev(r->row, devbuf, sizeof(devbuf));
		top_waits_in(r, in, sizeof(in));
		if (v->kind == IOWPROBE_PROCS) {
			comm_shown(r->row->comm, comm, sizeof(comm));
			fprintf(f, "%-11s %7llu %7.2f %7.2f %7.2f  %-8s %-10s "
				"%-16s %s\n", label,
				(unsigned long long)r->key, r->wait, r->wa,
				r->blk, dev, in, comm,
				names_cgroup(r->row->v[IOWPROBE_OCOL_cgroup]));
		} else {
			fprintf(f, "%-11s %7.2f %7.2f %7.2f  %-8s %-10s %s\n",
				label, r->wait, r->wa, r->blk, dev, in,
				names_cgroup(r->key));
		}
	}
}
