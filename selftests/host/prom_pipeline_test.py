#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A real Prometheus pipeline, with either backend.

The BPF backend (the default, on this machine): iowstat --bpf attach pins
it in a bpffs mounted for the test (IOWSTAT_BPF_PIN), the module is made
absent (IOWSTAT_DEBUGFS at an empty folder), and the reads are of a file
on the disk.  The module (--module, in the test box: test_prom.sh): it is
loaded from IOWPROBE_KO, and the reads are of a null_blk device.

A writer runs the ExecStart of contrib/iowstat-textfile.service every
second into a temporary folder, keeping each file it wrote and when;
prometheus-node-exporter (the textfile collector only) serves that folder,
and a prometheus server scrapes it every second and evaluates the rules of
contrib/prometheus/.  Meanwhile a thread reads with O_DIRECT, the backend
is removed and put back (BPF: detach and attach; module: rmmod and
insmod), a counter reset; with the module, CPU 1 then goes offline and
online again, which is no reset: the module books an offline CPU no time.
Then the test asks Prometheus's HTTP API what it stored and computed.

Truth: the textfiles themselves.  Every sample Prometheus stored must be
the value of the file that was in place when it scraped.  rate() and
increase() are compared over a range whose ends are two scrape instants
(the range is closed at both ends in Prometheus 2; 3 opens it on the
left, and this test would need a tolerance there), so Prometheus does not
extrapolate and both must equal the two files' difference (over the range)
up to float rounding.  The iowait share (what the recording rules compute)
must equal the files' delta iowait over delta busy + idle, the time between
the two reads by the counters' own clock.

