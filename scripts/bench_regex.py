#!/usr/bin/env python3
"""The cost of a regex against long kernel names, measured
and printed.

usage: scripts/bench_regex.py [--perfcheck build/bin/perfcheck] [--work DIR]
                              [--sizes 10000,30000,100000,1000000,10000000]

For each size N, an ncu export (the T4 seed export) whose mysteryB is
renamed to N times 'a' (exports allow names up to 64 MiB), then

  perfcheck check --expect 'regex:a+x:launches>=1' EXPORT

(the slow case of a backtracking matcher: no match, since no name holds an
x), the same with the worst pattern the guard accepts for a name of one letter,
(.?){255}(.?){255}x, and a[ab]{200}c on a name of random a and b (a pattern
whose DFA never settles: 2^200 states; past 8192 the match steps the NFA
byte by byte, the Thompson bound: time linear in the name times the
pattern).  Each command is
timed alone, with its peak RSS (os.wait4).  The time includes reading the
export and demangling the name; the regex's own part is the difference to
`--expect 'mysteryA:launches>=1'` on the same file.  Goal: 1 MB under 1 s;
the time must grow linearly (the ratio column: time per byte relative to
the first size; glibc's regexec, which we used before, grew as the square:
0.24 s at 10 KB, 2.2 s at 30 KB, about 50 s at 100 KB).

Python 3 standard library only; inputs are made at run time, in a temporary
folder unless --work is given.
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_timed(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t0, ru.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), err.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfcheck", default=os.path.join(ROOT, "build/bin/perfcheck"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--sizes", default="10000,30000,100000,1000000,10000000")
    a = ap.parse_args()
    if not os.access(a.perfcheck, os.X_OK):
        sys.exit("no perfcheck at %s (build it, or give --perfcheck)" % a.perfcheck)
    sizes = [int(x) for x in a.sizes.split(",")]
    work = a.work or tempfile.mkdtemp(prefix="perfcheck-bench-regex-")
    os.makedirs(work, exist_ok=True)
    seed = open(os.path.join(ROOT, "tests/data/t4_seed000.csv")).read()
    rows, ok = [], True
    try:
        for n in sizes:
            path = os.path.join(work, "name%d.csv" % n)
            rnd = random.Random(n)
            for pattern in ("a+x", "(.?){255}(.?){255}x", "a[ab]{200}c"):
                name = "a" * n if pattern != "a[ab]{200}c" else "".join(rnd.choice("ab") for _ in range(n))
                with open(path, "w") as f:
                    f.write(seed.replace("mysteryB(", name + "("))
                base, _, rc0, err0 = run_timed([a.perfcheck, "check", "--quiet", "--expect", "mysteryA:launches>=1",
                                                path])
                dt, rss, rc, err = run_timed([a.perfcheck, "check", "--quiet", "--expect",
                                              "regex:%s:launches>=1" % pattern, path])
                good = rc == 1 and rc0 == 0  # no kernel matches; the reading itself works
                ok &= good
                rows.append((pattern, n, dt, dt - base, rss, good, err.strip()[-160:] if not good else ""))
            os.unlink(path)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print("%-22s %10s %9s %11s %9s  %s" % ("pattern", "name", "seconds", "regex part", "peak MiB", "per byte vs first"))
    first = {}
    for pattern, n, dt, part, rss, good, err in rows:
        per = dt / n
        first.setdefault(pattern, per)
        print("%-22s %10d %9.3f %11.3f %9.0f  %.2f%s" % (pattern, n, dt, part, rss, per / first[pattern],
                                                         "" if good else "  FAILED: " + err))
    one_mb = [dt for pattern, n, dt, _, _, _, _ in rows if n == 1000000 and pattern != "a[ab]{200}c"]
    if one_mb:
        met = max(one_mb) < 1.0
        ok &= met
        print("1 MB names under 1 s: %s (%.3f s at most)" % ("met" if met else "NOT MET", max(one_mb)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
