// SPDX-License-Identifier: GPL-2.0-only
/*
 * why.c - --why: the wa of an interval in words.  It splits the exact
 * iowait into the part that waited on a disk and the part that did not,
 * names the disks and the processes, and says where the kernel's own
 * figures are wrong: misbooked stretches, and /proc/stat counting more
 * time than the wall.  The arithmetic and the one definition of "the
 * disk's share" are doc/design.md's "The disk's share of wa".
 *
 * The words go to stderr as "# " lines, so that stdout keeps vmstat's
 * and mpstat's layout for the scripts that read it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"
#include "util.h"
#include "why.h"

/* pts - @num of @den in points, rounded as vmstat rounds; not clamped */
static long pts(uint64_t num, uint64_t den)
{
	unsigned __int128 n = num;

	return den ? (long)((n * 100 + den / 2) / den) : 0;
}

/* busy_ticks - what /proc/stat booked as neither idle nor iowait */
static uint64_t busy_ticks(const uint64_t *t)
{
	return t[T_USER] + t[T_NICE] + t[T_SYSTEM] + t[T_IRQ] +
	       t[T_SOFTIRQ] + t[T_STEAL];
}

/**
 * why_over_count() - the CPU whose kernel figures grew most past its wall
 * time: busy (ticks) + idle + iowait against busy_ns + idle_ns.  Busy
 * ticks are sampled, so two ticks and 1% of the wall are noise, not a
 * finding.  An interval only: the first line's ticks count since boot.
 */
void why_over_count(const struct iowstat_delta *d, unsigned int hz,
		    struct why *w)
{
	uint64_t tick_ns = 1000000000ull / (hz ? hz : 100);
	uint64_t wall, kern, worst = 0;
	unsigned int i;

	w->over_cpu = -1;
	w->over_worst = false;
	if (!d->wall_ns)
		return;
	for (i = 0; i < d->nr_cpus; i++) {
		wall = delta_total(d->cpu[i]);
		kern = d->cpu[i][IOWPROBE_COL_k_idle_ns] +
		       d->cpu[i][IOWPROBE_COL_k_iowait_ns] +
		       busy_ticks(d->tick[i]) * tick_ns;
		if (!wall || kern <= wall + 2 * tick_ns + wall / 100 ||
		    kern - wall <= worst)
			continue;
		worst = kern - wall;
		w->over_cpu = i;
		w->over_pct = pts(kern, wall);
	}
}

/* wall_pts - @us of PSI stall in points of @wall_ns, at most 100 */
static long wall_pts(uint64_t us, uint64_t wall_ns)
{
	long p = pts(us * 1000, wall_ns);

	return p < 100 ? p : 100;	/* two clocks read apart */
}

/*
 * psi - /proc/pressure/io over the interval, and the part of "some" with
 * a request of the stalled task's own in flight, where it can be told.
 * PSI is the tasks' view: "some" is the time at least one task stalled,
 * the union of their waits.  The sleepers' waits on their own requests
 * and their other waits, summed over the tasks, bound each part of the
 * union from above, so the disk part lies between "some" less the other
 * waits and the disk waits.  Said when that range is 2 points or less:
 * one kind of wait alone, as in the cases the issue trackers report.
 */
static void psi(const struct iowstat_delta *d, const struct top_view *tv,
		struct why *w)
{
	double disk = 0, other = 0, lo, hi;
	size_t i;

	w->psi_some = -1;
	w->psi_full = -1;
	w->psi_disk = -1;
	if (!d->have_psi || !d->wall_ns)
		return;
	w->psi_some = wall_pts(d->psi_some_us, d->wall_ns);
	w->psi_full = wall_pts(d->psi_full_us, d->wall_ns);
	for (i = 0; tv && i < tv->n; i++) {
		disk += tv->rows[i].wait * tv->rows[i].blk / 100;
		other += tv->rows[i].wait * (100 - tv->rows[i].blk) / 100;
	}
	lo = w->psi_some - other > 0 ? w->psi_some - other : 0;
	hi = disk < w->psi_some ? disk : w->psi_some;
	if (tv && tv->n && lo <= hi && hi - lo <= 2)
		w->psi_disk = (long)((lo + hi) / 2 + 0.5);
}

