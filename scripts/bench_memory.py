#!/usr/bin/env python3
"""Memory of the JSON reader and of `perfcheck merge`,
measured and printed (time and peak RSS, for 100k and 1M kernel entries).

usage: scripts/bench_memory.py [--perfcheck build/bin/perfcheck] [--work DIR]
                               [--entries 100000,1000000] [--inputs 10]
                               [--distinct-max 100000] [--keep]

The reports are made at run time, shaped as perfcheck's JSON writer writes
them (the four mystery kernels of tests/data/h200/mystery.csv, diagnosed,
their entries repeated under new names: about 8.6 KB of JSON per entry, so
100k entries are 0.86 GB and 1M 8.6 GB).  For each N of --entries:

  read      `perfcheck report -f json -o - R.json` of one report of N
            entries: peak RSS against the file's size (goal: at most 2x);
  merge     `perfcheck merge -f json -o OUT.json` of --inputs copies of a
            report of N/inputs entries (N entries in, shared keys: N/inputs
            out), and, up to --distinct-max entries, of --inputs reports with
            distinct names (N out); goal: RSS at most 2x the largest input
            plus the merged result, and 1M entries in 2 GB;
  back      the merged report read again (`perfcheck report`): merge never
            writes what its reader refuses (the reader had a 1 GiB cap).

Each command is timed alone with os.wait4's rusage.  Python 3 standard
library only.  Needs disk for the inputs: about 9 KB per entry of the
largest N (deleted as it goes unless --keep).
"""
import argparse
import json
import os
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
    return time.monotonic() - t0, ru.ru_maxrss * 1024.0, os.waitstatus_to_exitcode(status), err.decode(
        "utf-8", "replace")


def templates(pc):
    """The writer's report of the mystery export: its text before and after
    the kernel entries, and each entry's text with its names as {NAME}."""
    out = subprocess.run([pc, "diagnose", "--quiet", "--format", "json",
                          os.path.join(ROOT, "tests/data/h200/mystery.csv")],
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    d = json.loads(out)
    head = dict(d)
    head["kernels"] = []
    text = json.dumps(head, indent=2)
    pre, post = text.split('"kernels": []')
    entries = []
    for k in d["kernels"]:
        name = k["name"]
        t = json.dumps(k, indent=2).replace("\n", "\n    ")
        t = t.replace('"%s"' % name, '"{NAME}"')
        for key in ("display_name", "demangled"):
            if k.get(key):
                t = t.replace(json.dumps(k[key]), json.dumps(k[key]).replace(name, "{NAME}"))
        entries.append(t.replace("{", "{{").replace("}", "}}").replace("{{NAME}}", "{name}"))
    return pre + '"kernels": [\n', "\n  ]" + post, entries


def write_report(path, n, tag, tmpl):
    pre, post, entries = tmpl
    with open(path, "w") as f:
        f.write(pre)
        block = []
        for i in range(n):
            e = entries[i % len(entries)]
            block.append(("    " if i == 0 else ",\n    ") + e.format(name="k%s_%d" % (tag, i)))
            if len(block) == 2000:
                f.write("".join(block))
                block = []
        f.write("".join(block))
        f.write(post)
    return os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfcheck", default=os.path.join(ROOT, "build/bin/perfcheck"))
    ap.add_argument("--work", default=None)
    ap.add_argument("--entries", default="100000,1000000")
    ap.add_argument("--inputs", type=int, default=10)
    ap.add_argument("--distinct-max", type=int, default=100000)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    pc = a.perfcheck
    if not os.access(pc, os.X_OK):
        sys.exit("no perfcheck at %s (build it, or give --perfcheck)" % pc)
    work = a.work or tempfile.mkdtemp(prefix="perfcheck-bench-memory-")
    os.makedirs(work, exist_ok=True)
    tmpl = templates(pc)
    rows, ok = [], True
    gb = 1e9

    def gone(*paths):
        if not a.keep:
            for p in paths:
                if os.path.exists(p):
                    os.unlink(p)

    try:
        for n in [int(x) for x in a.entries.split(",")]:
            # The reader: one report of n entries.
            big = os.path.join(work, "read%d.json" % n)
            t0 = time.monotonic()
            size = write_report(big, n, "r", tmpl)
            print("wrote %s: %d entries, %.2f GB in %.0f s" % (big, n, size / gb, time.monotonic() - t0), flush=True)
            dt, rss, rc, err = run_timed([pc, "report", "--quiet", "--format", "json", "--output", "-", big])
            met = rc == 0 and rss <= 2 * size
            ok &= met
            rows.append(("read %d entries (%.2f GB)" % (n, size / gb), dt, rss, "<= 2x file: %.2fx" % (rss / size),
                         "met" if met else "NOT MET" + (" (exit %d: %s)" % (rc, err.strip()[-200:]) if rc else "")))
            gone(big)
            # merge: inputs x n/inputs entries, shared keys (the same file).
            per = n // a.inputs
            one = os.path.join(work, "in%d.json" % n)
            isize = write_report(one, per, "s", tmpl)
            out = os.path.join(work, "merged%d.json" % n)
            dt, rss, rc, err = run_timed([pc, "merge", "--quiet", "--format", "json", "--output", out] + [one] * a.inputs)
            merged = os.path.getsize(out) if os.path.exists(out) else 0
            goal = 2 * isize + merged
            met = rc == 0 and rss <= goal and (n < 1000000 or rss <= 2 * gb)
            ok &= met
            rows.append(("merge %d in (%d x %d, shared) -> %d" % (n, a.inputs, per, per), dt, rss,
                         "<= %.2f GB%s" % (goal / gb, ", <= 2 GB" if n >= 1000000 else ""),
                         "met" if met else "NOT MET" + (" (exit %d: %s)" % (rc, err.strip()[-200:]) if rc else "")))
            gone(out)
            if n <= a.distinct_max:
                ins = []
                for i in range(a.inputs):
                    p = os.path.join(work, "d%d_%d.json" % (n, i))
                    write_report(p, per, "d%d" % i, tmpl)
                    ins.append(p)
                dt, rss, rc, err = run_timed([pc, "merge", "--quiet", "--format", "json", "--output", out] + ins)
                merged = os.path.getsize(out) if os.path.exists(out) else 0
                goal = 2 * max(os.path.getsize(p) for p in ins) + merged
                met = rc == 0 and rss <= goal
                ok &= met
                rows.append(("merge %d in (%d x %d, distinct) -> %d" % (n, a.inputs, per, n), dt, rss,
                             "<= %.2f GB" % (goal / gb),
                             "met" if met else "NOT MET" + (" (exit %d: %s)" % (rc, err.strip()[-200:]) if rc else "")))
                gone(*ins)
                # The merged report, read back (it may be over the old 1 GiB cap).
                dt, rss, rc, err = run_timed([pc, "report", "--quiet", "--format", "json", "--output", "-", out])
                met = rc == 0
                ok &= met
                rows.append(("  its output (%.2f GB) read back" % (merged / gb), dt, rss, "exit 0",
                             "met" if met else "NOT MET (exit %d: %s)" % (rc, err.strip()[-200:])))
                gone(out)
            gone(one)
    finally:
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print()
    print("%-48s %9s %10s  %-22s %s" % ("figure", "seconds", "peak MiB", "goal", "result"))
    for name, dt, rss, goal, res in rows:
        print("%-48s %9.1f %10.0f  %-22s %s" % (name, dt, rss / 2**20, goal, res))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
