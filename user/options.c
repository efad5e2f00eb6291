// SPDX-License-Identifier: GPL-2.0-only
/*
 * options.c - the command line: vmstat's options where vmstat has them,
 * mpstat's -P and -o, then [interval [count]] or "-- CMD ARGS...".
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "options.h"
#include "util.h"

static const char *const usage_msg[] = {
"Usage: iowstat [options] [interval [count]]",
"       iowstat [options] [interval] -- CMD [ARGS...]",
"       iowstat --bpf attach|detach",
"",
"Puts iowprobe's exact split of idle time beside vmstat's columns.",
"",
"Options:",
"  -n, --one-header     print the header only once",
"  -t, --timestamp      append a timestamp (as vmstat -t)",
"  -w, --wide           wide output (as vmstat -w)",
"  -y, --no-first       skip the first line (since boot / since load)",
"  -S, --unit UNIT      memory unit: k (1000), K (1024), m, M; b for bytes",
"  -P, --cpus LIST      per-CPU table (mpstat layout): ALL or 0,2,4-7",
"  -o, --output FMT     json (mpstat -o JSON shape), csv or prom",
"  -T, --top[=N]        the N processes (default 10) with the most iowait",
"                       in each interval, as pidstat lists them",
"      --cgroup         with --top: per cgroup instead of per process",
"      --why[=WHEN]     after each interval, wa in words on stderr: disk,",
"                       no disk, the kernel's error; WHEN auto (default:",
"                       when wa or the kernel's error is 5 or more),",
"                       always (--why alone) or never",
"      --record FILE    save every raw sample read to FILE",
"      --replay FILE    print a view from a recording instead of live",
"      --bpf            use the BPF backend instead of the module: the one",
"                       left by --bpf attach, else one for this run only",
"      --bpf attach     attach the BPF backend and leave it attached (pinned",
"                       in /sys/fs/bpf/iowprobe); every later iowstat reads",
"                       it when the module is not loaded",
"      --bpf detach     detach it",
"  -h, --help           this text",
"  -V, --version        version",
"",
"-n -t -w -y -S shape vmstat's lines: not with -P, -o, --top or -- CMD.",
"-- CMD takes an interval (how often to sample) but no count; -o prom",
"takes neither, nor -P; --replay no --bpf.  Give an option with a value",
"once.  -o json and csv keys: kernel-* the kernel's, x* iowprobe's exact.",
"",
"Columns after vmstat's own (each line starts with exactly vmstat's line):",
"  xwa  exact iowait: % of all CPUs' time idle with a task in I/O wait",
"  bl   % of CPU time idle while a request issued on that CPU was in flight",
"  ba   % of CPU time idle while any block request was in flight",
"  err  the kernel's wa minus xwa (positive: the kernel over-reports)",
"-P columns: %idle %iowait as the kernel books them; %xidle %xiowait",
"  %xblk %xblkany iowprobe's exact split; %err = %iowait - %xiowait;",
"  %xdisk the part of %xiowait with a request of the CPU in flight;",
"  %kidle+iow the kernel's idle + iowait, over 100 when it counts twice.",
"",
"With -- CMD, CMD runs with its stdin/stdout/stderr untouched; at its end",
"a summary goes to stderr and iowstat exits with CMD's exit status.",
"",
"Examples:",
"  iowstat 1 10              ten lines, one a second",
"  iowstat -P ALL 2 5        per-CPU table every two seconds",
"  iowstat --top=5 2         who waits: the top 5 every two seconds",
"  iowstat -- dd if=/dev/sda of=/dev/null bs=1M count=1000 iflag=direct",
"  iowstat -o prom > /var/lib/node_exporter/iowprobe.prom",
"",
"Exit: 0 ok, 1 error, 2 usage or environment; with -- CMD, CMD's status.",
NULL
};

enum { OPT_RECORD = 256, OPT_REPLAY, OPT_BPF, OPT_CGROUP, OPT_WHY };

static const struct option long_options[] = {
	{ "one-header",	no_argument,		NULL, 'n' },
	{ "timestamp",	no_argument,		NULL, 't' },
	{ "wide",	no_argument,		NULL, 'w' },
	{ "no-first",	no_argument,		NULL, 'y' },
	{ "unit",	required_argument,	NULL, 'S' },
	{ "cpus",	required_argument,	NULL, 'P' },
	{ "output",	required_argument,	NULL, 'o' },
	{ "record",	required_argument,	NULL, OPT_RECORD },
	{ "replay",	required_argument,	NULL, OPT_REPLAY },
	{ "bpf",	no_argument,		NULL, OPT_BPF },
	{ "top",	optional_argument,	NULL, 'T' },
	{ "cgroup",	no_argument,		NULL, OPT_CGROUP },
	{ "why",	optional_argument,	NULL, OPT_WHY },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 }
};

static void usage(FILE *f)
{
	const char *const *l;

	for (l = usage_msg; *l; l++)
		fprintf(f, "%s\n", *l);
}

/* parse_unit - vmstat -S: one character, nothing after it */
static int parse_unit(const char *a, unsigned long *unit)
{
	static const struct {
		char c;
		unsigned long bytes;
	} units[] = {
		{ 'b', 1 }, { 'B', 1 }, { 'k', 1000 }, { 'K', 1024 },
		{ 'm', 1000000 }, { 'M', 1048576 },
	};
	unsigned int i;

	for (i = 0; a[0] && !a[1] && i < ARRAY_SIZE(units); i++) {
		if (a[0] == units[i].c) {
			*unit = units[i].bytes;
			return 0;
		}
	}
	err_msg("-S requires k, K, m, M or b, not \"%s\" (default is K)\n", a);
	return -EINVAL;
}