usage: selftests/host/prom_pipeline_test.py [--module] [IOWSTAT]
Exit: 0 pass, 1 fail, 4 skip (not root, no BPF or no module, no prometheus
or prometheus-node-exporter: the reason printed).
"""

import json
import mmap
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

# selftests/lib/ holds iowprobe.py, the one helper of every test
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "lib"))
import iowprobe as iow  # noqa: E402

REPO = iow.REPO
ARGS = sys.argv[1:]
MODULE = "--module" in ARGS
IOWSTAT = os.path.abspath(next((a for a in ARGS if a != "--module"),
                               iow.IOWSTAT))
UNIT = os.path.join(REPO, "contrib", "iowstat-textfile.service")
RULES = os.path.join(REPO, "contrib", "prometheus", "iowprobe-rules.yml")
PROMETHEUS = "/usr/bin/prometheus"
EXPORTER = "/usr/bin/prometheus-node-exporter"

# Every span below in units of the period: one iowstat run takes about 2 s
# on a debug kernel in TCG, so there the period is SLOWDOWN s, not 1.
PERIOD = 1.0 * iow.SLOWDOWN  # s: the writer's period, scrape and rules
LOAD_A = 12 * PERIOD    # s of load before the reset
GAP = 2.2 * PERIOD      # s with no backend: more than a period, a write fails
LOAD_B = 6 * PERIOD     # s of load after it
OFFLINE_CPU = 1         # --module: the CPU taken offline after the reset
SETTLE = 4 * PERIOD     # s from the reset to the offline: a new file scraped
OFFLINE_S = 3 * PERIOD  # s it stays offline
SERVICE_NS = 1_000_000  # --module: null_blk's time per read
RATE_W = round(5 * PERIOD)  # s: the window of rate() across the reset
# rate(busy) + rate(idle) of one CPU is the file's elapsed time over the
# scrapes' elapsed time.  A file is read by iowstat up to one period plus
# one write before it is scraped, so over the >= 4 periods between the
# first and last sample of a 5-period window the ratio stays under
# (4 + 1.5) / 4; a reset taken for a drop of time would add a whole counter
# (>= 10 periods) instead.
MAX_CPU_RATE = 1.4
READY_S = 90        # s at most to wait for each server (a TCG box is slow)
FILE_MB = 32
COUNTERS = ("busy", "idle", "iowait")


def metric(counter):
    return f"iowprobe_cpu_{counter}_seconds_total"


def iowstat(env, *args):
    return subprocess.run([IOWSTAT, *args], env=env, capture_output=True,
                          text=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse_prom(text):
    """{(name, cpu): value} of the per-CPU samples of a textfile"""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or '{cpu="' not in line:
            continue
        series, value = line.split()
        name, _, cpu = series.partition('{cpu="')
        out[(name, cpu.rstrip('"}'))] = float(value)
    return out


def real_disk_dir():
    """A writable folder on a block device: /tmp may be tmpfs"""
    for d in ("/var/tmp", REPO):
        dev = os.stat(d).st_dev
        if os.access(d, os.W_OK) and os.path.exists(
                f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"):
            return d
    return None


class Writer(threading.Thread):
    """iowstat-textfile.service's command every PERIOD s; keeps every
    attempt: wall and monotonic instants before and after, exit status,
    and the file in place after it"""

    def __init__(self, env, textdir):
        super().__init__(daemon=True)
        self.cmd = iow.exec_start(UNIT)
        self.env = dict(env, DIR=textdir)
        self.path = os.path.join(textdir, "iowprobe.prom")
        self.writes = []
        self.stop = threading.Event()

    def run(self):
        nxt = time.monotonic()
        while not self.stop.is_set():
            t0, m0 = time.time(), time.monotonic()
            r = subprocess.run(self.cmd, env=self.env, capture_output=True,
                               text=True)
            t1, m1 = time.time(), time.monotonic()
            try:
                with open(self.path) as f:
                    text = f.read()
            except FileNotFoundError:
                text = None
            self.writes.append({"t0": t0, "t1": t1, "m0": m0, "m1": m1,
                                "ok": r.returncode == 0, "err": r.stderr,
                                "text": text,
                                "values": parse_prom(text or "")})
            nxt += PERIOD
            self.stop.wait(max(0.0, nxt - time.monotonic()))


class Reader(threading.Thread):
    """Random 4 KiB O_DIRECT reads of a file on the disk until stopped"""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.n = 0
        self.stop = threading.Event()

    def run(self):
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, 4096)
        blocks = os.lseek(fd, 0, os.SEEK_END) // 4096
        rnd = random.Random(blocks)
        try:
            while not self.stop.is_set():
                os.preadv(fd, [buf], rnd.randrange(blocks) * 4096)
                self.n += 1
        finally:
            os.close(fd)


class Prom:
    """Prometheus's HTTP API"""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"

    def get(self, path, **params):
        url = self.base + path
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.read().decode()

    def api(self, path, **params):
        data = json.loads(self.get(path, **params))
        if data.get("status") != "success":
            raise RuntimeError(f"{path} {params}: {data}")
        return data["data"]

    def query(self, q, t):
        """{cpu label (or ""): value} of an instant query at t (s)"""
        res = self.api("/api/v1/query", query=q, time=f"{t:.3f}")
        return {r["metric"].get("cpu", ""): float(r["value"][1])
                for r in res["result"]}

    def samples(self, name, t, seconds):
        """{cpu: [(t_ms, value)]}: the raw samples of name[seconds] at t"""
        res = self.api("/api/v1/query", query=f"{name}[{seconds}s]",
                       time=f"{t:.3f}")
        return {r["metric"].get("cpu", ""):
                [(round(float(ts) * 1000), float(v)) for ts, v in r["values"]]
                for r in res["result"]}

    def series(self, q, t0, t1, step):
        """{cpu: [values]} of a range query"""
        res = self.api("/api/v1/query_range", query=q, start=f"{t0:.3f}",
                       end=f"{t1:.3f}", step=str(step))
        return {r["metric"].get("cpu", ""): [float(v) for _, v in r["values"]]
                for r in res["result"]}


def start(cmd, log):
    with open(log, "w") as f:
        return subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)


def wait_http(url, proc, log):
    end = time.monotonic() + READY_S
    while time.monotonic() < end:
        if proc.poll() is not None:
            break
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return None
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    with open(log) as f:
        tail = f.read().splitlines()[-5:]
    return [f"{url} not ready (exit {proc.poll()})"] + tail


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def prometheus_config(tmp, port):
    path = os.path.join(tmp, "prometheus.yml")
    with open(path, "w") as f:
        f.write(f"""global:
  scrape_interval: {round(PERIOD * 1000)}ms
  scrape_timeout: {round(PERIOD * 900)}ms
  evaluation_interval: {round(PERIOD * 1000)}ms
rule_files:
  - {RULES}
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:{port}']
""")
    return path


