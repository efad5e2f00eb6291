// SPDX-License-Identifier: GPL-2.0-only
/*
 * blk.c - block requests in flight: per submitting CPU, per disk, global
 *
 * A request is in flight from block_rq_issue to the block_rq_complete that
 * finishes it (partial completions do not) or to block_rq_requeue (it will
 * be issued again).  Completions of requests issued before load are ignored.
 *
 * A request is kept by the CPU that submitted it (blk_mq_rq_cpu(), which
 * issue and completion both see), in that CPU's hash under that CPU's
 * lock: the lock its blk_local charge takes anyway.  So an issue or a
 * completion takes that one lock, and turns the busy clocks (busy.h) with
 * a compare-and-swap each; entries come from the CPU's own free list
 * before the shared pool.
 * (A request issued again from another CPU without a completion seen is
 * not found by that issue: its old entry waits for the reaper.)
 * A request issued by a user task is also its process's (owners.c), for
 * the wait_blk_ns of the process and its cgroup.
 * The helpers of those paths are __always_inline: the calls between them
 * cost fio on null_blk 120 instructions per I/O, 1.8% (scripts/bench).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/sched.h>
#include <linux/seq_file.h>

#include "busy.h"
#include "iowprobe.h"
#include "owners.h"

#define IOWPROBE_MAX_DEVS	64
/*
 * A request still in flight after this long lost its completion (a path
 * that fires no block_rq_complete): forget it, count it, so it cannot keep
 * blk_local and blk_any running forever.  blk-mq's own timeout is 30 s.
 */
#define IOWPROBE_STALE_NS	(120ULL * NSEC_PER_SEC)
/* free request entries a CPU keeps for itself, at most */
#define IOWPROBE_RQ_CACHE	32U

struct iowprobe_dev {
	dev_t devt;
	char name[DISK_NAME_LEN];
	struct iowprobe_busy busy;
	atomic64_t requests;
	atomic64_t read_bytes;
	atomic64_t write_bytes;
	atomic64_t lat[IOWPROBE_LAT_SLOTS];
};

static struct iowprobe_table requests;
struct iowprobe_busy iowprobe_busy_any;
static struct iowprobe_dev *devs;
static unsigned int ndevs;
static DEFINE_RAW_SPINLOCK(devs_lock);
static atomic64_t devs_overflow;
static atomic64_t rq_anomalies;
static atomic64_t rq_stale;
static unsigned int rq_cache_max;	/* free entries a CPU may keep */

/*
 * devs_published() - how many device slots are fully written
 *
 * Pairs with the smp_store_release() in dev_index(): a slot is filled in
 * before ndevs counts it, so readers never see a half-written slot.
 */
static unsigned int devs_published(void)
{
	/* pairs with smp_store_release() in dev_index() */
	return smp_load_acquire(&ndevs);
}

static void busy_init(struct iowprobe_busy *b)
{
	atomic64_set(&b->w, 0);
	b->snap = 0;
}

/*
 * busy_turn() - one request starts (@start) or ends on @b at @now
 *
 * The count never leaves the clock's range: it counts request entries, and
 * requests= is capped to IOWPROBE_CC_MAX.
 * Return: true when none is in flight any more.
 */
static __always_inline bool busy_turn(struct iowprobe_busy *b, bool start,
				      u64 now)
{
	s64 old = atomic64_read(&b->w);
	u64 new;

	do {
		new = start ? iowprobe_cc_start(old, now) :
			      iowprobe_cc_stop(old, now);
	} while (!atomic64_try_cmpxchg(&b->w, &old, new));
	return new < IOWPROBE_CC_ONE;
}

/* busy_add() - a request of disk slot @dev starts (@start) or ends at @now */
static __always_inline void busy_add(u16 dev, bool start, u64 now)
{
	bool none = busy_turn(&iowprobe_busy_any, start, now);

	if (dev != IOWPROBE_NO_DEV)
		busy_turn(&devs[dev].busy, start, now);
	/* nothing followed is in flight: an overflow has ended */
	if (none && !iowprobe_table_exact(&requests))
		iowprobe_table_settle(&requests);
}

