// SPDX-License-Identifier: GPL-2.0-only
/*
 * sleepers - many processes asleep in iowait at once: PROCS processes,
 * spread round-robin over the CGROUPs given, each in synchronous 4 KiB
 * O_DIRECT reads of DEV for MS milliseconds; scripts/bench runs it on a
 * null_blk disk that completes each request after a delay, so that most
 * of them sleep in iowait at any instant
 *
 * usage: sleepers [-W MS] [-E SRC=OUT] DEV PROCS MS [CGROUP...]
 *   -W MS   a warm-up: the window opens MS after every process has
 *           completed its first read, and reads completed before it are
 *           not counted.  All start at once: each first runs (its first
 *           faults), then none completes a read before the disk's delay;
 *           at 10,000 processes that start is most of a 500 ms window and
 *           would count as slowness at 10,000 and not at 100
 *   -E SRC=OUT
 *           copy file SRC to OUT.open as the window opens and to
 *           OUT.close as it closes: iowprobe's status, whose tracepoint
 *           hits in the window are then the reads' own, without the
 *           forks, the warm-up and the exits around it
 *
 * Every process is forked, has joined its cgroup and opened DEV before the
 * clock starts; then all start at once and count the reads they complete
 * until the window ends.  Prints one line:
 *   procs P cgroups C reads R ns_per_read N asleep_avg A blocked_max B
 *   blocked_avg B busy_pct U mem_avail_kb M inflight_avg I
 * ns_per_read: the window over the reads, the inverse of the throughput.
 * asleep_avg: how many slept at once, on average from the start (the
 * warm-up included) to the window's end: the
 * time each process neither ran nor waited to run (schedstat), summed,
 * over the window; they sleep in nothing but the reads.  A little high:
 * the last read's sleep past the window counts (dividing each by its own
 * span instead is worse: after the window, the exits crowd the CPUs).  blocked_max and
 * blocked_avg: the kernel's own count of tasks asleep in iowait
 * (procs_blocked in /proc/stat), sampled SAMPLES times.  inflight_avg: the
 * disk's own count of its requests in flight (its sysfs inflight), sampled
 * with procs_blocked: each process sleeps while its read is in the disk, so
 * this is the count of them asleep in the window.  It is kept beside
 * procs_blocked because since 6.12 nr_iowait misses a sleeper whose CPU
 * dequeues it late (delayed dequeue) or not at all before its wakeup; the
 * disk's count does not depend on the scheduler.  busy_pct: the
 * share of CPU time neither idle nor iowait over the window.  mem_avail_kb:
 * MemAvailable of /proc/meminfo once every process is ready, the least
 * the run leaves (scripts/bench sizes the box's memory by it).
 * Exit: 0 ok, 1 failure, 2 usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BS		4096
#define MAX_PROCS	100000
#define SAMPLES		20
#define WARMUP_MAX	(60 * 1000000000LL)	/* -W: ns for every first read */
#define USAGE \
	"usage: sleepers [-W MS] [-E SRC=OUT] DEV PROCS MS [CGROUP...]\n"

