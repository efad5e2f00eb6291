// SPDX-License-Identifier: GPL-2.0-only
/*
 * owners.c - who waits: iowait per process and per cgroup
 *
 * A row is kept for each thread group (process) and each cgroup v2 that
 * slept in iowait or issued a block request since load.  A sleeper that
 * acct.c follows notes its rows' clocks when it goes to sleep and settles
 * on them when it wakes: the time it slept, the part of it with a request
 * of the row's own in flight, and its share of its CPU's iowait
 * (doc/design.md#who-waits).  A request is a process's when one of its
 * tasks issued it, and a cgroup's wait_blk is its processes'; requests
 * issued from interrupts or kernel threads (writeback, kblockd) are
 * nobody's.
 *
 * Rows come from pools allocated at load (the procs= and cgroups=
 * parameters): a sleep or request that finds no free row is counted and
 * goes unowned, and the per-CPU figures never depend on a row.  A
 * process's row leaves the hash when its group leader is freed and stays,
 * marked exited, until it has been read once or has lingered LINGER_NS;
 * the reaper then returns it to the pool.  A cgroup's row ends alike once
 * the reaper finds the cgroup removed.  Row memory is never freed before
 * unload, so a stale pointer can at worst misattribute, never corrupt.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/kdev_t.h>
#include <linux/log2.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/vmalloc.h>
#include <asm/syscall.h>

#include "devs.h"
#include "iowprobe.h"
#include "owners.h"

#define LINGER_NS	(60ULL * NSEC_PER_SEC)

struct owner_bucket {
	raw_spinlock_t lock;
	struct hlist_head head;
};

/* struct owner_set - the rows of one kind: a pool (pool.h) and a hash */
struct owner_set {
	struct iowprobe_owner *rows;
	struct iowprobe_pool pool;
	struct owner_bucket *buckets;
	unsigned int bits;
	s64 exhausted_seen;	/* at the last reap */
	bool exact;		/* no row missed in the last reap period */
};

unsigned int iowprobe_owner_pool[IOWPROBE_OWNER_KINDS] = {
	[IOWPROBE_PROCS] = IOWPROBE_PROCS_DEFAULT,
	[IOWPROBE_CGROUPS] = IOWPROBE_CGROUPS_DEFAULT,
};

struct owner_cache __percpu *iowprobe_owner_caches;
static struct owner_set sets[IOWPROBE_OWNER_KINDS];
static const char *const set_name[] = IOWPROBE_OWNER_FILES;

static void set_destroy(struct owner_set *s)
{
	iowprobe_pool_destroy(&s->pool);
	kvfree(s->buckets);
	kvfree(s->rows);
	memset(s, 0, sizeof(*s));
}

static int set_init(struct owner_set *s, unsigned int size)
{
	unsigned int i, nbuckets = roundup_pow_of_two(size);

	s->rows = kvcalloc(size, sizeof(*s->rows), GFP_KERNEL);
	s->buckets = kvcalloc(nbuckets, sizeof(*s->buckets), GFP_KERNEL);
	if (!s->rows || !s->buckets ||
	    iowprobe_pool_init(&s->pool, s->rows, sizeof(*s->rows), size)) {
		set_destroy(s);
		return -ENOMEM;
	}
	for (i = 0; i < nbuckets; i++)
		raw_spin_lock_init(&s->buckets[i].lock);
	for (i = 0; i < size; i++)
		raw_spin_lock_init(&s->rows[i].lock);
	s->bits = ilog2(nbuckets);
	s->exact = true;
	return 0;
}

int iowprobe_owners_init(void)
{
	int k, ret;

	iowprobe_owner_caches = alloc_percpu(struct owner_cache);
	if (!iowprobe_owner_caches)
		return -ENOMEM;
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		ret = set_init(&sets[k], iowprobe_owner_pool[k]);
		if (ret) {
			while (--k >= 0)
				set_destroy(&sets[k]);
			free_percpu(iowprobe_owner_caches);
			return ret;
		}
	}
	return 0;
}

