#!/usr/bin/env python3
"""verdict_cmp.py KERNEL.json ROTATE.json [NCU_ALL.csv [NCU_NONE.csv]] [--match REGEX]

Issue 21 ("the same verdicts as kernel replay, or a flag where they
differ"): for every kernel signature (name, grid, block, dynamic shared
memory) with a verdict in both perfcheck reports, prints the two verdicts
with their borderline mark and runner-up, counter_spread and the busiest
memory level; a differing pair counts as flagged when either side is
borderline with the other's verdict as its runner-up (rotation's
counter_spread is printed beside it; the library sets no threshold on it).
For the signatures matching --match, the same verdicts are printed too, and ncu's rows from the
CSV exports (--csv --page raw, one per --cache-control mode) are printed
beside them (medians over the launches ncu profiled): the expected verdict
is written from those, never from perfcheck's.
"""
import csv
import gzip
import re
import statistics
import sys


def load(path):
    import json
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


def sig(k):
    return (k.get("demangled") or k.get("name"), tuple(k.get("grid") or ()), tuple(k.get("block") or ()),
            k.get("dynamic_smem_bytes"))


def entries(rep):
    """The entry with counters of each signature (the first one seen)."""
    out = {}
    for k in rep.get("kernels", []):
        d = k.get("diagnosis")
        if not d or not d.get("cause"):
            continue
        out.setdefault(sig(k), k)
    return out


def verdict(k):
    return k["diagnosis"]["cause"]


def mem(k):
    b = (k.get("derived") or {}).get("busiest_memory") or {}
    m = k.get("metrics") or {}
    dram = m.get("dram__throughput.avg.pct_of_peak_sustained_elapsed")
    return "%s %.1f%%, dram %s, waves %s" % (
        b.get("name"), b.get("pct") or float("nan"), "%.1f%%" % dram if dram is not None else "null",
        "%.2f" % k["derived"]["waves_per_sm"] if (k.get("derived") or {}).get("waves_per_sm") is not None else "null")


def ncu_rows(path):
    rows = [r for r in csv.reader(l for l in open(path, errors="replace") if l.startswith('"'))]
    if len(rows) < 3:
        return {}
    hdr = rows[0]
    out = {}
    for r in rows[2:]:
        d = dict(zip(hdr, r))
        key = (d.get("Kernel Name"), d.get("Grid Size"), d.get("Block Size"))
        out.setdefault(key, []).append(d)
    return out


def num(s):
    try:
        return float(s.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def main(argv):
    match = None
    if "--match" in argv:
        i = argv.index("--match")
        match = re.compile(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 2:
        print(__doc__)
        return 2
    a, b = entries(load(argv[0])), entries(load(argv[1]))
    same = flagged = 0
    for s in sorted(set(a) & set(b), key=str):
        ka, kb = a[s], b[s]
        va, vb = verdict(ka), verdict(kb)
        if va == vb:
            same += 1
            if match and match.search(s[0] or ""):
                print("SAME %s grid %s block %s: %s (kernel %s / rotate %s)" % (
                    (s[0] or "?")[:70], list(s[1]), list(s[2]), va, mem(ka), mem(kb)))
            continue
        da, db = ka["diagnosis"], kb["diagnosis"]
        why = []
        if da.get("borderline") and da.get("runner_up") == vb:
            why.append("kernel replay's is borderline, runner-up %s" % vb)
        if db.get("borderline") and db.get("runner_up") == va:
            why.append("rotation's is borderline, runner-up %s" % va)
        flagged += bool(why)
        if kb.get("counter_spread") is not None:
            why.append("rotation's counter_spread %.2f" % kb["counter_spread"])
        line = "DIFFER %s grid %s block %s: kernel %s (%s, borderline %s) / rotate %s (%s, borderline %s); %s" % (
            (s[0] or "?")[:70], list(s[1]), list(s[2]), va, mem(ka), da.get("runner_up"), vb, mem(kb),
            db.get("runner_up"), "; ".join(why) or "no spread")
        print(line + ("" if any("borderline" in w for w in why) else "; NOT FLAGGED as borderline"))
    print("SAME %d of %d signatures with a verdict in both; %d differ, %d of them flagged (borderline naming the "
          "other)" % (same, len(set(a) & set(b)), len(set(a) & set(b)) - same, flagged))
    for path in argv[2:]:
        rows = ncu_rows(path)
        for key, rs in sorted(rows.items(), key=str):
            if match and not match.search(key[0] or ""):
                continue
            cols = ["gpu__time_duration.sum", "launch__waves_per_multiprocessor",
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                    "sm__throughput.avg.pct_of_peak_sustained_elapsed"]
            vals = []
            for c in cols:
                xs = [num(r.get(c)) for r in rs if num(r.get(c)) is not None]
                vals.append("%s %s" % (c.split(".")[0].split("__")[-1] if "pct" not in c else c.split(".")[0],
                                       "%.2f" % statistics.median(xs) if xs else "-"))
            print("NCU %s %s grid %s block %s, %d launches: %s" % (
                path.rsplit("/", 1)[-1], (key[0] or "?")[:70], key[1], key[2], len(rs), "; ".join(vals)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
