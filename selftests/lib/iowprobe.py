# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for the tests and scripts/: TAP and KTAP output, iowstat
recordings, the module, the debugfs files, workloads.

It lives in selftests/lib/, the one folder of helpers that the host tests
(selftests/host/), the guest tests (selftests/guest/) and scripts/ share.
Each of them imports it as `import iowprobe as iow` after putting
selftests/lib/ first on sys.path, and finds the rest of the tree through
the paths below, never through its own location."""

import atexit
import collections
import contextlib
import gzip
import mmap
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

# the tree, from this file's place in it: selftests/lib/iowprobe.py
LIB = os.path.dirname(os.path.abspath(__file__))
SELFTESTS = os.path.dirname(LIB)
REPO = os.path.dirname(SELFTESTS)
# what make -C selftests builds: the guest programs, the test binaries
OUT = os.path.join(SELFTESTS, "out")
IOWSTAT = os.path.join(REPO, "user", "iowstat")
# the host tests' recordings of iowprobe's files (mkrec.py writes them)
FIXTURES = os.path.join(SELFTESTS, "host", "fixtures", "iowstat")

DEBUGFS = "/sys/kernel/debug/iowprobe"
CGROOT = "/sys/fs/cgroup"
ABI_LINE = "# iowprobe abi 1"
SCHEDSTAT = "/proc/schedstat"
# columns of the debugfs tables that are text, not numbers
TEXT_COLS = ("dev", "comm")
# /proc/schedstat versions whose cpuN line is known: 15 (6.1), 16 (6.12)
# and 17 (7.3) print it alike and differ in the domain lines
SCHEDSTAT_VERSIONS = (15, 16, 17)


class Skip(Exception):
    """A run_tap() test that cannot run here raises it, with why"""


# the tests of a program that runs them with run_tap(), in order
TESTS = []


def test(fn):
    """@iow.test: fn, which takes no argument and raises to fail (check()),
    is one of this program's TESTS"""
    TESTS.append(fn)
    return fn


def run_tap(tmp, setup=None):
    """Run each of TESTS as one KTAP test (Ktap), then remove tmp.

    A failed setup() fails every test, with its reason.  Returns the exit
    status: 1 when any test failed."""
    k = Ktap(len(TESTS))
    broken = None
    if setup:
        try:
            setup()
        except Exception as e:  # noqa: BLE001 - every test fails alike
            broken = "setup failed: %s" % e
            k.diag(broken)
    for fn in TESTS:
        try:
            if broken:
                raise AssertionError(broken)
            fn()
            k.result(True, fn.__name__)
        except Skip as e:
            k.skip(fn.__name__, e)
        except Exception as e:  # noqa: BLE001 - report and go on
            k.result(False, fn.__name__, diags=str(e).split("\n"))
    shutil.rmtree(tmp, ignore_errors=True)
    return k.end()


def check(cond, what):
    """A run_tap() test's check: AssertionError(what) unless cond"""
    if not cond:
        raise AssertionError(what)


def run_iowstat(iowstat, *args, env=None, **kw):
    """iowstat with args in UTC and the C locale, never on a debugfs the
    caller's IOWSTAT_DEBUGFS names (env adds to the environment)"""
    e = dict(os.environ, TZ="UTC", LC_ALL="C")
    e.pop("IOWSTAT_DEBUGFS", None)
    e.update(env or {})
    return subprocess.run([iowstat] + list(args), capture_output=True,
                          text=True, env=e, timeout=60, **kw)


def expect(res, rc, err_re=None, out=None):
    """A finished run exited rc; err_re: its stderr is one line matching
    it; out: its stdout is exactly that"""
    check(res.returncode == rc, "exit %d, expected %d; stderr: %r"
          % (res.returncode, rc, res.stderr))
    if err_re is not None:
        lines = res.stderr.strip("\n").split("\n")
        check(len(lines) == 1, "want one stderr line, got %r" % res.stderr)
        check(re.search(err_re, lines[0]), "stderr %r !~ %r"
              % (lines[0], err_re))
    if out is not None:
        check(res.stdout == out, "stdout differs:\n%s\nexpected:\n%s"
              % (res.stdout, out))


