// SPDX-License-Identifier: GPL-2.0-only
/*
 * regress.c - runs a fuzz target without libFuzzer, on files: the seed
 * corpus and the findings kept as fixtures.  Linked with one target's
 * LLVMFuzzerTestOneInput() and built with the ordinary compiler, with
 * or without sanitizers, so every host-tests run replays every finding.
 *
 * usage: <target>-regress [FILE|DIR]...
 * Without arguments: the directories compiled in as FUZZ_DIRS (a colon-
 * separated list; a missing one is skipped).  Prints KTAP, one test per
 * file.  A finding aborts (the sanitizer or the target's check says why);
 * run-host-tests counts a binary without a Totals line as failed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef FUZZ_DIRS
#define FUZZ_DIRS ""
#endif

struct files {
	char **v;
	size_t n, cap;
};

static void add(struct files *f, const char *path)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->v = realloc(f->v, f->cap * sizeof(*f->v));
		if (!f->v)
			abort();
	}
	f->v[f->n] = strdup(path);
	if (!f->v[f->n])
		abort();
	f->n++;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* collect - a file, or the regular files directly in a directory */
static void collect(struct files *f, const char *path)
{
	char sub[4096];
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		add(f, path);
		return;
	}
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (!stat(sub, &st) && S_ISREG(st.st_mode))
			add(f, sub);
	}
	closedir(d);
}

/* slurp - a file in a block of exactly its size */
static uint8_t *slurp(const char *path, size_t *len)
{
	uint8_t *buf = NULL, *nb;
	size_t cap = 0, n = 0, r;
	FILE *fp = fopen(path, "rb");

	if (!fp)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			nb = realloc(buf, cap);
			if (!nb)
				abort();
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
	} while (r);
	fclose(fp);
	nb = malloc(n ? n : 1);
	if (!nb)
		abort();
	memcpy(nb, buf, n);
	free(buf);
	*len = n;
	return nb;
}

int main(int argc, char **argv)
{
	struct files f = { NULL, 0, 0 };
	char *dirs, *tok, *save = NULL;
	unsigned int pass = 0, fail = 0;
	uint8_t *data;
	size_t i, len;
	FILE *out;
	int a;

	for (a = 1; a < argc; a++)
		collect(&f, argv[a]);
	if (argc == 1) {
		dirs = strdup(FUZZ_DIRS);
		for (tok = strtok_r(dirs, ":", &save); tok;
		     tok = strtok_r(NULL, ":", &save))
			collect(&f, tok);
		free(dirs);
	}
	qsort(f.v, f.n, sizeof(*f.v), cmp);
	/* KTAP goes to a stream of its own: the target quiets stdout */
	out = fdopen(dup(1), "w");
	if (!out)
		return 1;
	setvbuf(out, NULL, _IOLBF, 0);
	fprintf(out, "TAP version 13\n1..%zu\n", f.n);
	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 0; i < f.n; i++) {
		data = slurp(f.v[i], &len);
		if (!data) {
			fprintf(out, "# %s: %s\nnot ok %zu %s\n", f.v[i],
				strerror(errno), i + 1, f.v[i]);
			fail++;
			continue;
		}
		fprintf(out, "# %s (%zu bytes)\n", f.v[i], len);
		LLVMFuzzerTestOneInput(data, len);
		free(data);
		fprintf(out, "ok %zu %s\n", i + 1, f.v[i]);
		pass++;
	}
	fprintf(out, "# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:0 "
		"error:0\n", pass, fail);
	for (i = 0; i < f.n; i++)
		free(f.v[i]);
	free(f.v);
	return fail ? 1 : 0;
}
