/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/cpumask.h - the CPUs are linux/percpu.h's */
#ifndef SHIM_LINUX_CPUMASK_H
#define SHIM_LINUX_CPUMASK_H

#include <linux/percpu.h>

#endif /* SHIM_LINUX_CPUMASK_H */
