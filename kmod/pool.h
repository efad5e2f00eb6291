/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pool.h - objects allocated at load and lent out: what the task and
 * request tables (table.c) and the rows of who waits (owners.c) take
 * their entries from, so that no probe ever allocates
 *
 * Each CPU keeps a few free objects of its own, taken and given back with
 * interrupts off (every caller has them off already: the probes, and the
 * locks their callers hold) and no lock; only a CPU whose cache runs empty
 * or full takes the shared list's lock, to move half a cache at once.  So a sleep
 * and its wakeup, or a request's issue and completion, write no cache
 * line another CPU writes, but one in IOWPROBE_POOL_CACHE / 2 times
 * (doc/design.md#concurrency).  The get and put are inline: they are on
 * the sleep and request paths.
 */
#ifndef IOWPROBE_POOL_H
#define IOWPROBE_POOL_H

#include <linux/atomic.h>
#include <linux/lockdep.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/* free objects a CPU keeps, at most: a refill or a spill moves half */
#define IOWPROBE_POOL_CACHE	32U

/*
 * struct iowprobe_pool_cache - one CPU's free objects, @n of them; written
 * by that CPU only, with interrupts off; others read @n (a count only)
 */
struct iowprobe_pool_cache {
	unsigned int n;
	void *obj[IOWPROBE_POOL_CACHE];
};

/*
 * struct iowprobe_pool - @size objects of the caller's array: @nfree of
 * them on @free, the rest lent out or in the CPUs' caches
 * @cache:      each CPU's free objects
 * @lock:       over @free, @nfree and @overflowed; a leaf (nothing is
 *              taken inside it), taken with interrupts off, also inside a
 *              CPU's lock or a row hash's bucket lock
 * @cache_max:  objects a CPU keeps, at most: so that the caches never hold
 *              more than an eighth of the pool where another CPU may find
 *              it empty; 0 (a small pool on many CPUs) keeps none
 * @exhausted:  gets that found it empty, since load
 * @overflowed: a get found it empty since it was last full; while it is
 *              set, every put goes to @free, so that a full pool is seen
 */
struct iowprobe_pool {
	void **free;
	struct iowprobe_pool_cache __percpu *cache;
	raw_spinlock_t lock;
	unsigned int size;
	unsigned int nfree;
	unsigned int cache_max;
	atomic64_t exhausted;
	bool overflowed;
};

int iowprobe_pool_init(struct iowprobe_pool *p, void *objs, size_t objsize,
		       unsigned int n);
void iowprobe_pool_destroy(struct iowprobe_pool *p);
void *iowprobe_pool_refill(struct iowprobe_pool *p,
			   struct iowprobe_pool_cache *pc);
void iowprobe_pool_spill(struct iowprobe_pool *p,
			 struct iowprobe_pool_cache *pc, void *obj);
unsigned int iowprobe_pool_used(const struct iowprobe_pool *p);
void iowprobe_pool_settle(struct iowprobe_pool *p);

/*
 * iowprobe_pool_get() - an unused object, or NULL (counted) if none is
 * left; interrupts off
 */
static __always_inline void *iowprobe_pool_get(struct iowprobe_pool *p)
{
	struct iowprobe_pool_cache *pc;
	void *obj;

	lockdep_assert_irqs_disabled();
	pc = this_cpu_ptr(p->cache);
	if (likely(pc->n)) {
		obj = pc->obj[pc->n - 1];
		WRITE_ONCE(pc->n, pc->n - 1);	/* iowprobe_pool_used() peeks */
	} else {
		obj = iowprobe_pool_refill(p, pc);
	}
	return obj;
}

/* iowprobe_pool_put() - @obj, got from @p, is unused again; interrupts off */
static __always_inline void iowprobe_pool_put(struct iowprobe_pool *p,
					      void *obj)
{
	struct iowprobe_pool_cache *pc;

	lockdep_assert_irqs_disabled();
	pc = this_cpu_ptr(p->cache);
	if (likely(pc->n < p->cache_max && !READ_ONCE(p->overflowed))) {
		pc->obj[pc->n] = obj;
		WRITE_ONCE(pc->n, pc->n + 1);
	} else {
		iowprobe_pool_spill(p, pc, obj);
	}
}

#endif /* IOWPROBE_POOL_H */
