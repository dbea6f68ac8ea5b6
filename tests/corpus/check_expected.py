#!/usr/bin/env python3
"""Diagnoses every export of a recorded corpus and compares each kernel's
verdict with the one written, from ncu's numbers, in the corpus's
expected.tsv (step and cause; a borderline row's `accept` cause is accepted
too, and a latency_bound row's `stall` must be the dominant stall perfcheck
names).  Every kernel the reports hold must have a row, and every row a
kernel.  Exit 0 when all agree, 1 otherwise (each disagreement printed with
the reason the row gives), 2 on a usage error.

    check_expected.py --perfcheck build/bin/perfcheck tests/data/corpus/h200-2026-12-01

With --inprocess EXPORT=REPORT.json (repeatable), it compares instead the
kernels of in-process reports (`perfcheck run --format json` of the same
program) with the rows of that export: kernels without a row are counted,
not errors (a program launches more than ncu's filter profiled).  Every
kernel keeps its own verdict from steps 2-5 in process (step 1 is the
region's), so every kernel with a row is compared.
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
        r["accept"] = set() if r.get("accept", "-") in ("-", "", None) else set(r["accept"].split(","))
        r["stall"] = r.get("stall") or "-"
        rows.append(r)
    return rows


def agrees(dg, r):
    """(True, "") when a diagnosis is the row's verdict (or its accepted
    runner-up, for a borderline row), else (False, why)."""
    cause = dg["cause"]
    if cause in r["accept"]:
        return True, ""
    if cause != r["cause"] or dg["step"] != r["step"]:
        return False, "step %d %s, expected step %d %s" % (dg["step"], cause, r["step"], r["cause"])
    if cause == "latency_bound" and r["stall"] != "-":
        st = dg.get("stall") or {}
        got = st.get("reason") if st.get("dominant") else "mixed"
        if r["stall"] != "mixed" and got != r["stall"]:
            return False, "latency_bound on %s, expected the dominant stall %s" % (got, r["stall"])
    return True, ""


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
            ok, why = agrees(dg, r)
            if not ok:
                print("DIFFERS  %s %s %s: %s (%s)\n         perfcheck: %s"
                      % (k[0], k[1], k[2], why, r["reason"], dg.get("advice", "")))
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
    agree = differ = unlisted = 0
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
            ok, why = agrees(dg, r)
            if ok:
                agree += 1
            else:
                differ += 1
                print("IN-PROCESS DIFFERS %s %s %s [%s]: %s (%s)"
                      % (k[0], k[1], k[2], kern.get("region", ""), why, r["reason"]))
    print("in process: %d kernel entries agree with the ncu rows, %d differ, %d without a row"
          % (agree, differ, unlisted))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
