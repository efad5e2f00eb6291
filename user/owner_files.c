// SPDX-License-Identifier: GPL-2.0-only
/*
 * owner_files.c - the parser of the module's procs and cgroups files:
 * found by column name, as cpus_file.c finds the cpus columns, so that
 * columns a later module adds (just before comm) are skipped rather than
 * misread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpus_file.h"
#include "owner_files.h"
#include "procfs.h"
#include "util.h"

static const char *const col_name[IOWPROBE_OCOL_NR] = {
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	STRINGIFY(name),
#include "iowprobe_owner_cols.h"
};

static const char *const wait_kind_name[IOWPROBE_WAIT_KINDS] = {
#define IOWPROBE_WAIT_KIND(kind)	STRINGIFY(kind),
#include "iowprobe_wait_kinds.h"
};

/*
 * which columns each file has (1 or IOWPROBE_OCOL_ADDED): the reader
 * needs every one of them but the added ones, 0 from an older module
 */
static const unsigned char col_in[IOWPROBE_OWNER_KINDS][IOWPROBE_OCOL_NR] = {
	{
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	in_procs,
#include "iowprobe_owner_cols.h"
	}, {
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	in_cgroups,
#include "iowprobe_owner_cols.h"
	},
};

_Static_assert(IOWPROBE_OCOL_NR <= COLS_MAX, "col_map has 64 bits");

/* parse_header - the columns by name; comm, its text, is the last */
static const char *parse_header(enum iowprobe_owner_kind kind,
				struct span line, struct col_map *c)
{
	struct span tok;
	const char *why;
	unsigned int i;

	why = col_map_parse(&line, col_name, IOWPROBE_OCOL_NR,
			    IOWPROBE_OCOL_comm, c);
	if (why)
		return why;
	if (span_next_token(&line, &tok))
		return "comm is not the last column";
	for (i = 0; i < IOWPROBE_OCOL_NR; i++)
		if (col_in[kind][i] == 1 && !(c->found & (1ull << i)))
			return "a required column is missing";
	return NULL;
}

/* owners_parse_dev - "-" or "major:minor" */
int owners_parse_dev(struct span tok, struct owner_row *r)
{
	const char *colon = memchr(tok.p, ':', tok.len);
	struct span major, minor;
	uint64_t maj, min;

	r->has_dev = false;
	if (span_eq(tok, "-"))
		return 0;
	if (!colon)
		return -EINVAL;
	major = (struct span){ tok.p, colon - tok.p };
	minor = (struct span){ colon + 1, tok.p + tok.len - colon - 1 };
	if (parse_u64_span(major, &maj) || parse_u64_span(minor, &min) ||
	    maj > UINT32_MAX || min > UINT32_MAX)
		return -EINVAL;
	r->has_dev = true;
	r->dev_major = maj;
	r->dev_minor = min;
	return 0;
}

/* take_comm - the rest of the line after one blank: a name may hold blanks */
static const char *take_comm(struct span *line, struct owner_row *r)
{
	size_t n;

	if (!line->len || (*line->p != ' ' && *line->p != '\t'))
		return "too few values";
	n = line->len - 1;
	if (n >= sizeof(r->comm))
		n = sizeof(r->comm) - 1;
	memcpy(r->comm, line->p + 1, n);
	r->comm[n] = '\0';
	line->len = 0;
	return NULL;
}

static const char *parse_row(struct span line, const struct col_map *c,
			     struct owner_row *r)
{
	struct span tok;
	unsigned int i;
	uint64_t v;

	memset(r, 0, sizeof(*r));
	if (line.len && line.p[0] == '#')
		return "a comment among the rows (the module ran out of "
		       "memory?); read again";
	for (i = 0; i < c->n; i++) {
		if (c->map[i] == IOWPROBE_OCOL_comm) {
			if (take_comm(&line, r))
				return "too few values";
			continue;
		}
		if (!span_next_token(&line, &tok))
			return "too few values";
		if (c->map[i] == IOWPROBE_OCOL_dev) {
			if (owners_parse_dev(tok, r))
				return "bad device (want major:minor or -)";
		} else if (parse_u64_span(tok, &v)) {
			return "bad number";
		} else if (c->map[i] != COL_NONE) {
			r->v[c->map[i]] = v;
		}
	}
	if (span_next_token(&line, &tok))
		return "too many values";
	if (r->v[IOWPROBE_OCOL_exited] > 1)
		return "exited is neither 0 nor 1";
	return NULL;
}

static struct owner_row *next_row(struct owner_table *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	struct owner_row *nr;

	if (t->n == t->cap) {
		nr = realloc(t->row, cap * sizeof(*nr));
		if (!nr)
			return NULL;
		t->row = nr;
		t->cap = cap;
	}
	return &t->row[t->n];
}

