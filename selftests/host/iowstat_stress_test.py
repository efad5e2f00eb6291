#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# iowstat_stress_test.py - iowstat --replay on damaged recordings: a real
# recording (the fixture basic.rec, and one recorded here from this
# machine's /proc) truncated at every line boundary and in the middle of
# every line, with its samples reordered and its timestamps going
# backwards, and corrupted: flipped digits, negative and huge numbers,
# duplicated headers, files missing from a sample.  Every variant is
# replayed in every view (vmstat, -P ALL, -o json, -o csv).
#
# Each run must end with exit status 0 or 1, never a signal or a
# sanitizer report.  A refused recording gets one stderr line naming the
# file, the line and the sample ("x.rec:57: sample 2: ...") and nothing on
# stdout.  An accepted one prints no negative number (but in the err
# columns, a difference) and no percentage above 100.
#
# usage: iowstat_stress_test.py [path/to/iowstat]
# Prints KTAP; exit 0 when every test passed, 1 otherwise.
import concurrent.futures
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

IOWSTAT = iow.iowstat_arg()
REC = os.path.join(iow.FIXTURES, "basic.rec")
TMP = tempfile.mkdtemp(prefix="iowstat-stress.")
VIEWS = {
    "vmstat": [],
    "cpus": ["-P", "ALL"],
    "json": ["-o", "json", "-P", "ALL"],
    "csv": ["-o", "csv", "-P", "ALL"],
}
# a sanitizer report must not pass for an ordinary exit 1; leaks are the
# fuzz targets' business (LSan at each of these exits doubles the time)
SAN_ENV = {
    "ASAN_OPTIONS": "exitcode=86:abort_on_error=0:detect_leaks=0",
    "UBSAN_OPTIONS": "exitcode=86:print_stacktrace=1",
}
ERR_RE = re.compile(r"^iowstat: (?P<file>[^:]+):(?P<line>\d+): "
                    r"sample (?P<sample>\d+): \S")
REBASE_RE = re.compile(r"^iowstat: cpu \d+: (.* went backwards; (the kernel's "
                       r"figures )?re-baselined|the kernel moved [\d.]+ ms "
                       r"of its (idle|iowait) time to (idle|iowait); .* until "
                       r"they agree) \(said once\)$")
# the first line's note: its two starts (run.c note_spans)
SPANS_RE = re.compile(r"^iowstat: the first (line|sample): .* since boot, "
                      r".* since iowprobe's counters began")
# --why's words, which --why=auto prints after an interval with wa
WHY_RE = re.compile(r"^# (wa \d+ = disk \d+ \+ no disk -?\d+; kernel \d+"
                    r"|  (disk|no disk|psi|kernel)\b)")
MAX_REPORTED = 8


# --- recordings as data -----------------------------------------------------

class Rec:
    """A recording: preamble lines, samples of (path, bytes) files, @cmd."""

    def __init__(self, text):
        rec = iow.parse_recording(text)
        self.head, self.cmd = rec["head"], rec["tail"]
        self.samples = [{"n": s["n"], "mono": s["mono"], "real": s["real"],
                         "files": [[p, b] for p, b in s["files"].items()]}
                        for s in rec["samples"]]

    def copy(self):
        r = Rec.__new__(Rec)
        r.head, r.cmd = self.head, self.cmd
        r.samples = [dict(s, files=[list(f) for f in s["files"]])
                     for s in self.samples]
        return r

    def render(self):
        """(text, {(sample index, path): line of its @file header})"""
        out = [self.head]
        line = self.head.count("\n")
        where = {}
        for k, s in enumerate(self.samples):
            out.append("@sample %d %d %d\n" % (s["n"], s["mono"], s["real"]))
            line += 1
            for path, body in s["files"]:
                out.append("@file %s %d\n%s\n" % (path, len(body), body))
                line += 1
                where[(k, path)] = line
                line += body.count("\n") + 1
            out.append("@end %d\n" % s["n"])
            line += 1
        out.append(self.cmd)
        return "".join(out), where


