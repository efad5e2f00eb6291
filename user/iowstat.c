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
#include "debugfs.h"
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
 * pick_backend - the module's debugfs files; with --bpf, or when the
 * module is not loaded but iowstat --bpf attach left its state, BPF
 */
static struct iowstat_backend *pick_backend(void)
{
#if IOWSTAT_HAVE_BPF
	if (env.bpf || (!debugfs_module_present() && iowstat_bpf_attached()))
		return &bpf_backend;
	return &debugfs_backend;
#else
	if (!env.bpf)
		return &debugfs_backend;
	err_msg("--bpf: this iowstat was built without BPF support "
		"(rebuild with: make -C user BPF=1)\n");
	return NULL;
#endif
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

/* open_replay - the recording decides the interval unless one is given */
static int open_replay(struct source *src, struct iowstat_meta *m,
		       struct cmd_result *c)
{
	int err = replay_open(env.replay, &src->rp, m, c);

	if (err)
		return err;
	if (!env.have_interval && replay_count(src->rp) > 1) {
		env.have_interval = true;
		env.interval = m->interval ? m->interval : 1;
	}
	return 0;
}

static int open_live(struct source *src, struct iowstat_meta *m)
{
	int err;

	src->be = pick_backend();
	if (!src->be)
		return -EOPNOTSUPP;
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
		return env.replay || err == -ENOMEM || err == -EIO ||
		       err == -ENODATA ? 1 : EXIT_USAGE;
	src->interval = env.interval;
	if (env.cmd_given) {
		err = run_cmd(&env, &m, src);
		return err < 0 ? 1 : err;
	}
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

	ret = options_parse(argc, argv, &env);
	if (ret)
		return ret > 0 ? 0 : EXIT_USAGE;
	setvbuf(stdout, NULL, _IOLBF, 0);
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
