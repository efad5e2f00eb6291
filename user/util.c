// SPDX-License-Identifier: GPL-2.0-only
/*
 * util.c - messages, checked output, strict number parsing and buffer
 * scanning.
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
#include <sys/stat.h>
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

uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Checked output: stdout and the recording are streams whose bytes leave
 * through out_write(), which keeps the errno of the first write that
 * failed.  stdio itself drops a buffer it could not write and keeps only
 * ferror(), so by the time anyone asked, the reason would be gone.
 */
#define OUT_STREAMS	2	/* stdout and the recording */

struct out_stream {
	FILE *f;		/* NULL: a free slot */
	const char *name;	/* in the message; NULL for stdout */
	int fd;
	int err;		/* errno of the first failed write or close */
	bool told;		/* the message was printed */
};

static struct out_stream out_streams[OUT_STREAMS];

static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
	struct out_stream *o = cookie;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(o->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!o->err)
				o->err = n < 0 ? errno : EIO;
			return -1;
		}
		done += n;
	}
	return done;
}

/*
 * out_fd_close - close(2) reports some file systems' write errors (NFS);
 * EBADF: stdout was closed (>&-), which is no error if nothing was written
 */
static int out_fd_close(void *cookie)
{
	struct out_stream *o = cookie;

	if (close(o->fd) && errno != EINTR && errno != EBADF && !o->err)
		o->err = errno;
	return o->err ? -1 : 0;
}

/* out_find - the stream out_open() made for @f, NULL if none */
static struct out_stream *out_find(FILE *f)
{
	unsigned int i;

	for (i = 0; i < OUT_STREAMS; i++)
		if (f && out_streams[i].f == f)
			return &out_streams[i];
	return NULL;
}

/**
 * out_open() - a stream on @fd whose write errors out_flush() reports,
 * naming @name (NULL: stdout, as vmstat says it); it owns @fd
 * Return: the stream, or NULL with errno set.
 */
FILE *out_open(int fd, const char *name)
{
	static const cookie_io_functions_t io = {
		.write = out_write, .close = out_fd_close,
	};
	struct out_stream *o = NULL;
	unsigned int i;

	for (i = 0; i < OUT_STREAMS && !o; i++)
		if (!out_streams[i].f)
			o = &out_streams[i];
	if (!o) {
		errno = EMFILE;
		return NULL;
	}
	*o = (struct out_stream){ .name = name, .fd = fd };
	o->f = fopencookie(o, "w", io);
	return o->f;
}

/* out_said - @o's error, with its one message printed the first time */
static int out_said(struct out_stream *o)
{
	if (o->err && !o->told) {
		o->told = true;
		if (o->name)
			err_msg("write error: %s: %s\n", o->name,
				strerror(o->err));
		else
			err_msg("write error: %s\n", strerror(o->err));
	}
	return -o->err;
}

/**
 * out_flush() - flush @f; after a failed write, say so once, as vmstat
 * does ("write error: No space left on device").  A stream out_open()
 * did not make (a test's) gets the errno fflush() left.
 * Return: 0, or -errno of the first write that failed.
 */
int out_flush(FILE *f)
{
	struct out_stream *o = out_find(f);
	int err = fflush(f) ? errno : 0;

	if (!o) {
		if (!err && ferror(f))
			err = EIO;
		if (err)
			err_msg("write error: %s\n", strerror(err));
		return -err;
	}
	if ((err || ferror(f)) && !o->err)
		o->err = err ? err : EIO;
	return out_said(o);
}

/**
 * out_close() - flush and close @f (NULL: nothing to do), saying a write
 * error once.  Return: 0 or -errno.
 */
int out_close(FILE *f)
{
	struct out_stream *o = out_find(f);
	int err;

	if (!f)
		return 0;
	err = out_flush(f);
	if (fclose(f) && !err && o && !o->err)
		o->err = EIO;	/* fclose() failed but no write did */
	if (o) {
		err = out_said(o);
		o->f = NULL;
	}
	return err;
}

/* out_mark - where the next write to @fd lands in a regular file, or -1 */
static off_t out_mark(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	struct stat st;

	if (fl < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -1;
	return fl & O_APPEND ? st.st_size : lseek(fd, 0, SEEK_CUR);
}

static int out_cut(int fd, off_t mark)
{
	return ftruncate(fd, mark) ? -errno : 0;
}

/**
 * out_whole() - @len bytes of @buf to @f at once; a regular file that
 * cannot take all of them is cut back to where they began, so that no
 * reader finds half of them (half a Prometheus exposition reads as a
 * whole one with series missing).
 * Return: 0, or -errno (said once).
 */
int out_whole(FILE *f, const char *buf, size_t len)
{
	struct out_stream *o = out_find(f);
	off_t mark;
	int err;

	err = out_flush(f);
	if (err)
		return err;
	mark = o ? out_mark(o->fd) : -1;
	fwrite(buf, 1, len, f);
	err = out_flush(f);
	if (err && mark >= 0)
		out_cut(o->fd, mark);
	return err;
}

/* out_stdout_close - at exit: a write error not yet caught exits 1 */
static void out_stdout_close(void)
{
	if (out_close(stdout))
		_exit(1);
}

/**
 * out_stdout() - stdout through out_open(), line-buffered, closed and
 * checked at exit (as coreutils' close_stdout); call first in main()
 * Return: 0 or -errno (message printed).
 */
int out_stdout(void)
{
	FILE *f = out_open(STDOUT_FILENO, NULL);
	int err;

	if (!f || setvbuf(f, NULL, _IOLBF, 0) || atexit(out_stdout_close)) {
		err = errno;
		err_msg("cannot set up standard output: %s\n", strerror(err));
		return -err;
	}
	stdout = f;
	return 0;
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
