// SPDX-License-Identifier: GPL-2.0-only
/*
 * backend_bpf.c - the BPF backend (--bpf): open the skeleton, size the
 * maps, load, attach; read every CPU's state from an mmap of the cpus map
 * and render it as the module's cpus file (ABI 1), which then goes through
 * the debugfs parser: live output, --record and --replay take one path.
 *
 * The kernel's view (k_idle_ns, k_iowait_ns) comes from /proc/stat's cpuN
 * lines in USER_HZ ticks, since BPF cannot call get_cpu_idle_time_us();
 * the tick-sampled t_* columns are left out.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "backend.h"
#include "backend_bpf.h"
#include "iowprobe_bpf.h"
#include "iowprobe.skel.h"
#include "procfs.h"
#include "sample.h"
#include "util.h"

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
/*
 * A CPU's writer holds its sequence odd for one switch's arithmetic, but
 * a virtual CPU can be descheduled by its host in the middle (and under
 * TCG the vCPUs take turns): the reader spins SEQ_SPINS tries, then sleeps
 * SEQ_NAP_NS between rounds, for SEQ_ROUNDS rounds (about a second).
 */
#define SEQ_SPINS	1000
#define SEQ_ROUNDS	1000
#define SEQ_NAP_NS	1000000
static struct bpf_state st;

/* the accounts of one CPU as the program left them */
struct bpf_copy {
	struct iowprobe_acct all, iow, loc;
};

/*
 * one row of the rendered cpus file, by enum iowprobe_col; the columns of
 * the module's own (iowprobe_col_module_only()) stay 0 and are not printed
 */
struct bpf_row {
	uint64_t v[IOWPROBE_COL_NR];
};

/* the column of each enum iowprobe_counter */
static const uint8_t counter_col[IOWPROBE_C_NR] = {
#define IOWPROBE_COL(name, kind)
#define IOWPROBE_COUNTER(name)		IOWPROBE_COL_##name,
#include "iowprobe_cols.h"
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	/* one clear line is ours to print; libbpf's log on request only */
	if (!getenv("IOWSTAT_BPF_DEBUG"))
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int load_error(int err)
{
	/* root is refused by the verifier, with EACCES too */
	if (err == -EPERM || (err == -EACCES && geteuid())) {
		err_msg("--bpf: not permitted to load BPF programs (%s): run "
			"as root, or with CAP_BPF and CAP_PERFMON\n",
			strerror(-err));
		return -EPERM;
	}
	err_msg("--bpf: cannot load the BPF programs: %s (run with "
		"IOWSTAT_BPF_DEBUG=1 to see why, or load the iowprobe module)\n",
		strerror(-err));
	return err;
}

/*
 * attach_all() - in the module's order: what ends an entry (free, wakeup,
 * migrate, complete, requeue) before what creates one (switch, issue), so
 * no entry is ever made that nothing would end
 */
static int attach_all(struct iowprobe_bpf *s)
{
	struct {
		struct bpf_program *prog;
		struct bpf_link **link;
	} order[] = {
		{ s->progs.iow_free,		&s->links.iow_free },
		{ s->progs.iow_wakeup,		&s->links.iow_wakeup },
		{ s->progs.iow_migrate,		&s->links.iow_migrate },
		{ s->progs.iow_rq_complete,	&s->links.iow_rq_complete },
		{ s->progs.iow_rq_requeue,	&s->links.iow_rq_requeue },
		{ s->progs.iow_cpuhp_exit,	&s->links.iow_cpuhp_exit },
		{ s->progs.iow_cpuhp_enter,	&s->links.iow_cpuhp_enter },
		{ s->progs.iow_switch,		&s->links.iow_switch },
		{ s->progs.iow_switch_scan,	&s->links.iow_switch_scan },
		{ s->progs.iow_rq_issue,	&s->links.iow_rq_issue },
		{ s->progs.iow_rq_issue_task,	&s->links.iow_rq_issue_task },
	};
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (!bpf_program__autoload(order[i].prog))
			continue;	/* the other variant of the same */
		*order[i].link = bpf_program__attach(order[i].prog);
		if (!*order[i].link) {
			err = -errno;
			err_msg("--bpf: cannot attach %s: %s\n",
				bpf_program__section_name(order[i].prog),
				strerror(-err));
			return err == -EPERM || err == -EACCES ? -EPERM : err;
		}
	}
	return 0;
}

