#!/usr/bin/env python3
"""An in-process-shaped report, made from a report of an ncu export.

    make_inprocess.py IN.json OUT.json

The HTML page of an in-process report has what an export's lacks: regions
with a wall clock (the timeline bar, the region column, step 1 assessed per
region and per kernel).  No in-process report is committed (they come from
the GPU machine), so this puts IN's kernels into one region "step" whose
wall clock is 1.2 ms with 0.2 ms of copies: the kernels' summed time over
it decides step 1 (from_timeline shares).  Run the result through
`perfcheck merge` so the checklist walks it again.  A test input, not a
measurement.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        r = json.load(f)
    busy = sum(k.get("total_ns") or 0 for k in r["kernels"])
    if busy <= 0:
        sys.exit("make_inprocess.py: no kernel time in %s" % sys.argv[1])
    wall = max(1.2e6, busy / 0.65)
    r["source"] = "in-process"
    r["step1_assessed"] = True
    r["regions"] = [{
        "name": "step", "parent": None, "depth": 0, "wall_ns": wall, "kernel_ns": busy, "kernel_sum_ns": busy,
        "kernel_span_ns": busy * 1.1, "gpu_idle_ns": busy * 0.1, "median_kernel_ns": busy / len(r["kernels"]),
        "short_kernel_ns": 0, "memcpy_ns": 0.2e6, "memset_ns": 0, "profiling_ns": None,
        "launches": sum(k.get("launches") or 0 for k in r["kernels"]), "dropped_records": 0, "kernel_share": None,
        "diagnosis": None}]
    for k in r["kernels"]:
        k["region"] = "step"
    with open(sys.argv[2], "w") as f:
        json.dump(r, f, indent=1)


if __name__ == "__main__":
    main()