class Ktap:
    """KTAP output; the exit status follows kselftest (0 pass, 1 fail,
    4 skip).

    Ktap(n) prints the version line and the plan of n tests at once, then
    each line as it comes.  Ktap() counts its own plan: it keeps the lines
    and prints them at end(), after the version line and a plan of as
    many tests as it saw (or at exit, should the program end without
    end(); the missing Totals line then tells the runner)."""

    def __init__(self, plan=None):
        self.n = 0
        self.failed = 0
        self.skipped = 0
        self.kept = None
        if plan is None:
            self.kept = []
            atexit.register(self._flush)
        else:
            self._emit("KTAP version 1", f"1..{plan}")

    @property
    def passed(self):
        return self.n - self.failed - self.skipped

    def _emit(self, *lines):
        if self.kept is not None:
            self.kept.extend(lines)
            return
        for line in lines:
            print(line)
        sys.stdout.flush()

    def _flush(self):
        """A counted plan: the version, the plan and the lines kept."""
        if self.kept is None:
            return
        kept, self.kept = self.kept, None
        self._emit("KTAP version 1", f"1..{self.n}", *kept)

    def diag(self, msg):
        self._emit(*(f"# {line}" for line in str(msg).splitlines()))

    def result(self, ok, desc, diags=()):
        """One test; diags (lines) are printed before its result."""
        for d in diags:
            self.diag(d)
        self.n += 1
        if not ok:
            self.failed += 1
        self._emit(f"{'ok' if ok else 'not ok'} {self.n} {desc}")
        return ok

    def skip(self, desc, why):
        self.n += 1
        self.skipped += 1
        self._emit(f"ok {self.n} {desc} # SKIP {why}")

    def within(self, desc, got, want, rel=None, absolute=None):
        """Check |got - want| against a relative and/or absolute bound."""
        err = abs(got - want)
        bound = 0
        if rel is not None:
            bound = max(bound, rel * abs(want))
        if absolute is not None:
            bound = max(bound, absolute)
        ok = err <= bound
        pct = 100.0 * err / want if want else float("inf")
        self.diag(f"{desc}: got {got:.0f} want {want:.0f} "
                  f"(error {pct:.3f}%, bound {bound:.0f})")
        return self.result(ok, desc)

    def between(self, desc, got, lo, hi, rel=None, absolute=None):
        """Check that got lies in [lo, hi], give or take rel * hi and/or
        absolute: for a truth known only as a range.  On a debug kernel
        rel grows by TRUTH_SLACK."""
        if rel is not None:
            rel += TRUTH_SLACK
        bound = max(rel * abs(hi) if rel is not None else 0,
                    absolute if absolute is not None else 0)
        err = max(lo - got, got - hi, 0)
        pct = 100.0 * err / hi if hi else float("inf")
        self.diag(f"{desc}: got {got:.0f} want {lo:.0f}..{hi:.0f} "
                  f"(error {pct:.3f}%, bound {bound:.0f})")
        return self.result(err <= bound, desc)

    def end(self):
        """Print what is kept and the Totals line; the exit status."""
        self._flush()
        self._emit(f"# Totals: pass:{self.passed} fail:{self.failed} "
                   f"xfail:0 xpass:0 skip:{self.skipped} error:0")
        return 1 if self.failed else (4 if self.skipped == self.n else 0)

    def finish(self):
        """end(), then exit with its status."""
        sys.exit(self.end())


def parse_recording(data, name="recording"):
    """An iowstat --record file (its bytes or text; see user/replay.c):

      {"head": the text before the first @sample (magic, @meta lines),
       "meta": {key: value} of the @meta lines, values as text,
       "samples": [{"n", "mono", "real": the @sample line's numbers,
                    "files": {path: text of each @file, in order},
                    "text": the sample as recorded, @sample to @end}],
       "cmd": the @cmd line as {"status", "wall_ns", "user_us",
              "sys_us"} (and "runq_ns" when recorded), or None,
       "tail": the text after the last sample's @end line}

    so head + the samples' text + tail is a well-formed file.  A sample
    without its @end line (the file ends first) is left out; lines it does
    not know are skipped.  ValueError when the last line has no newline, on
    an @file outside a sample and on an @cmd line of fewer than four
    numbers."""
    if isinstance(data, str):
        data = data.encode()
    rec = {"head": None, "meta": {}, "samples": [], "cmd": None}
    pos, cur, start, done = 0, None, 0, 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            raise ValueError(f"{name}: truncated")
        line = data[pos:nl].decode()
        here, pos = pos, nl + 1
        if line.startswith("@meta "):
            key, _, value = line[6:].partition(" ")
            rec["meta"][key] = value
        elif line.startswith("@sample "):
            if rec["head"] is None:
                rec["head"] = data[:here].decode()
            _, n, mono, real = line.split()
            cur, start = {"n": int(n), "mono": int(mono),
                          "real": int(real), "files": {}}, here
        elif line.startswith("@file "):
            if cur is None:
                raise ValueError(f"{name}: @file outside a sample")
            path, size = line[6:].rsplit(" ", 1)
            size = int(size)
            cur["files"][path] = data[pos:pos + size].decode()
            pos += size + 1
        elif line.startswith("@end ") and cur is not None:
            cur["text"] = data[start:pos].decode()
            rec["samples"].append(cur)
            cur, done = None, pos
        elif line.startswith("@cmd "):
            f = [int(x) for x in line.split()[1:6]]
            if len(f) < 4:
                raise ValueError(f"{name}: bad @cmd line")
            rec["cmd"] = dict(zip(("status", "wall_ns", "user_us", "sys_us",
                                   "runq_ns"), f))
    if rec["head"] is None:
        rec["head"] = data.decode()
    rec["tail"] = data[done:].decode() if rec["samples"] else ""
    return rec


