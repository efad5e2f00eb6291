// SPDX-License-Identifier: GPL-2.0-only
/*
 * run.c - the interval loop shared by every view, live or from a
 * recording: take samples, difference them, hand them to the view.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cpus_file.h"
#include "fmt.h"
#include "names.h"
#include "run.h"
#include "util.h"
#include "view_vmstat.h"

volatile sig_atomic_t exiting;

/*
 * A since-start line over less than this says nothing: a --bpf run's own
 * programs begin a few milliseconds before its first sample, and --bpf's
 * kernel view is in ticks of 10 ms
 */
#define SINCE_START_MIN_NS	1000000000ull

/* wait_until - sleep to the absolute deadline; false if interrupted */
static bool wait_until(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		if (exiting)
			return false;
	return !exiting;
}

/*
 * take_owners - live --top: the procs and cgroups files, the names of
 * their cgroups and disks, and for --record the names not recorded yet
 */
static int take_owners(struct source *src, struct iowstat_snapshot *s)
{
	size_t len;
	char *buf;
	int err;

	err = src->be->read_owners(src->be, s, &src->raw);
	if (err)
		return err;
	names_learn(s);
	if (!src->rec)
		return 0;
	err = names_take(&buf, &len);
	if (err)
		return err;
	if (!len) {
		free(buf);
		return 0;
	}
	return raw_add(&src->raw, NAMES_PATH, buf, len);
}

/*
 * iowait_moved - whether @s shows iowait since the last call: the
 * kernel's ticks or iowprobe's ns grew, or a task is asleep in it now;
 * keeps the figures for the next call
 */
static bool iowait_moved(struct source *src,
			 const struct iowstat_snapshot *s)
{
	uint64_t mark = s->stat_all.t[T_IOWAIT];
	bool moved = false;
	unsigned int i;

	for (i = 0; i < s->nr_cpus; i++) {
		if (!s->cpu[i].present)
			continue;
		mark += s->cpu[i].v[IOWPROBE_COL_iowait_ns];
		/* a LEVEL, signed: below zero for a moment, never asleep */
		if ((int64_t)s->cpu[i].v[IOWPROBE_COL_nr_iowait] > 0)
			moved = true;
	}
	moved |= mark != src->iowait_mark;
	src->iowait_mark = mark;
	return moved;
}

/**
 * source_next() - the next sample; live ones are taken on the interval
 * grid (no drift) when @wait, and appended to --record.
 * Return: 1 with a sample, 0 at the end (replay) or on Ctrl-C, -errno.
 */
int source_next(struct source *src, struct iowstat_snapshot *s, bool wait)
{
	bool first;
	int err;

	if (src->rp)
		return replay_next(src->rp, s);
	if (wait && src->n &&
	    !wait_until(src->t0 + src->n * src->interval * 1000000000ull))
		return 0;
	/*
	 * The owner files follow the sample's instant, which they do not
	 * describe, but for the first sample's: -- CMD starts CMD right
	 * after it, and the run's window starts at that instant
	 */
	raw_clear(&src->raw);
	s->have = 0;
	first = src->owners && !src->n;
	err = first ? take_owners(src, s) : 0;
	if (!err)
		err = sample_take(src->be, s, &src->raw);
	/* lazy: the first sample's rows are read above, its mark here */
	if (!err && src->owners &&
	    (!src->owners_lazy || iowait_moved(src, s)) && !first)
		err = take_owners(src, s);
	if (err)
		return err;
	if (!src->n)
		src->t0 = s->mono_ns;
	if (src->rec && !src->hold) {
		err = record_sample(src->rec, src->n, &src->raw);
		if (err)
			return err;
	}
	src->n++;
	return 1;
}

struct view_run {
	const struct env *env;
	const struct iowstat_meta *m;
	struct vmstat_opts vo;
	unsigned int height;		/* lines between vmstat headers */
	bool cpus;			/* -P table */
	bool top;			/* --top table */
	struct top_view tv;
	struct top_avg avg;		/* --top: the run's sums, for Average: */
	struct top_view why_tv;		/* --why: who waited, every one */
	struct iowstat_delta *d, *acc;
	struct iowstat_snapshot *mem;	/* the first sample: vmstat's memory */
	struct rebase_state rs;
	unsigned int blocks;
};

/* term_height - vmstat's rule: rows - 3, rows 24 when not a terminal */
static unsigned int term_height(void)
{
	struct winsize w;
	int rows = 24;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) != -1 && w.ws_row > 0)
		rows = w.ws_row;
	return rows - 3 > 0 ? rows - 3 : 22;
}

