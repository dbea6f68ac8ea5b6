#!/usr/bin/env python3
"""validation_score.py: the advice corpus and the held-out production kernels, scored with this build's rules.

    validation_score.py [--perfcheck build/bin/perfcheck] [--part tune|valid|all] [--format text|json]

For each committed GPU run of the corpus (tests/data/advice/*/ with a time*.tsv and an ncu export renamed after
the NVTX ranges, *.nvtx.csv.gz) it runs `perfcheck diagnose` of the export (the offline verdicts) and, where
the run recorded region snapshots (snapshots-*.tgz), `perfcheck report` of them (the in-process verdicts this
build would have given), then scripts/advice_corpus.py over the pairs of the chosen part.  The held-out
production kernels (tests/data/validation/*/, expected.tsv written from ncu's numbers before the rules were
changed) are scored against their expected verdicts, offline and in process, in the part `valid`.

The protocol (kernels/advice/README.md, "Held out"): a rule or threshold is changed on the tune part only; the
change is committed; then the valid part is scored with that commit and the score is what is published, with the
date, GPU and commit.  This script prints the commit it scored (git describe of the tree) and the GPU of each run.

Exit status: 0 when everything could be read and run; 2 on a missing input or a perfcheck that fails.
"""

import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import advice_corpus  # noqa: E402


MANIFESTS = [os.path.join(ROOT, "kernels", "advice", "pairs.tsv"), os.path.join(ROOT, "kernels", "advice", "pairs_py.tsv")]


class Fail(Exception):
    pass


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        raise Fail("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()[-400:]))
    return p.stdout


def commit():
    try:
        return run(["git", "-C", ROOT, "describe", "--always", "--dirty", "--abbrev=12"]).strip()
    except (Fail, OSError):
        return "unknown"


def gpu_of(folder):
    for name in ("env.txt",):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            m = re.search(r"NVIDIA H\d+(?: NVL| SXM| PCIe|[ 0-9A-Za-z]*HBM3e?)?", open(path, encoding="utf-8",
                                                                              errors="replace").read())
            if m:
                return m.group(0)
    return "unknown GPU"


def offline_report(pc, export, tmp):
    out = os.path.join(tmp, os.path.basename(export) + ".json")
    run([pc, "diagnose", "--format", "json", "--output", out, export])
    return out


def export_ranges(export):
    """(range, kernel name, grid, block) of each row of an export renamed after its NVTX ranges."""
    import csv
    import io
    rows = []
    with gzip.open(export, "rt", encoding="utf-8", errors="replace") if export.endswith(".gz") else \
            open(export, encoding="utf-8", errors="replace") as f:
        r = csv.reader(io.StringIO(f.read()))
        header = next(r, None)
        if not header or "Kernel Name" not in header:
            return rows
        ix = {h: i for i, h in enumerate(header)}
        next(r, None)  # units
        for row in r:
            name = row[ix["Kernel Name"]]
            rng, sep, kern = name.partition("/")
            if not sep:
                continue
            try:
                grid = int(float(row[ix["launch__grid_size"]].replace(",", "")))
                block = int(float(row[ix["launch__block_size"]].replace(",", "")))
                smem = float(row[ix["launch__shared_mem_per_block_dynamic"]].replace(",", "")) \
                    if "launch__shared_mem_per_block_dynamic" in ix else None
            except (KeyError, ValueError):
                continue
            rows.append((rng, kern, grid, block, smem))
    return rows


def split_by_range(report_path, export):
    """Offline, rows of one signature profiled under several ranges are one entry (one kernel, one verdict),
    named after one of the ranges: every range that finds no entry of its own gets a copy of its kernel's."""
    rep = advice_corpus.read_report(report_path)
    have = {advice_corpus.pair_key(k) for k in rep["kernels"]}
    extra = []
    for rng, kern, grid, block, smem in export_ranges(export):
        m = advice_corpus.RANGE_RE.search(rng)
        if not m or (m.group(1), m.group(2)) in have:
            continue
        for k in rep["kernels"]:
            if grid_of(k) != grid or grid_of({"grid": k.get("block")}) != block:
                continue
            ks = k.get("dynamic_smem_bytes")
            # ncu's dynamic shared memory column is in Kbyte (1000 or 1024): compare loosely
            if smem is not None and isinstance(ks, (int, float)) and not (abs(ks - smem) < 1 or abs(ks - smem * 1000) < 1000
                                                                        or abs(ks - smem * 1024) < 1024):
                continue
            names = [k.get(f) or "" for f in ("demangled", "name")]
            short = (k.get("name") or "").split("<")[0].split("::")[-1]
            if any(n and n in kern for n in names) or (short and short in kern):
                c = dict(k)
                c["region"] = rng
                extra.append(c)
                have.add((m.group(1), m.group(2)))
                break
    if extra:
        rep = dict(rep)
        rep["kernels"] = rep["kernels"] + extra
    return rep


def inproc_report(pc, tgz, tmp):
    d = tempfile.mkdtemp(dir=tmp)
    with tarfile.open(tgz) as t:
        t.extractall(d)
    snaps = [p for p in glob.glob(os.path.join(d, "*")) if os.path.isdir(p)]
    if len(snaps) != 1:
        raise Fail("%s: expected one folder of snapshots" % tgz)
    out = os.path.join(tmp, os.path.basename(tgz) + ".json")
    run([pc, "report", "--format", "json", "--output", out, snaps[0]])
    return out


def advice_runs():
    """Each committed corpus run: (folder, [pairs files], [timing files], [exports], [snapshot tgzs])."""
    runs = []
    for d in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "advice", "h*"))):
        timing = sorted(glob.glob(os.path.join(d, "time*.tsv")))
        exports = sorted(glob.glob(os.path.join(d, "*.nvtx.csv.gz")))
        if not timing or not exports:
            continue
        pairs = []  # the current manifests: a pair's kind, names and part as they stand now
        runs.append((d, pairs, timing, exports, sorted(glob.glob(os.path.join(d, "snapshots-*.tgz")))))
    return runs