def read_recording(path):
    """parse_recording() of the file at path."""
    with open(path, "rb") as f:
        return parse_recording(f.read(), path)


def iowstat_arg():
    """The iowstat a host test runs: its first argument, else the tree's;
    absolute, as the tests change folders."""
    return os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else IOWSTAT)


def need_test_box():
    """Skip the whole suite unless it runs as root in the test box, which
    names the module to load in $IOWPROBE_KO."""
    if os.geteuid() != 0 or not os.environ.get("IOWPROBE_KO"):
        skip_all("needs root in the test box (IOWPROBE_KO)")


def run_each(k, tests, *args, after_failure=None):
    """Run each test(k, *args), a function or a functools.partial of one.
    One that raises fails with its reason and the rest still run;
    after_failure() then puts things back for them."""
    for test in tests:
        try:
            test(k, *args)
        except Exception as e:  # noqa: BLE001 - a broken step fails alone
            name = getattr(test, "func", test).__name__
            k.result(False, f"{name}: {e!r}")
            if after_failure:
                after_failure()


@contextlib.contextmanager
def module_for(k):
    """The module loaded for a suite's tests and left as it was found after
    them, even when a test unloaded it; then one test more, that the
    kernel logged nothing bad meanwhile (dmesg_clean())."""
    mark = dmesg_mark()
    was_loaded = not load_module()
    try:
        yield
    finally:
        if was_loaded:
            load_module()
        elif os.path.isdir(DEBUGFS):
            unload_module()
        dmesg_clean(k, mark)


def load_module():
    """insmod $IOWPROBE_KO unless iowprobe is loaded: True when it was
    loaded here (then unload_module() at the end)."""
    if os.path.isdir(DEBUGFS):
        return False
    subprocess.run(["insmod", os.environ["IOWPROBE_KO"]], check=True)
    return True


def unload_module():
    """rmmod iowprobe; a failure is not an error here."""
    subprocess.run(["rmmod", "iowprobe"], check=False)


def read_table(name):
    """A debugfs table as a list of dicts keyed by its header's columns."""
    with open(f"{DEBUGFS}/{name}") as f:
        return parse_table(f.read(), name)


def recorded_cpus(path, sample=0):
    """{cpu: row} of the cpus file (module or --bpf) in a recording's
    sample"""
    files = read_recording(path)["samples"][sample]["files"]
    name, text = next((k, v) for k, v in files.items()
                      if k.endswith("iowprobe/cpus"))
    return {r["cpu"]: r for r in parse_table(text, name)}


def parse_table(text, name):
    """The text of a debugfs table as a list of dicts keyed by its
    header's columns; name says which, in errors."""
    lines = text.splitlines()
    if not lines or lines[0] != ABI_LINE:
        raise ValueError(f"{name}: first line is not '{ABI_LINE}'")
    cols = lines[1].split()
    # the procs file's comm may hold spaces: it is last, to the line's end
    last = len(cols) - 1 if cols[-1] in TEXT_COLS else -1
    rows = []
    for line in lines[2:]:
        vals = line.split(maxsplit=last)
        if len(vals) != len(cols):
            raise ValueError(f"{name}: '{line}' has {len(vals)} fields")
        rows.append({c: (v if i == 0 or c in TEXT_COLS or ":" in v
                         else int(v))
                     for i, (c, v) in enumerate(zip(cols, vals))})
    return rows


