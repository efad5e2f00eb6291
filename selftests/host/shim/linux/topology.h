/* SPDX-License-Identifier: GPL-2.0-only */
/* shim linux/topology.h - one NUMA node */
#ifndef SHIM_LINUX_TOPOLOGY_H
#define SHIM_LINUX_TOPOLOGY_H

#define cpu_to_node(cpu)	((void)(cpu), 0)

#endif /* SHIM_LINUX_TOPOLOGY_H */
