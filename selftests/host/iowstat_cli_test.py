#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# iowstat_cli_test.py - iowstat end to end: replayed fixtures against
# expected output worked out by hand, the output formats through real
# parsers (json, csv, promtool when installed), damaged recordings, every
# user-facing error with its message and exit code, and -- CMD.
#
# usage: iowstat_cli_test.py [path/to/iowstat]
# Prints KTAP; exit 0 when every test passed, 1 otherwise.
import csv
import io
import json
import os
import re
import shutil
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
REC = os.path.join(iow.FIXTURES, "basic.rec")
TMP = tempfile.mkdtemp(prefix="iowstat-test.")


def run(*args, env=None, **kw):
    return iow.run_iowstat(IOWSTAT, *args, env=env, **kw)


check = iow.check
expect = iow.expect


def fixture(name):
    with open(os.path.join(iow.FIXTURES, name)) as f:
        return f.read()


def fake_debugfs(cpus_text):
    d = tempfile.mkdtemp(dir=TMP)
    if cpus_text is not None:
        os.mkdir(os.path.join(d, "iowprobe"))
        with open(os.path.join(d, "iowprobe", "cpus"), "w") as f:
            f.write(cpus_text)
    return d


def good_cpus():
    text = open(REC).read()
    start = text.index("@file /sys/kernel/debug/iowprobe/cpus")
    body = text[text.index("\n", start) + 1:]
    return body[:body.index("\n@end")]


# --- views from the hand-made recording ---------------------------------

@iow.test
def replay_vmstat_matches_hand_computed():
    res = run("--replay", REC)
    expect(res, 0, out=fixture("basic.vmstat.out"))
    check(res.stderr.count("re-baselined") == 1, "rebase said once")
    check("cpu 1:" in res.stderr, "names cpu 1")


@iow.test
def replay_cpus_matches_hand_computed():
    expect(run("--replay", REC, "-P", "ALL"), 0,
           out=fixture("basic.cpus.out"))


@iow.test
def why_words_on_stderr_stdout_unchanged():
    """--why's words go to stderr: stdout is the same with or without
    them, in both text views.  basic.rec's first interval, by hand (its
    README): xwa 0.6 s of 2 s = 30; no iowait_blk_ns in the recording, so
    the disk part is the bound, per CPU min(iowait, blk_local): cpu0
    min(0.2, 0.1) + cpu1 min(0.4, 0.1) = 0.2 s = 10, no disk 30 - 10 = 20;
    the kernel's iowait 0.1 + 0.3 s = 20; PSI some 0.25 s, full 0.125 s of
    1 s = 25 and 13."""
    for view in ((), ("-P", "ALL")):
        words = run("--replay", REC, "--why", *view)
        quiet = run("--replay", REC, "--why=never", *view)
        expect(words, 0)
        expect(quiet, 0)
        check(words.stdout == quiet.stdout, "stdout unchanged %r" % (view,))
        check("# wa" not in quiet.stderr, "--why=never says nothing")
        lines = [x for x in words.stderr.split("\n") if x.startswith("#")]
        check(lines[0] == "# wa 30 = disk 10 + no disk 20; kernel 20; "
              "psi io some 25 full 13", "first interval: %r" % lines[0])
        check(lines[1].startswith("#   disk 10 at most "),
              "the bound said: %r" % lines[1])
        check(sum(x.startswith("# wa ") for x in lines) == 3,
              "once an interval: %r" % words.stderr)
    expect(run("--why=sometimes"), 2,
           r'^iowstat: --why requires auto, always or never, not '
           r'"sometimes"$')


@iow.test
def awk_sees_vmstat_columns():
    out = run("--replay", REC).stdout.split("\n")
    exp = fixture("basic.vmstat.out").split("\n")
    for got, want in zip(out[2:6], exp[2:6]):
        check(got.split()[:17] == want.split()[:17], "columns 1-17")
        check(got.split()[14:16] == want.split()[14:16], "id wa")
    check(out[1].split()[:17] == "r b swpd free buff cache si so bi bo in "
          "cs us sy id wa st".split(), "vmstat's header names")


