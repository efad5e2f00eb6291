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
#include <stdlib.h>
#include <string.h>

#include "cmd_tree.h"

/* PID_MAX_LIMIT on 64-bit (include/linux/threads.h): no pid reaches it */
#define PID_LIMIT	(4u * 1024 * 1024)
#define BITS		(8 * sizeof(unsigned long))

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
