#!/usr/bin/env python3
"""A planted change for perfcheck diff: one kernel of a real ncu export made
uncoalesced, as a strided index would make it.

    plant_uncoalesced.py IN.csv KERNEL OUT.csv

In the launches of KERNEL (the name before its parameter list) the global
load and store sectors are multiplied by 8 (4 sectors per request become 32,
one per lane, as in mysteryA), the duration by 3, and the memory-side
throughput (gpu__compute_memory_throughput: L1 and L2 now move 8 times the
sectors) rises to 92% of peak; DRAM bytes stay (L2 still catches every line
once) and DRAM throughput falls with the longer time.  Everything else, and
every other kernel, is the real export's.  This is a test input for the
diff, not a measurement: the numbers an uncoalesced build really gives come
from the GPU machine.
"""
import csv
import sys


def number(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, kernel, out = sys.argv[1:]
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    ix = {name: i for i, name in enumerate(head)}
    planted = 0
    for row in rows[2:]:
        if row[ix["Kernel Name"]].split("(")[0].split(" ")[-1] != kernel:
            continue
        planted += 1
        for name, i in ix.items():
            v = number(row[i])
            if v is None:
                continue
            if name.startswith("l1tex__t_sectors_pipe_lsu_mem_global_op_"):
                row[i] = "%.6f" % (v * 8)
            elif name.startswith("gpu__time_duration."):
                row[i] = "%.6f" % (v * 3)
            elif name.startswith("gpu__compute_memory_throughput.") and "pct" in name:
                row[i] = "92.000000"
            elif name.startswith("dram__throughput.") and "pct" in name:
                row[i] = "%.6f" % (v / 3)
    if not planted:
        sys.exit("plant_uncoalesced.py: no launch of %s in %s" % (kernel, src))
    with open(out, "w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)


if __name__ == "__main__":
    main()
