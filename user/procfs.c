// SPDX-License-Identifier: GPL-2.0-only
/*
 * procfs.c - parsers of /proc/stat, /proc/vmstat, /proc/meminfo and
 * /proc/pressure/io.  Each takes a buffer, not a path, so that replay and
 * fuzz targets use the same code as live sampling.  Unknown lines are
 * skipped (kernels add lines); a known line that does not parse is an error.
 */
#include <errno.h>
#include <string.h>

#include "procfs.h"
#include "util.h"

/* parse_fail() - say where and why in @pe (if any): -EINVAL */
int parse_fail(struct parse_err *pe, unsigned int line, const char *why)
{
	if (pe) {
		pe->line = line;
		pe->why = why;
	}
	return -EINVAL;
}

/* Kernels before 2.6.33 print fewer tick columns; missing ones are 0. */
static int parse_ticks(struct span line, struct iowstat_ticks *t)
{
	struct span tok;
	unsigned int i = 0;

	memset(t, 0, sizeof(*t));
	while (i < T_NR && span_next_token(&line, &tok)) {
		if (parse_u64_span(tok, &t->t[i]))
			return -EINVAL;
		i++;
	}
	if (i < 4)
		return -EINVAL;
	t->present = true;
	return 0;
}

static int parse_cpu_line(struct span name, struct span rest,
			  struct iowstat_snapshot *s)
{
	struct span id = { name.p + 3, name.len - 3 };
	uint64_t cpu;

	if (id.len == 0)
		return parse_ticks(rest, &s->stat_all);
	if (parse_u64_span(id, &cpu) || cpu >= IOWSTAT_MAX_CPUS)
		return -EINVAL;
	if (cpu + 1 > s->nr_stat_cpus)
		s->nr_stat_cpus = cpu + 1;
	return parse_ticks(rest, &s->stat_cpu[cpu]);
}

/* first_number - the first token of rest as u64 (intr has many more) */
static int first_number(struct span rest, uint64_t *v)
{
	struct span tok;

	if (!span_next_token(&rest, &tok))
		return -EINVAL;
	return parse_u64_span(tok, v);
}

static void stat_reset(struct iowstat_snapshot *s)
{
	memset(&s->stat_all, 0, sizeof(s->stat_all));
	memset(s->stat_cpu, 0, sizeof(s->stat_cpu));
	s->nr_stat_cpus = 0;
	s->intr = 0;
	s->ctxt = 0;
	s->procs_running = 0;
	s->procs_blocked = 0;
}

/**
 * procfs_parse_stat() - parse /proc/stat text into @s.
 * Return: 0 or -EINVAL (with @pe set when not NULL).
 */
int procfs_parse_stat(const char *buf, size_t len,
		      struct iowstat_snapshot *s, struct parse_err *pe)
{
	struct span b = { buf, len }, line, name;
	unsigned int n = 0, seen = 0;
	uint64_t *num;
	int err;

	stat_reset(s);
	while (span_next_line(&b, &line)) {
		n++;
		if (!span_next_token(&line, &name))
			continue;
		num = NULL;
		if (span_starts(name, "cpu")) {
			err = parse_cpu_line(name, line, s);
			seen |= name.len == 3;
		} else if (span_eq(name, "intr")) {
			num = &s->intr;
		} else if (span_eq(name, "ctxt")) {
			num = &s->ctxt;
			seen |= 2;
		} else if (span_eq(name, "procs_running")) {
			num = &s->procs_running;
		} else if (span_eq(name, "procs_blocked")) {
			num = &s->procs_blocked;
		} else {
			continue;
		}
		if (num)
			err = first_number(line, num);
		if (err)
			return parse_fail(pe, n, "bad number");
	}
	if (seen != 3)
		return parse_fail(pe, n, "no \"cpu\" or \"ctxt\" line");
	s->have |= HAVE_STAT;
	return 0;
}

struct key_slot {
	const char *key;
	size_t off;
};