def read_cpus():
    """{cpu: row} with 'all' for the total, and the read's midpoint (ns)."""
    t0 = time.monotonic_ns()
    rows = read_table("cpus")
    t1 = time.monotonic_ns()
    return {r["cpu"]: r for r in rows}, (t0 + t1) // 2


def read_status():
    with open(f"{DEBUGFS}/status") as f:
        lines = f.read().splitlines()
    return dict(line.split(": ", 1) for line in lines[1:])


def delta(a, b, cpu, col):
    return b[str(cpu)][col] - a[str(cpu)][col]


def pin(cpu):
    os.sched_setaffinity(0, {cpu})


def modprobe(*args):
    subprocess.run(["modprobe", "-r", args[0]], stderr=subprocess.DEVNULL)
    subprocess.run(["modprobe", *args], check=True)


@contextlib.contextmanager
def bpffs():
    """A bpffs mounted for the test: yields (env, folder), env pointing
    iowstat --bpf attach and its readers at it (IOWSTAT_BPF_PIN), folder a
    scratch directory beside it; detached and unmounted at the end"""
    with tempfile.TemporaryDirectory() as d:
        fs = os.path.join(d, "bpffs")
        os.mkdir(fs)
        subprocess.run(["mount", "-t", "bpf", "bpf", fs], check=True)
        env = dict(os.environ, IOWSTAT_BPF_PIN=os.path.join(fs, "iowprobe"))
        try:
            yield env, d
        finally:
            subprocess.run([IOWSTAT, "--bpf", "detach"], env=env,
                           capture_output=True)
            subprocess.run(["umount", fs], check=False)


def mount_cgroup2():
    """cgroup v2 on /sys/fs/cgroup, as systemd leaves it"""
    if not os.path.exists(os.path.join(CGROOT, "cgroup.procs")):
        subprocess.run(["mount", "-t", "cgroup2", "none", CGROOT],
                       check=True)


def nullb(completion_ns, irqmode=2, depth=64):
    """A fresh /dev/nullb0 completing each request after completion_ns,
    with depth tags (requests in flight at once) a queue."""
    modprobe("null_blk", f"irqmode={irqmode}",
             f"completion_nsec={completion_ns}", "nr_devices=1",
             "submit_queues=2", f"hw_queue_depth={depth}")
    for _ in range(100):
        if os.path.exists("/dev/nullb0"):
            return "/dev/nullb0"
        time.sleep(0.05)
    raise RuntimeError("null_blk loaded but /dev/nullb0 did not appear")


def wait_for(cond, seconds):
    """Poll cond() until it holds or seconds (times SLOWDOWN) pass; its
    last answer.  A test waits for what it needs, never a fixed time: a
    debug kernel under TCG starts a process ten times slower."""
    end = time.monotonic() + seconds * SLOWDOWN
    while not cond() and time.monotonic() < end:
        time.sleep(0.2)
    return cond()


def hog(cpu):
    """A busy loop pinned to cpu, returned once it runs: exec'd (its
    comm is sh) and 100 ms on the CPU."""
    p = subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c",
                          "while :; do :; done"])

    def spinning():
        try:
            with open(f"/proc/{p.pid}/comm") as f:
                execd = f.read().strip() == "sh"
            return execd and task_schedstat(p.pid)[0] > 100_000_000
        except FileNotFoundError:
            return False

    if not wait_for(spinning, 10):
        p.kill()
        p.wait()
        raise RuntimeError(f"the busy loop on cpu{cpu} never ran")
    return p


def task_schedstat(task="thread-self"):
    """(run, delay): ns a task has run on a CPU, and waited runnable for
    one, by the scheduler's own schedstat"""
    with open(f"/proc/{task}/schedstat") as f:
        run, delay = f.read().split()[:2]
    return int(run), int(delay)


def run_delay():
    """ns this thread spent runnable but not running (the scheduler's own
    schedstat): after each wakeup the task is no longer in iowait, but it
    only runs once the CPU switches to it"""
    return task_schedstat()[1]


def direct_reads(dev, seconds, bs=4096):
    """Synchronous O_DIRECT reads for about `seconds`.

    Returns (wall_ns, own_cpu_ns, reads, run_delay_ns): the thread either
    runs, waits on its I/O or waits to run after a wakeup, so its iowait is
    wall - own CPU time - run delay.
    """
    r = timed_reads(dev, seconds, bs)
    return r.wall, r.cpu, r.n, r.delay