def live_recording():
    """Three samples of this machine's /proc, with basic.rec's cpus file."""
    text = open(REC).read()
    start = text.index("@file /sys/kernel/debug/iowprobe/cpus")
    body = text[text.index("\n", start) + 1:]
    cpus = body[:body.index("\n@end")]
    d = os.path.join(TMP, "debugfs")
    os.makedirs(os.path.join(d, "iowprobe"))
    with open(os.path.join(d, "iowprobe", "cpus"), "w") as f:
        f.write(cpus)
    rec = os.path.join(TMP, "live.rec")
    res = run(["--record", rec, "1", "3"], {"IOWSTAT_DEBUGFS": d})
    if res.returncode != 0:
        raise AssertionError("cannot record: %r" % res.stderr)
    return open(rec).read()


# --- running iowstat -------------------------------------------------------

def run(args, env=None):
    e = dict(os.environ, TZ="UTC", LC_ALL="C", **SAN_ENV)
    e.pop("IOWSTAT_DEBUGFS", None)
    e.update(env or {})
    return subprocess.run([IOWSTAT] + args, capture_output=True, text=True,
                          errors="replace", env=e, timeout=60)


class Variant:
    """One damaged recording and what replaying it must give.

    expect: "refuse", "accept" or "either"; sample: the sample a refusal
    must name (None: any); lines: the range the named line must be in;
    samples_ok: complete samples an accepted replay prints.
    """

    def __init__(self, name, text, expect="either", sample=None,
                 lines=None, samples_ok=None):
        self.name, self.text, self.expect = name, text, expect
        self.sample, self.lines, self.samples_ok = sample, lines, samples_ok
        self.path = None


# the kernel's idle + iowait over the wall: above 100 when it counts twice
UNBOUNDED = ("kernel-idle-iowait", "kernel_idle_iowait", "%kidle+iow")


def check_pct(where, name, v, signed=False):
    if math.isnan(v) or math.isinf(v):
        return "%s: %s is %r" % (where, name, v)
    lo = -100.0 if signed else 0.0
    if v < lo or (v > 100.0 and name not in UNBOUNDED):
        return "%s: %s = %r outside [%g, 100]" % (where, name, v, lo)
    return None


def vmstat_rows(out):
    rows, hdr = [], None
    for line in out.split("\n"):
        f = line.split()
        if not f or line.startswith(("procs", "--procs")):
            continue
        if f[0] == "r":
            hdr = f
            continue
        rows.append(dict(zip(hdr, f)) if hdr else {})
    return rows


def check_vmstat(out, v):
    errs = []
    rows = vmstat_rows(out)
    for i, r in enumerate(rows):
        for k, x in r.items():
            if not re.fullmatch(r"-?\d+", x):
                errs.append("vmstat line %d: %s = %r" % (i, k, x))
                continue
            x = int(x)
            if k == "err":
                e = check_pct("vmstat line %d" % i, k, x, True)
            elif k in ("us", "sy", "id", "wa", "st", "xwa", "bl", "ba"):
                e = check_pct("vmstat line %d" % i, k, x)
            else:
                e = "vmstat line %d: %s = %d" % (i, k, x) if x < 0 else None
            if e:
                errs.append(e)
    if v.samples_ok is not None and len(rows) != v.samples_ok:
        errs.append("%d vmstat lines for %d samples"
                    % (len(rows), v.samples_ok))
    return errs


def check_cpus(out, v):
    errs = []
    cols = None
    for line in out.split("\n"):
        f = line.split()
        if "%idle" in f:
            cols = f[f.index("CPU") + 1:]
            continue
        if not cols or len(f) < len(cols) + 2:
            continue
        for k, x in zip(cols, f[-len(cols):]):
            try:
                val = float(x)
            except ValueError:
                errs.append("-P: %s = %r in %r" % (k, x, line))
                continue
            e = check_pct("-P row %r" % line, k, val, k == "%err")
            if e:
                errs.append(e)
    return errs


def check_load(where, load):
    errs = []
    for row in load:
        for k, x in row.items():
            if k == "cpu":
                continue
            e = check_pct("%s cpu %s" % (where, row["cpu"]), k, float(x),
                          k in ("err", "xnodisk"))
            if e:
                errs.append(e)
    return errs


def check_json(out, v):
    doc = json.loads(out)
    errs = []
    for i, st in enumerate(doc["sysstat"]["hosts"][0]["statistics"]):
        errs += check_load("json statistics %d" % i, st["cpu-load"])
        for k, x in st.get("psi-io", {}).items():
            if x < 0:
                errs.append("json psi %s = %r" % (k, x))
    return errs


