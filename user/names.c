// SPDX-License-Identifier: GPL-2.0-only
/*
 * names.c - cgroup paths and disk names for --top, learnt from the
 * system while live (names_learn), from the recording on replay
 * (names_parse); the views only look them up, so a replay prints what
 * the live run printed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroupfs.h"
#include "names.h"
#include "util.h"

#define WALK_DEPTH	64

enum name_kind { NAME_CGROUP = 1, NAME_DEV };

/*
 * struct name - one id's name; @name NULL: looked for and not found
 * (a cgroup removed before it was seen), which is not recorded
 */
struct name {
	enum name_kind kind;
	uint64_t id;
	char *name;
	bool recorded;
};

/* an open-addressing hash on (kind, id), kept at most half full */
static struct name *tab;
static size_t tab_size, tab_used;

static size_t slot_of(enum name_kind kind, uint64_t id)
{
	uint64_t h = (id ^ ((uint64_t)kind << 61)) * 0x9e3779b97f4a7c15ull;

	return (h >> 17) & (tab_size - 1);
}

static struct name *find(enum name_kind kind, uint64_t id)
{
	size_t i;

	if (!tab_size)
		return NULL;
	for (i = slot_of(kind, id); tab[i].kind; i = (i + 1) & (tab_size - 1))
		if (tab[i].kind == kind && tab[i].id == id)
			return &tab[i];
	return NULL;
}

static int grow(void)
{
	struct name *old = tab;
	size_t i, n = tab_size, j;

	tab_size = n ? 2 * n : 256;
	tab = calloc(tab_size, sizeof(*tab));
	if (!tab) {
		tab = old;
		tab_size = n;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (!old[i].kind)
			continue;
		for (j = slot_of(old[i].kind, old[i].id); tab[j].kind;
		     j = (j + 1) & (tab_size - 1))
			;
		tab[j] = old[i];
	}
	free(old);
	return 0;
}

/* set - @id's name (a copy; NULL: not found); a later one replaces it */
static void set(enum name_kind kind, uint64_t id, const char *name,
		size_t len, bool recorded)
{
	struct name *e = find(kind, id);
	char *copy = name ? strndup(name, len) : NULL;
	size_t i;

	if (name && !copy)
		return;
	if (!e && 2 * (tab_used + 1) > tab_size && grow()) {
		free(copy);
		return;
	}
	if (!e) {
		for (i = slot_of(kind, id); tab[i].kind;
		     i = (i + 1) & (tab_size - 1))
			;
		e = &tab[i];
		e->kind = kind;
		e->id = id;
		tab_used++;
	} else {
		free(e->name);
	}
	e->name = copy;
	e->recorded = recorded || !copy;
	/* a name is printed in a column: no control character gets there */
	for (i = 0; copy && copy[i]; i++)
		if ((unsigned char)copy[i] < 0x20 || copy[i] == 0x7f)
			copy[i] = '?';
}

/* walk - every directory below @fd, by inode number, @rel its path */
static void walk(int fd, char *rel, size_t len, unsigned int depth)
{
	struct dirent *de;
	struct stat st;
	size_t n;
	DIR *d;
	int sub;

	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		n = snprintf(rel + len, PATH_MAX - len, "/%s", de->d_name);
		if (len + n >= PATH_MAX ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (!find(NAME_CGROUP, st.st_ino) ||
		    !find(NAME_CGROUP, st.st_ino)->name)
			set(NAME_CGROUP, st.st_ino, rel, len + n, false);
		if (depth >= WALK_DEPTH)
			continue;
		sub = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (sub >= 0)
			walk(sub, rel, len + n, depth + 1);
	}
	closedir(d);
}

static void walk_cgroups(void)
{
	const char *root = cgroupfs_root();
	char rel[PATH_MAX];
	struct stat st;
	int fd;

	if (!root)
		return;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!fstat(fd, &st))
		set(NAME_CGROUP, st.st_ino, "/", 1, false);
	rel[0] = '\0';
	walk(fd, rel, 0, 0);
}

static void learn_cgroup(uint64_t id, bool *walked)
{
	if (find(NAME_CGROUP, id))
		return;
	if (!*walked) {
		walk_cgroups();
		*walked = true;
	}
	if (!find(NAME_CGROUP, id))
		set(NAME_CGROUP, id, NULL, 0, false);
}

static uint64_t dev_id(uint32_t major, uint32_t minor)
{
	return (uint64_t)major << 32 | minor;
}

