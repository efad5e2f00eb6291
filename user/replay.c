// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay.c - --replay.  A recording is line-oriented text:
 *
 *   # iowstat recording 1
 *   @meta hz 100                     (also pagesize, interval, uname parts)
 *   @sample 0 <monotonic_ns> <realtime_ns>
 *   @file /proc/stat <bytes>
 *   <exactly that many bytes of the file, then one newline>
 *   ...
 *   @end 0
 *   @cmd <exit status> <wall_ns> <user_us> <sys_us>   (-- CMD runs only)
 *
 * File contents are stored verbatim with their length, so nothing needs
 * escaping.  What iowstat adds of its own is a file too (iowstat:names,
 * and iowstat:tree in a -- CMD run's last sample), so that an older
 * iowstat, which skips the files it does not know, still reads the rest.
 * Replay reads the whole recording and checks every sample before
 * printing anything: a damaged recording gives one message with the
 * sample and line, never a wrong number.  It reads only as far as the
 * parser has checked, plus what one line or one announced file needs,
 * so a file that is not a recording is refused after its first read and
 * a damaged one before it can take more memory than its largest file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "util.h"

#define NEED_FILES	(HAVE_STAT | HAVE_VMSTAT | HAVE_MEMINFO | HAVE_CPUS)

#define RP_READ		65536		/* the first read, the buffer's size */
#define RP_LINE_MAX	4096		/* a line of iowstat's own */
/* one recorded file: the largest, a procs table of 1048576 rows, is less */
#define RP_FILE_MAX	(256u << 20)

struct replay {
	const char *name;
	int fd;				/* -1 once read to its end */
	char *buf;
	size_t len, cap;		/* bytes read into buf; its size */
	struct span cur;		/* what is left to parse */
	size_t body;			/* where the first sample begins */
	unsigned int line, body_line;
	unsigned int next, count;	/* next sample number; total */
	unsigned int step;		/* replay every step-th sample */
	uint64_t last_mono;
	struct iowstat_meta meta;
	struct cmd_result cmd;
};

static int rp_fail(struct replay *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* rp_fail - "FILE:LINE: sample N: why" on stderr; always -EINVAL */
static int rp_fail(struct replay *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "iowstat: %s:%u: sample %u: ", r->name, r->line,
		r->next);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/*
 * rp_fill - read on until @want bytes are left to parse, or to the end
 * Return: 0 or -errno (said)
 */
static int rp_fill(struct replay *r, size_t want)
{
	size_t pos = r->cur.p - r->buf;
	ssize_t n;
	char *nb;

	while (r->fd >= 0 && r->cur.len < want) {
		if (r->len == r->cap) {
			nb = realloc(r->buf, r->cap * 2);
			if (!nb) {
				err_msg("cannot read %s: %s\n", r->name,
					strerror(ENOMEM));
				return -ENOMEM;
			}
			r->buf = nb;
			r->cap *= 2;
			r->cur.p = r->buf + pos;
		}
		n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = errno;
			err_msg("cannot read %s: %s\n", r->name, strerror(n));
			return -n;
		}
		if (n == 0) {
			close(r->fd);
			r->fd = -1;
		}
		r->len += n;
		r->cur.len += n;
	}
	return 0;
}

/*
 * rp_line - the next line, read as far as its newline; no line of
 * iowstat's own is longer than RP_LINE_MAX
 * Return: 1 with @line, 0 at the end, -errno (said).
 */
static int rp_line(struct replay *r, struct span *line)
{
	const char *nl;
	size_t seen = 0;
	int err;

	for (;;) {
		nl = memchr(r->cur.p + seen, '\n', r->cur.len - seen);
		if (nl || r->fd < 0 || r->cur.len > RP_LINE_MAX)
			break;
		seen = r->cur.len;
		err = rp_fill(r, seen + 1);
		if (err)
			return err;
	}
	if ((nl ? (size_t)(nl - r->cur.p) : r->cur.len) > RP_LINE_MAX) {
		r->line++;
		return rp_fail(r, "a line longer than %u bytes", RP_LINE_MAX);
	}
	if (!span_next_line(&r->cur, line))
		return 0;
	r->line++;
	return 1;
}

/* words - split a line into tokens; returns @max + 1 if there are more */
static unsigned int words(struct span line, struct span *w, unsigned int max)
{
	struct span extra;
	unsigned int n = 0;

	while (n < max && span_next_token(&line, &w[n]))
		n++;
	if (n == max && span_next_token(&line, &extra))
		n++;
	return n;
}

static int meta_u32(struct span v, unsigned int *out)
{
	uint64_t x;

	if (parse_u64_span(v, &x) || x == 0 || x > 1u << 20)
		return -EINVAL;
	*out = x;
	return 0;
}

static void meta_str(struct span v, char *out, size_t n)
{
	snprintf(out, n, "%.*s", (int)(v.len < n ? v.len : n - 1), v.p);
}

static int parse_meta(struct replay *r, struct span line)
{
	struct iowstat_meta *m = &r->meta;
	struct span key, at;

	span_next_token(&line, &at);
	if (!span_next_token(&line, &key))
		return rp_fail(r, "@meta without a key");
	while (line.len && (*line.p == ' ' || *line.p == '\t')) {
		line.p++;
		line.len--;
	}
	if (span_eq(key, "hz"))
		return meta_u32(line, &m->hz) ? rp_fail(r, "bad hz") : 0;
	if (span_eq(key, "pagesize"))
		return meta_u32(line, &m->pagesize) ?
			rp_fail(r, "bad pagesize") : 0;
	if (span_eq(key, "interval"))
		return meta_u32(line, &m->interval) ?
			rp_fail(r, "bad interval") : 0;
	if (span_eq(key, "sysname"))
		meta_str(line, m->sysname, sizeof(m->sysname));
	else if (span_eq(key, "nodename"))
		meta_str(line, m->nodename, sizeof(m->nodename));
	else if (span_eq(key, "release"))
		meta_str(line, m->release, sizeof(m->release));
	else if (span_eq(key, "machine"))
		meta_str(line, m->machine, sizeof(m->machine));
	return 0;		/* unknown keys: from a newer iowstat */
}

/* parse_preamble - the magic line, checked at once, then the @meta lines */
static int parse_preamble(struct replay *r)
{
	static const char magic[] = RECORD_MAGIC "\n";
	struct span line;
	int err;

	err = rp_fill(r, sizeof(magic) - 1);
	if (err)
		return err;
	if (!span_starts(r->cur, magic)) {
		r->line = 1;		/* an empty file too */
		return rp_fail(r, "not an iowstat recording (expected \"%s\")",
			       RECORD_MAGIC);
	}
	rp_line(r, &line);
	for (;;) {
		err = rp_fill(r, strlen("@meta "));
		if (err)
			return err;
		if (!span_starts(r->cur, "@meta "))
			break;
		err = rp_line(r, &line);
		if (err < 0)
			return err;
		if (parse_meta(r, line))
			return -EINVAL;
	}
	if (!r->meta.hz || !r->meta.pagesize)
		return rp_fail(r, "@meta hz and @meta pagesize are required");
	r->body = r->cur.p - r->buf;
	r->body_line = r->line;
	return 0;
}

static unsigned int count_lines(const char *p, size_t len)
{
	unsigned int n = 0;
	const char *nl;

	while ((nl = memchr(p, '\n', len))) {
		n++;
		len -= nl + 1 - p;
		p = nl + 1;
	}
	return n;
}

/* file_body - the @file's bytes; they must be followed by a newline */
static int file_body(struct replay *r, struct span path, struct span len,
		     struct iowstat_snapshot *s)
{
	struct parse_err pe = { 0, NULL };
	char name[RAW_PATH_MAX];
	uint64_t n;
	int err;

	if (parse_u64_span(len, &n) || path.len >= RAW_PATH_MAX)
		return rp_fail(r, "bad @file line");
	meta_str(path, name, sizeof(name));	/* before rp_fill() moves it */
	if (n > RP_FILE_MAX)
		return rp_fail(r, "%s: %" PRIu64 " bytes announced, more than "
			       "any recorded file (%u MiB)", name, n,
			       RP_FILE_MAX >> 20);
	err = rp_fill(r, n + 1);
	if (err)
		return err;
	if (n >= r->cur.len)
		return rp_fail(r, "%s: truncated (%" PRIu64 " bytes announced, "
			       "%zu there)", name, n, r->cur.len);
	if (r->cur.p[n] != '\n')
		return rp_fail(r, "%s: more than the %" PRIu64 " bytes "
			       "announced", name, n);
	if (strcmp(name, TREE_PATH) == 0)	/* the run's, not the sample's */
		err = tree_parts_parse(r->cur.p, n, &r->cmd.tree, &pe);
	else
		err = sample_parse_file(name, r->cur.p, n, s, &pe);
	if (err && err != -ENOENT) {	/* unknown files: a newer iowstat */
		r->line += pe.line;
		return rp_fail(r, "%s line %u: %s", name, pe.line, pe.why);
	}
	r->line += count_lines(r->cur.p, n) + 1;
	r->cur.p += n + 1;
	r->cur.len -= n + 1;
	return 0;
}

/* parse_file - "@file PATH LEN"; PATH may hold blanks, LEN is last */
static int parse_file(struct replay *r, struct span line,
		      struct iowstat_snapshot *s)
{
	const char *sp = line.len > 6 ?
		memrchr(line.p + 6, ' ', line.len - 6) : NULL;

	if (!sp || sp == line.p + 6)
		return rp_fail(r, "bad @file line");
	return file_body(r, (struct span){ line.p + 6, sp - line.p - 6 },
			 (struct span){ sp + 1, line.p + line.len - sp - 1 },
			 s);
}

static const char *missing_file(unsigned int have)
{
	if (!(have & HAVE_STAT))
		return "/proc/stat";
	if (!(have & HAVE_VMSTAT))
		return "/proc/vmstat";
	if (!(have & HAVE_MEMINFO))
		return "/proc/meminfo";
	return "iowprobe/cpus";
}

/*
 * parse_cmd - "@cmd status wall_ns user_us sys_us [runq_ns]", last in the
 * file (runq_ns is absent where /proc/PID/schedstat was not readable)
 */
static int parse_cmd(struct replay *r, struct span line)
{
	struct span w[6], rest;
	unsigned int n = words(line, w, 6);
	uint64_t st;
	int err;

	if ((n != 5 && n != 6) || parse_u64_span(w[1], &st) || st > 255 ||
	    parse_u64_span(w[2], &r->cmd.wall_ns) ||
	    parse_u64_span(w[3], &r->cmd.user_us) ||
	    parse_u64_span(w[4], &r->cmd.sys_us) ||
	    (n == 6 && parse_u64_span(w[5], &r->cmd.runq_ns)))
		return rp_fail(r, "bad @cmd line");
	r->cmd.have_runq = n == 6;
	r->cmd.status = st;
	r->cmd.valid = true;
	err = rp_line(r, &rest);
	if (err > 0)
		return rp_fail(r, "text after @cmd");
	return err;
}

static int sample_open(struct replay *r, struct span line,
		       struct iowstat_snapshot *s)
{
	struct span w[4];
	uint64_t n, mono, real;

	if (words(line, w, 4) != 4 || !span_eq(w[0], "@sample") ||
	    parse_u64_span(w[1], &n) || parse_u64_span(w[2], &mono) ||
	    parse_u64_span(w[3], &real))
		return rp_fail(r, "expected \"@sample N MONO_NS REAL_NS\"");
	if (n != r->next)
		return rp_fail(r, "out of order: @sample %" PRIu64
			       " where %u was expected", n, r->next);
	if (mono < r->last_mono)
		return rp_fail(r, "monotonic time goes backwards");
	s->have = 0;
	s->mono_ns = mono;
	s->real_ns = real;
	return 0;
}

static int sample_close(struct replay *r, struct span line,
			const struct iowstat_snapshot *s)
{
	struct span w[2];
	uint64_t n;

	if (words(line, w, 2) != 2 || parse_u64_span(w[1], &n) ||
	    n != r->next)
		return rp_fail(r, "bad @end (expected \"@end %u\")", r->next);
	if ((s->have & NEED_FILES) != NEED_FILES)
		return rp_fail(r, "incomplete: no %s", missing_file(s->have));
	r->last_mono = s->mono_ns;
	r->next++;
	return 1;
}

/* read_sample - 1 when @s holds the next sample, 0 at the end, -EINVAL */
static int read_sample(struct replay *r, struct iowstat_snapshot *s)
{
	struct span line;
	int err;

	err = rp_line(r, &line);
	if (err <= 0)
		return err;
	if (span_starts(line, "@cmd "))
		return parse_cmd(r, line);
	err = sample_open(r, line, s);
	while (!err) {
		err = rp_line(r, &line);
		if (err < 0)
			return err;
		if (!err)
			return rp_fail(r, "truncated: no @end");
		if (span_starts(line, "@end"))
			return sample_close(r, line, s);
		if (span_starts(line, "@file "))
			err = parse_file(r, line, s);
		else
			err = rp_fail(r, "unexpected line \"%.*s\"",
				      (int)(line.len < 40 ? line.len : 40),
				      line.p);
	}
	return err;
}

static void rewind_body(struct replay *r)
{
	r->cur = (struct span){ r->buf + r->body, r->len - r->body };
	r->line = r->body_line;
	r->next = 0;
	r->last_mono = 0;
}

/* replay_validate - the whole recording, once, before any output */
static int replay_validate(struct replay *r)
{
	struct iowstat_snapshot *tmp = snapshot_alloc();
	int err;

	if (!tmp)
		return -ENOMEM;
	err = parse_preamble(r);
	while (!err && (err = read_sample(r, tmp)) == 1)
		err = 0;
	snapshot_free(tmp);
	if (err)
		return err;
	r->count = r->next;
	if (!r->count)
		return rp_fail(r, "no samples");
	rewind_body(r);
	return 0;
}

int replay_check_buf(const char *name, char *buf, size_t len)
{
	struct replay r = { .name = name, .fd = -1, .buf = buf, .len = len,
			    .cap = len, .cur = { buf, len } };

	return replay_validate(&r);
}

/**
 * replay_open() - read and check a recording; fill @m and @c from it.
 * Return: 0 or -errno, with a message printed.
 */
int replay_open(const char *path, struct replay **rp,
		struct iowstat_meta *m, struct cmd_result *c)
{
	struct replay *r = calloc(1, sizeof(*r));
	int err;

	*rp = NULL;
	if (!r)
		return -ENOMEM;
	r->name = path;
	r->fd = -1;
	r->step = 1;
	r->cap = RP_READ;
	r->buf = malloc(r->cap);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!r->buf || r->fd < 0) {
		err = r->buf ? -errno : -ENOMEM;
		err_msg("cannot read %s: %s\n", path, strerror(-err));
		replay_close(r);
		return err;
	}
	r->cur = (struct span){ r->buf, 0 };
	err = replay_validate(r);
	if (err) {
		replay_close(r);
		return err;
	}
	*m = r->meta;
	*c = r->cmd;
	*rp = r;
	return 0;
}