def check_csv(out, v):
    errs = []
    for i, row in enumerate(csv.DictReader(io.StringIO(out))):
        psi = {k: row.pop(k) for k in ("psi_some_total_us",
                                       "psi_full_total_us")}
        ts = row.pop("timestamp")
        errs += check_load("csv row %d (%s)" % (i, ts), [row])
        for k, x in psi.items():
            if x and (not x.isdigit()):
                errs.append("csv row %d: %s = %r" % (i, k, x))
    return errs


CHECK = {"vmstat": check_vmstat, "cpus": check_cpus, "json": check_json,
         "csv": check_csv}


def judge(v, view, res):
    """What is wrong with one run, as a list of strings."""
    what = "%s [%s]" % (v.name, view)
    if res.returncode not in (0, 1):
        return ["%s: exit %d; stderr: %s" % (what, res.returncode,
                                             res.stderr[-2000:])]
    if re.search(r"Sanitizer|runtime error", res.stderr):
        return ["%s: sanitizer: %s" % (what, res.stderr[-2000:])]
    lines = res.stderr.strip("\n").split("\n") if res.stderr else []
    if res.returncode == 1:
        if v.expect == "accept":
            return ["%s: refused: %r" % (what, res.stderr)]
        if len(lines) != 1:
            return ["%s: %d stderr lines: %r" % (what, len(lines),
                                                 res.stderr)]
        m = ERR_RE.match(lines[0])
        if not m:
            return ["%s: message names no line and sample: %r"
                    % (what, lines[0])]
        errs = []
        if res.stdout:
            errs.append("%s: printed before refusing: %r"
                        % (what, res.stdout[:200]))
        if v.sample is not None and int(m["sample"]) != v.sample:
            errs.append("%s: names sample %s, not %d: %r"
                        % (what, m["sample"], v.sample, lines[0]))
        line, nlines = int(m["line"]), v.text.count("\n") + 1
        lo, hi = v.lines or (1, nlines)
        if not lo <= line <= hi:
            errs.append("%s: names line %d, not %d-%d: %r"
                        % (what, line, lo, hi, lines[0]))
        return errs
    if v.expect == "refuse":
        return ["%s: accepted" % what]
    errs = ["%s: stderr %r" % (what, x) for x in lines
            if not REBASE_RE.match(x) and not SPANS_RE.match(x) and
            not WHY_RE.match(x)]
    try:
        errs += ["%s: %s" % (what, e) for e in CHECK[view](res.stdout, v)]
    except (ValueError, KeyError, IndexError, TypeError) as e:
        errs.append("%s: output does not parse (%r): %r"
                    % (what, e, res.stdout[:300]))
    return errs


def replay_all(variants):
    """Replay every variant in every view; the problems found."""
    jobs = []
    for i, v in enumerate(variants):
        v.path = os.path.join(TMP, "v%d.rec" % i)
        with open(v.path, "w") as f:
            f.write(v.text)
        for view, args in VIEWS.items():
            jobs.append((v, view, ["--replay", v.path] + args))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        results = ex.map(lambda j: (j[0], j[1], run(j[2])), jobs)
        problems = []
        for v, view, res in results:
            problems += judge(v, view, res)
    for v in variants:
        os.unlink(v.path)
    if problems:
        msg = ["%d problems in %d runs" % (len(problems), len(jobs))]
        raise AssertionError("\n".join(msg + problems[:MAX_REPORTED]))
    print("# %d variants, %d runs" % (len(variants), len(jobs)))


# --- the variants ----------------------------------------------------------

BASIC = Rec(open(REC).read())


def sample_ends(text):
    """offsets just past each "@end N\\n" line: complete samples"""
    return [m.end() for m in re.finditer(r"^@end \d+\n", text, re.M)]


def truncations(text, mid):
    out = []
    ends = sample_ends(text)
    offs = [0] + [m.end() for m in re.finditer("\n", text)]
    for k, off in enumerate(offs):
        if mid:
            nl = text.find("\n", off)
            if nl < 0 or nl - off < 2:
                continue
            off += (nl - off) // 2
        cut = text[:off]
        done = sum(1 for e in ends if e <= off)
        whole = off in ends
        out.append(Variant(
            "cut at line %d%s" % (k + 1, " (mid-line)" if mid else ""), cut,
            expect="accept" if whole and done else "refuse",
            sample=None if whole else done, samples_ok=done))
    return out


