// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_cmd.c - "iowstat -- CMD ARGS": run CMD, sample right before it
 * starts, on the interval while it runs and right after it ends, and sum
 * the intervals, so the split covers exactly CMD's lifetime and a counter
 * going backwards mid-run costs one interval of one CPU, not the run.
 *
 * It also adds up where the threads of CMD's whole tree spent their lives
 * (cmd_tree.c): iowstat is a child subreaper, hears every thread's exit
 * from taskstats and runs the tree in a cgroup of its own, whose row in
 * the module's cgroups file is the tree's iowait (cmd_cgroup.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd_cgroup.h"
#include "cmd_tree.h"
#include "fmt.h"
#include "run.h"
#include "taskstats.h"
#include "util.h"

static volatile pid_t child;
static int chld_pipe[2] = { -1, -1 };

/*
 * on_signal - Ctrl-C reaches CMD from the terminal by itself (same
 * process group); a signal some process sent to iowstat is passed on.
 * iowstat keeps waiting, so the summary is still printed.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* si_code <= 0: SI_USER, SI_QUEUE, SI_TKILL; a tty gives SI_KERNEL */
	if (si->si_code <= 0 && child > 0)
		kill(child, sig);
}

static void on_chld(int sig)
{
	int e = errno;
	ssize_t n;

	(void)sig;
	n = write(chld_pipe[1], "", 1);	/* full pipe: a wakeup is pending */
	(void)n;
	errno = e;
}

static void set_handlers(void)
{
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	struct sigaction sc = { .sa_handler = on_chld,
				.sa_flags = SA_RESTART | SA_NOCLDSTOP };

	sigemptyset(&sa.sa_mask);
	sigemptyset(&sc.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGCHLD, &sc, NULL);
}

/*
 * exec_child - in the child: join CMD's cgroup (a failure, -errno, goes
 * through the pipe and CMD still runs), exec, or report errno through it
 */
static void exec_child(char **cmd, int errfd, const struct cmd_cgroup *cg)
{
	ssize_t n;
	int e;

	if (cg->procs_fd >= 0) {
		e = cmd_cgroup_join(cg);
		if (e) {
			n = write(errfd, &e, sizeof(e));
			(void)n;
		}
	}
	execvp(cmd[0], cmd);
	e = errno;
	n = write(errfd, &e, sizeof(e));	/* if lost: EOF, then 127 */
	(void)n;
	_exit(127);
}

/*
 * spawn - fork and exec; @join_err: the child's failure to join @cg.
 * Return: 0, or the exit status for a failure.
 */
static int spawn(char **cmd, const struct cmd_cgroup *cg, int *join_err)
{
	int ep[2], e = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(ep, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(ep[0]);
		close(ep[1]);
		return -errno;
	}
	if (pid == 0)
		exec_child(cmd, ep[1], cg);
	child = pid;
	close(ep[1]);
	for (;;) {
		do
			n = read(ep[0], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e) || e >= 0)
			break;
		*join_err = e;
	}
	close(ep[0]);
	if (n != sizeof(e))
		return 0;		/* EOF: exec succeeded (CLOEXEC) */
	waitpid(pid, NULL, 0);
	child = 0;
	err_msg("cannot execute %s: %s\n", cmd[0], strerror(e));
	return e == EACCES || e == ENOEXEC ? 126 : 127;
}

/*
 * runq_of() - how long the ended but not yet reaped CMD waited for a CPU
 * (schedstat's run_delay, ns): after each wakeup a task is runnable but
 * only runs once a CPU switches to it.  Its main thread only.
 */
static bool runq_of(pid_t pid, uint64_t *ns)
{
	unsigned long long run, delay;
	char path[64];
	bool ok;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fscanf(f, "%llu %llu", &run, &delay) == 2;
	fclose(f);
	*ns = delay;
	return ok;
}

/*
 * struct cmd_run - one run: the samples and their sums, and what adds up
 * the tree's parts: the exit records heard so far, CMD's cgroup, and why
 * a part cannot be measured
 */
struct cmd_run {
	struct source *src;
	struct iowstat_snapshot *s[2];
	struct iowstat_delta *d, *acc;
	struct rebase_state rs;
	struct taskstats_listener ts;
	struct cmd_tree tree;
	struct cmd_cgroup cg;
	char no_tree[160], no_iowait[160];
	struct top_avg why_avg;		/* --why: who waited over the run */
	bool why_named;			/* every sample had the procs file */
	struct why why_over;		/* --why: the worst interval's excess */
	unsigned int hz;
};

