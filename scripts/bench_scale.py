#!/usr/bin/env python3
"""Scale figures, measured and printed.

usage: scripts/bench_scale.py [--perfcheck build/bin/perfcheck] [--launches 1000000]
                              [--work DIR] [--keep] [--sections 1,2,3,4]
                              [--kernels 10000,20000,40000,100000]

  1. `perfcheck diagnose` over an ncu export of the default metric set with
     LAUNCHES launch rows (the committed H200 export of the mystery program,
     389 columns, its rows repeated over 200 launch signatures with varied
     durations): wall time and peak RSS.  Goal: 1M launches in under 10 s and
     500 MB.
  2. `perfcheck merge` of 5 JSON reports of 20,000 kernel entries each
     (100k entries): wall time and peak RSS, entries distinct and shared.
     Goal: under 5 s.
  3. `perfcheck check --expect 'regex:.:launches>=1'` over a report of 10,000 and
     of 20,000 kernels: the ratio of the two times shows linear cost (2),
     quadratic cost would show 4.
  4. Distinct kernels (--kernels, default 10k, 20k, 40k and 100k): `perfcheck
     diagnose --format json` of an export with that many kernel signatures,
     and `perfcheck merge --format json` of 5 JSON reports that hold them
     between them (distinct entries): wall time, CPU time and peak RSS of
     each.  Goal: ranking, sorting and merging O(n log n), so the CPU time
     from 20k to 40k grows at most 2.3x (a quadratic step would show 4x).

--sections picks the parts (default 1,2,3,4).

Each command is timed alone (the inputs are written first) with
os.wait4's rusage for its peak RSS.  Python 3 standard library only.
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


LAST_CPU = [0.0]  # the CPU seconds (user + system) of the last run_timed


def run_timed(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd; returns (seconds, peak RSS in MiB, exit status, stderr text);
    its CPU seconds are left in LAST_CPU[0]."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    dt = time.monotonic() - t0
    LAST_CPU[0] = ru.ru_utime + ru.ru_stime
    p.returncode = os.waitstatus_to_exitcode(status)
    return dt, ru.ru_maxrss / 1024.0, p.returncode, err.decode("utf-8", "replace")


def read_export(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1], rows[2:]


def quote_row(fields):
    return ('"' + '","'.join(f.replace('"', '""') for f in fields) + '"\n').encode()


def write_launches(path, launches):
    """An export of `launches` rows over 200 signatures, from the H200 export."""
    header, units, rows = read_export(os.path.join(ROOT, "tests/data/h200/mystery.csv"))
    grid_col = header.index("Grid Size")
    dur_cols = [i for i, h in enumerate(header) if h.startswith("gpu__time_duration.")]
    templates = []
    for r in rows:
        for g in range(50):  # 4 kernels x 50 grids = 200 signatures
            for d in range(8):  # durations differ from launch to launch
                f = list(r)
                f[grid_col] = "(%d, 1, 1)" % (16384 + g)
                for c in dur_cols:
                    f[c] = "%.6f" % (float(r[c]) * (1 + 0.01 * d))
                templates.append(quote_row(f))
    with open(path, "wb") as out:
        out.write(quote_row(header))
        out.write(quote_row(units))
        n, block = 0, []
        for i in range(launches):
            block.append(templates[(i * 7919) % len(templates)])
            if len(block) == 4096:
                out.write(b"".join(block))
                block = []
        out.write(b"".join(block))
    return os.path.getsize(path)


def write_kernels_csv(path, kernels, tag):
    """A small export of `kernels` distinct signatures (names k_TAG_I)."""
    with open(path, "w") as f:
        f.write('"Kernel Name","gpu__time_duration.sum","launch__grid_size","launch__block_size",'
                '"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"\n')
        f.write('"","nsecond","","","sector","request"\n')
        for i in range(kernels):
            f.write('"k_%s_%d(float*)","%d","%d","256","4096","1024"\n' % (tag, i, 1000 + i, 1 + i % 64))


def bench_launches(pc, work, launches, keep, results):
    """1. A million launches: diagnose, from a file and through a pipe."""
    big = os.path.join(work, "launches.csv")
    t0 = time.monotonic()
    size = write_launches(big, launches)
    print("wrote %s: %d launch rows, %.2f GB, in %.1f s" % (big, launches, size / 1e9, time.monotonic() - t0))
    dt, rss, rc, err = run_timed([pc, "diagnose", "--quiet", "--format", "json", big])
    met = rc == 0 and (launches < 1000000 or (dt < 10 and rss < 500))
    results.append(("diagnose %d launches (%.2f GB)" % (launches, size / 1e9), dt, rss, "10 s, 500 MB",
                    "met" if met else "NOT MET" + ("" if rc == 0 else " (exit %d: %s)" % (rc, err.strip()[-200:]))))
    # The same export through a pipe: memory stays bounded there too.
    dt, rss, rc, err = run_timed(["sh", "-c", 'cat "$1" | "$0" diagnose --quiet --format json /dev/stdin', pc, big])
    results.append(("  the same through a pipe", dt, rss, "", "exit %d" % rc))
    if not keep:
        os.unlink(big)
    return met


def bench_merge(pc, work, results):
    """2. merge: 5 reports x 20,000 entries, distinct and shared; returns
    (met, the first report's path)."""
    jsons = []
    for r in range(5):
        c = os.path.join(work, "r%d.csv" % r)
        j = os.path.join(work, "r%d.json" % r)
        write_kernels_csv(c, 20000, str(r))
        with open(j, "wb") as out:
            subprocess.run([pc, "diagnose", "--quiet", "--format", "json", c], stdout=out, check=True)
        jsons.append(j)
    dt, rss, rc, _ = run_timed([pc, "merge", "--quiet", "--format", "json"] + jsons)
    met = rc == 0 and dt < 5
    results.append(("merge 100k entries (5 x 20k, distinct)", dt, rss, "5 s", "met" if met else "NOT MET"))
    # What one input costs to read and write back (the JSON, not the merge):
    dt1, rss1, rc1, _ = run_timed([pc, "merge", "--quiet", "--format", "json", jsons[0]])
    mb = os.path.getsize(jsons[0]) / 2**20
    results.append(("  of which: 1 report of 20k (%.0f MiB JSON) in and out" % mb, dt1, rss1, "",
                    "x5 = %.1f s of JSON reading and writing" % (5 * dt1)))
    dt, rss, rc, _ = run_timed([pc, "merge", "--quiet", "--format", "json"] + [jsons[0]] * 5)
    shared = rc == 0 and dt < 5
    results.append(("merge 100k entries (5 x 20k, shared)", dt, rss, "5 s", "met" if shared else "NOT MET"))
    return met and shared, jsons[0]


def bench_check(pc, work, j20, results):
    """3. check regex:. over 10k and 20k kernels: linear."""
    c10 = os.path.join(work, "k10.csv")
    j10 = os.path.join(work, "k10.json")
    write_kernels_csv(c10, 10000, "x")
    with open(j10, "wb") as out:
        subprocess.run([pc, "diagnose", "--quiet", "--format", "json", c10], stdout=out, check=True)
    if j20 is None:
        c20 = os.path.join(work, "k20.csv")
        j20 = os.path.join(work, "k20.json")
        write_kernels_csv(c20, 20000, "y")
        with open(j20, "wb") as out:
            subprocess.run([pc, "diagnose", "--quiet", "--format", "json", c20], stdout=out, check=True)
    t10, rss10, rc10, _ = run_timed([pc, "check", "--quiet", "--expect", "regex:.:launches>=1", j10])
    t20, rss20, rc20, _ = run_timed([pc, "check", "--quiet", "--expect", "regex:.:launches>=1", j20])
    ratio = t20 / t10 if t10 > 0 else float("nan")
    met = rc10 == 0 and rc20 == 0 and ratio < 3
    results.append(("check regex:.:launches>=1 over 10k kernels", t10, rss10, "", ""))
    results.append(("check regex:.:launches>=1 over 20k kernels", t20, rss20, "20k/10k < 3",
                    "ratio %.2f, %s" % (ratio, "met" if met else "NOT MET")))
    return met


def bench_distinct(pc, work, counts, keep, results):
    """4. diagnose and merge of N distinct kernels, for each N of counts;
    the growth from 20k to 40k (each command) at most 2.3x."""
    times = {}
    ok = True
    for n in counts:
        csv_path = os.path.join(work, "distinct%d.csv" % n)
        write_kernels_csv(csv_path, n, "d%d" % n)
        dt, rss, rc, err = run_timed([pc, "diagnose", "--quiet", "--format", "json", csv_path])
        ok &= rc == 0
        times[("diagnose", n)] = LAST_CPU[0]
        results.append(("diagnose %dk distinct kernels (JSON out)" % (n // 1000), dt, rss, "",
                        "CPU %.2f s, exit %d%s" % (LAST_CPU[0], rc, "" if rc == 0 else ": " + err.strip()[-200:])))
        # 5 JSON reports holding the n kernels between them, merged.
        parts = []
        for r in range(5):
            part_csv = os.path.join(work, "distinct%d_%d.csv" % (n, r))
            part_json = os.path.join(work, "distinct%d_%d.json" % (n, r))
            write_kernels_csv(part_csv, n // 5, "d%d_%d" % (n, r))
            subprocess.run([pc, "diagnose", "--quiet", "-o", part_json, part_csv], check=True)
            if not keep:
                os.unlink(part_csv)
            parts.append(part_json)
        dt, rss, rc, err = run_timed([pc, "merge", "--quiet", "--format", "json"] + parts)
        ok &= rc == 0
        times[("merge", n)] = LAST_CPU[0]
        results.append(("merge %dk distinct kernels (5 reports)" % (n // 1000), dt, rss, "",
                        "CPU %.2f s, exit %d%s" % (LAST_CPU[0], rc, "" if rc == 0 else ": " + err.strip()[-200:])))
        if not keep:
            for f in parts + [csv_path]:
                os.unlink(f)
    # The growth is judged on CPU time (user + system), which other work on
    # a shared machine leaves alone; the wall times are printed beside it.
    for cmd in ("diagnose", "merge"):
        if (cmd, 20000) in times and (cmd, 40000) in times and times[(cmd, 20000)] > 0:
            g = times[(cmd, 40000)] / times[(cmd, 20000)]
            met = g <= 2.3
            ok &= met
            results.append(("  %s CPU growth 20k -> 40k" % cmd, times[(cmd, 40000)], float("nan"), "<= 2.3x",
                            "%.2fx, %s" % (g, "met" if met else "NOT MET")))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--perfcheck", default=os.path.join(ROOT, "build/bin/perfcheck"))
    ap.add_argument("--launches", type=int, default=1000000)
    ap.add_argument("--work", default=None, help="folder for the inputs (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the inputs")
    ap.add_argument("--kernels", default="10000,20000,40000,100000",
                    help="distinct kernel counts for part 4, comma-separated")
    ap.add_argument("--sections", default="1,2,3,4", help="the parts to run, comma-separated")
    a = ap.parse_args()
    sections = {int(x) for x in a.sections.split(",") if x.strip()}
    pc = a.perfcheck
    if not os.access(pc, os.X_OK):
        sys.exit("no perfcheck at %s (build it, or give --perfcheck)" % pc)
    work = a.work or tempfile.mkdtemp(prefix="perfcheck-bench-")
    os.makedirs(work, exist_ok=True)
    results = []
    ok = True
    try:
        j20 = None
        if 1 in sections:
            ok &= bench_launches(pc, work, a.launches, a.keep, results)
        if 2 in sections:
            met, j20 = bench_merge(pc, work, results)
            ok &= met
        if 3 in sections:
            ok &= bench_check(pc, work, j20, results)
        if 4 in sections:
            ok &= bench_distinct(pc, work, [int(x) for x in a.kernels.split(",") if x.strip()], a.keep, results)
    finally:
        if not a.keep and not a.work:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print("%-44s %9s %10s  %-14s %s" % ("figure", "seconds", "peak MiB", "goal", "result"))
    for name, dt, rss, goal, res in results:
        print("%-44s %9.2f %10.0f  %-14s %s" % (name, dt, rss, goal, res))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