def in_place(writes, ts, slack=0.5):
    """The good writes whose file may have been the one in place when a
    scrape stamped ts (s) read it: renamed by ts + slack (the exporter
    reads the file a little after the scrape starts), and not yet
    replaced at ts"""
    good = [w for w in writes if w["ok"]]
    return [w for i, w in enumerate(good)
            if w["t0"] <= ts + slack and
            (i + 1 == len(good) or good[i + 1]["t1"] >= ts)]


def check_transport(k, prom, writes, t_end, span):
    """Every stored sample is the value of a file in place at its scrape.
    Returns {(name, cpu): [(t_ms, value, write)]}."""
    out, bad, n = {}, [], 0
    for c in COUNTERS:
        for cpu, samples in prom.samples(metric(c), t_end, span).items():
            rows = out.setdefault((metric(c), cpu), [])
            for t_ms, v in samples:
                n += 1
                match = [w for w in in_place(writes, t_ms / 1000)
                         if w["values"].get((metric(c), cpu)) == v]
                rows.append((t_ms, v, match[-1] if match else None))
                if not match:
                    bad.append(f"{metric(c)}{{cpu={cpu}}} @{t_ms}: {v}")
    k.result(n > 0 and not bad,
             "every sample Prometheus stored is the textfile in place at "
             "its scrape, exactly",
             [f"{n} samples of {len(out)} series"] + bad[:5])
    return out


def check_window(k, prom, stored, t_lo, t_hi):
    """rate() and increase() over a range from one scrape to another, and
    the iowait share, against the two files.  Returns the files' figures,
    or None."""
    cpus = sorted({cpu for _, cpu in stored})
    ref = [s for s in stored[(metric("busy"), cpus[0])]
           if t_lo * 1000 <= s[0] <= t_hi * 1000 and s[2]]
    if len(ref) < 4:
        k.result(False, "four scrapes inside the load before the reset",
                 [f"{len(ref)} scrapes"])
        return None
    (a_ms, _, wa), (b_ms, _, wb) = ref[0], ref[-1]
    rng, t_b = f"{b_ms - a_ms}ms", b_ms / 1000
    secs = (b_ms - a_ms) / 1000
    k.diag(f"window: {len(ref)} scrapes over {secs:.3f} s "
           f"({rng} ending at the scrape at {t_b:.3f})")
    delta = {(name, cpu): wb["values"][(name, cpu)] -
             wa["values"][(name, cpu)] for name, cpu in stored}
    for c in COUNTERS:
        inc = prom.query(f"increase({metric(c)}[{rng}])", t_b)
        rate = prom.query(f"rate({metric(c)}[{rng}])", t_b)
        diags, ok = [], set(inc) == set(cpus) == set(rate)
        for cpu in cpus:
            d = delta[(metric(c), cpu)]
            i, r = inc.get(cpu, float("nan")), rate.get(cpu, float("nan"))
            ok &= abs(i - d) <= 1e-12 * abs(d) + 1e-12
            ok &= abs(r - d / secs) <= 1e-12 * abs(d / secs) + 1e-12
            diags.append(f"cpu{cpu}: files {d:.9f} s; increase {i:.9f}, "
                         f"rate {r:.6f}")
        k.result(ok, f"increase() and rate() of {c} = the two textfiles' "
                 "difference (over the range)", diags)
    q = (f"rate({metric('iowait')}[{rng}]) / (rate({metric('busy')}"
         f"[{rng}]) + rate({metric('idle')}[{rng}]))")
    share = prom.query(q, t_b)
    diags, ok = [], set(share) == set(cpus)
    figures = {}
    for cpu in cpus:
        el = delta[(metric("busy"), cpu)] + delta[(metric("idle"), cpu)]
        want = delta[(metric("iowait"), cpu)] / el
        got = share.get(cpu, float("nan"))
        ok &= abs(got - want) <= 1e-9
        figures[cpu] = {"elapsed": el,
                        "iowait": delta[(metric("iowait"), cpu)],
                        "idle": delta[(metric("idle"), cpu)]}
        diags.append(f"cpu{cpu}: iowait share {got:.6f}, files {want:.6f} "
                     f"over {el:.6f} s of busy + idle")
    k.result(ok, "the iowait share in Prometheus = the files' iowait over "
             "their busy + idle", diags)
    lo, hi = wb["m0"] - wa["m1"], wb["m1"] - wa["m0"]
    diags, ok = [], True
    for cpu in cpus:
        el = figures[cpu]["elapsed"]
        ok &= lo - 1e-3 <= el <= hi + 1e-3
        diags.append(f"cpu{cpu}: busy + idle {el:.6f} s, writes "
                     f"{lo:.6f}..{hi:.6f} s apart; "
                     f"scrapes {secs:.3f} s apart")
    k.result(ok, "busy + idle between the two files = the time between "
             "the two writes", diags)
    return figures