/*
 * reap_orphans - the tree's orphans are iowstat's children (a subreaper):
 * reap the ended ones, as init would, but never CMD (wait_child does)
 */
static void reap_orphans(void)
{
	siginfo_t si;

	for (;;) {
		si.si_pid = 0;
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) ||
		    !si.si_pid || si.si_pid == child)
			return;
		waitpid(si.si_pid, NULL, 0);
	}
}

/* wait_child - until CMD ends or @deadline; true once it has ended */
static bool wait_child(struct cmd_run *c, uint64_t deadline, int *status,
		       struct rusage *ru, struct cmd_result *res)
{
	struct pollfd pfd[2] = {
		{ .fd = chld_pipe[0], .events = POLLIN },
		{ .fd = c->ts.fd, .events = POLLIN },	/* -1: ignored */
	};
	siginfo_t si;
	char drain[64];
	uint64_t now;
	pid_t r;

	for (;;) {
		if (c->ts.fd >= 0)
			taskstats_drain(&c->ts, tree_add, &c->tree);
		reap_orphans();
		/* peek first: the zombie still has its scheduler statistics */
		si.si_pid = 0;
		if (!waitid(P_PID, child, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == child)
			res->have_runq = runq_of(child, &res->runq_ns);
		r = wait4(child, status, WNOHANG, ru);
		if (r == child || (r < 0 && errno == ECHILD))
			return true;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now >= deadline)
			return false;
		poll(pfd, 2, (deadline - now) / 1000000 + 1);
		while (read(chld_pipe[0], drain, sizeof(drain)) > 0)
			;
	}
}

