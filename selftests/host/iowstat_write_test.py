#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# iowstat_write_test.py - nothing lost, nothing misleading: every view and
# format written to /dev/full, --record and -o prom on a full tmpfs, the
# textfile unit of contrib/ on a full tmpfs (the last good file stays),
# and --replay of what is not a recording (/dev/zero, a 2 GB sparse file),
# of recordings whose lengths lie, and of a hand-made recording whose
# samples are 1 s apart, replayed with and without an interval.
#
# Each error must be one line on stderr with the documented exit status,
# stdout must hold nothing half-written, and iowstat's memory (its maximum
# RSS, from wait4) must stay bounded.  The tmpfs cases need root (mount);
# without it they are skipped.  The live runs read a fake debugfs
# (IOWSTAT_DEBUGFS), so no module or BPF is needed.
#
# usage: iowstat_write_test.py [path/to/iowstat]
# Prints KTAP; exit 0 when every test passed, 1 otherwise.
import contextlib
import os
import re
import shutil
import resource
import subprocess
import sys
import tempfile
import threading
import time

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

IOWSTAT = iow.iowstat_arg()
REC = os.path.join(iow.FIXTURES, "basic.rec")
TOP_REC = os.path.join(iow.FIXTURES, "top.rec")
UNIT = os.path.join(iow.REPO, "contrib", "iowstat-textfile.service")
TMP = tempfile.mkdtemp(prefix="iowstat-write-test.")
FULL = r"^iowstat: write error: No space left on device$"
# Memory: a refused file may cost iowstat this much above its RSS when
# it replays a small recording (ASan's shadow is in both), and no more.
RSS_SLACK_KB = 32 * 1024
# A run that does not stop is stopped here; a refusal takes well under it.
QUICK_S = 5
# iowstat may use at most this much address space (ASan: RSS) in these
# tests, so that one that reads without end cannot take the machine.
MEM_CAP = 1 << 30


def asan_build():
    with open(IOWSTAT, "rb") as f:
        return b"__asan_init" in f.read()


ASAN = asan_build()


def cap_memory():
    if not ASAN:
        resource.setrlimit(resource.RLIMIT_AS, (MEM_CAP, MEM_CAP))


def env_of(extra=None):
    e = dict(os.environ, TZ="UTC", LC_ALL="C")
    e.pop("IOWSTAT_DEBUGFS", None)
    if ASAN:
        e["ASAN_OPTIONS"] = (e.get("ASAN_OPTIONS", "") +
                             f":hard_rss_limit_mb={MEM_CAP >> 20}")
    e.update(extra or {})
    return e


class Run:
    """One iowstat run: exit status, stdout, stderr, maximum RSS (KiB)
    and seconds; killed after timeout s (status -9)"""

    def __init__(self, *args, stdout=None, env=None, timeout=60,
                 cmd=None):
        out = stdout or tempfile.TemporaryFile(dir=TMP)
        with tempfile.TemporaryFile(dir=TMP) as err:
            t0 = time.monotonic()
            p = subprocess.Popen(cmd or [IOWSTAT, *args], stdout=out,
                                 stderr=err, env=env_of(env),
                                 preexec_fn=cap_memory)
            timer = threading.Timer(timeout, p.kill)
            timer.start()
            _, status, ru = os.wait4(p.pid, 0)
            timer.cancel()
            p.returncode = os.waitstatus_to_exitcode(status)
            self.seconds = time.monotonic() - t0
            self.rc, self.maxrss = p.returncode, ru.ru_maxrss
            err.seek(0)
            self.stderr = err.read().decode(errors="replace")
        self.stdout = ""
        if stdout is None:
            out.seek(0)
            self.stdout = out.read().decode(errors="replace")
            out.close()

    def expect(self, rc, err_re, what):
        """rc, and one line on stderr matching err_re"""
        lines = self.stderr.strip("\n").split("\n")
        iow.check(self.rc == rc, f"{what}: exit {self.rc}, expected {rc}; "
                  f"stderr {self.stderr!r}")
        iow.check(len(lines) == 1 and re.search(err_re, lines[0]),
                  f"{what}: want one stderr line matching {err_re!r}, "
                  f"got {self.stderr!r}")


def to_full(*args, env=None):
    with open("/dev/full", "w") as full:
        return Run(*args, stdout=full, env=env, timeout=QUICK_S * 4)


