/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/vmalloc.h - kvcalloc() is kcalloc() here */
#ifndef SHIM_LINUX_VMALLOC_H
#define SHIM_LINUX_VMALLOC_H

#include <linux/slab.h>

#define kvcalloc(n, size, gfp)	shim_calloc(n, size)
#define kvfree(p)		shim_free(p)

#endif /* SHIM_LINUX_VMALLOC_H */
