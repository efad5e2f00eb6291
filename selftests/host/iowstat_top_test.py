#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# iowstat_top_test.py - iowstat --top end to end on the host: the hand-made
# recording fixtures/iowstat/top.rec replayed (its two samples' procs and
# cgroups files), against figures worked out here from the fixture's own
# numbers, in every format; the --top=N limit; the errors (no procs file,
# damaged rows, bad options); and --record through a fake debugfs and
# cgroup tree.
#
# top3.rec, one interval more, gives the Average: block, also worked out
# here, and a --top run recorded live (files changed between its samples)
# replays the same block.
#
# usage: iowstat_top_test.py [path/to/iowstat]
# Prints KTAP; exit 0 when every test passed, 1 otherwise.
import csv
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

IOWSTAT = iow.iowstat_arg()
REC = os.path.join(iow.FIXTURES, "top.rec")
TMP = tempfile.mkdtemp(prefix="iowstat-top-test.")
G = 10**9

# The interval of top.rec, worked out by hand from the fixture's rows
# (mkrec.py --top): the module's now_ns goes from 10 s to 12 s, so the
# wall is 2 s (not the recording's 1 s: the module's own instants count);
# the cpus file has 2 CPUs online, so %wa divides by 2 x 2 s.
WALL = 12 * G - 10 * G
NCPUS = 2


def fig(d_wait, d_blk, d_wa, wall=WALL):
    """%wait, %wa, %blk of deltas (ns) over wall ns."""
    return (100.0 * d_wait / wall, 100.0 * d_wa / (wall * NCPUS),
            100.0 * d_blk / d_wait if d_wait else 0.0)


# pid, comm, cgroup path, device, (%wait, %wa, %blk), in the order
# expected: most %wa first, then most %wait.  Row by row (ns):
#   200 "kworker x": wait 0.3 -> 4.3 s, blk 0, wa 0.1 -> 0.9 s
#   100 dd: wait 1 -> 3 s, blk 0.5 -> 2 s, wa 0.4 -> 1.2 s; ties 200 on
#       %wa (20.00), less %wait: after it
#   700 new700: a new process on the pid of old700, which exited in the
#       interval: counts from 0 (wait 9.6 s, wa 0.3 s), not from old700
#   400 gone: exited in the interval; its last delta shows once
#   500 new: not in the first read, counts from 0; cgroup 13 has no name
#   700 old700: the exited row continues the earlier live row of pid 700
#   300 "idle one": no change, not shown
PROCS = [
    (200, "kworker x", "/user.slice/b c", "-",
     fig(4.3 * G - 0.3 * G, 0, 0.9 * G - 0.1 * G)),
    (100, "dd", "/system.slice/a.service", "sda",
     fig(3 * G - 1 * G, 2 * G - 0.5 * G, 1.2 * G - 0.4 * G)),
    (700, "new700", "/system.slice/a.service", "-",
     fig(9.6 * G, 0, 0.3 * G)),
    (400, "gone", "/user.slice/b c", "sda",
     fig(1.5 * G - 0.5 * G, 0.6 * G - 0.1 * G, 0.5 * G - 0.3 * G)),
    (500, "new", "-", "8:16", fig(0.2 * G, 0.2 * G, 0.1 * G)),
    (700, "old700", "/system.slice/a.service", "-",
     fig(9.4 * G - 9 * G, 0, 0.14 * G - 0.1 * G)),
]
# cgroup path, device, figures; the root cgroup (1) did not change
CGROUPS = [
    ("/system.slice/a.service", "sda",
     fig(22 * G - 10.9 * G, 2.9 * G - 1.4 * G, 1.64 * G - 0.7 * G)),
    ("/user.slice/b c", "sda",
     fig(5.8 * G - 0.8 * G, 0.7 * G - 0.1 * G, 1.1 * G - 0.4 * G)),
    ("-", "8:16", fig(0.2 * G, 0.2 * G, 0.1 * G)),
]
LABEL = "03:04:06"      # @sample 1's realtime, in UTC
BANNER = "Linux 6.1.0-test (testbox) \t01/02/25 \t_x86_64_\t(2 CPU)\n"


