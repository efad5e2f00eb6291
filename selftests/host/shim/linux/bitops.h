/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/bitops.h - fls64(): 1-based index of the top set bit, 0 for 0 */
#ifndef SHIM_LINUX_BITOPS_H
#define SHIM_LINUX_BITOPS_H

#include <linux/types.h>

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#endif /* SHIM_LINUX_BITOPS_H */
