// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_pin.c - the BPF backend's pinned state: what iowstat --bpf attach
 * leaves in bpffs, how every later iowstat reads it, and --bpf detach.
 *
 * The directory holds one link per attached program, which keeps the
 * programs (and the maps they use) alive after the attaching process
 * exits, and the six maps a reader needs: cpus and the programs' global
 * data (with the in-flight table), both mmap()ed read-only as the
 * attaching process would, meta (IOWPROBE_BPF_LAYOUT and the attach
 * time), k_load (the kernel's view of each CPU at attach), and procs and
 * cgroups, which owners_bpf.c reads and whose ended rows it deletes; the
 * tasks followed it reads through the pinned link of their iterator.
 * A reader checks the layout and the maps' value sizes before it reads
 * anything: a state pinned by another build of iowstat is refused, never
 * misread.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "backend_bpf.h"
#include "mounts.h"
#include "util.h"

#define BPF_FS_MAGIC	0xcafe4a11	/* include/uapi/linux/magic.h */

/* the maps a reader needs, under these names in the directory */
#define PIN_CPUS	"cpus"
#define PIN_BSS		"bss"
#define PIN_META	"meta"
#define PIN_K_LOAD	"k_load"
#define PIN_PROCS	"procs"
#define PIN_CGROUPS	"cgroups"
/* the iterator over the tasks followed: its link, pinned with the others */
#define PIN_SLEEPERS	"iow_sleepers"

const char *bpf_pin_dir(void)
{
	const char *d = getenv("IOWSTAT_BPF_PIN");

	return d && *d ? d : IOWSTAT_BPF_PIN_DIR;
}

static void pin_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", bpf_pin_dir(), name);
}

/**
 * bpf_pin_present() - whether iowstat --bpf attach has left its state
 * Return: 1 there (maybe readable by root only), 0 not, -EACCES: cannot
 * tell without root (systemd mounts bpffs 0700).
 */
int bpf_pin_present(void)
{
	char path[PATH_MAX];
	struct stat st;

	pin_path(path, sizeof(path), PIN_META);
	if (!access(path, F_OK))
		return 1;
	if (errno != EACCES)
		return 0;
	/* its directory (0700) is not ours to search, but it is there */
	if (!stat(bpf_pin_dir(), &st))
		return 1;
	return errno == EACCES ? -EACCES : 0;
}

int iowstat_bpf_attached(void)
{
	return bpf_pin_present();
}

const char *iowstat_bpf_pin_dir(void)
{
	return bpf_pin_dir();
}

/*
 * on_bpffs() - the pin directory's parent is a mounted bpffs; the
 * standard one (/sys/fs/bpf) is mounted if it is not, as systemd does
 */
static int on_bpffs(void)
{
	char parent[PATH_MAX], *slash;
	struct statfs sfs;

	snprintf(parent, sizeof(parent), "%s", bpf_pin_dir());
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (!statfs(parent, &sfs) && sfs.f_type == BPF_FS_MAGIC)
		return 0;
	if (!strcmp(bpf_pin_dir(), IOWSTAT_BPF_PIN_DIR) &&
	    !mount_standard("bpf", parent, "mode=0700"))
		return 0;
	err_msg("--bpf: %s is not a bpffs; mount it: mount -t bpf "
		"none %s\n", parent, parent);
	return -ENODEV;
}

/* remove_dir() - unpin everything in the directory, then the directory */
static int remove_dir(void)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(bpf_pin_dir());
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pin_path(path, sizeof(path), de->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(bpf_pin_dir()) && !err)
		err = -errno;
	return err;
}

/**
 * iowstat_bpf_detach() - iowstat --bpf detach: unpin it all; the programs
 * detach once the last link goes.  Return: 0 or -errno (message printed).
 */
int iowstat_bpf_detach(void)
{
	int err;

	if (access(bpf_pin_dir(), F_OK)) {
		err_msg("--bpf: not attached (no %s)\n", bpf_pin_dir());
		return 0;
	}
	err = remove_dir();
	if (err) {
		err_msg("--bpf: cannot remove %s: %s\n", bpf_pin_dir(),
			strerror(-err));
		return err;
	}
	printf("iowprobe BPF backend detached\n");
	return 0;
}