/* iowprobe_owners_exit() - after the probes: nothing points at a row */
void iowprobe_owners_exit(void)
{
	int k;

	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++)
		set_destroy(&sets[k]);
	free_percpu(iowprobe_owner_caches);
}

static struct owner_bucket *bucket_of(struct owner_set *s, u64 key)
{
	return &s->buckets[hash_64(key, s->bits)];
}

static struct iowprobe_owner *row_alloc(struct owner_set *s)
{
	return iowprobe_pool_get(&s->pool);
}

/* row_free() - from the reaper, where interrupts are on */
static void row_free(struct owner_set *s, struct iowprobe_owner *o)
{
	unsigned long flags;

	local_irq_save(flags);
	iowprobe_pool_put(&s->pool, o);
	local_irq_restore(flags);
}

/* row_exit() - @o's process is gone: out of the hash; its bucket locked */
static void row_exit(struct iowprobe_owner *o, u64 now)
{
	unsigned long flags;

	/* its next link stays: a lockless walk (row_find()) goes on past it */
	hlist_del_init_rcu(&o->node);
	raw_spin_lock_irqsave(&o->lock, flags);
	o->f.state = ROW_EXITED;
	o->f.t_exit = now;
	o->f.read = false;
	raw_spin_unlock_irqrestore(&o->lock, flags);
}

static u64 cgroup_of(struct task_struct *p)
{
	u64 id = 0;

#ifdef CONFIG_CGROUPS
	rcu_read_lock();	/* task_dfl_cgroup() wants it, even in a probe */
	id = cgroup_id(task_dfl_cgroup(p));
	rcu_read_unlock();
#endif
	return id;
}

/*
 * name() - a process row's name and cgroup, from @p, in @cgroup: exec
 * renames a process (pidstat shows the leader's comm too), and a process
 * may move to another cgroup.  Its lock held.
 */
static void name(struct iowprobe_owner *o, struct task_struct *p, u64 cgroup)
{
	const struct task_struct *leader = READ_ONCE(p->group_leader);

	o->f.cgroup = cgroup;
	memcpy(o->f.comm, leader->comm, sizeof(o->f.comm));
	o->f.comm[sizeof(o->f.comm) - 1] = '\0';
}

/*
 * row_start() - make free row @o stand for @key, of @p's process or
 * cgroup; published by the caller
 */
static void row_start(struct iowprobe_owner *o, enum iowprobe_owner_kind k,
		      u64 key, u64 start, struct task_struct *p)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&o->lock, flags);
	memset(&o->f, 0, sizeof(o->f));
	o->f.key = key;
	o->f.start = start;
	o->f.state = ROW_LIVE;
	o->f.dev_last = IOWPROBE_NO_DEV;
	if (k == IOWPROBE_PROCS)
		name(o, p, cgroup_of(p));
	else
		o->f.cgroup = key;
	raw_spin_unlock_irqrestore(&o->lock, flags);
}

/* row_is() - is @o, looked at without its lock, the live row of @key? */
static bool row_is(const struct iowprobe_owner *o, u64 key, u64 start)
{
	return o && READ_ONCE(o->f.key) == key &&
	       READ_ONCE(o->f.start) == start &&
	       READ_ONCE(o->f.state) == ROW_LIVE;
}

/*
 * row_find() - the live row of @key in bucket @b, looked up without the
 * bucket's lock, as most lookups find one: rows are never freed before
 * unload, and a row unlinked or reused under the walk ends it early, or
 * sends it down another bucket, or fails row_is(); row_get() then looks
 * again under the lock
 */
