// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_tree.c - which exit records are CMD's tree, and what their threads'
 * lives add up to
 *
 * The listener hears every thread that exits on the machine.  A thread is
 * of the tree when its process is: CMD itself, or a process whose parent
 * at its exit was of the tree.  iowstat is a child subreaper, so an orphan
 * of the tree is reparented to iowstat, never to init: its parent at exit
 * is iowstat or a process of the tree.  A parent outlives the exit record
 * of its child (the record is sent from do_exit() while the child's pid is
 * still alive), so its own record comes later, or it is iowstat; hence a
 * fixed point over all the records decides.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_tree.h"
#include "procfs.h"
#include "util.h"

/* PID_MAX_LIMIT on 64-bit (include/linux/threads.h): no pid reaches it */
#define PID_LIMIT	(4u * 1024 * 1024)
#define BITS		(8 * sizeof(unsigned long))

#define DELAYACCT_PATH	"/proc/sys/kernel/task_delayacct"

/* delayacct_on - the kernel keeps delay accounting now (blkio_delay_total
 * grows only while it does; a kernel without it has no such file)
 */
static bool delayacct_on(void)
{
	size_t len;
	char *buf;
	bool on;

	if (read_whole_file(DELAYACCT_PATH, &buf, &len))
		return false;
	on = len > 0 && buf[0] == '1';
	free(buf);
	return on;
}

/* tree_start() - before CMD starts: what the end will compare with */
void tree_start(struct cmd_tree *t)
{
	t->delayacct = delayacct_on();
}

/* tree_add() - keep @e (a thread_exit_fn); on no memory, say so later */
void tree_add(const struct thread_exit *e, void *tree)
{
	struct cmd_tree *t = tree;
	struct thread_exit *n;
	size_t cap;

	if (t->n == t->cap) {
		cap = t->cap ? 2 * t->cap : 256;
		n = realloc(t->e, cap * sizeof(*n));
		if (!n) {
			t->oom = true;
			return;
		}
		t->e = n;
		t->cap = cap;
	}
	t->e[t->n++] = *e;
}

