// SPDX-License-Identifier: GPL-2.0-only
/*
 * iowstat.c - main: options, backend choice, then one of the runs.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cpus_file.h"
#include "options.h"
#include "run.h"
#include "util.h"

static struct env env;

static void on_exit_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

/* Ctrl-C in an interval view ends it cleanly: Average:, closed JSON. */
static void set_exit_handlers(void)
{
	struct sigaction sa = { .sa_handler = on_exit_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * no_backend - the first run's one message: neither backend is there, and
 * both ways to have one; @attached < 0: without root, iowstat cannot see
 * whether a BPF backend is attached (systemd mounts bpffs 0700)
 */
static void no_backend(int attached)
{
#if IOWSTAT_HAVE_BPF
	if (attached < 0) {
		err_msg("must be root: no iowprobe module is loaded, and only "
			"root can see whether a BPF backend is attached at %s "
			"(try sudo)\n", iowstat_bpf_pin_dir());
		return;
	}
	err_msg("no iowprobe module is loaded and no BPF backend is attached: "
		"load the module (modprobe iowprobe, or insmod iowprobe.ko), "
		"or measure with BPF (iowstat --bpf for one run, iowstat --bpf "
		"attach to keep it attached)\n");
#else
	(void)attached;
	err_msg("the iowprobe module is not loaded: load it: modprobe "
		"iowprobe (or insmod iowprobe.ko)\n");
#endif
}

/*
 * pick_backend - the module's debugfs files; with --bpf, or when the
 * module is not loaded but iowstat --bpf attach left its state, BPF;
 * @fresh: BPF that loads its programs for this run only
 */
static struct iowstat_backend *pick_backend(bool *fresh)
{
	int attached = 0;

	*fresh = false;
	if (!env.bpf && debugfs_module_present())
		return &debugfs_backend;
#if IOWSTAT_HAVE_BPF
	attached = iowstat_bpf_attached();
	if (env.bpf || attached > 0) {
		*fresh = attached <= 0;
		return &bpf_backend;
	}
#else
	if (env.bpf) {
		err_msg("--bpf: this iowstat was built without BPF support "
			"(rebuild with: make -C user BPF=1)\n");
		return NULL;
	}
#endif
	no_backend(attached);
	return NULL;
}

/* bpf_command - --bpf attach or detach; the process exit status */
static int bpf_command(void)
{
#if IOWSTAT_HAVE_BPF
	int err = env.bpf_cmd == BPF_ATTACH ? iowstat_bpf_attach() :
					      iowstat_bpf_detach();

	return err ? (err == -EPERM || err == -ENODEV ? EXIT_USAGE : 1) : 0;
#else
	err_msg("--bpf: this iowstat was built without BPF support "
		"(rebuild with: make -C user BPF=1)\n");
	return EXIT_USAGE;
#endif
}

/*
 * open_replay - the recording decides the interval unless one is given,
 * which resamples it; -EDOM: an interval that cannot
 */
static int open_replay(struct source *src, struct iowstat_meta *m,
		       struct cmd_result *c)
{
	int err = replay_open(env.replay, &src->rp, m, c);

	if (err)
		return err;
	if (env.have_interval)
		return replay_resample(src->rp, env.interval) ? -EDOM : 0;
	if (replay_count(src->rp) > 1) {
		env.have_interval = true;
		env.interval = m->interval ? m->interval : 1;
	}
	return 0;
}

static int open_live(struct source *src, struct iowstat_meta *m)
{
	int err;

	src->be = pick_backend(&src->fresh);
	if (!src->be)
		return -EOPNOTSUPP;
	/* Prometheus would read a counter that starts at every run as resets */
	if (src->fresh && env.out == OUT_PROM) {
		err_msg("-o prom --bpf: without an attached BPF backend the "
			"counters would start again at every run; attach it "
			"once: iowstat --bpf attach (contrib/iowstat-bpf.service "
			"at boot)\n");
		return -EINVAL;
	}
	err = src->be->open(src->be);
	if (!err && env.top)
		err = src->be->owners_check(src->be, env.cgroup ?
					    IOWPROBE_CGROUPS : IOWPROBE_PROCS);
	if (err)
		return err;
	/*
	 * -o prom exports the cgroups too, and --why names the processes,
	 * where the backend has them
	 */
	src->owners = env.top ||
		      ((env.out == OUT_PROM ||
			(env.out == OUT_TEXT && env.why != WHY_NEVER)) &&
		       !src->be->owners_check(src->be, -1));
	/*
	 * --why alone names the processes of an interval that had iowait:
	 * after a quiet one their rows have not moved, so they need not be
	 * read (a read of both files cost more than the rest of a sample).
	 * A recording keeps them all, for a later --top; -- CMD's summary
	 * needs them at its end.
	 */
	src->owners_lazy = src->owners && !env.top && env.out == OUT_TEXT &&
			   !env.record && !env.cmd_given;
	sample_meta_init(m, env.interval);
	if (env.record) {
		src->rec = record_open(env.record, m);
		if (!src->rec)
			return -EIO;
	}
	return 0;
}

/* run - returns the process exit status */
static int run(struct source *src)
{
	struct iowstat_meta m;
	struct cmd_result c = { 0 };
	int err;

	err = env.replay ? open_replay(src, &m, &c) : open_live(src, &m);
	if (err)
		return (env.replay && err != -EDOM) || err == -ENOMEM ||
		       err == -EIO || err == -ENODATA ? 1 : EXIT_USAGE;
	src->interval = env.interval;
	if (env.cmd_given) {
		err = run_cmd(&env, &m, src);
		return err < 0 ? 1 : err;
	}
	if (c.valid && env.out != OUT_PROM && options_check_cmd(&env))
		return EXIT_USAGE;	/* a recording of -- CMD: its summary */
	set_exit_handlers();
	if (c.valid && env.out != OUT_PROM)
		err = run_cmd_replay(&env, &m, &c, src);
	else
		err = run_views(&env, &m, src);
	if (err == -EDOM)
		return EXIT_USAGE;	/* -P named a CPU that is not there */
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct source src = { 0 };
	int ret;

	if (out_stdout())
		return 1;
	ret = options_parse(argc, argv, &env);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	if (env.bpf_cmd != BPF_READ)
		return bpf_command();
	ret = run(&src);
	if (src.be)
		src.be->close(src.be);
	raw_clear(&src.raw);
	if (record_close(src.rec) && !ret)
		ret = 1;
	replay_close(src.rp);
	return ret;
}
