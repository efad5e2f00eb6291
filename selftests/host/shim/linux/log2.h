/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/log2.h - powers of two, for non-zero arguments */
#ifndef SHIM_LINUX_LOG2_H
#define SHIM_LINUX_LOG2_H

#include <shim.h>

static inline int ilog2(unsigned long n)
{
	if (!n)
		shim_bug("ilog2(0)");
	return 63 - __builtin_clzl(n);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	if (!n)
		shim_bug("roundup_pow_of_two(0)");
	return n == 1 ? 1 : 1UL << (64 - __builtin_clzl(n - 1));
}

#endif /* SHIM_LINUX_LOG2_H */