static void view_begin(struct view_run *v, const struct iowstat_snapshot *s)
{
	switch (v->env->out) {
	case OUT_JSON:
		fmt_json_begin(stdout, v->m, s);
		break;
	case OUT_CSV:
		if (v->top)
			fmt_csv_top_header(stdout, v->tv.kind);
		else
			fmt_csv_header(stdout);
		break;
	default:
		if (v->cpus || v->top)
			cpus_print_banner(stdout, v->m, s->nr_cpus, s->real_ns);
		else
			vmstat_print_header(stdout, &v->vo,
					    s->real_ns / 1000000000ull);
	}
}

/*
 * view_why - the interval's wa in words on stderr, after the line or
 * block that stdout has printed; the processes when the owner files
 * were read
 */
static void view_why(struct view_run *v, const struct iowstat_snapshot *p,
		     const struct iowstat_snapshot *c)
{
	bool named = p->have & c->have & HAVE_PROCS;
	struct why w;

	if (v->env->why == WHY_NEVER || v->env->out != OUT_TEXT)
		return;
	if (named && top_compute(&v->why_tv, p, c, UINT_MAX))
		named = false;
	why_compute(v->d, named ? &v->why_tv : NULL, v->m->hz, &w);
	if (!why_wanted(&w, v->env->why))
		return;
	fflush(stdout);
	why_print(stderr, &w);
	fflush(stderr);
}

static void vmstat_sample(struct view_run *v, const struct iowstat_snapshot *p,
			  const struct iowstat_snapshot *c, unsigned int i)
{
	unsigned long val[VM_NR];
	long x[X_NR];
	time_t now = c->real_ns / 1000000000ull;

	if (p && !v->env->one_header && i % v->height == 0)
		vmstat_print_header(stdout, &v->vo, now);
	vmstat_values(v->m, &v->vo, v->mem, p, c, val);
	/* the first line's err: the kernel's wa since the counters began */
	vmstat_exact(v->d, p ? val[VM_WA] : vmstat_kernel_wa(v->d), x);
	vmstat_print_line(stdout, &v->vo, val, x, now);
}

/* top_sample - --top's rows from @p to @c, in the format asked for */
static int top_sample(struct view_run *v, const struct iowstat_snapshot *p,
		      const struct iowstat_snapshot *c)
{
	char label[32];
	int err;

	err = top_compute(&v->tv, p, c, v->env->top_n);
	if (!err)
		err = top_avg_add(&v->avg, p, c);
	if (err)
		return err;
	if (v->env->out == OUT_JSON) {
		fmt_json_top_sample(stdout, c, &v->tv);
	} else if (v->env->out == OUT_CSV) {
		fmt_csv_top_sample(stdout, c, &v->tv);
	} else {
		fmt_clock(label, sizeof(label), "%X", c->real_ns);
		top_print_block(stdout, label, &v->tv);
	}
	v->blocks++;
	return out_flush(stdout);
}

/*
 * view_sample - one line or block; @p NULL for the since-load one
 * Return: 0, or -errno when stdout could not take it (said)
 */
static int view_sample(struct view_run *v, const struct iowstat_snapshot *p,
		       const struct iowstat_snapshot *c, unsigned int i)
{
	char hdr[32], row[32];

	if (v->env->out == OUT_JSON) {
		fmt_json_sample(stdout, c, v->d, &v->env->sel);
	} else if (v->env->out == OUT_CSV) {
		fmt_csv_sample(stdout, c, v->d, &v->env->sel);
	} else if (v->cpus) {
		fmt_clock(hdr, sizeof(hdr), "%X", (p ? p : c)->real_ns);
		fmt_clock(row, sizeof(row), "%X", c->real_ns);
		cpus_print_block(stdout, hdr, row, v->d, &v->env->sel);
	} else {
		vmstat_sample(v, p, c, i);
	}
	if (p) {
		v->blocks++;
		view_why(v, p, c);
	}
	return out_flush(stdout);
}

/*
 * top_end - --top's Average: block, pidstat's, over the whole run; in
 * json an "average" object after the statistics, as -- CMD's "command";
 * csv has none, as the CPU view's has none
 */
static int top_end(struct view_run *v)
{
	int err = 0;

	if (v->blocks && v->env->out != OUT_CSV)
		err = top_avg_view(&v->avg, &v->tv, v->env->top_n);
	if (v->env->out == OUT_JSON) {
		if (err || !v->blocks) {
			fmt_json_end(stdout);
			return err;
		}
		fmt_json_statistics_end(stdout);
		fmt_json_top_average(stdout, &v->tv, v->avg.wall);
		fmt_json_host_end(stdout);
	} else if (v->env->out == OUT_TEXT && v->blocks && !err) {
		top_print_block(stdout, "Average:", &v->tv);
	}
	return err;
}

