// SPDX-License-Identifier: GPL-2.0-only
/*
 * table.c - pointer-keyed hash tables over preallocated entries
 *
 * Probes run under the runqueue lock with interrupts off, where allocating
 * can deadlock (kswapd wakeups); every entry is allocated at load and lent
 * out by a pool (pool.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "iowprobe.h"

#define IOWPROBE_MAX_LOCKS	1024

/*
 * iowprobe_table_init() - @size preallocated entries; @keyed: also the hash
 * of iowprobe_table_add() and iowprobe_table_del(), which a table whose
 * entries are kept elsewhere (blk.c's, per CPU) does without.  @name is
 * the module parameter that sizes it, named when it cannot be allocated.
 */
int iowprobe_table_init(struct iowprobe_table *t, const char *name,
			unsigned int size, bool keyed)
{
	unsigned int nbuckets = keyed ? roundup_pow_of_two(size) : 0;
	unsigned int nlocks = min_t(unsigned int, nbuckets, IOWPROBE_MAX_LOCKS);
	unsigned int i;

	/* a failure below destroys the table: nothing of the pool yet */
	memset(&t->pool, 0, sizeof(t->pool));
	t->bits = keyed ? ilog2(nbuckets) : 0;
	t->lock_mask = nlocks - 1;
	t->buckets = keyed ? kvcalloc(nbuckets, sizeof(*t->buckets),
				      GFP_KERNEL) : NULL;
	t->locks = keyed ? kvcalloc(nlocks, sizeof(*t->locks), GFP_KERNEL) :
			   NULL;
	t->entries = kvcalloc(size, sizeof(*t->entries), GFP_KERNEL);
	if ((keyed && (!t->buckets || !t->locks)) || !t->entries ||
	    iowprobe_pool_init(&t->pool, t->entries, sizeof(*t->entries),
			       size)) {
		iowprobe_table_destroy(t);
		pr_err("cannot allocate %u %s: load with a smaller %s=\n", size,
		       name, name);
		return -ENOMEM;
	}
	for (i = 0; i < nlocks; i++)
		raw_spin_lock_init(&t->locks[i]);
	return 0;
}

void iowprobe_table_destroy(struct iowprobe_table *t)
{
	iowprobe_pool_destroy(&t->pool);
	kvfree(t->entries);
	kvfree(t->locks);
	kvfree(t->buckets);
	t->entries = NULL;
	t->locks = NULL;
	t->buckets = NULL;
}

static unsigned int bucket_of(struct iowprobe_table *t, const void *key)
{
	return hash_ptr((void *)key, t->bits);
}

static struct iowprobe_entry *find(struct hlist_head *head, const void *key)
{
	struct iowprobe_entry *e;

	hlist_for_each_entry(e, head, node)
		if (e->key == key)
			return e;
	return NULL;
}

/*
 * iowprobe_table_add() - publish @e under @key
 *
 * Return: the entry @key had before, now unlinked and owned by the caller
 * (an anomaly: a missed event), or NULL.
 */
struct iowprobe_entry *iowprobe_table_add(struct iowprobe_table *t,
					  const void *key,
					  struct iowprobe_entry *e)
{
	unsigned int b = bucket_of(t, key);
	raw_spinlock_t *lock = &t->locks[b & t->lock_mask];
	struct iowprobe_entry *old;
	unsigned long flags;

	e->key = key;
	raw_spin_lock_irqsave(lock, flags);
	old = find(&t->buckets[b], key);
	if (old)
		hlist_del(&old->node);
	hlist_add_head(&e->node, &t->buckets[b]);
	raw_spin_unlock_irqrestore(lock, flags);
	return old;
}

/*
 * iowprobe_table_add_new() - publish @e under @key unless @key has an entry
 *
 * Return: whether @e was published (if not, the caller still owns it).
 */
bool iowprobe_table_add_new(struct iowprobe_table *t, const void *key,
			    struct iowprobe_entry *e)
{
	unsigned int b = bucket_of(t, key);
	raw_spinlock_t *lock = &t->locks[b & t->lock_mask];
	unsigned long flags;
	bool added = false;

	e->key = key;
	raw_spin_lock_irqsave(lock, flags);
	if (!find(&t->buckets[b], key)) {
		hlist_add_head(&e->node, &t->buckets[b]);
		added = true;
	}
	raw_spin_unlock_irqrestore(lock, flags);
	return added;
}

/* iowprobe_table_del() - unlink the entry of @key; the caller owns it */
struct iowprobe_entry *iowprobe_table_del(struct iowprobe_table *t,
					  const void *key)
{
	unsigned int b = bucket_of(t, key);
	raw_spinlock_t *lock = &t->locks[b & t->lock_mask];
	struct iowprobe_entry *e;
	unsigned long flags;

	raw_spin_lock_irqsave(lock, flags);
	e = find(&t->buckets[b], key);
	if (e)
		hlist_del(&e->node);
	raw_spin_unlock_irqrestore(lock, flags);
	return e;
}

/*
 * iowprobe_table_settle() - nothing the table follows is in flight any
 * more: what overflowed has ended too, so the figures are exact again
 */
void iowprobe_table_settle(struct iowprobe_table *t)
{
	iowprobe_pool_settle(&t->pool);
}

unsigned int iowprobe_table_used(struct iowprobe_table *t)
{
	return iowprobe_pool_used(&t->pool);
}

/*
 * iowprobe_table_for_each() - call @fn on every published entry, under its
 * bucket's lock: an entry cannot be taken away while @fn looks at it
 */
void iowprobe_table_for_each(struct iowprobe_table *t,
			     void (*fn)(struct iowprobe_entry *e, void *arg),
			     void *arg)
{
	struct iowprobe_entry *e;
	unsigned long flags;
	unsigned int b;

	for (b = 0; b < (1U << t->bits); b++) {
		raw_spin_lock_irqsave(&t->locks[b & t->lock_mask], flags);
		hlist_for_each_entry(e, &t->buckets[b], node)
			fn(e, arg);
		raw_spin_unlock_irqrestore(&t->locks[b & t->lock_mask], flags);
	}
}