/* busy_snap() - move @b's 64-bit snapshot on to @now; the reaper's alone */
static void busy_snap(struct iowprobe_busy *b, u64 now)
{
	WRITE_ONCE(b->snap, iowprobe_busy_at(b, now, b->snap));
}

#ifdef IOWPROBE_TESTING
/*
 * iowprobe_blk_test_lock_order() - testing builds only: this CPU's lock and
 * devs_lock in one order, then in the other, for lockdep to report as a
 * possible deadlock.  Both orders are taken here, so that lockdep knows
 * the first without waiting for any probe.
 */
void iowprobe_blk_test_lock_order(void)
{
	struct iowprobe_cpu *c = get_cpu_ptr(iowprobe_cpus);
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	raw_spin_lock(&devs_lock);
	raw_spin_unlock(&devs_lock);
	raw_spin_unlock_irqrestore(&c->lock, flags);

	raw_spin_lock_irqsave(&devs_lock, flags);
	raw_spin_lock(&c->lock);
	raw_spin_unlock(&c->lock);
	raw_spin_unlock_irqrestore(&devs_lock, flags);
	put_cpu_ptr(iowprobe_cpus);
}
#endif

int iowprobe_blk_init(void)
{
	int ret;

	busy_init(&iowprobe_busy_any);
	devs = kcalloc(IOWPROBE_MAX_DEVS, sizeof(*devs), GFP_KERNEL);
	if (!devs)
		return -ENOMEM;
	ret = iowprobe_table_init(&requests, "requests",
				  iowprobe_request_pool, false);
	if (ret) {
		kfree(devs);
		return ret;
	}
	/* at most half the pool idles in the CPUs' hands */
	rq_cache_max = min(IOWPROBE_RQ_CACHE,
			   iowprobe_request_pool / (2 * num_possible_cpus()));
	return 0;
}

void iowprobe_blk_exit(void)
{
	iowprobe_table_destroy(&requests);
	kfree(devs);
}

/*
 * iowprobe_blk_devt() - the disk of slot @dev, or 0.  owners.c calls it at
 * a wakeup: a row keeps its latest request's slot, one load less a request
 * than its dev_t (doc/bench.md), so this is the one call back into blk.c.
 */
dev_t iowprobe_blk_devt(u16 dev)
{
	return dev < devs_published() ? devs[dev].devt : 0;
}

/* dev_index() - the slot of @disk, added on first sight */
static u16 dev_index(struct gendisk *disk)
{
	unsigned int i, n = devs_published();
	unsigned long flags;
	dev_t devt;

	if (!disk)
		return IOWPROBE_NO_DEV;
	devt = disk_devt(disk);
	for (i = 0; i < n; i++)
		if (devs[i].devt == devt)
			return i;
	raw_spin_lock_irqsave(&devs_lock, flags);
	for (i = 0; i < ndevs; i++)
		if (devs[i].devt == devt)
			goto out;
	if (i == IOWPROBE_MAX_DEVS) {
		atomic64_inc(&devs_overflow);
		i = IOWPROBE_NO_DEV;
		goto out;
	}
	devs[i].devt = devt;
	strscpy(devs[i].name, disk->disk_name, sizeof(devs[i].name));
	busy_init(&devs[i].busy);
	/* publish the filled slot; pairs with devs_published() */
	smp_store_release(&ndevs, i + 1);
out:
	raw_spin_unlock_irqrestore(&devs_lock, flags);
	return i;
}

static u8 op_of(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return IOWPROBE_OP_READ;
	case REQ_OP_WRITE:
		return IOWPROBE_OP_WRITE;
	default:
		return IOWPROBE_OP_OTHER;
	}
}

