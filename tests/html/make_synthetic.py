#!/usr/bin/env python3
"""A synthetic ncu raw export of N kernels, made from a real one.

    make_synthetic.py IN.csv N OUT.csv

Each kernel is a copy of one of IN's launches (in turn) under a new name,
with its durations, DRAM bytes and FLOP counts scaled by fixed factors so the
points spread over the roofline.  It is a stress input for the HTML report
(size, text that must fit, escaping), not a measurement: every tenth kernel
has its FLOP counts left out and every tenth its DRAM bytes (such kernels get
no point, and the legend must say why), some names are long templates and
one holds HTML's special characters.  The result is deterministic.
"""
import csv
import sys


def number(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def scale(row, cols, factor):
    for c in cols:
        v = number(row[c])
        if v is not None:
            row[c] = "%.6f" % (v * factor)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    head, units, data = rows[0], rows[1], rows[2:]
    ix = {name: i for i, name in enumerate(head)}
    time_cols = [i for name, i in ix.items() if name.startswith("gpu__time_duration.")]
    dram_cols = [i for name, i in ix.items() if name.startswith("dram__bytes_")]
    flop_cols = [i for name, i in ix.items() if name.startswith("smsp__sass_thread_inst_executed_op_")]
    long_name = ("cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::MmaMultistage<"
                 "cutlass::gemm::GemmShape<128, 256, 64>, cutlass::half_t, cutlass::layout::RowMajor>, 4>")
    result = []
    for i in range(n):
        base = list(data[i % len(data)])
        short = base[ix["Kernel Name"]].split("(")[0]
        if i % 10 == 3:
            name = "synth%03d_%s" % (i, long_name)
        elif i == 42:
            name = "synth042_escape<&amp;\"'</td><script>alert(1)</script>>"
        else:
            name = "synth%03d_%s" % (i, short)
        base[ix["ID"]] = str(i)
        base[ix["Kernel Name"]] = name + "(const float *, float *, unsigned long)"
        # Bytes and FLOPs grow no faster than the time, so no rate passes
        # the real launch's (which was under the device's roofs).
        t = 0.5 + (i * 37 % 100) / 25.0
        scale(base, time_cols, t)
        scale(base, dram_cols, t * (0.03 + (i * 53 % 100) / 103.0))
        scale(base, flop_cols, t * (0.03 + (i * 29 % 100) / 103.0))
        if i % 10 == 7:
            for c in flop_cols:
                base[c] = ""
        if i % 10 == 9:
            for c in dram_cols:
                base[c] = ""
        result.append(base)
    with open(out, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(head)
        w.writerow(units)
        w.writerows(result)


if __name__ == "__main__":
    main()
