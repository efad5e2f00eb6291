/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/list.h - doubly linked lists and hash lists
 *
 * An unlinked node is poisoned, so code that walks or unlinks it again
 * faults here as it would under the kernel's list debugging.
 */
#ifndef SHIM_LINUX_LIST_H
#define SHIM_LINUX_LIST_H

#include <shim.h>

#define SHIM_POISON1	((void *)0x100)
#define SHIM_POISON2	((void *)0x122)

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return READ_ONCE(h->next) == h;
}

static inline void list_add(struct list_head *n, struct list_head *h)
{
	if (h->next->prev != h)
		shim_bug("list_add: corrupted list");
	n->next = h->next;
	n->prev = h;
	h->next->prev = n;
	h->next = n;
}

static inline void __shim_list_unlink(struct list_head *n)
{
	if (n->next == SHIM_POISON1 || n->prev->next != n ||
	    n->next->prev != n)
		shim_bug("list_del: node not on a list");
	n->next->prev = n->prev;
	n->prev->next = n->next;
}

static inline void list_del(struct list_head *n)
{
	__shim_list_unlink(n);
	n->next = SHIM_POISON1;
	n->prev = SHIM_POISON2;
}

static inline void list_del_init(struct list_head *n)
{
	__shim_list_unlink(n);
	INIT_LIST_HEAD(n);
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_entry((head)->next, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_entry(pos->member.next, typeof(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_entry((head)->next, typeof(*pos), member),	\
	     n = list_entry(pos->member.next, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.next, typeof(*n), member))

#define list_for_each_entry_safe_reverse(pos, n, head, member)		\
	for (pos = list_entry((head)->prev, typeof(*pos), member),	\
	     n = list_entry(pos->member.prev, typeof(*pos), member);	\
	     &pos->member != (head);					\
	     pos = n, n = list_entry(n->member.prev, typeof(*n), member))

static inline bool hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	n->next = h->first;
	if (n->next)
		n->next->pprev = &n->next;
	h->first = n;
	n->pprev = &h->first;
}

/* __hlist_del() - off its list, its own links left as they were */
static inline void __hlist_del(struct hlist_node *n)
{
	if (n->pprev == SHIM_POISON2 || *n->pprev != n)
		shim_bug("hlist_del: node not on a list");
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
}

static inline void hlist_del(struct hlist_node *n)
{
	__hlist_del(n);
	n->next = SHIM_POISON1;
	n->pprev = SHIM_POISON2;
}

/* hlist_del_init() - off its list, and then on none: deleting it is a bug */
static inline void hlist_del_init(struct hlist_node *n)
{
	hlist_del(n);
	n->next = NULL;
	n->pprev = NULL;
}

#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)
#define hlist_entry_safe(ptr, type, member) ({				\
	typeof(ptr) _p = (ptr);						\
	_p ? hlist_entry(_p, type, member) : NULL; })

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_safe((head)->first, typeof(*pos), member); \
	     pos;							\
	     pos = hlist_entry_safe(pos->member.next, typeof(*pos), member))

#define hlist_for_each_entry_safe(pos, n, head, member)			\
	for (pos = hlist_entry_safe((head)->first, typeof(*pos), member); \
	     pos && ({ n = pos->member.next; 1; });			\
	     pos = hlist_entry_safe(n, typeof(*pos), member))

#endif /* SHIM_LINUX_LIST_H */