/*
 * seed() - run iow_seed once over every task, after all the programs are
 * attached: the tasks already asleep in iowait are followed from now on
 */
static int seed(struct iowprobe_bpf *s)
{
	struct bpf_link *link;
	char buf[64];
	int fd, err = 0;

	link = bpf_program__attach_iter(s->progs.iow_seed, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		err = -errno;
	} else {
		while (read(fd, buf, sizeof(buf)) > 0)
			;	/* the program prints nothing: run it to the end */
		close(fd);
	}
	bpf_link__destroy(link);
	return err;
}

/*
 * attach_sleepers() - the iterator over the tasks followed, which the
 * reader runs at each read (owners_bpf.c); its link, in the skeleton's,
 * is pinned with the programs' by iowstat --bpf attach
 */
static int attach_sleepers(struct iowprobe_bpf *s)
{
	s->links.iow_sleepers = bpf_program__attach_iter(s->progs.iow_sleepers,
							 NULL);
	if (!s->links.iow_sleepers) {
		err_msg("--bpf: cannot attach the iterator of sleepers: %s\n",
			strerror(errno));
		return -errno;
	}
	st.sleepers_fd = bpf_link__fd(s->links.iow_sleepers);
	return 0;
}

static int map_cpus(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = st.ncpus * sizeof(struct iowprobe_bpf_cpu);
	void *p;

	st.cpus_len = (len + page - 1) / page * page;
	p = mmap(NULL, st.cpus_len, PROT_READ, MAP_SHARED,
		 bpf_map__fd(st.skel->maps.cpus), 0);
	if (p == MAP_FAILED) {
		err_msg("--bpf: cannot map the cpus map: %s\n",
			strerror(errno));
		return -errno;
	}
	st.cpus = p;
	return 0;
}

/*
 * kick_cpus() - run on every CPU once, so that each sees a sched_switch and
 * starts its clock now (a CPU we may not run on starts at its first switch
 * and is left out until then)
 */
static void kick_cpus(void)
{
	cpu_set_t old, one;
	unsigned int cpu;

	if (sched_getaffinity(0, sizeof(old), &old))
		return;
	for (cpu = 0; cpu < st.ncpus && cpu < CPU_SETSIZE; cpu++) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (!sched_setaffinity(0, sizeof(one), &one))
			sched_yield();
	}
	sched_setaffinity(0, sizeof(old), &old);
}

/* read_stat() - /proc/stat, for a caller that has not read it yet */
static int read_stat(struct iowstat_snapshot *s)
{
	struct parse_err pe = { 0, NULL };
	size_t len;
	char *buf;
	int err;

	err = read_whole_file("/proc/stat", &buf, &len);
	if (err)
		return err;
	err = procfs_parse_stat(buf, len, s, &pe);
	free(buf);
	return err;
}

/*
 * load_view() - /proc/stat's idle and iowait of every CPU at attach, so
 * that the since-attach line puts the kernel's figures on the same footing
 * as ours; without it they stay since boot
 */
static void load_view(void)
{
	struct iowstat_snapshot *s = calloc(1, sizeof(*s));
	unsigned int i;

	st.k_load = calloc(st.ncpus, sizeof(*st.k_load));
	if (!s || !st.k_load || read_stat(s))
		goto out;
	for (i = 0; i < st.ncpus && i < s->nr_stat_cpus; i++) {
		if (!s->stat_cpu[i].present)
			continue;
		st.k_load[i].idle_ns = s->stat_cpu[i].t[T_IDLE] *
				       st.ns_per_tick;
		st.k_load[i].iowait_ns = s->stat_cpu[i].t[T_IOWAIT] *
					 st.ns_per_tick;
	}
out:
	free(s);
}

/*
 * struct kernel_syms - the per-CPU symbols of this kernel a BPF program can
 * find (with CONFIG_KALLSYMS_ALL, as Debian's kernels have)
 * @preempt_count: __preempt_count, or pcpu_hot from 6.2 to 6.14
 * @runqueues:     the scheduler's per-CPU runqueues
 */
struct kernel_syms {
	bool preempt_count;
	bool runqueues;
};

