/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef IOWSTAT_TASKSTATS_H
#define IOWSTAT_TASKSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * struct thread_exit - what the kernel's taskstats says of one thread as
 * it exits (kernel/tsacct.c, kernel/delayacct.c), in ns
 * @life_ns:  ac_etime: from fork to the exit record (µs in the record)
 * @utime_ns: ac_utime, @stime_ns: ac_stime: tick samples unless the CPU
 *            is nohz_full; only their ratio is used
 * @cpu_ns:   cpu_run_virtual_total: se.sum_exec_runtime, the exact run
 *            time (cpu_run_real_total is utime + stime, the samples)
 * @tick_ns:  cpu_run_real_total
 * @runq_ns:  cpu_delay_total: sched_info.run_delay, runnable but waiting
 *            for a CPU; kept with CONFIG_SCHED_INFO, delay accounting on
 *            or off
 * @blkio_ns: blkio_delay_total: its sleeps in iowait, only while the
 *            kernel.task_delayacct sysctl is on
 */
struct thread_exit {
	uint32_t pid, tgid, ppid;
	uint64_t life_ns;
	uint64_t utime_ns, stime_ns;
	uint64_t cpu_ns, tick_ns;
	uint64_t runq_ns;
	uint64_t blkio_ns;
};

typedef void (*thread_exit_fn)(const struct thread_exit *e, void *arg);

/*
 * struct taskstats_parsed - what one receive held besides exit records:
 * @ack_err: the kernel's answer to our request with @seq (0: none seen,
 *           1: success, else -errno)
 */
struct taskstats_parsed {
	uint32_t seq;
	int ack_err;
	unsigned int records;
};

int taskstats_parse(const void *buf, size_t len, uint16_t family,
		    thread_exit_fn fn, void *arg, struct taskstats_parsed *p);

/*
 * struct taskstats_listener - a netlink socket that gets one record per
 * thread exiting on any CPU
 * @lost: the socket overflowed: some records never arrived
 */
struct taskstats_listener {
	int fd;
	uint16_t family;
	uint32_t seq;
	char cpumask[256];
	bool lost;
};

int taskstats_listen(struct taskstats_listener *l);
int taskstats_drain(struct taskstats_listener *l, thread_exit_fn fn,
		    void *arg);
void taskstats_close(struct taskstats_listener *l);

#endif /* IOWSTAT_TASKSTATS_H */
