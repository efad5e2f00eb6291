/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/hash.h - a multiplicative hash of a pointer into @bits bits;
 * any spread will do for tables of a few entries
 */
#ifndef SHIM_LINUX_HASH_H
#define SHIM_LINUX_HASH_H

#include <shim.h>

static inline u32 hash_ptr(const void *p, unsigned int bits)
{
	u64 v = (unsigned long)p * 0x9e3779b97f4a7c15ULL;

	if (bits > 32)
		shim_bug("hash_ptr: %u bits", bits);
	return bits ? v >> (64 - bits) : 0;
}

static inline u32 hash_64(u64 v, unsigned int bits)
{
	if (bits > 32)
		shim_bug("hash_64: %u bits", bits);
	return bits ? (v * 0x61c8864680b583ebULL) >> (64 - bits) : 0;
}

#endif /* SHIM_LINUX_HASH_H */