static int exit_status(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* step - one more sample, its interval added to the run's total */
static int step(struct cmd_run *c)
{
	struct iowstat_snapshot *t;
	struct why w;
	int r = source_next(c->src, c->s[1], false);

	if (r <= 0)
		return r ? r : -EINTR;
	delta_compute(c->s[0], c->s[1], c->d, &c->rs);
	delta_add(c->acc, c->d);
	why_over_count(c->d, c->hz, &w);
	why_over_worst(&c->why_over, &w);
	c->why_named &= !!(c->s[0]->have & c->s[1]->have & HAVE_PROCS);
	if (c->why_named && top_avg_add(&c->why_avg, c->s[0], c->s[1]))
		c->why_named = false;
	t = c->s[0];
	c->s[0] = c->s[1];
	c->s[1] = t;
	return 0;
}

/* supervise - sample on the interval until CMD ends; its status */
static int supervise(struct cmd_run *c, unsigned int interval,
		     uint64_t t0, struct cmd_result *res)
{
	uint64_t next = t0 + interval * 1000000000ull;
	struct rusage ru = { 0 };
	int status = 0, err;

	while (!wait_child(c, next, &status, &ru, res)) {
		err = step(c);
		if (err) {	/* no summary, but CMD is not left behind */
			waitpid(child, NULL, 0);
			return err;
		}
		next += interval * 1000000000ull;
	}
	res->wall_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	child = 0;
	res->status = exit_status(status);
	res->user_us = ru.ru_utime.tv_sec * 1000000ull + ru.ru_utime.tv_usec;
	res->sys_us = ru.ru_stime.tv_sec * 1000000ull + ru.ru_stime.tv_usec;
	res->valid = true;
	c->src->hold = true;	/* recorded once the tree is known */
	return step(c);		/* right after the end */
}

static void print_duration(FILE *f, const char *name, uint64_t us)
{
	uint64_t ms = (us + 500) / 1000;

	fprintf(f, "%s\t%llum%llu.%03llus\n", name,
		(unsigned long long)(ms / 60000),
		(unsigned long long)(ms / 1000 % 60),
		(unsigned long long)(ms % 1000));
}

/**
 * cmd_print_summary() - as bash's "time" prints, then how long CMD waited
 * for a CPU (runq), CMD's status and the per-CPU table over CMD's
 * lifetime (all CPUs unless -P says which), then its tree's parts.
 */
void cmd_print_summary(FILE *f, const struct cmd_result *c,
		       const struct iowstat_delta *acc,
		       const struct cpu_sel *sel)
{
	struct cpu_sel every = { .given = true, .every = true };

	fputc('\n', f);
	print_duration(f, "real", c->wall_ns / 1000);
	print_duration(f, "user", c->user_us);
	print_duration(f, "sys", c->sys_us);
	if (c->have_runq)
		print_duration(f, "runq", c->runq_ns / 1000);
	fprintf(f, "exit\t%d\n", c->status);
	cpus_print_block(f, "Summary:", "Summary:", acc,
			 sel->given ? sel : &every);
	fmt_text_tree(f, &c->tree);
	fflush(f);
}

static int cmd_alloc(struct cmd_run *c, unsigned int hz)
{
	c->hz = hz;
	c->why_over.over_cpu = -1;
	c->why_avg.kind = IOWPROBE_PROCS;
	c->why_named = true;
	c->s[0] = snapshot_alloc();
	c->s[1] = snapshot_alloc();
	c->d = calloc(1, sizeof(*c->d));
	c->acc = calloc(1, sizeof(*c->acc));
	return c->s[0] && c->s[1] && c->d && c->acc ? 0 : -ENOMEM;
}

static void cmd_free(struct cmd_run *c)
{
	snapshot_free(c->s[0]);
	snapshot_free(c->s[1]);
	free(c->d);
	free(c->acc);
	top_avg_free(&c->why_avg);
}

/*
 * cmd_why - the run's wa in words after the summary, on stderr with it:
 * the whole run's figures, and who waited over the whole run
 */
static void cmd_why(const struct env *env, const struct iowstat_meta *m,
		    const struct cmd_run *c)
{
	struct top_view tv = { .kind = IOWPROBE_PROCS };
	bool named = c->why_named && c->why_avg.intervals;
	struct why w;

	if (env->why == WHY_NEVER)
		return;
	if (named && top_avg_view(&c->why_avg, &tv, UINT_MAX))
		named = false;
	why_compute(c->acc, named ? &tv : NULL, m->hz, &w);
	why_over_worst(&w, &c->why_over);
	if (why_wanted(&w, env->why))
		why_print(stderr, &w);
	fflush(stderr);
	top_free(&tv);
}

/*
 * report() - the run's summary: text on stderr as time(1) prints it, or
 * with -o json / -o csv the machine-readable form on stdout
 * Return: 0, or -errno when stdout could not take it (said)
 */
static int report(const struct env *env, const struct iowstat_meta *m,
		  const struct cmd_run *c, const struct cmd_result *res)
{
	struct cpu_sel every = { .given = true, .every = true };
	const struct cpu_sel *sel = env->sel.given ? &env->sel : &every;

	switch (env->out) {
	case OUT_JSON:
		fmt_json_begin(stdout, m, c->s[0]);
		fmt_json_sample(stdout, c->s[0], c->acc, sel);
		fmt_json_statistics_end(stdout);
		fmt_json_command(stdout, res, c->acc, sel);
		fmt_json_host_end(stdout);
		break;
	case OUT_CSV:
		fmt_csv_command(stdout, res, c->acc, sel);
		break;
	default:
		cmd_print_summary(stderr, res, c->acc, &env->sel);
		cmd_why(env, m, c);
		return 0;
	}
	return out_flush(stdout);
}

/*
 * tree_begin - before CMD starts: become the reaper of its orphans, listen
 * for exits and make its cgroup; a part that cannot be had says why
 */
static void tree_begin(struct cmd_run *c, struct iowstat_backend *be)
{
	int err;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	tree_start(&c->tree);
	err = taskstats_listen(&c->ts);
	if (err == -EPERM || err == -EACCES)
		snprintf(c->no_tree, sizeof(c->no_tree),
			 "taskstats needs root (CAP_NET_ADMIN)");
	else if (err == -ENOENT)
		snprintf(c->no_tree, sizeof(c->no_tree),
			 "the kernel has no taskstats (CONFIG_TASKSTATS)");
	else if (err)
		snprintf(c->no_tree, sizeof(c->no_tree), "taskstats: %s",
			 strerror(-err));
	cmd_cgroup_make(&c->cg, be, c->no_iowait, sizeof(c->no_iowait));
}

/* tree_cleanup - stop listening, remove CMD's cgroup; Return: how many of
 * the tree's processes still ran in it
 */
static unsigned int tree_cleanup(struct cmd_run *c)
{
	taskstats_close(&c->ts);
	tree_free(&c->tree);
	return cmd_cgroup_remove(&c->cg);
}

/*
 * tree_end - CMD has been reaped: the records of its threads are queued
 * (each is sent before its thread can be reaped); sum them, read the
 * cgroup's iowait, then clean up
 */
static void tree_end(struct cmd_run *c, struct tree_parts *p)
{
	reap_orphans();
	memcpy(p->no_tree, c->no_tree, sizeof(p->no_tree));
	memcpy(p->no_iowait, c->no_iowait, sizeof(p->no_iowait));
	if (c->ts.fd >= 0) {
		taskstats_drain(&c->ts, tree_add, &c->tree);
		p->lost = c->ts.lost || c->tree.oom;
		if (tree_sum(&c->tree, getpid(), p))
			snprintf(p->no_tree, sizeof(p->no_tree),
				 "no memory");
	}
	if (c->cg.procs_fd >= 0)
		cmd_cgroup_iowait(&c->cg, p);
	p->left = tree_cleanup(c);
	tree_parts_finish(p);
}

/*
 * record_end - the last sample, held back until now, with the tree's
 * parts as a file of its own, then how CMD ended
 * Return: 0 or -errno (said)
 */
static int record_end(struct source *src, const struct cmd_result *res)
{
	size_t len;
	char *buf;
	int err;

	err = tree_parts_format(&res->tree, &buf, &len);
	if (!err)
		err = raw_add(&src->raw, TREE_PATH, buf, len);
	if (err) {
		err_msg("cannot record the command's tree: %s\n",
			strerror(-err));
		return err;
	}
	err = record_sample(src->rec, src->n - 1, &src->raw);
	return err ? err : record_cmd(src->rec, res);
}

/*
 * run_started - CMD is running: supervise it, then report; CMD's status,
 * or -errno when its summary or recording could not be written (said)
 */
static int run_started(const struct env *env, const struct iowstat_meta *m,
		       struct cmd_run *c, uint64_t t0)
{
	struct cmd_result res = { 0 };
	int err, out_err;

	err = supervise(c, env->interval, t0, &res);
	if (err)
		return err;
	tree_end(c, &res.tree);
	if (c->src->rec)
		err = record_end(c->src, &res);
	out_err = report(env, m, c, &res);
	return err ? err : out_err ? out_err : res.status;
}

/**
 * run_cmd() - run env->cmd under sampling.
 * Return: CMD's exit status (128 + signal if killed, 126/127 if it could
 * not be executed), or -errno when sampling, the summary or the recording
 * failed (message printed).
 */
int run_cmd(const struct env *env, const struct iowstat_meta *m,
	    struct source *src)
{
	struct cmd_run c = { .src = src, .ts = { .fd = -1 },
			     .cg = { .procs_fd = -1 } };
	int r, join_err = 0;
	uint64_t t0;

	r = cmd_alloc(&c, m->hz);
	if (!r && pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK))
		r = -errno;
	if (r)
		goto out;
	set_handlers();
	tree_begin(&c, src->be);
	r = source_next(src, c.s[0], false);
	if (r <= 0)
		goto out;
	t0 = clock_ns(CLOCK_MONOTONIC);
	r = spawn(env->cmd, &c.cg, &join_err);
	if (join_err) {
		snprintf(c.no_iowait, sizeof(c.no_iowait), "cannot join %.120s: %s",
			 c.cg.dir, strerror(-join_err));
		cmd_cgroup_remove(&c.cg);
	}
	if (!r)
		r = run_started(env, m, &c, t0);
out:
	tree_cleanup(&c);
	cmd_free(&c);
	return r;
}

/* run_cmd_replay - the summary of a recorded -- CMD run */
int run_cmd_replay(const struct env *env, const struct iowstat_meta *m,
		   const struct cmd_result *res, struct source *src)
{
	struct cmd_run c = { .src = src };
	int r;

	r = cmd_alloc(&c, m->hz);
	if (!r)
		r = source_next(src, c.s[0], false) == 1 ? 0 : -EINVAL;
	while (!r && !(r = step(&c)))
		;
	if (r == -EINTR)	/* the recording's end */
		r = report(env, m, &c, res);
	cmd_free(&c);
	return r;
}
