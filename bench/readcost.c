// SPDX-License-Identifier: GPL-2.0-only
/*
 * readcost - the time of one whole read of a file (open, read to EOF,
 * close), as the median over N reads; scripts/bench times the debugfs
 * cpus file with it
 *
 * usage: readcost FILE [N]
 * Prints "reads N median_ns MEDIAN min_ns MIN bytes BYTES".
 * Exit: 0 ok, 1 read error, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_READS	10000

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* read_once() - open, read @path to EOF, close; return bytes or -errno */
static long read_once(const char *path)
{
	static char buf[1 << 16];
	long total = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0)
		total = -errno;
	close(fd);
	return total;
}

int main(int argc, char **argv)
{
	static unsigned long long t[MAX_READS];
	unsigned long long t0;
	long bytes = 0;
	char *end;
	int i, n = 20;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: readcost FILE [N]\n");
		return 2;
	}
	if (argc == 3) {
		n = strtol(argv[2], &end, 10);
		if (*end || n < 1 || n > MAX_READS) {
			fprintf(stderr, "readcost: N must be 1..%d\n", MAX_READS);
			return 2;
		}
	}
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		bytes = read_once(argv[1]);
		t[i] = now_ns() - t0;
		if (bytes < 0) {
			fprintf(stderr, "readcost: %s: %s\n", argv[1],
				strerror(-bytes));
			return 1;
		}
	}
	qsort(t, n, sizeof(t[0]), cmp_ull);
	printf("reads %d median_ns %llu min_ns %llu bytes %ld\n", n, t[n / 2],
	       t[0], bytes);
	return 0;
}
