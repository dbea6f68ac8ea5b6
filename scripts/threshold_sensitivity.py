#!/usr/bin/env python3
"""How many verdicts move when one threshold moves (thresholds that do not
move under a nudge).

    threshold_sensitivity.py --perfcheck build/bin/perfcheck [--jobs N] [--markdown] [EXPORT ...]

Each threshold of docs/checklist.md's table (the code's, kept equal by
unit.checklist_thresholds) is nudged down and up by its table's nudge (5 points
of a percentage, 10% of a ratio, share or count), one at a time, through
PERFCHECK_THRESHOLDS; every export (default: the committed ncu exports,
tests/data/corpus/*/*.csv.gz and tests/data/h200/*.csv) is diagnosed again
and each kernel's verdict compared with the verdict at the built-in values.
Printed per nudge: how many verdicts changed, and how many of those changed
to a cause other than the runner-up the baseline named (a change that a
borderline mark did not announce).  The goal: no single nudge moves more than
5% of the verdicts unannounced.  A benchmark, not a test: it prints figures.
Exit 0, or 2 when an export cannot be diagnosed.
"""
import argparse
import concurrent.futures
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def thresholds(path):
    """[(key, value, nudge)] from docs/checklist.md's table."""
    out = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    body = text[text.index("<!-- BEGIN THRESHOLDS -->"):text.index("<!-- END THRESHOLDS -->")]
    for m in re.finditer(r"^\| `([a-z0-9_]+)` \| ([^|]+) \| ([^|]+) \|", body, re.M):
        out.append((m.group(1), float(m.group(2)), m.group(3).strip()))
    if not out:
        sys.exit("threshold_sensitivity: no thresholds table in %s" % path)
    return out


def nudged(value, nudge, direction):
    if nudge.startswith("+-5"):
        return value + 5 * direction
    if nudge.startswith("+-10"):
        return value * (1 + 0.1 * direction)
    return None


def plain(path, tmp):
    """A path perfcheck can read: gzip exports are unpacked once."""
    if not path.endswith(".gz"):
        return path
    out = os.path.join(tmp, os.path.basename(path)[:-3].replace(os.sep, "_"))
    if not os.path.exists(out):
        with gzip.open(path, "rb") as src, open(out, "wb") as dst:
            dst.write(src.read())
    return out


def verdicts(perfcheck, path, override):
    env = dict(os.environ)
    env.pop("PERFCHECK_THRESHOLDS", None)
    if override:
        env["PERFCHECK_THRESHOLDS"] = override
    p = subprocess.run([perfcheck, "diagnose", "--format", "json", "--quiet", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, check=False)
    if p.returncode != 0:
        raise RuntimeError("%s: perfcheck diagnose exited %d: %s" % (path, p.returncode, p.stderr.decode()[:300]))
    out = []
    for i, k in enumerate(json.loads(p.stdout)["kernels"]):
        d = k["diagnosis"]
        out.append((i, d["cause"], d.get("runner_up")))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--perfcheck", required=True)
    ap.add_argument("--table", default=os.path.join(ROOT, "docs", "checklist.md"),
                    help="the Markdown file holding the thresholds table (default: docs/checklist.md)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    ap.add_argument("exports", nargs="*")
    a = ap.parse_args(argv)
    exports = a.exports or sorted(glob.glob(os.path.join(ROOT, "tests/data/corpus/*/*.csv.gz")) +
                                  [p for p in glob.glob(os.path.join(ROOT, "tests/data/h200/*.csv"))
                                   if ".base-units." not in p])
    table = thresholds(a.table)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [plain(p, tmp) for p in exports]
        jobs = [(None, 0, None)] + [(k, d, nudged(v, n, d)) for k, v, n in table for d in (-1, 1)
                                      if nudged(v, n, d) is not None]
        results = {}

        def run(job):
            key, d, value = job
            override = None if key is None else "%s=%r" % (key, value)
            return job, [verdicts(a.perfcheck, p, override) for p in paths]

        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
                for job, got in pool.map(run, jobs):
                    results[job] = got
        except RuntimeError as e:
            print("threshold_sensitivity: %s" % e, file=sys.stderr)
            return 2
    base = results[(None, 0, None)]
    total = sum(len(v) for v in base)
    rows = []
    for job in jobs[1:]:
        key, d, value = job
        changed = unannounced = 0
        for b_file, n_file in zip(base, results[job]):
            for (_, bc, br), (_, nc, _) in zip(b_file, n_file):
                if nc != bc:
                    changed += 1
                    if nc != br:
                        unannounced += 1
        rows.append((key, d, value, changed, unannounced))
    worst = max(rows, key=lambda r: r[4]) if rows else None
    print("threshold sensitivity: %d kernel verdicts in %d exports; each threshold nudged by its table's nudge, "
          "one at a time" % (total, len(exports)))
    if a.markdown:
        print("\n| threshold | nudge | value | verdicts changed | % | of them not the announced runner-up | % |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for key, d, value, ch, un in rows:
            print("| `%s` | %s | %g | %d | %.1f | %d | %.1f |" % (key, "down" if d < 0 else "up", value, ch,
                                                                100.0 * ch / total, un, 100.0 * un / total))
    else:
        print("%-40s %-5s %10s %8s %6s %12s %6s" % ("threshold", "nudge", "value", "changed", "%", "unannounced", "%"))
        for key, d, value, ch, un in rows:
            print("%-40s %-5s %10g %8d %6.1f %12d %6.1f" % (key, "down" if d < 0 else "up", value, ch,
                                                            100.0 * ch / total, un, 100.0 * un / total))
    if worst:
        print("largest unannounced change: %s %s, %d of %d verdicts (%.1f%%; goal at most 5%%); largest change "
              "at all: %d (%.1f%%)" % (worst[0], "down" if worst[1] < 0 else "up", worst[4], total,
                                       100.0 * worst[4] / total, max(r[3] for r in rows),
                                       100.0 * max(r[3] for r in rows) / total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
