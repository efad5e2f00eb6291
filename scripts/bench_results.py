#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# bench_results.py - scripts/bench-guest's arithmetic and its results
# files: the order of the rounds, each workload's output read as
# nanoseconds per operation, and raw.csv, events.csv, sleepers.csv,
# bpf.csv, na.csv and reader.csv (scripts/bench-report reads them)
#
# usage: bench_results.py schedule ROUNDS WARMUP CONFIG...
#        bench_results.py start OUTDIR
#        bench_results.py record OUTDIR ROUND CONFIG WORKLOAD OPS OUTPUT
#                         [STATUS_BEFORE STATUS_AFTER
#                          [STATUS_OPEN STATUS_CLOSE]]
#        bench_results.py bpf OUTDIR ROUND OUTPUT [--workload WORKLOAD]
#        bench_results.py na OUTDIR CONFIGS WORKLOADS < KEY<TAB>REASON...
#        bench_results.py reads OUTDIR (CONFIG WORKLOAD READS EVENTS |
#                         --not-measured REASON)
#        bench_results.py reader OUTDIR [--not-measured REASON]
#                         [--samples N --first FILE --all FILE]
#                         [--readcost FILE --readcost-rc RC]
#
#   schedule  one line per round, "ROUND CONFIG...": round 0 is the
#             warm-up (WARMUP 1), then 1..ROUNDS, each in the order of
#             the round before rotated by one
#   start     raw.csv, events.csv, sleepers.csv, bpf.csv and
#             clockreads.csv with their header lines only
#   record    read one run of WORKLOAD (pipe, pinned: perf bench sched
#             pipe; fio: fio's JSON; copy: dd's last line; sleepers and
#             the sweep's sweepN: bench/sleepers' line) in OUTPUT as ns
#             per operation (OPS operations: dd's blocks; sleepers count
#             their own reads) and append round,config,workload,ns_per_op
#             to raw.csv, and for sleepers and sweepN how many slept at
#             once (and the memory left) to sleepers.csv; with
#             the debugfs status before and after the run, also the
#             tracepoint hits to events.csv, those between STATUS_OPEN
#             and STATUS_CLOSE when given (the status as the sleepers'
#             window opened and closed: their reads' own hits, without
#             the forks, the warm-up and the exits); round 0 is only
#             read.  When
#             OUTPUT has no figure, or iowprobe ran out of a pool during
#             the run (its figure would miss work it skipped): the reason
#             on stderr, exit 1
#   bpf       append to bpf.csv what iowstat --bpf could not follow while
#             attached for ROUND (and WORKLOAD, the sweep's: "all" when
#             attached for every workload of the round): the counters of
#             the "--bpf: stats:" line in its OUTPUT (IOWSTAT_BPF_STATS=1),
#             also printed as "tasks_full N pending_full N rqs_full N";
#             exit 1 without one
#   reads     append to clockreads.csv one run's clocksource reads and
#             its events (context switches or requests), or why none
#             could be counted
#   na        na.csv from the KEY<TAB>REASON lines on stdin (KEY: config,
#             config/workload or any/workload; CONFIGS and WORKLOADS
#             comma-separated), one row per configuration and workload
#   reader    reader.csv: iowstat 1's CPU time per sample from two
#             perf stat -x, outputs (iowstat 1 1 and iowstat 1 N) and one
#             read of the cpus file from bench/readcost's output
#
# The CSV lines are joined by hand, not by the csv module: no quoting, and
# a comma in a free text cell (a reason) becomes ";", the format
# scripts/bench-report has always read.
#
# Exit: 0 ok, 1 no figure in a workload's output, 2 usage.

import argparse
import json
import os
import re
import sys

RAW_HEADER = "round,config,workload,ns_per_op"
EVENTS_HEADER = "round,config,workload,ops,events"
SLEEPERS_HEADER = ("round,config,workload,procs,cgroups,reads,asleep_avg,"
                   "blocked_max,blocked_avg,mem_avail_kb,inflight_avg")
BPF_HEADER = "round,workload,tasks_full,pending_full,rqs_full"
# iowstat --bpf's counters of what its maps could not hold
BPF_FULL = ("tasks_full", "pending_full", "rqs_full")
NA_HEADER = "config,workload,reason"
READER_HEADER = "metric,value,unit"
CLOCKREADS_HEADER = "config,workload,reads,events,note"


class NoFigure(Exception):
    """A workload's or a tool's output without the number it should give."""


def schedule(rounds, warmup, configs):
    """[(round, [config...])]: the warm-up round 0 when warmup, then
    1..rounds; round r starts at configs[r % n], so that each
    configuration takes every place in the order in turn (none is always
    the first after a quiet spell, none always the last)."""
    n = len(configs)
    return [(r, [configs[(i + r) % n] for i in range(n)])
            for r in range(1 - warmup, rounds + 1)]


