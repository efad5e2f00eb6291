#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""iowstat --bpf attach / detach on this machine: no module, no VM.

The pinned state goes to a bpffs mounted for the test on a temporary
folder (IOWSTAT_BPF_PIN), never to the machine's own /sys/fs/bpf, and the
module is made absent with IOWSTAT_DEBUGFS pointing at an empty folder.
Truth: the test's own CLOCK_MONOTONIC around the attach.  Every CPU's
clock starts at its first context switch after the programs attach, which
the attach forces before it returns, so at any later instant now_ns, a
CPU's busy + idle lies between now_ns - (end of attach) and now_ns -
(start of attach).

usage: selftests/host/bpf_pin_test.py [IOWSTAT]
Exit: 0 pass, 1 fail, 4 skip (not root, no BPF here: the reason printed).
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

IOWSTAT = iow.iowstat_arg()
# one per attached program (backend_bpf.c attach_all: one of the two
# block_rq_issue variants), and the iterator of the tasks followed
LINKS = 10
SLACK_NS = 1_000_000  # the reads' own instants are taken inside iowstat


def iowstat(env, *args):
    return subprocess.run([IOWSTAT, *args], env=env, capture_output=True,
                          text=True)


def read_rows(env, tmp, name):
    """One one-shot read, recorded: the rows of the cpus text, by cpu"""
    rec = os.path.join(tmp, name)
    r = iowstat(env, "--record", rec, "-o", "json")
    if r.returncode != 0:
        raise RuntimeError(f"iowstat exit {r.returncode}: {r.stderr}")
    return iow.recorded_cpus(rec)


def prom_total(env, metric, cpu):
    out = iowstat(env, "-o", "prom").stdout
    for line in out.splitlines():
        if line.startswith(f'{metric}{{cpu="{cpu}"}} '):
            return float(line.split()[1])
    return None


def check_attached(k, env, pin):
    names = set(os.listdir(pin)) if os.path.isdir(pin) else set()
    maps = {"meta", "cpus", "bss", "k_load", "procs", "cgroups"}
    k.diag(f"pinned: {' '.join(sorted(names))}")
    k.result(maps <= names and len(names - maps) == LINKS,
             f"attach pins the {len(maps)} maps and {LINKS} links")
    # the readers walk the tasks followed through it (owners_bpf.c)
    k.result("iow_sleepers" in names,
             "attach pins the iterator of the tasks followed")
    r = iowstat(env, "--bpf", "attach")
    k.result(r.returncode == 0 and "already attached" in r.stderr,
             "a second attach says it is attached, exit 0",
             [r.stderr.strip()])


def check_reads(k, env, tmp, t_a0, t_a1):
    time.sleep(1)
    a = read_rows(env, tmp, "a.rec")
    time.sleep(1)
    b = read_rows(env, tmp, "b.rec")
    cpus = [c for c in a if c != "all"]
    for c in cpus:
        now = a[c]["now_ns"]
        k.between(f"cpu{c}: busy + idle since attach = time since attach",
                  a[c]["busy_ns"] + a[c]["idle_ns"], now - t_a1,
                  now - t_a0, absolute=SLACK_NS)
    grew = [(b[c]["busy_ns"] + b[c]["idle_ns"]) -
            (a[c]["busy_ns"] + a[c]["idle_ns"]) -
            (b[c]["now_ns"] - a[c]["now_ns"]) for c in cpus]
    k.result(all(abs(g) <= SLACK_NS for g in grew),
             "a later reader continues the same counters",
             [f"busy + idle - elapsed between two readers: {grew} ns"])
    p0 = prom_total(env, "iowprobe_cpu_idle_seconds_total", cpus[0])
    time.sleep(0.2)
    p1 = prom_total(env, "iowprobe_cpu_idle_seconds_total", cpus[0])
    k.result(p0 is not None and p1 is not None and 0 <= p0 <= p1,
             "-o prom: the idle counter only grows between two runs",
             [f"iowprobe_cpu_idle_seconds_total: {p0} then {p1}"])


def check_layout(k, env, pin):
    """A state of another layout is refused with what to do, then the
    real one is read again."""
    meta = os.path.join(pin, "meta")
    put = ["bpftool", "map", "update", "pinned", meta, "key", "0", "0",
           "0", "0", "value"]
    old = subprocess.run(["bpftool", "-j", "map", "lookup", "pinned", meta,
                          "key", "0", "0", "0", "0"], capture_output=True,
                         text=True)
    if old.returncode != 0:
        k.skip("a pinned state of another layout is refused", "no bpftool")
        return
    value = [str(int(x, 16)) for x in json.loads(old.stdout)["value"]]
    subprocess.run(put + ["99"] + value[1:], check=True)
    r = iowstat(env, "1", "1")
    subprocess.run(put + value, check=True)
    k.result(r.returncode == 2 and "another iowstat" in r.stderr and
             "--bpf detach" in r.stderr,
             "a pinned state of another layout is refused, exit 2",
             [r.stderr.strip()])
    r = iowstat(env, "1", "1")
    k.result(r.returncode == 0, "restored, it is read again")


def check_detach(k, env, pin):
    r = iowstat(env, "--bpf", "detach")
    k.result(r.returncode == 0 and not os.path.exists(pin),
             "detach removes the pinned state, exit 0")
    r = iowstat(env, "1", "1")
    k.result(r.returncode == 2 and "iowstat --bpf attach" in r.stderr,
             "with neither backend, a reader names the command to run",
             [r.stderr.strip()])
    r = iowstat(env, "--bpf", "detach")
    k.result(r.returncode == 0 and "not attached" in r.stderr,
             "a second detach says it is not attached, exit 0")
    r = iowstat(env, "--bpf", "attach", "1")
    k.result(r.returncode == 2 and "takes nothing else" in r.stderr,
             "--bpf attach with an interval: usage error, exit 2")


def main():
    iow.need_bpf_here(IOWSTAT)
    with tempfile.TemporaryDirectory() as tmp:
        fs, nodbg = os.path.join(tmp, "bpffs"), os.path.join(tmp, "debug")
        os.mkdir(fs)
        os.mkdir(nodbg)
        if subprocess.run(["mount", "-t", "bpf", "bpf", fs]).returncode:
            iow.skip_all("cannot mount a bpffs here")
        pin = os.path.join(fs, "iowprobe")
        env = dict(os.environ, IOWSTAT_BPF_PIN=pin, IOWSTAT_DEBUGFS=nodbg)
        try:
            t_a0 = time.monotonic_ns()
            r = iowstat(env, "--bpf", "attach")
            t_a1 = time.monotonic_ns()
            if r.returncode == 2:
                iow.skip_all(r.stderr.strip().splitlines()[-1])
            k = iow.Ktap()
            k.result(r.returncode == 0, "iowstat --bpf attach: exit 0",
                     [r.stdout.strip(), r.stderr.strip()])
            check_attached(k, env, pin)
            check_reads(k, env, tmp, t_a0, t_a1)
            check_layout(k, env, pin)
            check_detach(k, env, pin)
        finally:
            iowstat(env, "--bpf", "detach")
            subprocess.run(["umount", fs])
    k.finish()


if __name__ == "__main__":
    main()