def latest_runs(runs):
    """Per pair, only the latest run that timed it (folders sort by date)."""
    seen, keep = set(), []
    for d, pairs, timing, exports, snaps in reversed(runs):
        ids = set()
        for t in timing:
            ids |= set(advice_corpus.read_timing(t)[0])
        new = ids - seen
        if new:
            keep.append((d, pairs, timing, exports, snaps, new))
            seen |= new
    return list(reversed(keep))


# ---- the production kernels against expected.tsv ------------------------------------------------------------
def read_expected(path):
    rows, header = [], None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if header is None:
            header = f
            continue
        r = dict(zip(header, f))
        r["expected"] = [x.strip() for x in r["expected"].split(",") if x.strip()]
        r["grid"] = int(r["grid"])
        rows.append(r)
    return rows


def op_of(kernel):
    """The corpus op a kernel entry belongs to: its region corpus:valid_ops:<op> (in process), or the range
    its name still carries (offline); None when neither says (then its name and grid decide)."""
    for field in ("region", "name"):
        v = kernel.get(field) or ""
        m = re.search(r"corpus:valid_ops:([A-Za-z0-9_]+)", v)
        if m:
            return m.group(1)
    return None


def grid_of(k):
    g = k.get("grid") or [0, 0, 0]
    n = 1
    for x in g:
        n *= max(1, int(x or 0))
    return n