def one_line(text):
    """text for one CSV cell: one line, no comma."""
    return " ".join(text.splitlines()).replace(",", ";")


def csv_line(cells):
    return ",".join(str(c) for c in cells) + "\n"


def pipe_ns(text):
    """perf bench sched pipe: "   27.583000 usecs/op" as ns per round
    trip."""
    m = re.search(r"^\s*(\S+)\s+usecs/op", text, re.M)
    if not m:
        raise NoFigure("no usecs/op line in perf bench's output")
    return float(m.group(1)) * 1000


def fio_ns(text):
    """fio --output-format=json: runtime (ms) over the I/Os, in ns per I/O.
    fio may print warnings before the JSON; they are skipped."""
    m = re.search(r"^\{", text, re.M)
    try:
        doc, _ = json.JSONDecoder().raw_decode(text, m.start())
        read = doc["jobs"][0]["read"]
        ios, runtime = float(read["total_ios"]), float(read["runtime"])
    except (AttributeError, ValueError, LookupError, TypeError):
        raise NoFigure("no jobs[0].read in fio's JSON") from None
    if not (ios > 0 and runtime > 0):
        raise NoFigure(f"fio did {ios:.0f} I/Os in {runtime:.0f} ms")
    return runtime * 1000000 / ios


def copy_ns(text, blocks):
    """dd's "N bytes (...) copied, S s, R MB/s": its own time, from the
    first read to the last write, per block."""
    m = re.search(r"copied, (\S+) s,", text)
    if not m:
        raise NoFigure("no \"copied, S s,\" line in dd's output")
    return float(m.group(1)) * 1e9 / blocks


def sleepers_figures(text):
    """bench/sleepers: its "procs P cgroups C reads R ns_per_read N
    asleep_avg A blocked_max B ..." line as a dict of numbers."""
    m = re.search(r"^procs \d+ .*$", text, re.M)
    f = m.group(0).split() if m else []
    try:
        v = {k: float(x) for k, x in zip(f[0::2], f[1::2])}
        if v["reads"] > 0 and v["ns_per_read"] > 0:
            return v
    except (ValueError, KeyError):
        pass
    raise NoFigure("no \"procs ... reads R ns_per_read N\" line in "
                   "sleepers' output")


def inflight(v):
    """the disk's requests in flight on average, or empty: a sleepers of
    before it was sampled"""
    return f"{v['inflight_avg']:.1f}" if "inflight_avg" in v else ""


def is_sleepers(workload):
    """the sleepers or a size of the sweep (sweep10, sweep10000...)"""
    return workload == "sleepers" or re.fullmatch(r"sweep\d+", workload)


def ns_per_op(workload, text, ops):
    if workload in ("pipe", "pinned"):
        return pipe_ns(text)
    if workload == "fio":
        return fio_ns(text)
    if workload == "copy":
        return copy_ns(text, ops)
    if is_sleepers(workload):
        return sleepers_figures(text)["ns_per_read"]
    raise NoFigure(f"unknown workload {workload}")


def ops_done(workload, text, ops):
    """the operations of one run: OPS, but the sleepers count theirs."""
    if is_sleepers(workload):
        return int(sleepers_figures(text)["reads"])
    return ops


def status_events(text):
    """tracepoint hits iowprobe counted so far, all CPUs: the sum of the
    debugfs status file's "events_NAME: N" lines (an empty text is 0)."""
    return sum(int(m.group(1)) for m in
               re.finditer(r"^events_\w+: (\d+)", text, re.M))


def status_counter(text, name):
    """one "NAME: N" line of the debugfs status (0 when absent)."""
    m = re.search(rf"^{name}: (\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def pools_exhausted(before, after):
    """the iowprobe pools that ran out between two status reads, as
    "task_pool_exhausted +N" strings: a sleep or a request that found no
    free entry went unfollowed, so the run cost less than it should."""
    names = sorted(set(re.findall(r"^(\w+_pool_exhausted):", after, re.M)))
    out = []
    for n in names:
        d = status_counter(after, n) - status_counter(before, n)
        if d > 0:
            out.append(f"{n} +{d}")
    return out


def bpf_unfollowed(text):
    """iowstat --bpf's "--bpf: stats: tasks_full N pending_full N
    rqs_full N ..." line: those counters, in BPF_FULL's order."""
    m = re.search(r"--bpf: stats: (.*)$", text, re.M)
    if not m:
        raise NoFigure("no \"--bpf: stats:\" line in iowstat --bpf's "
                       "output")
    f = m.group(1).split()
    v = dict(zip(f[0::2], f[1::2]))
    try:
        return [int(v[k]) for k in BPF_FULL]
    except (KeyError, ValueError):
        raise NoFigure(f"--bpf: stats: without {', '.join(BPF_FULL)}") \
            from None


def task_clock_ns(text):
    """perf stat -x, -e task-clock, one or more runs: "4.19,msec,task-clock,
    ..." in ns, the least of the runs (a run's CPU time only grows with the
    noise around it, so the least is the nearest the work's own)."""
    runs = []
    for line in text.splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2] == "task-clock":
            try:
                runs.append(float(f[0]) * 1000000)
            except ValueError:
                pass
    if not runs:
        raise NoFigure("no task-clock line in perf stat's output")
    return min(runs)