@iow.test
def no_first_and_timestamp():
    res = run("--replay", REC, "-y", "-t")
    lines = res.stdout.strip().split("\n")
    check(len(lines) == 5, "header + 3 lines, got %d" % len(lines))
    check(lines[0].endswith(" -----timestamp----- -----exact------"),
          lines[0])
    check(re.search(r" +UTC +xwa", lines[1]), lines[1])
    check(" 2025-01-02 03:04:06 " in lines[2], lines[2])
    check(lines[2].startswith(" 2  0  10000 1000000"), lines[2])


@iow.test
def wide_and_units():
    lines = run("--replay", REC, "-w", "-S", "M").stdout.split("\n")
    check(lines[0].startswith("--procs-- ---"), lines[0])
    check(lines[1].split()[-5:] == ["gu", "xwa", "bl", "ba", "err"],
          lines[1])
    # 1000000 KiB / 1024 = 976.6 -> 976; 350000 -> 341
    check(lines[2] == "   3    1            9          976            1"
          "          341    0    0   200   400  500 1200  10   6  80   4"
          "   0   0   20   13   17   -15", repr(lines[2]))


@iow.test
def count_limits_replay():
    lines = run("--replay", REC, "1", "2").stdout.strip().split("\n")
    check(len(lines) == 4, "header + 2 lines")


@iow.test
def json_parses_and_keeps_sysstat_keys():
    res = run("--replay", REC, "-o", "json", "-P", "0,1")
    expect(res, 0)
    doc = json.loads(res.stdout)
    host = doc["sysstat"]["hosts"][0]
    check(host["number-of-cpus"] == 2 and host["nodename"] == "testbox",
          "host keys")
    st = host["statistics"]
    check(len(st) == 3, "3 intervals")
    check(st[0]["timestamp"] == "03:04:06", st[0]["timestamp"])
    check(st[0]["psi-io"]["some-total-us"] == 1250000, "psi")
    load = st[0]["cpu-load"]
    check([c["cpu"] for c in load] == ["all", "0", "1"], "cpu rows")
    keys = ("usr nice sys iowait irq soft steal guest gnice idle "
            "kernel-idle kernel-iowait xidle xiowait xblk xblkany "
            "err xdisk xnodisk kernel-idle-iowait").split()
    check(list(load[0].keys()) == ["cpu"] + keys, list(load[0].keys()))
    check(load[1]["xiowait"] == 20.0 and load[1]["kernel-idle"] == 60.0 and
          load[1]["kernel-iowait"] == 10.0 and load[1]["err"] == -10.0,
          "cpu0: the -P row's %idle %iowait %xiowait %err")
    # /proc/stat interval 1: 60 us, 30 sy, 150 id, 50 wa, 10 soft of 300
    check(load[0]["usr"] == 20.0 and load[0]["iowait"] == 16.67, "sysstat")


@iow.test
def csv_has_header_and_rows():
    res = run("--replay", REC, "-o", "csv", "-P", "ALL")
    expect(res, 0)
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    check(len(rows) == 9, "3 intervals x (all, 0, 1)")
    check(rows[0]["timestamp"] == "2025-01-02T03:04:06Z", "timestamp")
    check(rows[1]["cpu"] == "0" and rows[1]["xblkany"] == "30.00", "cpu0")
    check(rows[4]["cpu"] == "0" and rows[5]["xidle"] == "0.00", "rebased")
    check(rows[8]["psi_full_total_us"] == "875000", "psi")


