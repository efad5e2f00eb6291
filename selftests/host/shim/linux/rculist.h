/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/rculist.h - one thread plays every CPU, so a walk never runs
 * beside a change: the _rcu lists are the plain ones, but that a walk
 * must be inside rcu_read_lock(), and that a node taken off keeps its
 * next link, as the kernel's does for a walker standing on it
 */
#ifndef SHIM_LINUX_RCULIST_H
#define SHIM_LINUX_RCULIST_H

#include <linux/list.h>
#include <linux/rcupdate.h>

#define hlist_add_head_rcu(n, h)	hlist_add_head(n, h)

/* hlist_del_init_rcu() - off its list if on one; its next link stays */
static inline void hlist_del_init_rcu(struct hlist_node *n)
{
	if (!n->pprev)
		return;
	__hlist_del(n);
	n->pprev = NULL;
}

#define hlist_for_each_entry_rcu(pos, head, member)			\
	for (shim_assert_rcu_reader(),					\
	     pos = hlist_entry_safe((head)->first, typeof(*pos), member); \
	     pos;							\
	     pos = hlist_entry_safe(pos->member.next, typeof(*pos), member))

#endif /* SHIM_LINUX_RCULIST_H */
