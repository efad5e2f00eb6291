#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Accuracy of iowprobe's split against ground truth (guest test).

Runs in the test box as root with the module at $IOWPROBE_KO.  Truth comes
from outside the module: a pinned thread that only reads or only waits
spends wall - own CPU time waiting; elapsed time comes from CLOCK_MONOTONIC.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iowprobe as iow  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
IOU_WAIT = os.path.join(HERE, "out", "iou_wait")


def load_module():
    if os.path.isdir(iow.DEBUGFS):
        return False
    subprocess.run(["insmod", os.environ["IOWPROBE_KO"]], check=True)
    return True


def conservation(k):
    """busy + idle of every CPU = elapsed, within 0.1%, under load on CPU 0."""
    iow.pin(1)
    hog = subprocess.Popen(["taskset", "-c", "0", "sh", "-c",
                            "while :; do :; done"])
    time.sleep(0.5)
    a, ta = iow.read_cpus()
    time.sleep(5)
    b, tb = iow.read_cpus()
    hog.kill()
    hog.wait()
    # each row carries the instant it describes: the reader may be
    # preempted (or its vCPU not scheduled) between two rows
    for cpu in (0, 1):
        total = iow.delta(a, b, cpu, "busy_ns") + iow.delta(a, b, cpu, "idle_ns")
        k.within(f"conservation: cpu{cpu} busy+idle = elapsed", total,
                 iow.delta(a, b, cpu, "now_ns"), rel=0.001)
    k.within("conservation: row instants agree with our clock",
             iow.delta(a, b, 0, "now_ns"), tb - ta, rel=0.01)
    ok = all(b[str(c)][col] <= b[str(c)]["idle_ns"]
             for c in (0, 1)
             for col in ("iowait_ns", "blk_local_ns", "blk_any_ns"))
    k.result(ok, "conservation: iowait, blk_local, blk_any <= idle")
    busy0 = iow.delta(a, b, 0, "busy_ns")
    k.result(busy0 > 0.95 * (tb - ta), "conservation: the loaded cpu0 is busy")


def ground_truth(k):
    """Pinned O_DIRECT reads on null_blk (2 ms each): iowait = the wait."""
    dev = iow.nullb(2_000_000)
    iow.pin(1)
    dev_a, lat_a = device_figures("nullb0")
    a, _ = iow.read_cpus()
    wall, cpu, n, delay = iow.direct_reads(dev, 2.0)
    b, _ = iow.read_cpus()
    dev_b, lat_b = device_figures("nullb0")
    device_truth(k, n, wall, dev_a, dev_b, lat_a, lat_b)
    truth = wall - cpu - delay
    k.diag(f"{n} reads in {wall / 1e6:.0f} ms, own cpu {cpu / 1e6:.0f} ms, "
           f"waiting to run after wakeups {delay / 1e6:.1f} ms")
    k.within("ground truth: cpu1 iowait = wall - cpu time - run delay",
             iow.delta(a, b, 1, "iowait_ns"), truth, rel=0.02)
    # blk_local ends at the completion, before the wakeup that ends the
    # wait: it lies between the device's own time and the task's wait
    blk = iow.delta(a, b, 1, "blk_local_ns")
    k.diag(f"ground truth: cpu1 blk_local {blk / 1e6:.0f} ms, device time "
           f"{n * 2:.0f} ms, wait {truth / 1e6:.0f} ms")
    k.result(n * 2_000_000 * 0.995 <= blk <= truth * 1.02,
             "ground truth: cpu1 blk_local between device time and wait")
    k.diag(f"kernel's view: cpu1 iowait "
           f"{iow.delta(a, b, 1, 'k_iowait_ns') / 1e6:.0f} ms")
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


def device_figures(name):
    """The devices row of disk `name` and its latency {lo_ns: (hi, count)}."""
    devs = [r for r in iow.read_table("devices") if r["device"] == name]
    lat = {r["lo_ns"]: (r["hi_ns"], r["count"])
           for r in iow.read_table("latency") if r["device"] == name}
    zero = {"requests": 0, "read_bytes": 0, "busy_ns": 0, "inflight": 0}
    return (devs[0] if devs else zero), lat


