/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * clocks.h - the two clocks the guest programs time their own waits by:
 * a POSIX clock in ns, and the thread's run delay from schedstat
 */
#ifndef IOWPROBE_GUEST_CLOCKS_H
#define IOWPROBE_GUEST_CLOCKS_H

#include <stdio.h>
#include <time.h>

static inline long long ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * run_delay() - ns this thread was runnable but not running, the second
 * number of its schedstat; -1 without schedstats
 */
static inline long long run_delay(void)
{
	long long run, delay = -1;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld %lld", &run, &delay) != 2)
		delay = -1;
	fclose(f);
	return delay;
}

#endif /* IOWPROBE_GUEST_CLOCKS_H */
