// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_numbers.c - the command line and its numbers: options_parse()
 * (interval, count, -S, -o, -P, --, ...), parse_u32() with the interval's
 * and the count's ranges, parse_u64_span(), parse_s64_span() and the -P
 * CPU list, each against a reference written here the slow, obvious way.
 *
 * Input: arguments separated by NUL bytes (at most 16).  Each argument
 * also goes through every number parser and cpu_sel_parse() alone, and
 * the whole input, NULs included, through the span parsers.
 */
#include <getopt.h>
#include <inttypes.h>

#include "fuzz.h"

#include "options.h"
#include "util.h"
#include "view_cpus.h"

#define MAX_ARGS	16

static struct env *env;
static struct cpu_sel *sel, *ref_sel;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	env = calloc(1, sizeof(*env));
	sel = calloc(1, sizeof(*sel));
	ref_sel = calloc(1, sizeof(*ref_sel));
	if (!env || !sel || !ref_sel)
		abort();
	return 0;
}

/* ref_u64 - up to 20 decimal digits, nothing else, within 64 bits */
static int ref_u64(const char *p, size_t n, uint64_t *out)
{
	unsigned __int128 v = 0;
	size_t i;

	if (n == 0 || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (p[i] - '0');
	}
	if (v > UINT64_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int ref_s64(const char *p, size_t n, int64_t *out)
{
	bool neg = n && p[0] == '-';
	uint64_t v;

	if (ref_u64(p + neg, n - neg, &v))
		return -1;
	if (v > (uint64_t)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(~v + 1) : (int64_t)v;
	return 0;
}

static int ref_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (ref_u64(s, strlen(s), &v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static void check_spans(const char *p, size_t n)
{
	uint64_t u = 0, ru = 0;
	int64_t s = 0, rs = 0;
	int a, b;

	a = parse_u64_span((struct span){ p, n }, &u);
	b = ref_u64(p, n, &ru);
	if (!a != !b || (!a && u != ru))
		fuzz_fail("parse_u64_span(\"%.*s\"): %d %" PRIu64
			  ", reference %d %" PRIu64, (int)n, p, a, u, b, ru);
	if (a && a != -EINVAL && a != -ERANGE)
		fuzz_fail("parse_u64_span: error %d", a);
	a = parse_s64_span((struct span){ p, n }, &s);
	b = ref_s64(p, n, &rs);
	if (!a != !b || (!a && s != rs))
		fuzz_fail("parse_s64_span(\"%.*s\"): %d %" PRId64
			  ", reference %d %" PRId64, (int)n, p, a, s, b, rs);
}

static void check_u32(const char *arg, uint32_t min, uint32_t max)
{
	uint32_t v = 0, rv = 0;
	int a = parse_u32(arg, min, max, &v), b = ref_u32(arg, min, max, &rv);

	if (!a != !b || (!a && v != rv))
		fuzz_fail("parse_u32(\"%s\", %u, %u): %d %u, reference %d %u",
			  arg, min, max, a, v, b, rv);
}

/* ref_range - "N" or "N-M", both CPU ids, N <= M */
static int ref_range(const char *tok, size_t n)
{
	const char *dash = memchr(tok, '-', n);
	char a[32], b[32];
	uint32_t lo, hi, i;

	if (!dash)
		dash = tok + n;
	if ((size_t)(dash - tok) >= sizeof(a) ||
	    (dash < tok + n && (size_t)(tok + n - dash - 1) >= sizeof(b)))
		return -1;
	memcpy(a, tok, dash - tok);
	a[dash - tok] = '\0';
	if (dash < tok + n) {
		memcpy(b, dash + 1, tok + n - dash - 1);
		b[tok + n - dash - 1] = '\0';
	} else {
		strcpy(b, a);
	}
	if (ref_u32(a, 0, IOWSTAT_MAX_CPUS - 1, &lo) ||
	    ref_u32(b, lo, IOWSTAT_MAX_CPUS - 1, &hi))
		return -1;
	for (i = lo; i <= hi; i++)
		ref_sel->cpu[i] = true;
	if (hi + 1 > ref_sel->max)
		ref_sel->max = hi + 1;
	return 0;
}

/*
 * ref_cpu_sel - "ALL" (mpstat's spelling only), or ranges split at commas,
 * none empty and none of 32 characters or more
 */
static int ref_cpu_sel(const char *arg)
{
	const char *p = arg, *comma;
	size_t n;

	memset(ref_sel, 0, sizeof(*ref_sel));
	ref_sel->given = true;
	if (!strcmp(arg, "ALL")) {
		ref_sel->every = true;
		return 0;
	}
	while (*p) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		if (!n || n >= 32 || ref_range(p, n))
			return -1;
		if (!comma)
			return 0;
		p += n + 1;
	}
	return -1;
}

static void check_cpu_sel(const char *arg)
{
	int a = cpu_sel_parse(arg, sel), b = ref_cpu_sel(arg);

	if (!a != !b)
		fuzz_fail("cpu_sel_parse(\"%s\"): %d, reference %d", arg, a, b);
	if (a)
		return;
	if (sel->every != ref_sel->every || sel->max != ref_sel->max ||
	    memcmp(sel->cpu, ref_sel->cpu, sizeof(sel->cpu)))
		fuzz_fail("cpu_sel_parse(\"%s\"): another set than the "
			  "reference's", arg);
	if (!sel->every && (sel->max < 1 || sel->max > IOWSTAT_MAX_CPUS ||
			    !sel->cpu[sel->max - 1]))
		fuzz_fail("cpu_sel_parse(\"%s\"): max %u", arg, sel->max);
}

static void check_env(int argc, char **argv)
{
	int err;

	memset(env, 0, sizeof(*env));
	optind = 0;		/* glibc: start over, forget everything */
	err = options_parse(argc, argv, env);
	if (err && err != 1 && err != -EINVAL)
		fuzz_fail("options_parse: %d", err);
	if (err)
		return;
	if (env->have_interval && (env->interval < 1 || env->interval > 86400))
		fuzz_fail("interval %u accepted", env->interval);
	if (env->have_count && (env->count < 1 || env->count == UINT32_MAX))
		fuzz_fail("count %u accepted", env->count);
	if (env->cmd_given && (!env->cmd || !env->cmd[0]))
		fuzz_fail("-- without a command accepted");
	if (env->record && env->replay)
		fuzz_fail("--record with --replay accepted");
	if (env->unit != 1 && env->unit != 1000 && env->unit != 1024 &&
	    env->unit != 1000000 && env->unit != 1048576)
		fuzz_fail("unit %lu", env->unit);
	if (env->out > OUT_PROM)
		fuzz_fail("output %d", env->out);
	if (env->sel.given && !env->sel.every &&
	    (env->sel.max < 1 || env->sel.max > IOWSTAT_MAX_CPUS))
		fuzz_fail("-P max %u", env->sel.max);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *all = fuzz_copy(data, size), *text = fuzz_cstr(data, size);
	char *argv[MAX_ARGS + 2], *p = text;
	int argc = 1, i;

	if (!env)
		LLVMFuzzerInitialize(NULL, NULL);
	check_spans(all, size);
	argv[0] = "iowstat";
	while (argc <= MAX_ARGS && p <= text + size) {
		argv[argc++] = p;
		p += strlen(p) + 1;
	}
	argv[argc] = NULL;
	for (i = 1; i < argc; i++) {
		check_spans(argv[i], strlen(argv[i]));
		check_u32(argv[i], 1, 86400);		/* interval */
		check_u32(argv[i], 1, UINT32_MAX - 1);	/* count */
		check_u32(argv[i], 0, UINT32_MAX);
		check_cpu_sel(argv[i]);
	}
	check_env(argc, argv);
	free(all);
	free(text);
	return 0;
}
