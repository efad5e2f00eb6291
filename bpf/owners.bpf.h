/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * owners.bpf.h - who waits, in the BPF programs: iowait per process and
 * per cgroup, as the module's owners.c keeps it (doc/design.md#who-waits)
 *
 * Included once, by iowprobe.bpf.c, after its helpers: the rows are the
 * procs and cgroups maps (preallocated hashes), changed by any CPU with
 * atomic operations.  A sleeper notes, in its tasks entry, when it went to
 * sleep, its process's in-flight clock and its CPU's share clock; the one
 * event that ends the entry settles on the rows with the differences.
 * A request is a process's when one of its user tasks issued it, not an
 * interrupt or a kernel thread (the module's rule).  Its in-flight clock
 * is in the inflight table, found from the tgid without a hash lookup:
 * a request costs no lookup of a row.  iowstat reads the rows, adds the
 * sleepers still asleep, and deletes a process's row once read after its
 * exit, a cgroup's once the cgroup is gone.
 */
#ifndef IOWPROBE_OWNERS_BPF_H
#define IOWPROBE_OWNERS_BPF_H

#define PF_IO_WORKER		0x00000010	/* include/linux/sched.h */
#define PF_KTHREAD		0x00200000
#define TS_COMPAT		0x0002		/* arch/x86/include/asm/thread_info.h */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);	/* preallocated */
	__uint(max_entries, IOWPROBE_PROCS_DEFAULT);
	__type(key, __u64);
	__type(value, struct iowprobe_bpf_owner);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, IOWPROBE_CGROUPS_DEFAULT);
	__type(key, __u64);
	__type(value, struct iowprobe_bpf_owner);
} cgroups SEC(".maps");

/*
 * The in-flight table (iowprobe_bpf.h), in the global data: a way is an
 * index, where an array map's lookup adds a bound check and a null check
 * at each end of every request.  iowstat reads its clocks in the global
 * data's mapping.
 */
__u64 inflight_tag[IOWPROBE_BPF_BLK_ALL] __attribute__((aligned(64)));
__u64 inflight_exited[IOWPROBE_BPF_BLK_ALL] __attribute__((aligned(64)));
__u64 inflight_dev[IOWPROBE_BPF_BLK_ALL] __attribute__((aligned(64)));
struct iowprobe_cc inflight_blk[IOWPROBE_BPF_BLK_ALL]
	__attribute__((aligned(64)));

/* a new row's first value: never written */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iowprobe_bpf_owner);
} owner_zero SEC(".maps");

/*
 * task_cgroup_id() - @p's cgroup v2 id, as cgroup_id(task_dfl_cgroup()):
 * four direct loads (a faulting one reads 0), not four helper calls
 */
static __always_inline __u64 task_cgroup_id(struct task_struct *p)
{
	return p->cgroups->dfl_cgrp->kn->id;
}

/*
 * row_find() - the row of @key in @map, NULL when none (key 0: nobody's);
 * the key is copied to the stack, where 6.1's verifier wants it
 */
static __always_inline struct iowprobe_bpf_owner *row_find(void *map,
							   __u64 key)
{
	__u64 k = key;

	return k ? bpf_map_lookup_elem(map, &k) : NULL;
}

/* row_get() - the row of @key in @map, made if new; NULL when it is full */
static __always_inline struct iowprobe_bpf_owner *row_get(void *map,
							  __u64 key)
{
	struct iowprobe_bpf_owner *o, *zero;
	__u64 k = key;
	__u32 z = 0;

	o = bpf_map_lookup_elem(map, &k);
	if (o)
		return o;
	zero = bpf_map_lookup_elem(&owner_zero, &z);
	if (!zero)
		return NULL;
	bpf_map_update_elem(map, &k, zero, BPF_NOEXIST);	/* or a racer's */
	return bpf_map_lookup_elem(map, &k);
}

/* blk_idx() - way @way as an index the verifier knows to be in the table */
static __always_inline __u32 blk_idx(__u64 way)
{
	return way & (IOWPROBE_BPF_BLK_ALL - 1);
}

/* blk_home() - the first way of the set where the process @tag lives */
static __always_inline __u64 blk_home(__u64 tag)
{
	return iowprobe_bpf_way(iowprobe_bpf_blk_set_of(tag), 0);
}

