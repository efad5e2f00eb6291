/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fuzz.h - what the libFuzzer targets share: exact-size copies (so that
 * ASan sees a read one byte past the input), quiet stdio, and a loud
 * failure for a broken invariant.
 */
#ifndef IOWSTAT_FUZZ_H
#define IOWSTAT_FUZZ_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* fuzz_copy - @data in a heap block of exactly @size bytes (or 1 if 0) */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
	char *p = malloc(size ? size : 1);

	if (!p)
		abort();
	memcpy(p, data, size);
	return p;
}

/* fuzz_cstr - @data NUL-terminated, for the APIs that take C strings */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *p = malloc(size + 1);

	if (!p)
		abort();
	memcpy(p, data, size);
	p[size] = '\0';
	return p;
}

/*
 * fuzz_quiet - iowstat's messages and views go to /dev/null unless
 * FUZZ_VERBOSE is set.  Only the stdio streams move: fd 2 stays, so
 * sanitizer reports and fuzz_fail() still reach the terminal.
 */
static inline void fuzz_quiet(void)
{
	FILE *null;

	if (getenv("FUZZ_VERBOSE"))
		return;
	null = fopen("/dev/null", "w");
	if (!null)
		abort();
	stdout = null;
	stderr = null;
}

/* fuzz_fail - a broken invariant: say which on fd 2, then abort */
__attribute__((format(printf, 1, 2), noreturn))
static inline void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	dprintf(2, "fuzz: invariant broken: ");
	va_start(ap, fmt);
	vdprintf(2, fmt, ap);
	va_end(ap);
	dprintf(2, "\n");
	abort();
}

#endif /* IOWSTAT_FUZZ_H */
