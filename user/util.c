// SPDX-License-Identifier: GPL-2.0-only
/*
 * util.c - messages, strict number parsing and buffer scanning.
 *
 * The parsers work on (pointer, length) spans and never read past the
 * length, so fuzz targets can feed them arbitrary bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("iowstat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* parse_u32 - decimal string to u32 in [min, max]; return 0 or -EINVAL */
int parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!s || parse_u64_span((struct span){ s, strlen(s) }, &v))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* parse_u64_span - the whole span must be decimal digits, no overflow */
int parse_u64_span(struct span s, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (s.len == 0 || s.len > 20)
		return -EINVAL;
	for (i = 0; i < s.len; i++) {
		unsigned int d = (unsigned char)s.p[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* parse_s64_span - optional '-' then digits, within int64_t */
int parse_s64_span(struct span s, int64_t *out)
{
	bool neg = s.len && s.p[0] == '-';
	uint64_t v;

	if (neg) {
		s.p++;
		s.len--;
	}
	if (parse_u64_span(s, &v))
		return -EINVAL;
	if (v > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* span_next_line - split off the next line (without '\n'); false at end */
bool span_next_line(struct span *buf, struct span *line)
{
	const char *nl;

	if (buf->len == 0)
		return false;
	nl = memchr(buf->p, '\n', buf->len);
	line->p = buf->p;
	line->len = nl ? (size_t)(nl - buf->p) : buf->len;
	buf->p += line->len + !!nl;
	buf->len -= line->len + !!nl;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* span_next_token - next blank-separated token of a line; false at end */
bool span_next_token(struct span *line, struct span *tok)
{
	while (line->len && is_blank(*line->p)) {
		line->p++;
		line->len--;
	}
	if (line->len == 0)
		return false;
	tok->p = line->p;
	while (line->len && !is_blank(*line->p)) {
		line->p++;
		line->len--;
	}
	tok->len = line->p - tok->p;
	return true;
}

bool span_eq(struct span s, const char *str)
{
	return s.len == strlen(str) && memcmp(s.p, str, s.len) == 0;
}

bool span_starts(struct span s, const char *prefix)
{
	size_t n = strlen(prefix);

	return s.len >= n && memcmp(s.p, prefix, n) == 0;
}

/*
 * col_map_parse - map the names of header @line's columns onto ours,
 * @names (@nr of them, at most 64), so that a reader finds each column by
 * its name and skips those a later module adds; up to our column @last
 * (COL_NONE: to the end), and @line is left after it
 * Return: NULL, or what is wrong with the header.
 */
const char *col_map_parse(struct span *line, const char *const *names,
			  unsigned int nr, int last, struct col_map *c)
{
	struct span tok;
	unsigned int i;
	int col = COL_NONE;

	c->n = 0;
	c->found = 0;
	while ((last == COL_NONE || col != last) &&
	       span_next_token(line, &tok)) {
		if (c->n == COLS_MAX)
			return "too many columns";
		col = COL_NONE;
		for (i = 0; i < nr && col == COL_NONE; i++)
			if (span_eq(tok, names[i]))
				col = i;
		if (col != COL_NONE) {
			if (c->found & (1ull << col))
				return "duplicate column";
			c->found |= 1ull << col;
		}
		c->map[c->n++] = col;
	}
	return NULL;
}

/*
 * read_whole_file - read a file into a NUL-terminated heap buffer.
 * procfs and debugfs files report size 0, so read until EOF.
 * Return: 0 or -errno; *buf is NULL on error.
 */
int read_whole_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *b = malloc(cap), *nb;
	ssize_t r;
	int fd, err = 0;

	*buf = NULL;
	if (!b)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out_free;
	}
	for (;;) {
		if (n + 1 >= cap) {
			nb = realloc(b, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			err = -errno;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (err)
		goto out_free;
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
out_free:
	free(b);
	return err;
}