def check_iowait(k, figures):
    idle = max(f["idle"] / f["elapsed"] for f in figures.values())
    iowait = sum(f["iowait"] for f in figures.values())
    if iowait <= 0 and idle < 0.01:
        k.skip("the O_DIRECT reads show as iowait in Prometheus",
               f"no CPU was idle (most idle {100 * idle:.2f}%): saturated")
        return
    k.result(iowait > 0, "the O_DIRECT reads show as iowait in Prometheus",
             [f"iowait {iowait:.6f} s over the window, all CPUs; most "
              f"idle CPU {100 * idle:.1f}% idle"])


def check_resets(k, prom, stored, t_a, t_b, t_end, span):
    """No reset before the detach; one seen across it; rate() never
    negative and never a spike"""
    rng = f"{round((t_b - t_a) * 1000)}ms"
    got = {c: prom.query(f"resets({metric(c)}[{rng}])", t_b)
           for c in COUNTERS}
    k.result(all(v == 0 for g in got.values() for v in g.values()),
             "no reset in the pipeline before the backend is removed",
             [f"resets {c}: {got[c]}" for c in COUNTERS])
    diags, ok = [], True
    res = {c: prom.query(f"resets({metric(c)}[{span}s])", t_end)
           for c in ("busy", "idle")}
    for (name, cpu), rows in stored.items():
        if name != metric("idle"):
            continue
        drops = sum(b[1] < a[1] for a, b in zip(rows, rows[1:]))
        r_idle, r_busy = res["idle"].get(cpu), res["busy"].get(cpu)
        # a CPU that was busy all along may not idle less after the
        # attach than before: then its busy counter shows the reset
        ok &= r_idle == drops and (r_idle >= 1 or r_busy >= 1)
        diags.append(f"cpu{cpu}: resets(idle) {r_idle} (the files: "
                     f"{drops} drops), resets(busy) {r_busy}")
    k.result(ok, "resets() sees the backend removed and back on every CPU",
             diags)
    t0 = min(r[0][0] for r in stored.values()) / 1000 + RATE_W
    neg, diags = [], []
    for c in COUNTERS:
        s = prom.series(f"rate({metric(c)}[{RATE_W}s])", t0, t_end, 0.5)
        lows = {cpu: min(v) for cpu, v in s.items()}
        diags.append(f"min rate({c}[{RATE_W}s]): {lows}")
        neg += [cpu for cpu, v in lows.items() if v < 0]
    k.result(not neg, "rate() over windows across the reset is never "
             "negative", diags)
    s = prom.series(f"rate({metric('busy')}[{RATE_W}s]) + "
                    f"rate({metric('idle')}[{RATE_W}s])", t0, t_end, 0.5)
    highs = {cpu: max(v) for cpu, v in s.items()}
    k.result(s and all(v <= MAX_CPU_RATE for v in highs.values()),
             "rate(busy) + rate(idle) across the reset is no spike",
             [f"max per CPU: {highs}, bound {MAX_CPU_RATE}"])