/*
 * blk_claim() - the way of the process @tag, claimed in its set if it has
 * none; IOWPROBE_BPF_NO_WAY when the set is full.  Whoever claims for a
 * tag tries the free ways in one order, so two threads racing to claim
 * for one process end in the same way (unless a way ahead is given back
 * between their looks: then each request still ends on the way its slot
 * kept, and the exit gives back both).
 */
static __always_inline __u64 blk_claim(__u64 tag)
{
	__u64 home = blk_home(tag), old;
	int i;

#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_BLK_WAYS; i++)
		if (READ_ONCE(inflight_tag[blk_idx(home + i)]) == tag)
			return home + i;
#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_BLK_WAYS; i++) {
		__u64 *slot = &inflight_tag[blk_idx(home + i)];

		old = READ_ONCE(*slot);
		if (!old)
			old = __sync_val_compare_and_swap(slot, 0, tag);
		if (!old || old == tag)
			return home + i;
	}
	stat_inc(&stats.blk_full);
	return IOWPROBE_BPF_NO_WAY;
}

/*
 * blk_put() - give back way @way, whose process @tag has exited, once
 * nothing of it is in flight.  Its exit sets @exited before it looks at
 * the count, a request's end changes the count before it looks at
 * @exited (both atomic, so ordered): one of the two sees the other's
 * change, and the one that clears @exited gives the way back.
 */
static __always_inline void blk_put(__u64 way, __u64 tag)
{
	__u32 i = blk_idx(way);

	if (iowprobe_cc_count(READ_ONCE(inflight_blk[i].w)) ||
	    READ_ONCE(inflight_blk[i].owed))
		return;
	if (!cas(&inflight_exited[i], 1, 0))
		return;
	WRITE_ONCE(inflight_dev[i], 0);
	__sync_val_compare_and_swap(&inflight_tag[i], tag, 0);
}

/*
 * blk_issue() - a request of the process @tag on disk @dev at @now
 * Return: the way that counts it, IOWPROBE_BPF_NO_WAY when none does.
 */
static __always_inline __u64 blk_issue(__u64 tag, __u64 dev, __u64 now)
{
	__u64 way = blk_claim(tag);
	__u32 i = blk_idx(way);

	if (way == IOWPROBE_BPF_NO_WAY)
		return way;
	if (dev)
		WRITE_ONCE(inflight_dev[i], dev);
	cc_inc(&inflight_blk[i], now);
	return way;
}

/*
 * blk_end() - a request counted at @way (IOWPROBE_BPF_NO_WAY: nowhere) is
 * no longer in flight; the way is still its process's, since no way is
 * given back while a request counted there is in flight
 */
static __always_inline void blk_end(__u64 way, __u64 now)
{
	__u32 i = blk_idx(way);

	if (way == IOWPROBE_BPF_NO_WAY)
		return;
	cc_dec(&inflight_blk[i], now);
	if (READ_ONCE(inflight_exited[i]))
		blk_put(way, READ_ONCE(inflight_tag[i]));
}

/* blk_exited() - the group leader of @tag is freed: its ways go back */
static __always_inline void blk_exited(__u64 tag)
{
	__u64 home = blk_home(tag);
	int i;

#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_BLK_WAYS; i++)
		if (READ_ONCE(inflight_tag[blk_idx(home + i)]) == tag &&
		    cas(&inflight_exited[blk_idx(home + i)], 0, 1))
			blk_put(home + i, tag);
}

/*
 * blk_note() - the process @tag's way, claimed if it has none, and in
 * @snap its in-flight clock at @now (0 for no way)
 */
static __always_inline __u64 blk_note(__u64 tag, __u64 now, __u64 *snap)
{
	__u64 way = blk_claim(tag);
	__u32 i = blk_idx(way);

	*snap = 0;
	if (way != IOWPROBE_BPF_NO_WAY)
		*snap = iowprobe_cc_value(READ_ONCE(inflight_blk[i].w), now);
	return way;
}

/*
 * blk_read() - the in-flight clock at @way at @now, and in @dev the disk
 * of its latest request; 0 for no way
 */