/**
 * why_compute() - take @d's wa apart; @tv (NULL: none) holds the
 * processes' rows of the same interval, every one that waited, most wa
 * first.  @hz is /proc/stat's tick rate.
 */
void why_compute(const struct iowstat_delta *d, const struct top_view *tv,
		 unsigned int hz, struct why *w)
{
	uint64_t tot = delta_total(d->all);

	memset(w, 0, sizeof(*w));
	w->wa = pts(d->all[IOWPROBE_COL_iowait_ns], tot);
	w->disk = pts(d->all[IOWPROBE_COL_iowait_blk_ns], tot);
	if (w->disk > w->wa)
		w->disk = w->wa;
	w->nodisk = w->wa - w->disk;	/* the printed parts add up */
	w->disk_bound = d->disk_bound;
	w->kwa = pts(d->all[IOWPROBE_COL_k_iowait_ns], tot);
	why_over_count(d, hz, w);
	psi(d, tv, w);
	if (tv) {
		w->who = tv->rows;
		w->nwho = tv->n;
	}
}

/*
 * why_over_worst() - a run's over-count is its worst interval's, when its
 * sum hides it: the kernel's excess in some intervals, its shortfall in
 * others (tick-sampled busy time) add up to less than the noise
 */
void why_over_worst(struct why *w, const struct why *interval)
{
	if (interval->over_cpu < 0 ||
	    (w->over_cpu >= 0 && w->over_pct >= interval->over_pct))
		return;
	w->over_cpu = interval->over_cpu;
	w->over_pct = interval->over_pct;
	w->over_worst = true;
}

/* why_wanted - whether the words are printed for @w */
bool why_wanted(const struct why *w, enum why_when when)
{
	if (when != WHY_AUTO)
		return when == WHY_ALWAYS;
	return w->wa >= WHY_AUTO_POINTS || w->kwa >= WHY_AUTO_POINTS ||
	       labs(w->kwa - w->wa) >= WHY_AUTO_POINTS || w->over_cpu >= 0;
}

/* on_disk - a process that waited mostly with a request of its own out */
static bool on_disk(const struct top_row *r)
{
	return r->blk >= 50.0;
}

/*
 * named - a process as "comm[pid] share N in KIND": its 1/N part of wa,
 * and where most of its waiting was over the same time (--top's
 * WAITS-IN, doc/design.md#where-each-sleeper-waits)
 */
static void named(FILE *f, const struct top_row *r)
{
	char comm[OWNER_COMM_MAX];
	size_t i;

	for (i = 0; r->row->comm[i] && i + 1 < sizeof(comm); i++)
		comm[i] = (unsigned char)r->row->comm[i] < 0x20 ||
			  r->row->comm[i] == 0x7f ? '?' : r->row->comm[i];
	comm[i] = '\0';
	fprintf(f, "%s[%llu] share %.0f", comm, (unsigned long long)r->key,
		r->wa);
	if (r->waits_in >= 0)
		fprintf(f, " in %s", owner_wait_kind_name(r->waits_in));
}

/* devices - the disks the disk line's processes waited on, each once */
static void devices(FILE *f, const struct why *w)
{
	const char *seen[WHY_NAMED];
	char buf[WHY_NAMED][32];
	unsigned int n = 0, k;
	const char *dev;
	size_t i;

	for (i = 0; i < w->nwho && n < WHY_NAMED; i++) {
		if (!on_disk(&w->who[i]) || !w->who[i].row->has_dev)
			continue;
		dev = names_dev(w->who[i].row, buf[n], sizeof(buf[n]));
		for (k = 0; k < n && strcmp(seen[k], dev); k++)
			;
		if (k == n)
			seen[n++] = dev;
	}
	for (k = 0; k < n; k++)
		fprintf(f, "%s%s", k ? ", " : " ", seen[k]);
	if (!n)
		fputs(" no disk named", f);
}

/* shown - a process of one side with a share that prints as 1 or more */
static bool shown(const struct top_row *r, bool disk)
{
	return on_disk(r) == disk && r->wa >= 0.5;
}

/*
 * who_line - @sep and the processes of one side, most wa first, if any
 * shows; Return: the shares of all of that side's processes
 */
