/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/timekeeping.h - the clock is whatever the test set */
#ifndef SHIM_LINUX_TIMEKEEPING_H
#define SHIM_LINUX_TIMEKEEPING_H

#include <shim.h>

static inline u64 ktime_get_mono_fast_ns(void)
{
	return shim_now;
}

#endif /* SHIM_LINUX_TIMEKEEPING_H */
