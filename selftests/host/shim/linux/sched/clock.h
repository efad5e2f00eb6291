/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/sched/clock.h - each CPU's scheduler clock: the time the test
 * set plus that CPU's skew (0 unless a test plays an unstable sched_clock)
 */
#ifndef SHIM_LINUX_SCHED_CLOCK_H
#define SHIM_LINUX_SCHED_CLOCK_H

#include <shim.h>

static inline u64 sched_clock_cpu(int cpu)
{
	return shim_now + shim_clock_skew[cpu];
}

static inline u64 local_clock(void)
{
	return sched_clock_cpu(shim_cpu);
}

#endif /* SHIM_LINUX_SCHED_CLOCK_H */
