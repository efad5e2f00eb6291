/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/slab.h - libc's allocator, failing on demand */
#ifndef SHIM_LINUX_SLAB_H
#define SHIM_LINUX_SLAB_H

#include <shim.h>

#define GFP_KERNEL	0U

void *shim_calloc(size_t n, size_t size);
void shim_free(const void *p);
/* allocations not freed yet: a test's leak check */
extern long shim_allocs;

#define kcalloc(n, size, gfp)	shim_calloc(n, size)
#define kfree(p)		shim_free(p)
/* the kv* allocators are libc's too: one node, no vmalloc */
#define kvcalloc(n, size, gfp)	shim_calloc(n, size)
#define kvzalloc_node(size, gfp, node)	shim_calloc(1, size)
#define kvfree(p)		shim_free(p)

#endif /* SHIM_LINUX_SLAB_H */
