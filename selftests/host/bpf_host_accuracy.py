#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""iowstat --bpf against ground truth on this machine's kernel and disk.

usage: selftests/host/bpf_host_accuracy.py [IOWSTAT]
  IOWSTAT   the iowstat to test (default: user/iowstat)

Runs `iowstat --bpf -o json -- bpf_host_accuracy.py --reader ...`: a reader
pinned to one CPU reads 4 KiB blocks of a 64 MiB file at random offsets,
with O_DIRECT, for 3 s.  The file is on a real disk (/var/tmp, else the
repository's file system: /tmp may be tmpfs, which has no O_DIRECT).

The truth is that CPU's idle time over the reads, the wall time minus
the run time of all its tasks (/proc/schedstat's rq_cpu_time, else the
root cpuacct cgroup's per-CPU usage), read by the reader itself right
around its reads: whatever else runs there is busy time in that figure.
During the reads the reader runs, waits to run or sleeps in iowait, so
whenever the CPU idles the reader is asleep in iowait there, or woken and
not switched to yet.  The kernel's rule, which --bpf follows, ends the
wait at the wakeup: iowait is the idle time less those idle stretches
after a wakeup, which are part of the reader's run delay.  So the truth
is a range, from idle - run delay to idle.  The reader runs SCHED_FIFO,
so that other tasks seldom make it wait to run: its run delay is then
mostly those idle stretches, and the range narrow (measured under load:
1-2 µs per wakeup that finds the CPU idle).  The reader's own view (wall
- its CPU time - its run delay) is printed too but is no truth on a
shared machine: it books the time other tasks ran on its CPU while it
slept as its wait.

Bound: 2% of the wall time (60 ms), in ns, beyond the range.  On a real
CPU the scheduler's clock and the backend's are one TSC (NTP slews
CLOCK_MONOTONIC by at most 0.05%).  What remains: the reader's first and
last run straddling the readings (µs); steal time (not in cpuacct; the
run prints it); any iowait of CMD outside the reads (its start reads
cached files); and the edges of each busy stretch, which the backend
takes at the switch tracepoint and the scheduler at the top of
__schedule(), before picking the next task.  The reads take tens of µs,
so iowait can be a small share of the wall: it must also be > 0, and the
iowait checks are skipped when the CPU idled less than the bound.

Prints KTAP.  Exit: 0 pass, 1 fail, 4 skip (not root, iowstat built
without BPF, BPF not permitted, no per-CPU run time).  When the CPU idled
less than the bound (a saturated machine) the iowait checks are skipped.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

PLAN = 4  # the checks; each one skipped when there is no run
FILE_MB = 64
SECONDS = 3.0
CPUACCT = "/sys/fs/cgroup/cpuacct/cpuacct.usage_percpu"


class Skip(Exception):
    pass


def run_time_source():
    """(name, fn): fn(cpu) gives ns the CPU ran tasks other than its idle
    task.  Both sources count kernel threads and interrupt time that lands
    in a task; neither counts the idle task."""
    if os.path.exists(iow.SCHEDSTAT):
        return "rq_cpu_time", iow.rq_cpu_time
    if os.path.exists(CPUACCT):
        return "cpuacct", cpuacct_usage
    raise Skip(f"no per-CPU run time: neither {iow.SCHEDSTAT} "
               f"(CONFIG_SCHEDSTATS) nor {CPUACCT}")


def cpuacct_usage(cpu):
    """ns the root cpuacct cgroup's tasks ran on `cpu` (all tasks; steal
    time left out when the kernel accounts it)"""
    with open(CPUACCT) as f:
        return int(f.read().split()[cpu])


def reader(path, cpu, seconds, out):
    """The command iowstat runs: pinned random O_DIRECT reads; writes its
    figures to `out` as JSON (iowstat's JSON owns stdout)."""
    iow.pin(cpu)
    # woken, the reader preempts whatever runs: its run delay is then
    # about only the CPU's way out of idle
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    source, fn = run_time_source()
    steal0 = steal_ns(cpu)
    r = iow.timed_reads(path, seconds, busy=lambda: fn(cpu), spread=True)
    res = r._asdict()
    res.update(source=source, steal=steal_ns(cpu) - steal0)
    with open(out, "w") as f:
        json.dump(res, f)


def steal_ns(cpu):
    """/proc/stat's steal time of `cpu`, in ns (10 ms steps)"""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                return int(line.split()[8]) * 10_000_000
    raise ValueError(f"cpu{cpu} not in /proc/stat")


def real_disk_dir():
    """A writable folder whose file system sits on a block device"""
    for d in ("/var/tmp", iow.REPO):
        if not os.access(d, os.W_OK):
            continue
        dev = os.stat(d).st_dev
        if os.path.exists(block_stat(dev)):
            return d
    raise Skip("no writable folder on a block device for O_DIRECT")


def block_stat(dev):
    return f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat"


def disk_reads(dev):
    """reads completed by block device `dev` (its stat file's 1st field)"""
    with open(block_stat(dev)) as f:
        return int(f.read().split()[0])


def make_file(work):
    """FILE_MB of random bytes, on the disk"""
    return iow.random_file(os.path.join(work, "file"), FILE_MB)


def check_env(iowstat):
    if not os.access(iowstat, os.X_OK):
        raise Skip(f"{iowstat} not built: make -C user")
    ldd = subprocess.run(["ldd", iowstat], capture_output=True, text=True)
    if "libbpf" not in ldd.stdout:
        raise Skip("iowstat built without BPF: make -C user BPF=1")
    if os.geteuid() != 0:
        raise Skip("loading BPF programs needs root")
    run_time_source()


def run_iowstat(k, iowstat, path, cpu, work):
    """iowstat --bpf -o json over the reader; (its JSON, the reader's)"""
    out = os.path.join(work, "reader.json")
    cmd = [iowstat, "--bpf", "-o", "json", "--", sys.executable,
           os.path.abspath(__file__), "--reader", path, str(cpu),
           str(SECONDS), out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2 and "--bpf:" in p.stderr:
        raise Skip(next(ln for ln in p.stderr.splitlines()
                        if "--bpf:" in ln))
    for line in p.stderr.splitlines():
        k.diag(line)
    if p.returncode != 0:
        raise RuntimeError(f"iowstat exited {p.returncode}")
    cmd_json = json.loads(p.stdout)["sysstat"]["hosts"][0]["command"]
    with open(out) as f:
        return cmd_json, json.load(f)


def pick_cpu():
    """the CPU we may run on that idled most over half a second: on a
    busy machine, the one with the most idle time to check"""
    cpus = sorted(os.sched_getaffinity(0))
    a = {c: iow.proc_stat_cpu(c) for c in cpus}
    time.sleep(0.5)
    b = {c: iow.proc_stat_cpu(c) for c in cpus}
    return max(cpus, key=lambda c: sum(b[c]) - sum(a[c]))


def check(k, cmd, r, cpu, reads):
    row = next(x for x in cmd["cpu-ns"] if x["cpu"] == str(cpu))
    got = row["iowait_ns"]
    truth = r["wall"] - r["busy"]
    view = r["wall"] - r["cpu"] - r["delay"]
    k.diag(f"{r['n']} reads in {r['wall'] / 1e6:.1f} ms "
           f"({r['wall'] / r['n'] / 1e3:.0f} µs each), the disk completed "
           f"{reads}; own cpu {r['cpu'] / 1e6:.1f} ms, run delay "
           f"{r['delay'] / 1e6:.1f} ms; cpu{cpu} ran tasks for "
           f"{r['busy'] / 1e6:.1f} ms ({r['source']}), steal "
           f"{r['steal'] / 1e6:.0f} ms")
    k.diag(f"cpu{cpu}: --bpf iowait {got / 1e6:.1f} ms, idle "
           f"{row['idle_ns'] / 1e6:.1f} ms over iowstat's "
           f"{cmd['real-ns'] / 1e6:.1f} ms; the kernel's iowait "
           f"{row['k_iowait_ns'] / 1e6:.0f} ms")
    k.diag(f"truth: cpu{cpu}'s idle over the reads {truth / 1e6:.1f} ms, "
           f"less the run delay {(truth - r['delay']) / 1e6:.1f} ms; the "
           f"reader's own view {view / 1e6:.1f} ms")
    k.result(reads >= r["n"], "the reads went to the disk (its stat file "
             "counts at least as many reads)")
    bound = 0.02 * r["wall"]
    names = (f"cpu{cpu}: iowait booked",
             f"cpu{cpu}: iowait = its idle time over the reads (wall - run "
             f"time of its tasks) less up to the run delay, within 2% of "
             f"the wall time")
    # below the bound, a backend that booked nothing would pass
    if truth < bound:
        for name in names:
            k.skip(name, f"cpu{cpu} idled only {truth / 1e6:.0f} ms "
                   f"(machine saturated)")
        return
    k.result(got > 0, names[0])
    k.between(names[1], got, truth - r["delay"], truth, absolute=bound)


def main():
    if sys.argv[1:2] == ["--reader"]:
        path, cpu, seconds, out = sys.argv[2:6]
        reader(path, int(cpu), float(seconds), out)
        return
    iowstat = sys.argv[1] if len(sys.argv) > 1 else \
        iow.IOWSTAT
    k = iow.Ktap()
    try:
        check_env(iowstat)
        with tempfile.TemporaryDirectory(prefix="iowstat-bpf.",
                                         dir=real_disk_dir()) as work:
            path = make_file(work)
            cpu = pick_cpu()
            dev = os.stat(path).st_dev
            before = disk_reads(dev)
            try:
                cmd, r = run_iowstat(k, iowstat, path, cpu, work)
            except (RuntimeError, ValueError, OSError) as e:
                k.result(False, f"iowstat --bpf -o json -- reader: {e}")
                for _ in range(PLAN - 1):
                    k.skip("a check of the run", "no run")
                k.finish()
            k.result(True, "iowstat --bpf -o json -- reader: exit 0, JSON")
            check(k, cmd, r, cpu, disk_reads(dev) - before)
    except Skip as e:
        k.diag(f"SKIP {e}")
        while k.n < PLAN:
            k.skip(f"bpf host accuracy {k.n + 1}", str(e))
    k.finish()


if __name__ == "__main__":
    main()
