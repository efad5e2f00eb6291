// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_replay.c - the recording parser and everything a replay feeds:
 * --replay's check of the whole file, then every view printed from it.
 *
 * Input: a recording.  replay_check_buf() checks it in memory (a block of
 * exactly its size).  When it is accepted, the same bytes go through
 * replay_open() (via a memfd, as replay reads a path) and views print
 * from it as iowstat's main() would: vmstat, then one of vmstat -w -t -S m
 * -y, -P ALL, -o json, -o csv -P ALL and -o prom, picked by a hash of the
 * input (each view allocates and clears several 250 KiB snapshots: all
 * six would halve the executions); the -- CMD summary instead when the
 * recording has one.  Output goes to /dev/null; what is checked is that
 * the two checks agree, that every run succeeds, and that UBSan and ASan
 * stay quiet in the arithmetic.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

#include "options.h"
#include "record.h"
#include "run.h"

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	memfd = memfd_create("fuzz.rec", MFD_CLOEXEC);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

static void put_file(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t n;

	if (ftruncate(memfd, 0))
		abort();
	while (off < size) {
		n = pwrite(memfd, data + off, size - off, off);
		if (n <= 0)
			abort();
		off += n;
	}
}

enum view { V_VMSTAT, V_VMSTAT_WIDE, V_CPUS, V_JSON, V_CSV, V_PROM, V_NR };

static void env_for(enum view v, struct env *env)
{
	memset(env, 0, sizeof(*env));
	env->unit = 1024;
	env->interval = 1;
	env->replay = path;
	switch (v) {
	case V_VMSTAT_WIDE:
		env->wide = true;
		env->timestamp = true;
		env->no_first = true;
		env->unit = 1000000;
		break;
	case V_CPUS:
	case V_CSV:
		if (cpu_sel_parse("ALL", &env->sel))
			abort();
		env->out = v == V_CSV ? OUT_CSV : OUT_TEXT;
		break;
	case V_JSON:
		env->out = OUT_JSON;
		break;
	case V_PROM:
		env->out = OUT_PROM;
		break;
	default:
		break;
	}
}

/* replay_view - what iowstat's run() does for --replay with @v's options */
static void replay_view(enum view v)
{
	struct cmd_result c = { 0 };
	struct source src = { 0 };
	struct iowstat_meta m;
	struct env env;
	int err;

	env_for(v, &env);
	err = replay_open(path, &src.rp, &m, &c);
	if (err)
		fuzz_fail("replay_open: %d after the check passed (view #%d)",
			  err, v);
	if (!env.have_interval && replay_count(src.rp) > 1) {
		env.have_interval = true;
		env.interval = m.interval ? m.interval : 1;
	}
	src.interval = env.interval;
	if (c.valid && env.out != OUT_PROM)
		err = run_cmd_replay(&env, &m, &c, &src);
	else
		err = run_views(&env, &m, &src);
	if (err)
		fuzz_fail("replay of an accepted recording: %d (view #%d)",
			  err, v);
	replay_close(src.rp);
}

/* pick - a hash of the input: the same input always takes the same views */
static unsigned int pick(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t i;

	for (i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_copy(data, size);
	int err;

	if (memfd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	err = replay_check_buf("fuzz.rec", buf, size);
	free(buf);
	if (err && err != -EINVAL)
		fuzz_fail("replay_check_buf: %d", err);
	if (err)
		return 0;
	put_file(data, size);
	/* vmstat's arithmetic, and one other view picked by the input */
	replay_view(V_VMSTAT);
	replay_view(1 + pick(data, size) % (V_NR - 1));
	return 0;
}
