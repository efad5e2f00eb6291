# SPDX-License-Identifier: GPL-2.0-only
"""Who waits: the procs and cgroups files against ground truth.

Runs as root in the test box (selftests/guest/test_attribution.sh), as KTAP.
Each figure is checked against what the readers measure of themselves
(wall time, their own CPU time and run delay, the instants of each of
their reads), never against iowprobe's own output."""

import contextlib
import mmap
import os
import subprocess
import sys
import tempfile
import time

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

IOU_WAIT = os.path.join(iow.OUT, "iou_wait")
LOADGEN = os.path.join(iow.OUT, "loadgen")
TIMED_READS = os.path.join(iow.OUT, "timed_reads")
CGROOT = iow.CGROOT
FIGURES = ("wait_ns", "wait_blk_ns", "wa_ns", "sleeps")
# wait_ns by where the sleeper waited (include/iowprobe_wait_kinds.h)
KINDS = ("wait_uring_ns", "wait_rw_ns", "wait_sync_ns", "wait_fault_ns",
         "wait_other_ns")
# a workload that waits in one kind only: that kind's least part of its
# wait (the rest: the rare wait of another kind a process cannot avoid)
ONE_KIND = 0.95
REAP_S = 5                      # the module's reaper runs this often
# A reader's clocks see each sleep begin when its CPU clock stops, at the
# dequeue; iowprobe sees it at the switch, after the scheduler has picked
# the next task.  That path is neither the reader's CPU time nor its run
# delay, so the readers' view of a wait runs ahead of iowprobe's by it at
# every sleep: under TCG, over 12 runs in CI, iowprobe's wait fell short
# of the readers' by 3 to 87 us a sleep (the most on 6.12, for the reader
# that shares the CPU all its life); a microsecond on hardware.
SWITCH_PATH_NS = 100_000
# A read whose reader is preempted inside io_schedule(), before it leaves
# the CPU, and completed meanwhile is no sleep at all: its wait is run
# delay.  Measured: 1 read of 300 on 7.3-rt, 9 of 300 on the debug kernel
# (not asserted there); none elsewhere.
NO_SLEEP_SHARE = 0.02


def procs():
    """{pid: row} of the procs file, and its instant"""
    rows = iow.read_table("procs")
    return {int(r["pid"]): r for r in rows}, rows[0]["now_ns"] if rows else 0


def cgroups():
    return {int(r["cgroup"]): r for r in iow.read_table("cgroups")}


def cgroup_make(name):
    """A fresh cgroup v2 under the root: (path, id); the id is the inode"""
    iow.mount_cgroup2()
    path = os.path.join(CGROOT, name)
    if not os.path.isdir(path):
        os.mkdir(path)
    return path, os.stat(path).st_ino