static int view_end(struct view_run *v)
{
	if (v->top)
		return top_end(v);
	if (v->env->out == OUT_JSON)
		fmt_json_end(stdout);
	else if (v->env->out == OUT_TEXT && v->cpus && v->blocks)
		cpus_print_block(stdout, "Average:", "Average:", v->acc,
				 &v->env->sel);
	return 0;
}

/* wants_first - the view starts with a line since boot or since load */
static bool wants_first(const struct env *env, bool vmstat)
{
	return vmstat ? !env->no_first : !env->have_interval;
}

/*
 * plan - samples to take (0: until Ctrl-C) and whether the first prints;
 * @young: the counters began as the first sample was taken, which then
 * only starts the first interval (as -y does)
 */
static unsigned int plan(const struct env *env, bool vmstat, bool young,
			 bool *first)
{
	*first = !young && wants_first(env, vmstat);
	if (!env->have_interval)
		return *first ? 1 : 2;
	if (!env->have_count)
		return 0;
	return env->count + (vmstat && *first ? 0 : 1);
}

/*
 * check_top - a sample for --top must have its owner file: a module
 * before 0.2 has none, and a recording made without --top neither
 */
static int check_top(const struct view_run *v,
		     const struct iowstat_snapshot *s, unsigned int i)
{
	static const char *const file[] = IOWPROBE_OWNER_FILES;

	if (!v->top || (s->have & HAVE_OWNERS(v->tv.kind)))
		return 0;
	err_msg("--top needs the %s file of iowprobe 0.2 or later: "
		"sample %u of the recording has none; record with iowstat "
		"--top --record FILE\n", file[v->tv.kind], i);
	return -ENODATA;
}

/* check_sel - refuse -P CPUs the backend does not have, as mpstat does */
static int check_sel(const struct env *env, const struct iowstat_snapshot *s)
{
	if (env->sel.given && !env->sel.every && env->sel.max > s->nr_cpus) {
		err_msg("-P: no CPU %u; iowprobe reports CPUs 0-%u\n",
			env->sel.max - 1, s->nr_cpus - 1);
		return -EDOM;
	}
	return 0;
}

/*
 * prom_write - the exposition built whole, then written in one go: a
 * full disk leaves no half of it behind (util.c's out_whole)
 */
static int prom_write(const struct iowstat_snapshot *s)
{
	size_t len = 0;
	char *buf = NULL;
	FILE *mem = open_memstream(&buf, &len);
	int err;

	if (!mem)
		return -ENOMEM;
	fmt_prom(mem, s);
	err = fclose(mem) ? -ENOMEM : out_whole(stdout, buf, len);
	free(buf);
	return err;
}

/* run_prom - one exposition: the last sample (live: the only one) */
static int run_prom(struct source *src, struct iowstat_snapshot **s)
{
	struct iowstat_snapshot *t;
	int r;

	while ((r = source_next(src, s[1], false)) == 1) {
		t = s[0];
		s[0] = s[1];
		s[1] = t;
		if (!src->rp)
			break;
	}
	if (r < 0)
		return r;
	return prom_write(s[0]);
}

/*
 * counters_age - how long the backend's counters had run at @s: the
 * longest busy + idle of a CPU, since the module's load or the attach
 */
static uint64_t counters_age(const struct iowstat_snapshot *s)
{
	uint64_t age = 0, t;
	unsigned int i;

	for (i = 0; i < s->nr_cpus; i++) {
		t = s->cpu[i].present ? delta_total(s->cpu[i].v) : 0;
		if (t > age)
			age = t;
	}
	return age;
}

/* note_young - why the first line is an interval, once, on stderr */
static void note_young(const struct view_run *v, const struct source *src,
		       uint64_t age)
{
	err_msg("iowprobe's counters began %.3f s before the first sample%s: "
		"the first %s covers the first %u s interval instead of the "
		"time since then\n", (double)age / 1e9, src->fresh ?
		" (--bpf attached them for this run only; iowstat --bpf "
		"attach keeps them attached)" : "",
		v->env->out != OUT_TEXT ? "sample" :
		v->cpus ? "block" : "line", src->interval);
}

/*
 * note_spans - the first line's two starts, when it has two: vmstat's
 * columns (sysstat's keys) since boot, the rest since the counters began
 * @age ns before @s0; -P's columns are all since then, and counters begun
 * in the first hundredth of the time since boot (a module loaded at boot)
 * as good as since boot
 */
