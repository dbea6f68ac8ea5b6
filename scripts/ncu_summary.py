#!/usr/bin/env python3
"""One line per kernel of an Nsight Compute raw CSV export, from ncu's own
numbers: what the expected verdicts of the corpus are written from.

    ncu_summary.py [--nvtx FILE] [--format text|csv|json] EXPORT.csv [...]

EXPORT.csv is `ncu --csv --page raw` output (plain or gzip) (or `ncu --import R.ncu-rep
--csv --page raw`), in ncu's display units or `--print-units base`: values
are converted to base units (ns, bytes) from the units row either way.

Per kernel row:
  id, op      the row's ID and its NVTX range (the op), when known
  kernel      a short display name (namespaces, return type, parameter list
              and long template arguments dropped)
  dur_us      gpu__time_duration.sum
  sm_pct, mem_pct
              SOL: sm__throughput / gpu__compute_memory_throughput
              (.avg.pct_of_peak_sustained_elapsed)
  dram_pct, l2_pct, l1_pct
              dram__ / lts__ / l1tex__throughput (.avg.pct_of_peak_sustained_elapsed)
  pipe, pipe_pct
              the busiest pipe: the highest sm__inst_executed_pipe_* or
              sm__pipe_*_cycles_active .avg.pct_of_peak_sustained_active
              column ("fma" from instructions, "fma:cycles" from cycles active)
  bps_ld, bps_st, bps_ldgsts
              bytes used per fetched sector (32 = all):
              smsp__sass_average_data_bytes_per_sector_mem_global_op_{ld,st,ldgsts}.ratio
  spr_ld, spr_st
              sectors per request: l1tex__t_sectors / l1tex__t_requests
              _pipe_lsu_mem_global_op_{ld,st}.sum (no value when there are no requests)
  tma_rd_mb, tma_wr_mb
              l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum,
              l1tex__m_l1tex2xbar_write_bytes_pipe_tma.sum, in MB
  thr_inst    smsp__average_thread_inst_executed_per_inst_executed.ratio
  issue, eligible, active_warps
              smsp__issue_active / smsp__warps_eligible / smsp__warps_active
              (.avg.per_cycle_active): issue-slot use and warps per scheduler
  stalls      the three largest smsp__average_warps_issue_stalled_<reason>
              _per_issue_active.ratio (selected and not_selected are not stalls)
  occ_ach, occ_theo
              sm__warps_active.avg.pct_of_peak_sustained_active,
              sm__maximum_warps_per_active_cycle_pct
  waves, block, grid, regs
              launch__waves_per_multiprocessor, launch__block_size (or the
              Block Size column), launch__grid_size, launch__registers_per_thread
A value the export does not have is '-' (text, csv) or null (json), never 0.

The NVTX op of a row comes from, in order: an NVTX column of the export (a
header containing "nvtx"), or a second export of the same report made with
`--print-nvtx-rename kernel` (--nvtx FILE, or EXPORT.nvtx.csv next to
EXPORT.csv), joined on ID: there the kernel name column holds the innermost
push/pop range.  Exit status: 0, or 2 when a file cannot be read or has no
kernel rows.
"""

import argparse
import csv
import gzip
import signal
import json
import math
import os
import re
import shutil
import subprocess
import sys

TIME = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
STALL = re.compile(r"^smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio$")
# Not stalls (seed 004, Decision 3: "selected and not_selected are not stalls").
NOT_STALLS = ("selected", "not_selected")
PIPE = re.compile(r"^sm__(?:inst_executed_pipe_(\w+?)|pipe_(\w+?)_cycles_active)\.avg\.pct_of_peak_sustained_active$")


def scale_of(unit):
    """Factor from a unit of the units row to its base unit."""
    u = (unit or "").strip()
    if u in TIME:
        return TIME[u]
    head = u.split("/", 1)[0]
    if len(head) > 1 and head[0] in PREFIX and head[1].islower():
        return PREFIX[head[0]]
    return 1.0