def div_trunc(a, b):
    """a / b in whole ns, rounded toward zero: the CSV's figures have
    always been truncated (bench-guest's shell arithmetic made them)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def iowstat_rows(samples, first_text, all_text):
    """iowstat 1's CPU time: the first sample's (start-up included), and
    per sample after it: (iowstat 1 N - iowstat 1 1) / (N - 1), which
    cancels the start-up; its share of one CPU at one sample a second.
    Where the start-up's scatter outweighs N - 1 samples (the difference is
    not positive), the figure is n/a, with both times."""
    try:
        # whole ns, rounded as printf's %.0f rounds
        first, every = (int(f"{task_clock_ns(t):.0f}")
                        for t in (first_text, all_text))
    except NoFigure:
        return [("iowstat_cpu_per_sample", "n/a", "perf stat failed")]
    per = div_trunc(every - first, samples - 1)
    if per <= 0:
        why = (f"start-up scatter above {samples - 1} samples: iowstat 1 1 "
               f"took {first} ns; iowstat 1 {samples} {every} ns")
        return [("iowstat_cpu_first", first, "ns"),
                ("iowstat_cpu_per_sample", "n/a", why),
                ("iowstat_cpu_share", "n/a", why)]
    return [("iowstat_cpu_first", first, "ns"),
            ("iowstat_cpu_per_sample", per, "ns"),
            ("iowstat_cpu_share", f"{per / 1e9 * 100:.4f}", "% of one CPU")]


def readcost_rows(text, rc):
    """bench/readcost: "reads N median_ns M min_ns M bytes B"; when it
    failed or said something else, one n/a row with what it said."""
    line = one_line(text.rstrip("\n"))
    if rc != 0:
        line = "n/a " + line
    f = line.split()
    if not f or f[0] != "reads":
        return [("cpus_read", "n/a", line)]
    v = dict(zip(f[0::2], f[1::2]))
    return [("cpus_read", v.get("median_ns", ""), "ns"),
            ("cpus_read_min", v.get("min_ns", ""), "ns"),
            ("cpus_bytes", v.get("bytes", ""), "bytes")]


def na_rows(configs, workloads, na):
    """(config, workload, reason) for every pair that could not be
    measured: any/WORKLOAD (a workload that cannot run at all) first, then
    the configuration's own, then the pair's."""
    rows = []
    for c in configs:
        for w in workloads:
            r = na.get(f"any/{w}") or na.get(c) or na.get(f"{c}/{w}")
            if r:
                rows.append((c, w, one_line(r)))
    return rows


def read_text(path):
    """the file's text; "" when there is none (a read that failed)."""
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def append(path, line):
    with open(path, "a") as f:
        f.write(line)


def write_csv(path, header, rows):
    with open(path, "w") as f:
        f.write(header + "\n")
        f.writelines(csv_line(r) for r in rows)


def cmd_schedule(a):
    for r, order in schedule(a.rounds, a.warmup, a.configs):
        print(r, *order)
    return 0


def cmd_start(a):
    for name, header in (("raw.csv", RAW_HEADER),
                         ("events.csv", EVENTS_HEADER),
                         ("sleepers.csv", SLEEPERS_HEADER),
                         ("bpf.csv", BPF_HEADER),
                         ("clockreads.csv", CLOCKREADS_HEADER)):
        write_csv(os.path.join(a.outdir, name), header, [])
    return 0


def cmd_record(a):
    text = read_text(a.output)
    status = [read_text(p) for p in a.status]
    try:
        ns = ns_per_op(a.workload, text, a.ops)
        ops = ops_done(a.workload, text, a.ops)
    except NoFigure as e:
        print(e, file=sys.stderr)
        return 1
    out = pools_exhausted(*status[:2]) if status else []
    if out:
        print(f"iowprobe ran out: {', '.join(out)} (not everything was "
              "followed; load it with larger pools)", file=sys.stderr)
        return 1
    if a.round == 0:
        return 0
    key = (a.round, a.config, a.workload)
    append(os.path.join(a.outdir, "raw.csv"), csv_line(key + (f"{ns:.1f}",)))
    if is_sleepers(a.workload):
        v = sleepers_figures(text)
        append(os.path.join(a.outdir, "sleepers.csv"),
               csv_line((a.round, a.config, a.workload, int(v["procs"]),
                         int(v.get("cgroups", 0)), ops,
                         f"{v.get('asleep_avg', 0):.1f}",
                         int(v.get("blocked_max", 0)),
                         f"{v.get('blocked_avg', 0):.1f}",
                         int(v.get("mem_avail_kb", -1)),
                         inflight(v))))
    if status:
        # the window's own when the run copied the status at its edges
        before, after = (status_events(t) for t in status[-2:])
        append(os.path.join(a.outdir, "events.csv"),
               csv_line(key + (ops, after - before)))
    return 0