Reads = collections.namedtuple("Reads", "wall cpu n delay busy")


def timed_reads(dev, seconds, bs=4096, busy=None, spread=False):
    """direct_reads() with more: busy (when given) is a function that
    returns a CPU's run time so far, e.g. lambda: rq_cpu_time(1); it is
    read right around the reads and its change is Reads.busy (else 0).
    spread: read blocks in a random order, not one after the other, so
    that no cache or read-ahead below the file serves them.

    Returns Reads(wall, cpu, n, delay, busy), in ns but n."""
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, bs)
    blocks = os.lseek(fd, 0, os.SEEK_END) // bs
    rnd = random.Random(blocks)
    busy = busy or (lambda: 0)
    n = 0
    # The scheduler books a task's run when the task leaves the CPU: sleep
    # first, and start the clock at once, so that the run booked at the
    # first read is all inside the wall time.  The last run, from the last
    # wakeup on, is not booked: it ends right after t1.
    time.sleep(0.001)
    t0 = time.monotonic_ns()
    c0 = time.thread_time_ns()
    d0 = run_delay()
    b0 = busy()
    end = t0 + int(seconds * 1e9)
    while True:
        block = rnd.randrange(blocks) if spread else n % blocks
        os.preadv(fd, [buf], block * bs)
        n += 1
        if n % 8 == 0 and time.monotonic_ns() >= end:
            break
    t1 = time.monotonic_ns()
    c1 = time.thread_time_ns()
    d1 = run_delay()
    b1 = busy()
    os.close(fd)
    return Reads(t1 - t0, c1 - c0, n, d1 - d0, b1 - b0)


def rq_cpu_time(cpu):
    """ns CPU `cpu` ran tasks other than its idle task since boot:
    rq_cpu_time, the 7th number of /proc/schedstat's cpuN line (kernels
    with CONFIG_SCHEDSTATS).  Every task counts, kernel threads and on
    PREEMPT_RT the threaded interrupt handlers too, so wall time minus its
    change is the CPU's idle time.  A task's run is added when it leaves
    the CPU: the caller's current run on `cpu` is not in it yet."""
    with open(SCHEDSTAT) as f:
        head = f.readline().split()
        if head[:1] != ["version"] or \
                int(head[1]) not in SCHEDSTAT_VERSIONS:
            raise ValueError(f"{SCHEDSTAT}: unknown {' '.join(head)}")
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                return int(line.split()[7])
    raise ValueError(f"cpu{cpu} not in {SCHEDSTAT}")


def clock_facts():
    """which clocks this box keeps time with: the clocksource, and whether
    the kernel calls its sched_clock stable (the module's clock; "?" when
    the scheduler's debugfs file is not there)"""
    try:
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource") as f:
            cs = f.read().strip()
    except OSError:
        cs = "?"
    stable = "?"
    for path in ("/sys/kernel/debug/sched/debug", "/proc/sched_debug"):
        try:
            with open(path) as f:
                for line in f:
                    m = re.search(r"sched_clock_stable\(\)\s*:\s*(\d+)",
                                  line)
                    if m:
                        stable = m.group(1)
                        break
        except OSError:
            continue
        break
    return f"clocksource {cs}, sched_clock_stable {stable}"


def preempt_rt():
    """True on a PREEMPT_RT kernel"""
    try:
        with open("/sys/kernel/realtime") as f:
            return f.read().strip() == "1"
    except OSError:
        return "PREEMPT_RT" in os.uname().version


def exec_start(unit):
    """The ExecStart= command of a systemd unit file, as systemd splits
    it: continuation lines joined (the backslash becomes a space)"""
    with open(unit) as f:
        text = f.read().replace("\\\n", " ")
    for line in text.splitlines():
        if line.startswith("ExecStart="):
            return shlex.split(line[len("ExecStart="):])
    raise RuntimeError(f"no ExecStart= in {unit}")


def skip_all(why):
    """A whole test skipped before its plan: KTAP's "1..0 # SKIP", exit 4"""
    print(f"1..0 # SKIP {why}")
    sys.exit(4)


def need_bpf_here(iowstat):
    """Skip the whole test unless iowstat can load BPF programs here: as
    root, built, and built with libbpf (bpf/bpf.mk)"""
    if os.geteuid() != 0:
        skip_all("loading BPF programs needs root")
    if not os.access(iowstat, os.X_OK):
        skip_all(f"{iowstat} not built: make -C user")
    if "libbpf" not in subprocess.run(["ldd", iowstat], capture_output=True,
                                      text=True).stdout:
        skip_all("iowstat built without BPF: make -C user BPF=1")