def spawn_reader(dev, count, cgroup):
    """timed_reads in cgroup, pinned to cpu1, ready and waiting for go"""
    def join():
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
        iow.pin(1)
    p = subprocess.Popen([TIMED_READS, dev, str(count)], preexec_fn=join,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("timed_reads did not start")
    return p


def measured(p, count):
    """What timed_reads measured of itself, as a dict with its spans"""
    m = {kv.split("=")[0]: int(kv.split("=")[1])
         for kv in p.stdout.readline().split()}
    m["spans"] = [tuple(int(x) for x in p.stdout.readline().split())
                  for _ in range(count)]
    return m


def shares(readers):
    """Each reader's share of cpu1's iowait as their reads say it must be:
    cpu1 idles while every reader still reading waits on a read; each of
    the n waiting then earns 1/n of that time."""
    edges = sorted({t for r in readers for s in r["spans"] for t in s} |
                   {r["start"] for r in readers} |
                   {r["end"] for r in readers})
    got = [0.0] * len(readers)
    idx = [0] * len(readers)
    for lo, hi in zip(edges, edges[1:]):
        waiting, running = [], 0
        for n, r in enumerate(readers):
            if not r["start"] <= lo < r["end"]:
                continue
            spans = r["spans"]
            while idx[n] < len(spans) and spans[idx[n]][1] <= lo:
                idx[n] += 1
            if idx[n] < len(spans) and spans[idx[n]][0] <= lo:
                waiting.append(n)
            else:
                running += 1
        if waiting and not running:
            for n in waiting:
                got[n] += (hi - lo) / len(waiting)
    return got


def kinds_add_up(k, what, row):
    k.result(sum(row[c] for c in KINDS) == row["wait_ns"],
             f"{what}: the kinds add up to wait_ns")


def kinds_of_one(k, what, row0, row1, kind):
    """Over two reads of a row: its wait_ns is wholly sorted into the
    five kinds, and at least ONE_KIND of it into @kind, the only one its
    workload waits in (its own ground truth)"""
    d = {c: row1[c] - row0.get(c, 0) for c in ("wait_ns",) + KINDS}
    k.diag(f"{what}: wait {d['wait_ns'] / 1e6:.1f} ms, by kind " +
           " ".join(f"{c[5:-3]} {d[c] / 1e6:.1f}" for c in KINDS))
    kinds_add_up(k, what, row1)
    k.result(d["wait_ns"] > 0 and d[kind] >= ONE_KIND * d["wait_ns"],
             f"{what}: {kind} is at least {ONE_KIND:.0%} of wait_ns")


def timed(k, desc, check):
    """A check against the readers' own clocks: on a debug kernel, where
    KASAN and lockdep run between the points those clocks are read and
    iowprobe's tracepoints (measured: wait_ns 5% under the readers' view,
    9 of 300 reads with no sleep of their own), it is reported, not
    asserted.  The exact identities are asserted everywhere."""
    if iow.debug_kernel():
        k.skip(desc, "a debug kernel's timing; asserted on the release "
               "kernels")
    else:
        check(desc)


def two_readers(k):
    """Two processes in two cgroups, pinned to cpu1, reading null_blk."""
    dev = iow.nullb(iow.SERVICE_NS, irqmode=2)
    paths = [cgroup_make(f"iowprobe-{x}") for x in "ab"]
    counts = (300, 100)
    kids = [spawn_reader(dev, n, p) for n, (p, _) in zip(counts, paths)]
    pa, _ = procs()
    ca = cgroups()
    a, _ = iow.read_cpus()
    for p in kids:
        p.stdin.write("go\n")
        p.stdin.flush()
    meas = [measured(p, n) for p, n in zip(kids, counts)]
    pb, _ = procs()
    cb = cgroups()
    b, _ = iow.read_cpus()
    for p in kids:
        p.stdin.write("exit\n")
        p.stdin.flush()
        p.wait()
    want_wa = shares(meas)
    got_wa = []
    for p, m, share, (_, cgid) in zip(kids, meas, want_wa, paths):
        row0 = pa.get(p.pid, dict.fromkeys(FIGURES, 0))
        row1 = pb[p.pid]
        d = {c: row1[c] - row0[c] for c in FIGURES}
        truth = m["wall"] - m["cpu"] - m["delay"]
        k.diag(f"pid {p.pid}: {len(m['spans'])} reads, wait "
               f"{d['wait_ns'] / 1e6:.1f} ms (truth {truth / 1e6:.1f}), "
               f"blk {d['wait_blk_ns'] / 1e6:.1f} ms, wa "
               f"{d['wa_ns'] / 1e6:.1f} ms (overlap says "
               f"{share / 1e6:.1f}), sleeps {d['sleeps']}, dev "
               f"{row1['dev']}")
        timed(k, f"pid {p.pid}: one sleep a read, but for reads done "
              "before their reader left the CPU",
              lambda desc: k.between(desc, d["sleeps"],
                                     (1 - NO_SLEEP_SHARE) * len(m["spans"]),
                                     len(m["spans"])))
        timed(k, f"pid {p.pid}: wait_ns = wall - cpu - run delay, less "
              "the switch path of each sleep",
              lambda desc: k.between(desc, d["wait_ns"],
                                     0.98 * truth - d["sleeps"] *
                                     SWITCH_PATH_NS, 1.02 * truth))
        timed(k, f"pid {p.pid}: wait_blk_ns in 95-100% of wait_ns",
              lambda desc: k.between(desc, d["wait_blk_ns"],
                                     0.95 * d["wait_ns"], d["wait_ns"],
                                     rel=0.001))
        kinds_of_one(k, f"pid {p.pid}: reads", pa.get(p.pid, {}), row1,
                     "wait_rw_ns")
        got_wa.append(d["wa_ns"])
        k.result(row1["dev"] == nullb_dev(), f"pid {p.pid}: device is "
                 f"nullb0 ({row1['dev']})")
        g0 = ca.get(cgid, {"wait_ns": 0, "wa_ns": 0})
        g1 = cb[cgid]
        k.within(f"pid {p.pid}: its cgroup's wait_ns = its own",
                 g1["wait_ns"] - g0["wait_ns"], d["wait_ns"], rel=0.001)
    iowait = iow.delta(a, b, 1, "iowait_ns")
    k.within("wa_ns of the two add up to cpu1's iowait_ns", sum(got_wa),
             iowait, rel=0.005)
    # The reads' spans also hold the readers' own way in and out of the
    # kernel, so they overstate both waits alike: compare the split, to 3
    # points (measured on a quiet machine: 0.0-1.2; 2.0 once with two more
    # test boxes on its two cores).  An even split would be 50%.
    got = got_wa[0] / sum(got_wa)
    want = want_wa[0] / sum(want_wa)
    k.diag(f"wa split: {100 * got:.1f}% to the first, the overlap of the "
           f"reads says {100 * want:.1f}%")
    timed(k, "wa_ns splits as the overlap of the reads says",
          lambda desc: k.within(desc, 100 * got, 100 * want, absolute=3))
    for p, _ in paths:
        os.rmdir(p)
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


@contextlib.contextmanager
def bpf_attached():
    """iowstat --bpf attach, pinned on a bpffs mounted for the test, beside
    the module; yields the environment that points iowstat at it"""
    with iow.bpffs() as (env, _):
        r = subprocess.run([iow.IOWSTAT, "--bpf", "attach"], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"iowstat --bpf attach: {r.stderr.strip()}")
        yield env


def bpf_tables(env):
    """The BPF backend's procs, cgroups and cpus now, as the two samples
    of a one-interval --top --record: [{name: {key: row}}] * 2"""
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "rec")
        r = subprocess.run([iow.IOWSTAT, "--bpf", "--top", "--record", rec,
                            "-o", "json", "1", "1"], env=env,
                           capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"iowstat --bpf --top: {r.stderr.strip()}")
        samples = iow.read_recording(rec)["samples"]
    key = {"procs": "pid", "cgroups": "cgroup", "cpus": "cpu"}
    tables = []
    for files in (s["files"] for s in samples):
        t = {}
        for name, col in key.items():
            rows = iow.parse_table(files[f"bpf/iowprobe/{name}"], name)
            t[name] = {(r[col] if col == "cpu" else int(r[col])): r
                       for r in rows}
        tables.append(t)
    return tables


