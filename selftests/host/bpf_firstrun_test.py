#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A new user's first runs on this machine (no module, --bpf): no VM.

- One-shot --bpf without --bpf attach, in each view: its programs start
  with the run, so it must wait one interval and print that, never a
  since-start line of a few milliseconds beside the kernel's since-boot
  figures; -o prom, whose counters would restart at every scrape, is
  refused with the command that attaches.  Truth: the test's own clock
  around each run (the run lasts the interval it prints), and the kernel's
  idle time against iowprobe's over the same interval (10 ms ticks: 5
  points allowed).  A kernel that leaves some switches untraced (a
  sandbox's, hiding its own agent's threads: iowprobe then books the idle
  time before each as busy, and says how many at exit) is held to the
  bound one way only, iowprobe's idle never above the kernel's.
- A SIGKILLed iowstat -- CMD leaves its iowstat-PID cgroup behind; the
  next -- CMD run removes it.
- With no module and no attached backend, plain iowstat (debugfs not
  mounted: a private mount namespace unmounts it) says both ways in one
  line; --bpf attach mounts bpffs on /sys/fs/bpf itself (in a private
  mount namespace, detached before it ends).
- A user who is not root, with only a pinned state (on a bpffs mounted for
  the test), is told about that state, not about the debugfs file.

The machine's own /sys/fs/bpf and debugfs are never touched: pinned states
go to a bpffs of the test (IOWSTAT_BPF_PIN) or into a mount namespace.

usage: selftests/host/bpf_firstrun_test.py [IOWSTAT]
Exit: 0 pass, 1 fail, 4 skip (not root, no BPF here: the reason printed).
"""

import glob
import json
import os
import re
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
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
# kernel %idle+%iowait (10 ms ticks) against exact %xidle+%xiowait
IDLE_POINTS = 5.0
BOTH_WAYS = ("modprobe iowprobe", "insmod iowprobe.ko", "iowstat --bpf ",
             "iowstat --bpf attach")


def iowstat(env, *args, pre=()):
    """iowstat args, timed by the test's clock: (result, seconds)"""
    t0 = time.monotonic()
    r = subprocess.run([*pre, IOWSTAT, *args], env=env, capture_output=True,
                       text=True, timeout=60)
    return r, time.monotonic() - t0


# what --bpf says at exit on a kernel that leaves some switches untraced
UNTRACED = re.compile(r"^iowstat: --bpf: this kernel did not trace (\d+) "
                      r"switches.*\n?", re.M)


def one_line(r):
    """stderr is one line, besides the kernel's untraced switches"""
    return UNTRACED.sub("", r.stderr).count("\n") == 1


def untraced(r):
    """how many switches the kernel did not trace in the run"""
    m = UNTRACED.search(r.stderr)
    return int(m.group(1)) if m else 0


def far_off(pairs, r):
    """the (kernel, exact) idle+iowait pairs beyond IDLE_POINTS: either way,
    or, where the kernel left switches untraced, exact above the kernel"""
    if untraced(r):
        return {c: v for c, v in pairs.items() if v[1] - v[0] > IDLE_POINTS}
    return {c: v for c, v in pairs.items() if abs(v[0] - v[1]) > IDLE_POINTS}