def random_file(path, mb):
    """mb MiB of random bytes at path, written through to the disk"""
    with open(path, "wb") as f:
        for _ in range(mb):
            f.write(os.urandom(1 << 20))
        f.flush()
        os.fsync(f.fileno())
    return path


def kernel_version():
    """(major, minor) of the running kernel"""
    major, minor = os.uname().release.split(".")[:2]
    return int(major), int(minor)


def debug_kernel():
    """True on a kernel built with KASAN or lockdep (scripts/debug-kernel):
    everything there runs several times slower, so the tests that wait
    for something to start wait longer.  Never a reason to relax what a
    test asserts."""
    try:
        with gzip.open("/proc/config.gz", "rt") as f:
            text = f.read()
    except OSError:
        return False
    return ("\nCONFIG_KASAN=y\n" in text or
            "\nCONFIG_PROVE_LOCKING=y\n" in text)


# how many times longer a start-up may take here than on a release kernel
SLOWDOWN = 5 if debug_kernel() else 1
# What a ground truth (Ktap.between) may miss by beyond its bound on a
# debug kernel.  The truths add clocks read at different points of the
# switch and wakeup paths (a thread's CPU time, schedstat's run delay,
# rq_cpu_time) and set them against iowprobe's tracepoints; KASAN and
# lockdep run between those points, and the sleeper's way back from a
# migrating wakeup put iowprobe 0.5-2.5% above the truth there (measured:
# 5-24 ms per 1 s wait), where the release kernels stay within 1%.
TRUTH_SLACK = 0.03 if debug_kernel() else 0.0

# null_blk's time per request in the ground-truth tests: long enough that
# every read sleeps, short enough for hundreds of them in a second or two
SERVICE_NS = 2_000_000


def blk_local_truth(k, desc, blk, n, idle, busy):
    """Check a CPU's blk_local_ns over n reads of SERVICE_NS each, its
    only requests, while it ran tasks for busy ns: idle time with one in
    flight, so at most the CPU's idle time (2% for the truth's other
    clock).  Each request is in flight for at least SERVICE_NS, and only
    a task's run takes the CPU out of idle meanwhile (the reader's way
    from the issue to its switch, a completion handled in a thread): so
    at least the device's time less everything the CPU ran.  A fixed
    path a request (10 us; 100 us on a debug kernel) held on this
    machine's debug kernel and failed on a slower one (112 us)."""
    lo = n * SERVICE_NS - busy
    k.diag(f"{desc}: {blk / 1e6:.1f} ms, device time "
           f"{n * SERVICE_NS / 1e6:.1f} ms less the CPU's run time "
           f"{busy / 1e6:.1f} ms, idle {idle / 1e6:.1f} ms")
    return k.result(lo <= blk <= idle * 1.02, desc)


def proc_stat_cpu(cpu):
    """(idle, iowait) of /proc/stat's cpuN line, in ns (USER_HZ = 100)."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                v = [int(x) for x in line.split()[1:]]
                return v[3] * 10_000_000, v[4] * 10_000_000
    raise ValueError(f"cpu{cpu} not in /proc/stat")


def procs_blocked():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("procs_blocked "):
                return int(line.split()[1])
    raise ValueError("no procs_blocked in /proc/stat")


def dmesg_mark():
    """How many lines the kernel log holds now: dmesg_clean()'s start"""
    return len(subprocess.run(["dmesg"], capture_output=True,
                              text=True).stdout.splitlines())


def dmesg_clean(k, mark):
    """One test: no line since mark fails (dmesg_bad()); the bad ones are
    printed as diagnostics"""
    lines = subprocess.run(["dmesg"], capture_output=True,
                           text=True).stdout.splitlines()[mark:]
    bad = dmesg_bad(lines)
    for ln in bad:
        k.diag(ln)
    return k.result(not bad, "dmesg: no warning, bug or lockdep report")


def dmesg_bad(lines):
    """The kernel log lines that fail a test: those holding a string of
    dmesg_bad.txt (lockdep, KASAN, WARN, BUG, stalls, ...)."""
    path = os.path.join(LIB, "dmesg_bad.txt")
    with open(path) as f:
        words = [w.rstrip("\n") for w in f
                 if w.strip() and not w.startswith("#")]
    return [ln for ln in lines if any(w in ln for w in words)]