def bpf_agrees(k):
    """The BPF backend beside the module, on the two readers: each
    process's and cgroup's figures agree within 1% of the window, and the
    wa_ns of all processes add up to its own iowait_ns."""
    dev = iow.nullb(iow.SERVICE_NS, irqmode=2)
    paths = [cgroup_make(f"iowprobe-bpf-{x}") for x in "ab"]
    # about a second of reads: the two backends stamp each event in turn,
    # and a host that deschedules the vCPU between the module's probe and
    # the BPF program (a few ms under TCG on a loaded host; seen once on
    # a completion, 4.9 ms of wait_blk_ns in a 344 ms window) must stay
    # inside 1% of the window
    counts = (450, 150)
    with bpf_attached() as env:
        kids = [spawn_reader(dev, n, p) for n, (p, _) in
                zip(counts, paths)]
        ma, ca, ba = procs()[0], cgroups(), bpf_tables(env)[-1]
        for p in kids:
            p.stdin.write("go\n")
            p.stdin.flush()
        meas = [measured(p, n) for p, n in zip(kids, counts)]
        mb, cb, bb = procs()[0], cgroups(), bpf_tables(env)[0]
        for p in kids:
            p.stdin.write("exit\n")
            p.stdin.flush()
            p.wait()
    window = max(m["end"] for m in meas) - min(m["start"] for m in meas)
    k.diag(f"bpf: the readers' window {window / 1e6:.1f} ms")
    zero = dict.fromkeys(FIGURES, 0)

    def agree(what, mod0, mod1, bpf0, bpf1):
        for c in FIGURES + KINDS:
            want = mod1[c] - mod0.get(c, 0)
            got = bpf1[c] - bpf0.get(c, 0)
            bound = 1 if c == "sleeps" else 0.01 * window
            k.diag(f"{what}: {c} bpf {got} module {want}")
            k.result(abs(got - want) <= bound, f"bpf: {what}: {c} is the "
                     "module's, within 1% of the window")

    for p, (_, cgid) in zip(kids, paths):
        agree(f"pid {p.pid}", ma.get(p.pid, zero), mb[p.pid],
              ba["procs"].get(p.pid, zero), bb["procs"].get(p.pid, zero))
        agree(f"cgroup {cgid}", ca.get(cgid, zero), cb[cgid],
              ba["cgroups"].get(cgid, zero), bb["cgroups"].get(cgid, zero))
    # every process's share, against every CPU's iowait: a row read after
    # its exit is gone from the next read, with nothing more to add
    wa = sum(r["wa_ns"] - ba["procs"].get(pid, zero)["wa_ns"]
             for pid, r in bb["procs"].items())
    iowait = (bb["cpus"]["all"]["iowait_ns"] -
              ba["cpus"]["all"]["iowait_ns"])
    k.within("bpf: wa_ns of all processes add up to its iowait_ns", wa,
             iowait, rel=0.005)
    for p, _ in paths:
        os.rmdir(p)
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


