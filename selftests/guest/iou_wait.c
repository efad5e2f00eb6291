// SPDX-License-Identifier: GPL-2.0-only
/*
 * iou_wait - sleep in an io_uring wait with a read pending on a pipe
 *
 * usage: iou_wait [-n] SLEEP_CPU WAKE_CPU WAIT_MS [MOVE_CPU]
 *        iou_wait -f
 *   -n   wait with IORING_ENTER_NO_IOWAIT (Linux 6.15): not iowait
 *   -f   print "no_iowait=1" if the kernel advertises IORING_FEAT_NO_IOWAIT,
 *        else "no_iowait=0", and exit
 *
 * The kernel counts such a wait as iowait (io_uring sets in_iowait while a
 * request is in flight) although no disk is involved, unless the wait asks
 * for NO_IOWAIT.  A waker pinned to WAKE_CPU writes to the pipe after
 * WAIT_MS; with MOVE_CPU, it first moves the sleeper's affinity there, so
 * the wakeup migrates the sleeper and decrements SLEEP_CPU's nr_iowait from
 * another CPU.
 *
 * Prints "wait_ns=N cpu_ns=N delay_ns=N rq_ns=N res=N": the wait's wall
 * time, the sleeper's own CPU time during it, the time it waited to run
 * after its wakeup (schedstat run_delay), the run time of SLEEP_CPU's tasks
 * during the wait (rq_cpu_time in /proc/schedstat, -1 without it: other
 * tasks, kernel threads, the waker before it leaves), and the read's
 * result.  SLEEP_CPU's idle time (and without -n its iowait) is the rest.
 * Exit: 0 ok, 1 failure, 2 usage, 4 -n on a kernel without NO_IOWAIT.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <liburing.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clocks.h"

/*
 * Linux 6.15 uapi (include/uapi/linux/io_uring.h); bookworm's liburing 2.3
 * predates them and has no call that passes enter flags to a wait.
 */
#ifndef IORING_ENTER_NO_IOWAIT
#define IORING_ENTER_NO_IOWAIT	(1U << 7)
#endif
#ifndef IORING_FEAT_NO_IOWAIT
#define IORING_FEAT_NO_IOWAIT	(1U << 17)
#endif

#define KSFT_SKIP 4

/*
 * rq_cpu_time() - ns @cpu has run tasks other than its idle task, the 7th
 * number of its line in /proc/schedstat (versions 15 to 17), or -1.  The
 * scheduler adds a task's run when the task leaves the CPU.
 */
static long long rq_cpu_time(int cpu)
{
	long long v[7], t = -1;
	char tag[16], line[4096];
	int version = 0, n;
	FILE *f;

	f = fopen("/proc/schedstat", "r");
	if (!f)
		return -1;
	n = snprintf(tag, sizeof(tag), "cpu%d ", cpu);
	if (fscanf(f, "version %d\n", &version) != 1 || version < 15 ||
	    version > 17)
		goto out;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, tag, n))
			continue;
		if (sscanf(line + n, "%lld %lld %lld %lld %lld %lld %lld", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 7)
			t = v[6];
		break;
	}
out:
	fclose(f);
	return t;
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

/*
 * wait_cqe() - wait for one completion, with IORING_ENTER_NO_IOWAIT if
 * @no_iowait: liburing 2.3 cannot pass that flag, so enter the kernel
 * ourselves, then pick the completion up as liburing would have.
 */
static int wait_cqe(struct io_uring *ring, bool no_iowait,
		    struct io_uring_cqe **cqe)
{
	unsigned int flags = IORING_ENTER_GETEVENTS | IORING_ENTER_NO_IOWAIT;

	if (!no_iowait)
		return io_uring_wait_cqe(ring, cqe);
	while (io_uring_peek_cqe(ring, cqe)) {
		if (syscall(__NR_io_uring_enter, ring->ring_fd, 0, 1, flags,
			    NULL, 0) < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: iou_wait [-n] SLEEP_CPU WAKE_CPU WAIT_MS [MOVE_CPU]\n"
		"       iou_wait -f\n");
	return 2;
}

/* no_iowait_feature() - print whether the kernel advertises NO_IOWAIT */
static int no_iowait_feature(void)
{
	struct io_uring ring;

	if (io_uring_queue_init(4, &ring, 0)) {
		perror("iou_wait: io_uring_queue_init");
		return 1;
	}
	printf("no_iowait=%d\n", !!(ring.features & IORING_FEAT_NO_IOWAIT));
	io_uring_queue_exit(&ring);
	return 0;
}

int main(int argc, char **argv)
{
	int sleep_cpu, wake_cpu, wait_ms, move_cpu = -1, fds[2], status, opt;
	bool no_iowait = false;
	cpu_set_t home;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	long long t0, c0, d0, r0, r1;
	char byte;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+fn")) != -1) {
		switch (opt) {
		case 'f':
			return optind == argc ? no_iowait_feature() : bad_usage();
		case 'n':
			no_iowait = true;
			break;
		default:
			return bad_usage();
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (argc < 4 || argc > 5)
		return bad_usage();
	sleep_cpu = atoi(argv[1]);
	wake_cpu = atoi(argv[2]);
	wait_ms = atoi(argv[3]);
	if (argc == 5)
		move_cpu = atoi(argv[4]);
	/*
	 * Fault the program and its libraries in here, on the CPU we started
	 * on: a page fault on SLEEP_CPU would wait there in iowait, tens of
	 * ms when the file comes over 9p (the test box's root).
	 */
	if (mlockall(MCL_CURRENT))
		perror("iou_wait: mlockall (page faults may add iowait)");
	if (sched_getaffinity(0, sizeof(home), &home) || pin(0, sleep_cpu) ||
	    pipe(fds) || io_uring_queue_init(4, &ring, 0)) {
		perror("iou_wait: setup");
		return 1;
	}
	/* an older kernel refuses the unknown enter flag with EINVAL */
	if (no_iowait && !(ring.features & IORING_FEAT_NO_IOWAIT)) {
		fprintf(stderr, "iou_wait: no IORING_FEAT_NO_IOWAIT (Linux 6.15)\n");
		return KSFT_SKIP;
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
	/* leave the CPU, so that our run so far is booked before r0 */
	usleep(1000);
	d0 = run_delay();
	c0 = ns(CLOCK_THREAD_CPUTIME_ID);
	t0 = ns(CLOCK_MONOTONIC);
	r0 = rq_cpu_time(sleep_cpu);
	if (wait_cqe(&ring, no_iowait, &cqe)) {
		fprintf(stderr, "iou_wait: wait failed\n");
		return 1;
	}
	t0 = ns(CLOCK_MONOTONIC) - t0;
	c0 = ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	r1 = rq_cpu_time(sleep_cpu);
	printf("wait_ns=%lld cpu_ns=%lld delay_ns=%lld rq_ns=%lld res=%d\n",
	       t0, c0, run_delay() - d0, r0 < 0 || r1 < 0 ? -1 : r1 - r0,
	       cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	/*
	 * Exit where we started: on 7.3 closing files over 9p waits in
	 * io_schedule(), which would be iowait on SLEEP_CPU.
	 */
	sched_setaffinity(0, sizeof(home), &home);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 1;
}
