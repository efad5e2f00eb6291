/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backend_bpf.h - what the BPF backend (backend_bpf.c) and its pinned
 * state (bpf_pin.c) share
 */
#ifndef IOWSTAT_BACKEND_BPF_H
#define IOWSTAT_BACKEND_BPF_H

#include <stddef.h>
#include <stdint.h>

#include "iowprobe_bpf.h"
#include "iowprobe.skel.h"

/*
 * where a recording keeps the files the backend renders (--replay takes
 * any path ending in the module's file: iowprobe/cpus, iowprobe/procs)
 */
#define IOWSTAT_BPF_RAW_DIR	"bpf/iowprobe/"

/* the default home of the pinned state in bpffs (IOWSTAT_BPF_PIN moves it) */
#define IOWSTAT_BPF_PIN_DIR	"/sys/fs/bpf/iowprobe"

/**
 * struct bpf_state - what a reader of the BPF backend works from
 * @skel:      the programs, loaded by this process; NULL when reading a
 *             pinned state
 * @cpus:      mmap of the cpus map
 * @bss:       the programs' global data (the disk clock, the stats, the
 *             in-flight table)
 * @cpus_len:  length of the @cpus mapping
 * @bss_len:   length of the @bss mapping when it is ours (pinned), else 0
 * @ncpus:     possible CPUs, the entries of the cpus map
 * @ns_per_tick: one USER_HZ tick of /proc/stat
 * @k_load:    per CPU, the kernel's view at attach; NULL: since boot
 * @procs_fd, @cgroups_fd: the maps of who waits (owners_bpf.c)
 * @sleepers_fd: the link of the iterator over the tasks followed
 *             (iow_sleepers), which owners_bpf.c runs at each read
 * @procs_max, @cgroups_max: their entries
 */
struct bpf_state {
	struct iowprobe_bpf *skel;
	const struct iowprobe_bpf_cpu *cpus;
	const struct iowprobe_bpf__bss *bss;
	size_t cpus_len, bss_len;
	unsigned int ncpus;
	uint64_t ns_per_tick;
	struct iowprobe_bpf_kview *k_load;
	int procs_fd, cgroups_fd, sleepers_fd;
	size_t procs_max, cgroups_max;
};

const char *bpf_pin_dir(void);
int bpf_pin_present(void);
int bpf_pin_save(const struct bpf_state *st);
int bpf_pin_open(struct bpf_state *st);
void bpf_pin_close(struct bpf_state *st);

struct iowstat_snapshot;
struct iowstat_raw;
int bpf_owners_read(const struct bpf_state *st, struct iowstat_snapshot *s,
		    struct iowstat_raw *raw);
int bpf_text_take(const char *path, char *buf, size_t len,
		  struct iowstat_snapshot *s, struct iowstat_raw *raw);

#endif /* IOWSTAT_BACKEND_BPF_H */
