# SPDX-License-Identifier: GPL-2.0-only
#
# step_profile.py - the gdb half of scripts/step-profile, run as
# gdb -batch -x step_profile.py with STEP_OUT, STEP_PORT, STEP_HITS,
# STEP_FUNCS (comma-separated) and STEP_KO in the environment
#
# Sets a breakpoint on each function named (the module's, the kernel's or
# a BPF program's), and at every hit steps the vCPU that hit it
# (scheduler-locking step: the other vCPU stays put) one instruction at a
# time until it is back at the return address with the stack as it was.
# Writes STEP_OUT/report and, for the commonest path of each of the
# module's functions, STEP_OUT/FUNCTION.lines.

import bisect
import collections
import os
import subprocess
import time

import gdb

OUT = os.environ['STEP_OUT']
KO = os.environ['STEP_KO']
FUNCS = os.environ['STEP_FUNCS'].split(',')
HITS = int(os.environ['STEP_HITS'])
LOST = 20000            # a hit that never returns (stepped out of view)
DEADLINE = 600          # seconds for all the hits


class Symbols:
    """The box's text symbols, the module's marked, for a pc's name."""

    def __init__(self, path):
        self.rows = []
        for line in open(path):
            f = line.split()
            if len(f) >= 3 and f[1] in 'tTwW':
                self.rows.append((int(f[0], 16), f[2],
                                  len(f) > 3 and f[3] == '[iowprobe]'))
        self.rows.sort()
        self.addrs = [r[0] for r in self.rows]

    def row(self, pc):
        """The symbol @pc is in: (address, name, the module's), or None."""
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.rows[i] if i >= 0 else None

    def name(self, pc):
        r = self.row(pc)
        return r[1] if r else '?'

    def at(self, pc):
        """@pc as symbol+offset (hex), as objdump of FUNCTION.bin counts."""
        r = self.row(pc)
        return '%s+0x%x' % (r[1], pc - r[0]) if r else '?'

    def span(self, a):
        """The code of the symbol at @a: from it to the next symbol."""
        i = bisect.bisect_right(self.addrs, a)
        end = self.addrs[i] if i < len(self.addrs) else a + 4096
        return a, min(end, a + 65536)

    def module(self, name):
        for a, n, mod in self.rows:
            if mod and n == name:
                return a
        return None

    def find(self, name):
        """@name's address: the module's, else the kernel's, else that
        of the BPF program of that name (bpf_prog_TAG_NAME)."""
        a = self.module(name)
        if a is not None:
            return a
        for a, n, mod in self.rows:
            if n == name:
                return a
        for a, n, mod in self.rows:
            if n.startswith('bpf_prog_') and n.split('_', 3)[-1] == name:
                return a
        raise gdb.GdbError('no %s in the box\'s kallsyms' % name)


def reg(name):
    return int(gdb.parse_and_eval(name)) & (2 ** 64 - 1)


def step_to_return():
    """Step from a function's entry to its return: the pcs on the way."""
    sp = reg('$sp')
    ret = reg('*(unsigned long *)$sp')
    path = []
    while len(path) < LOST:
        path.append(reg('$pc'))
        gdb.execute('stepi', to_string=True)
        if reg('$pc') == ret and reg('$sp') == sp + 8:
            return path
    return None


def source_lines(base, path):
    """The module's instructions of @path, by (function, file:line)."""
    ko_pcs = [pc - base for pc in path if 0 <= pc - base < 1 << 24]
    where = {}
    for off in sorted(set(ko_pcs)):
        r = subprocess.run(['addr2line', '-f', '-i', '-e', KO, '%x' % off],
                           capture_output=True, text=True).stdout.split('\n')
        where[off] = '%-32s %s' % (r[0], r[1].split('/')[-1])
    return collections.Counter(where[off] for off in ko_pcs)


def ko_base(syms, func):
    """Where the module's text starts: a symbol's address less its own."""
    nm = subprocess.run(['nm', KO], capture_output=True, text=True).stdout
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == func:
            return syms.module(func) - int(f[0], 16)
    raise gdb.GdbError('no %s in %s' % (func, KO))


def main():
    syms = Symbols(OUT + '/kallsyms')
    entry = {syms.find(f): f for f in FUNCS}
    address = {f: a for a, f in entry.items()}
    gdb.execute('set pagination off')
    gdb.execute('target remote 127.0.0.1:%s' % os.environ['STEP_PORT'])
    gdb.execute('set scheduler-locking step')
    for a in entry:
        gdb.execute('break *0x%x' % a, to_string=True)
    open(OUT + '/go', 'w').close()
    lengths = collections.defaultdict(list)
    paths = {}
    end = time.time() + DEADLINE
    while time.time() < end and \
            min(len(lengths[f]) for f in FUNCS) < HITS:
        gdb.execute('continue', to_string=True)
        f = entry.get(reg('$pc'))
        if f is None or len(lengths[f]) >= HITS:
            continue
        path = step_to_return()
        lengths[f].append(len(path) if path else LOST)
        if path:
            paths.setdefault((f, len(path)), path)
    gdb.execute('delete')
    report = []
    for f in FUNCS:
        hist = collections.Counter(lengths[f])
        report.append('%s: %d hits; instructions a hit: %s' % (
            f, len(lengths[f]), ', '.join(
                '%s x%d' % (n if n < LOST else 'lost', k)
                for n, k in sorted(hist.items()))))
        done = {n: k for n, k in hist.items() if n < LOST}
        if not done:
            continue
        common = max(done, key=done.get)
        path = paths[(f, common)]
        # every path, by function: the commonest first, then the rest (an
        # idle switch among the pipe's switches, a miss among hits)
        for n in sorted(done, key=lambda n: (n != common, -done[n], n)):
            by_fn = collections.Counter(syms.name(pc)
                                        for pc in paths[(f, n)])
            report.append('  %s, %d: %s' % (
                'its commonest path' if n == common else 'a path',
                n, ', '.join('%s %d' % kv for kv in by_fn.most_common())))
        if syms.module(f) is None:
            # no source lines but the module's: where each pc is, for a
            # look at the code beside it
            at = collections.Counter(syms.at(pc) for pc in path)
            with open('%s/%s.pcs' % (OUT, f), 'w') as out:
                for where, n in sorted(at.items()):
                    out.write('%4d  %s\n' % (n, where))
            # and its code, for objdump -b binary -m i386:x86-64 -D
            a, end = syms.span(address[f])
            gdb.execute('dump binary memory %s/%s.bin 0x%x 0x%x' %
                        (OUT, f, a, end), to_string=True)
            continue
        lines = source_lines(ko_base(syms, f), path)
        with open('%s/%s.lines' % (OUT, f), 'w') as out:
            for where, n in lines.most_common():
                out.write('%4d  %s\n' % (n, where))
    gdb.execute('detach')
    with open(OUT + '/report', 'w') as out:
        out.write('\n'.join(report) + '\n')


main()
