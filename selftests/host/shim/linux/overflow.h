/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/overflow.h - array_size(), saturating as the kernel's */
#ifndef SHIM_LINUX_OVERFLOW_H
#define SHIM_LINUX_OVERFLOW_H

#include <shim.h>

static inline size_t array_size(size_t n, size_t size)
{
	size_t bytes;

	return __builtin_mul_overflow(n, size, &bytes) ? (size_t)-1 : bytes;
}

#endif /* SHIM_LINUX_OVERFLOW_H */