/* kernel_syms_seen() - which of struct kernel_syms /proc/kallsyms lists */
static struct kernel_syms kernel_syms_seen(void)
{
	struct kernel_syms k = { false, false };
	char line[256], *name;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return k;
	while (!(k.preempt_count && k.runqueues) &&
	       fgets(line, sizeof(line), f)) {
		name = strrchr(line, ' ');
		if (!name)
			continue;
		name++;
		if (!strcmp(name, "__preempt_count\n") ||
		    !strcmp(name, "pcpu_hot\n"))
			k.preempt_count = true;
		else if (!strcmp(name, "runqueues\n"))
			k.runqueues = true;
	}
	fclose(f);
	return k;
}

/* owner_maps() - the maps of who waits, for owners_bpf.c */
static void owner_maps(struct iowprobe_bpf *s)
{
	st.procs_fd = bpf_map__fd(s->maps.procs);
	st.cgroups_fd = bpf_map__fd(s->maps.cgroups);
	st.procs_max = bpf_map__max_entries(s->maps.procs);
	st.cgroups_max = bpf_map__max_entries(s->maps.cgroups);
}

/* btf_has_member() - whether struct @type of @btf has a member @member */
static bool btf_has_member(const struct btf *btf, const char *type,
			   const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	return false;
}

/*
 * tasks_mode() - whether the programs keep their tasks in the kernel's task
 * storage (1; 2: and find 6.12's parked sleepers by pid) or in the tasks
 * hash map (0); IOWSTAT_BPF_TASKS=hash picks the hash map (for the tests).
 * Task storage, unless:
 * - its local storage allocates with kmalloc (before bpf_mem_alloc, v6.4,
 *   unless backported: bpf_ma in struct bpf_local_storage_map, a member
 *   later kernels dropped again): a task's first entry is made in
 *   sched_switch, under the runqueue's raw lock, where an allocation may
 *   wake kswapd onto that very runqueue (a deadlock), and on PREEMPT_RT
 *   may sleep;
 * - the kernel delays dequeues (6.12, se.sched_delayed) but has no
 *   bpf_task_from_pid() (6.2) to find a parked sleeper again from its
 *   address (never so in a release).
 */
/* release_from() - this kernel's release is @major.@minor or later */
static bool release_from(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

static int tasks_mode(void)
{
	const char *env = getenv("IOWSTAT_BPF_TASKS");
	bool delayed, from_pid;
	struct btf *btf;
	int mode = 0;

	if (env && !strcmp(env, "hash"))
		return 0;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return 0;
	delayed = btf_has_member(btf, "sched_entity", "sched_delayed");
	from_pid = btf__find_by_name_kind(btf, "bpf_task_from_pid",
					  BTF_KIND_FUNC) > 0;
	if ((release_from(6, 4) ||
	     btf_has_member(btf, "bpf_local_storage_map", "bpf_ma")) &&
	    (!delayed || from_pid))
		mode = delayed ? 2 : 1;
	btf__free(btf);
	return mode;
}

static int open_skel(void)
{
	struct kernel_syms k = kernel_syms_seen();
	struct iowprobe_bpf *s;
	int err, mode;

	st.skel = iowprobe_bpf__open();
	s = st.skel;
	if (!s)
		return load_error(-errno);
	bpf_program__set_autoload(s->progs.iow_rq_issue, k.preempt_count);
	bpf_program__set_autoload(s->progs.iow_rq_issue_task, !k.preempt_count);
	bpf_program__set_autoload(s->progs.iow_switch, k.runqueues);
	bpf_program__set_autoload(s->progs.iow_switch_scan, !k.runqueues);
	mode = tasks_mode();
	s->rodata->task_storage = mode > 0;
	s->rodata->parked_by_pid = mode == 2;
	s->rodata->wait_kinds_off = !!getenv("IOWSTAT_BPF_NO_WAIT_KINDS");
	err = bpf_map__set_max_entries(s->maps.cpus, st.ncpus);
	if (!err)
		err = bpf_map__set_max_entries(s->maps.k_load, st.ncpus);
	if (!err && s->rodata->task_storage)
		err = bpf_map__set_max_entries(s->maps.tasks, 1);
	if (err)
		return load_error(err);
	err = iowprobe_bpf__load(s);
	if (err)
		return load_error(err);
	owner_maps(s);
	return 0;
}

/* set_tick() - the length of /proc/stat's tick, USER_HZ */
static void set_tick(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	st.ns_per_tick = 1000000000ull / (hz > 0 ? hz : 100);
}

/* bpf_load() - load and attach the programs for this process */
static int bpf_load(void)
{
	int n, err, seed_err = 0;

	if (access(BTF_PATH, R_OK)) {
		err_msg("--bpf: this kernel has no %s (it needs "
			"CONFIG_DEBUG_INFO_BTF=y): load the iowprobe module "
			"instead\n", BTF_PATH);
		return -ENOENT;
	}
	n = libbpf_num_possible_cpus();
	if (n <= 0 || n > IOWSTAT_MAX_CPUS) {
		err_msg("--bpf: cannot handle %d possible CPUs (at most %d)\n",
			n, IOWSTAT_MAX_CPUS);
		return -ERANGE;
	}
	st.ncpus = n;
	err = open_skel();
	if (!err)
		err = attach_all(st.skel);
	if (!err)
		err = attach_sleepers(st.skel);
	if (!err)
		seed_err = seed(st.skel);
	if (seed_err)	/* not fatal: those sleepers count from their next */
		err_msg("--bpf: cannot walk the tasks asleep at attach: %s; "
			"their iowait counts from their next sleep\n",
			strerror(-seed_err));
	if (!err)
		err = map_cpus();
	if (!err) {
		st.bss = st.skel->bss;
		kick_cpus();
		load_view();
	}
	return err;
}

/*
 * bpf_open() - read the pinned state that iowstat --bpf attach left, or,
 * without one, load and attach the programs for this run
 */
static int bpf_open(struct iowstat_backend *be)
{
	(void)be;
	libbpf_set_print(libbpf_print);
	set_tick();
	if (bpf_pin_present() > 0)
		return bpf_pin_open(&st);
	return bpf_load();
}

/*
 * cpu_copy() - the owner-written part of @c, consistent: @c->seq is odd
 * while its sched_switch program writes, and changes around each write
 * Return: whether @c has started (its figures mean something).
 */
static int cpu_copy(const struct iowprobe_bpf_cpu *c, struct bpf_copy *r)
{
	const struct timespec nap = { 0, SEQ_NAP_NS };
	uint64_t s1, inited;
	int i;

	for (i = 0; i < SEQ_SPINS * SEQ_ROUNDS; i++) {
		if (i && i % SEQ_SPINS == 0)
			nanosleep(&nap, NULL);
		s1 = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1)
			continue;
		memcpy(&r->all, &c->all, sizeof(r->all));
		memcpy(&r->iow, &c->iow, sizeof(r->iow));
		memcpy(&r->loc, &c->loc, sizeof(r->loc));
		inited = c->inited;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) == s1)
			return inited ? 0 : -ENODATA;
	}
	return -EAGAIN;
}

