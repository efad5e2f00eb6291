/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_UTIL_H
#define IOWSTAT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Exit codes: 0 ok, 1 runtime error, 2 usage or environment error. */
#define EXIT_USAGE	2

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* STRINGIFY(x) - x as a string literal, after x's own expansion */
#define STRINGIFY_(x)	#x
#define STRINGIFY(x)	STRINGIFY_(x)

/* A read-only window on a buffer that need not be NUL-terminated. */
struct span {
	const char *p;
	size_t len;
};

void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* the time on @clk in ns: the one reader of a clock in iowstat */
uint64_t clock_ns(clockid_t clk);

/* checked output: every write error said once, "write error: why" */
int out_stdout(void);
FILE *out_open(int fd, const char *name);
int out_flush(FILE *f);
int out_whole(FILE *f, const char *buf, size_t len);
int out_close(FILE *f);

int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int parse_u64_span(struct span s, uint64_t *out);
int parse_s64_span(struct span s, int64_t *out);

bool span_next_line(struct span *buf, struct span *line);
bool span_next_token(struct span *line, struct span *tok);
bool span_eq(struct span s, const char *str);
bool span_starts(struct span s, const char *prefix);

int read_whole_file(const char *path, char **buf, size_t *len);

/* a file's column that iowstat does not know: read, checked, skipped */
#define COL_NONE	(-1)
#define COLS_MAX	64

/* struct col_map - the columns of a table, named by its header, as ours */
struct col_map {
	int map[COLS_MAX];	/* the file's column i is our map[i] */
	unsigned int n;		/* the file's columns */
	uint64_t found;		/* ours it has, a bit each */
};

const char *col_map_parse(struct span *line, const char *const *names,
			  unsigned int nr, int last, struct col_map *c);

#endif /* IOWSTAT_UTIL_H */
