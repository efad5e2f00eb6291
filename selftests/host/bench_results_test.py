#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# bench_results_test.py - scripts/bench_results.py on the host: the order
# of the rounds, each tool's output as scripts/bench-guest captures it read
# as ns per operation, and the CSV files it writes, byte for byte as
# scripts/bench-report reads them
#
# usage: bench_results_test.py [ignored...]
# Prints TAP with a Totals line; exit 0 when every test passed, 1 otherwise.
import os
import subprocess
import sys
import tempfile

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

SCRIPT = os.path.join(iow.REPO, "scripts", "bench_results.py")
sys.path.insert(0, os.path.dirname(SCRIPT))
import bench_results as br  # noqa: E402

TMP = tempfile.mkdtemp(prefix="bench-results-test.")

# what the workloads print, as bench-guest keeps it (stdout and stderr)
PERF_PIPE = """\
# Running 'sched/pipe' benchmark:
# Executed 2000 pipe operations between two processes

     Total time: 0.055 [sec]

      27.583000 usecs/op
          36254 ops/sec
"""
FIO_JSON = """\
fio: file hash not empty on exit
{
  "fio version" : "fio-3.33",
  "jobs" : [
    {
      "jobname" : "randread",
      "read" : {
        "io_bytes" : 819200000,
        "total_ios" : 200000,
        "runtime" : 1341,
        "iops" : 149142.431022
      }
    }
  ]
}
"""
DD = """\
512+0 records in
512+0 records out
33554432 bytes (34 MB, 32 MiB) copied, 0.209256 s, 160 MB/s
"""
SLEEPERS = """\
procs 1250 cgroups 4 reads 39219 ns_per_read 12748.9 asleep_avg 998.4 \
blocked_max 1041 blocked_avg 905.9 busy_pct 99.3 inflight_avg 1001.2
"""
# iowstat --bpf's last lines with IOWSTAT_BPF_STATS=1
BPF_STATS = """\
iowstat: --bpf: stats: tasks_full 0 pending_full 2 rqs_full 5 \
clock_deferred 0 map_busy 0 rq_anomalies 0 delayed_parked 0 \
delayed_blocked 0 late_block 0 seeded 3 seed_raced 0
iowstat: --bpf: not everything was followed: 2 iowait sleeps, 5 requests
"""
# iowprobe's debugfs status before and after a run: 1000 hits between
STATUS_BEFORE = """\
abi: 1
events_sched_switch: 4000
events_sched_waking: 2000
events_block_rq_issue: 10
events_block_rq_complete: 10
task_pool_exhausted: 0
procs_pool_exhausted: 0
"""
STATUS_AFTER = """\
abi: 1
events_sched_switch: 4600
events_sched_waking: 2390
events_block_rq_issue: 15
events_block_rq_complete: 15
task_pool_exhausted: 0
procs_pool_exhausted: 0
"""
# perf stat -x, -e task-clock of iowstat 1 1 and of iowstat 1 11
STAT_FIRST = """\
# started on Tue Dec  1 10:37:49 2026

4.19,msec,task-clock,4187761,100.00,0.648,CPUs utilized
"""
STAT_ALL = """\
# started on Tue Dec  1 10:37:49 2026

11.610001,msec,task-clock,11610001,100.00,0.001,CPUs utilized
"""
READCOST = "reads 50 median_ns 55190 min_ns 54012 bytes 1377\n"


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def equal(got, want, what):
    check(got == want, f"{what}:\n{got!r}\nexpected:\n{want!r}")