static uint64_t load_u64(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* peek() - @a closed at @now against the count clock @cc (a copy) */
static void peek(struct iowprobe_acct *a, const struct iowprobe_cc *cc,
		 uint64_t now)
{
	uint64_t v = iowprobe_cc_value(load_u64(&cc->w), now);

	iowprobe_acct_peek(a, now, iowprobe_cc_unwrap(v, a->g_snap), a);
}

/* cpu_read() - CPU @i as its row would be if it switched right now */
static int cpu_read(unsigned int i, const struct iowstat_snapshot *s,
		    struct bpf_row *r)
{
	const struct iowprobe_bpf_cpu *c = &st.cpus[i];
	uint64_t *v = r->v, now;
	struct bpf_copy a;
	unsigned int k;
	int err;

	err = cpu_copy(c, &a);
	if (err)
		return err;
	memset(r, 0, sizeof(*r));
	now = clock_ns(CLOCK_MONOTONIC);
	peek(&a.all, &st.bss->disk_clock, now);
	peek(&a.iow, &c->mirror, now);
	peek(&a.loc, &c->local, now);
	v[IOWPROBE_COL_now_ns] = now;
	v[IOWPROBE_COL_busy_ns] = a.all.busy_ns;
	v[IOWPROBE_COL_idle_ns] = a.all.idle_ns;
	v[IOWPROBE_COL_iowait_ns] = a.iow.blk_any_ns;
	v[IOWPROBE_COL_blk_local_ns] = a.loc.blk_any_ns;
	v[IOWPROBE_COL_blk_any_ns] = a.all.blk_any_ns;
	v[IOWPROBE_COL_online] = a.all.online;
	v[IOWPROBE_COL_nr_iowait] = iowprobe_cc_count(load_u64(&c->mirror.w)) +
		__atomic_load_n(&c->mirror.owed, __ATOMIC_RELAXED);
	for (k = 0; k < IOWPROBE_C_NR; k++)
		v[counter_col[k]] = load_u64(&c->counters[k]);
	if (i < s->nr_stat_cpus && s->stat_cpu[i].present) {
		v[IOWPROBE_COL_k_idle_ns] = s->stat_cpu[i].t[T_IDLE] *
					    st.ns_per_tick;
		v[IOWPROBE_COL_k_iowait_ns] = s->stat_cpu[i].t[T_IOWAIT] *
					      st.ns_per_tick;
	}
	if (st.k_load) {
		v[IOWPROBE_COL_k_idle_load_ns] = st.k_load[i].idle_ns;
		v[IOWPROBE_COL_k_iowait_load_ns] = st.k_load[i].iowait_ns;
	}
	return 0;
}

static void header_print(FILE *f)
{
	unsigned int k;

	fputs(IOWPROBE_ABI_LINE "\ncpu", f);
	for (k = 0; k < IOWPROBE_COL_NR; k++)
		if (!iowprobe_col_module_only(iowstat_col_kind[k]))
			fprintf(f, " %s", iowstat_col_name[k]);
	fputc('\n', f);
}

static void row_print(FILE *f, const struct bpf_row *r)
{
	unsigned int k;

	for (k = 0; k < IOWPROBE_COL_NR; k++) {
		if (iowprobe_col_module_only(iowstat_col_kind[k]))
			continue;
		if (iowstat_col_kind[k] == IOWPROBE_LEVEL)
			fprintf(f, " %" PRId64, (int64_t)r->v[k]);
		else
			fprintf(f, " %" PRIu64, r->v[k]);
	}
	fputc('\n', f);
}

static void row_add(struct bpf_row *sum, const struct bpf_row *r)
{
	unsigned int k;

	for (k = 0; k < IOWPROBE_COL_NR; k++)
		sum->v[k] = iowprobe_col_combine(iowstat_col_kind[k], sum->v[k],
						 r->v[k]);
}

/* render() - the cpus file as the module prints it, minus its own columns */
static int render(const struct iowstat_snapshot *s, char **buf, size_t *len)
{
	struct bpf_row r, sum = { 0 };
	unsigned int i;
	FILE *f;
	int err = 0;

	f = open_memstream(buf, len);
	if (!f)
		return -ENOMEM;
	header_print(f);
	for (i = 0; i < st.ncpus && !err; i++) {
		err = cpu_read(i, s, &r);
		if (err == -ENODATA) {	/* not started yet: left out */
			err = 0;
			continue;
		}
		if (err)
			break;
		fprintf(f, "%u", i);
		row_print(f, &r);
		row_add(&sum, &r);
	}
	fputs("all", f);
	row_print(f, &sum);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		err_msg("--bpf: cannot read a consistent state of cpu %u\n",
			i);
	}
	return err;
}