/*
 * rq_cpu_nr() - the CPU that submitted @rq: its state keeps the request,
 * and its clock times both ends, so the request's latency is one clock's
 * difference wherever it completes
 */
static __always_inline int rq_cpu_nr(struct request *rq)
{
	unsigned int cpu = blk_mq_rq_cpu(rq);

	/* issue and completion must agree, so no raw_smp_processor_id() */
	return cpu < nr_cpu_ids ? cpu : 0;
}

static struct hlist_head *rq_bucket(struct iowprobe_cpu *c,
				    struct request *rq)
{
	return &c->rq_hash[hash_ptr(rq, IOWPROBE_CPU_RQ_BITS)];
}

/*
 * rq_unlink() - take @rq's entry out of @c's hash; c->lock held.  Unlinked
 * without poisoning: the entry goes straight onto a free list, whose add
 * writes both links.
 */
static __always_inline struct iowprobe_entry *
rq_unlink(struct iowprobe_cpu *c, struct request *rq)
{
	struct iowprobe_entry *e;

	hlist_for_each_entry(e, rq_bucket(c, rq), node) {
		if (e->key == rq) {
			__hlist_del(&e->node);
			return e;
		}
	}
	return NULL;
}

/*
 * rq_entry_get() - a free entry, @c's own before the pool's; c->lock held.
 * Popped without poisoning: rq_start() links it into the hash at once.
 */
static __always_inline struct iowprobe_entry *
rq_entry_get(struct iowprobe_cpu *c)
{
	struct hlist_node *first = c->rq_free.first;

	if (!first)
		return iowprobe_entry_get(&requests);
	__hlist_del(first);
	WRITE_ONCE(c->rq_nfree, c->rq_nfree - 1);	/* rq_cached() peeks */
	return hlist_entry(first, struct iowprobe_entry, node);
}

/* rq_entry_put() - keep @e for @c's next issue, or give it back; locked */
static __always_inline void rq_entry_put(struct iowprobe_cpu *c,
					 struct iowprobe_entry *e)
{
	if (c->rq_nfree >= rq_cache_max) {
		iowprobe_entry_put(&requests, e);
		return;
	}
	hlist_add_head(&e->node, &c->rq_free);
	WRITE_ONCE(c->rq_nfree, c->rq_nfree + 1);
}

/* lfl_add() - @delta requests submitted from @c's CPU start or end */
static __always_inline void lfl_add(struct iowprobe_cpu *c, int delta,
				    u64 now)
{
	struct iowprobe_acct *a = &c->acct;

	iowprobe_acct_add_lfl(a, now, iowprobe_acct_io_matters(a) ?
			      iowprobe_blk_gclock(a, now) : 0, delta);
}

/* dev_done() - the disk's figures for a request completed at @now */
static __always_inline void dev_done(const struct iowprobe_entry *e,
				     u64 now)
{
	struct iowprobe_dev *d;

	if (e->rq.dev == IOWPROBE_NO_DEV)
		return;
	d = &devs[e->rq.dev];
	atomic64_inc(&d->requests);
	if (e->rq.op == IOWPROBE_OP_READ)
		atomic64_add(e->rq.bytes, &d->read_bytes);
	if (e->rq.op == IOWPROBE_OP_WRITE)
		atomic64_add(e->rq.bytes, &d->write_bytes);
	atomic64_inc(&d->lat[iowprobe_lat_slot(now - e->rq.t_issue)]);
}

/*
 * rq_end() - the request of @e, submitted from @c's CPU, is no longer in
 * flight at @now (@done: it completed); frees @e.  c->lock held.
 */
