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
 * lock: the lock its blk_local charge takes anyway.  Each CPU's hash has a
 * bucket for every IOWPROBE_RQ_PER_BUCKET requests of the pool, so a
 * chain stays short even with the whole pool in flight from one CPU: the
 * cost of a request does not grow with the requests in flight (at 64
 * buckets, 10,000 in flight made every issue walk a chain of 80).  So an
 * issue or a completion takes that one lock, and turns the busy clocks
 * (busy.h) with a compare-and-swap each; entries come from the pool
 * (pool.h), this CPU's cache of it first.
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
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "busy.h"
#include "devs.h"
#include "iowprobe.h"
#include "owners.h"

/*
 * A request still in flight after this long lost its completion (a path
 * that fires no block_rq_complete): forget it, count it, so it cannot keep
 * blk_local and blk_any running forever.  blk-mq's own timeout is 30 s.
 */
#define IOWPROBE_STALE_NS	(120ULL * NSEC_PER_SEC)

/* a CPU's hash: a bucket per this many requests of the pool, at most */
#define IOWPROBE_RQ_PER_BUCKET	4U
/* the buckets of a CPU's hash that the reaper ends in one locked section */
#define IOWPROBE_REAP_BUCKETS	64U

static struct iowprobe_table requests;
/* log2 of the buckets of every CPU's hash, set at load */
static unsigned int rq_bits __read_mostly;
static atomic64_t rq_anomalies;
static atomic64_t rq_stale;

/* busy_add() - a request of disk slot @dev starts (@start) or ends at @now */
static __always_inline void busy_add(u16 dev, bool start, u64 now)
{
	bool none = iowprobe_busy_turn(&iowprobe_busy_any, start, now);

	if (dev != IOWPROBE_NO_DEV)
		iowprobe_busy_turn(&iowprobe_devs[dev].busy, start, now);
	/* nothing followed is in flight: an overflow has ended */
	if (none && !iowprobe_table_exact(&requests))
		iowprobe_table_settle(&requests);
}

static void rq_hashes_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kvfree(per_cpu_ptr(iowprobe_cpus, cpu)->rq_hash);
		per_cpu_ptr(iowprobe_cpus, cpu)->rq_hash = NULL;
	}
}

/*
 * rq_hashes_alloc() - every CPU's hash of requests, for a pool of @pool,
 * on the CPU's own node: its issues and most of its completions look there
 */
static int rq_hashes_alloc(unsigned int pool)
{
	unsigned int n = roundup_pow_of_two(max(pool / IOWPROBE_RQ_PER_BUCKET,
						IOWPROBE_REAP_BUCKETS));
	struct hlist_head *hash;
	int cpu;

	rq_bits = ilog2(n);
	for_each_possible_cpu(cpu) {
		/* zeroed: every bucket empty */
		hash = kvzalloc_node(array_size(n, sizeof(*hash)), GFP_KERNEL,
				     cpu_to_node(cpu));
		if (!hash) {
			rq_hashes_free();
			pr_err("cannot allocate the hashes of %u requests: load with a smaller requests=\n",
			       pool);
			return -ENOMEM;
		}
		per_cpu_ptr(iowprobe_cpus, cpu)->rq_hash = hash;
	}
	return 0;
}

/* iowprobe_blk_init() - a pool of @pool requests in flight */
int iowprobe_blk_init(unsigned int pool)
{
	int ret;

	ret = iowprobe_devs_init();
	if (ret)
		return ret;
	ret = iowprobe_table_init(&requests, "requests", pool, false);
	if (ret)
		goto err_devs;
	ret = rq_hashes_alloc(pool);
	if (ret)
		goto err_table;
	return 0;

err_table:
	iowprobe_table_destroy(&requests);
err_devs:
	iowprobe_devs_exit();
	return ret;
}

void iowprobe_blk_exit(void)
{
	rq_hashes_free();
	iowprobe_table_destroy(&requests);
	iowprobe_devs_exit();
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
	return &c->rq_hash[hash_ptr(rq, rq_bits)];
}