def nullb_dev():
    with open("/sys/block/nullb0/dev") as f:
        return f.read().strip()


def uring_pipe(k):
    """An io_uring wait on a pipe is iowait with no disk in it; the row
    of the process stays after it exits, until read."""
    p = subprocess.run([IOU_WAIT, "1", "0", "500"], check=True,
                       capture_output=True, text=True)
    f = dict(kv.split("=") for kv in p.stdout.split())
    # the row is marked when the kernel frees the process, after an RCU
    # grace period: wait for that, reading only its status
    row = None
    for _ in range(100):
        rows, _ = procs()
        row = next((r for r in rows.values() if r["comm"] == "iou_wait"),
                   None)
        if row is None or row["exited"]:
            break
        time.sleep(0.05)
    k.result(row is not None and row["exited"] == 1,
             "io_uring: the exited process's row is kept until read")
    if row is None:
        return
    k.diag(f"io_uring: wait {row['wait_ns'] / 1e6:.1f} ms in "
           f"{row['sleeps']} sleeps (the tool's "
           f"{int(f['wait_ns']) / 1e6:.1f} ms, of which "
           f"{int(f['delay_ns']) / 1e6:.1f} ms runnable and "
           f"{int(f['cpu_ns']) / 1e6:.1f} ms running), "
           f"blk {row['wait_blk_ns']}")
    k.result(row["wait_ns"] > 0, "io_uring: wait_ns > 0")
    # the row's wait ends at the wakeup; the tool's wall time goes on
    # while the woken sleeper waits for its CPU and runs its task work
    asleep = int(f["wait_ns"]) - int(f["delay_ns"]) - int(f["cpu_ns"])
    timed(k, "io_uring: wait_ns is the tool's time asleep, less 10%",
          lambda desc: k.result(row["wait_ns"] >= 0.9 * asleep, desc))
    k.result(row["wait_blk_ns"] == 0, "io_uring: wait_blk_ns = 0")
    # The row holds the process's whole life: its start waits too, in
    # faults and mlockall() (on 7.3, 52 ms of 468 once).  The wait in
    # io_uring_enter is bracketed by the tool's own clocks instead: no
    # less than its time asleep there, less 10% as wait_ns above, and no
    # more than its wall time there.
    k.diag("io_uring: by kind " + " ".join(
        f"{c[5:-3]} {row[c] / 1e6:.1f}" for c in KINDS) + " ms")
    kinds_add_up(k, "io_uring", row)
    timed(k, "io_uring: wait_uring_ns is the tool's time in "
          "io_uring_enter, asleep less 10% to all of it",
          lambda desc: k.between(desc, row["wait_uring_ns"], 0.9 * asleep,
                                 int(f["wait_ns"]), rel=0.01))
    time.sleep(2 * REAP_S)
    rows, _ = procs()
    k.result(int(row["pid"]) not in rows,
             "io_uring: the exited row, once read, is gone after the reaper")


# the kinds' workloads: fsyncs of one page each, and faults of pages of
# a mapping of the disk; each on a region of its own, not yet in the cache.
# The fsyncs span about a second, as bpf_agrees' reads: a vCPU descheduled
# between the module's probe and the BPF program stays inside 1% of the
# window (CI: 4.7 ms of wait_fault_ns in a window under 470 ms of 100
# fsyncs, on 6.12).  The mapping is MADV_RANDOM: no readahead, so each of
# its pages is a fault that waits for its own read.  With readahead, a slow
# reader never waits: the debug kernel's fell behind the async readahead of
# 3,200 pages in one run and waited not once (the pages came 32 a request).
SYNC_PAGES = 300
FAULT_PAGES = 300
FAULT_OFFSET = 1 << 30


def kind_child(mode, dev):
    """A process that waits in one kind only, between a "go" and a "done"
    line: sync (a page written and fsync()ed, SYNC_PAGES times) or fault
    (FAULT_PAGES pages of a read-only mapping of dev touched in turn,
    with no readahead: one read and one wait a page)"""
    fd = os.open(dev, os.O_RDWR)
    pages = SYNC_PAGES if mode == "sync" else FAULT_PAGES
    m = None
    if mode == "fault":
        m = mmap.mmap(fd, pages * mmap.PAGESIZE, prot=mmap.PROT_READ,
                      offset=FAULT_OFFSET)
        m.madvise(mmap.MADV_RANDOM)
    page = b"x" * mmap.PAGESIZE
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(pages):
        if m is None:
            os.pwrite(fd, page, i * mmap.PAGESIZE)
            os.fsync(fd)
        else:
            m[i * mmap.PAGESIZE]
    print("done", flush=True)
    sys.stdin.readline()


