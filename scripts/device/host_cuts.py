#!/usr/bin/env python3
"""host_cuts.py SNAPSHOT_DIR [REPORT.json]: the host time cut from regions.

A session that perfcheck closes inside one of the program's calls that
profiled nothing (a launch that could not join rotation's session, a stream
capture's begin, a nested region's end) is cut from its region's clock: the
region snapshot (PERFCHECK_SNAPSHOT_DIR) lists each such close as a profiled
entry of no signature and correlation 0.  Prints, per snapshot, its profiled
entries, the cuts among them and their total; then each region of the report
with its wall, profiling and kernel time.  Snapshots may be gzipped.
"""
import glob
import gzip
import json
import os
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    snaps = sorted(glob.glob(os.path.join(argv[1], "*.json")) + glob.glob(os.path.join(argv[1], "*.json.gz")))
    if not snaps:
        print("no snapshot in %s" % argv[1])
    for f in snaps:
        s = load(f)
        prof = s.get("profiled") or []
        cuts = [p for p in prof if p.get("signature") is None and p.get("correlation") == 0]
        ms = sum(p["exit"] - p["enter"] for p in cuts
                 if isinstance(p.get("exit"), (int, float)) and isinstance(p.get("enter"), (int, float))) / 1e6
        print("snapshot %s: %d profiled entries, %d host cut(s), %.2f ms" % (os.path.basename(f), len(prof), len(cuts), ms))
    if len(argv) == 3:
        try:
            r = load(argv[2])
        except (OSError, ValueError) as e:
            print("no report: %s" % e)
            return 1
        for g in r.get("regions", []):
            print("region %s: wall_ms %.2f profiling_ms %.2f kernel_ms %.2f" % (
                g.get("name"), (g.get("wall_ns") or 0) / 1e6, (g.get("profiling_ns") or 0) / 1e6,
                (g.get("kernel_ns") or 0) / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