/* shared between the parent and its children */
struct shared {
	long long start;	/* CLOCK_MONOTONIC ns: all started */
	long long from;		/* ns: count the reads completed from here */
	long long deadline;	/* ns: stop counting */
	long first;		/* the processes that completed a read */
	struct {
		long reads;	/* -1: it failed */
		long long asleep;	/* ns neither running nor runnable */
	} child[];
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* sched_ns() - ns this process ran plus ns it waited to run (schedstat) */
static long long sched_ns(void)
{
	long long run, delay, ns = -1;
	FILE *f = fopen("/proc/self/schedstat", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld %lld", &run, &delay) == 2)
		ns = run + delay;
	fclose(f);
	return ns;
}

static void sleep_ns(long long ns)
{
	struct timespec ts = { ns / 1000000000LL, ns % 1000000000LL };

	if (ns <= 0)
		return;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * proc_stat() - from /proc/stat: procs_blocked, and the busy and total
 * ticks of all CPUs (busy: neither idle nor iowait); -1 on error
 */
static long proc_stat(unsigned long long *busy, unsigned long long *total)
{
	static char buf[1 << 16];
	unsigned long long v[8];
	long blocked = -1;
	ssize_t n;
	char *p;
	int fd, i;

	fd = open("/proc/stat", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (busy && total) {
		/* the first 8: guest and guest_nice are in user and nice */
		if (sscanf(buf, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) != 8)
			return -1;
		*total = 0;
		for (i = 0; i < 8; i++)
			*total += v[i];
		*busy = *total - v[3] - v[4];
	}
	p = strstr(buf, "\nprocs_blocked ");
	if (p)
		blocked = strtol(p + 15, NULL, 10);
	return blocked;
}

/*
 * inflight_path() - into @path, the sysfs inflight file of block device
 * @dev (a disk or a partition: /sys/dev/block links both); -1 when @dev is
 * not a block device
 */
static int inflight_path(const char *dev, char *path, size_t size)
{
	struct stat st;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode))
		return -1;
	snprintf(path, size, "/sys/dev/block/%u:%u/inflight",
		 major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

/* disk_inflight() - the reads and writes in flight of @path; -1 on error */
static long disk_inflight(const char *path)
{
	long reads, writes, n = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &reads, &writes) == 2)
		n = reads + writes;
	fclose(f);
	return n;
}

/*
 * read_whole() - file @path into @buf of @size; its length, or -1 (errno
 * set; EFBIG when it does not fit)
 */
static ssize_t read_whole(const char *path, char *buf, size_t size)
{
	ssize_t len = 0, got = 1;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	while (got > 0 && (size_t)len < size) {
		got = read(fd, buf + len, size - len);
		if (got > 0)
			len += got;
	}
	close(fd);
	if (got > 0) {
		errno = EFBIG;
		return -1;
	}
	return got < 0 ? -1 : len;
}

/*
 * copy_edge() - with @spec "SRC=OUT", copy file SRC to OUT.@edge; 0 when
 * @spec is NULL, -1 (said) on error
 */
static int copy_edge(const char *spec, const char *edge)
{
	static char buf[1 << 16];
	const char *eq = spec ? strchr(spec, '=') : NULL;
	char src[4096], dst[4096];
	ssize_t n;
	int out, ok;

	if (!spec)
		return 0;
	snprintf(src, sizeof(src), "%.*s", (int)(eq - spec), spec);
	snprintf(dst, sizeof(dst), "%s.%s", eq + 1, edge);
	n = read_whole(src, buf, sizeof(buf));
	if (n < 0) {
		fprintf(stderr, "sleepers: %s: %s\n", src, strerror(errno));
		return -1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ok = out >= 0 && write(out, buf, n) == n;
	if (out >= 0 && close(out))
		ok = 0;
	if (!ok)
		fprintf(stderr, "sleepers: %s: %s\n", dst, strerror(errno));
	return ok ? 0 : -1;
}

/* mem_avail_kb() - MemAvailable of /proc/meminfo in KiB; -1 on error */
static long mem_avail_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* join() - move the calling process into cgroup directory @cg */
static int join(const char *cg)
{
	char path[4096];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, "0\n", 2) == 2;	/* 0: the writer itself */
	close(fd);
	return ok ? 0 : -1;
}

/* open_dev() - join @cg (when given), then open @dev for O_DIRECT reads */
static int open_dev(const char *dev, const char *cg)
{
	int fd;

	if (cg && join(cg)) {
		fprintf(stderr, "sleepers: %s: %s\n", cg, strerror(errno));
		return -1;
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0)
		fprintf(stderr, "sleepers: %s: %s\n", dev, strerror(errno));
	return fd;
}

/*
 * child() - join @cg, open @dev, say ready (or failed) on @ready, wait
 * until @go closes, then read until the deadline; into its slot of @sh
 * the reads it completed before the deadline and the time it spent asleep
 * in the window.  Its schedstat is read outside the window (before ready,
 * after the deadline): a read of it costs more than a read of the disk.
 */
static void child(const char *dev, const char *cg, int ready, int go,
		  int index, struct shared *sh)
{
	long long blocks = 0, t0, s0 = -1, t1, s1, first = 1;
	void *buf = MAP_FAILED;
	long n = 0;
	int fd, ok;
	char c;

	sh->child[index].reads = -1;
	fd = open_dev(dev, cg);
	if (fd >= 0) {
		buf = mmap(NULL, BS, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		blocks = lseek(fd, 0, SEEK_END) / BS;
		s0 = sched_ns();
		if (s0 < 0)
			fprintf(stderr, "sleepers: no /proc/self/schedstat\n");
	}
	t0 = now_ns();
	ok = buf != MAP_FAILED && blocks > 0 && s0 >= 0;
	/* the parent counts one byte from each child: ready, or failed */
	if (write(ready, ok ? "r" : "f", 1) != 1 || !ok)
		return;
	/* EOF: the parent closed the last write end, every child starts */
	if (read(go, &c, 1) != 0)
		return;
	for (;;) {
		if (pread(fd, buf, BS, ((index + n * 7919LL) % blocks) * BS) !=
		    BS) {
			fprintf(stderr, "sleepers: %s: %s\n", dev,
				strerror(errno));
			return;
		}
		t1 = now_ns();
		if (first) {
			__atomic_add_fetch(&sh->first, 1, __ATOMIC_RELAXED);
			first = 0;
		}
		/* with -W, set by the parent while the children read */
		if (t1 >= __atomic_load_n(&sh->deadline, __ATOMIC_RELAXED))
			break;
		if (t1 >= __atomic_load_n(&sh->from, __ATOMIC_RELAXED))
			n++;
	}
	s1 = sched_ns();
	/*
	 * it does nothing but read: the time it neither ran nor waited to
	 * run, less its wait for the start (asleep on the pipe, not a read)
	 */
	sh->child[index].asleep = (t1 - t0) - (s1 - s0) - (sh->start - t0);
	sh->child[index].reads = n;
}

/*
 * warm_up() - -W: wait until each of @procs has completed a read, then
 * open the window @warmup ns later for @window ns; 1 when they take more
 * than WARMUP_MAX (a process stuck)
 */
static int warm_up(struct shared *sh, int procs, long long warmup,
		   long long window)
{
	long long t = now_ns();

	while (__atomic_load_n(&sh->first, __ATOMIC_RELAXED) < procs) {
		if (now_ns() - t > WARMUP_MAX) {
			fprintf(stderr, "sleepers: %ld of %d completed a read\n",
				__atomic_load_n(&sh->first, __ATOMIC_RELAXED),
				procs);
			return 1;
		}
		sleep_ns(1000000);
	}
	t = now_ns() + warmup;
	__atomic_store_n(&sh->deadline, t + window, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->from, t, __ATOMIC_RELAXED);
	sleep_ns(t - now_ns());
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long busy0 = 0, total0 = 0, busy1 = 0, total1 = 0;
	long long start, window, step, warmup = -1;
	long blocked, bmax = 0, bsum = 0, reads = 0, avail, inflight;
	long isum = 0;
	char inflight_file[64];
	long long asleep = 0;
	int ready[2], go[2], procs, ncg, i, nsamples = 0, failed = 0;
	struct sched_param fifo = { .sched_priority = 1 };
	const char *edges = NULL;
	struct shared *sh;
	char *end;
	int opt;
	char c;

	while ((opt = getopt(argc, argv, "+W:E:")) != -1) {
		switch (opt) {
		case 'W':
			warmup = strtoll(optarg, &end, 10) * 1000000LL;
			if (*end || warmup < 0) {
				fprintf(stderr, "sleepers: -W MS must be 0 or more\n");
				return 2;
			}
			break;
		case 'E':
			edges = optarg;
			if (!strchr(edges, '=') || *edges == '=') {
				fprintf(stderr, "sleepers: -E takes SRC=OUT\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "%s", USAGE);
			return 2;
		}
	}
	argv += optind - 1;
	argc -= optind - 1;
	if (argc < 4) {
		fprintf(stderr, "%s", USAGE);
		return 2;
	}
	procs = strtol(argv[2], &end, 10);
	if (*end || procs < 1 || procs > MAX_PROCS) {
		fprintf(stderr, "sleepers: PROCS must be 1..%d\n", MAX_PROCS);
		return 2;
	}
	window = strtoll(argv[3], &end, 10) * 1000000LL;
	if (*end || window <= 0) {
		fprintf(stderr, "sleepers: MS must be a positive number\n");
		return 2;
	}
	ncg = argc - 4;
	if (inflight_path(argv[1], inflight_file, sizeof(inflight_file)) ||
	    disk_inflight(inflight_file) < 0) {
		fprintf(stderr, "sleepers: %s: no block device with an inflight count in /sys/dev/block; give a disk such as /dev/nullb0\n",
			argv[1]);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh) + procs * sizeof(sh->child[0]),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe(ready) || pipe(go)) {
		perror("sleepers");
		return 1;
	}
	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			/* the children made so far: one read each, then out */
			perror("sleepers: fork");
			procs = i;
			failed = 1;
			break;
		}
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			child(argv[1], ncg ? argv[4 + i % ncg] : NULL, ready[1],
			      go[0], i, sh);
			_exit(0);
		}
	}
	close(ready[1]);
	close(go[0]);
	/*
	 * samples on time: real-time, the sampler runs as its timer fires,
	 * not after a turn among the runnable readers (late, at the window's
	 * end, it would find few asleep); without the right, it samples late
	 */
	sched_setscheduler(0, SCHED_FIFO, &fifo);
	/* one byte from each child: ready, or failed */
	for (i = 0; i < procs; i++)
		if (read(ready[0], &c, 1) != 1 || c != 'r')
			failed = 1;
	/* every process made and ready: the most memory the run takes */
	avail = mem_avail_kb();
	if (!failed && proc_stat(&busy0, &total0) < 0) {
		perror("sleepers: /proc/stat");
		failed = 1;
	}
	start = now_ns();
	sh->start = start;
	/* with -W, warm_up() sets both once every process has read */
	sh->from = warmup < 0 ? start : LLONG_MAX;
	sh->deadline = failed ? 0 : warmup < 0 ? start + window : LLONG_MAX;
	close(go[1]);
	if (!failed && warmup >= 0) {
		failed = warm_up(sh, procs, warmup, window);
		if (!failed && proc_stat(&busy0, &total0) < 0)
			failed = 1;
	}
	if (!failed && copy_edge(edges, "open"))
		failed = 1;
	/* the first sample after one step: the start is a burst of wakeups */
	step = (sh->deadline - sh->from) / (SAMPLES + 1);
	while (!failed && nsamples < SAMPLES) {
		sleep_ns(sh->from + (nsamples + 1) * step - now_ns());
		blocked = proc_stat(NULL, NULL);
		inflight = disk_inflight(inflight_file);
		if (blocked < 0 || inflight < 0) {
			fprintf(stderr, "sleepers: %s: %s\n", blocked < 0 ?
				"/proc/stat" : inflight_file, strerror(errno));
			failed = 1;
		}
		isum += inflight;
		if (blocked > bmax)
			bmax = blocked;
		bsum += blocked;
		nsamples++;
	}
	if (!failed) {
		sleep_ns(sh->deadline - now_ns());
		if (proc_stat(&busy1, &total1) < 0 ||
		    copy_edge(edges, "close"))
			failed = 1;
	}
	while (wait(NULL) > 0)
		;
	for (i = 0; i < procs; i++) {
		if (sh->child[i].reads < 0)
			failed = 1;
		reads += sh->child[i].reads;
		asleep += sh->child[i].asleep;
	}
	if (failed || reads <= 0 || total1 <= total0) {
		fprintf(stderr, "sleepers: %s: %s\n", argv[1], failed ?
			"a process failed (see above)" : "no reads");
		return 1;
	}
	printf("procs %d cgroups %d reads %ld ns_per_read %.1f "
	       "asleep_avg %.1f blocked_max %ld blocked_avg %.1f busy_pct %.1f",
	       procs, ncg, reads, (double)window / reads,
	       (double)asleep / (sh->deadline - start), bmax, (double)bsum / nsamples,
	       100.0 * (busy1 - busy0) / (total1 - total0));
	printf(" mem_avail_kb %ld inflight_avg %.1f\n", avail,
	       (double)isum / nsamples);
	return 0;
}