static void learn_dev(const struct owner_row *r)
{
	uint64_t id = dev_id(r->dev_major, r->dev_minor);
	char path[64], *buf, *p, *nl;
	size_t len;

	if (!r->has_dev || find(NAME_DEV, id))
		return;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 r->dev_major, r->dev_minor);
	if (read_whole_file(path, &buf, &len)) {
		set(NAME_DEV, id, NULL, 0, false);
		return;
	}
	p = strstr(buf, "DEVNAME=");
	if (p && (p == buf || p[-1] == '\n')) {
		p += strlen("DEVNAME=");
		nl = strchrnul(p, '\n');
		set(NAME_DEV, id, p, nl - p, false);
	} else {
		set(NAME_DEV, id, NULL, 0, false);
	}
	free(buf);
}

/**
 * names_learn() - live: find the name of every cgroup and disk in @s's
 * owner files not known yet; cgroup v2 is walked at most once.
 */
void names_learn(const struct iowstat_snapshot *s)
{
	const struct owner_table *t;
	bool walked = false;
	unsigned int k;
	size_t i;

	for (k = 0; k < IOWPROBE_OWNER_KINDS; k++) {
		if (!(s->have & HAVE_OWNERS(k)))
			continue;
		t = &s->owners[k];
		for (i = 0; i < t->n; i++) {
			learn_cgroup(t->row[i].v[IOWPROBE_OCOL_cgroup],
				     &walked);
			learn_dev(&t->row[i]);
		}
	}
}

/* names_cgroup - the cgroup's path below the cgroup root, or "-" */
const char *names_cgroup(uint64_t id)
{
	const struct name *e = find(NAME_CGROUP, id);

	return e && e->name ? e->name : "-";
}

/* names_dev - the disk's name, else "major:minor"; "-" for no disk */
const char *names_dev(const struct owner_row *r, char *buf, size_t n)
{
	const struct name *e;

	if (!r->has_dev)
		return "-";
	e = find(NAME_DEV, dev_id(r->dev_major, r->dev_minor));
	if (e && e->name)
		return e->name;
	snprintf(buf, n, "%u:%u", r->dev_major, r->dev_minor);
	return buf;
}

/**
 * names_take() - the names learnt since the last call, as the text of
 * the recording's names file: "cgroup ID PATH" and "dev MAJ:MIN NAME"
 * lines.  Return: 0 (*len 0 when there is none) or -ENOMEM.
 */
int names_take(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);
	size_t i;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < tab_size; i++) {
		if (!tab[i].kind || tab[i].recorded)
			continue;
		if (tab[i].kind == NAME_CGROUP)
			fprintf(f, "cgroup %" PRIu64 " %s\n", tab[i].id,
				tab[i].name);
		else
			fprintf(f, "dev %u:%u %s\n",
				(unsigned int)(tab[i].id >> 32),
				(unsigned int)tab[i].id, tab[i].name);
		tab[i].recorded = true;
	}
	return fclose(f) ? -ENOMEM : 0;
}

static const char *parse_line(struct span line)
{
	struct span kind, id, rest;
	struct owner_row r;
	uint64_t v;

	if (!span_next_token(&line, &kind) || !span_next_token(&line, &id))
		return "want \"cgroup ID PATH\" or \"dev MAJ:MIN NAME\"";
	if (!line.len || (*line.p != ' ' && *line.p != '\t') || line.len < 2)
		return "no name";
	rest = (struct span){ line.p + 1, line.len - 1 };
	if (span_eq(kind, "cgroup")) {
		if (parse_u64_span(id, &v))
			return "bad cgroup id";
		set(NAME_CGROUP, v, rest.p, rest.len, true);
		return NULL;
	}
	if (span_eq(kind, "dev")) {
		if (owners_parse_dev(id, &r) || !r.has_dev)
			return "bad major:minor";
		set(NAME_DEV, dev_id(r.dev_major, r.dev_minor), rest.p,
		    rest.len, true);
	}
	return NULL;	/* another kind: from a newer iowstat */
}

/**
 * names_parse() - a recording's names file: learn what it names.
 * Return: 0 or -EINVAL with @pe.
 */
int names_parse(const char *buf, size_t len, struct parse_err *pe)
{
	struct span b = { buf, len }, line;
	unsigned int n = 0;
	const char *why;

	while (span_next_line(&b, &line)) {
		n++;
		why = parse_line(line);
		if (why) {
			pe->line = n;
			pe->why = why;
			return -EINVAL;
		}
	}
	return 0;
}