@iow.test
def truncated_at_every_line():
    replay_all(truncations(BASIC.render()[0], mid=False))


@iow.test
def truncated_mid_line():
    replay_all(truncations(BASIC.render()[0], mid=True))


def with_samples(rec, order, renumber):
    r = rec.copy()
    r.samples = [dict(rec.samples[i], files=[list(f) for f in
                                             rec.samples[i]["files"]])
                 for i in order]
    if renumber:
        for k, s in enumerate(r.samples):
            s["n"] = k
            s["mono"] = rec.samples[k]["mono"]
            s["real"] = rec.samples[k]["real"]
    return r


def orders(n):
    out = []
    for i in range(n):
        for j in range(i + 1, n):
            o = list(range(n))
            o[i], o[j] = o[j], o[i]
            out.append((i, o))
    out.append((0, list(reversed(range(n)))))
    return out


@iow.test
def reordered_samples_refused():
    """samples swapped with their numbers: out of order, sample named"""
    vs = []
    for first, o in orders(len(BASIC.samples)):
        vs.append(Variant("order %s" % o, with_samples(BASIC, o, False)
                          .render()[0], "refuse", sample=first))
    replay_all(vs)


@iow.test
def reordered_contents_accepted():
    """contents swapped, numbers and times kept: counters go backwards"""
    vs = []
    for rec in RECS:
        for _, o in orders(len(rec.samples)):
            vs.append(Variant("contents %s" % o, with_samples(rec, o, True)
                              .render()[0], "accept",
                              samples_ok=len(rec.samples)))
        r = rec.copy()
        r.samples.insert(2, dict(r.samples[1]))
        for k, s in enumerate(r.samples):
            s["n"] = k
        vs.append(Variant("a sample twice, same time", r.render()[0],
                          "accept", samples_ok=len(r.samples)))
    replay_all(vs)


@iow.test
def time_going_backwards():
    vs = []
    n = len(BASIC.samples)
    for i in range(1, n):
        r = BASIC.copy()
        r.samples[i]["mono"] = r.samples[i - 1]["mono"] - 1
        text, _ = r.render()
        vs.append(Variant("mono of sample %d before %d's" % (i, i - 1),
                          text, "refuse", sample=i))
        r = BASIC.copy()
        r.samples[i]["real"] = r.samples[0]["real"] - 10 ** 9 * 3600
        vs.append(Variant("wall clock of sample %d back an hour" % i,
                          r.render()[0], "accept", samples_ok=n))
    replay_all(vs)


@iow.test
def files_shuffled_same_output():
    """the order of the files in a sample does not matter"""
    r = BASIC.copy()
    for s in r.samples:
        s["files"].reverse()
    path = os.path.join(TMP, "shuffled.rec")
    with open(path, "w") as f:
        f.write(r.render()[0])
    for view, args in VIEWS.items():
        a, b = run(["--replay", REC] + args), run(["--replay", path] + args)
        if (a.returncode, a.stdout) != (b.returncode, b.stdout):
            raise AssertionError("%s: output differs" % view)


def body_variants(rec, mutate, name, expect="either", only=None):
    """mutate(line, line index, path) -> [new line, ...], per body line
    of every sample (or of sample @only)"""
    vs = []
    for k, s in enumerate(rec.samples):
        if only is not None and k != only:
            continue
        for fi, (path, body) in enumerate(s["files"]):
            blines = body.split("\n")
            for li in range(len(blines)):
                for new in mutate(blines[li], li, path):
                    r = rec.copy()
                    nb = blines[:li] + [new] + blines[li + 1:]
                    r.samples[k]["files"][fi][1] = "\n".join(nb)
                    text, w = r.render()
                    hdr = w[(k, path)]
                    vs.append(Variant(
                        "%s: sample %d %s line %d: %r" % (name, k, path,
                                                          li + 1, new[:60]),
                        text, expect, sample=k,
                        lines=(hdr, hdr + len(nb) + 1),
                        samples_ok=len(rec.samples)))
    return vs


def token_spans(line):
    return [m.span() for m in re.finditer(r"\d+", line)]