def check_vmstat(k, env):
    r, took = iowstat(env, "--bpf")
    rows = [x for x in r.stdout.splitlines() if x.split()[:1] and
            x.split()[0].isdigit()]
    k.result(r.returncode == 0 and took >= 1.0 and len(rows) == 1,
             "one-shot --bpf: one line, of the first second after attach",
             [f"exit {r.returncode} in {took:.2f} s", *r.stdout.splitlines(),
              r.stderr.strip()])
    k.result(one_line(r) and "first 1 s interval" in r.stderr and
             "--bpf attach" in r.stderr,
             "one-shot --bpf says the line is its first second")
    r, took = iowstat(env, "--bpf", "1", "2")
    rows = [x for x in r.stdout.splitlines() if x.split()[:1] and
            x.split()[0].isdigit()]
    k.result(r.returncode == 0 and took >= 2.0 and len(rows) == 2,
             "--bpf 1 2: two lines, two whole intervals (no since-start "
             "line)", [f"exit {r.returncode} in {took:.2f} s", *rows])
    with open("/dev/full", "w") as full:
        r = subprocess.run([IOWSTAT, "--bpf", "1", "2"], env=env,
                           stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    k.result(r.returncode == 1 and one_line(r) and
             "write error: No space left on device" in r.stderr,
             "--bpf 1 2 > /dev/full: the write error alone, no note before "
             "it", [f"exit {r.returncode}", r.stderr.strip()])


def cpus_rows(text):
    """-P's rows after the last header: {cpu: (idle+iowait, x idle+iowait)}"""
    rows = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 9 and f[1] != "CPU" and not f[0].startswith("Aver"):
            rows[f[1]] = (float(f[2]) + float(f[3]),
                          float(f[4]) + float(f[5]))
    return rows


def check_cpus(k, env):
    r, took = iowstat(env, "--bpf", "-P", "ALL")
    rows = cpus_rows(r.stdout)
    far = far_off(rows, r)
    k.result(r.returncode == 0 and took >= 1.0 and rows and not far,
             "one-shot --bpf -P ALL: the kernel's idle and iowprobe's over "
             "the same second", [f"exit {r.returncode} in {took:.2f} s",
                                 f"kernel, exact idle+iowait: {rows}",
                                 r.stderr.strip()])


def check_json_csv(k, env):
    r, took = iowstat(env, "--bpf", "-o", "json")
    try:
        st = json.loads(r.stdout)["sysstat"]["hosts"][0]["statistics"]
        load = {x["cpu"]: (x["kernel-idle"] + x["kernel-iowait"],
                           x["xidle"] + x["xiowait"])
                for x in st[0]["cpu-load"]}
    except (ValueError, KeyError, IndexError):
        st, load = [], {}
    far = far_off(load, r)
    k.result(r.returncode == 0 and took >= 1.0 and len(st) == 1 and load
             and not far, "one-shot --bpf -o json: one sample, of the first "
             "second", [f"exit {r.returncode} in {took:.2f} s",
                        f"kernel, exact idle+iowait: {load}",
                        r.stderr.strip()])
    r, took = iowstat(env, "--bpf", "-o", "csv")
    rows = r.stdout.splitlines()[1:]
    k.result(r.returncode == 0 and took >= 1.0 and rows and
             rows[0].split(",")[1] == "all",
             "one-shot --bpf -o csv: the rows of the first second",
             [f"exit {r.returncode} in {took:.2f} s", *rows[:1]])


def check_prom(k, env):
    r, _ = iowstat(env, "--bpf", "-o", "prom")
    k.result(r.returncode == 2 and not r.stdout and one_line(r) and
             "iowstat --bpf attach" in r.stderr,
             "one-shot --bpf -o prom: refused, naming iowstat --bpf attach",
             [r.stderr.strip(), r.stdout[:200]])


def cgroup_dirs(pid):
    """Where iowstat PID makes its cgroups: beside its own, in cgroup v2"""
    with open(f"/proc/{pid}/cgroup") as f:
        own = [x[3:].strip() for x in f if x.startswith("0::")]
    for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
        if own and os.path.exists(os.path.join(root, "cgroup.procs")):
            parent = os.path.dirname(own[0].rstrip("/")) or "/"
            return os.path.normpath(root + parent)
    return None


def check_stale_cgroup(k, env):
    p = subprocess.Popen([IOWSTAT, "--bpf", "--", "sleep", "5"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parent = cgroup_dirs(p.pid)
    mine = parent and os.path.join(parent, f"iowstat-{p.pid}")
    iow.wait_for(lambda: mine and os.path.isdir(mine), 30)
    if not mine or not os.path.isdir(mine):
        p.kill()
        p.wait()
        k.skip("a SIGKILLed run's cgroup is removed by the next",
               f"no iowstat cgroup made ({p.stderr.read().strip()})")
        return
    p.kill()
    p.wait()
    with open(os.path.join(mine, "cgroup.procs")) as f:
        orphans = [int(x) for x in f.read().split()]
    for pid in orphans:  # the sleep, orphaned by the SIGKILL
        os.kill(pid, signal.SIGKILL)
    iow.wait_for(lambda: not open(os.path.join(mine,
                                               "cgroup.procs")).read(), 10)
    left = os.path.isdir(mine)
    r, _ = iowstat(env, "--bpf", "--", "true")
    gone = not os.path.isdir(mine)
    if not gone:
        os.rmdir(mine)
    k.result(left and r.returncode == 0 and gone,
             "a SIGKILLed -- CMD run's empty cgroup is removed by the next",
             [f"{mine}: there after the kill: {left}; after the next run: "
              f"{not gone}", r.stderr.strip().splitlines()[-1:]])


def in_namespace(env, script):
    """script (sh) in a private mount namespace: its mounts go with it"""
    return subprocess.run(["unshare", "--mount", "--propagation", "private",
                           "sh", "-c", script, "sh", IOWSTAT], env=env,
                          capture_output=True, text=True, timeout=120)


def check_first_run(k, env):
    r = in_namespace(env, 'umount /sys/kernel/debug 2>/dev/null; "$1" 1 1')
    k.result(r.returncode == 2 and one_line(r) and not r.stdout and
             all(w in r.stderr for w in BOTH_WAYS),
             "no module, no backend, no debugfs: one line names both ways",
             [r.stderr.strip()])
    e = {x: v for x, v in env.items() if x != "IOWSTAT_BPF_PIN"}
    r = in_namespace(e, 'umount /sys/fs/bpf 2>/dev/null; '
                     '"$1" --bpf attach && "$1" 1 1; rc=$?; '
                     '"$1" --bpf detach >/dev/null; exit $rc')
    k.result(r.returncode == 0 and "mounted bpf on /sys/fs/bpf" in r.stderr
             and len([x for x in r.stdout.splitlines()
                      if x.split()[:1] and x.split()[0].isdigit()]) == 1,
             "--bpf attach mounts bpffs on /sys/fs/bpf, then a plain "
             "iowstat reads it", [r.stderr.strip(), r.stdout.strip()])


def check_not_root(k, env, tmp):
    fs = os.path.join(tmp, "bpffs")
    os.mkdir(fs)
    if subprocess.run(["mount", "-t", "bpf", "bpf", fs]).returncode:
        k.skip("not root, a pinned state: told about it", "no bpffs here")
        return
    pin = os.path.join(fs, "iowprobe")
    e = dict(env, IOWSTAT_BPF_PIN=pin)
    try:
        r, _ = iowstat(e, "--bpf", "attach")
        if r.returncode:
            k.result(False, "--bpf attach", [r.stderr.strip()])
            return
        r, _ = iowstat(e, "1", "1", pre=NOBODY)
        k.result(r.returncode == 2 and one_line(r) and
                 re.search(r"^iowstat: must be root: the BPF backend "
                           r"attached at " + re.escape(pin), r.stderr) and
                 "debug" not in r.stderr,
                 "not root, only a pinned state: told about that state",
                 [r.stderr.strip()])
        os.chmod(fs, 0o700)
        r, _ = iowstat(e, "1", "1", pre=NOBODY)
        k.result(r.returncode == 2 and one_line(r) and
                 "only root can see whether a BPF backend is attached at "
                 + pin in r.stderr,
                 "not root, bpffs 0700: told that only root can see it",
                 [r.stderr.strip()])
    finally:
        iowstat(e, "--bpf", "detach")
        subprocess.run(["umount", fs])


def main():
    iow.need_bpf_here(IOWSTAT)
    if glob.glob("/sys/module/iowprobe"):
        iow.skip_all("the iowprobe module is loaded here")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)  # the non-root reader reaches the bpffs
        env = dict(os.environ, TZ="UTC", LC_ALL="C",
                   IOWSTAT_BPF_PIN=os.path.join(tmp, "none", "iowprobe"))
        env.pop("IOWSTAT_DEBUGFS", None)
        r, _ = iowstat(env, "--bpf", "-o", "json")
        if r.returncode == 2:
            iow.skip_all(r.stderr.strip().splitlines()[-1])
        k = iow.Ktap()
        check_vmstat(k, env)
        check_cpus(k, env)
        check_json_csv(k, env)
        check_prom(k, env)
        check_stale_cgroup(k, env)
        check_first_run(k, env)
        check_not_root(k, env, tmp)
    k.finish()


if __name__ == "__main__":
    main()