/*
 * rq_unlink() - take @rq's entry out of @c's hash; c->lock held.  Unlinked
 * without poisoning: the entry goes back to the pool, and the issue that
 * takes it next links it into a hash, which writes both links.
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

/* lfl_add() - @delta requests submitted from @c's CPU start or end */
static __always_inline void lfl_add(struct iowprobe_cpu *c, int delta,
				    u64 now)
{
	struct iowprobe_acct *a = &c->acct;

	iowprobe_acct_add_lfl(a, now, iowprobe_acct_io_matters(a) ?
			      iowprobe_blk_gclock(a, now) : 0, delta);
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
		iowprobe_dev_done(e->rq.dev, e->rq.op, e->rq.bytes,
				  e->rq.t_issue, now);
	}
	busy_add(e->rq.dev, false, now);
	iowprobe_owner_rq(e->rq.owner, IOWPROBE_NO_DEV, -1, now);
	iowprobe_entry_put(&requests, e);
}

/* rq_start() - follow @rq of process row @o from @now on; c->lock held */
static __always_inline void rq_start(struct iowprobe_cpu *c,
				     struct request *rq, u16 dev, u64 now,
				     struct iowprobe_owner *o)
{
	struct iowprobe_entry *e = iowprobe_entry_get(&requests);

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
 * reap_buckets() - end the lost requests of @c's buckets @from to @to - 1,
 * in one locked section of a few: a hash sized for a large pool is not
 * walked with interrupts off all at once
 */
static void reap_buckets(struct iowprobe_cpu *c, int cpu, unsigned int from,
			 unsigned int to)
{
	struct iowprobe_entry *e;
	struct hlist_node *tmp;
	unsigned long flags;
	unsigned int b;
	u64 now;

	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	for (b = from; b < to; b++) {
		hlist_for_each_entry_safe(e, tmp, &c->rq_hash[b], node) {
			if (!rq_stale_at(e, now))
				continue;
			hlist_del(&e->node);
			atomic64_inc(&rq_stale);
			rq_end(c, e, false, now);
		}
	}
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * reap_cpu() - end @cpu's lost requests, and close its open segment, so
 * that no segment outlives the in-flight clock's unwrap range (busy.h)
 */
static void reap_cpu(int cpu)
{
	struct iowprobe_cpu *c = per_cpu_ptr(iowprobe_cpus, cpu);
	unsigned int b, n = 1U << rq_bits;
	unsigned long flags;
	u64 now;

	/* n is a power of two of at least IOWPROBE_REAP_BUCKETS */
	for (b = 0; b < n; b += IOWPROBE_REAP_BUCKETS)
		reap_buckets(c, cpu, b, b + IOWPROBE_REAP_BUCKETS);
	raw_spin_lock_irqsave(&c->lock, flags);
	now = iowprobe_clock(cpu);
	iowprobe_acct_close(&c->acct, now, iowprobe_blk_gclock(&c->acct, now));
	raw_spin_unlock_irqrestore(&c->lock, flags);
}

/*
 * iowprobe_blk_reap() - the reaper's part here (main.c): the in-flight
 * clocks' snapshots moved on, and every CPU's lost requests ended
 */
void iowprobe_blk_reap(void)
{
	u64 now = iowprobe_now();
	int cpu;

	iowprobe_devs_reap(now);
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
	u16 dev = iowprobe_dev_index(rq->q->disk);
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

void iowprobe_blk_status(struct seq_file *m)
{
	seq_printf(m, "requests_in_flight: %u\n",
		   iowprobe_busy_count(&iowprobe_busy_any));
	seq_printf(m, "request_pool: %u/%u used\n",
		   iowprobe_table_used(&requests),
		   requests.pool.size);
	seq_printf(m, "request_pool_exhausted: %lld\n",
		   atomic64_read(&requests.pool.exhausted));
	/* blk_*_ns and the device figures miss what the pool could not hold */
	seq_printf(m, "exact_blk: %s\n",
		   iowprobe_table_exact(&requests) ? "yes" : "no");
	seq_printf(m, "request_anomalies: %lld\n",
		   atomic64_read(&rq_anomalies));
	seq_printf(m, "request_stale: %lld\n", atomic64_read(&rq_stale));
	iowprobe_devs_status(m);
}