static struct iowprobe_owner *row_find(struct owner_bucket *b, u64 key,
				       u64 start)
{
	struct iowprobe_owner *o, *found = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(o, &b->head, node) {
		if (row_is(o, key, start)) {
			found = o;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * row_get() - the live row of @key (made if new), or NULL if none is free
 *
 * Made under the bucket's lock, so two tasks of one process never make two
 * rows.  A live row of @key with another @start is a process whose pid is
 * reused: it exited before its leader was freed, so it is marked exited.
 */
static struct iowprobe_owner *row_get(enum iowprobe_owner_kind k, u64 key,
				      u64 start, struct task_struct *p)
{
	struct owner_set *s = &sets[k];
	struct owner_bucket *b = bucket_of(s, key);
	struct iowprobe_owner *o, *found;
	unsigned long flags;

	found = row_find(b, key, start);
	if (found)
		return found;
	raw_spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(o, &b->head, node) {
		if (o->f.key != key)
			continue;
		if (o->f.start == start) {
			found = o;
			break;
		}
		row_exit(o, iowprobe_now());
		break;
	}
	if (!found) {
		found = row_alloc(s);
		if (found) {
			row_start(found, k, key, start, p);
			/* its fields before its link, for row_find() */
			hlist_add_head_rcu(&found->node, &b->head);
		}
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return found;
}

/*
 * iowprobe_owner_proc() - the row of @p's process, made if new; NULL when
 * the pool is empty.  The lookup behind iowprobe_owner_current()'s cache
 * and the sleep path's: a request is its process's, and a cgroup's
 * requests are its processes'.  @p is current or asleep, so its process
 * cannot have exited.
 */
struct iowprobe_owner *iowprobe_owner_proc(struct task_struct *p)
{
	struct owner_cache *c = get_cpu_ptr(iowprobe_owner_caches);
	struct iowprobe_owner *o = c->row;

	if (!owner_cache_hit(c, p)) {	/* a hit's row is live: owners.h */
		o = row_get(IOWPROBE_PROCS, p->tgid,
			    READ_ONCE(p->group_leader)->start_time, p);
		/* a hit is a user task's, with its row */
		c->task = o && !(p->flags & PF_KTHREAD) ? p : NULL;
		c->task_start = p->start_time;
		c->row = o;
	}
	put_cpu_ptr(iowprobe_owner_caches);
	return o;
}

/*
 * iowprobe_owners_of() - the rows of @p's process and cgroup, made if new,
 * into @w, with the cgroup; NULL for a kind whose pool is empty.  The
 * sleep path's lookup: the process row remembers its cgroup's row, so
 * the cgroup is looked up in its hash only when the process moved (or its
 * row was reused), not when the CPU's cache last held another process.
 */
void iowprobe_owners_of(struct task_struct *p, struct iowprobe_wait *w)
{
	struct iowprobe_owner *proc = iowprobe_owner_proc(p), *cg = NULL;
	u64 cgroup = cgroup_of(p);

	w->cgroup = cgroup;
	w->owner[IOWPROBE_PROCS] = proc;
	/* a live task's process row is its own: owners.h, owner_cache */
	if (proc)
		cg = READ_ONCE(proc->f.cgroup_row);
	if (!row_is(cg, cgroup, 0)) {
		cg = row_get(IOWPROBE_CGROUPS, cgroup, 0, p);
		if (proc)	/* two threads may race: either row is right */
			WRITE_ONCE(proc->f.cgroup_row, cg);
	}
	w->owner[IOWPROBE_CGROUPS] = cg;
}

/*
 * blk_watch() - a row's first sleeper starts watching its in-flight clock:
 * set it from the count now.  Its lock held.  The full barriers of the two
 * atomic_*_return() pair: either the request sees the sleeper (and sets
 * the clock itself, in iowprobe_owners_rq()) or this sees the request.
 */
static void blk_watch(struct iowprobe_owner *o, u64 now)
{
	if (atomic_inc_return(&o->f.asleep) > 1)
		return;
	iowprobe_gclock_set(&o->f.blk, now, atomic_read(&o->f.inflight) > 0);
}

/*
 * wait_kind() - where @p, going to sleep in iowait, waits: one load of the
 * system call number from its saved user registers, as /proc/PID/syscall
 * reads it (doc/design.md#where-each-sleeper-waits).  A kernel thread's
 * registers are zeros, and io_uring's workers' a copy of their creator's:
 * both are sorted by their flags first.
 */
static enum iowprobe_wait_kind wait_kind(struct task_struct *p)
{
	if (unlikely(p->flags & (PF_KTHREAD | PF_IO_WORKER)))
		return p->flags & PF_KTHREAD ? IOWPROBE_WAIT_other :
					       IOWPROBE_WAIT_uring;
#ifdef TS_COMPAT
	/* a 32-bit system call's number is another table's */
	if (unlikely(task_thread_info(p)->status & TS_COMPAT))
		return IOWPROBE_WAIT_other;
#endif
	return iowprobe_wait_kind_of(syscall_get_nr(p, task_pt_regs(p)));
}

/*
 * iowprobe_owners_sleep() - @p, with rows @w->owner, sleeps from @now on;
 * its process's in-flight clock is the one it watches.  Under its CPU's
 * lock, so interrupts are off.
 */
void iowprobe_owners_sleep(struct iowprobe_wait *w, struct task_struct *p,
			   u64 now)
{
	struct iowprobe_owner *o = w->owner[IOWPROBE_PROCS];

	lockdep_assert_irqs_disabled();
	w->t_sleep = now;
	w->blk_snap = 0;
	w->kind = wait_kind(p);
	if (o) {
		raw_spin_lock(&o->lock);
		name(o, p, w->cgroup);
		blk_watch(o, now);
		w->blk_snap = iowprobe_gclock_read(&o->f.blk, now);
		raw_spin_unlock(&o->lock);
	}
	o = w->owner[IOWPROBE_CGROUPS];
	if (o)
		atomic_inc(&o->f.asleep);
}

/* book_dev() - @ns of wait with a request in flight, on disk @dev */
static void book_dev(struct iowprobe_owner *o, dev_t dev, u64 ns)
{
	int i, least = 0;

	if (!ns || !dev)
		return;
	for (i = 0; i < OWNER_DEVS; i++) {
		if (o->f.dev[i] == dev || !o->f.dev[i])
			break;
		if (o->f.dev_ns[i] < o->f.dev_ns[least])
			least = i;
	}
	if (i == OWNER_DEVS) {	/* full: the least waited-on makes room */
		i = least;
		o->f.dev_ns[i] = 0;
	}
	o->f.dev[i] = dev;
	o->f.dev_ns[i] += ns;
}

/*
 * book_wake() - a sleeper woke: @wait in @kind and @share on row @o; its
 * lock held
 */
static void book_wake(struct iowprobe_owner *o, u64 wait, u8 kind, u64 blk,
		      dev_t dev, u64 share)
{
	atomic_dec(&o->f.asleep);
	o->f.sleeps++;
	o->f.wait_ns += wait;
	o->f.wait_kind_ns[kind] += wait;
	o->f.wait_blk_ns += blk;
	o->f.wa_ns += share;
	book_dev(o, dev, blk);
}

/*
 * iowprobe_owners_wake() - the sleeper of @w woke at @now, having earned
 * @share of its CPU's iowait; its wait with a request of its process in
 * flight is read off the process row's clock in the same locked section
 * that books it.  Under its sleep CPU's lock, so interrupts are off.
 */
void iowprobe_owners_wake(const struct iowprobe_wait *w, u64 now, u64 share)
{
	struct iowprobe_owner *o = w->owner[IOWPROBE_PROCS];
	u64 wait = iowprobe_since(now, w->t_sleep);
	dev_t dev = 0;
	u64 blk = 0;

	lockdep_assert_irqs_disabled();
	if (o) {
		raw_spin_lock(&o->lock);
		blk = iowprobe_since(iowprobe_gclock_read(&o->f.blk, now),
				     w->blk_snap);
		dev = iowprobe_dev_devt(READ_ONCE(o->f.dev_last));
		book_wake(o, wait, w->kind, blk, dev, share);
		raw_spin_unlock(&o->lock);
	}
	o = w->owner[IOWPROBE_CGROUPS];
	if (o) {
		raw_spin_lock(&o->lock);
		book_wake(o, wait, w->kind, blk, dev, share);
		raw_spin_unlock(&o->lock);
	}
}

/*
 * iowprobe_owner_turn() - the in-flight count of process row @o turned (0
 * to 1 or back) at @now while a sleeper watches: its clock follows
 */
void iowprobe_owner_turn(struct iowprobe_owner *o, u64 now)
{
	raw_spin_lock(&o->lock);
	iowprobe_gclock_set(&o->f.blk, now, atomic_read(&o->f.inflight) > 0);
	raw_spin_unlock(&o->lock);
}

/* iowprobe_owners_exited() - @p is freed; if it led its group, that ended */
void iowprobe_owners_exited(struct task_struct *p)
{
	struct owner_set *s = &sets[IOWPROBE_PROCS];
	struct owner_bucket *b;
	struct iowprobe_owner *o;
	unsigned long flags;

	if (!thread_group_leader(p))
		return;
	b = bucket_of(s, p->tgid);
	raw_spin_lock_irqsave(&b->lock, flags);
	hlist_for_each_entry(o, &b->head, node) {
		if (o->f.key == (u64)p->tgid && o->f.start == p->start_time) {
			row_exit(o, iowprobe_now());
			break;
		}
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/* reapable() - an exited row nothing points at, read or lingered enough */
static bool reapable(const struct iowprobe_owner *o, u64 now)
{
	return o->f.state == ROW_EXITED && !atomic_read(&o->f.inflight) &&
	       !atomic_read(&o->f.asleep) &&
	       (o->f.read || iowprobe_since(now, o->f.t_exit) > LINGER_NS);
}

static void reap_set(struct owner_set *s)
{
	s64 exhausted = atomic64_read(&s->pool.exhausted);
	struct iowprobe_owner *o;
	unsigned long flags;
	unsigned int i;
	bool free;
	u64 now;

	for (i = 0; i < s->pool.size; i++) {
		o = &s->rows[i];
		raw_spin_lock_irqsave(&o->lock, flags);
		now = iowprobe_now();
		free = reapable(o, now);
		if (free)
			o->f.state = ROW_FREE;
		raw_spin_unlock_irqrestore(&o->lock, flags);
		if (free)
			row_free(s, o);
	}
	WRITE_ONCE(s->exact, exhausted == s->exhausted_seen);
	s->exhausted_seen = exhausted;
}

#ifdef CONFIG_CGROUPS
/* cgroup_gone() - the cgroup of @id was removed (ids are never reused) */
static bool cgroup_gone(u64 id)
{
	struct cgroup *cg = cgroup_get_from_id(id);

	if (IS_ERR(cg))
		return true;
	cgroup_put(cg);
	return false;
}
#else
static bool cgroup_gone(u64 id)
{
	return false;
}
#endif

/*
 * end_removed_cgroups() - a removed cgroup's row ends as an exited
 * process's does: out of the hash, kept until read.  A cgroup with tasks
 * cannot be removed, so no sleeper points at it any more.
 */
static void end_removed_cgroups(void)
{
	struct owner_set *s = &sets[IOWPROBE_CGROUPS];
	struct owner_bucket *b;
	struct iowprobe_owner *o;
	unsigned long flags;
	unsigned int i;
	u64 key;

	for (i = 0; i < s->pool.size; i++) {
		o = &s->rows[i];
		if (READ_ONCE(o->f.state) != ROW_LIVE)
			continue;
		key = READ_ONCE(o->f.key);
		if (!cgroup_gone(key))
			continue;
		b = bucket_of(s, key);
		raw_spin_lock_irqsave(&b->lock, flags);
		if (o->f.state == ROW_LIVE && o->f.key == key)
			row_exit(o, iowprobe_now());
		raw_spin_unlock_irqrestore(&b->lock, flags);
	}
}

/*
 * iowprobe_owners_reap() - the reaper's part here (main.c): the rows of
 * removed cgroups ended, and exited rows read or lingered enough returned
 */
void iowprobe_owners_reap(void)
{
	int k;

	end_removed_cgroups();
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		reap_set(&sets[k]);
		cond_resched();
	}
}

/* exact() - no sleep or request of this kind went unowned lately */
static bool exact(struct owner_set *s)
{
	return READ_ONCE(s->exact) &&
	       atomic64_read(&s->pool.exhausted) == READ_ONCE(s->exhausted_seen);
}

/* what a read adds for the sleepers still asleep, per row */
struct asleep_part {
	u64 wait_ns;
	u64 wait_kind_ns[IOWPROBE_WAIT_KINDS];
	u64 wait_blk_ns;
	u64 wa_ns;
};

struct show_ctx {
	enum iowprobe_owner_kind k;
	u64 now;
	struct asleep_part *part;	/* per row of the kind */
};

static void add_asleep(const struct iowprobe_wait *w, u64 share, void *arg)
{
	struct iowprobe_owner *proc = w->owner[IOWPROBE_PROCS];
	struct show_ctx *ctx = arg;
	struct iowprobe_owner *o = w->owner[ctx->k];
	struct asleep_part *p;
	unsigned long flags;
	u64 wait;

	if (!o)
		return;
	p = &ctx->part[o - sets[ctx->k].rows];
	wait = iowprobe_since(ctx->now, w->t_sleep);
	p->wait_ns += wait;
	p->wait_kind_ns[w->kind] += wait;
	p->wa_ns += share;
	if (!proc)
		return;
	raw_spin_lock_irqsave(&proc->lock, flags);
	p->wait_blk_ns += iowprobe_since(iowprobe_gclock_read(&proc->f.blk,
							      ctx->now),
					 w->blk_snap);
	raw_spin_unlock_irqrestore(&proc->lock, flags);
}

static dev_t top_dev(const struct owner_figs *f)
{
	int i, top = 0;

	for (i = 1; i < OWNER_DEVS; i++)
		if (f->dev_ns[i] > f->dev_ns[top])
			top = i;
	return f->dev_ns[top] ? f->dev[top] : 0;
}

/* row_copy() - @o as a line, or false if free; an exited row counts read */
static bool row_copy(struct iowprobe_owner *o, const struct show_ctx *ctx,
		     u64 *v, struct owner_figs *copy)
{
	const struct asleep_part *p = &ctx->part[o - sets[ctx->k].rows];
	unsigned long flags;
	int k;

	raw_spin_lock_irqsave(&o->lock, flags);
	if (o->f.state == ROW_EXITED)
		o->f.read = true;
	*copy = o->f;
	raw_spin_unlock_irqrestore(&o->lock, flags);
	if (copy->state == ROW_FREE)
		return false;
	v[IOWPROBE_OCOL_pid] = copy->key;
	v[IOWPROBE_OCOL_cgroup] = copy->cgroup;
	v[IOWPROBE_OCOL_sleeps] = copy->sleeps;
	v[IOWPROBE_OCOL_wait_ns] = copy->wait_ns + p->wait_ns;
	v[IOWPROBE_OCOL_wait_blk_ns] = copy->wait_blk_ns + p->wait_blk_ns;
	v[IOWPROBE_OCOL_wa_ns] = copy->wa_ns + p->wa_ns;
	v[IOWPROBE_OCOL_asleep] = max(atomic_read(&copy->asleep), 0);
	v[IOWPROBE_OCOL_exited] = copy->state == ROW_EXITED;
	v[IOWPROBE_OCOL_now_ns] = ctx->now;
	for (k = 0; k < IOWPROBE_WAIT_KINDS; k++)
		v[IOWPROBE_OCOL_WAIT(k)] = copy->wait_kind_ns[k] +
					   p->wait_kind_ns[k];
	return true;
}

static const char *const col_name[IOWPROBE_OCOL_NR] = {
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	__stringify(name),
#include "iowprobe_owner_cols.h"
};

static const bool col_in[IOWPROBE_OWNER_KINDS][IOWPROBE_OCOL_NR] = {
	{
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	in_procs,
#include "iowprobe_owner_cols.h"
	}, {
#define IOWPROBE_OWNER_COL(name, in_procs, in_cgroups)	in_cgroups,
#include "iowprobe_owner_cols.h"
	},
};

/*
 * comm_show() - a task name as one field that runs to the end of the line:
 * any task can name itself, so a control character (a newline would make a
 * row of its own) shows as '?', and an empty name as '-'
 */
static void comm_show(struct seq_file *m, const char *comm)
{
	char safe[TASK_COMM_LEN];
	unsigned char c;
	int i;

	for (i = 0; i < TASK_COMM_LEN - 1 && comm[i]; i++) {
		c = comm[i];
		safe[i] = c < ' ' || c == 0x7f ? '?' : c;
	}
	safe[i] = '\0';
	seq_puts(m, i ? safe : "-");
}

static void row_show(struct seq_file *m, enum iowprobe_owner_kind k,
		     const u64 *v, const struct owner_figs *f)
{
	const char *sep = "";
	dev_t dev = top_dev(f);
	int i;

	for (i = 0; i < IOWPROBE_OCOL_NR; i++) {
		if (!col_in[k][i])
			continue;
		seq_puts(m, sep);
		sep = " ";
		if (i == IOWPROBE_OCOL_dev && dev)
			seq_printf(m, "%u:%u", MAJOR(dev), MINOR(dev));
		else if (i == IOWPROBE_OCOL_dev)
			seq_putc(m, '-');
		else if (i == IOWPROBE_OCOL_comm)
			comm_show(m, f->comm);
		else
			seq_printf(m, "%llu", v[i]);
	}
	seq_putc(m, '\n');
}

static void header_show(struct seq_file *m, enum iowprobe_owner_kind k)
{
	const char *sep = "";
	int i;

	seq_puts(m, IOWPROBE_ABI_LINE "\n");
	for (i = 0; i < IOWPROBE_OCOL_NR; i++) {
		if (!col_in[k][i])
			continue;
		seq_printf(m, "%s%s", sep, col_name[i]);
		sep = " ";
	}
	seq_putc(m, '\n');
}

/*
 * iowprobe_owners_show() - the procs or cgroups file: every row, with the
 * part of the sleepers still asleep added (the walk @asleep finds them),
 * all as of one instant
 */
void iowprobe_owners_show(struct seq_file *m, enum iowprobe_owner_kind k,
			  iowprobe_asleep_walk asleep)
{
	struct show_ctx ctx = { .k = k };
	struct owner_set *s = &sets[k];
	struct owner_figs copy;
	u64 v[IOWPROBE_OCOL_NR];
	unsigned int i;

	header_show(m, k);
	ctx.part = kvcalloc(s->pool.size, sizeof(*ctx.part), GFP_KERNEL);
	if (!ctx.part) {
		seq_puts(m, "# out of memory: read again\n");
		return;
	}
	ctx.now = iowprobe_now();
	asleep(ctx.now, add_asleep, &ctx);
	for (i = 0; i < s->pool.size; i++)
		if (row_copy(&s->rows[i], &ctx, v, &copy))
			row_show(m, k, v, &copy);
	kvfree(ctx.part);
}

void iowprobe_owners_status(struct seq_file *m)
{
	struct owner_set *s;
	int k;

	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		s = &sets[k];
		seq_printf(m, "%s_pool: %u/%u used\n", set_name[k],
			   iowprobe_pool_used(&s->pool), s->pool.size);
		seq_printf(m, "%s_pool_exhausted: %lld\n", set_name[k],
			   atomic64_read(&s->pool.exhausted));
		/* a row misses what its process did while no row was free */
		seq_printf(m, "exact_%s: %s\n", set_name[k],
			   exact(s) ? "yes" : "no");
	}
}
