#!/usr/bin/env python3
"""threshold_evidence.py: the measured values behind the thresholds docs/checklist.md marks "chosen here".

    threshold_evidence.py [--perfcheck build/bin/perfcheck]

Reads every committed H200 ncu export of the advice corpus and the production corpus through `perfcheck
diagnose --format json` (the values perfcheck derives, as the rules read them) and prints, for each threshold
chosen here, the values on either side of it: the kernels whose verdict the threshold decides and what their
timed change (or ncu's numbers) says of them.  Exit 2 when an input or perfcheck is missing.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def diagnose(pc, path):
    p = subprocess.run([pc, "diagnose", "--format", "json", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True)
    if p.returncode != 0:
        raise SystemExit("threshold_evidence.py: perfcheck diagnose %s failed (%d)" % (path, p.returncode))
    return json.loads(p.stdout)["kernels"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--perfcheck", default=os.path.join(ROOT, "build", "bin", "perfcheck"))
    args = ap.parse_args()
    exports = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "advice", "h200-2026-12-02-c", "advice.nvtx.csv.gz"))
                     + glob.glob(os.path.join(ROOT, "tests", "data", "corpus", "h200-2026-12-01", "*.csv.gz")))
    if not exports or not os.path.exists(args.perfcheck):
        print("threshold_evidence.py: no exports or no perfcheck", file=sys.stderr)
        return 2
    rows = []
    for e in exports:
        for k in diagnose(args.perfcheck, e):
            rows.append((os.path.basename(e), k))
    over = []
    for src, k in rows:
        for m, v in (k.get("metrics") or {}).items():
            if isinstance(v, (int, float)) and "pct_of_peak" in m and 100 < v < 1000:
                over.append((v, src, k.get("display_name"), m))
    over.sort()
    print("throughput_pct_trusted_max: percentages of peak above 100 in the exports (value, export, kernel, metric)")
    for v, src, n, m in over:
        print("  %7.2f  %-24s %-40s %s" % (v, src, (n or "")[:40], m))
    print("\nsectors_per_request_slack: load/store sectors per request between 4 and 5, with bytes used per sector")
    for src, k in rows:
        d = k.get("derived") or {}
        for s in ("ld", "st"):
            spr, bps = d.get("sectors_per_request_" + s), d.get("bytes_per_sector_" + s)
            if isinstance(spr, (int, float)) and 4.0 < spr < 5.0:
                print("  %s %.3f (bytes/sector %s)  %-24s %s" % (s, spr, bps, src, (k.get("display_name") or "")[:50]))
    print("\ncoalescing_traffic_share_min: uncoalesced accesses (bytes per sector at most 16) and their share of the"
          " kernel's sectors")
    for src, k in rows:
        d, m = k.get("derived") or {}, k.get("metrics") or {}
        ld, st = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
        l2 = m.get("lts__t_sectors.sum")
        if not all(isinstance(x, (int, float)) for x in (ld, st)):
            continue
        allsec = max(ld + st, l2 if isinstance(l2, (int, float)) else 0)
        for s, sec in (("ld", ld), ("st", st)):
            bps = d.get("bytes_per_sector_" + s)
            if isinstance(bps, (int, float)) and 0 < bps <= 16 and allsec > 0:
                print("  %s share %6.3f%%  bytes/sector %5.1f  verdict %-26s %-24s %s" % (
                    s, 100.0 * sec / allsec, bps, (k.get("diagnosis") or {}).get("cause"), src,
                    (k.get("display_name") or "")[:40]))
    print("\nlocal_share_max and atomic_share_max: the shares perfcheck derives, where not zero")
    for src, k in rows:
        d = k.get("derived") or {}
        for key in ("local_share", "atomic_share"):
            v = d.get(key)
            if isinstance(v, (int, float)) and v > 0.0005:
                print("  %-12s %6.3f  verdict %-26s %-24s %s" % (key, v, (k.get("diagnosis") or {}).get("cause"), src,
                                                              (k.get("display_name") or "")[:40]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