static void note_spans(const struct view_run *v,
		       const struct iowstat_snapshot *s0, uint64_t age)
{
	static const char *const line[] = { "line", "vmstat's columns",
		"the exact group with its err", "-y leaves the line out" };
	static const char *const sample[] = { "sample", "sysstat's keys",
		"iowprobe's (k*, x*)", "an interval leaves it out" };
	const char *const *w = v->env->out == OUT_TEXT ? line : sample;
	unsigned int s = age / 1000000000ull;

	if ((v->env->out == OUT_TEXT && v->cpus) ||
	    age >= s0->mono_ns / 100 * 99)
		return;
	err_msg("the first %s: %s since boot, %s since iowprobe's counters "
		"began, %u:%02u:%02u before it (%s)\n", w[0], w[1], w[2],
		s / 3600, s / 60 % 60, s % 60, w[3]);
}

/*
 * view_first - the view's start: the plan (@n samples, 0: until Ctrl-C),
 * the header and the since-start line, which counters that began with
 * the first sample (--bpf without --bpf attach) cannot give: their first
 * interval takes its place (@young)
 * Return: 0 or -errno (said)
 */
static int view_first(struct view_run *v, struct source *src,
		      struct iowstat_snapshot *s0, unsigned int *n, bool *young)
{
	bool vmstat = !v->cpus && !v->top && v->env->out == OUT_TEXT, first;
	uint64_t age = counters_age(s0);
	int r;

	*young = !v->top && wants_first(v->env, vmstat) &&
		 (src->fresh || age < SINCE_START_MIN_NS);
	*n = plan(v->env, vmstat, *young, &first);
	*v->mem = *s0;
	r = check_top(v, s0, 0);
	if (r)
		return r;
	view_begin(v, s0);
	/* the header: stop now if it failed, before any note */
	r = out_flush(stdout);
	if (r)
		return r;
	if (*young)
		note_young(v, src, age);
	if (first && !v->top) {	/* the files have no since-load instant */
		note_spans(v, s0, age);
		delta_compute(NULL, s0, v->d, &v->rs);
		return view_sample(v, NULL, s0, 0);
	}
	return 0;
}

static int view_loop(struct view_run *v, struct source *src,
		     struct iowstat_snapshot **s)
{
	struct iowstat_snapshot *t;
	unsigned int i, n;
	bool young;
	int r;

	r = view_first(v, src, s[0], &n, &young);
	if (r)
		return r;
	for (i = 1; !r && (!n || i < n); i++) {
		r = source_next(src, s[1], true);
		if (r <= 0)
			break;
		if (v->top) {
			r = check_top(v, s[1], i);
			if (!r)
				r = top_sample(v, s[0], s[1]);
			if (r)
				break;
		} else {
			delta_compute(s[0], s[1], v->d, &v->rs);
			delta_add(v->acc, v->d);
			r = view_sample(v, s[0], s[1], i);
		}
		t = s[0];
		s[0] = s[1];
		s[1] = t;
	}
	if (young && !v->blocks && src->rp && !r) {
		err_msg("the recording's only sample was taken as iowprobe's "
			"counters began: nothing to print (record with an "
			"interval: iowstat --record FILE 1 N)\n");
		r = -ENODATA;
	}
	if (view_end(v) && r >= 0)
		r = -ENOMEM;
	return r < 0 ? r : out_flush(stdout);
}

/**
 * run_views() - every view but -- CMD: vmstat lines, -P blocks, json,
 * csv or prom, from @src until the count, the recording's end or Ctrl-C.
 * Return: 0 or -errno (message printed); -EDOM for a -P CPU not there.
 */
int run_views(const struct env *env, const struct iowstat_meta *m,
	      struct source *src)
{
	struct iowstat_snapshot *s[2] = { snapshot_alloc(), snapshot_alloc() };
	struct view_run v = {
		.env = env, .m = m, .height = term_height(),
		.cpus = env->sel.given, .top = env->top,
		.tv = { .kind = env->cgroup ? IOWPROBE_CGROUPS :
					      IOWPROBE_PROCS },
		.avg = { .kind = env->cgroup ? IOWPROBE_CGROUPS :
					       IOWPROBE_PROCS },
		.vo = { env->wide, env->timestamp, env->unit, env->interval },
		.d = calloc(1, sizeof(*v.d)), .acc = calloc(1, sizeof(*v.acc)),
		.mem = malloc(sizeof(*v.mem)),
	};
	int r = -ENOMEM;

	if (!s[0] || !s[1] || !v.d || !v.acc || !v.mem)
		goto out;
	if (env->out == OUT_PROM) {
		r = run_prom(src, s);
		goto out;
	}
	r = source_next(src, s[0], false);
	if (r == 1) {
		r = check_sel(env, s[0]);
		if (!r)
			r = view_loop(&v, src, s);
	}
out:
	snapshot_free(s[0]);
	snapshot_free(s[1]);
	top_free(&v.tv);
	top_free(&v.why_tv);
	top_avg_free(&v.avg);
	free(v.d);
	free(v.acc);
	free(v.mem);
	return r;
}