uint64_t owner_key(const struct owner_table *t, const struct owner_row *r)
{
	return r->v[t->kind == IOWPROBE_PROCS ? IOWPROBE_OCOL_pid :
						IOWPROBE_OCOL_cgroup];
}

/* cmp_key - by key, then live before exited; the table's kind is global */
static enum iowprobe_owner_kind sort_kind;

static int cmp_key3(uint64_t ka, uint64_t ea, uint64_t kb, uint64_t eb)
{
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return (ea > eb) - (ea < eb);
}

static int cmp_rows(const void *a, const void *b)
{
	const struct owner_row *x = a, *y = b;
	int k = sort_kind == IOWPROBE_PROCS ? IOWPROBE_OCOL_pid :
					      IOWPROBE_OCOL_cgroup;

	return cmp_key3(x->v[k], x->v[IOWPROBE_OCOL_exited], y->v[k],
			y->v[IOWPROBE_OCOL_exited]);
}

/**
 * owners_parse() - parse the procs or cgroups file (ABI 1) into @t,
 * whose rows are reused.
 * Return: 0, -ENOMEM, or -EINVAL with @pe (debugfs_err_abi: a foreign ABI).
 */
int owners_parse(enum iowprobe_owner_kind kind, const char *buf, size_t len,
		 struct owner_table *t, struct parse_err *pe)
{
	struct span b = { buf, len }, line;
	struct col_map c;
	struct owner_row *r;
	const char *why;
	unsigned int n = 2;

	t->kind = kind;
	t->n = 0;
	t->now_ns = 0;
	if (!span_next_line(&b, &line) || !span_eq(line, IOWPROBE_ABI_LINE))
		return parse_fail(pe, 1, debugfs_err_abi);
	if (!span_next_line(&b, &line))
		return parse_fail(pe, 2, "no header line");
	why = parse_header(kind, line, &c);
	if (why)
		return parse_fail(pe, 2, why);
	t->has_wait_kinds = c.found & (1ull << IOWPROBE_OCOL_wait_uring_ns);
	while (span_next_line(&b, &line)) {
		n++;
		r = next_row(t);
		if (!r)
			return -ENOMEM;
		why = parse_row(line, &c, r);
		if (why)
			return parse_fail(pe, n, why);
		t->n++;
	}
	if (t->n)
		t->now_ns = t->row[0].v[IOWPROBE_OCOL_now_ns];
	sort_kind = kind;
	if (t->n > 1)	/* no rows: none allocated, and qsort wants some */
		qsort(t->row, t->n, sizeof(*t->row), cmp_rows);
	return 0;
}

void owners_free(struct owner_table *t)
{
	free(t->row);
	t->row = NULL;
	t->n = 0;
	t->cap = 0;
}

/* owners_find - the row of @key that is live or exited, or NULL */
const struct owner_row *owners_find(const struct owner_table *t,
				    uint64_t key, bool exited)
{
	size_t lo = 0, hi = t->n, mid;
	const struct owner_row *r;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		r = &t->row[mid];
		c = cmp_key3(owner_key(t, r), r->v[IOWPROBE_OCOL_exited], key,
			     exited);
		if (!c)
			return r;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* owner_col_name() - column @col's name in the file's header */
const char *owner_col_name(int col)
{
	return col >= 0 && col < IOWPROBE_OCOL_NR ? col_name[col] : "";
}

/* owner_col_in() - whether the @kind file has column @col */
bool owner_col_in(enum iowprobe_owner_kind kind, int col)
{
	return kind < IOWPROBE_OWNER_KINDS && col >= 0 &&
	       col < IOWPROBE_OCOL_NR && col_in[kind][col];
}

/* owner_wait_kind_name() - "uring", "rw", ... for @kind; "-" for none */
const char *owner_wait_kind_name(unsigned int kind)
{
	return kind < IOWPROBE_WAIT_KINDS ? wait_kind_name[kind] : "-";
}

/*
 * owner_wait_dominant() - the kind of most of the wait in @v, a row's
 * columns or their deltas (indexed by enum iowprobe_owner_col); the
 * earlier kind of a tie.  Return: the kind, or -1 when no wait has a
 * kind (none, or a module without the wait_<kind>_ns columns); in
 * @share, when not NULL, its part of the kinds' sum, 0 to 1.
 */
int owner_wait_dominant(const uint64_t *v, double *share)
{
	uint64_t sum = 0, top = 0;
	int k, kind = -1;

	for (k = 0; k < IOWPROBE_WAIT_KINDS; k++) {
		sum += v[IOWPROBE_OCOL_WAIT(k)];
		if (v[IOWPROBE_OCOL_WAIT(k)] > top) {
			top = v[IOWPROBE_OCOL_WAIT(k)];
			kind = k;
		}
	}
	if (share)
		*share = sum ? (double)top / (double)sum : 0;
	return kind;
}