def fake_debugfs():
    """A debugfs with the module's cpus file of basic.rec's first sample"""
    d = tempfile.mkdtemp(dir=TMP)
    os.mkdir(os.path.join(d, "iowprobe"))
    cpus = iow.read_recording(REC)["samples"][0]["files"][
        "/sys/kernel/debug/iowprobe/cpus"]
    with open(os.path.join(d, "iowprobe", "cpus"), "w") as f:
        f.write(cpus)
    return {"IOWSTAT_DEBUGFS": d}


def write_rec(name, text):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def cmd_rec():
    """basic.rec's first two samples as a -- CMD recording (no tree file:
    an older iowstat's), for the summary in json and csv"""
    rec = iow.read_recording(REC)
    return write_rec("cmd.rec", rec["head"] + rec["samples"][0]["text"] +
                     rec["samples"][1]["text"] +
                     "@cmd 0 1000000000 1000 2000\n")


@contextlib.contextmanager
def tmpfs(size):
    """A tmpfs of size bytes, mounted for the test (root only)"""
    d = tempfile.mkdtemp(dir=TMP)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "none", d],
                   check=True)
    try:
        yield d
    finally:
        subprocess.run(["umount", d], check=True)


def fill(d):
    """Write to d until it is full"""
    with open(os.path.join(d, "filler"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"x" * 4096)
        except OSError:
            pass


# --- every view and format to /dev/full -----------------------------------

VIEWS = [
    ("vmstat", ["--replay", REC]),
    ("vmstat -w -t", ["--replay", REC, "-w", "-t"]),
    ("-P ALL", ["--replay", REC, "-P", "ALL"]),
    ("-o json", ["--replay", REC, "-o", "json"]),
    ("-o csv", ["--replay", REC, "-o", "csv", "-P", "ALL"]),
    ("-o prom", ["--replay", REC, "-o", "prom"]),
    ("--top", ["--replay", TOP_REC, "--top"]),
    ("--top -o json", ["--replay", TOP_REC, "--top", "-o", "json"]),
    ("--top -o csv", ["--replay", TOP_REC, "--top", "-o", "csv"]),
    ("-- CMD summary, -o json", ["--replay", "CMD", "-o", "json"]),
    ("-- CMD summary, -o csv", ["--replay", "CMD", "-o", "csv"]),
    ("--help", ["--help"]),
    ("-V", ["-V"]),
]


def dev_full_every_format(k):
    cmd = cmd_rec()
    for name, args in VIEWS:
        args = [cmd if a == "CMD" else a for a in args]
        r = to_full(*args)
        try:
            r.expect(1, FULL, name)
            k.result(True, f"/dev/full: {name}: one line, exit 1")
        except AssertionError as e:
            k.result(False, f"/dev/full: {name}: one line, exit 1",
                     [str(e)])


def dev_full_live(k):
    """A live run with no count stops at its header (-y: vmstat's
    since-boot line left out, as -P and json leave it with an interval)"""
    env = fake_debugfs()
    for args in (["-y", "1"], ["-P", "ALL", "1"], ["-o", "json", "1"]):
        r = to_full(*args, env=env)
        r.expect(1, FULL, " ".join(args))
        k.result(r.seconds < QUICK_S, f"/dev/full: live {' '.join(args)} "
                 "stops at once with one line, exit 1",
                 [f"{r.seconds:.1f} s"])


# --- full file systems ------------------------------------------------------

def need_root(k, desc):
    if os.geteuid() != 0:
        k.skip(desc, "mounting a tmpfs needs root")
        return False
    return True


def record_on_full_tmpfs(k):
    desc = "--record on a full tmpfs: the file and the reason, exit 1"
    if not need_root(k, desc):
        return
    with tmpfs(4096) as d:
        fill(d)
        rec = os.path.join(d, "x.rec")
        r = Run("--record", rec, "1", "2", env=fake_debugfs())
        r.expect(1, "^iowstat: write error: " + re.escape(rec) +
                 ": No space left on device$", "--record")
        k.result(r.stdout == "", desc, [f"stdout {r.stdout!r}"])


def prom_on_full_tmpfs(k):
    """top.rec's exposition (4.3 kB) into a 4 kB tmpfs: one page of it
    fits, the rest does not; what was written is taken back"""
    desc = "-o prom > a full tmpfs: exit 1, no half exposition left"
    if not need_root(k, desc):
        return
    with tmpfs(4096) as d:
        path = os.path.join(d, "x.prom")
        with open(path, "w") as f:
            r = Run("--replay", TOP_REC, "-o", "prom", stdout=f)
        r.expect(1, FULL, "-o prom > file")
        size = os.path.getsize(path)
        k.result(size == 0, desc, [f"{size} bytes left in the file"])
        with open(path, "w") as f:
            f.write("old\n")
        with open(path, "a") as f:
            r = Run("--replay", TOP_REC, "-o", "prom", stdout=f)
        r.expect(1, FULL, "-o prom >> file")
        with open(path) as f:
            kept = f.read()
        k.result(kept == "old\n", "-o prom >> a full tmpfs: what the file "
                 "held before is kept, nothing added", [repr(kept[:80])])


def unit_run(d, env, bindir):
    """The textfile unit's command, with DIR=d and bindir first in PATH"""
    env = dict(env, DIR=d, PATH=bindir + os.pathsep + os.environ["PATH"])
    return Run(cmd=iow.exec_start(UNIT), env=env)


def textfile_unit_keeps_last_good(k):
    desc = "textfile unit on a full tmpfs: fails, the last good file intact"
    if not need_root(k, desc):
        return
    bindir = tempfile.mkdtemp(dir=TMP)
    os.symlink(IOWSTAT, os.path.join(bindir, "iowstat"))
    env = fake_debugfs()
    with tmpfs(2 * 4096) as d:
        prom = os.path.join(d, "iowprobe.prom")
        tmp = prom + ".tmp"
        r = unit_run(d, env, bindir)
        good = open(prom).read() if os.path.exists(prom) else ""
        iow.check(r.rc == 0 and good.startswith("# HELP iowprobe_"),
                  f"a first run writes the file: exit {r.rc}, "
                  f"{r.stderr!r}, {good[:40]!r}")
        fill(d)
        r = unit_run(d, env, bindir)
        now = open(prom).read()
        left = os.path.exists(tmp)
        k.result(r.rc != 0 and now == good and not left and
                 re.search(FULL, r.stderr, re.M), desc,
                 [f"exit {r.rc}, stderr {r.stderr!r}, file "
                  f"{'unchanged' if now == good else 'changed'}, "
                  f"temporary file {'left' if left else 'removed'}"])
        os.unlink(os.path.join(d, "filler"))
        stub = tempfile.mkdtemp(dir=TMP)
        with open(os.path.join(stub, "iowstat"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(stub, "iowstat"), 0o755)
        r = unit_run(d, env, stub)
        k.result(r.rc != 0 and open(prom).read() == good and
                 not os.path.exists(tmp), "textfile unit: an empty output "
                 "with exit 0 replaces nothing", [f"exit {r.rc}"])


# --- --replay of what is not a recording, or lies --------------------------

def baseline_rss():
    r = Run("--replay", REC)
    iow.check(r.rc == 0, f"replay of basic.rec: exit {r.rc} {r.stderr!r}")
    return r.maxrss


def refused(k, desc, path, err_re, base):
    r = Run("--replay", path, timeout=QUICK_S * 4)
    ok = True
    diags = [f"exit {r.rc}, {r.seconds:.2f} s, max RSS {r.maxrss} KiB "
             f"(a small recording: {base} KiB), stderr {r.stderr[:300]!r}"]
    try:
        r.expect(1, err_re, desc)
    except AssertionError as e:
        ok = False
        diags.append(str(e))
    ok &= r.stdout == "" and r.seconds < QUICK_S
    ok &= r.maxrss < base + RSS_SLACK_KB
    k.result(ok, desc, diags)


def replay_not_a_recording(k):
    base = baseline_rss()
    refused(k, "--replay /dev/zero: refused at once, memory bounded",
            "/dev/zero", r"^iowstat: /dev/zero:1: sample 0: not an iowstat "
            r"recording", base)
    sparse = os.path.join(TMP, "sparse.rec")
    with open(sparse, "w") as f:
        f.truncate(2 << 30)
    refused(k, "--replay of a 2 GB sparse file: refused at once, memory "
            "bounded", sparse, r"sparse\.rec:1: sample 0: not an iowstat "
            r"recording", base)
    os.unlink(sparse)


def lie(text, n):
    """basic.rec with its first @file /proc/stat line announcing n bytes"""
    return text.replace("@file /proc/stat 193\n", f"@file /proc/stat {n}\n",
                        1)


def replay_lying_lengths(k):
    base = baseline_rss()
    text = open(REC).read()
    refused(k, "--replay: a length beyond any recorded file is refused at "
            "once", write_rec("huge.rec", lie(text, 10**15)),
            r"huge\.rec:10: sample 0: /proc/stat: 1000000000000000 bytes "
            r"announced, more than any recorded file", base)
    refused(k, "--replay: a file longer than its length is named so",
            write_rec("more.rec", lie(text, 150)),
            r"more\.rec:10: sample 0: /proc/stat: more than the 150 bytes "
            r"announced", base)
    end = text.index("@end 0\n") + len("@end 0\n")
    path = os.path.join(TMP, "junk.rec")
    with open(path, "w") as f:
        f.write(text[:end])
        f.truncate(end + (256 << 20))
    line = text[:end].count("\n") + 1
    refused(k, "--replay: 256 MB without a newline after a sample is "
            "refused, memory bounded", path,
            r"junk\.rec:%d: sample 1: a line longer than 4096 bytes" % line,
            base)
    os.unlink(path)


# --- --replay uses the recorded samples -------------------------------------

G = 10**9
STEPS = 4       # intervals of the hand-made recording, 1 s each
BI = 100        # pgpgin per recorded second
CS = 1000       # context switches per recorded second


def one_second_rec(interval=1):
    """basic.rec's first sample STEPS more times, interval s apart, with
    pgpgin and ctxt growing by BI and CS per second"""
    rec = iow.read_recording(REC)
    first = rec["samples"][0]["text"]
    head = rec["head"].replace("@meta interval 1\n",
                               f"@meta interval {interval}\n")
    out = [head]
    for i in range(STEPS + 1):
        t = i * interval
        s = first.replace("@sample 0 1000000000 1735787045000000000",
                          f"@sample {i} {(1 + t) * G} "
                          f"{(1735787045 + t) * G}")
        s = s.replace("@end 0", f"@end {i}")
        s = s.replace("pgpgin 20000\n", "pgpgin %05d\n" % (20000 + BI * t))
        s = s.replace("ctxt 120000\n", "ctxt %06d\n" % (120000 + CS * t))
        out.append(s)
    return write_rec(f"every{interval}.rec", "".join(out))


def rates(stdout):
    """(time, bi, cs) of each vmstat -t line after the first"""
    lines = stdout.strip("\n").split("\n")[3:]
    return [(ln.split()[-5], int(ln.split()[8]), int(ln.split()[11]))
            for ln in lines]


def replay_rates_from_recorded_samples(k):
    """Without an interval every sample, with 2 and 4 every 2nd and 4th:
    each line at its sample's recorded time, with the rates a live run
    at that interval printed"""
    path = one_second_rec()
    diags, ok = [], True
    for n in (None, 2, 4):
        r = Run("--replay", path, "-t", *([str(n)] if n else []))
        step = n or 1
        want = [("03:04:%02d" % (5 + step * i), BI, CS)
                for i in range(1, STEPS // step + 1)]
        got = rates(r.stdout) if r.rc == 0 else r.stderr
        ok &= got == want
        diags += [f"interval {n}: got {got}", f"want {want}"]
    k.result(ok, "--replay FILE [2|4] of samples 1 s apart: every sample "
             "or every 2nd or 4th, the rates printed live", diags)


def replay_interval_refused(k):
    r = Run("--replay", one_second_rec(2), "3")
    r.expect(2, r"every2\.rec was recorded every 2 s: give an interval "
             r"that is a multiple of 2$", "interval 3")
    k.result(r.stdout == "", "--replay FILE 3 of a recording every 2 s: "
             "refused, one line, exit 2")
    r = Run("--replay", cmd_rec(), "2")
    r.expect(2, r"cmd\.rec is a -- CMD recording, whose summary covers the "
             r"whole run: give no interval$", "-- CMD recording")
    k.result(r.stdout == "", "--replay of a -- CMD recording with an "
             "interval: refused, one line, exit 2")


TESTS = [dev_full_every_format, dev_full_live, record_on_full_tmpfs,
         prom_on_full_tmpfs, textfile_unit_keeps_last_good,
         replay_not_a_recording, replay_lying_lengths,
         replay_rates_from_recorded_samples, replay_interval_refused]


def main():
    if not os.access(IOWSTAT, os.X_OK):
        iow.skip_all(f"{IOWSTAT} not built: make -C user")
    k = iow.Ktap()
    try:
        iow.run_each(k, TESTS)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    k.finish()


if __name__ == "__main__":
    main()
