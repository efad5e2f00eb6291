#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# mkcorpus.py - write the fuzz targets' seed corpus from the iowstat
# fixtures: basic.rec split into its /proc and debugfs files (one seed
# per distinct file), the recording itself cut down in a few ways, and
# command lines from the README's examples.  Seeds stay small so that
# they can be committed; libFuzzer grows its own corpus under out/.
#
# usage: mkcorpus.py [OUTDIR]   (default: corpus/ next to this script)
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import iowprobe as iow  # noqa: E402

REC = os.path.join(iow.FIXTURES, "basic.rec")
TOP_REC = os.path.join(iow.FIXTURES, "top.rec")
# selector bytes of fuzz_owners.c
OWNERS = {"procs": "0", "cgroups": "1", "iowstat:names": "2"}

# selector bytes of fuzz_procfs.c
PROCFS = {"/proc/stat": "0", "/proc/vmstat": "1", "/proc/meminfo": "2",
          "/proc/pressure/io": "3"}
SHORT = {"/proc/stat": "stat", "/proc/vmstat": "vmstat",
         "/proc/meminfo": "meminfo", "/proc/pressure/io": "psi"}

# what real kernels print that basic.rec does not show
EXTRA_PROCFS = {
    # before 2.6.33: no guest_nice; before 2.6.24: no guest, no steal
    "stat-old": "0\ncpu  10 0 5 80 4\ncpu0 10 0 5 80 4\nctxt 7\n",
    "psi-some-only": "3\nsome avg10=1.00 avg60=0.50 avg300=0.10 total=42\n",
    "meminfo-no-sreclaimable": "2\nMemFree: 1 kB\nBuffers: 2 kB\n"
                               "Cached: 3 kB\n",
}

ARGS = [
    ["1"], ["2", "10"], ["-P", "ALL", "2", "5"], ["-P", "0,2,4-7"],
    ["-o", "json", "-P", "0,1"], ["-o", "csv"], ["-o", "prom"],
    ["-n", "-t", "-w", "-y", "-S", "M", "1", "3"],
    ["--replay", "x.rec", "-o", "json"], ["--record", "x.rec", "1"],
    ["--", "dd", "if=/dev/zero", "of=/dev/null", "count=1"],
    ["5", "--", "true"], ["--bpf"], ["--help"], ["86400", "4294967294"],
]


# a module that sorts its waits by kind: the wait_<kind>_ns columns
EXTRA_OWNERS = {
    "procs-kinds": OWNERS["procs"] + "\n# iowprobe abi 1\n"
    "pid cgroup sleeps wait_ns wait_blk_ns wa_ns asleep exited now_ns dev "
    "wait_uring_ns wait_rw_ns wait_sync_ns wait_fault_ns wait_other_ns "
    "comm\n"
    "100 11 9 3000000000 2000000000 1200000000 1 0 12000000000 8:0 "
    "0 2600000000 0 400000000 0 dd\n"
    "200 12 6 4300000000 0 900000000 2 0 12000000000 - "
    "4000000000 0 0 0 300000000 kworker x\n",
}


def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")
    text = open(REC).read()
    rec = iow.parse_recording(text, REC)
    head, smp = rec["head"], [s["text"] for s in rec["samples"]]
    for t in ("procfs", "cpus", "replay", "numbers", "owners"):
        shutil.rmtree(os.path.join(out, t), ignore_errors=True)

    seen = set()
    for n, s in enumerate(rec["samples"]):
        for path, body in s["files"].items():
            if body in seen:
                continue
            seen.add(body)
            if path in PROCFS:
                write(os.path.join(out, "procfs"),
                      "%s-%d" % (SHORT[path], n), PROCFS[path] + "\n" + body)
            else:
                write(os.path.join(out, "cpus"), "cpus-%d" % n, body)
    top = open(TOP_REC).read()
    for n, s in enumerate(iow.parse_recording(top, TOP_REC)["samples"]):
        for path, body in s["files"].items():
            kind = path.rsplit("/", 1)[-1]
            if kind in OWNERS:
                write(os.path.join(out, "owners"), "%s-%d"
                      % (kind.replace("iowstat:", ""), n),
                      OWNERS[kind] + "\n" + body)
    for name, data in EXTRA_PROCFS.items():
        write(os.path.join(out, "procfs"), name, data)
    for name, data in EXTRA_OWNERS.items():
        write(os.path.join(out, "owners"), name, data)

    r = os.path.join(out, "replay")
    write(r, "basic.rec", text)
    write(r, "top.rec", top)
    write(r, "two-samples.rec", head + "".join(smp[:2]))
    write(r, "one-sample.rec", head + smp[0])
    write(r, "cmd.rec", head + "".join(smp[:2]) + "@cmd 3 2000000000 "
          "1500 700\n")

    for n, a in enumerate(ARGS):
        write(os.path.join(out, "numbers"), "args-%02d" % n,
              "\0".join(a))


main()