def run(*args, env=None):
    return iow.run_iowstat(IOWSTAT, *args, env=env)


check = iow.check
expect = iow.expect


def procs_block(label, rows, waits_in=None):
    """WAITS-IN is "-" (a module without the wait kinds) unless
    waits_in maps a pid to it"""
    out = "\n%-11s %7s %7s %7s %7s  %-8s %-10s %-16s %s\n" % (
        label, "PID", "%wait", "%wa", "%blk", "DEVICE", "WAITS-IN",
        "COMMAND", "CGROUP")
    for pid, comm, cg, dev, (wait, wa, blk) in rows:
        out += "%-11s %7d %7.2f %7.2f %7.2f  %-8s %-10s %-16s %s\n" % (
            label, pid, wait, wa, blk, dev, (waits_in or {}).get(pid, "-"),
            comm, cg)
    return out


def cgroups_block(label, rows):
    out = "\n%-11s %7s %7s %7s  %-8s %-10s %s\n" % (
        label, "%wait", "%wa", "%blk", "DEVICE", "WAITS-IN", "CGROUP")
    for cg, dev, (wait, wa, blk) in rows:
        out += "%-11s %7.2f %7.2f %7.2f  %-8s %-10s %s\n" % (
            label, wait, wa, blk, dev, "-", cg)
    return out


def procs_text(rows):
    """top.rec's one interval, then the Average: block: over one
    interval, the same rows and figures"""
    return (BANNER + procs_block(LABEL, rows) +
            procs_block("Average:", rows))


def read_rec(path=REC):
    with open(path) as f:
        return f.read()


def write_rec(text):
    fd, path = tempfile.mkstemp(dir=TMP, suffix=".rec")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


def with_file(text, path, body):
    """text with the @file PATH of sample 1 holding body instead."""
    at = text.index("@file " + path, text.index("@sample 1"))
    start = text.index("\n", at) + 1
    old_len = int(text[at:start].split()[-1])
    return (text[:at] + "@file %s %d\n%s" % (path, len(body), body)
            + text[start + old_len:])


def sample_file(path, n=0, text=None):
    text = text or read_rec()
    at = text.index("@file " + path, text.index("@sample %d" % n))
    start = text.index("\n", at) + 1
    return text[start:start + int(text[at:start].split()[-1])]


# --- the fixture's interval ----------------------------------------------

@iow.test
def procs_figures_by_hand():
    expect(run("--replay", REC, "--top"), 0, out=procs_text(PROCS))


@iow.test
def limit_keeps_the_first_n():
    expect(run("--replay", REC, "--top=3"), 0, out=procs_text(PROCS[:3]))
    expect(run("--replay", REC, "-T2"), 0, out=procs_text(PROCS[:2]))


@iow.test
def cgroups_figures_by_hand():
    out = (BANNER + cgroups_block(LABEL, CGROUPS) +
           cgroups_block("Average:", CGROUPS))
    expect(run("--replay", REC, "--top", "--cgroup"), 0, out=out)


def near(a, b):
    return abs(a - b) < 0.006


def json_rows_are(rows, want):
    check(len(rows) == len(want), "rows: %r" % rows)
    for r, (pid, comm, cg, dev, (wait, wa, blk)) in zip(rows, want):
        check((r["pid"], r["command"], r["cgroup"], r["device"]) ==
              (pid, comm, cg, dev), "row %r" % r)
        check(near(r["wait"], wait) and near(r["wa"], wa) and
              near(r["blk"], blk), "figures of %r" % r)


@iow.test
def json_carries_the_same_rows():
    res = run("--replay", REC, "--top", "-o", "json")
    expect(res, 0)
    st = json.loads(res.stdout)["sysstat"]["hosts"][0]["statistics"]
    check(len(st) == 1, "one interval: %r" % st)
    json_rows_are(st[0]["top-procs"], PROCS)
    res = run("--replay", REC, "--top=1", "--cgroup", "-o", "json")
    expect(res, 0)
    st = json.loads(res.stdout)["sysstat"]["hosts"][0]["statistics"]
    rows = st[0]["top-cgroups"]
    check(len(rows) == 1 and rows[0]["cgroup"] == CGROUPS[0][0] and
          rows[0]["cgroup-id"] == 11 and near(rows[0]["wa"], CGROUPS[0][2][1]),
          "cgroups: %r" % rows)


