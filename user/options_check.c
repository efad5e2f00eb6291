// SPDX-License-Identifier: GPL-2.0-only
/*
 * options_check.c - which options go together: an option that would do
 * nothing where it is given (a view's option beside another view, a
 * count beside -- CMD) is refused with one line saying what to leave out,
 * never silently dropped.  man/iowstat.8, "Options that do not go
 * together", lists the rules.
 */
#include <errno.h>

#include "options.h"
#include "util.h"

/* view_name - the option that chose a view other than vmstat's lines */
static const char *view_name(const struct env *env)
{
	static const char *const out[] = {
		[OUT_JSON] = "-o json", [OUT_CSV] = "-o csv",
		[OUT_PROM] = "-o prom",
	};

	if (env->cmd_given)
		return "-- CMD";
	if (env->top)
		return "--top";
	if (env->out != OUT_TEXT)
		return out[env->out];
	return env->sel.given ? "-P" : NULL;
}

/**
 * options_check_cmd() - a -- CMD run, live or replayed, prints a summary:
 * vmstat's line options, a count or --top would do nothing.
 * Return: 0 or -EINVAL (message printed).
 */
int options_check_cmd(const struct env *env)
{
	const char *what = env->cmd_given ? "-- CMD" :
			   "a recording of -- CMD";

	if (env->top) {
		err_msg("--top and %s exclude each other\n", what);
		return -EINVAL;
	}
	if (env->have_count) {
		err_msg("%s samples until CMD ends: give no count, only an "
			"interval\n", what);
		return -EINVAL;
	}
	if (env->out == OUT_PROM && env->cmd_given) {
		err_msg("-o prom does not go with -- CMD; use -o json or "
			"-o csv\n");
		return -EINVAL;
	}
	if (env->vmstat_opt) {
		err_msg("-%c shapes vmstat's lines, which %s does not print; "
			"leave it out\n", env->vmstat_opt, what);
		return -EINVAL;
	}
	return 0;
}

/* check_view - the options of one view do not go with another */
static int check_view(const struct env *env)
{
	const char *view = view_name(env);

	if (env->cmd_given)
		return options_check_cmd(env);
	if (env->vmstat_opt && view) {
		err_msg("-%c shapes vmstat's lines, which %s does not print; "
			"leave it out\n", env->vmstat_opt, view);
		return -EINVAL;
	}
	if (env->out == OUT_PROM && env->sel.given) {
		err_msg("-o prom exports every CPU; leave out -P\n");
		return -EINVAL;
	}
	if (env->out == OUT_PROM && env->have_interval) {
		err_msg("-o prom prints one exposition; give no interval "
			"(run it from a timer)\n");
		return -EINVAL;
	}
	return 0;
}

/* check_top - --top shows its own table, interval by interval */
static int check_top(struct env *env)
{
	const char *other = env->sel.given ? "-P" :
			    env->out == OUT_PROM ? "-o prom" : NULL;

	if (env->cgroup && !env->top) {
		err_msg("--cgroup goes with --top: iowstat --top --cgroup\n");
		return -EINVAL;
	}
	if (!env->top)
		return 0;
	if (other) {
		err_msg("--top and %s exclude each other\n", other);
		return -EINVAL;
	}
	/* one interval is the least it can show: as "--top 1 1" */
	if (!env->have_interval && !env->replay) {
		env->have_interval = true;
		env->have_count = true;
		env->count = 1;
	}
	return 0;
}

/* check_source - where the samples come from: live, or a recording */
static int check_source(const struct env *env)
{
	if (env->cmd_given && !env->cmd[0]) {
		err_msg("no command after \"--\"; usage: iowstat [options] "
			"-- CMD [ARGS...]\n");
		return -EINVAL;
	}
	if (env->cmd_given && env->replay) {
		err_msg("--replay cannot run a command\n");
		return -EINVAL;
	}
	if (env->record && env->replay) {
		err_msg("--record and --replay exclude each other\n");
		return -EINVAL;
	}
	if (env->bpf && env->replay) {
		err_msg("--replay reads the recording, no backend; leave out "
			"--bpf\n");
		return -EINVAL;
	}
	return 0;
}

/**
 * options_check() - the options given go together: each has an effect
 * where it is given, or this refuses them with one line.  --top without
 * an interval becomes one interval of 1 s.
 * Return: 0 or -EINVAL.
 */
int options_check(struct env *env)
{
	int err = check_source(env);

	if (!err)
		err = check_view(env);
	return err ? err : check_top(env);
}