def device_truth(k, n, wall, dev_a, dev_b, lat_a, lat_b):
    """n 4 KiB reads one at a time, each 2 ms in null_blk: the disk's line."""
    reqs = dev_b["requests"] - dev_a["requests"]
    rbytes = dev_b["read_bytes"] - dev_a["read_bytes"]
    busy = dev_b["busy_ns"] - dev_a["busy_ns"]
    k.diag(f"devices: nullb0 {reqs} requests, {rbytes} bytes read, busy "
           f"{busy / 1e6:.0f} ms, {dev_b['inflight']} in flight; truth "
           f"{n} reads, {n * 4096} bytes, between {n * 2} ms and "
           f"{wall / 1e6:.0f} ms")
    k.result(reqs == n and rbytes == n * 4096 and dev_b["inflight"] == 0,
             "devices: requests and bytes of the disk = the reads")
    # one request at a time: busy is the sum of the latencies, each at
    # least null_blk's 2 ms, and all within the reads' wall time
    k.result(n * 2_000_000 <= busy <= wall,
             "devices: busy between the device time and the wall time")
    hist = {lo: (hi, cnt - lat_a.get(lo, (0, 0))[1])
            for lo, (hi, cnt) in lat_b.items()}
    fast = sum(cnt for hi, cnt in hist.values() if hi < 2_000_000)
    total = sum(cnt for _, cnt in hist.values())
    k.diag("latency: " + ", ".join(f"[{lo}, {hi}] {cnt}" for lo, (hi, cnt)
                                   in sorted(hist.items()) if cnt))
    k.result(total == n and fast == 0,
             "latency: every read counted once, none under 2 ms")


def plain_sleep(k):
    """A pinned sleep 2 is idle, not iowait."""
    iow.pin(1)
    a, _ = iow.read_cpus()
    t0 = time.monotonic_ns()
    time.sleep(2)
    t1 = time.monotonic_ns()
    b, _ = iow.read_cpus()
    idle = iow.delta(a, b, 1, "idle_ns")
    # the reads around the sleep are busy time: compare with the sleep
    k.within("sleep: cpu1 idle = the sleep", idle, t1 - t0, rel=0.02)
    k.result(iow.delta(a, b, 1, "iowait_ns") <= 0.001 * idle,
             "sleep: no iowait on cpu1")


def iou_wait(move):
    """Run iou_wait sleeping on cpu1; returns (before, after, wait, cpu)."""
    iow.pin(0)
    args = [IOU_WAIT, "1", "0", "1000"] + (["0"] if move else [])
    a, _ = iow.read_cpus()
    out = subprocess.run(args, check=True, capture_output=True,
                         text=True).stdout
    b, _ = iow.read_cpus()
    f = dict(kv.split("=") for kv in out.split())
    return a, b, int(f["wait_ns"]), int(f["cpu_ns"]) + int(f["delay_ns"])


def uring_no_disk(k):
    """An io_uring wait on a pipe is iowait by the kernel's rule, no disk."""
    a, b, wait, cpu = iou_wait(move=False)
    k.within("io_uring: cpu1 iowait = the wait",
             iow.delta(a, b, 1, "iowait_ns"), wait - cpu, rel=0.02)
    for col in ("blk_local_ns", "blk_any_ns"):
        k.result(iow.delta(a, b, 1, col) <= 0.01 * wait,
                 f"io_uring: cpu1 {col} near zero")


def misbooking(k):
    """A wakeup that migrates the sleeper: the kernel books idle, we don't."""
    a, b, wait, cpu = iou_wait(move=True)
    got = iow.delta(a, b, 1, "iowait_ns")
    k.within("misbooking: cpu1 iowait = the wait", got, wait - cpu, rel=0.02)
    k.result(iow.delta(a, b, 1, "remote_dec_idle") >= 1,
             "misbooking: a remote decrement on idle cpu1 is counted")
    kern = iow.delta(a, b, 1, "k_iowait_ns")
    k.diag(f"misbooking: truth {(wait - cpu) / 1e6:.0f} ms, iowprobe "
           f"{got / 1e6:.0f} ms, kernel {kern / 1e6:.0f} ms "
           f"(kernel error {100.0 * (kern - (wait - cpu)) / (wait - cpu):.0f}%)")


def mirror_vs_kernel(k):
    """Σ nr_iowait mirrors = /proc/stat procs_blocked under steady I/O."""
    dev = iow.nullb(100_000_000)
    script = ("import sys; sys.path.insert(0, %r); import iowprobe as i; "
              "i.direct_reads(%r, 6)" % (HERE, dev))
    readers = [subprocess.Popen(["taskset", "-c", str(c), sys.executable,
                                 "-c", script]) for c in (0, 1)]
    time.sleep(1)
    worst, samples = sample_mirror(4)
    for r in readers:
        r.wait()
    k.diag(f"{samples} samples, largest difference {worst}")
    k.result(samples >= 20 and worst <= 1,
             "mirror: all nr_iowait matches procs_blocked within 1")
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