def prom_parse(text):
    """A strict reading of the text format: HELP/TYPE before samples."""
    typed, samples = {}, {}
    for line in text.splitlines():
        m = re.match(r"# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$", line)
        if m:
            if m.group(1) == "TYPE":
                check(m.group(3) in ("counter", "gauge"), line)
                typed[m.group(2)] = m.group(3)
            continue
        m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{cpu="\d+"\})? '
                     r'(-?\d+(\.\d+)?)$', line)
        check(m, "bad sample line %r" % line)
        check(m.group(1) in typed, "sample before TYPE: %r" % line)
        if typed[m.group(1)] == "counter":
            check(m.group(1).endswith("_total"), "counter name " + line)
        samples[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return samples


@iow.test
def prom_is_valid():
    res = run("--replay", REC, "-o", "prom")
    expect(res, 0)
    s = prom_parse(res.stdout)
    check(not any(k.startswith("node_cpu") for k in s), "own prefix")
    check(s['iowprobe_cpu_busy_seconds_total{cpu="0"}'] == 3.3, "last")
    check(s['iowprobe_cpu_iowait_seconds_total{cpu="1"}'] == 0.15, "cpu1")
    check(s["iowprobe_pressure_io_some_seconds_total"] == 1.75, "psi")
    if shutil.which("promtool"):
        pt = subprocess.run(["promtool", "check", "metrics"],
                            input=res.stdout, capture_output=True,
                            text=True)
        check(pt.returncode == 0, "promtool: " + pt.stdout + pt.stderr)


# --- damaged recordings ---------------------------------------------------

def damaged(mutate):
    text = open(REC).read()
    path = os.path.join(TMP, "bad.rec")
    with open(path, "w") as f:
        f.write(mutate(text))
    return path


def expect_bad(path, err_re):
    res = run("--replay", path)
    expect(res, 1, err_re)
    check(res.stdout == "", "nothing printed before the error")


@iow.test
def replay_truncated():
    expect_bad(damaged(lambda t: t[:len(t) * 3 // 4]),
               r"bad\.rec:\d+: sample 2: .*truncated")


@iow.test
def replay_reordered():
    expect_bad(damaged(lambda t: t.replace("@sample 1 ", "@sample 7 ")),
               r"bad\.rec:\d+: sample 1: out of order: @sample 7")


@iow.test
def replay_bad_number_names_line():
    def mutate(t):
        i = t.index("ctxt 123001")
        return t[:i] + "ctxt 12300x" + t[i + 11:]
    path = damaged(mutate)
    line = open(path).read().split("\n").index("ctxt 12300x") + 1
    expect_bad(path, r"bad\.rec:%d: sample 1: /proc/stat line 5: bad "
               r"number" % line)


@iow.test
def replay_missing_file():
    def mutate(t):
        i = t.index("@file /proc/vmstat", t.index("@sample 2 "))
        j = t.index("@file /proc/meminfo", i)
        return t[:i] + t[j:]
    expect_bad(damaged(mutate), r"sample 2: incomplete: no /proc/vmstat")


@iow.test
def replay_not_a_recording():
    expect_bad(damaged(lambda t: "hello\n"),
               r"bad\.rec:1: sample 0: not an iowstat recording")


@iow.test
def replay_time_backwards():
    expect_bad(damaged(lambda t: t.replace("@sample 3 4000000000",
                                           "@sample 3 1")),
               r"sample 3: monotonic time goes backwards")


# --- live mode through a fake debugfs, record and replay ------------------

@iow.test
def record_then_replay_is_identical():
    d = fake_debugfs(good_cpus())
    rec = os.path.join(TMP, "live.rec")
    live = run("--record", rec, "-t", "1", "2",
               env={"IOWSTAT_DEBUGFS": d})
    expect(live, 0)
    again = run("--replay", rec, "-t")
    expect(again, 0, out=live.stdout)
    check(len(live.stdout.strip().split("\n")) == 4, "2 lines")


# --- errors: one line, exit 2 ---------------------------------------------

# no module and no BPF backend attached (IOWSTAT_BPF_PIN: never the
# machine's own): one line that names both ways
NO_BACKEND_RE = (r"^iowstat: no iowprobe module is loaded and no BPF backend "
                 r"is attached: load the module \(modprobe iowprobe, or "
                 r"insmod iowprobe\.ko\), or measure with BPF \(iowstat "
                 r"--bpf for one run, iowstat --bpf attach to keep it "
                 r"attached\)")


def no_backend_re():
    if built_with_bpf():
        return NO_BACKEND_RE + "$"
    return (r"^iowstat: the iowprobe module is not loaded: load it: "
            r"modprobe iowprobe \(or insmod iowprobe\.ko\)$")


def no_pin():
    """a pinned state nowhere, as anyone can see: /proc has no such folder"""
    return {"IOWSTAT_BPF_PIN": "/proc/no-bpffs/iowprobe"}


@iow.test
def err_no_debugfs_no_module():
    env = dict(no_pin(), IOWSTAT_DEBUGFS=os.path.join(TMP, "none"))
    expect(run(env=env), 2, no_backend_re())


@iow.test
def err_module_not_loaded():
    env = dict(no_pin(), IOWSTAT_DEBUGFS=fake_debugfs(None))
    expect(run(env=env), 2, no_backend_re())


@iow.test
def err_unknown_abi():
    d = fake_debugfs("# iowprobe abi 2\ncpu busy_ns\n0 1\n")
    expect(run(env={"IOWSTAT_DEBUGFS": d}), 2,
           r'unknown debugfs ABI "# iowprobe abi 2"; this iowstat reads '
           r'"# iowprobe abi 1"')


@iow.test
def err_not_root():
    """Without the module (this machine has none) a user is told the two
    ways, which need root; with it, the guest's robust.py checks the
    "must be root" line."""
    if os.geteuid() == 0:
        res = run(env=no_pin(), preexec_fn=unprivileged)
    else:
        res = run(env=no_pin())
    expect(res, 2, no_backend_re())


@iow.test
def err_bad_interval_and_count():
    expect(run("0"), 2, r'^iowstat: bad interval "0"')
    expect(run("1x"), 2, r'^iowstat: bad interval "1x"')
    expect(run("1", "-3"), 2, r'^iowstat: bad count "-3"')
    expect(run("1", "2", "3"), 2, r'unexpected argument "3"')


TRY = r"; try 'iowstat --help'$"
# getopt_long's own words, on one line with what to do
GETOPT_ERRORS = [
    (("--frob",), r"unrecognized option '--frob'" + TRY),
    (("--frob=1",), r"unrecognized option '--frob=1'" + TRY),
    (("-q",), r"invalid option -- 'q'" + TRY),
    (("-nq",), r"invalid option -- 'q'" + TRY),
    (("--t",), r"option '--t' is ambiguous; possibilities: '--timestamp' "
     r"'--top'" + TRY),
    (("--re", "x"), r"option '--re' is ambiguous; possibilities: "
     r"'--record' '--replay'" + TRY),
    (("--bpf=1",), r"option '--bpf' doesn't allow an argument" + TRY),
    (("--help=x",), r"option '--help' doesn't allow an argument" + TRY),
    (("--wid=3",), r"option '--wide' doesn't allow an argument" + TRY),
    (("--unit",), r"option '--unit' requires an argument" + TRY),
    (("--rec",), r"option '--record' requires an argument" + TRY),
    (("-S",), r"option requires an argument -- 'S'" + TRY),
]


def expect_usage_errors(cases, *before):
    """each (args, message): exit 2, that one line, nothing on stdout"""
    for args, err in cases:
        expect(run(*before, *args), 2, r"^iowstat: " + err, out="")


@iow.test
def err_getopt_messages():
    expect_usage_errors(GETOPT_ERRORS)


@iow.test
def unique_abbreviations_work():
    want = run("--replay", REC, "-n").stdout
    expect(run("--rep", REC, "--one"), 0, out=want)
    expect(run("--replay=" + REC, "--one-h"), 0, out=want)


# every option that would do nothing where it is given: refused, not
# dropped (the recording is never read: the refusal comes first)
REFUSED = [
    (("-o", "prom", "--", "true"), r"-o prom does not go with -- CMD"),
    (("1", "2", "--", "true"), r"-- CMD samples until CMD ends: give no "
     r"count"),
    (("-n", "--", "true"), r"-n shapes vmstat's lines, which -- CMD"),
    (("--top", "--", "true"), r"--top and -- CMD exclude each other"),
    (("-n", "-P", "ALL"), r"-n shapes vmstat's lines, which -P does not"),
    (("-t", "-o", "json"), r"-t shapes vmstat's lines, which -o json"),
    (("-w", "-o", "csv"), r"-w shapes vmstat's lines, which -o csv"),
    (("-S", "M", "-o", "prom"), r"-S shapes vmstat's lines, which -o prom"),
    (("-y", "--top"), r"-y shapes vmstat's lines, which --top does not"),
    (("-o", "prom", "-P", "1"), r"-o prom exports every CPU; leave out -P"),
    (("-o", "prom", "5"), r"-o prom prints one exposition; give no "
     r"interval"),
    (("--replay", REC, "-o", "prom", "5"), r"-o prom prints one "
     r"exposition; give no interval"),
    (("--top", "-P", "ALL"), r"--top and -P exclude each other"),
    (("--top", "-o", "prom"), r"--top and -o prom exclude each other"),
    (("--cgroup",), r"--cgroup goes with --top"),
    (("--bpf", "--replay", REC), r"--replay reads the recording, no "
     r"backend; leave out --bpf"),
    (("--record", "x", "--replay", REC), r"--record and --replay exclude"),
    (("--replay", REC, "--", "true"), r"--replay cannot run a command"),
    (("--bpf", "-n", "attach"), r"--bpf attach takes nothing else"),
    (("-P", "0", "--bpf", "detach"), r"--bpf detach takes nothing else"),
    (("-o", "json", "-o", "csv"), r"--output given twice; give it once"),
    (("-P", "0", "--cpus", "1"), r"--cpus given twice"),
    (("--record", "a", "--record", "b"), r"--record given twice"),
]


@iow.test
def err_refused_combinations():
    expect_usage_errors(REFUSED)


@iow.test
def err_bad_values():
    expect(run("-S", "x"), 2, r'^iowstat: -S requires k, K, m, M or b, not '
           r'"x"', out="")
    expect(run("-S", "kk"), 2, r'-S requires k, K, m, M or b, not "kk"')
    for bad in ("0,,1", "0,", ",1", "1-", "0-1-2", "1x"):
        expect(run("-P", bad), 2, r'^iowstat: -P requires ALL or a list of '
               r'CPUs like 0,2,4-7, not "%s"$' % re.escape(bad), out="")
    expect(run("-P", "all"), 2, r'^iowstat: -P requires ALL in capitals, '
           r'as mpstat does, not "all"; did you mean -P ALL\?$', out="")


@iow.test
def err_dashdash_without_command():
    expect(run("--"), 2, r'^iowstat: no command after "--"')


def built_with_bpf():
    """iowstat links libbpf exactly when bpf/bpf.mk built --bpf."""
    ldd = subprocess.run(["ldd", IOWSTAT], capture_output=True, text=True)
    return "libbpf" in ldd.stdout


def unprivileged():
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


@iow.test
def err_bpf_not_built():
    if built_with_bpf():  # then the error a user meets is permission
        kw = {"preexec_fn": unprivileged} if os.geteuid() == 0 else {}
        expect(run("--bpf", **kw), 2, r"^iowstat: --bpf: not permitted")
        return
    expect(run("--bpf"), 2, r"^iowstat: --bpf: this iowstat was built "
           r"without BPF support")


@iow.test
def err_cpu_not_there():
    expect(run("--replay", REC, "-P", "7"), 2, r"-P: no CPU 7")


@iow.test
def err_command_not_executable():
    d = fake_debugfs(good_cpus())
    expect(run("--", "/nonexistent/cmd", env={"IOWSTAT_DEBUGFS": d}), 127,
           r"^iowstat: cannot execute /nonexistent/cmd: No such file")


@iow.test
def help_and_version():
    res = run("--help")
    expect(res, 0)
    for col in ("xwa", "bl", "ba", "err", "%xblk"):
        check(col in res.stdout, "--help documents " + col)
    expect(run("--version"), 0)


# --- -- CMD ------------------------------------------------------------------

def summary_ok(stderr, status):
    check(re.search(r"^real\t\d+m\d+\.\d{3}s$", stderr, re.M), "real")
    check(re.search(r"^user\t\d+m\d+\.\d{3}s$", stderr, re.M), "user")
    check(re.search(r"^sys\t\d+m\d+\.\d{3}s$", stderr, re.M), "sys")
    check(re.search(r"^exit\t%d$" % status, stderr, re.M), "exit line")
    check(re.search(r"^Summary: +all ", stderr, re.M), "table")


@iow.test
def cmd_status_and_untouched_stdout():
    d = fake_debugfs(good_cpus())
    res = run("--", "sh", "-c", "echo out; echo err >&2; exit 3",
              env={"IOWSTAT_DEBUGFS": d})
    expect(res, 3)
    check(res.stdout == "out\n", "CMD's stdout alone: %r" % res.stdout)
    check(res.stderr.startswith("err\n"), "CMD's stderr first")
    summary_ok(res.stderr, 3)


@iow.test
def cmd_killed_by_signal():
    d = fake_debugfs(good_cpus())
    res = run("--", "sh", "-c", "kill -TERM $$",
              env={"IOWSTAT_DEBUGFS": d})
    expect(res, 143)
    summary_ok(res.stderr, 143)


@iow.test
def cmd_sigint_is_passed_on():
    d = fake_debugfs(good_cpus())
    e = dict(os.environ, TZ="UTC", IOWSTAT_DEBUGFS=d)
    p = subprocess.Popen([IOWSTAT, "--", "sleep", "30"], env=e,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    check(p.returncode == 130, "exit %d: %r" % (p.returncode, err))
    summary_ok(err, 130)


@iow.test
def cmd_record_replays_summary():
    """the replay prints the live summary, Tree rows and all (whatever
    this host lets the tree measure: as root, taskstats' parts)"""
    d = fake_debugfs(good_cpus())
    rec = os.path.join(TMP, "cmd.rec")
    res = run("--record", rec, "--", "sh", "-c", "sleep 0.1; true",
              env={"IOWSTAT_DEBUGFS": d})
    expect(res, 0)
    check(re.search(r"^Tree: +unit +thread-s +user ", res.stderr, re.M),
          "live: Tree rows: %r" % res.stderr)
    again = run("--replay", rec)
    expect(again, 0)
    check(again.stderr == res.stderr, "replay %r, live %r"
          % (again.stderr, res.stderr))
    res = run("--record", rec, "-o", "json", "--", "true",
              env={"IOWSTAT_DEBUGFS": d})
    expect(res, 0)
    tree = json.loads(res.stdout)["sysstat"]["hosts"][0]["command"]["tree"]
    again = json.loads(run("--replay", rec, "-o", "json").stdout)
    check(again["sysstat"]["hosts"][0]["command"]["tree"] == tree,
          "json tree %r" % tree)


# A -- CMD recording by hand: basic.rec's first two samples, the tree's
# file in the last (the parts of README.iowstat.md's example, in ns), then
# how CMD ended
TREE_FILE = ("have_tree 1\nhave_iowait 1\nprocesses 3\nthreads 4\n"
             "thread_ns 4368000000\nuser_ns 323000000\nsys_ns 210000000\n"
             "tick_ns 400000000\nruntime_of_a_newer_iowstat 7\n"
             "runq_ns 48000000\nblkio_ns 0\niowait_ns 1479000000\n"
             "iowait_blk_ns 1449000000\nwa_ns 1467000000\nleft 1\nlost 0\n")
# other = 4.368 - 0.323 - 0.210 - 0.048 - 1.479 = 2.308 s; the % row of
# 4.368 s: 7.39 (0.323), 4.81 (0.210), 1.10 (0.048), 33.86 (1.479),
# 52.84 (2.308), 33.17 (1.449); "left 1": one line says so
TREE_ROWS = (
    "\nTree:       3 processes, 4 threads\n"
    "Tree:       unit  thread-s     user      sys     runq"
    "   iowait    other   iowblk       wa\n"
    "Tree:          s     4.368    0.323    0.210    0.048"
    "    1.479    2.308    1.449    1.467\n"
    "Tree:          %    100.00     7.39     4.81     1.10"
    "    33.86    52.84    33.17\n"
    "Tree:       1 processes of the tree still ran at the end: not "
    "counted, moved back to iowstat's cgroup\n")


def cmd_rec(tree=TREE_FILE):
    text = open(REC).read()
    text = text[:text.index("@sample 2 ")]
    if tree is not None:
        at = text.rindex("@end 1\n")
        text = (text[:at] + "@file iowstat:tree %d\n%s\n" % (len(tree), tree)
                + text[at:])
    return damaged(lambda t: text + "@cmd 0 2307000000 323000 210000\n")


@iow.test
def cmd_replay_tree_by_hand():
    res = run("--replay", cmd_rec(), "--why=never")
    expect(res, 0)
    check(res.stderr.endswith(TREE_ROWS), "Tree rows %r" % res.stderr)
    tree = json.loads(run("--replay", cmd_rec(), "-o", "json").stdout)[
        "sysstat"]["hosts"][0]["command"]["tree"]
    check(tree["other-sleep-ns"] == 2308000000 and tree["threads"] == 4 and
          tree["wa-ns"] == 1467000000 and tree["still-running"] == 1 and
          not tree["complete"], "json tree %r" % tree)
    rows = list(csv.DictReader(io.StringIO(
        run("--replay", cmd_rec(), "-o", "csv").stdout)))
    check(rows[0]["tree_other_ns"] == "2308000000" and
          rows[0]["tree_iowait_blk_ns"] == "1449000000", "csv %r" % rows[0])


@iow.test
def err_cmd_replay_refuses_view_options():
    expect_usage_errors(((("-n",), r"-n shapes vmstat's lines, which a "
                          r"recording of -- CMD does not print"),
                         (("1", "2"), r"\S+ is a -- CMD recording, whose "
                          r"summary covers the whole run: give no interval"),
                         (("--top",), r"--top and a recording of -- CMD")),
                        "--replay", cmd_rec())


@iow.test
def cmd_replay_of_an_older_recording():
    """an older iowstat's recording has no tree file: the summary without
    Tree rows, as that iowstat printed it"""
    res = run("--replay", cmd_rec(None), "--why=never")
    expect(res, 0)
    check(res.stderr + TREE_ROWS ==
          run("--replay", cmd_rec(), "--why=never").stderr,
          "the summary, no Tree rows: %r" % res.stderr)


@iow.test
def cmd_replay_damaged_tree():
    path = cmd_rec(TREE_FILE.replace("threads 4", "threads 4x"))
    line = open(path).read().split("\n").index("threads 4x") + 1
    expect_bad(path, r"bad\.rec:%d: sample 1: iowstat:tree line 4: bad "
               r"number" % line)


# --- every key documented, each saying whose figure it is ----------------

def json_keys(doc):
    """every key of a json document, at any depth"""
    if isinstance(doc, dict):
        return set(doc) | set().union(*map(json_keys, doc.values()))
    if isinstance(doc, list):
        return set().union(set(), *map(json_keys, doc))
    return set()


def man_section(title):
    """the text of a section of iowstat.8, roff's \\- as -"""
    with open(os.path.join(iow.REPO, "man", "iowstat.8")) as f:
        text = f.read().replace("\\-", "-")
    start = text.index('.SS "%s"' % title)
    end = min(text.find(h, start + 1) for h in (".SS", ".SH"))
    return text[start:end]


@iow.test
def json_and_csv_keys_documented():
    """every key that -o json and every column that -o csv print, of every
    view, in the one place that says whose figure it is"""
    doc = man_section("Keys of -o json and -o csv")
    top = os.path.join(iow.FIXTURES, "top.rec")
    runs = [(REC, "-P", "ALL"), (top, "--top"), (top, "--top", "--cgroup"),
            (cmd_rec(),)]
    keys = set()
    for args in runs:
        res = run("--replay", *args, "-o", "json")
        expect(res, 0)
        keys |= json_keys(json.loads(res.stdout))
        res = run("--replay", *args, "-o", "csv")
        expect(res, 0)
        keys |= set(res.stdout.split("\n", 1)[0].split(","))
    missing = sorted(k for k in keys if not re.search(
        r"(?<![\w-])%s(?![\w-])" % re.escape(k), doc))
    check(not missing, "not in iowstat.8's keys: %s" % " ".join(missing))
    check(len(keys) > 70, "%d keys: every view's" % len(keys))


DELAYACCT = "/proc/sys/kernel/task_delayacct"


@iow.test
def blkio_delay_only_with_delay_accounting():
    """blkio-delay-ns is delay accounting's figure: there only when
    kernel.task_delayacct is on, left out (not 0) when it is off; a
    recording keeps which"""
    if os.geteuid() or not os.path.exists(DELAYACCT):
        raise iow.Skip("needs root (taskstats) and %s" % DELAYACCT)
    d = fake_debugfs(good_cpus())
    rec = os.path.join(TMP, "delayacct.rec")
    was = open(DELAYACCT).read()
    try:
        for on in (0, 1):
            with open(DELAYACCT, "w") as f:
                f.write("%d\n" % on)
            res = run("--record", rec, "-o", "json", "--", "true",
                      env={"IOWSTAT_DEBUGFS": d})
            expect(res, 0)
            tree = json.loads(res.stdout)["sysstat"]["hosts"][0][
                "command"]["tree"]
            check(("blkio-delay-ns" in tree) == bool(on) and
                  tree["threads"] >= 1, "task_delayacct %d: %r" % (on, tree))
            again = json.loads(run("--replay", rec, "-o", "json").stdout)
            check(again["sysstat"]["hosts"][0]["command"]["tree"] == tree,
                  "task_delayacct %d: replayed %r" % (on, again))
    finally:
        with open(DELAYACCT, "w") as f:
            f.write(was)


# --- the bash completion ------------------------------------------------

COMPLETION = os.path.join(iow.REPO, "completion", "iowstat")
BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
# source it into an interactive bash, show what is registered, then what
# the function offers for the last of the words
COMPLETE = (
    'source "$0"; complete -p iowstat; COMP_WORDS=("$@"); '
    'COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; '
    '_iowstat iowstat "${COMP_WORDS[COMP_CWORD]}" '
    '"${COMP_WORDS[COMP_CWORD - 1]}"; printf "%s\\n" "${COMPREPLY[@]}"')


def complete(shell, *words):
    """(what the completion offers for the last word, its errors), the
    shell: "bash --norc -i", "bash -i" (the user's startup files) or
    with bash-completion loaded first"""
    script = COMPLETE
    if shell == "bash-completion":
        script = 'source %s; %s' % (BASH_COMPLETION, COMPLETE)
    args = ["bash", "--norc"] if shell == "bash --norc -i" else ["bash"]
    p = subprocess.run(args + ["-i", "-c", script, COMPLETION, "iowstat"] +
                       list(words), capture_output=True, text=True,
                       cwd=TMP, stdin=subprocess.DEVNULL, timeout=30)
    lines = p.stdout.splitlines()
    check(lines[:1] == ["complete -F _iowstat iowstat"],
          "%s: complete -p iowstat: %r" % (shell, p.stdout))
    # an interactive bash without a terminal warns about job control, and
    # compopt refuses to run outside a completion bash started
    noise = ("job control", "terminal process group",
             "compopt: not currently executing completion function")
    errs = [e for e in p.stderr.splitlines()
            if not any(n in e for n in noise)]
    return lines[1:], errs


@iow.test
def completion_in_any_bash():
    """sourced with no bash-completion and no extglob, or with it: no
    error, and it completes options, values, files and the command"""
    open(os.path.join(TMP, "run.rec"), "w").close()
    shells = ["bash --norc -i", "bash -i"]
    if os.path.exists(BASH_COMPLETION):
        shells.append("bash-completion")
    cases = [(("--rec",), ["--record"]),
             (("-o", ""), ["json", "csv", "prom"]),
             (("-nS", ""), ["k", "K", "m", "M", "b"]),
             (("--replay", "run."), ["run.rec"]),
             (("--bpf", ""), ["attach", "detach"])]
    for shell in shells:
        for words, want in cases:
            got, errs = complete(shell, *words)
            check(not errs and got == want, "%s: iowstat %s: %r, errors %r"
                  % (shell, " ".join(words), got, errs))
        got, errs = complete(shell, "-P", "")
        check(not errs and got[0] == "ALL" and "0" in got,
              "%s: -P: %r %r" % (shell, got, errs))
        got, errs = complete(shell, "1", "--", "slee")
        check(not errs and "sleep" in got, "%s: -- slee: %r %r"
              % (shell, got, errs))


sys.exit(iow.run_tap(TMP))