static __always_inline void rq_end(struct iowprobe_cpu *c,
				   struct iowprobe_entry *e, bool done, u64 now)
{
	lfl_add(c, -1, now);
	if (done) {
		c->counters[IOWPROBE_C_rq_completed]++;
		if (e->rq.op == IOWPROBE_OP_READ)
			c->counters[IOWPROBE_C_read_bytes] += e->rq.bytes;
		if (e->rq.op == IOWPROBE_OP_WRITE)
			c->counters[IOWPROBE_C_write_bytes] += e->rq.bytes;
		dev_done(e, now);
	}
	busy_add(e->rq.dev, false, now);
	iowprobe_owner_rq(e->rq.owner, IOWPROBE_NO_DEV, -1, now);
	rq_entry_put(c, e);
}

/* rq_start() - follow @rq of process row @o from @now on; c->lock held */
static __always_inline void rq_start(struct iowprobe_cpu *c,
				     struct request *rq, u16 dev, u64 now,
				     struct iowprobe_owner *o)
{
	struct iowprobe_entry *e = rq_entry_get(c);

	if (!e)
		return;
	e->key = rq;
	e->rq.owner = o;
	iowprobe_owner_rq(o, dev, 1, now);
	e->rq.t_issue = now;
	e->rq.bytes = blk_rq_bytes(rq);
	e->rq.op = op_of(rq);
	e->rq.dev = dev;
	hlist_add_head(&e->node, rq_bucket(c, rq));
	lfl_add(c, 1, now);
	c->counters[IOWPROBE_C_rq_issued]++;
	busy_add(dev, true, now);
}

static bool rq_stale_at(const struct iowprobe_entry *e, u64 now)
{
	return now > e->rq.t_issue && now - e->rq.t_issue > IOWPROBE_STALE_NS;
}

/*
 * reap_cpu() - end @cpu's lost requests, and close its open segment, so
 * that no segment outlives the in-flight clock's unwrap range (busy.h)
 */
static void reap_cpu(int cpu)
{
	struct iowprobe_cpu *c = per_cpu_ptr(iowprobe_cpus, cpu);
	struct iowprobe_entry *e;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int b;
	u64 now;

	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	for (b = 0; b < ARRAY_SIZE(c->rq_hash); b++) {
		hlist_for_each_entry_safe(e, tmp, &c->rq_hash[b], node) {
			if (!rq_stale_at(e, now))
				continue;
			hlist_del(&e->node);
			atomic64_inc(&rq_stale);
			rq_end(c, e, false, now);
		}
	}
	iowprobe_acct_close(&c->acct, now, iowprobe_blk_gclock(&c->acct, now));
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * iowprobe_blk_reap() - the reaper's part here (main.c): the in-flight
 * clocks' snapshots moved on, and every CPU's lost requests ended
 */
void iowprobe_blk_reap(void)
{
	unsigned int i, n = devs_published();
	u64 now = iowprobe_now();
	int cpu;

	busy_snap(&iowprobe_busy_any, now);
	for (i = 0; i < n; i++)
		busy_snap(&devs[i].busy, now);
	for_each_possible_cpu(cpu) {
		reap_cpu(cpu);
		cond_resched();
	}
}

/*
 * rq_owner() - whose a request is: the current user task's process;
 * nobody's from an interrupt (a completion restarting the queue) or a
 * kernel thread.  Interrupts off.
 */
static __always_inline struct iowprobe_owner *rq_owner(void)
{
	return in_task() ? iowprobe_owner_current() : NULL;
}

notrace void iowprobe_probe_rq_issue(void *data, struct request *rq)
{
	int cpu = rq_cpu_nr(rq);
	struct iowprobe_cpu *c = per_cpu_ptr(iowprobe_cpus, cpu);
	u16 dev = dev_index(rq->q->disk);
	struct iowprobe_entry *old;
	unsigned long flags;
	u64 now;

	iowprobe_hit(IOWPROBE_EV_block_rq_issue);
	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	old = rq_unlink(c, rq);
	if (old) {		/* issued twice without a completion we saw */
		atomic64_inc(&rq_anomalies);
		rq_end(c, old, false, now);
	}
	rq_start(c, rq, dev, now, rq_owner());
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/* rq_gone() - @rq is no longer in flight; @done: it completed */
static __always_inline void rq_gone(struct request *rq, bool done)
{
	int cpu = rq_cpu_nr(rq);
	struct iowprobe_cpu *c = per_cpu_ptr(iowprobe_cpus, cpu);
	struct iowprobe_entry *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&c->lock, flags);
	e = rq_unlink(c, rq);
	if (e)
		rq_end(c, e, done, iowprobe_clock(cpu));
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

notrace void iowprobe_probe_rq_complete(void *data, struct request *rq,
					blk_status_t error,
					unsigned int nr_bytes)
{
	iowprobe_hit(IOWPROBE_EV_block_rq_complete);
	if (nr_bytes < blk_rq_bytes(rq))
		return;		/* a partial completion: still in flight */
	rq_gone(rq, true);
}

notrace void iowprobe_probe_rq_requeue(void *data, struct request *rq)
{
	iowprobe_hit(IOWPROBE_EV_block_rq_requeue);
	rq_gone(rq, false);
}

/* rq_cached() - free request entries the CPUs keep for themselves */
static unsigned int rq_cached(void)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(iowprobe_cpus, cpu)->rq_nfree);
	return n;
}

