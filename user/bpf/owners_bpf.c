// SPDX-License-Identifier: GPL-2.0-only
/*
 * owners_bpf.c - the BPF backend's procs and cgroups files: the rows of the
 * procs and cgroups maps, with what the sleepers still asleep have earned
 * so far added from a walk of the tasks followed, rendered as the module prints its
 * files, so that --top, -o prom, --record and --replay take one path.
 *
 * The programs only add to a row; this reader ends them, as the module's
 * reaper does: a process's row once it has been read after its exit, a
 * cgroup's once the cgroup is gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "backend_bpf.h"
#include "cgroupfs.h"
#include "owner_files.h"
#include "sample.h"
#include "util.h"

#define FILEID_KERNFS		0xfe		/* include/linux/exportfs.h */

/*
 * struct row - one row as read, and what its sleepers still asleep add
 * @gone: end it after this read
 */
struct row {
	__u64 key;
	struct iowprobe_bpf_owner o;
	uint64_t wait_blk_ns, wa_ns;
	uint64_t wait_kind_ns[IOWPROBE_WAIT_KINDS];
	bool gone;
};

struct rows {
	struct row *r;
	size_t n;
};

static int key_cmp(const void *a, const void *b)
{
	const __u64 *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* rows_find() - the row of @key in @t, sorted by key */
static struct row *rows_find(struct rows *t, __u64 key)
{
	return bsearch(&key, t->r, t->n, sizeof(*t->r), key_cmp);
}

/*
 * rows_load() - every row of the map @fd (at most @max), sorted by key.
 * A deletion by another reader restarts the walk at the first key, so the
 * walk is bounded and its repeats are dropped.
 */
static int rows_load(int fd, size_t max, struct rows *t)
{
	__u64 k, next;
	size_t i, n = 0, cap = 2 * max + 1;
	void *prev = NULL;

	t->n = 0;
	t->r = calloc(cap, sizeof(*t->r));
	if (!t->r)
		return -ENOMEM;
	while (n < cap && !bpf_map_get_next_key(fd, prev, &next)) {
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, &t->r[n].o))
			continue;	/* ended meanwhile */
		t->r[n++].key = k;
	}
	/* the key is the struct's first member: key_cmp() sorts rows too */
	qsort(t->r, n, sizeof(*t->r), key_cmp);
	for (i = 0; i < n; i++)
		if (!t->n || t->r[i].key != t->r[t->n - 1].key)
			t->r[t->n++] = t->r[i];
	return 0;
}

