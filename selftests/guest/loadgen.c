// SPDX-License-Identifier: GPL-2.0-only
/*
 * loadgen - load for the robustness tests, bounded in time
 *
 * usage: loadgen pingpong SECONDS      two processes bouncing a byte
 *        loadgen forks SECONDS         fork and reap children in a loop
 *        loadgen direct DEV SECONDS    synchronous 4 KiB O_DIRECT reads
 *        loadgen wdirect DEV SECONDS   synchronous 4 KiB O_DIRECT writes
 *        loadgen sleepers DEV N SECONDS  N processes in O_DIRECT reads at once
 *
 * Prints the operations done.  Exit: 0 ok, 1 failure, 2 usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long pingpong(double secs)
{
	int a[2], b[2];
	double end = now() + secs;
	long n = 0;
	char c = 0;
	pid_t pid;

	if (pipe(a) || pipe(b))
		return -1;
	pid = fork();
	if (pid == 0) {
		/* keep only our ends, so the parent's close means EOF */
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	while (now() < end) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
		n++;
	}
	close(a[1]);
	waitpid(pid, NULL, 0);
	return n;
}

static long forks(double secs)
{
	double end = now() + secs;
	long n = 0;
	pid_t pid;

	while (now() < end) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return -1;
		n++;
	}
	return n;
}

static long direct(const char *dev, double secs, bool write)
{
	int fd = open(dev, (write ? O_WRONLY : O_RDONLY) | O_DIRECT);
	double end = now() + secs;
	void *buf;
	off_t size;
	long n = 0;

	buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || buf == MAP_FAILED)
		return -1;
	size = lseek(fd, 0, SEEK_END) / 4096;
	if (size <= 0)
		return -1;
	while (now() < end) {
		if ((write ? pwrite(fd, buf, 4096, (n % size) * 4096) :
			     pread(fd, buf, 4096, (n % size) * 4096)) != 4096)
			return -1;
		n++;
	}
	close(fd);
	return n;
}

static long sleepers(const char *dev, int procs, double secs)
{
	long total = 0, n;
	int i, status;

	for (i = 0; i < procs; i++) {
		if (fork() == 0) {
			n = direct(dev, secs, false);
			_exit(n < 0 ? 1 : 0);
		}
	}
	for (i = 0; i < procs; i++) {
		if (wait(&status) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			return -1;
		total++;
	}
	return total;
}

int main(int argc, char **argv)
{
	long n = -2;

	if (argc == 3 && !strcmp(argv[1], "pingpong"))
		n = pingpong(atof(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "forks"))
		n = forks(atof(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "direct"))
		n = direct(argv[2], atof(argv[3]), false);
	else if (argc == 4 && !strcmp(argv[1], "wdirect"))
		n = direct(argv[2], atof(argv[3]), true);
	else if (argc == 5 && !strcmp(argv[1], "sleepers"))
		n = sleepers(argv[2], atoi(argv[3]), atof(argv[4]));
	if (n == -2) {
		fprintf(stderr, "usage: loadgen pingpong|forks SECONDS | direct|wdirect DEV SECONDS | sleepers DEV N SECONDS\n");
		return 2;
	}
	if (n < 0) {
		perror("loadgen");
		return 1;
	}
	printf("%ld\n", n);
	return 0;
}