/**
 * bpf_text_take() - a file the backend rendered, @buf of @len (ours from
 * now on), under the module's file's name ending @path: parsed into @s by
 * the module's parser, and kept in @raw for --record when not NULL
 * Return: 0 or -errno, with a message printed.
 */
int bpf_text_take(const char *path, char *buf, size_t len,
		  struct iowstat_snapshot *s, struct iowstat_raw *raw)
{
	struct parse_err pe = { 0, NULL };
	int err;

	err = sample_parse_file(path, buf, len, s, &pe);
	if (err) {
		err_msg("--bpf: internal error: line %u of our own %s: %s\n",
			pe.line, path, pe.why);
		free(buf);
		return err;
	}
	if (raw)
		return raw_add(raw, path, buf, len);
	free(buf);
	return 0;
}

static int bpf_read(struct iowstat_backend *be, struct iowstat_snapshot *s,
		    struct iowstat_raw *raw)
{
	size_t len;
	char *buf;
	int err;

	(void)be;
	if (!(s->have & HAVE_STAT) && read_stat(s))
		s->nr_stat_cpus = 0;	/* no kernel's view, the rest holds */
	err = render(s, &buf, &len);
	return err ? err : bpf_text_take(IOWSTAT_BPF_RAW_DIR "cpus", buf, len, s, raw);
}

/*
 * report_stats() - one line when the program could not follow something;
 * every counter with IOWSTAT_BPF_STATS set (the tests read them)
 */
