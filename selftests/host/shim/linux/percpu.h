/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shim linux/percpu.h - per-CPU data as SHIM_NR_CPUS copies a fixed
 * stride apart, so this_cpu_inc() can find any field's copy for the
 * CPU the test says is running (shim_cpu)
 */
#ifndef SHIM_LINUX_PERCPU_H
#define SHIM_LINUX_PERCPU_H

#include <shim.h>

#define SHIM_PCPU_UNIT	4096UL

void *shim_alloc_percpu(size_t size);
void free_percpu(void *p);

#define alloc_percpu(type)	((type *)shim_alloc_percpu(sizeof(type)))
#define per_cpu_ptr(p, cpu)						\
	((typeof(p))((char *)(p) + (size_t)(cpu) * SHIM_PCPU_UNIT))
#define this_cpu_ptr(p)		per_cpu_ptr(p, smp_processor_id())
#define get_cpu_ptr(p)		this_cpu_ptr(p)
#define put_cpu_ptr(p)		((void)(p))
#define this_cpu_inc(x)		((*per_cpu_ptr(&(x), smp_processor_id()))++)
#define raw_cpu_ptr(p)		this_cpu_ptr(p)

#define smp_processor_id()	shim_cpu
#define nr_cpu_ids		((unsigned int)SHIM_NR_CPUS)
#define num_possible_cpus()	((unsigned int)SHIM_NR_CPUS)
#define for_each_possible_cpu(cpu)					\
	for ((cpu) = 0; (cpu) < SHIM_NR_CPUS; (cpu)++)

#endif /* SHIM_LINUX_PERCPU_H */