void tree_free(struct cmd_tree *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

static bool has(const unsigned long *set, uint32_t pid)
{
	return pid < PID_LIMIT && (set[pid / BITS] >> (pid % BITS) & 1);
}

static void put(unsigned long *set, uint32_t pid)
{
	if (pid < PID_LIMIT)
		set[pid / BITS] |= 1ul << (pid % BITS);
}

/*
 * tree_split_cpu() - a thread's exact run time split into user and system
 * in the ratio of its ticks, by the rule of the kernel's cputime_adjust()
 * (what getrusage() reports): no system tick, all user; no user tick, all
 * system
 */
void tree_split_cpu(const struct thread_exit *e, uint64_t *user,
		    uint64_t *sys)
{
	uint64_t u = e->utime_ns, s = e->stime_ns, r = e->cpu_ns;

	if (s == 0)
		*sys = 0;
	else if (u == 0)
		*sys = r;
	else
		*sys = (uint64_t)((__uint128_t)s * r / (s + u));
	*user = r - *sys;
}

/* add - @e's thread to the sums */
static void add(struct tree_parts *p, const struct thread_exit *e)
{
	uint64_t user, sys;

	tree_split_cpu(e, &user, &sys);
	p->threads++;
	if (e->pid == e->tgid)
		p->processes++;
	p->thread_ns += e->life_ns;
	p->user_ns += user;
	p->sys_ns += sys;
	p->tick_ns += e->tick_ns;
	p->runq_ns += e->runq_ns;
	p->blkio_ns += e->blkio_ns;
}

/**
 * tree_sum() - the sums over the records of CMD's tree; @self is iowstat,
 * the parent of CMD and the reaper of its orphans.
 * Return: 0, or -ENOMEM (then nothing is summed).
 */
int tree_sum(const struct cmd_tree *t, uint32_t self, struct tree_parts *p)
{
	unsigned long *tgids = calloc(PID_LIMIT / BITS, sizeof(*tgids));
	bool *in = calloc(t->n ? t->n : 1, sizeof(*in));
	const struct thread_exit *e;
	bool more = true;
	size_t i;

	if (!tgids || !in) {
		free(tgids);
		free(in);
		return -ENOMEM;
	}
	while (more) {
		more = false;
		for (i = 0; i < t->n; i++) {
			e = &t->e[i];
			if (in[i] || e->tgid == self)
				continue;
			if (e->ppid != self && !has(tgids, e->ppid) &&
			    !has(tgids, e->tgid))
				continue;
			in[i] = true;
			if (!has(tgids, e->tgid)) {
				put(tgids, e->tgid);
				more = true;
			}
		}
	}
	for (i = 0; i < t->n; i++)
		if (in[i])
			add(p, &t->e[i]);
	p->have_tree = true;
	p->have_blkio = t->delayacct && delayacct_on();
	free(tgids);
	free(in);
	return 0;
}

/*
 * tree_parts_finish() - the last part, the sleep that was not iowait, is
 * what remains of the threads' lives; the others are each measured
 */
void tree_parts_finish(struct tree_parts *p)
{
	int64_t rest = (int64_t)p->thread_ns;

	rest -= (int64_t)(p->user_ns + p->sys_ns + p->runq_ns);
	if (p->have_iowait)
		rest -= (int64_t)p->iowait_ns;
	p->other_ns = rest;
}

/*
 * The fields of struct tree_parts a recording keeps, by name: each one
 * is written and read from here alone.  other_ns is not among them: it
 * is what remains, worked out again by tree_parts_finish().
 */
enum tree_field_type { TF_BOOL, TF_UINT, TF_U64, TF_TEXT };

struct tree_field {
	const char *name;
	size_t off;
	enum tree_field_type type;
};

static const struct tree_field tree_fields[] = {
	{ "have_tree", offsetof(struct tree_parts, have_tree), TF_BOOL },
	{ "have_iowait", offsetof(struct tree_parts, have_iowait), TF_BOOL },
	{ "processes", offsetof(struct tree_parts, processes), TF_UINT },
	{ "threads", offsetof(struct tree_parts, threads), TF_UINT },
	{ "thread_ns", offsetof(struct tree_parts, thread_ns), TF_U64 },
	{ "user_ns", offsetof(struct tree_parts, user_ns), TF_U64 },
	{ "sys_ns", offsetof(struct tree_parts, sys_ns), TF_U64 },
	{ "tick_ns", offsetof(struct tree_parts, tick_ns), TF_U64 },
	{ "runq_ns", offsetof(struct tree_parts, runq_ns), TF_U64 },
	{ "blkio_ns", offsetof(struct tree_parts, blkio_ns), TF_U64 },
	{ "have_blkio", offsetof(struct tree_parts, have_blkio), TF_BOOL },
	{ "iowait_ns", offsetof(struct tree_parts, iowait_ns), TF_U64 },
	{ "iowait_blk_ns", offsetof(struct tree_parts, iowait_blk_ns), TF_U64 },
	{ "wa_ns", offsetof(struct tree_parts, wa_ns), TF_U64 },
	{ "left", offsetof(struct tree_parts, left), TF_UINT },
	{ "lost", offsetof(struct tree_parts, lost), TF_BOOL },
	{ "no_tree", offsetof(struct tree_parts, no_tree), TF_TEXT },
	{ "no_iowait", offsetof(struct tree_parts, no_iowait), TF_TEXT },
};

/* text_field - a reason is one line: a newline in it (a path) would end it */
static void text_field(FILE *f, const char *name, const char *s)
{
	if (!*s)
		return;
	fprintf(f, "%s ", name);
	for (; *s; s++)
		fputc(*s == '\n' ? '?' : *s, f);
	fputc('\n', f);
}

/**
 * tree_parts_format() - @p as the text of the recording's tree file, in
 * *@buf (the caller frees it).  Return: 0 or -ENOMEM.
 */
int tree_parts_format(const struct tree_parts *p, char **buf, size_t *len)
{
	const struct tree_field *t;
	FILE *f = open_memstream(buf, len);
	const void *at;
	size_t i;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(tree_fields); i++) {
		t = &tree_fields[i];
		at = (const char *)p + t->off;
		if (t->type == TF_BOOL)
			fprintf(f, "%s %d\n", t->name, *(const bool *)at);
		else if (t->type == TF_UINT)
			fprintf(f, "%s %u\n", t->name,
				*(const unsigned int *)at);
		else if (t->type == TF_U64)
			fprintf(f, "%s %" PRIu64 "\n", t->name,
				*(const uint64_t *)at);
		else
			text_field(f, t->name, at);
	}
	return fclose(f) ? -ENOMEM : 0;
}

static const struct tree_field *tree_field(struct span name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tree_fields); i++)
		if (span_eq(name, tree_fields[i].name))
			return &tree_fields[i];
	return NULL;
}

/* set_number - a number into field @t at @at */
static const char *set_number(const struct tree_field *t, void *at,
			      struct span v)
{
	uint64_t x;

	if (parse_u64_span(v, &x))
		return "bad number";
	if (t->type == TF_BOOL) {
		if (x > 1)
			return "neither 0 nor 1";
		*(bool *)at = x;
	} else if (t->type == TF_UINT) {
		if (x > UINT_MAX)
			return "bad number";
		*(unsigned int *)at = x;
	} else {
		*(uint64_t *)at = x;
	}
	return NULL;
}

/* parse_line - "NAME VALUE"; a name not known is of a newer iowstat */
static const char *parse_line(struct span line, struct tree_parts *p)
{
	const struct tree_field *t;
	struct span name;
	char *at;

	if (!span_next_token(&line, &name))
		return "an empty line";
	t = tree_field(name);
	if (!t)
		return NULL;
	if (line.len < 2 || line.p[0] != ' ')
		return "no value";
	line.p++;
	line.len--;
	at = (char *)p + t->off;
	if (t->type != TF_TEXT)
		return set_number(t, at, line);
	snprintf(at, TREE_WHY_MAX, "%.*s", (int)line.len, line.p);
	return NULL;
}

/**
 * tree_parts_parse() - a recording's tree file into @p, other_ns worked
 * out again.  Return: 0 or -EINVAL with @pe.
 */
int tree_parts_parse(const char *buf, size_t len, struct tree_parts *p,
		     struct parse_err *pe)
{
	struct span b = { buf, len }, line;
	unsigned int n = 0;
	const char *why;

	memset(p, 0, sizeof(*p));
	while (span_next_line(&b, &line)) {
		n++;
		why = parse_line(line, p);
		if (why)
			return parse_fail(pe, n, why);
	}
	tree_parts_finish(p);
	return 0;
}