#define SLOT(k, field) { k, offsetof(struct iowstat_snapshot, field) }

static const struct key_slot vmstat_keys[] = {
	SLOT("pgpgin", pgpgin), SLOT("pgpgout", pgpgout),
	SLOT("pswpin", pswpin), SLOT("pswpout", pswpout),
};

static const struct key_slot meminfo_keys[] = {
	SLOT("MemFree:", mem_free), SLOT("Buffers:", buffers),
	SLOT("Cached:", cached), SLOT("SReclaimable:", sreclaimable),
	SLOT("SwapTotal:", swap_total), SLOT("SwapFree:", swap_free),
	SLOT("Active:", active), SLOT("Inactive:", inactive),
};

/*
 * parse_keyed - "key value [unit]" files.  The first @need keys must all
 * appear (older kernels lack SReclaimable, so meminfo needs only some).
 */
static int parse_keyed(const char *buf, size_t len, struct iowstat_snapshot *s,
		       const struct key_slot *keys, unsigned int nkeys,
		       unsigned int need, struct parse_err *pe)
{
	struct span b = { buf, len }, line, name, val;
	unsigned int n = 0, i, seen = 0;

	for (i = 0; i < nkeys; i++)
		*(uint64_t *)((char *)s + keys[i].off) = 0;
	while (span_next_line(&b, &line)) {
		n++;
		if (!span_next_token(&line, &name))
			continue;
		for (i = 0; i < nkeys && !span_eq(name, keys[i].key); i++)
			;
		if (i == nkeys)
			continue;
		if (!span_next_token(&line, &val) ||
		    parse_u64_span(val, (uint64_t *)((char *)s + keys[i].off)))
			return parse_fail(pe, n, "bad number");
		seen |= 1u << i;
	}
	if ((seen & ((1u << need) - 1)) != (1u << need) - 1)
		return parse_fail(pe, n, "a required key is missing");
	return 0;
}

int procfs_parse_vmstat(const char *buf, size_t len,
			struct iowstat_snapshot *s, struct parse_err *pe)
{
	int err = parse_keyed(buf, len, s, vmstat_keys,
			      ARRAY_SIZE(vmstat_keys), 2, pe);

	if (!err)
		s->have |= HAVE_VMSTAT;
	return err;
}

int procfs_parse_meminfo(const char *buf, size_t len,
			 struct iowstat_snapshot *s, struct parse_err *pe)
{
	int err = parse_keyed(buf, len, s, meminfo_keys,
			      ARRAY_SIZE(meminfo_keys), 3, pe);

	if (!err)
		s->have |= HAVE_MEMINFO;
	return err;
}

/* psi_total - find "total=N" among the tokens of a psi line */
static int psi_total(struct span line, uint64_t *v)
{
	struct span tok;

	while (span_next_token(&line, &tok)) {
		if (span_starts(tok, "total="))
			return parse_u64_span((struct span){ tok.p + 6,
							     tok.len - 6 }, v);
	}
	return -EINVAL;
}

/* procfs_parse_psi() - totals of /proc/pressure/io; "full" may be absent */
int procfs_parse_psi(const char *buf, size_t len,
		     struct iowstat_snapshot *s, struct parse_err *pe)
{
	struct span b = { buf, len }, line, name;
	unsigned int n = 0, seen = 0;
	int err;

	s->psi_some_us = 0;
	s->psi_full_us = 0;
	while (span_next_line(&b, &line)) {
		n++;
		if (!span_next_token(&line, &name))
			continue;
		if (span_eq(name, "some")) {
			err = psi_total(line, &s->psi_some_us);
			seen |= 1;
		} else if (span_eq(name, "full")) {
			err = psi_total(line, &s->psi_full_us);
		} else {
			continue;
		}
		if (err)
			return parse_fail(pe, n, "no total=N");
	}
	if (!seen)
		return parse_fail(pe, n, "no \"some\" line");
	s->have |= HAVE_PSI;
	return 0;
}