/*
 * replay_next - 1 with the next sample in @s, 0 after the last; after
 * the first, every step-th (the samples between are parsed all the same:
 * they may carry the names of cgroups and disks)
 */
int replay_next(struct replay *r, struct iowstat_snapshot *s)
{
	unsigned int i, n = r->next ? r->step : 1;

	for (i = 0; i < n; i++)
		if (read_sample(r, s) != 1)
			return 0;
	return 1;
}

/**
 * replay_resample() - replay every @interval s a recording taken every
 * @m->interval s: its first sample, then every Nth, N = @interval / the
 * recording's.  A -- CMD recording sums the whole run: no interval.
 * Return: 0, or -EINVAL (said) when N is not a whole number.
 */
int replay_resample(struct replay *r, unsigned int interval)
{
	unsigned int rec = r->meta.interval ? r->meta.interval : 1;

	if (r->cmd.valid) {
		err_msg("%s is a -- CMD recording, whose summary covers the "
			"whole run: give no interval\n", r->name);
		return -EINVAL;
	}
	if (interval % rec) {
		err_msg("%s was recorded every %u s: give an interval that is "
			"a multiple of %u\n", r->name, rec, rec);
		return -EINVAL;
	}
	r->step = interval / rec;
	return 0;
}

unsigned int replay_count(const struct replay *r)
{
	return r->count;
}

void replay_close(struct replay *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r);
}