def check_failed_writes(k, writes, t_det, t_att):
    """t_det: before the detach began; t_att: after the attach returned"""
    failed = [w for w in writes if not w["ok"]]
    gap = [w for w in failed if w["t1"] >= t_det and w["t0"] <= t_att]
    kept = True
    last = None
    for w in writes:
        if w["ok"]:
            last = w["text"]
        elif last is not None:
            kept &= w["text"] == last
    k.result(gap and len(gap) == len(failed) and kept,
             "with no backend, the service's command fails and leaves the "
             "last file in place",
             [f"{len(failed)} of {len(writes)} writes failed, "
              f"{len(gap)} while removed"] +
             sorted({w["err"].strip() for w in failed})[:2])


def check_exporter(k, prom, t_end, span):
    up = prom.query(f"min_over_time(up[{span}s])", t_end)
    err = prom.query(f"max_over_time(node_textfile_scrape_error[{span}s])",
                     t_end)
    k.result(list(up.values()) == [1.0] and list(err.values()) == [0.0],
             "every scrape succeeded and the textfile collector never "
             "saw a broken file", [f"min up {up}, max scrape error {err}"])


def check_rules(k, prom, t_end):
    groups = prom.api("/api/v1/rules")["groups"]
    rules = [r for g in groups for r in g["rules"]]
    bad = [f"{r['name']}: {r.get('health')} {r.get('lastError', '')}"
           for r in rules if r.get("health") != "ok"]
    share = prom.query("instance:iowprobe_cpu_iowait:ratio_rate5m", t_end)
    k.result(rules and not bad and len(share) == 1 and
             all(0 <= v <= 1 for v in share.values()),
             "the recording rules load and evaluate on the real series",
             [f"{len(rules)} rules", f"exact iowait share (5m): {share}"] +
             bad)


def check_offline(k, prom, writes, hotplug, t_end):
    """CPU OFFLINE_CPU offline and online again, after the reset: no
    reset in Prometheus, and the CPU booked no time while offline (truth:
    the test's clock around the two writes to its online file)"""
    m_att, (off0, off1), (on0, on1) = hotplug
    good = [w for w in writes if w["ok"] and w["m0"] > m_att]
    if not good or good[0]["m1"] + 1.5 * PERIOD > off0:
        k.result(False, "offline: a new file scraped before the offline",
                 [f"{len(good)} good writes after the attach"])
        return
    # the range starts once a file written after the attach is scraped,
    # so the reset itself is left out of it
    t_lo = time.time() - (time.monotonic() - good[0]["m1"]) + 1.5 * PERIOD
    rng = f"{round((t_end - t_lo) * 1000)}ms"
    got = {c: prom.query(f"resets({metric(c)}[{rng}])", t_end)
           for c in COUNTERS}
    k.result(all(v == 0 for g in got.values() for v in g.values()),
             f"offline: cpu{OFFLINE_CPU} offline and online again is no "
             "reset in Prometheus", [f"resets {c}: {got[c]}"
                                     for c in COUNTERS])
    before = [w for w in good if w["m1"] < off0]
    after = [w for w in good if w["m0"] > on1]
    cpu = str(OFFLINE_CPU)
    if not before or not after:
        k.result(False, "offline: a write on each side of it",
                 [f"{len(before)} before, {len(after)} after"])
        return
    a, b = before[-1], after[0]
    el = sum(b["values"][(metric(c), cpu)] - a["values"][(metric(c), cpu)]
             for c in ("busy", "idle"))
    # offline at least from off1 to on0, at most from off0 to on1
    lo = (b["m0"] - a["m1"]) - (on1 - off0)
    hi = (b["m1"] - a["m0"]) - (on0 - off1)
    k.result(lo - 1e-3 <= el <= hi + 1e-3,
             f"offline: cpu{OFFLINE_CPU} booked no time while offline",
             [f"busy + idle {el:.6f} s between two files "
              f"{b['m0'] - a['m1']:.3f}..{b['m1'] - a['m0']:.3f} s apart; "
              f"offline {on0 - off1:.3f}..{on1 - off0:.3f} s: want "
              f"{lo:.6f}..{hi:.6f}"])