def cmd_bpf(a):
    try:
        full = bpf_unfollowed(read_text(a.output))
    except NoFigure as e:
        print(e, file=sys.stderr)
        return 1
    if a.round > 0:
        append(os.path.join(a.outdir, "bpf.csv"),
               csv_line([a.round, a.workload] + full))
    if a.workload != "all":
        print(" ".join(f"{k} {v}" for k, v in zip(BPF_FULL, full)))
    return 0


def cmd_reads(a):
    path = os.path.join(a.outdir, "clockreads.csv")
    if a.not_measured is not None:
        append(path, csv_line(("any", "any", "n/a", "n/a",
                               one_line(a.not_measured))))
        return 0
    if None in (a.config, a.workload, a.reads, a.events):
        print("reads: give CONFIG WORKLOAD READS EVENTS", file=sys.stderr)
        return 2
    append(path, csv_line((a.config, a.workload, a.reads, a.events, "")))
    return 0


def cmd_na(a):
    na = {}
    for line in sys.stdin:
        key, _, reason = line.rstrip("\n").partition("\t")
        na.setdefault(key, reason)
    write_csv(os.path.join(a.outdir, "na.csv"), NA_HEADER,
              na_rows(a.configs.split(","), a.workloads.split(","), na))
    return 0


def cmd_reader(a):
    if a.not_measured is not None:
        rows = [("iowstat_cpu_per_sample", "n/a", one_line(a.not_measured))]
    else:
        if a.first and a.all:
            rows = iowstat_rows(a.samples, read_text(a.first),
                                read_text(a.all))
        else:
            rows = [("iowstat_cpu_per_sample", "n/a", "perf stat failed")]
        rows += readcost_rows(read_text(a.readcost), a.readcost_rc)
    write_csv(os.path.join(a.outdir, "reader.csv"), READER_HEADER, rows)
    return 0


def parser():
    p = argparse.ArgumentParser(prog="bench_results.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("schedule")
    s.add_argument("rounds", type=int)
    s.add_argument("warmup", type=int, choices=(0, 1))
    s.add_argument("configs", nargs="+")
    s.set_defaults(fn=cmd_schedule)
    s = sub.add_parser("start")
    s.add_argument("outdir")
    s.set_defaults(fn=cmd_start)
    s = sub.add_parser("record")
    for name in ("outdir", "round", "config", "workload", "ops", "output"):
        s.add_argument(name, type=int if name in ("round", "ops") else str)
    s.add_argument("status", nargs="*", metavar="STATUS")
    s.set_defaults(fn=cmd_record)
    s = sub.add_parser("bpf")
    s.add_argument("outdir")
    s.add_argument("round", type=int)
    s.add_argument("output")
    s.add_argument("--workload", default="all")
    s.set_defaults(fn=cmd_bpf)
    s = sub.add_parser("reads")
    s.add_argument("outdir")
    s.add_argument("config", nargs="?")
    s.add_argument("workload", nargs="?")
    s.add_argument("reads", nargs="?", type=int)
    s.add_argument("events", nargs="?", type=int)
    s.add_argument("--not-measured")
    s.set_defaults(fn=cmd_reads)
    s = sub.add_parser("na")
    s.add_argument("outdir")
    s.add_argument("configs")
    s.add_argument("workloads")
    s.set_defaults(fn=cmd_na)
    s = sub.add_parser("reader")
    s.add_argument("outdir")
    s.add_argument("--not-measured")
    s.add_argument("--samples", type=int, default=0)
    s.add_argument("--first")
    s.add_argument("--all")
    s.add_argument("--readcost", default="")
    s.add_argument("--readcost-rc", type=int, default=0)
    s.set_defaults(fn=cmd_reader)
    return p


def main(argv):
    a = parser().parse_args(argv)
    if a.cmd == "record" and len(a.status) not in (0, 2, 4):
        parser().error("record: give the status before and after the "
                       "run, those and the window's open and close, or "
                       "none")
    if a.cmd == "reader" and a.first and a.samples < 2:
        parser().error("reader: --first and --all need --samples 2 or more")
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
