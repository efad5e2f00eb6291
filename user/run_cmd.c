// SPDX-License-Identifier: GPL-2.0-only
/*
 * run_cmd.c - "iowstat -- CMD ARGS": run CMD, sample right before it
 * starts, on the interval while it runs and right after it ends, and sum
 * the intervals, so the split covers exactly CMD's lifetime and a counter
 * going backwards mid-run costs one interval of one CPU, not the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"
#include "run.h"
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

/* exec_child - in the child: exec, or report errno through the pipe */
static void exec_child(char **cmd, int errfd)
{
	ssize_t n;
	int e;

	execvp(cmd[0], cmd);
	e = errno;
	n = write(errfd, &e, sizeof(e));	/* if lost: EOF, then 127 */
	(void)n;
	_exit(127);
}

/* spawn - fork and exec; Return: 0, or the exit status for a failure */
static int spawn(char **cmd)
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
		exec_child(cmd, ep[1]);
	child = pid;
	close(ep[1]);
	do
		n = read(ep[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(ep[0]);
	if (n != sizeof(e))
		return 0;		/* EOF: exec succeeded (CLOEXEC) */
	waitpid(pid, NULL, 0);
	child = 0;
	err_msg("cannot execute %s: %s\n", cmd[0], strerror(e));
	return e == EACCES || e == ENOEXEC ? 126 : 127;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
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

/* wait_child - until CMD ends or @deadline; true once it has ended */
static bool wait_child(uint64_t deadline, int *status, struct rusage *ru,
		       struct cmd_result *res)
{
	struct pollfd pfd = { .fd = chld_pipe[0], .events = POLLIN };
	siginfo_t si;
	char drain[64];
	uint64_t now;
	pid_t r;

	for (;;) {
		/* peek first: the zombie still has its scheduler statistics */
		si.si_pid = 0;
		if (!waitid(P_PID, child, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == child)
			res->have_runq = runq_of(child, &res->runq_ns);
		r = wait4(child, status, WNOHANG, ru);
		if (r == child || (r < 0 && errno == ECHILD))
			return true;
		now = mono_ns();
		if (now >= deadline)
			return false;
		poll(&pfd, 1, (deadline - now) / 1000000 + 1);
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

struct cmd_run {
	struct source *src;
	struct iowstat_snapshot *s[2];
	struct iowstat_delta *d, *acc;
	struct rebase_state rs;
};

/* step - one more sample, its interval added to the run's total */
static int step(struct cmd_run *c)
{
	struct iowstat_snapshot *t;
	int r = source_next(c->src, c->s[1], false);

	if (r <= 0)
		return r ? r : -EINTR;
	delta_compute(c->s[0], c->s[1], c->d, &c->rs);
	delta_add(c->acc, c->d);
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

	while (!wait_child(next, &status, &ru, res)) {
		err = step(c);
		if (err) {	/* no summary, but CMD is not left behind */
			waitpid(child, NULL, 0);
			return err;
		}
		next += interval * 1000000000ull;
	}
	res->wall_ns = mono_ns() - t0;
	child = 0;
	res->status = exit_status(status);
	res->user_us = ru.ru_utime.tv_sec * 1000000ull + ru.ru_utime.tv_usec;
	res->sys_us = ru.ru_stime.tv_sec * 1000000ull + ru.ru_stime.tv_usec;
	res->valid = true;
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
 * lifetime (all CPUs unless -P says which).
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
	fflush(f);
}

static int cmd_alloc(struct cmd_run *c)
{
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
}

/*
 * report() - the run's summary: text on stderr as time(1) prints it, or
 * with -o json / -o csv the machine-readable form on stdout
 */
static void report(const struct env *env, const struct iowstat_meta *m,
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
		return;
	}
	fflush(stdout);
}

/* run_started - CMD is running: supervise it, then report */
static int run_started(const struct env *env, const struct iowstat_meta *m,
		       struct cmd_run *c, uint64_t t0)
{
	struct cmd_result res = { 0 };
	int err;

	err = supervise(c, env->interval, t0, &res);
	if (err)
		return err;
	if (c->src->rec && record_cmd(c->src->rec, &res))
		err_msg("cannot write the recording\n");
	report(env, m, c, &res);
	return res.status;
}

/**
 * run_cmd() - run env->cmd under sampling.
 * Return: CMD's exit status (128 + signal if killed, 126/127 if it could
 * not be executed), or -errno when sampling failed (message printed).
 */
int run_cmd(const struct env *env, const struct iowstat_meta *m,
	    struct source *src)
{
	struct cmd_run c = { .src = src };
	uint64_t t0;
	int r;

	r = cmd_alloc(&c);
	if (!r && pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK))
		r = -errno;
	if (r)
		goto out;
	set_handlers();
	r = source_next(src, c.s[0], false);
	if (r <= 0)
		goto out;
	t0 = mono_ns();
	r = spawn(env->cmd);
	if (!r)
		r = run_started(env, m, &c, t0);
out:
	cmd_free(&c);
	return r;
}

/* run_cmd_replay - the summary of a recorded -- CMD run */
int run_cmd_replay(const struct env *env, const struct iowstat_meta *m,
		   const struct cmd_result *res, struct source *src)
{
	struct cmd_run c = { .src = src };
	int r;

	r = cmd_alloc(&c);
	if (!r)
		r = source_next(src, c.s[0], false) == 1 ? 0 : -EINVAL;
	while (!r && !(r = step(&c)))
		;
	if (r == -EINTR) {	/* the recording's end */
		report(env, m, &c, res);
		r = 0;
	}
	cmd_free(&c);
	return r;
}
