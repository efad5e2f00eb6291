// SPDX-License-Identifier: GPL-2.0-only
/*
 * pool.c - a pool's (pool.h) set up and tear down, and what its inline get
 * and put leave out of line: the moves between a CPU's cache and the
 * shared list, and the count of objects lent out
 */
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "pool.h"

/*
 * iowprobe_pool_init() - lend out the @n objects of @objsize bytes at @objs,
 * the first one first (a table shown in pool order reads oldest first)
 */
int iowprobe_pool_init(struct iowprobe_pool *p, void *objs, size_t objsize,
		       unsigned int n)
{
	unsigned int i;

	p->free = kvcalloc(n, sizeof(*p->free), GFP_KERNEL);
	p->cache = alloc_percpu(struct iowprobe_pool_cache);
	if (!p->free || !p->cache) {
		iowprobe_pool_destroy(p);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		p->free[i] = (char *)objs + (size_t)(n - 1 - i) * objsize;
	raw_spin_lock_init(&p->lock);
	p->size = n;
	p->nfree = n;
	/* an eighth of the pool at most in the caches; fewer than 2 is none */
	p->cache_max = min(IOWPROBE_POOL_CACHE, n / (8 * num_possible_cpus()));
	if (p->cache_max < 2)
		p->cache_max = 0;
	p->overflowed = false;
	atomic64_set(&p->exhausted, 0);
	return 0;
}

void iowprobe_pool_destroy(struct iowprobe_pool *p)
{
	free_percpu(p->cache);
	kvfree(p->free);
	p->cache = NULL;
	p->free = NULL;
	p->size = 0;
	p->nfree = 0;
	p->cache_max = 0;
}

/*
 * move() - @n pointers from @src to @dst: a loop, not memcpy(), whose
 * rep movsb the test box and -icount count byte by byte
 */
static void move(void **dst, void *const *src, unsigned int n)
{
	while (n--)
		*dst++ = *src++;
}

/* cached() - free objects in the CPUs' caches, read without their CPUs */
static unsigned int cached(const struct iowprobe_pool *p)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(p->cache, cpu)->n);
	return n;
}

/*
 * iowprobe_pool_refill() - @pc, this CPU's cache, is empty: move half a
 * cache from the shared list and take one
 *
 * Return: an object, or NULL (counted) when the shared list is empty too.
 * Interrupts off.
 */
void *iowprobe_pool_refill(struct iowprobe_pool *p,
			   struct iowprobe_pool_cache *pc)
{
	unsigned int n;
	void *obj = NULL;

	raw_spin_lock(&p->lock);
	n = min(p->nfree, p->cache_max / 2 + 1);
	if (n) {
		obj = p->free[--p->nfree];
		move(pc->obj, &p->free[p->nfree - (n - 1)], n - 1);
		p->nfree -= n - 1;
		WRITE_ONCE(pc->n, n - 1);
	} else {
		WRITE_ONCE(p->overflowed, true);
	}
	raw_spin_unlock(&p->lock);
	if (!obj)
		atomic64_inc(&p->exhausted);
	return obj;
}

/*
 * iowprobe_pool_spill() - give @obj back where this CPU's cache @pc is
 * full, or the pool overflowed: to the shared list, with half the cache,
 * or all of it while the pool is overflowed, so that its being full again
 * is seen.  Interrupts off.
 */
void iowprobe_pool_spill(struct iowprobe_pool *p,
			 struct iowprobe_pool_cache *pc, void *obj)
{
	unsigned int keep, n;

	raw_spin_lock(&p->lock);
	keep = p->overflowed ? 0 : p->cache_max / 2;
	n = pc->n > keep ? pc->n - keep : 0;
	p->free[p->nfree++] = obj;
	move(&p->free[p->nfree], &pc->obj[keep], n);
	p->nfree += n;
	WRITE_ONCE(pc->n, pc->n - n);
	/* load has dropped: exact again */
	if (p->overflowed && p->nfree + cached(p) == p->size)
		WRITE_ONCE(p->overflowed, false);
	raw_spin_unlock(&p->lock);
}

/*
 * iowprobe_pool_used() - objects lent out now; read without the CPUs'
 * caches, so a figure of the moment, for status and fast paths
 */
unsigned int iowprobe_pool_used(const struct iowprobe_pool *p)
{
	unsigned int free = READ_ONCE(p->nfree) + cached(p);

	return free < p->size ? p->size - free : 0;
}

/*
 * iowprobe_pool_settle() - nothing lent out is in use any more (the
 * caller knows: no request in flight): what overflowed has ended too
 */
void iowprobe_pool_settle(struct iowprobe_pool *p)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&p->lock, flags);
	WRITE_ONCE(p->overflowed, false);
	raw_spin_unlock_irqrestore(&p->lock, flags);
}