static double who_line(FILE *f, const struct why *w, bool disk,
		       const char *sep)
{
	unsigned int n = 0;
	double sum = 0;
	size_t i;

	for (i = 0; i < w->nwho; i++) {
		if (on_disk(&w->who[i]) == disk)
			sum += w->who[i].wa;
		if (!shown(&w->who[i], disk) || n == WHY_NAMED)
			continue;
		fputs(n ? ", " : sep, f);
		named(f, &w->who[i]);
		n++;
	}
	return sum;
}

/* any_on_disk - a process with a share that waited on its requests */
static bool any_on_disk(const struct why *w)
{
	size_t i;

	for (i = 0; i < w->nwho; i++)
		if (shown(&w->who[i], true))
			return true;
	return false;
}

/* disk_line - the disk side: its disks, then its processes' shares */
static void disk_line(FILE *f, const struct why *w, double *shares)
{
	fprintf(f, "#   disk %ld%s (a request of the CPU in flight)",
		w->disk, w->disk_bound ? " at most" : "");
	if (w->nwho) {
		fputc(':', f);
		devices(f, w);
		*shares = who_line(f, w, true, "; ");
	}
	fputc('\n', f);
}

/* nodisk_line - the no-disk side: its processes' shares */
static void nodisk_line(FILE *f, const struct why *w, double *shares)
{
	fprintf(f, "#   no disk %ld (no request of the CPU in flight)",
		w->nodisk);
	*shares = who_line(f, w, false, ": ");
	fputc('\n', f);
}

/*
 * kernel_lines - the kernel's own error: a wa that the exact figure does
 * not bear out (stretches booked whole at one instant), and /proc/stat
 * counting more time than there was, which vmstat's arithmetic hides
 */
static void kernel_lines(FILE *f, const struct why *w)
{
	if (labs(w->kwa - w->wa) >= 2)
		fprintf(f, "#   kernel: wa %ld, %ld %s the exact iowait: idle "
			"stretches misbooked\n", w->kwa, labs(w->kwa - w->wa),
			w->kwa > w->wa ? "above" : "below");
	if (w->over_cpu >= 0)
		fprintf(f, "#   kernel: cpu%d's busy+idle+iowait in /proc/stat "
			"grew %ld%% of the wall time%s: it counted time twice\n",
			w->over_cpu, w->over_pct,
			w->over_worst ? " in an interval" : "");
}

/* apart - the processes' shares and the per-CPU figure differ visibly */
static bool apart(double shares, long cpu_pts)
{
	return shares - cpu_pts >= 2 || cpu_pts - shares >= 2;
}

/**
 * why_print() - the words for @w, as "# " lines: the sum, the disk side,
 * the no-disk side, where the per-CPU split and the processes' shares
 * part, then the kernel's own error.
 */
void why_print(FILE *f, const struct why *w)
{
	double dsh = 0, nsh = 0;

	fprintf(f, "# wa %ld = disk %ld + no disk %ld; kernel %ld", w->wa,
		w->disk, w->nodisk, w->kwa);
	if (w->psi_some >= 0)
		fprintf(f, "; psi io some %ld full %ld", w->psi_some,
			w->psi_full);
	fputc('\n', f);
	if (w->disk || any_on_disk(w))
		disk_line(f, w, &dsh);
	if (w->nodisk)
		nodisk_line(f, w, &nsh);
	if (w->nwho && (apart(dsh, w->disk) ||
			(w->nodisk && apart(nsh, w->nodisk))))
		fputs("#   disk and no disk are per CPU; a share is one "
		      "process's: 1/N of its CPU's iowait while N waited\n", f);
	if (w->psi_disk >= 0)
		fprintf(f, "#   psi io some %ld = disk %ld + no disk %ld, by "
			"the stalled tasks' own requests\n", w->psi_some,
			w->psi_disk, w->psi_some - w->psi_disk);
	kernel_lines(f, w);
}

/* why_parse_when - --why's argument; none means always */
int why_parse_when(const char *arg, enum why_when *when)
{
	static const char *const word[] = { "auto", "always", "never" };
	unsigned int i;

	if (!arg) {
		*when = WHY_ALWAYS;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(word); i++) {
		if (!strcmp(arg, word[i])) {
			*when = i;
			return 0;
		}
	}
	err_msg("--why requires auto, always or never, not \"%s\"\n", arg);
	return -EINVAL;
}