static int parse_output(const char *a, enum out_fmt *out)
{
	if (strcmp(a, "json") == 0) {
		*out = OUT_JSON;
	} else if (strcmp(a, "csv") == 0) {
		*out = OUT_CSV;
	} else if (strcmp(a, "prom") == 0) {
		*out = OUT_PROM;
	} else {
		err_msg("-o requires json, csv or prom, not \"%s\"\n", a);
		return -EINVAL;
	}
	return 0;
}

static int parse_cpus(const char *arg, struct env *env)
{
	if (!cpu_sel_parse(arg, &env->sel))
		return 0;
	if (strcasecmp(arg, "ALL") == 0)
		err_msg("-P requires ALL in capitals, as mpstat does, not "
			"\"%s\"; did you mean -P ALL?\n", arg);
	else
		err_msg("-P requires ALL or a list of CPUs like 0,2,4-7, not "
			"\"%s\"\n", arg);
	return -EINVAL;
}

/* parse_top - -T or --top, with =N (attached, as optional arguments are) */
static int parse_top(const char *arg, struct env *env)
{
	env->top = true;
	if (!arg)
		return 0;
	if (*arg == '=')
		arg++;
	if (!parse_u32(arg, 1, 1000000, &env->top_n))
		return 0;
	err_msg("--top=N requires a number of rows, 1 to 1000000, not \"%s\"\n",
		arg);
	return -EINVAL;
}

/* the long option whose value is @val: every short one has one */
static const struct option *long_option(int val)
{
	const struct option *o;

	for (o = long_options; o->name; o++)
		if (o->val == val)
			return o;
	return NULL;
}

/*
 * given_twice - an option with a value counts once: a second -o, -P,
 * --record... would silently replace the first
 */
static int given_twice(int c, unsigned int *seen)
{
	static const int once[] = { 'S', 'P', 'o', 'T', OPT_RECORD,
				    OPT_REPLAY };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(once); i++) {
		if (once[i] != c)
			continue;
		if (*seen & 1u << i) {
			err_msg("--%s given twice; give it once\n",
				long_option(c)->name);
			return -EINVAL;
		}
		*seen |= 1u << i;
	}
	return 0;
}

static int parse_option(int c, const char *arg, struct env *env)
{
	bool vmstat_only = c == 'n' || c == 't' || c == 'w' || c == 'y' ||
			   c == 'S';

	if (vmstat_only && !env->vmstat_opt)
		env->vmstat_opt = c;
	if (c != OPT_BPF)
		env->nopts++;
	switch (c) {
	case 'n':
		env->one_header = true;
		break;
	case 't':
		env->timestamp = true;
		break;
	case 'w':
		env->wide = true;
		break;
	case 'y':
		env->no_first = true;
		break;
	case 'S':
		return parse_unit(arg, &env->unit);
	case 'o':
		return parse_output(arg, &env->out);
	case 'P':
		return parse_cpus(arg, env);
	case OPT_RECORD:
		env->record = arg;
		break;
	case OPT_REPLAY:
		env->replay = arg;
		break;
	case OPT_BPF:
		env->bpf = true;
		break;
	case 'T':
		return parse_top(arg, env);
	case OPT_CGROUP:
		env->cgroup = true;
		break;
	case OPT_WHY:
		return why_parse_when(arg, &env->why);
	default:
		return -EINVAL;
	}
	return 0;
}

#define TRY_HELP	"; try 'iowstat --help'\n"

/*
 * bad_long - "--name[=arg]" that getopt_long refused, in its own words
 * (with opterr set it would print them, and what to do on a line of its
 * own): @val is the option's value when it was given an argument it does
 * not take, 0 when no option or more than one begins with name
 */
