// SPDX-License-Identifier: GPL-2.0-only
/*
 * iou_wait - sleep in an io_uring wait with a read pending on a pipe
 *
 * usage: iou_wait SLEEP_CPU WAKE_CPU WAIT_MS [MOVE_CPU]
 *
 * The kernel counts such a wait as iowait (io_uring sets in_iowait while a
 * request is in flight) although no disk is involved.  A waker pinned to
 * WAKE_CPU writes to the pipe after WAIT_MS; with MOVE_CPU, it first moves
 * the sleeper's affinity there, so the wakeup migrates the sleeper and
 * decrements SLEEP_CPU's nr_iowait from another CPU.
 *
 * Prints "wait_ns=N cpu_ns=N delay_ns=N": the wait's wall time, the
 * sleeper's own CPU time during it, and the time it waited to run after
 * its wakeup (schedstat run_delay): the iowait is the rest.
 * Exit: 0 ok, 1 failure, 2 usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* run_delay() - ns runnable but not running, from the scheduler's stats */
static long long run_delay(void)
{
	long long cpu = 0, delay = -1;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%lld %lld", &cpu, &delay) != 2)
			delay = -1;
		fclose(f);
	}
	return delay;
}

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

static void waker(pid_t sleeper, int cpu, int wait_ms, int move_cpu, int fd)
{
	struct timespec half = {
		.tv_sec = wait_ms / 2000,
		.tv_nsec = (wait_ms % 2000) * 500000L,
	};

	if (pin(0, cpu))
		_exit(1);
	nanosleep(&half, NULL);
	if (move_cpu >= 0 && pin(sleeper, move_cpu))
		_exit(1);
	nanosleep(&half, NULL);
	_exit(write(fd, "x", 1) == 1 ? 0 : 1);
}

int main(int argc, char **argv)
{
	int sleep_cpu, wake_cpu, wait_ms, move_cpu = -1, fds[2], status;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	long long t0, c0, d0;
	char byte;
	pid_t pid;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: iou_wait SLEEP_CPU WAKE_CPU WAIT_MS [MOVE_CPU]\n");
		return 2;
	}
	sleep_cpu = atoi(argv[1]);
	wake_cpu = atoi(argv[2]);
	wait_ms = atoi(argv[3]);
	if (argc == 5)
		move_cpu = atoi(argv[4]);
	if (pin(0, sleep_cpu) || pipe(fds) || io_uring_queue_init(4, &ring, 0)) {
		perror("iou_wait: setup");
		return 1;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fds[0], &byte, 1, 0);
	if (io_uring_submit(&ring) != 1) {
		fprintf(stderr, "iou_wait: submit failed\n");
		return 1;
	}
	pid = fork();
	if (pid == 0)
		waker(getppid(), wake_cpu, wait_ms, move_cpu, fds[1]);
	d0 = run_delay();
	c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = ns(CLOCK_MONOTONIC);
	if (io_uring_wait_cqe(&ring, &cqe)) {
		fprintf(stderr, "iou_wait: wait failed\n");
		return 1;
	}
	t0 = ns(CLOCK_MONOTONIC) - t0;
	c0 = ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	printf("wait_ns=%lld cpu_ns=%lld delay_ns=%lld res=%d\n", t0, c0,
	       run_delay() - d0, cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