def flip_digits(line, li, path):
    """each number: its first digit moved by 5"""
    out = []
    for a, _ in token_spans(line):
        if "cpus" not in path and out:
            break			# /proc files: the first number only
        d = str((int(line[a]) + 5) % 10)
        out.append(line[:a] + d + line[a + 1:])
    return out


@iow.test
def corrupted_flipped_digits():
    replay_all(body_variants(BASIC, flip_digits, "flipped digit", only=1))


def replace_numbers(values):
    """each number of a cpus row, the first of a /proc line: each value"""
    def mutate(line, li, path):
        out = []
        spans = token_spans(line)
        if "cpus" not in path:
            spans = spans[:1]
        for a, b in spans:
            for v in values:
                out.append(line[:a] + v(line[a:b]) + line[b:])
        return out
    return mutate


@iow.test
def corrupted_negative_numbers():
    replay_all(body_variants(BASIC, replace_numbers([lambda t: "-" + t]),
                             "negative", only=1))


# the largest u64 and 2^63 (the sign bit of a long long); one more than
# the largest is refused like a negative number
HUGE = ["18446744073709551615", "9223372036854775808"]


@iow.test
def corrupted_huge_numbers():
    replay_all(body_variants(
        BASIC, replace_numbers([lambda t, h=h: h for h in HUGE]), "huge",
        only=1))


@iow.test
def corrupted_bytes():
    """a byte of each body line replaced by junk"""
    def mutate(line, li, path):
        if not line:
            return ["\x01", "\t"]
        m = len(line) // 2
        return [line[:m] + "x\x7f "[li % 3] + line[m + 1:]]
    replay_all(body_variants(BASIC, mutate, "junk byte", only=2))


@iow.test
def duplicated_headers():
    vs = []
    text, _ = BASIC.render()
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.startswith(("#", "@")):
            dup = "\n".join(lines[:i + 1] + [line] + lines[i + 1:])
            vs.append(Variant("line %d twice: %r" % (i + 1, line), dup))
    # in a file: the debugfs ABI line and column header, a CPU row, "cpu "

    def mutate(line, li, path):
        if line.startswith(("# iowprobe", "cpu ", "cpu0", "0 ")) or li == 2:
            return [line + "\n" + line]
        return []
    vs += body_variants(BASIC, mutate, "duplicated")
    replay_all(vs)


@iow.test
def missing_files():
    vs = []
    n = len(BASIC.samples)
    for k in range(n):
        for fi, (path, _) in enumerate(BASIC.samples[k]["files"]):
            r = BASIC.copy()
            del r.samples[k]["files"][fi]
            optional = path == "/proc/pressure/io"
            vs.append(Variant("sample %d without %s" % (k, path),
                              r.render()[0],
                              "accept" if optional else "refuse",
                              sample=None if optional else k,
                              samples_ok=n))
        r = BASIC.copy()
        r.samples[k]["files"].append(["/proc/unknown", "x 1\n"])
        vs.append(Variant("sample %d with an unknown file" % k,
                          r.render()[0], "accept", samples_ok=n))
        r = BASIC.copy()
        for f in r.samples[k]["files"]:
            f[1] = ""
        vs.append(Variant("sample %d with empty files" % k, r.render()[0],
                          "refuse", sample=k))
    text = BASIC.render()[0]
    for what in ("@end 1\n", "@sample 2 "):
        i = text.index(what)
        j = text.index("\n", i) + 1
        vs.append(Variant("without %r" % what.strip(), text[:i] + text[j:],
                          "refuse"))
    replay_all(vs)


@iow.test
def real_recording_damaged():
    """this machine's /proc: cut at every 25th line and at each sample's
    end, contents reordered (above), a digit flipped in each line of the
    second sample's /proc/stat and cpus"""
    text, _ = RECS[1].render()
    ends = sample_ends(text)
    vs = [v for k, v in enumerate(truncations(text, mid=False))
          if k % 25 == 0 or len(v.text) in ends]
    vs += [v for v in body_variants(RECS[1], flip_digits, "flipped digit",
                                    only=1)
           if "/proc/stat" in v.name or "cpus" in v.name]
    replay_all(vs)


def make_recordings():
    global RECS
    try:
        RECS = [BASIC, Rec(live_recording())]
    except Exception as e:
        raise RuntimeError("cannot make the live recording: %s" % e) from e


sys.exit(iow.run_tap(TMP, setup=make_recordings))