static void bad_long(const char *word, int val)
{
	size_t len = strcspn(word + 2, "=");
	char may[256] = "";
	const struct option *o;
	unsigned int n = 0;

	if (val) {
		err_msg("option '--%s' doesn't allow an argument" TRY_HELP,
			long_option(val)->name);
		return;
	}
	for (o = long_options; o->name; o++) {
		if (strncmp(o->name, word + 2, len))
			continue;
		n++;
		snprintf(may + strlen(may), sizeof(may) - strlen(may),
			 " '--%s'", o->name);
	}
	if (n > 1)
		err_msg("option '%s' is ambiguous; possibilities:%s" TRY_HELP,
			word, may);
	else
		err_msg("unrecognized option '%s'" TRY_HELP, word);
}

/*
 * bad_option - one line for what getopt_long refused: @word is the
 * argument it was reading, @c its return, '?' or ':' (missing argument)
 */
static int bad_option(int c, const char *word)
{
	bool is_long = word && strncmp(word, "--", 2) == 0;

	if (c == ':' && is_long)
		err_msg("option '--%s' requires an argument" TRY_HELP,
			long_option(optopt)->name);
	else if (c == ':')
		err_msg("option requires an argument -- '%c'" TRY_HELP,
			optopt);
	else if (is_long)
		bad_long(word, optopt);
	else
		err_msg("invalid option -- '%c'" TRY_HELP, optopt);
	return -EINVAL;
}

/* parse_positional - [interval [count]], both whole numbers >= 1 */
static int parse_positional(char **args, int n, struct env *env)
{
	if (n > 2) {
		err_msg("unexpected argument \"%s\"" TRY_HELP, args[2]);
		return -EINVAL;
	}
	if (n >= 1) {
		if (parse_u32(args[0], 1, 86400, &env->interval)) {
			err_msg("bad interval \"%s\": give whole seconds, "
				"1 to 86400\n", args[0]);
			return -EINVAL;
		}
		env->have_interval = true;
	}
	if (n == 2) {
		if (parse_u32(args[1], 1, UINT32_MAX - 1, &env->count)) {
			err_msg("bad count \"%s\": give a whole number >= 1\n",
				args[1]);
			return -EINVAL;
		}
		env->have_count = true;
	}
	return 0;
}

/*
 * bpf_command - "--bpf attach" or "--bpf detach": the one word after the
 * options, nothing else.  Return: 1 when it is one, 0 when not, or -EINVAL.
 */
static int bpf_command(char **args, int n, struct env *env)
{
	if (n < 1 || !env->bpf)
		return 0;
	if (!strcmp(args[0], "attach"))
		env->bpf_cmd = BPF_ATTACH;
	else if (!strcmp(args[0], "detach"))
		env->bpf_cmd = BPF_DETACH;
	else
		return 0;
	if (n > 1 || env->cmd_given || env->nopts) {
		err_msg("--bpf %s takes nothing else; usage: iowstat --bpf "
			"attach|detach\n", args[0]);
		return -EINVAL;
	}
	return 1;
}

/* split_command - everything after "--" is CMD; what precedes, positional */
static int split_command(int argc, char **argv, struct env *env)
{
	int i, err, first = optind;

	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		env->cmd_given = true;
		env->cmd = argv + optind;
		return parse_positional(argv + first, 0, env);
	}
	for (i = optind; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (i < argc) {
		env->cmd_given = true;
		env->cmd = argv + i + 1;
	}
	err = bpf_command(argv + first, i - first, env);
	if (err)
		return err < 0 ? err : 0;
	return parse_positional(argv + first, i - first, env);
}

int options_parse(int argc, char **argv, struct env *env)
{
	unsigned int seen = 0;
	const char *word;
	int c, err;

	env->unit = 1024;
	env->interval = 1;
	env->top_n = 10;	/* top's first screen */
	opterr = 0;		/* its messages take two lines: ours, one */
	for (;;) {
		word = optind < argc ? argv[optind] : NULL;
		c = getopt_long(argc, argv, "+:ntwyS:P:o:T::hV", long_options,
				NULL);
		if (c == -1)
			break;
		if (c == '?' || c == ':')
			return bad_option(c, word);
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == 'V') {
			printf("iowstat %s (iowprobe debugfs ABI 1)\n",
			       IOWSTAT_VERSION);
			return 1;
		}
		err = given_twice(c, &seen);
		if (!err)
			err = parse_option(c, optarg, env);
		if (err)
			return err;
	}
	err = split_command(argc, argv, env);
	return err ? err : options_check(env);
}