static __always_inline __u64 blk_read(__u64 way, __u64 now, __u64 *dev)
{
	__u32 i = blk_idx(way);

	if (way == IOWPROBE_BPF_NO_WAY)
		return 0;
	*dev = READ_ONCE(inflight_dev[i]);
	return iowprobe_cc_value(READ_ONCE(inflight_blk[i].w), now);
}

/* a name, copied as two words: a char array of a task allows word loads */
struct owner_comm {
	__u64 w[2];
};

/*
 * owners_note() - the sleeper of @t, whose process (named @comm) and
 * cgroup @t names, sleeps from @t->t_sleep on: take their rows (a kind
 * without one is left out of @t) and note the process's in-flight clock.
 * Global functions here and below: the verifier checks each once, not at
 * every caller.
 */
__noinline int owners_note(struct iowprobe_bpf_task *t,
			   const struct owner_comm *comm)
{
	struct iowprobe_bpf_owner *o;

	if (!t || !comm)
		return 0;
	t->blk_way = blk_note(t->proc, t->t_sleep, &t->blk_snap);
	o = row_get(&procs, t->proc);
	if (o) {
		/* exec renames a process, and it may change cgroups */
		__builtin_memcpy(o->comm, comm->w, sizeof(o->comm));
		WRITE_ONCE(o->cgroup, t->cgroup);
		__sync_fetch_and_add(&o->asleep, 1);
	} else {
		t->proc = 0;
		stat_inc(&stats.procs_full);
	}
	o = row_get(&cgroups, t->cgroup);
	if (o) {
		__sync_fetch_and_add(&o->asleep, 1);
	} else {
		t->cgroup = 0;
		stat_inc(&stats.cgroups_full);
	}
	return 0;
}

/*
 * wait_kind() - where @p, going to sleep in iowait, waits, as the module's
 * wait_kind() sorts it: by its flags, then by the system call number in
 * its saved user registers (doc/design.md#where-each-sleeper-waits)
 */
static __always_inline __u64 wait_kind(struct task_struct *p)
{
	struct pt_regs *regs;
	__u32 flags;

	if (wait_kinds_off)
		return IOWPROBE_WAIT_other;
	flags = p->flags;
	if (flags & (PF_KTHREAD | PF_IO_WORKER))
		return flags & PF_KTHREAD ? IOWPROBE_WAIT_other :
					    IOWPROBE_WAIT_uring;
	/* a 32-bit system call's number is another table's */
	if (p->thread_info.status & TS_COMPAT)
		return IOWPROBE_WAIT_other;
	regs = (struct pt_regs *)bpf_task_pt_regs(p);
	return iowprobe_wait_kind_of((long)regs->orig_ax);
}

/*
 * owners_sleep() - @p, followed by @t, sleeps from @now on: note its
 * process's and its cgroup's rows, and the process's in-flight clock
 */
static __always_inline void owners_sleep(struct iowprobe_bpf_task *t,
					 struct task_struct *p, __u64 now)
{
	struct task_struct *leader = p->group_leader;
	struct owner_comm comm;

	t->t_sleep = now;
	t->kind = wait_kind(p);
	t->cgroup = task_cgroup_id(p);
	t->proc = iowprobe_bpf_proc_tag(p->tgid, leader->start_time);
	/* direct loads, where bpf_probe_read_kernel() cost 84 instructions */
	comm.w[0] = *(__u64 *)&leader->comm[0];
	comm.w[1] = *(__u64 *)&leader->comm[8];
	owners_note(t, &comm);
}

/*
 * book_dev() - @ns of wait with a request in flight, on disk @dev; a row
 * whose slots are all taken gives the least waited-on one to @dev (a race
 * of two such can lose a few ns of one disk: a name, not a sum)
 */
static __always_inline void book_dev(struct iowprobe_bpf_owner *o, __u64 dev,
				     __u64 ns)
{
	__u64 d;
	int i, least = 0;

	if (!ns || !dev)
		return;
#pragma unroll
	for (i = 0; i < IOWPROBE_BPF_OWNER_DEVS; i++) {
		d = READ_ONCE(o->dev[i]);
		if (!d)
			d = __sync_val_compare_and_swap(&o->dev[i], 0, dev);
		if (!d || d == dev) {
			__sync_fetch_and_add(&o->dev_ns[i], ns);
			return;
		}
		if (READ_ONCE(o->dev_ns[i]) < READ_ONCE(o->dev_ns[least]))
			least = i;
	}
	least &= IOWPROBE_BPF_OWNER_DEVS - 1;
	WRITE_ONCE(o->dev[least], dev);
	WRITE_ONCE(o->dev_ns[least], ns);
}

