/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pool.h - objects allocated at load and lent out under one lock: what the
 * task and request tables (table.c) and the rows of who waits (owners.c)
 * take their entries from, so that no probe ever allocates
 *
 * The get and put are inline: they are on the sleep and request paths.
 */
#ifndef IOWPROBE_POOL_H
#define IOWPROBE_POOL_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/*
 * struct iowprobe_pool - @size objects of the caller's array, @nfree of
 * them on @free
 * @lock:       over @free, @nfree and @overflowed; a leaf (nothing is
 *              taken inside it), taken irqsave, also inside a CPU's lock
 *              or a hash bucket's
 * @exhausted:  gets that found it empty, since load
 * @overflowed: a get found it empty since it was last full
 */
struct iowprobe_pool {
	void **free;
	raw_spinlock_t lock;
	unsigned int size;
	unsigned int nfree;
	atomic64_t exhausted;
	bool overflowed;
};

int iowprobe_pool_init(struct iowprobe_pool *p, void *objs, size_t objsize,
		       unsigned int n);
void iowprobe_pool_destroy(struct iowprobe_pool *p);

/* iowprobe_pool_get() - an unused object, or NULL (counted) if none is left */
static inline void *iowprobe_pool_get(struct iowprobe_pool *p)
{
	unsigned long flags;
	void *obj = NULL;

	raw_spin_lock_irqsave(&p->lock, flags);
	if (p->nfree)
		obj = p->free[--p->nfree];
	else
		p->overflowed = true;
	raw_spin_unlock_irqrestore(&p->lock, flags);
	if (!obj)
		atomic64_inc(&p->exhausted);
	return obj;
}

/* iowprobe_pool_put() - @obj, got from @p, is unused again */
static inline void iowprobe_pool_put(struct iowprobe_pool *p, void *obj)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&p->lock, flags);
	p->free[p->nfree++] = obj;
	if (p->nfree == p->size)	/* load has dropped: exact again */
		p->overflowed = false;
	raw_spin_unlock_irqrestore(&p->lock, flags);
}

/* iowprobe_pool_used() - objects lent out now, read without the lock */
static inline unsigned int iowprobe_pool_used(const struct iowprobe_pool *p)
{
	return p->size - READ_ONCE(p->nfree);
}

#endif /* IOWPROBE_POOL_H */