def write(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def read(path):
    with open(path) as f:
        return f.read()


def run(*args, stdin=""):
    return subprocess.run([sys.executable, SCRIPT] + [str(a) for a in args],
                          input=stdin, capture_output=True, text=True,
                          timeout=60)


def outdir():
    return tempfile.mkdtemp(dir=TMP)


@iow.test
def rounds_rotate_by_one_after_the_warm_up():
    res = run("schedule", 2, 1, "nothing", "floor", "iowprobe")
    equal(res.returncode, 0, "exit status")
    equal(res.stdout, "0 nothing floor iowprobe\n"
          "1 floor iowprobe nothing\n"
          "2 iowprobe nothing floor\n", "schedule with a warm-up")
    equal(br.schedule(3, 0, ["a", "b"]),
          [(1, ["b", "a"]), (2, ["a", "b"]), (3, ["b", "a"])],
          "schedule without a warm-up")


@iow.test
def each_tool_output_read_as_ns_per_operation():
    equal(br.ns_per_op("pipe", PERF_PIPE, 2000), 27583.0, "perf bench pipe")
    equal(br.ns_per_op("pinned", PERF_PIPE, 2000), 27583.0, "pinned")
    # 1341 ms over 200,000 I/Os, past fio's warning line
    equal(f"{br.ns_per_op('fio', FIO_JSON, 200000):.1f}", "6705.0", "fio")
    # 0.209256 s over 512 blocks: 408703.125, printed as printf does
    equal(f"{br.ns_per_op('copy', DD, 512):.1f}", "408703.1", "dd")
    # the window over the reads, and the reads its own count
    equal(br.ns_per_op("sleepers", SLEEPERS, 0), 12748.9, "sleepers")
    equal(br.ops_done("sleepers", SLEEPERS, 0), 39219, "sleepers' reads")
    equal(br.inflight(br.sleepers_figures(SLEEPERS)), "1001.2",
          "the disk's requests in flight")
    equal(br.inflight(br.sleepers_figures(
        SLEEPERS.replace(" inflight_avg 1001.2", ""))), "",
        "a sleepers that did not sample the disk: no figure, not 0")
    equal(br.ops_done("copy", DD, 512), 512, "dd's blocks")
    equal(br.status_events(STATUS_AFTER) - br.status_events(STATUS_BEFORE),
          1000, "tracepoint hits between two status reads")
    equal(br.status_events(""), 0, "an unreadable status")


@iow.test
def output_without_a_figure_is_refused():
    for workload, text in (("pipe", "perf: not found\n"),
                           ("fio", "fio: no such device\n"),
                           ("fio", FIO_JSON.replace('"total_ios" : 200000',
                                                    '"total_ios" : 0')),
                           ("copy", "dd: error writing: No space left\n"),
                           ("sleepers", "sleepers: /dev/x: No such file\n"),
                           ("sleepers", SLEEPERS.replace("reads 39219",
                                                         "reads 0"))):
        try:
            br.ns_per_op(workload, text, 512)
        except br.NoFigure:
            continue
        raise AssertionError(f"{workload}: a figure from {text!r}")


@iow.test
def raw_and_events_csv_rows():
    d = outdir()
    equal(run("start", d).returncode, 0, "start")
    perf = write("perf", PERF_PIPE)
    fio = write("fio", FIO_JSON)
    dd = write("dd", DD)
    sl = write("sleepers", SLEEPERS)
    st = (write("before", STATUS_BEFORE), write("after", STATUS_AFTER))
    for args in ((0, "nothing", "pipe", 2000, perf),     # warm-up: not kept
                 (1, "nothing", "pipe", 2000, perf),
                 (1, "nothing", "fio", 200000, fio),
                 (1, "nothing", "copy", 512, dd),
                 (1, "iowprobe", "pinned", 2000, perf) + st,
                 (2, "iowprobe", "copy", 512, dd) + st,
                 (0, "iowprobe", "sleepers", 0, sl) + st,
                 (2, "iowprobe", "sleepers", 0, sl) + st,
                 (1, "clockfloor", "sweep100", 0, sl)):
        res = run("record", d, *args)
        equal((res.returncode, res.stderr), (0, ""), f"record {args}")
    equal(read(os.path.join(d, "raw.csv")),
          "round,config,workload,ns_per_op\n"
          "1,nothing,pipe,27583.0\n"
          "1,nothing,fio,6705.0\n"
          "1,nothing,copy,408703.1\n"
          "1,iowprobe,pinned,27583.0\n"
          "2,iowprobe,copy,408703.1\n"
          "2,iowprobe,sleepers,12748.9\n"
          "1,clockfloor,sweep100,12748.9\n", "raw.csv")
    equal(read(os.path.join(d, "events.csv")),
          "round,config,workload,ops,events\n"
          "1,iowprobe,pinned,2000,1000\n"
          "2,iowprobe,copy,512,1000\n"
          "2,iowprobe,sleepers,39219,1000\n", "events.csv")
    equal(read(os.path.join(d, "sleepers.csv")),
          "round,config,workload,procs,cgroups,reads,asleep_avg,"
          "blocked_max,blocked_avg,mem_avail_kb,inflight_avg\n"
          "2,iowprobe,sleepers,1250,4,39219,998.4,1041,905.9,-1,1001.2\n"
          "1,clockfloor,sweep100,1250,4,39219,998.4,1041,905.9,-1,"
          "1001.2\n",
          "sleepers.csv (a size of the sweep too; no memory figure: -1)")
    kept = read(os.path.join(d, "raw.csv"))
    res = run("record", d, 3, "nothing", "pipe", 2000,
              write("bad", "perf: not found\n"))
    equal(res.returncode, 1, "a run without a figure: exit status")
    check(res.stderr.count("\n") == 1 and "usecs/op" in res.stderr,
          f"a run without a figure: one line saying why, got {res.stderr!r}")
    equal(read(os.path.join(d, "raw.csv")), kept,
          "raw.csv after a run without a figure")


@iow.test
def a_run_in_which_iowprobe_ran_out_of_a_pool_is_refused():
    d = outdir()
    equal(run("start", d).returncode, 0, "start")
    after = STATUS_AFTER.replace("task_pool_exhausted: 0",
                                 "task_pool_exhausted: 7")
    res = run("record", d, 1, "iowprobe", "sleepers", 0,
              write("sleepers", SLEEPERS), write("before", STATUS_BEFORE),
              write("after-exhausted", after))
    equal(res.returncode, 1, "exit status")
    check(res.stderr.count("\n") == 1 and
          "task_pool_exhausted +7" in res.stderr,
          f"one line naming the pool, got {res.stderr!r}")
    equal(read(os.path.join(d, "raw.csv")),
          "round,config,workload,ns_per_op\n", "raw.csv")
    # exhausted before the run, not during it: not this run's doing
    res = run("record", d, 1, "iowprobe", "sleepers", 0,
              write("sleepers", SLEEPERS), write("before-exhausted", after),
              write("after-exhausted", after))
    equal((res.returncode, res.stderr), (0, ""), "exhausted before")


@iow.test
def the_window_s_own_hits_when_the_run_copied_its_edges():
    d = outdir()
    equal(run("start", d).returncode, 0, "start")
    opened = STATUS_BEFORE.replace("4000", "4100")
    closed = STATUS_BEFORE.replace("4000", "4350")
    exhausted = STATUS_AFTER.replace("task_pool_exhausted: 0",
                                     "task_pool_exhausted: 2")
    sl = write("sleepers", SLEEPERS)
    edges = (write("open", opened), write("close", closed))
    res = run("record", d, 1, "iowprobe", "sweep1000", 0, sl,
              write("before", STATUS_BEFORE), write("after", STATUS_AFTER),
              *edges)
    equal((res.returncode, res.stderr), (0, ""), "record with the edges")
    equal(read(os.path.join(d, "events.csv")),
          "round,config,workload,ops,events\n"
          "1,iowprobe,sweep1000,39219,250\n",
          "events.csv: the 250 hits of the window, not the run's 1000")
    # a pool that ran out in the warm-up counts: before and after decide
    res = run("record", d, 2, "iowprobe", "sweep1000", 0, sl,
              write("before", STATUS_BEFORE), write("after-ex", exhausted),
              *edges)
    equal(res.returncode, 1, "a pool that ran out outside the window")
    res = run("record", d, 2, "iowprobe", "sweep1000", 0, sl,
              write("before", STATUS_BEFORE), write("after", STATUS_AFTER),
              edges[0])
    equal(res.returncode, 2, "three status files: a usage error")


@iow.test
def bpf_csv_what_the_maps_could_not_hold():
    d = outdir()
    equal(run("start", d).returncode, 0, "start")
    out = write("bpf", "  r  b   swpd ...\n" + BPF_STATS)
    for r in (0, 1):
        res = run("bpf", d, r, out)
        equal((res.returncode, res.stderr), (0, ""), f"bpf round {r}")
    res = run("bpf", d, 1, out, "--workload", "sweep10000")
    equal((res.returncode, res.stdout),
          (0, "tasks_full 0 pending_full 2 rqs_full 5\n"),
          "bpf for one size of the sweep: its counters printed")
    equal(read(os.path.join(d, "bpf.csv")),
          "round,workload,tasks_full,pending_full,rqs_full\n"
          "1,all,0,2,5\n"
          "1,sweep10000,0,2,5\n", "bpf.csv (the warm-up only read)")
    res = run("bpf", d, 2, write("bpf-killed", "iowstat: killed\n"))
    equal(res.returncode, 1, "no stats line: exit status")
    check("--bpf: stats:" in res.stderr, f"why, got {res.stderr!r}")


@iow.test
def clockreads_csv_counts_or_why_not():
    d = outdir()
    equal(run("start", d).returncode, 0, "start")
    equal(run("reads", d, "nothing", "pipe", 21473, 20250).returncode, 0,
          "a count")
    equal(run("reads", d, "--not-measured",
              "no HPET clocksource, here").returncode, 0, "why not")
    res = run("reads", d, "iowprobe", "pipe")
    equal(res.returncode, 2, "a count without its events: exit status")
    equal(read(os.path.join(d, "clockreads.csv")),
          "config,workload,reads,events,note\n"
          "nothing,pipe,21473,20250,\n"
          "any,any,n/a,n/a,no HPET clocksource; here\n",
          "clockreads.csv")


@iow.test
def na_csv_one_row_per_pair_any_first():
    d = outdir()
    res = run("na", d, "nothing,floor,iowprobe", "pipe,fio",
              stdin="iowprobe/pipe\tpipe failed: perf: no, not that\n"
                    "any/fio\tnull_blk: not found\n"
                    "floor\tinsmod: Operation not permitted\n")
    equal(res.returncode, 0, "exit status")
    equal(read(os.path.join(d, "na.csv")),
          "config,workload,reason\n"
          "nothing,fio,null_blk: not found\n"
          "floor,pipe,insmod: Operation not permitted\n"
          "floor,fio,null_blk: not found\n"
          "iowprobe,pipe,pipe failed: perf: no; not that\n"
          "iowprobe,fio,null_blk: not found\n", "na.csv")


@iow.test
def reader_csv_cpu_per_sample_and_a_read_of_cpus():
    d = outdir()
    res = run("reader", d, "--samples", 11, "--first",
              write("first", STAT_FIRST), "--all", write("all", STAT_ALL),
              "--readcost", write("cost", READCOST), "--readcost-rc", 0)
    equal(res.returncode, 0, "exit status")
    # (11610001 - 4190000) / 10 = 742000.1, whole ns: 742000
    equal(read(os.path.join(d, "reader.csv")),
          "metric,value,unit\n"
          "iowstat_cpu_first,4190000,ns\n"
          "iowstat_cpu_per_sample,742000,ns\n"
          "iowstat_cpu_share,0.0742,% of one CPU\n"
          "cpus_read,55190,ns\n"
          "cpus_read_min,54012,ns\n"
          "cpus_bytes,1377,bytes\n", "reader.csv")


@iow.test
def reader_csv_what_could_not_be_measured():
    d = outdir()
    cost = write("cost-failed", "readcost: /x/cpus: No such file, really\n")
    equal(run("reader", d, "--samples", 11, "--readcost", cost,
              "--readcost-rc", 1).returncode, 0, "exit status")
    equal(read(os.path.join(d, "reader.csv")),
          "metric,value,unit\n"
          "iowstat_cpu_per_sample,n/a,perf stat failed\n"
          "cpus_read,n/a,n/a readcost: /x/cpus: No such file; really\n",
          "perf stat and readcost failed")
    equal(run("reader", d, "--not-measured", "insmod: File exists").returncode,
          0, "exit status")
    equal(read(os.path.join(d, "reader.csv")),
          "metric,value,unit\n"
          "iowstat_cpu_per_sample,n/a,insmod: File exists\n",
          "iowprobe not attached")
    # the start-up cancelled, a later sample can come out cheaper: the
    # difference is rounded toward zero, not down
    rows = br.iowstat_rows(4, "1,msec,task-clock\n",
                           "1.00001,msec,task-clock\n")
    equal(rows[1], ("iowstat_cpu_per_sample", 3, "ns"), "10 ns / 3")
    # of several runs, the least
    rows = br.iowstat_rows(2, "1,msec,task-clock\n3,msec,task-clock\n",
                           "2,msec,task-clock\n1.5,msec,task-clock\n")
    equal(rows[1], ("iowstat_cpu_per_sample", 500000, "ns"),
          "1.5 ms - 1 ms, the least of each")
    # a start-up that scattered more than the samples cost: n/a, with both
    rows = br.iowstat_rows(4, "1,msec,task-clock\n",
                           "0.99999,msec,task-clock\n")
    equal(rows[1], ("iowstat_cpu_per_sample", "n/a",
                    "start-up scatter above 3 samples: iowstat 1 1 took "
                    "1000000 ns; iowstat 1 4 999990 ns"), "not positive")
    equal(rows[2][1:], rows[1][1:], "the share n/a for the same reason")


sys.exit(iow.run_tap(TMP))
