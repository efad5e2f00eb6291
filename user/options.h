/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_OPTIONS_H
#define IOWSTAT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "view_cpus.h"
#include "why.h"

#define IOWSTAT_VERSION	"0.1.0"

enum out_fmt { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_PROM };

/* --bpf alone reads; --bpf attach and --bpf detach manage the pinned state */
enum bpf_cmd { BPF_READ, BPF_ATTACH, BPF_DETACH };

/* struct env - what the command line asked for */
struct env {
	bool one_header, timestamp, wide, no_first, bpf;
	enum bpf_cmd bpf_cmd;
	unsigned long unit;		/* -S: bytes per unit */
	struct cpu_sel sel;		/* -P */
	enum out_fmt out;
	bool have_interval, have_count;
	unsigned int interval;
	uint32_t count;
	const char *record, *replay;
	char **cmd;			/* after "--", NULL-terminated */
	bool cmd_given;			/* "--" seen, maybe nothing after */
	bool top;			/* -T: who waits, per interval */
	bool cgroup;			/* --cgroup: per cgroup, not process */
	unsigned int top_n;		/* -T=N: rows per interval */
	int vmstat_opt;			/* the first of -n -t -w -y -S given */
	unsigned int nopts;		/* options given, but --bpf */
	enum why_when why;		/* --why: the words after a line */
};

/* Return: 0 to run, 1 when --help/--version printed, -EINVAL on misuse. */
int options_parse(int argc, char **argv, struct env *env);
/* options_check.c: Return 0 or -EINVAL (said why) */
int options_check(struct env *env);
/* a -- CMD run, or a recording of one */
int options_check_cmd(const struct env *env);

#endif /* IOWSTAT_OPTIONS_H */