def spawn_kind(mode, dev):
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__),
                          "--kind-child", mode, dev],
                         preexec_fn=lambda: iow.pin(1), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the {mode} child did not start")
    return p


def where_they_wait(k):
    """An fsync loop waits in sync, a reader of a mapping in fault (and
    timed_reads in rw, two_readers; io_uring in uring, uring_pipe), by the
    module and by the BPF backend beside it, which agree per kind within
    1% of the window"""
    dev = iow.nullb(iow.SERVICE_NS, irqmode=2)
    kinds = {"sync": "wait_sync_ns", "fault": "wait_fault_ns"}
    with bpf_attached() as env:
        kids = {m: spawn_kind(m, dev) for m in kinds}
        ma, ba = procs()[0], bpf_tables(env)[-1]["procs"]
        t0 = time.monotonic_ns()
        for p in kids.values():
            p.stdin.write("go\n")
            p.stdin.flush()
        for m, p in kids.items():
            if p.stdout.readline().strip() != "done":
                raise RuntimeError(f"the {m} child failed")
        window = time.monotonic_ns() - t0
        mb, bb = procs()[0], bpf_tables(env)[0]["procs"]
        for p in kids.values():
            p.stdin.write("exit\n")
            p.stdin.flush()
            p.wait()
    k.diag(f"kinds: a window of {window / 1e6:.1f} ms")
    for m, p in kids.items():
        kinds_of_one(k, m, ma.get(p.pid, {}), mb[p.pid], kinds[m])
        kinds_of_one(k, f"bpf: {m}", ba.get(p.pid, {}), bb[p.pid], kinds[m])
        for c in KINDS:
            want = mb[p.pid][c] - ma.get(p.pid, {}).get(c, 0)
            got = bb[p.pid][c] - ba.get(p.pid, {}).get(c, 0)
            k.result(abs(got - want) <= 0.01 * window, f"bpf: {m}: {c} "
                     "is the module's, within 1% of the window",
                     [f"bpf {got / 1e6:.2f} ms, the module "
                      f"{want / 1e6:.2f} ms"])
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


def overflow(k):
    """More processes than the procs pool holds: counted, marked inexact,
    nothing lost from the per-CPU figures, exact again afterwards.  Loads
    the module with 16 rows a kind, and leaves it unloaded."""
    iow.unload_module()
    subprocess.run(["insmod", os.environ["IOWPROBE_KO"], "procs=16",
                    "cgroups=16"], check=True)
    dev = iow.nullb(iow.SERVICE_NS)
    load = subprocess.Popen([LOADGEN, "sleepers", dev, "40",
                             str(3 * iow.SLOWDOWN)], stdout=subprocess.DEVNULL)
    exhausted = iow.wait_for(
        lambda: int(iow.read_status()["procs_pool_exhausted"]) > 0, 3)
    k.result(exhausted, "overflow: sleeps with no free row counted")
    st = iow.read_status()
    k.result(st["exact_procs"] == "no", "overflow: exact_procs says no")
    rows, _ = procs()
    k.result(len(rows) <= 16, f"overflow: {len(rows)} rows of 16")
    k.result(load.wait() == 0, "overflow: the 40 readers ran")
    st = iow.read_status()
    k.result(st["exact_iowait"] == "yes" and
             st["task_pool_exhausted"] == "0",
             "overflow: the per-CPU figures followed every sleep")
    # the readers' rows, once read, go back to the pool; a sleep after
    # that finds a row, and a reaper period with no miss makes it exact
    procs()
    ok = iow.wait_for(lambda: procs() and
                      iow.read_status()["exact_procs"] == "yes", 4 * REAP_S)
    k.result(ok, "overflow: exact_procs says yes again afterwards")
    iow.unload_module()
    subprocess.run(["modprobe", "-r", "null_blk"], check=False)


def main():
    if sys.argv[1:2] == ["--kind-child"]:
        kind_child(*sys.argv[2:4])
        return
    iow.need_test_box()
    k = iow.Ktap()
    with iow.module_for(k):     # overflow() unloads it
        iow.run_each(k, (two_readers, bpf_agrees, uring_pipe,
                         where_they_wait, overflow))
    k.finish()


if __name__ == "__main__":
    main()
