// SPDX-License-Identifier: GPL-2.0-only
/*
 * timed_reads - O_DIRECT reads that time themselves, for the attribution
 * tests' ground truth
 *
 * usage: timed_reads DEV COUNT
 *
 * Opens DEV, warms up, prints "ready" and waits for a line on stdin; then
 * does COUNT synchronous 4 KiB O_DIRECT reads one at a time and prints one
 * line: "wall=N cpu=N delay=N start=N end=N" (ns, CLOCK_MONOTONIC for
 * start and end): its wall time, its own CPU time and its run delay
 * (schedstat) over the reads.  Then one line per read, "S E", the instants
 * it entered and left the read.  Then it waits for another line on stdin,
 * so that its caller reads iowprobe's figures while it still lives.
 * Being C, it sleeps in nothing but the reads between the two lines.
 * Exit: 0 ok, 1 failure, 2 usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"

#define BS	4096
#define WARMUP	8

static int wait_line(void)
{
	char line[64];

	return fgets(line, sizeof(line), stdin) ? 0 : -1;
}

int main(int argc, char **argv)
{
	long long t0, t1, c0, c1, d0, d1, *span;
	long i, count;
	void *buf;
	int fd;

	if (argc != 3 || (count = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: timed_reads DEV COUNT\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	buf = mmap(NULL, BS, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	span = calloc(2 * count, sizeof(*span));
	if (fd < 0 || buf == MAP_FAILED || !span) {
		perror("timed_reads");
		return 1;
	}
	mlockall(MCL_CURRENT | MCL_FUTURE);	/* no fault sleeps in the loop */
	for (i = 0; i < WARMUP; i++)
		if (pread(fd, buf, BS, i * BS) != BS)
			return 1;
	printf("ready\n");
	fflush(stdout);
	if (wait_line())
		return 1;
	usleep(1000);	/* books the run before it, so it is not counted */
	t0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	d0 = run_delay();
	for (i = 0; i < count; i++) {
		span[2 * i] = ns(CLOCK_MONOTONIC);
		if (pread(fd, buf, BS, (i % 256) * BS) != BS) {
			perror("timed_reads: pread");
			return 1;
		}
		span[2 * i + 1] = ns(CLOCK_MONOTONIC);
	}
	t1 = ns(CLOCK_MONOTONIC);
	c1 = ns(CLOCK_THREAD_CPUTIME_ID);
	d1 = run_delay();
	printf("wall=%lld cpu=%lld delay=%lld start=%lld end=%lld\n",
	       t1 - t0, c1 - c0, d1 - d0, t0, t1);
	for (i = 0; i < count; i++)
		printf("%lld %lld\n", span[2 * i], span[2 * i + 1]);
	fflush(stdout);
	return wait_line() ? 1 : 0;
}