def number(text, unit=""):
    """A float in base units, or None for an empty / n/a cell or text."""
    t = (text or "").strip().replace(",", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v * scale_of(unit) if math.isfinite(v) else None


def read_export(path):
    """(header, units, rows) of a raw CSV export; rows are lists of cells."""
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gz else open
    with opener(path, "rt", newline="", encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's ==PROF== lines, if any, start otherwise
    table = list(csv.reader(lines))
    if not table or "ID" not in table[0]:
        raise ValueError("%s: no ncu raw CSV header (a row with an ID column)" % path)
    header, rest = table[0], table[1:]
    idc = header.index("ID")
    units = [""] * len(header)
    if rest and not rest[0][idc].strip().isdigit():
        units, rest = rest[0], rest[1:]
    rows = [r for r in rest if len(r) == len(header) and r[idc].strip().isdigit()]
    return header, units, rows


# ---- short display names -------------------------------------------------------------------


def demangle(name):
    if name.startswith("_Z") and shutil.which("c++filt"):
        try:
            return subprocess.run(["c++filt", name], capture_output=True, text=True, timeout=10).stdout.strip() or name
        except (OSError, subprocess.SubprocessError):
            return name
    return name


def split_top(s, sep=","):
    """Splits s at sep outside <> and ()."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def strip_params(s):
    """Drops a trailing parameter list "(...)" that sits outside template brackets."""
    if not s.endswith(")"):
        return s
    depth = 0
    for i in range(len(s) - 1, -1, -1):
        if s[i] == ")":
            depth += 1
        elif s[i] == "(":
            depth -= 1
            if depth == 0:
                head = s[:i]
                if head.count("<") == head.count(">"):
                    return head
                return s
    return s


def collapse_templates(a):
    """'policy_hub<float, long>::Policy900' -> 'policy_hub<...>::Policy900'."""
    out, depth = "", 0
    for ch in a:
        if ch == "<":
            depth += 1
            if depth == 1:
                out += "<..."
            continue
        if ch == ">":
            depth -= 1
            if depth == 0:
                out += ">"
            continue
        if depth == 0:
            out += ch
    return out


def short_arg(a, width):
    if len(a) <= width or "<" not in a:
        return a
    return collapse_templates(a)


def short_name(full, width=72):
    s = demangle(full.strip())
    s = re.sub(r"^void\s+", "", s)
    s = strip_params(s)
    # lambdas: f(args)::[lambda(...) (instance 1)]::operator ()() const::[...] -> f lambda
    s = re.sub(r"::\[lambda\([^()]*\) \(instance \d+\)\]", " lambda", s)
    s = re.sub(r" lambda::operator \(\)\([^()]*\)(?: const)?", " lambda", s)
    s = re.sub(r"(?: lambda)+", " lambda", s)
    s = re.sub(r"(\w>*)\([^()]*\) lambda", r"\1 lambda", s)
    s = s.replace("(anonymous namespace)::", "")
    s = re.sub(r"\b[A-Za-z_]\w*::", "", s)
    s = re.sub(r"([<,] ?)void ", r"\1", s)
    i = s.find("<")
    if i > 0 and s.endswith(">"):
        args = [short_arg(a, 40) for a in split_top(s[i + 1 : -1])]
        args = [a for a in args if not a.startswith("array<char")]  # PyTorch's pointer array
        s = s[:i] + "<" + ", ".join(args) + ">"
    if len(s) > width:
        s = s[: width - 4] + "...>" if "<" in s[: width - 4] else s[: width - 3] + "..."
    return s


# ---- one row ---------------------------------------------------------------------------------


class Row:
    def __init__(self, header, units, cells):
        self.h = {name: i for i, name in enumerate(header)}
        self.units, self.cells = units, cells

    def text(self, name):
        i = self.h.get(name)
        return self.cells[i].strip() if i is not None else None

    def num(self, *names):
        for n in names:
            i = self.h.get(n)
            if i is not None:
                v = number(self.cells[i], self.units[i])
                if v is not None:
                    return v
        return None

    def ratio(self, a, b):
        x, y = self.num(a), self.num(b)
        return x / y if x is not None and y else None


def nvtx_of_row(row, header):
    for name in header:
        if "nvtx" in name.lower():
            v = row.text(name)
            if v:
                return v
    return None


def op_name(nvtx):
    """'corpus:torch_ops:add_f32' (maybe after a domain prefix) -> 'add_f32'."""
    if not nvtx:
        return None
    m = re.search(r"corpus:[^:/]+:([^/\s]+)", nvtx)
    return m.group(1) if m else nvtx


def summarize(path, nvtx_path=None):
    header, units, rows = read_export(path)
    renamed = {}
    if nvtx_path is None:
        guess = re.sub(r"\.csv$", "", path) + ".nvtx.csv"
        nvtx_path = guess if os.path.exists(guess) else None
    if nvtx_path:
        h2, _, rows2 = read_export(nvtx_path)
        k2, i2 = h2.index("Kernel Name"), h2.index("ID")
        renamed = {r[i2].strip(): r[k2].strip() for r in rows2}
    out = []
    for cells in rows:
        r = Row(header, units, cells)
        kid = r.text("ID")
        kernel = r.text("Kernel Name") or r.text("Function Name") or ""
        nv = nvtx_of_row(r, header)
        if not nv and kid in renamed and renamed[kid] != kernel:
            nv = renamed[kid]
        best, best_pct = None, None
        for name in header:
            m = PIPE.match(name)
            if m:
                v = r.num(name)
                if v is not None and (best_pct is None or v > best_pct):
                    best, best_pct = (m.group(1) or (m.group(2) + ":cycles")), v
        stalls = []
        for name in header:
            m = STALL.match(name)
            if m and m.group(1) not in NOT_STALLS:
                v = r.num(name)
                if v is not None:
                    stalls.append((v, m.group(1)))
        stalls.sort(reverse=True)
        block = r.num("launch__block_size")
        if block is None and r.text("Block Size"):
            dims = [int(x) for x in re.findall(r"\d+", r.text("Block Size"))]
            block = float(math.prod(dims)) if dims else None
        tma_rd, tma_wr = r.num("l1tex__m_xbar2l1tex_read_bytes_pipe_tma.sum"), r.num(
            "l1tex__m_l1tex2xbar_write_bytes_pipe_tma.sum")
        dur = r.num("gpu__time_duration.sum")
        out.append({
            "file": os.path.basename(path),
            "id": int(kid),
            "nvtx": nv,
            "op": op_name(nv),
            "kernel": kernel,
            "name": short_name(kernel),
            "dur_us": dur / 1e3 if dur is not None else None,
            "sm_pct": r.num("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            "mem_pct": r.num("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
            "dram_pct": r.num("dram__throughput.avg.pct_of_peak_sustained_elapsed",
                              "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"),
            "l2_pct": r.num("lts__throughput.avg.pct_of_peak_sustained_elapsed"),
            "l1_pct": r.num("l1tex__throughput.avg.pct_of_peak_sustained_elapsed"),
            "pipe": best,
            "pipe_pct": best_pct,
            "bps_ld": r.num("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"),
            "bps_st": r.num("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"),
            "bps_ldgsts": r.num("smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts.ratio"),
            "spr_ld": r.ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                              "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            "spr_st": r.ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                              "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
            "ldgsts_inst": r.num("smsp__sass_inst_executed_op_ldgsts.sum"),
            "tma_rd_mb": tma_rd / 1e6 if tma_rd is not None else None,
            "tma_wr_mb": tma_wr / 1e6 if tma_wr is not None else None,
            "thr_inst": r.num("smsp__average_thread_inst_executed_per_inst_executed.ratio"),
            "occ_ach": r.num("sm__warps_active.avg.pct_of_peak_sustained_active"),
            "occ_theo": r.num("sm__maximum_warps_per_active_cycle_pct"),
            "waves": r.num("launch__waves_per_multiprocessor"),
            "block": block,
            "grid": r.num("launch__grid_size"),
            "regs": r.num("launch__registers_per_thread"),
            "issue": r.num("smsp__issue_active.avg.per_cycle_active"),
            "eligible": r.num("smsp__warps_eligible.avg.per_cycle_active"),
            "active_warps": r.num("smsp__warps_active.avg.per_cycle_active"),
            "not_selected": r.num("smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"),
            "stalls": " ".join("%s:%.2f" % (n, v) for v, n in stalls[:3]) if stalls else None,
        })
    return out


# ---- output ----------------------------------------------------------------------------------

COLUMNS = [  # key, heading, width, format
    ("id", "id", 4, "%d"), ("op", "op", 18, "%s"), ("name", "kernel", 44, "%s"), ("dur_us", "dur us", 9, "%.1f"),
    ("sm_pct", "SM%", 5, "%.1f"), ("mem_pct", "Mem%", 5, "%.1f"), ("dram_pct", "DRAM%", 5, "%.1f"),
    ("l2_pct", "L2%", 5, "%.1f"), ("l1_pct", "L1%", 5, "%.1f"), ("pipe", "busiest pipe", 20, "%s"),
    ("pipe_pct", "pipe%", 5, "%.1f"), ("bps_ld", "B/s ld", 6, "%.1f"), ("bps_st", "B/s st", 6, "%.1f"),
    ("bps_ldgsts", "B/s as", 6, "%.1f"), ("spr_ld", "s/r ld", 6, "%.2f"), ("spr_st", "s/r st", 6, "%.2f"),
    ("tma_rd_mb", "TMA rdMB", 8, "%.1f"), ("tma_wr_mb", "TMA wrMB", 8, "%.1f"), ("thr_inst", "thr/i", 5, "%.1f"),
    ("occ_ach", "occ%", 5, "%.1f"), ("occ_theo", "theo%", 5, "%.1f"), ("waves", "waves", 7, "%.2f"),
    ("block", "block", 5, "%d"), ("issue", "iss", 4, "%.2f"), ("eligible", "elig", 5, "%.2f"),
    ("active_warps", "actw", 5, "%.2f"), ("stalls", "top stalls (per issue)", 60, "%s"),
]


def cell(row, key, fmt):
    v = row.get(key)
    if v is None:
        return "-"
    return fmt % (int(v) if fmt == "%d" else v) if not isinstance(v, str) else v


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exports", nargs="+", help="ncu --csv --page raw exports")
    ap.add_argument("--nvtx", help="the same report exported with --print-nvtx-rename kernel (one export only)")
    ap.add_argument("--format", choices=["text", "csv", "json"], default="text")
    a = ap.parse_args(argv)
    if a.nvtx and len(a.exports) != 1:
        ap.error("--nvtx goes with exactly one export")
    rows = []
    for p in a.exports:
        try:
            got = summarize(p, a.nvtx)
        except (OSError, ValueError) as e:
            print("ncu_summary: %s" % e, file=sys.stderr)
            return 2
        if not got:
            print("ncu_summary: %s: no kernel rows" % p, file=sys.stderr)
            return 2
        rows += got
    if a.format == "json":
        json.dump(rows, sys.stdout, indent=1)
        print()
    elif a.format == "csv":
        w = csv.writer(sys.stdout)
        keys = ["file", "id", "nvtx", "op", "name", "kernel"] + [k for k, _, _, _ in COLUMNS if k not in ("id", "op", "name")]
        w.writerow(keys)
        for r in rows:
            w.writerow(["" if r[k] is None else r[k] for k in keys])
    else:
        last = None
        for r in rows:
            if r["file"] != last:
                last = r["file"]
                print("== %s" % last)
                print(" ".join(("%-*s" if k in ("op", "name", "pipe") else "%*s") % (w, h) for k, h, w, _ in COLUMNS))
            print(" ".join(("%-*s" if k in ("op", "name", "pipe") else "%*s") % (w, cell(r, k, f)[:w] if k != "name"
                                                                                else cell(r, k, f)[:w])
                           for k, h, w, f in COLUMNS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