class Bpf:
    """The pinned BPF backend in a private bpffs; the module made absent"""
    name = "bpf"
    removed = "detached"

    def __init__(self, tmp):
        fs, nodbg = os.path.join(tmp, "bpffs"), os.path.join(tmp, "debug")
        os.mkdir(fs)
        os.mkdir(nodbg)
        if subprocess.run(["mount", "-t", "bpf", "bpf", fs]).returncode:
            iow.skip_all("cannot mount a bpffs here")
        self.fs = fs
        self.env = dict(os.environ, IOWSTAT_DEBUGFS=nodbg,
                        IOWSTAT_BPF_PIN=os.path.join(fs, "iowprobe"))

    def setup(self):
        """[] when attached, else why; exit 2 of attach: no BPF here"""
        r = iowstat(self.env, "--bpf", "attach")
        if r.returncode == 2:
            iow.skip_all(r.stderr.strip().splitlines()[-1])
        return [] if r.returncode == 0 else [r.stderr.strip()]

    def remove(self):
        r = iowstat(self.env, "--bpf", "detach")
        return [] if r.returncode == 0 else [r.stderr.strip()]

    def teardown(self):
        iowstat(self.env, "--bpf", "detach")
        subprocess.run(["umount", self.fs])

    def disk(self, work):
        return iow.random_file(os.path.join(work, "file"), FILE_MB)

    def after_reset(self):
        """the load after the reset; no hotplug"""
        time.sleep(LOAD_B)


class Module:
    """The module of IOWPROBE_KO, read at its debugfs files"""
    name = "module"
    removed = "unloaded"

    def __init__(self, tmp):
        self.env = dict(os.environ)
        self.env.pop("IOWSTAT_DEBUGFS", None)
        self.found = os.path.isdir(iow.DEBUGFS)
        # the test box starts with every link down, the loopback included
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)

    def setup(self):
        iow.load_module()
        return [] if os.path.isdir(iow.DEBUGFS) else ["insmod failed"]

    def remove(self):
        """rmmod, again while a reader holds a file open (EBUSY)"""
        for _ in range(50):
            iow.unload_module()
            if not os.path.isdir(iow.DEBUGFS):
                return []
            time.sleep(0.1)
        return ["rmmod iowprobe: still loaded after 50 tries"]

    def teardown(self):
        """as found: CPU 1 online, the module loaded or not"""
        set_online(OFFLINE_CPU, 1)
        if self.found:
            iow.load_module()
        else:
            iow.unload_module()
        subprocess.run(["modprobe", "-r", "null_blk"], check=False)

    def disk(self, work):
        return iow.nullb(SERVICE_NS)

    def after_reset(self):
        """the load after the reset, with OFFLINE_CPU offline for
        OFFLINE_S in it: (monotonic at the start, the offline's instants,
        the online's), for check_offline()"""
        m_att = time.monotonic()
        time.sleep(SETTLE)
        off = set_online(OFFLINE_CPU, 0)
        time.sleep(OFFLINE_S)
        on = set_online(OFFLINE_CPU, 1)
        time.sleep(max(0.0, LOAD_B - SETTLE - OFFLINE_S))
        return m_att, off, on


def set_online(cpu, on):
    """Hotplug cpu; (monotonic before, after)"""
    t0 = time.monotonic()
    with open(f"/sys/devices/system/cpu/cpu{cpu}/online", "w") as f:
        f.write(str(on))
    return t0, time.monotonic()