def score_expected(expected, report):
    kernels = [(op_of(k), k) for k in report["kernels"]]
    out = []
    for e in expected:
        want = re.compile(e["kernel"])
        # Offline, an export's rows are merged by signature and carry no region: the name and the grid decide.
        hits = [k for op, k in kernels if (op is None or op == e["op"]) and grid_of(k) == e["grid"]
                and want.search(k.get("demangled") or k.get("name") or "")]
        if not hits:
            out.append(dict(e, got=None, stall=None, result="no entry"))
            continue
        k = max(hits, key=advice_corpus.weight)
        d = k.get("diagnosis") or {}
        cause, stall = d.get("cause"), advice_corpus.named_stall(k)
        ok = advice_corpus.names_match(e["expected"], cause, stall)
        out.append(dict(e, got=cause, stall=stall, result="right" if ok else "wrong"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfcheck", default=os.path.join(ROOT, "build", "bin", "perfcheck"))
    ap.add_argument("--part", choices=("tune", "valid", "all"), default="valid")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--rules", help="the commit the perfcheck binary was built at, when it is not this tree's")
    args = ap.parse_args(argv)
    result = {"schema": "validation-score/1", "commit": args.rules or commit(), "part": args.part, "corpus": [], "production": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for d, pairs, timing, exports, snaps, ids in latest_runs(advice_runs()):
                modes = [("offline", [split_by_range(offline_report(args.perfcheck, e, tmp), e) for e in exports])]
                if snaps:
                    modes.append(("in process", [advice_corpus.read_report(inproc_report(args.perfcheck, s, tmp))
                                                 for s in snaps]))
                for mode, reports in modes:
                    all_pairs = [p for path in MANIFESTS for p in advice_corpus.read_pairs(path)]
                    pp = [p for p in all_pairs if p["id"] in ids and (args.part == "all"
                                                                        or p.get("part", "tune") == args.part)]
                    if not pp:
                        continue
                    tim = {}
                    for t in timing:
                        tim.update(advice_corpus.read_timing(t)[0])
                    rep = advice_corpus.merge_reports(reports)
                    rows, causes, totals = advice_corpus.score(pp, tim, rep, 1.2, 1.1)
                    result["corpus"].append({"run": os.path.relpath(d, ROOT), "gpu": gpu_of(d), "mode": mode,
                                             "rows": rows, "totals": totals})
            if args.part in ("valid", "all"):
                for d in sorted(glob.glob(os.path.join(ROOT, "tests", "data", "validation", "h*"))):
                    exp = read_expected(os.path.join(d, "expected.tsv"))
                    modes = [("offline", offline_report(args.perfcheck, os.path.join(d, "valid.nvtx.csv.gz"), tmp))]
                    snaps = sorted(glob.glob(os.path.join(d, "snapshots-*.tgz")))
                    if snaps:
                        modes.append(("in process", inproc_report(args.perfcheck, snaps[0], tmp)))
                    for mode, rp in modes:
                        rows = score_expected(exp, advice_corpus.read_report(rp))
                        result["production"].append({"run": os.path.relpath(d, ROOT), "gpu": gpu_of(d), "mode": mode,
                                                     "rows": rows})
    except (Fail, advice_corpus.BadInput, OSError) as e:
        print("validation_score.py: %s" % e, file=sys.stderr)
        return 2
    if args.format == "json":
        json.dump(result, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    w = sys.stdout.write
    w("perfcheck rules at %s, part %s (perfcheck: %s; this tree's scripts and data: %s)\n" % (
        result["commit"], args.part, args.perfcheck, commit()))
    for c in result["corpus"]:
        t = c["totals"]
        w("\n== corpus %s (%s), %s\n" % (c["run"], c["gpu"], c["mode"]))
        for r in c["rows"]:
            w("  %-22s %-14s %-24s %-16s %7s  %s\n" % (r["pair"], r["kind"], r["verdict"] or "-", r["stall"] or "-",
                                                      "-" if r["speedup"] is None else "%.2fx" % r["speedup"],
                                                      r["result"]))
        w("  faults: %d of %d paying changes named; advice followed %d (paid %d), geomean %s (without >= 10x: %s)\n" % (
            t["fault_verdicts_right"], t["fault_changes_paid"], t["advice_followed"], t["advice_followed_paid"],
            advice_corpus.fmt_x(t["geomean_advice_followed"]),
            advice_corpus.fmt_x(t["geomean_advice_followed_no_extremes"])))
        w("  at_roof: %d of %d; counterexamples not advised: %d of %d; probes agree: %d of %d\n" % (
            t["at_roof_called_at_roof"], t["at_roof_entries"], t["counterexamples_not_advised"], t["counterexamples"],
            t["probes_agree"], t["probes"]))
    pairs = [(c["mode"], r) for c in result["corpus"] for r in c["rows"]
             if r["named"] and r["speedup"] is not None and isinstance(r.get("estimated_speedup"), (int, float))]
    if pairs:
        w("\n== the estimated gain of the advice followed against the measured speedup (pairs whose verdict named "
          "the change)\n")
        ratios = []
        for mode, r in pairs:
            ratios.append(r["estimated_speedup"] / r["speedup"])
            w("  %-10s %-22s %-26s estimated %6.2fx  measured %6.2fx\n" % (mode, r["pair"], r["verdict"],
                                                                         r["estimated_speedup"], r["speedup"]))
        ratios.sort()
        w("  estimated over measured: median %.2f, from %.2f to %.2f (%d pairs)\n" % (
            ratios[len(ratios) // 2], ratios[0], ratios[-1], len(ratios)))
    for p in result["production"]:
        rows = p["rows"]
        right = sum(1 for r in rows if r["result"] == "right")
        scored = sum(1 for r in rows if r["result"] != "no entry")
        amb = sum(1 for r in rows if "ambiguous" in r["basis"])
        w("\n== production kernels %s (%s), %s: %d of %d right (%d rows accept several verdicts; %d without an entry)\n"
          % (p["run"], p["gpu"], p["mode"], right, scored, amb, len(rows) - scored))
        for r in rows:
            if r["result"] != "right":
                w("  %-18s %-34s grid %-6d got %s%s, expected %s\n" % (
                    r["op"], r["kernel"][:34], r["grid"], r["got"], ":" + r["stall"] if r["stall"] else "",
                    ",".join(r["expected"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