static uint64_t load_u64(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/*
 * share_so_far() - what the sleeper @t, counted on its CPU, has earned of
 * that CPU's iowait up to @now
 */
static uint64_t share_so_far(const struct bpf_state *st,
			     const struct iowprobe_bpf_task *t, uint64_t now)
{
	uint32_t cpu = iowprobe_bpf_cpu_of(t->state);
	uint64_t s;

	if (iowprobe_bpf_kind(t->state) != IOWPROBE_T_COUNTED ||
	    t->share_snap == IOWPROBE_BPF_NO_SHARE || cpu >= st->ncpus)
		return 0;
	s = iowprobe_sc_value(load_u64(&st->cpus[cpu].share), now);
	return iowprobe_cc_since(s, t->share_snap);
}

/*
 * blk_so_far() - the sleeper @t's wait with a request of its process in
 * flight, up to @now (0 when it noted no in-flight clock)
 */
static uint64_t blk_so_far(const struct bpf_state *st,
			   const struct iowprobe_bpf_task *t, uint64_t now)
{
	__u64 w;

	if (t->blk_way >= IOWPROBE_BPF_BLK_ALL)
		return 0;	/* IOWPROBE_BPF_NO_WAY too */
	w = load_u64(&st->bss->inflight_blk[t->blk_way].w);
	return iowprobe_cc_since(iowprobe_cc_value(w, now), t->blk_snap);
}

/* add_part() - a sleeper's part so far, @wait of it in @kind, on @r */
static void add_part(struct row *r, uint64_t kind, uint64_t wait,
		     uint64_t blk, uint64_t share)
{
	r->wait_kind_ns[kind < IOWPROBE_WAIT_KINDS ? kind :
			IOWPROBE_WAIT_other] += wait;
	r->wait_blk_ns += blk;
	r->wa_ns += share;
}

/* add_asleep() - the sleeper @t's part so far, on its rows */
static void add_asleep(const struct bpf_state *st, struct rows *rows,
		       const struct iowprobe_bpf_task *t, uint64_t now)
{
	uint64_t wait = now > t->t_sleep ? now - t->t_sleep : 0;
	uint64_t share = share_so_far(st, t, now);
	uint64_t blk = blk_so_far(st, t, now);
	struct row *p = NULL, *c = NULL;

	if (t->proc)
		p = rows_find(&rows[IOWPROBE_PROCS], t->proc);
	if (t->cgroup)
		c = rows_find(&rows[IOWPROBE_CGROUPS], t->cgroup);
	if (p)
		add_part(p, t->kind, wait, blk, share);
	if (c)
		add_part(c, t->kind, wait, blk, share);
}

/*
 * asleep_all() - add every followed sleeper's part so far: the programs'
 * iterator writes the entry of each (iow_sleepers), whole records that a
 * read may still split
 */
static int asleep_all(const struct bpf_state *st, struct rows *rows,
		      uint64_t now)
{
	struct iowprobe_bpf_task t[64];
	size_t have = 0, i;
	ssize_t n;
	int fd;

	fd = bpf_iter_create(st->sleepers_fd);
	if (fd < 0)
		goto fail;
	while ((n = read(fd, (char *)t + have, sizeof(t) - have)) > 0) {
		have += n;
		for (i = 0; i < have / sizeof(*t); i++)
			add_asleep(st, rows, &t[i], now);
		memmove(t, &t[i], have % sizeof(*t));
		have %= sizeof(*t);
	}
	close(fd);
	if (!n)
		return 0;
fail:
	err_msg("--bpf: cannot walk the tasks followed: %s\n",
		strerror(errno));
	return -EIO;
}

/* top_dev() - the disk the row waited on most, 0 when none */
static uint64_t top_dev(const struct iowprobe_bpf_owner *o)
{
	int i, top = 0;

	for (i = 1; i < IOWPROBE_BPF_OWNER_DEVS; i++)
		if (o->dev_ns[i] > o->dev_ns[top])
			top = i;
	return o->dev_ns[top] ? o->dev[top] : 0;
}

/* comm_print() - as the module shows a name: control characters as '?' */
static void comm_print(FILE *f, const char *comm)
{
	unsigned char c;
	int i;

	for (i = 0; i < 15 && comm[i]; i++) {
		c = comm[i];
		fputc(c < ' ' || c == 0x7f ? '?' : c, f);
	}
	if (!i)
		fputc('-', f);
}

static void row_print(FILE *f, enum iowprobe_owner_kind k,
		      const struct row *r, uint64_t now)
{
	uint64_t v[IOWPROBE_OCOL_NR] = { 0 }, dev = top_dev(&r->o);
	const char *sep = "";
	int i;

	v[IOWPROBE_OCOL_pid] = iowprobe_bpf_tag_tgid(r->key);
	v[IOWPROBE_OCOL_cgroup] = k == IOWPROBE_PROCS ? r->o.cgroup : r->key;
	v[IOWPROBE_OCOL_sleeps] = r->o.sleeps;
	v[IOWPROBE_OCOL_wait_blk_ns] = r->o.wait_blk_ns + r->wait_blk_ns;
	v[IOWPROBE_OCOL_wa_ns] = r->o.wa_ns + r->wa_ns;
	v[IOWPROBE_OCOL_asleep] = r->o.asleep > 0 ? r->o.asleep : 0;
	v[IOWPROBE_OCOL_exited] = r->o.t_exit != 0;
	v[IOWPROBE_OCOL_now_ns] = now;
	for (i = 0; i < IOWPROBE_WAIT_KINDS; i++) {
		v[IOWPROBE_OCOL_WAIT(i)] = r->o.wait_kind_ns[i] +
					   r->wait_kind_ns[i];
		v[IOWPROBE_OCOL_wait_ns] += v[IOWPROBE_OCOL_WAIT(i)];
	}
	for (i = 0; i < IOWPROBE_OCOL_NR; i++) {
		if (!owner_col_in(k, i))
			continue;
		fputs(sep, f);
		sep = " ";
		if (i == IOWPROBE_OCOL_dev && dev)
			fprintf(f, "%" PRIu64 ":%" PRIu64, dev >> 20,
				dev & 0xfffff);
		else if (i == IOWPROBE_OCOL_dev)
			fputc('-', f);
		else if (i == IOWPROBE_OCOL_comm)
			comm_print(f, r->o.comm);
		else
			fprintf(f, "%" PRIu64, v[i]);
	}
	fputc('\n', f);
}

static int render(enum iowprobe_owner_kind k, const struct rows *t,
		  uint64_t now, char **buf, size_t *len)
{
	const char *sep = "";
	FILE *f = open_memstream(buf, len);
	size_t i;
	int c;

	if (!f)
		return -ENOMEM;
	fputs(IOWPROBE_ABI_LINE "\n", f);
	for (c = 0; c < IOWPROBE_OCOL_NR; c++) {
		if (!owner_col_in(k, c))
			continue;
		fprintf(f, "%s%s", sep, owner_col_name(c));
		sep = " ";
	}
	fputc('\n', f);
	for (i = 0; i < t->n; i++)
		row_print(f, k, &t->r[i], now);
	return fclose(f) ? -ENOMEM : 0;
}

/* cgroup_gone() - the cgroup v2 of @id is removed (false: cannot tell) */
static bool cgroup_gone(int root, uint64_t id)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = sizeof(uint64_t),
			.handle_type = FILEID_KERNFS } };
	int fd;

	h.id = id;
	fd = open_by_handle_at(root, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == ESTALE || errno == ENOENT;
}