/* write_meta() - the layout, the attach time and the kernel's view */
static int write_meta(const struct bpf_state *st)
{
	struct iowprobe_bpf_meta m = { .layout = IOWPROBE_BPF_LAYOUT };
	struct iowprobe_bpf_kview none = { 0, 0 };
	int fd = bpf_map__fd(st->skel->maps.meta);
	__u32 key = 0, i;

	m.attached_ns = clock_ns(CLOCK_MONOTONIC);
	if (bpf_map_update_elem(fd, &key, &m, BPF_ANY))
		return -errno;
	fd = bpf_map__fd(st->skel->maps.k_load);
	for (i = 0; i < st->ncpus; i++)
		if (bpf_map_update_elem(fd, &i, st->k_load ? &st->k_load[i] :
					&none, BPF_ANY))
			return -errno;
	return 0;
}

static int pin_map(struct bpf_map *map, const char *name)
{
	char path[PATH_MAX];

	pin_path(path, sizeof(path), name);
	return bpf_map__pin(map, path);
}

/* pin_maps() - every map a reader needs but meta, each under its name */
static int pin_maps(struct iowprobe_bpf *s)
{
	const struct {
		struct bpf_map *map;
		const char *name;
	} pins[] = {
		{ s->maps.cpus,		PIN_CPUS },
		{ s->maps.bss,		PIN_BSS },
		{ s->maps.k_load,	PIN_K_LOAD },
		{ s->maps.procs,	PIN_PROCS },
		{ s->maps.cgroups,	PIN_CGROUPS },
	};
	unsigned int i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(pins) && !err; i++)
		err = pin_map(pins[i].map, pins[i].name);
	return err;
}

/* pin_links() - one link per attached program, named after it */
static int pin_links(const struct bpf_object_skeleton *sk)
{
	char path[PATH_MAX];
	int i, err;

	for (i = 0; i < sk->prog_cnt; i++) {
		struct bpf_link *link = *sk->progs[i].link;

		if (!link)
			continue;	/* the seed walk: run once, not kept */
		pin_path(path, sizeof(path), sk->progs[i].name);
		err = bpf_link__pin(link, path);
		if (err)
			return err;
	}
	return 0;
}

/**
 * bpf_pin_save() - pin the programs @st loaded and attached
 * Return: 0, or -errno with the directory removed and a message printed.
 */
int bpf_pin_save(const struct bpf_state *st)
{
	struct iowprobe_bpf *s = st->skel;
	int err;

	err = on_bpffs();
	if (err)
		return err;
	if (mkdir(bpf_pin_dir(), 0700)) {
		err = -errno;
		err_msg("--bpf: cannot create %s: %s\n", bpf_pin_dir(),
			strerror(errno));
		return err;
	}
	err = write_meta(st);
	if (!err)
		err = pin_maps(s);
	if (!err)
		err = pin_links(s->skeleton);
	/* meta last: a reader that sees it finds everything else */
	if (!err)
		err = pin_map(s->maps.meta, PIN_META);
	if (err) {
		err_msg("--bpf: cannot pin the BPF state in %s: %s\n",
			bpf_pin_dir(), strerror(-err));
		remove_dir();
	}
	return err;
}

/* stale() - the pinned state is not what this iowstat reads */
static int stale(const char *why)
{
	err_msg("--bpf: the state pinned at %s was attached by another "
		"iowstat (%s); detach it (iowstat --bpf detach) and attach "
		"again with this one\n", bpf_pin_dir(), why);
	return -EPROTO;
}

/* open_map() - a pinned map, checked: its value size and entries */
static int open_map(const char *name, __u32 value_size, __u32 *entries)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	pin_path(path, sizeof(path), name);
	fd = bpf_obj_get(path);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		err_msg("must be root: the BPF backend attached at %s is "
			"readable by root only (try sudo)\n", bpf_pin_dir());
		return -EACCES;
	}
	if (fd < 0) {
		fd = -errno;
		err_msg("--bpf: cannot open %s: %s\n", path, strerror(-fd));
		return fd;
	}
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.value_size != value_size) {
		close(fd);
		return stale("its maps have another shape");
	}
	if (entries)
		*entries = info.max_entries;
	return fd;
}

/* open_link() - a pinned link, the iterator that owners_bpf.c runs */
static int open_link(const char *name)
{
	char path[PATH_MAX];
	int fd;

	pin_path(path, sizeof(path), name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		fd = -errno;
		err_msg("--bpf: cannot open %s: %s\n", path, strerror(-fd));
	}
	return fd;
}

