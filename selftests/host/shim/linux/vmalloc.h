/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/vmalloc.h - the kv* allocators are slab.h's here */
#ifndef SHIM_LINUX_VMALLOC_H
#define SHIM_LINUX_VMALLOC_H

#include <linux/slab.h>

#endif /* SHIM_LINUX_VMALLOC_H */