@iow.test
def csv_carries_the_same_rows():
    res = run("--replay", REC, "--top", "-o", "csv")
    expect(res, 0)
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    check(len(rows) == len(PROCS), "rows: %r" % rows)
    for r, (pid, comm, cg, dev, (wait, wa, blk)) in zip(rows, PROCS):
        check(r["timestamp"] == "2025-01-02T03:04:06Z", "ts %r" % r)
        check((int(r["pid"]), r["command"], r["cgroup"], r["device"]) ==
              (pid, comm, cg, dev), "row %r" % r)
        check(near(float(r["wait"]), wait) and near(float(r["wa"]), wa) and
              near(float(r["blk"]), blk), "figures of %r" % r)
    res = run("--replay", REC, "--top", "--cgroup", "-o", "csv")
    expect(res, 0)
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    check([r["cgroup"] for r in rows] == [c[0] for c in CGROUPS],
          "cgroups: %r" % rows)


@iow.test
def comm_with_a_comma_is_quoted_in_csv():
    text = read_rec()
    path = "/sys/kernel/debug/iowprobe/procs"
    body = sample_file(path, 1, text)
    rec = write_rec(with_file(text, path, body.replace(" dd\n", ' a,"b\n')))
    res = run("--replay", rec, "--top=2", "-o", "csv")
    expect(res, 0)
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    check(rows[1]["command"] == 'a,"b', "rows: %r" % rows)


# --- where they waited: top.rec with the wait_<kind>_ns columns -----------

KIND_COLS = ["wait_uring_ns", "wait_rw_ns", "wait_sync_ns", "wait_fault_ns",
             "wait_other_ns"]
# per file, key and sample: its five kinds, in 1/100 s.  pid 100 (dd, Δwait
# 2 s) waits 1.8 s in rw and 0.2 s in faults: WAITS-IN rw:90%, rw 90.00
# and fault 10.00 (% of the 2 s wall); pid 200 (Δwait 4 s) 4 s in uring:
# uring:100%, uring 200.00.  The other rows have none: WAITS-IN "-".
# cgroup 11 (22 s of wait in sample 1): 20 s rw, 2 s sync.
KINDS = {
    "procs": {100: [(0, 80, 0, 20, 0), (0, 260, 0, 40, 0)],
              200: [(0, 0, 0, 0, 30), (400, 0, 0, 0, 30)]},
    "cgroups": {11: [(0, 1000, 90, 0, 0), (0, 2000, 200, 0, 0)]},
}
KIND_WAITS_IN = {100: "rw:90%", 200: "uring:100%"}


