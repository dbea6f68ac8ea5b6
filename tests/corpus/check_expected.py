#!/usr/bin/env python3
"""Diagnoses every export of a recorded corpus and compares each kernel's
verdict with the one written, from ncu's numbers, in the corpus's
expected.tsv (step and cause).  Every kernel the reports hold must have a
row, and every row a kernel.  Exit 0 when all agree, 1 otherwise (each
disagreement printed with the reason the row gives), 2 on a usage error.

    check_expected.py --perfcheck build/bin/perfcheck tests/data/corpus/h200-2026-12-01

With --inprocess EXPORT=REPORT.json (repeatable), it compares instead the
kernels of in-process reports (`perfcheck run --format json` of the same
program) with the rows of that export: kernels without a row are counted,
not errors (a program launches more than ncu's filter profiled), and a
kernel whose verdict is step 1 (not_the_slow_part: in process the wall
clock is known) is compared by the first step 2-5 cause among its findings
when its row expects one of steps 3-5, else counted as step 1 only.
"""
import argparse
import collections
import csv
import gzip
import json
import os
import subprocess
import sys
import tempfile


def read_expected(path):
    rows = []
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(lines, delimiter="\t"):
        r["step"] = int(r["step"])
        rows.append(r)
    return rows


def key(export, name, grid, block, smem):
    return (export, name, grid, block, str(smem))


def diagnose(perfcheck, gz, tmp):
    csv_path = os.path.join(tmp, os.path.basename(gz)[:-3])
    with gzip.open(gz, "rb") as src, open(csv_path, "wb") as dst:
        dst.write(src.read())
    out = subprocess.run([perfcheck, "diagnose", "--format", "json", "--quiet", csv_path],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if out.returncode != 0:
        sys.exit("%s: perfcheck diagnose exited %d: %s" % (gz, out.returncode, out.stderr.decode()[:400]))
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--perfcheck", required=True)
    ap.add_argument("--inprocess", action="append", default=[], metavar="EXPORT=REPORT.json")
    ap.add_argument("corpus")
    a = ap.parse_args()
    if a.inprocess:
        return inprocess(a)
    expected = read_expected(os.path.join(a.corpus, "expected.tsv"))
    want = {}
    for r in expected:
        k = key(r["export"], r["kernel"], r["grid"], r["block"], r["smem"])
        if k in want:
            sys.exit("expected.tsv: row repeated: %s" % (k,))
        want[k] = r
    got = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        for export in sorted({r["export"] for r in expected}):
            gz = os.path.join(a.corpus, export + ".csv.gz")
            report = diagnose(a.perfcheck, gz, tmp)
            for kern in report["kernels"]:
                k = key(export, kern["display_name"], "x".join(map(str, kern["grid"])),
                        "x".join(map(str, kern["block"])), kern["dynamic_smem_bytes"])
                got[k].append(kern["diagnosis"])
    bad = 0
    for k, r in want.items():
        if k not in got:
            print("MISSING  %s %s %s: no such kernel in the report" % (k[0], k[1], k[2]))
            bad += 1
            continue
        for dg in got[k]:
            if dg["cause"] != r["cause"] or dg["step"] != r["step"]:
                print("DIFFERS  %s %s %s: step %d %s, expected step %d %s (%s)\n         perfcheck: %s"
                      % (k[0], k[1], k[2], dg["step"], dg["cause"], r["step"], r["cause"], r["reason"],
                         dg.get("advice", "")))
                bad += 1
    for k in got:
        if k not in want:
            print("UNLISTED %s %s %s: %d entr(y/ies) without an expected row" % (k[0], k[1], k[2], len(got[k])))
            bad += 1
    n = sum(len(v) for k, v in got.items() if k in want)
    causes = collections.Counter(r["cause"] for r in expected)
    print("%d of %d kernel entries (%d rows, %d exports) as expected; causes: %s"
          % (n - min(bad, n), n, len(want), len({r["export"] for r in expected}),
             ", ".join("%s %d" % c for c in sorted(causes.items()))))
    return 1 if bad else 0


def inprocess(a):
    expected = read_expected(os.path.join(a.corpus, "expected.tsv"))
    want = {key(r["export"], r["kernel"], r["grid"], r["block"], r["smem"]): r for r in expected}
    agree = differ = unlisted = step1 = 0
    for item in a.inprocess:
        export, _, path = item.partition("=")
        with open(path) as f:
            report = json.load(f)
        for kern in report["kernels"]:
            k = key(export, kern["display_name"], "x".join(map(str, kern["grid"])),
                    "x".join(map(str, kern["block"])), kern["dynamic_smem_bytes"])
            r = want.get(k)
            if r is None:
                unlisted += 1
                continue
            dg = kern["diagnosis"]
            cause, step = dg["cause"], dg["step"]
            if step == 1:
                hits = [f for f in dg.get("findings", []) if f["step"] >= 3 and f["cause"] != "not_assessed"]
                if r["step"] >= 3 and hits:
                    cause, step = hits[0]["cause"], hits[0]["step"]
                else:
                    step1 += 1
                    continue
            if cause == r["cause"] and step == r["step"]:
                agree += 1
            else:
                differ += 1
                print("IN-PROCESS DIFFERS %s %s %s [%s]: step %d %s, ncu row step %d %s (%s)"
                      % (k[0], k[1], k[2], kern.get("region", ""), step, cause, r["step"], r["cause"], r["reason"]))
    print("in process: %d kernel entries agree with the ncu rows, %d differ, %d not the slow part (step 1), "
          "%d without a row" % (agree, differ, step1, unlisted))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
