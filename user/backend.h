/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_BACKEND_H
#define IOWSTAT_BACKEND_H

#include "snapshot.h"

struct iowstat_raw;

/**
 * struct iowstat_backend - a source of the per-CPU exact split.
 * @name:  shown in messages ("debugfs", "bpf")
 * @open:  check the environment, attach; 0 or -errno (message printed)
 * @read:  fill @snap->cpu[] and @snap->nr_cpus, set HAVE_CPUS; when @raw
 *         is not NULL, add the text read to it for --record
 * @close: release everything; safe after a failed open
 * @read_owners: after open: read the procs and cgroups files into @snap
 *         and @raw, as @read does the cpus file; 0 or -errno (message
 *         printed)
 * @owners_check: after open: 0 when @read_owners can read them, else
 *         -ENODATA, with a message naming the file of @need (the one
 *         --top shows), none when @need is -1
 * @owner_misses: after open: sleeps and requests that found no free row
 *         of kind @k so far, -1 when unknown
 * @priv:  backend state
 */
struct iowstat_backend {
	const char *name;
	int (*open)(struct iowstat_backend *be);
	int (*read)(struct iowstat_backend *be, struct iowstat_snapshot *snap,
		    struct iowstat_raw *raw);
	void (*close)(struct iowstat_backend *be);
	int (*read_owners)(struct iowstat_backend *be,
			   struct iowstat_snapshot *snap,
			   struct iowstat_raw *raw);
	int (*owners_check)(struct iowstat_backend *be, int need);
	int64_t (*owner_misses)(struct iowstat_backend *be,
				enum iowprobe_owner_kind k);
	void *priv;
};

extern struct iowstat_backend debugfs_backend;

#ifdef IOWSTAT_BPF
extern struct iowstat_backend bpf_backend;
/*
 * --bpf attach and detach, and whether a pinned state is there to read:
 * 1 yes, 0 no, -EACCES cannot tell without root
 */
int iowstat_bpf_attach(void);
int iowstat_bpf_detach(void);
int iowstat_bpf_attached(void);
const char *iowstat_bpf_pin_dir(void);
#define IOWSTAT_HAVE_BPF	1
#else
#define IOWSTAT_HAVE_BPF	0
#endif

#endif /* IOWSTAT_BACKEND_H */