def with_kinds(body, name, n):
    """a procs or cgroups file as a module with the wait kinds prints it:
    the five columns before comm (procs) or last (cgroups)"""
    lines = body.splitlines()
    head = lines[1].split()
    at = len(head) - 1 if name == "procs" else len(head)
    out = lines[:1] + [" ".join(head[:at] + KIND_COLS + head[at:])]
    for line in lines[2:]:
        f = line.split(" ", len(head) - 1)
        kinds = KINDS[name].get(int(f[0]), [(0,) * 5] * 3)[n]
        f[at:at] = ["%d" % (v * G // 100) for v in kinds]
        out.append(" ".join(f))
    return "\n".join(out) + "\n"


def kinds_rec():
    text = read_rec()
    for n in (0, 1):
        for name in ("procs", "cgroups"):
            path = "/sys/kernel/debug/iowprobe/" + name
            body = with_kinds(sample_file(path, n, text), name, n)
            at = text.index("@file " + path, text.index("@sample %d" % n))
            start = text.index("\n", at) + 1
            old_len = int(text[at:start].split()[-1])
            text = (text[:at] + "@file %s %d\n%s" % (path, len(body), body)
                    + text[start + old_len:])
    return write_rec(text)


@iow.test
def waits_in_by_hand():
    rec = kinds_rec()
    expect(run("--replay", rec, "--top"), 0,
           out=BANNER + procs_block(LABEL, PROCS, KIND_WAITS_IN) +
           procs_block("Average:", PROCS, KIND_WAITS_IN))


@iow.test
def wait_kinds_in_json_csv_and_prom():
    rec = kinds_rec()
    res = run("--replay", rec, "--top=2", "-o", "json")
    expect(res, 0)
    rows = json.loads(res.stdout)["sysstat"]["hosts"][0]["statistics"][0][
        "top-procs"]
    check([(r["pid"], r["waits-in"]) for r in rows] ==
          [(200, "uring"), (100, "rw")], "json rows: %r" % rows)
    check(near(rows[0]["wait-kinds"]["uring"], 200.0) and
          near(rows[1]["wait-kinds"]["rw"], 90.0) and
          near(rows[1]["wait-kinds"]["fault"], 10.0) and
          near(rows[1]["wait-kinds"]["other"], 0.0), "json kinds: %r" % rows)
    res = run("--replay", rec, "--top=3", "-o", "csv")
    expect(res, 0)
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    check([(r["pid"], r["waits_in"]) for r in rows] ==
          [("200", "uring"), ("100", "rw"), ("700", "")], "csv: %r" % rows)
    check(near(float(rows[1]["wait_rw"]), 90.0) and
          near(float(rows[1]["wait_fault"]), 10.0), "csv kinds: %r" % rows)
    res = run("--replay", rec, "-o", "prom")
    expect(res, 0)
    name = "iowprobe_cgroup_wait_kind_seconds_total"
    for cg, kind, v in (("/system.slice/a.service", "rw", "20.000000000"),
                        ("/system.slice/a.service", "sync", "2.000000000"),
                        ("/user.slice/b c", "rw", "0.000000000")):
        line = '%s{cgroup="%s",kind="%s"} %s' % (name, cg, kind, v)
        check(line in res.stdout.splitlines(), "no line %r" % line)
    check(res.stdout.count(name + "{") == 2 * 5,
          "five kinds for each named cgroup that waited (not /: 2)")


# --- the Average: block, over top3.rec's two intervals ---------------------

REC3 = os.path.join(iow.FIXTURES, "top3.rec")
# the second interval: now_ns from 12 s to 15 s
WALL2 = 15 * G - 12 * G
LABEL2 = "03:04:07"
# its rows, most %wa first (400 and old700 were reaped: no row; 200 did
# not change: not shown)
PROCS2 = [
    (300, "idle one", "/system.slice/a.service", "8:16",
     fig(1.9 * G - 0.9 * G, 1.4 * G - 0.9 * G, 0.7 * G - 0.2 * G, WALL2)),
    (600, "late", "/user.slice/b c", "sda",
     fig(1.2 * G, 1.0 * G, 0.45 * G, WALL2)),
    (100, "dd", "/system.slice/a.service", "sda",
     fig(4.5 * G - 3 * G, 3 * G - 2 * G, 1.5 * G - 1.2 * G, WALL2)),
    (500, "new", "-", "8:16",
     fig(0.6 * G - 0.2 * G, 0, 0.25 * G - 0.1 * G, WALL2)),
    (700, "new700", "/system.slice/a.service", "-",
     fig(10 * G - 9.6 * G, 0, 0.35 * G - 0.3 * G, WALL2)),
]
# the whole run: each process's deltas of both intervals summed, over the
# 5 s from the first read (10 s) to the last (15 s), on 2 CPUs.  400 and
# old700 are in the first interval only: what they accrued there counts
# over the whole 5 s; 200 waited in the first only but was still there.
WALL_RUN = 15 * G - 10 * G
AVERAGE = [
    (100, "dd", "/system.slice/a.service", "sda",
     fig((3 - 1) * G + (4.5 - 3) * G, (2 - 0.5) * G + (3 - 2) * G,
         (1.2 - 0.4) * G + (1.5 - 1.2) * G, WALL_RUN)),
    (200, "kworker x", "/user.slice/b c", "-",
     fig(4.3 * G - 0.3 * G, 0, 0.9 * G - 0.1 * G, WALL_RUN)),
    (300, "idle one", "/system.slice/a.service", "8:16",
     fig(1.9 * G - 0.9 * G, 1.4 * G - 0.9 * G, 0.7 * G - 0.2 * G,
         WALL_RUN)),
    (600, "late", "/user.slice/b c", "sda",
     fig(1.2 * G, 1.0 * G, 0.45 * G, WALL_RUN)),
    (700, "new700", "/system.slice/a.service", "-",
     fig(9.6 * G + 0.4 * G, 0, 0.3 * G + 0.05 * G, WALL_RUN)),
    (500, "new", "-", "8:16",
     fig(0.2 * G + 0.4 * G, 0.2 * G, 0.1 * G + 0.15 * G, WALL_RUN)),
    (400, "gone", "/user.slice/b c", "sda",
     fig(1.5 * G - 0.5 * G, 0.6 * G - 0.1 * G, 0.5 * G - 0.3 * G,
         WALL_RUN)),
    (700, "old700", "/system.slice/a.service", "-",
     fig(9.4 * G - 9 * G, 0, 0.14 * G - 0.1 * G, WALL_RUN)),
]
# the cgroups: sums of both intervals (cgroup 1 never changed)
CG_AVERAGE = [
    ("/system.slice/a.service", "sda",
     fig((22 - 10.9) * G + (24 - 22) * G, (2.9 - 1.4) * G + (3.9 - 2.9) * G,
         (1.64 - 0.7) * G + (2.34 - 1.64) * G, WALL_RUN)),
    ("/user.slice/b c", "sda",
     fig((5.8 - 0.8) * G + (7 - 5.8) * G, (0.7 - 0.1) * G + (1.7 - 0.7) * G,
         (1.1 - 0.4) * G + (1.55 - 1.1) * G, WALL_RUN)),
    ("-", "8:16", fig(0.6 * G, 0.2 * G, 0.25 * G, WALL_RUN)),
]


@iow.test
def average_by_hand():
    """both intervals, then Average: with the sums over the run's wall,
    the processes of the first interval only included"""
    check(AVERAGE[0][4] == fig(3.5 * G, 2.5 * G, 1.1 * G, 5 * G),
          "the table's own arithmetic")
    expect(run("--replay", REC3, "--top"), 0,
           out=BANNER + procs_block(LABEL, PROCS) +
           procs_block(LABEL2, PROCS2) + procs_block("Average:", AVERAGE))


@iow.test
def average_limit_keeps_the_first_n():
    expect(run("--replay", REC3, "--top=3"), 0,
           out=BANNER + procs_block(LABEL, PROCS[:3]) +
           procs_block(LABEL2, PROCS2[:3]) +
           procs_block("Average:", AVERAGE[:3]))


@iow.test
def average_cgroups_by_hand():
    res = run("--replay", REC3, "--top", "--cgroup")
    expect(res, 0)
    check(res.stdout.endswith(cgroups_block("Average:", CG_AVERAGE)),
          "Average: of the cgroups: %r" % res.stdout)


@iow.test
def average_in_json_after_the_statistics():
    res = run("--replay", REC3, "--top", "-o", "json")
    expect(res, 0)
    host = json.loads(res.stdout)["sysstat"]["hosts"][0]
    check(len(host["statistics"]) == 2, "two intervals")
    json_rows_are(host["statistics"][1]["top-procs"], PROCS2)
    check(host["average"]["wall-ns"] == 5 * G, "wall: %r" % host["average"])
    json_rows_are(host["average"]["top-procs"], AVERAGE)
    res = run("--replay", REC3, "--top=1", "--cgroup", "-o", "json")
    avg = json.loads(res.stdout)["sysstat"]["hosts"][0]["average"]
    rows = avg["top-cgroups"]
    check(len(rows) == 1 and rows[0]["cgroup-id"] == 11 and
          near(rows[0]["wait"], CG_AVERAGE[0][2][0]) and
          near(rows[0]["wa"], CG_AVERAGE[0][2][1]) and
          near(rows[0]["blk"], CG_AVERAGE[0][2][2]), "cgroups: %r" % rows)


@iow.test
def csv_has_no_average():
    """as the CPU view's csv: the intervals' rows only"""
    res = run("--replay", REC3, "--top", "-o", "csv")
    expect(res, 0)
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    check(len(rows) == len(PROCS) + len(PROCS2), "rows: %r" % rows)
    check("Average" not in res.stdout, "no Average row")


# --- errors ----------------------------------------------------------------

NEEDS = r"^iowstat: --top needs the procs file of iowprobe 0\.2 or later: "


@iow.test
def prom_carries_the_cgroups():
    """-o prom: the last sample's cgroups file as counters labelled with
    their paths (the fixture's second sample, by hand); a cgroup with no
    path (its directory gone) has no series"""
    res = run("--replay", REC, "-o", "prom")
    expect(res, 0)
    want = {
        ("iowprobe_cgroup_wait_seconds_total", "/system.slice/a.service"):
            "22.000000000",
        ("iowprobe_cgroup_wait_blk_seconds_total", "/user.slice/b c"):
            "0.700000000",
        ("iowprobe_cgroup_cpu_iowait_seconds_total",
         "/system.slice/a.service"): "1.640000000",
    }
    for (name, path), value in want.items():
        line = '%s{cgroup="%s"} %s' % (name, path, value)
        check(line in res.stdout.splitlines(), "no line %r" % line)
    check("{cgroup=\"-\"}" not in res.stdout, "a series for no path")
    check("wait_kind" not in res.stdout,
          "a module without the wait kinds has no series of them")
    check(res.stdout.count("iowprobe_cgroup_iowait_sleeps_total{") == 3,
          "sleeps: one series per named cgroup (3)")


@iow.test
def err_recording_without_procs():
    basic = os.path.join(iow.FIXTURES, "basic.rec")
    expect(run("--replay", basic, "--top"), 1,
           NEEDS + r"sample 0 of the recording has none; record with "
           r"iowstat --top --record FILE")


@iow.test
def err_damaged_rows():
    text = read_rec()
    path = "/sys/kernel/debug/iowprobe/procs"
    head = iow.ABI_LINE + "\n"
    cols = ("pid cgroup sleeps wait_ns wait_blk_ns wa_ns asleep exited "
            "now_ns dev comm\n")
    row = "1 2 3 4 5 6 0 0 12000000000 8:0 x\n"
    bad = [
        ("# iowprobe abi 9\n" + cols, r"unknown ABI"),
        (head, r"no header line"),
        (head + cols.replace("wa_ns ", ""), r"a required column is missing"),
        (head + cols.replace("comm", "comm sleeps"),
         r"comm is not the last column"),
        (head + cols + row.replace(" 4 ", " 4x "), r"bad number"),
        (head + cols + row.replace("8:0", "8-0"), r"bad device"),
        (head + cols + row.replace(" 0 0 ", " 0 2 "),
         r"exited is neither 0 nor 1"),
        (head + cols + "1 2 3\n", r"too few values"),
        (head + cols + row + "\n", r"too few values"),
        (head + cols + "# out of memory: read again\n",
         r"a comment among the rows .*read again")]
    for body, why in bad:
        rec = write_rec(with_file(text, path, body))
        expect(run("--replay", rec, "--top"), 1,
               r"^iowstat: .*\.rec:\d+: sample 1: .*iowprobe/procs line "
               r"\d+: " + why)


@iow.test
def err_options():
    for args, why in (
            (["--cgroup"], r"--cgroup goes with --top"),
            (["--top", "-P", "ALL"], r"--top and -P exclude each other"),
            (["--top", "-o", "prom"], r"--top and -o prom exclude"),
            (["--top", "--", "true"], r"--top and -- CMD exclude"),
            (["--top=0"], r"--top=N requires a number of rows"),
            (["-Tx"], r"--top=N requires a number of rows")):
        expect(run(*args), 2, r"^iowstat: " + why)


# --- live, through a fake debugfs ------------------------------------------

def fake_debugfs(files):
    d = tempfile.mkdtemp(dir=TMP)
    os.mkdir(os.path.join(d, "iowprobe"))
    for name, body in files.items():
        with open(os.path.join(d, "iowprobe", name), "w") as f:
            f.write(body)
    return d


@iow.test
def err_module_without_procs():
    d = fake_debugfs({"cpus": sample_file("/sys/kernel/debug/iowprobe/cpus")})
    expect(run("--top", env={"IOWSTAT_DEBUGFS": d}), 1,
           NEEDS + r".*/iowprobe/procs is missing; update the module and "
           r"reload it \(rmmod iowprobe; modprobe iowprobe\)")


@iow.test
def record_keeps_the_files_and_the_names():
    # a cgroup tree whose directories' inodes are the ids the rows name
    cg = tempfile.mkdtemp(dir=TMP)
    os.makedirs(os.path.join(cg, "sys.slice", "db.service"))
    ino = os.stat(os.path.join(cg, "sys.slice", "db.service")).st_ino
    procs = sample_file("/sys/kernel/debug/iowprobe/procs").replace(
        "100 11 ", "100 %d " % ino)
    d = fake_debugfs({
        "cpus": sample_file("/sys/kernel/debug/iowprobe/cpus"),
        "procs": procs,
        "cgroups": sample_file("/sys/kernel/debug/iowprobe/cgroups")})
    rec = os.path.join(TMP, "live.rec")
    live = run("--record", rec, "--top", "1", "1",
               env={"IOWSTAT_DEBUGFS": d, "IOWSTAT_CGROUPFS": cg})
    # the files did not change: a header and no row, twice
    expect(live, 0)
    check(live.stdout.count("\n") == 5, "banner, blank, header, blank, "
          "Average: header: %r" % live.stdout)
    text = read_rec(rec)
    check(sample_file(d + "/iowprobe/procs", 1, text) == procs,
          "procs recorded as read")
    names = sample_file("iowstat:names", 0, text)
    check("cgroup %d /sys.slice/db.service\n" % ino in names,
          "names: %r" % names)
    expect(run("--replay", rec, "--top"), 0, out=live.stdout)


def wait_for(path, text, proc):
    """until path holds text (iowstat flushes each sample it records)"""
    for _ in range(200):
        if os.path.exists(path) and text in read_rec(path):
            return
        check(proc.poll() is None, "iowstat ended early")
        time.sleep(0.05)
    check(False, "no %r in %s" % (text, path))


def put(d, name, body):
    """replace a fake debugfs file at once, as a read sees the module's"""
    tmp = os.path.join(d, "iowprobe", "." + name)
    with open(tmp, "w") as f:
        f.write(body)
    os.rename(tmp, os.path.join(d, "iowprobe", name))


@iow.test
def recorded_run_replays_the_same_average():
    """a live --top run whose files change as top3.rec's between its
    samples, ended by Ctrl-C: its Average: block has the figures worked
    out above, and its replay prints the same block"""
    text = read_rec(REC3)
    files = ("cpus", "procs", "cgroups")
    d = fake_debugfs({f: sample_file("/sys/kernel/debug/iowprobe/" + f, 0,
                                     text) for f in files})
    rec = os.path.join(TMP, "avg.rec")
    e = dict(os.environ, TZ="UTC", IOWSTAT_DEBUGFS=d,
             IOWSTAT_CGROUPFS=tempfile.mkdtemp(dir=TMP))
    p = subprocess.Popen([IOWSTAT, "--record", rec, "--top", "1"], env=e,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        for n in (1, 2):
            wait_for(rec, "@end %d\n" % (n - 1), p)
            for f in files:
                put(d, f, sample_file("/sys/kernel/debug/iowprobe/" + f, n,
                                      text))
        wait_for(rec, "@end 2\n", p)
    finally:
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=20)
    check(p.returncode == 0, "exit %d: %r" % (p.returncode, err))
    avg = out[out.index("\nAverage:"):]
    # no names here: the cgroups are "-" and a disk is the host's or
    # MAJ:MIN; COMMAND is the 16 columns from 65 (see procs_block)
    got = [line.split()[1:5] + [line[65:81].rstrip()]
           for line in avg.splitlines()[2:]]
    want = [["%d" % pid, "%.2f" % w, "%.2f" % a, "%.2f" % b, comm]
            for pid, comm, _, _, (w, a, b) in AVERAGE]
    check(got == want, "live Average: %r, want %r" % (got, want))
    again = run("--replay", rec, "--top")
    expect(again, 0)
    check(again.stdout[again.stdout.index("\nAverage:"):] == avg,
          "replayed Average: %r" % again.stdout)


sys.exit(iow.run_tap(TMP))