/* book() - one sleep of @t, ended at @now, on row @o */
static __always_inline void book(struct iowprobe_bpf_owner *o,
				 const struct iowprobe_bpf_task *t, __u64 now,
				 __u64 share, __u64 blk, __u64 dev)
{
	__u64 wait = iowprobe_since(now, t->t_sleep), kind = t->kind;

	if (kind >= IOWPROBE_WAIT_KINDS)	/* for the verifier */
		kind = IOWPROBE_WAIT_other;
	__sync_fetch_and_add(&o->asleep, -1);
	__sync_fetch_and_add(&o->sleeps, 1);
	__sync_fetch_and_add(&o->wait_kind_ns[kind], wait);
	if (blk)
		__sync_fetch_and_add(&o->wait_blk_ns, blk);
	if (share)
		__sync_fetch_and_add(&o->wa_ns, share);
	book_dev(o, dev, blk);
}

/*
 * owners_wake() - the sleeper noted in @t woke at @now, having earned
 * @share of its CPU's iowait: settle on its rows
 */
__noinline int owners_wake(const struct iowprobe_bpf_task *t, __u64 now,
			   __u64 share)
{
	struct iowprobe_bpf_owner *o;
	__u64 blk = 0, dev = 0;

	if (!t)
		return 0;
	if (t->blk_way != IOWPROBE_BPF_NO_WAY)
		blk = iowprobe_cc_since(blk_read(t->blk_way, now, &dev),
					t->blk_snap);
	o = row_find(&procs, t->proc);
	if (o)
		book(o, t, now, share, blk, dev);
	o = row_find(&cgroups, t->cgroup);
	if (o)
		book(o, t, now, share, blk, dev);
	return 0;
}

/*
 * owners_forget() - undo what owners_note() took for @t, whose sleep could
 * not be followed after all
 */
__noinline int owners_forget(const struct iowprobe_bpf_task *t)
{
	struct iowprobe_bpf_owner *o;

	if (!t)
		return 0;
	o = row_find(&procs, t->proc);
	if (o)
		__sync_fetch_and_add(&o->asleep, -1);
	o = row_find(&cgroups, t->cgroup);
	if (o)
		__sync_fetch_and_add(&o->asleep, -1);
	return 0;
}

/*
 * rq_owner() - the tag of the process of @p, the current task, which
 * issues a request outside an interrupt; 0 for a kernel thread, which
 * issues for others.  A task that issued the CPU's last request is found
 * in @is with no load of its own, not the three of its flags, tgid and
 * group leader's start_time: no task was freed since (iow_free counts
 * them before the struct can be reused), so the address is still it.
 */
static __always_inline __u64 rq_owner(struct iowprobe_bpf_issuer *is,
				      struct task_struct *p)
{
	__u64 task = kid(p), gen = READ_ONCE(tasks_freed), tag;

	if (READ_ONCE(is->task) == task) {
		tag = READ_ONCE(is->tag);
		if (READ_ONCE(is->gen) == gen && READ_ONCE(is->task) == task)
			return tag;
	}
	if (p->flags & PF_KTHREAD)
		return 0;
	tag = iowprobe_bpf_proc_tag(p->tgid, p->group_leader->start_time);
	WRITE_ONCE(is->task, 0);
	WRITE_ONCE(is->gen, gen);
	WRITE_ONCE(is->tag, tag);
	WRITE_ONCE(is->task, task);
	return tag;
}

/* owners_exited() - @p is freed; if it led its group, that ended at @now */
static __always_inline void owners_exited(struct task_struct *p, __u64 now)
{
	struct iowprobe_bpf_owner *o;
	__u64 tag;

	if (p->pid != p->tgid)
		return;
	tag = iowprobe_bpf_proc_tag(p->tgid, p->start_time);
	o = row_find(&procs, tag);
	if (o)
		__sync_val_compare_and_swap(&o->t_exit, 0, now ? now : 1);
	blk_exited(tag);
}

#endif /* IOWPROBE_OWNERS_BPF_H */