static int check_layout(void)
{
	struct iowprobe_bpf_meta m;
	char why[64];
	__u32 key = 0;
	int fd, err = 0;

	fd = open_map(PIN_META, sizeof(m), NULL);
	if (fd < 0)
		return fd;
	if (bpf_map_lookup_elem(fd, &key, &m)) {
		err = -errno;
		err_msg("--bpf: cannot read %s/%s: %s\n", bpf_pin_dir(),
			PIN_META, strerror(errno));
	} else if (m.layout != IOWPROBE_BPF_LAYOUT) {
		snprintf(why, sizeof(why), "layout %llu, this one reads %u",
			 (unsigned long long)m.layout, IOWPROBE_BPF_LAYOUT);
		err = stale(why);
	}
	close(fd);
	return err;
}

/* map_ro() - mmap @len bytes of the pinned map @name, read-only */
static int map_ro(const char *name, __u32 value_size, size_t len,
		  const void **p, __u32 *entries)
{
	long page = sysconf(_SC_PAGESIZE);
	void *m;
	int fd;

	fd = open_map(name, value_size, entries);
	if (fd < 0)
		return fd;
	if (entries)
		len = (size_t)*entries * value_size;
	len = (len + page - 1) / page * page;
	m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		err_msg("--bpf: cannot map %s/%s: %s\n", bpf_pin_dir(), name,
			strerror(errno));
		return -errno;
	}
	*p = m;
	return (int)len;
}

/* open_owner_maps() - the maps of who waits, read and ended by owners_bpf.c */
static int open_owner_maps(struct bpf_state *st)
{
	__u32 procs, cgroups;

	st->procs_fd = open_map(PIN_PROCS, sizeof(struct iowprobe_bpf_owner),
				&procs);
	if (st->procs_fd < 0)
		return st->procs_fd;
	st->cgroups_fd = open_map(PIN_CGROUPS,
				  sizeof(struct iowprobe_bpf_owner), &cgroups);
	if (st->cgroups_fd < 0)
		return st->cgroups_fd;
	st->sleepers_fd = open_link(PIN_SLEEPERS);
	if (st->sleepers_fd < 0)
		return st->sleepers_fd;
	st->procs_max = procs;
	st->cgroups_max = cgroups;
	return 0;
}

static int read_k_load(struct bpf_state *st)
{
	__u32 entries, i;
	int fd;

	fd = open_map(PIN_K_LOAD, sizeof(*st->k_load), &entries);
	if (fd < 0)
		return fd;
	st->k_load = calloc(st->ncpus, sizeof(*st->k_load));
	for (i = 0; st->k_load && i < st->ncpus && i < entries; i++)
		bpf_map_lookup_elem(fd, &i, &st->k_load[i]);
	close(fd);
	return st->k_load ? 0 : -ENOMEM;
}

/**
 * bpf_pin_open() - read the pinned state from now on
 * Return: 0, or -errno with a message printed.
 */
/*
 * bss_size() - the size of the programs' global data as this iowstat's
 * object file lays it out (its last member's end: the map's value size,
 * not the padded sizeof of the skeleton's struct)
 */
static int bss_size(__u32 *size)
{
	struct iowprobe_bpf *obj = iowprobe_bpf__open();

	if (!obj)
		return -errno;
	*size = bpf_map__value_size(obj->maps.bss);
	iowprobe_bpf__destroy(obj);
	return 0;
}

int bpf_pin_open(struct bpf_state *st)
{
	const void *cpus, *bss;
	__u32 ncpus, bss_len;
	int len, err;

	err = check_layout();
	if (!err)
		err = bss_size(&bss_len);
	if (err)
		return err;
	len = map_ro(PIN_CPUS, sizeof(struct iowprobe_bpf_cpu), 0, &cpus,
		     &ncpus);
	if (len < 0)
		return len;
	st->cpus = cpus;
	st->cpus_len = len;
	st->ncpus = ncpus;
	if (ncpus > IOWSTAT_MAX_CPUS)
		return stale("more CPUs than iowstat reads");
	len = map_ro(PIN_BSS, bss_len, bss_len, &bss, NULL);
	if (len < 0)
		return len;
	st->bss = bss;
	st->bss_len = len;
	err = open_owner_maps(st);
	return err ? err : read_k_load(st);
}

void bpf_pin_close(struct bpf_state *st)
{
	int *fd[] = { &st->procs_fd, &st->cgroups_fd, &st->sleepers_fd };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fd); i++)
		if (*fd[i] > 0)
			close(*fd[i]);
	if (st->cpus)
		munmap((void *)st->cpus, st->cpus_len);
	if (st->bss && st->bss_len)
		munmap((void *)st->bss, st->bss_len);
	free(st->k_load);
	memset(st, 0, sizeof(*st));
}
