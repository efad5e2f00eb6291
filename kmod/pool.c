// SPDX-License-Identifier: GPL-2.0-only
/*
 * pool.c - set up and tear down a pool (pool.h) over the caller's array
 */
#include <linux/slab.h>
#include <linux/string.h>
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
	if (!p->free)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p->free[i] = (char *)objs + (size_t)(n - 1 - i) * objsize;
	raw_spin_lock_init(&p->lock);
	p->size = n;
	p->nfree = n;
	p->overflowed = false;
	atomic64_set(&p->exhausted, 0);
	return 0;
}

void iowprobe_pool_destroy(struct iowprobe_pool *p)
{
	kvfree(p->free);
	p->free = NULL;
	p->size = 0;
	p->nfree = 0;
}