void iowprobe_blk_devices_show(struct seq_file *m)
{
	unsigned int i, n = devs_published();
	u64 now = iowprobe_now();
	struct iowprobe_dev *d;

	seq_puts(m, IOWPROBE_ABI_LINE "\n" IOWPROBE_DEVICES_HEADER "\n");
	for (i = 0; i < n; i++) {
		d = &devs[i];
		seq_printf(m, "%s %u:%u %lld %lld %lld %u %llu\n", d->name,
			   MAJOR(d->devt), MINOR(d->devt),
			   atomic64_read(&d->requests),
			   atomic64_read(&d->read_bytes),
			   atomic64_read(&d->write_bytes),
			   iowprobe_busy_count(&d->busy),
			   iowprobe_busy_at(&d->busy, now,
					    READ_ONCE(d->busy.snap)));
	}
}

void iowprobe_blk_latency_show(struct seq_file *m)
{
	unsigned int i, s, n = devs_published();
	struct iowprobe_dev *d;
	u64 count, hi;

	seq_puts(m, IOWPROBE_ABI_LINE "\n" IOWPROBE_LATENCY_HEADER "\n");
	for (i = 0; i < n; i++) {
		d = &devs[i];
		for (s = 0; s < IOWPROBE_LAT_SLOTS; s++) {
			count = atomic64_read(&d->lat[s]);
			if (!count)
				continue;
			hi = s == IOWPROBE_LAT_SLOTS - 1 ? U64_MAX :
							   (2ULL << s) - 1;
			seq_printf(m, "%s %u:%u %llu %llu %llu\n", d->name,
				   MAJOR(d->devt), MINOR(d->devt),
				   s ? 1ULL << s : 0, hi, count);
		}
	}
}

void iowprobe_blk_status(struct seq_file *m)
{
	seq_printf(m, "requests_in_flight: %u\n",
		   iowprobe_busy_count(&iowprobe_busy_any));
	seq_printf(m, "request_pool: %u/%u used\n",
		   max_t(int, iowprobe_table_used(&requests) - rq_cached(), 0),
		   requests.pool.size);
	seq_printf(m, "request_pool_exhausted: %lld\n",
		   atomic64_read(&requests.pool.exhausted));
	/* blk_*_ns and the device figures miss what the pool could not hold */
	seq_printf(m, "exact_blk: %s\n",
		   iowprobe_table_exact(&requests) ? "yes" : "no");
	seq_printf(m, "request_anomalies: %lld\n",
		   atomic64_read(&rq_anomalies));
	seq_printf(m, "request_stale: %lld\n", atomic64_read(&rq_stale));
	seq_printf(m, "devices: %u\n", devs_published());
	seq_printf(m, "devices_overflow: %lld\n",
		   atomic64_read(&devs_overflow));
}