static void report_stats(void)
{
	const struct iowprobe_bpf_stats *x = &st.bss->stats;
	unsigned long long tasks = x->tasks_full + x->pending_full;

	if (getenv("IOWSTAT_BPF_STATS"))
		err_msg("--bpf: stats: tasks_full %llu pending_full %llu "
			"rqs_full %llu clock_deferred %llu map_busy %llu "
			"rq_anomalies %llu delayed_parked %llu "
			"delayed_blocked %llu late_block %llu seeded %llu "
			"seed_raced %llu blk_full %llu late_wakeups %llu "
			"late_full %llu task_storage %d untraced_switches "
			"%llu\n",
			(unsigned long long)x->tasks_full,
			(unsigned long long)x->pending_full,
			(unsigned long long)x->rqs_full,
			(unsigned long long)x->clock_deferred,
			(unsigned long long)x->map_busy,
			(unsigned long long)x->rq_anomalies,
			(unsigned long long)x->delayed_parked,
			(unsigned long long)x->delayed_blocked,
			(unsigned long long)x->late_block,
			(unsigned long long)x->seeded,
			(unsigned long long)x->seed_raced,
			(unsigned long long)x->blk_full,
			(unsigned long long)x->late_wakeups,
			(unsigned long long)x->late_full,
			st.skel && st.skel->rodata->task_storage,
			(unsigned long long)x->untraced_switches);
	if (x->untraced_switches)
		err_msg("--bpf: this kernel did not trace %llu switches between "
			"a task and the idle task (seen from the next switch "
			"traced); the time before each was counted as the "
			"last traced switch left it, idle or busy\n",
			(unsigned long long)x->untraced_switches);
	if (!tasks && !x->rqs_full && !x->clock_deferred && !x->map_busy)
		return;
	err_msg("--bpf: not everything was followed: %llu iowait sleeps, "
		"%llu requests (maps full); %llu late clock updates, %llu "
		"busy maps\n", tasks, (unsigned long long)x->rqs_full,
		(unsigned long long)x->clock_deferred,
		(unsigned long long)x->map_busy);
}

static void bpf_close(struct iowstat_backend *be)
{
	(void)be;
	if (st.skel) {
		if (st.cpus)
			munmap((void *)st.cpus, st.cpus_len);
		if (st.bss)
			report_stats();
		iowprobe_bpf__destroy(st.skel);
		free(st.k_load);
		memset(&st, 0, sizeof(st));
	} else {
		bpf_pin_close(&st);
	}
}

/**
 * iowstat_bpf_attach() - iowstat --bpf attach: load and attach the
 * programs, note the kernel's view, and pin it all in bpffs, so that the
 * programs stay attached after we exit and every later iowstat reads
 * them.  Return: 0 (attached now, or already), or -errno (message printed).
 */
int iowstat_bpf_attach(void)
{
	int err;

	libbpf_set_print(libbpf_print);
	if (bpf_pin_present() > 0) {
		err_msg("--bpf: already attached at %s; to start again: "
			"iowstat --bpf detach, then attach\n", bpf_pin_dir());
		return 0;
	}
	set_tick();
	err = bpf_load();
	if (!err)
		err = bpf_pin_save(&st);
	/* the pinned links keep the programs; our own references go */
	if (st.cpus)
		munmap((void *)st.cpus, st.cpus_len);
	iowprobe_bpf__destroy(st.skel);
	free(st.k_load);
	memset(&st, 0, sizeof(st));
	if (!err)
		printf("iowprobe BPF backend attached at %s "
		       "(iowstat --bpf detach removes it)\n", bpf_pin_dir());
	return err;
}

static int bpf_read_owners(struct iowstat_backend *be,
			   struct iowstat_snapshot *s, struct iowstat_raw *raw)
{
	(void)be;
	return bpf_owners_read(&st, s, raw);
}

/* every state this iowstat reads has them: an older layout is refused */
static int bpf_owners_check(struct iowstat_backend *be, int need)
{
	(void)be;
	(void)need;
	return 0;
}

static int64_t bpf_owner_misses(struct iowstat_backend *be,
				enum iowprobe_owner_kind k)
{
	const struct iowprobe_bpf_stats *x = &st.bss->stats;

	(void)be;
	return (int64_t)(k == IOWPROBE_PROCS ? x->procs_full + x->blk_full :
					       x->cgroups_full);
}

struct iowstat_backend bpf_backend = {
	.name	= "bpf",
	.open	= bpf_open,
	.read	= bpf_read,
	.close	= bpf_close,
	.read_owners	= bpf_read_owners,
	.owners_check	= bpf_owners_check,
	.owner_misses	= bpf_owner_misses,
};
