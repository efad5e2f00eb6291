/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/cpuhotplug.h - one dynamic state; its callbacks run on the
 * CPU concerned, as the kernel runs them in that CPU's hotplug thread
 * (the test makes that thread current first)
 */
#ifndef SHIM_LINUX_CPUHOTPLUG_H
#define SHIM_LINUX_CPUHOTPLUG_H

#include <shim.h>

enum cpuhp_state {
	CPUHP_INVALID = -1,
	CPUHP_AP_ONLINE_DYN = 100,
};

int cpuhp_setup_state(enum cpuhp_state state, const char *name,
		      int (*startup)(unsigned int cpu),
		      int (*teardown)(unsigned int cpu));
void cpuhp_remove_state_nocalls(enum cpuhp_state state);

/* test knobs: @cpu comes up or goes down; the state's callback's return */
int shim_cpu_up(int cpu);
int shim_cpu_down(int cpu);

#endif /* SHIM_LINUX_CPUHOTPLUG_H */