def sample_mirror(seconds):
    """Largest distance of all nr_iowait from procs_blocked over `seconds`,
    and the number of samples.  The two files cannot be read at one
    instant: a sample counts only when procs_blocked read just before and
    just after agree (a slow read can straddle several changes)."""
    worst, samples = 0, 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        before = iow.procs_blocked()
        rows, _ = iow.read_cpus()
        after = iow.procs_blocked()
        if before == after:
            worst = max(worst, abs(rows["all"]["nr_iowait"] - before))
            samples += 1
        time.sleep(0.05)
    return worst, samples


def contended(k):
    """Readers sharing their CPU with a hog: 6.12 delays their dequeues
    (EEVDF lag), and the mirror must still follow nr_iowait."""
    dev = iow.nullb(20_000_000)
    script = ("import sys; sys.path.insert(0, %r); import iowprobe as i; "
              "i.direct_reads(%r, 5)" % (HERE, dev))
    procs = []
    for c in (0, 1):
        procs.append(subprocess.Popen(["taskset", "-c", str(c), "sh", "-c",
                                       "while :; do :; done"]))
        procs.append(subprocess.Popen(["taskset", "-c", str(c),
                                       sys.executable, "-c", script]))
    s0 = iow.read_status()
    time.sleep(0.5)
    worst, samples = sample_mirror(3)
    for p in procs[1::2]:
        p.wait()
    for p in procs[0::2]:
        p.kill()
        p.wait()
    s1 = iow.read_status()
    parked = int(s1["delayed_parked"]) - int(s0["delayed_parked"])
    blocked = int(s1["delayed_blocked"]) - int(s0["delayed_blocked"])
    k.diag(f"contended: {samples} samples, largest difference {worst}; "
           f"delayed dequeues {parked}, found blocked later {blocked}")
    k.result(samples >= 10 and worst <= 1,
             "contended: all nr_iowait matches procs_blocked within 1")
    if "sched_delayed" in open("/proc/kallsyms").read(0) or \
            os.uname().release >= "6.12":
        k.result(parked > 0, "contended: delayed dequeues were followed")
    else:
        k.skip("contended: delayed dequeues were followed",
               "no delayed dequeue before 6.12")
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


def no_leaks(k):
    """Once the load is gone, no task or request is still followed."""
    time.sleep(0.5)
    st = iow.read_status()
    rows, _ = iow.read_cpus()
    k.diag(f"task_pool {st['task_pool']}, request_pool {st['request_pool']}, "
           f"anomalies {rows['all']['anomalies']}")
    k.result(st["task_pool"].startswith("0/") and
             st["request_pool"].startswith("0/"),
             "no leaks: pools empty when idle")
    k.result(rows["all"]["anomalies"] == 0 and
             int(st["request_anomalies"]) == 0,
             "no anomalies under these workloads")


def dmesg_clean(k, mark):
    lines = subprocess.run(["dmesg"], capture_output=True,
                           text=True).stdout.splitlines()[mark:]
    bad = [ln for ln in lines
           if any(w in ln for w in ("WARNING:", "BUG:", "Oops",
                                    "circular locking", "soft lockup",
                                    "stall"))]
    for ln in bad:
        k.diag(ln)
    k.result(not bad, "dmesg: no warning, bug or lockdep report")


def main():
    if os.geteuid() != 0 or "IOWPROBE_KO" not in os.environ:
        print("1..0 # SKIP needs root in the test box (IOWPROBE_KO)")
        sys.exit(4)
    k = iow.Ktap(23)
    mark = len(subprocess.run(["dmesg"], capture_output=True,
                              text=True).stdout.splitlines())
    loaded = load_module()
    for test in (conservation, ground_truth, plain_sleep, uring_no_disk,
                 misbooking, mirror_vs_kernel, contended, no_leaks):
        try:
            test(k)
        except Exception as e:  # a broken step fails, the rest still runs
            k.result(False, f"{test.__name__}: {e!r}")
    if loaded:
        subprocess.run(["rmmod", "iowprobe"], check=False)
    dmesg_clean(k, mark)
    k.finish()


if __name__ == "__main__":
    main()
