/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/types.h - the kernel's type names over the UAPI ones */
#ifndef SHIM_LINUX_TYPES_H
#define SHIM_LINUX_TYPES_H

#include <asm/types.h>		/* UAPI: __u8 ... __u64 */
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int gfp_t;
#ifndef __ssize_t_defined	/* libc's, when a test included it first */
typedef long ssize_t;
#define __ssize_t_defined
#endif
#ifndef __dev_t_defined
typedef u32 dev_t;
#define __dev_t_defined
#endif

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#endif /* SHIM_LINUX_TYPES_H */