def run(k, backend, tmp, work):
    env = backend.env
    textdir = os.path.join(tmp, "textfile")
    bindir = os.path.join(tmp, "bin")
    os.mkdir(textdir)
    os.mkdir(bindir)
    os.symlink(IOWSTAT, os.path.join(bindir, "iowstat"))
    env = dict(env, PATH=bindir + os.pathsep + env.get("PATH", ""))
    procs = []
    writer = reader = None
    try:
        eport, pport = free_port(), free_port()
        procs.append(start([EXPORTER, "--collector.disable-defaults",
                            "--collector.textfile",
                            f"--collector.textfile.directory={textdir}",
                            f"--web.listen-address=127.0.0.1:{eport}"],
                           os.path.join(tmp, "exporter.log")))
        why = wait_http(f"http://127.0.0.1:{eport}/metrics", procs[-1],
                        os.path.join(tmp, "exporter.log"))
        if not k.result(why is None, "prometheus-node-exporter serves the "
                        "textfile collector", why or []):
            return
        cfg = prometheus_config(tmp, eport)
        procs.append(start([PROMETHEUS, f"--config.file={cfg}",
                            f"--storage.tsdb.path={tmp}/tsdb",
                            f"--web.listen-address=127.0.0.1:{pport}",
                            "--log.level=warn"],
                           os.path.join(tmp, "prometheus.log")))
        why = wait_http(f"http://127.0.0.1:{pport}/-/ready", procs[-1],
                        os.path.join(tmp, "prometheus.log"))
        if not k.result(why is None, "prometheus is ready", why or []):
            return
        prom = Prom(pport)
        path = backend.disk(work)
        writer = Writer(env, textdir)
        t_begin = time.time()
        writer.start()
        # the first samples: the load starts with the pipeline running
        end = time.monotonic() + READY_S
        first = f"count_over_time({metric('idle')}[{round(10 * PERIOD)}s])"
        while time.monotonic() < end and not prom.query(first, time.time()):
            time.sleep(0.2)
        reader = Reader(path)
        reader.start()
        t_load = time.time()
        time.sleep(LOAD_A)
        t_det = time.time()
        why = backend.remove()
        time.sleep(GAP)
        why += backend.setup()
        t_att = time.time()
        k.result(not why, f"{backend.name}: {backend.removed} and back "
                 "again while the pipeline runs", why)
        hotplug = backend.after_reset()
        reader.stop.set()
        reader.join()
        time.sleep(2 * PERIOD)      # the last writes scraped
        writer.stop.set()
        writer.join()
        t_end = time.time()
        span = int(t_end - t_begin) + 2
        k.diag(f"{len(writer.writes)} writes, {reader.n} O_DIRECT reads "
               f"in {t_det - t_load + LOAD_B + GAP:.1f} s")
        check_exporter(k, prom, t_end, span)
        stored = check_transport(k, prom, writer.writes, t_end, span)
        figures = check_window(k, prom, stored, t_load + PERIOD,
                               t_det - 0.1)
        if figures:
            check_iowait(k, figures)
            check_resets(k, prom, stored, t_load + PERIOD, t_det - 0.1,
                         t_end, span)
        check_failed_writes(k, writer.writes, t_det, t_att)
        if hotplug:
            check_offline(k, prom, writer.writes, hotplug, t_end)
        check_rules(k, prom, t_end)
    finally:
        if reader:
            reader.stop.set()
            reader.join()
        if writer:
            writer.stop.set()
            writer.join()
        for p in procs:
            stop(p)


def main():
    if os.geteuid() != 0:
        iow.skip_all("loading a backend needs root")
    missing = [p for p in (PROMETHEUS, EXPORTER) if not os.access(p, os.X_OK)]
    if missing:
        iow.skip_all(f"no {' '.join(missing)}: apt-get install prometheus "
                     "prometheus-node-exporter (scripts/deps)")
    if not os.access(IOWSTAT, os.X_OK):
        iow.skip_all(f"{IOWSTAT} not built: make -C user")
    if MODULE and "IOWPROBE_KO" not in os.environ:
        iow.skip_all("--module runs in the test box (IOWPROBE_KO)")
    if not MODULE and "libbpf" not in subprocess.run(
            ["ldd", IOWSTAT], capture_output=True, text=True).stdout:
        iow.skip_all("iowstat built without BPF: make -C user BPF=1")
    disk = tempfile.gettempdir() if MODULE else real_disk_dir()
    if disk is None:
        iow.skip_all("no writable folder on a block device for O_DIRECT")
    with tempfile.TemporaryDirectory() as tmp, \
            tempfile.TemporaryDirectory(dir=disk) as work:
        backend = (Module if MODULE else Bpf)(tmp)
        mark = iow.dmesg_mark()
        try:
            why = backend.setup()
            k = iow.Ktap()
            if k.result(not why, f"{backend.name}: loaded", why):
                run(k, backend, tmp, work)
        finally:
            backend.teardown()
            shutil.rmtree(os.path.join(tmp, "tsdb"), ignore_errors=True)
    if MODULE:
        iow.dmesg_clean(k, mark)
    k.finish()


if __name__ == "__main__":
    main()