/* mark_gone() - the rows the module's reaper would end now */
static void mark_gone(struct rows *rows)
{
	struct rows *p = &rows[IOWPROBE_PROCS], *c = &rows[IOWPROBE_CGROUPS];
	int root;
	size_t i;

	for (i = 0; i < p->n; i++)
		p->r[i].gone = p->r[i].o.t_exit && p->r[i].o.asleep <= 0;
	root = cgroupfs_open_v2();
	if (root < 0)
		return;
	for (i = 0; i < c->n; i++)
		c->r[i].gone = c->r[i].o.asleep <= 0 &&
			       cgroup_gone(root, c->r[i].key);
	close(root);
}

static void reap(int fd, const struct rows *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->r[i].gone)
			bpf_map_delete_elem(fd, &t->r[i].key);
}

static int take(const char *name, enum iowprobe_owner_kind k,
		const struct rows *t, uint64_t now,
		struct iowstat_snapshot *s, struct iowstat_raw *raw)
{
	char path[64];
	size_t len;
	char *buf;
	int err;

	err = render(k, t, now, &buf, &len);
	if (err)
		return err;
	snprintf(path, sizeof(path), IOWSTAT_BPF_RAW_DIR "%s", name);
	return bpf_text_take(path, buf, len, s, raw);
}

/**
 * bpf_owners_read() - the procs and cgroups files of the BPF backend into
 * @s and @raw, as debugfs_read_owners() reads the module's; then the rows
 * the module would end are deleted.
 * Return: 0 or -errno, with a message printed.
 */
int bpf_owners_read(const struct bpf_state *st, struct iowstat_snapshot *s,
		    struct iowstat_raw *raw)
{
	static const char *const file[] = IOWPROBE_OWNER_FILES;
	const int fd[IOWPROBE_OWNER_KINDS] = { st->procs_fd, st->cgroups_fd };
	const size_t max[IOWPROBE_OWNER_KINDS] = { st->procs_max,
						   st->cgroups_max };
	struct rows rows[IOWPROBE_OWNER_KINDS] = { { 0 } };
	uint64_t now;
	int k, err = 0;

	for (k = 0; k < IOWPROBE_OWNER_KINDS && !err; k++)
		err = rows_load(fd[k], max[k], &rows[k]);
	now = clock_ns(CLOCK_MONOTONIC);
	if (!err)
		err = asleep_all(st, rows, now);
	if (!err)
		mark_gone(rows);
	for (k = 0; k < IOWPROBE_OWNER_KINDS && !err; k++)
		err = take(file[k], k, &rows[k], now, s, raw);
	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		if (!err)
			reap(fd[k], &rows[k]);
		free(rows[k].r);
	}
	if (err == -ENOMEM)
		err_msg("--bpf: out of memory reading the procs and cgroups "
			"maps\n");
	return err;
}
