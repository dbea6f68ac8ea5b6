#!/usr/bin/env python3
"""accuracy.py JSON_DIR NCU_DIR OUT.md: perfcheck's in-process counters against ncu.

For every kernel entry of every perfcheck JSON report in JSON_DIR (one per
kernels/ program, <program>.json, written by tests/gpu/accuracy_dump), finds
the ncu row of the same launch signature (kernel short name, grid, block,
dynamic shared memory; the first such row) in NCU_DIR/<program>.csv
(--cache-control all) and NCU_DIR/<program>.cache-none.csv (written by
scripts/device/ncu_exports.sh) and compares every metric both have, and the
derived quantities, under these tolerances:
  count, ratio   request, sector and instruction counts, sectors per request,
                 threads per instruction: within 1%
  occupancy      achieved occupancy: within 2 percentage points
  10% band       duration, DRAM bytes, throughput percentages and issue
                 activity: within 10%
  launch         theoretical occupancy: exact (shown, not judged)
A value is judged against whichever ncu run (cache control all or none) is
closer; the table says which, and for DRAM bytes the summary counts it.

Writes the Markdown tables to OUT.md and prints them, then one summary line.
Exit status: 1 if any count or ratio misses its 1% tolerance, or a kernel has
no ncu row, no counters at all, or its program no ncu export; 0 otherwise
(misses in the other bands are reported, not fatal); 2 on a usage error.

  accuracy.py --self-test NCU_DIR
checks the unit conversion against the *.base-units.csv exports, then builds
synthetic reports from the CSVs and checks that a match passes, a 2% count
error fails, a 0.5% one passes, a 50% duration error is reported but not
fatal, and a kernel without an ncu row fails.
"""
import csv
import glob
import json
import math
import os
import re
import shutil
import sys
import tempfile

TOL_COUNT = 0.01   # relative
TOL_OCC_PP = 2.0   # percentage points
TOL_BAND = 0.10    # relative

# ---- ncu CSV --------------------------------------------------------------------

PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
          "Ki": 1024.0, "Mi": 1024.0 ** 2, "Gi": 1024.0 ** 3, "Ti": 1024.0 ** 4}
TIME_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6,
           "second": 1e9, "s": 1e9}


def unit_scale(unit):
    """Factor from an ncu display unit to perfcheck's base: ns for a time,
    bytes (and other plain counts) for a prefixed count, per second for a rate.
    Returns None for a unit it does not understand."""
    u = unit.strip()
    if u in ("", "%"):
        return 1.0
    if u in TIME_NS:
        return TIME_NS[u]
    num, _, den = u.partition("/")
    m = re.fullmatch(r"(Ki|Mi|Gi|Ti|K|M|G|T)?([a-z]+)", num)
    if m:
        f = PREFIX[m.group(1) or ""]
    elif re.fullmatch(r"[A-Za-z]+", num):  # "SM", "%"-like words without a prefix
        f = 1.0
    else:
        return None
    if den:
        if den in TIME_NS:  # a rate: per second
            f /= TIME_NS[den] / 1e9
        elif not re.fullmatch(r"[a-z]+", den):  # "block", "thread", "cycle": per one
            return None
    return f


def parse_number(text):
    """A CSV cell as a float ("4,194,304" -> 4194304.0); None when not a number."""
    t = text.strip().replace(",", "")
    if t == "" or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse_dim3(text):
    """"(256, 1, 1)" -> (256, 1, 1); None when it is not one."""
    m = re.fullmatch(r"\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)\s*", text)
    return tuple(int(g) for g in m.groups()) if m else None


def short_name(full):
    """ncu's demangled name without return type and parameter list:
    "void scaleAdd<1>(float, const float *)" -> "scaleAdd<1>",
    "void Functor::operator()(int)" -> "Functor::operator()"."""
    s = full.strip()
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    s = s[:i].rstrip()
                    break
    depth, cut = 0, -1
    for i, c in enumerate(s):
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif c == " " and depth == 0:
            cut = i
    return s[cut + 1:] if cut >= 0 else s


def read_ncu_csv(path):
    """The launch rows of an `ncu --csv --page raw` export: a list of dicts
    with name, grid, block, dyn (bytes), id and metrics {name: base value}."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if head is None or head + 1 >= len(rows):
        raise ValueError(f"{path}: no ncu raw header (a row starting with \"ID\")")
    names, units = rows[head], rows[head + 1]
    out = []
    for r in rows[head + 2:]:
        if not r or not r[0].strip().isdigit():
            continue
        cell = dict(zip(names, r))
        unit = dict(zip(names, units))
        metrics = {}
        for n in names:
            if "__" not in n or n not in cell:
                continue
            v = parse_number(cell[n])
            scale = unit_scale(unit.get(n, ""))
            if v is not None and scale is not None:
                metrics[n] = v * scale
        dyn = metrics.get("launch__shared_mem_per_block_dynamic")
        out.append({"id": cell.get("ID", "?").strip(), "name": short_name(cell.get("Kernel Name", "")),
                    "grid": parse_dim3(cell.get("Grid Size", "")), "block": parse_dim3(cell.get("Block Size", "")),
                    "dyn": dyn, "metrics": metrics, "raw": cell, "units": unit})
    return out


def find_row(rows, name, grid, block, dyn):
    """The first row of that signature.  An export without the dynamic shared
    memory column matches on name, grid and block alone."""
    for r in rows:
        if (r["name"].replace(" ", "") == name.replace(" ", "") and r["grid"] == grid and r["block"] == block
                and (r["dyn"] is None or (dyn is not None and abs(r["dyn"] - dyn) < 0.5))):
            return r
    return None

# ---- what is compared -------------------------------------------------------------


def category(metric):
    """The tolerance class of a metric or derived name."""
    if metric in ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved_occupancy_pct"):
        return "occupancy"
    if metric == "theoretical_occupancy_pct":
        return "launch"
    if metric in ("sectors_per_request_ld", "sectors_per_request_st", "threads_per_instruction",
                  "threads_per_instruction_pred_on") or metric.endswith(".ratio"):
        return "ratio"
    if (metric.startswith("gpu__time_duration") or metric.startswith("dram__bytes")
            or "pct_of_peak" in metric or "per_cycle" in metric or ".per_second" in metric):
        return "band"
    if metric.endswith(".sum"):
        return "count"
    return "band"


def ncu_derived(m):
    """Derived quantities of the contract, from an ncu row's metrics."""
    def ratio(a, b):
        x, y = m.get(a), m.get(b)
        return x / y if x is not None and y not in (None, 0.0) else None
    return {
        "sectors_per_request_ld": ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
        "sectors_per_request_st": ratio("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
        "threads_per_instruction": m.get("smsp__average_thread_inst_executed_per_inst_executed.ratio",
                                         m.get("smsp__thread_inst_executed_per_inst_executed.ratio")),
        "threads_per_instruction_pred_on": m.get(
            "smsp__average_thread_inst_executed_pred_on_per_inst_executed.ratio",
            m.get("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio")),
        "achieved_occupancy_pct": m.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
        "theoretical_occupancy_pct": m.get("sm__maximum_warps_per_active_cycle_pct"),
    }


def difference(cat, ours, theirs):
    """Relative difference (fraction), or percentage points for occupancy;
    None when ncu has no value; inf when ncu is 0 and perfcheck is not."""
    if ours is None or theirs is None:
        return None
    if cat == "occupancy":
        return ours - theirs
    if theirs == 0.0:
        return 0.0 if ours == 0.0 else math.inf
    return (ours - theirs) / abs(theirs)


def within(cat, d):
    if d is None:
        return None
    if cat == "occupancy":
        return abs(d) <= TOL_OCC_PP + 1e-9
    if cat in ("count", "ratio"):
        return abs(d) <= TOL_COUNT + 1e-12
    if cat == "launch":
        return abs(d) <= 1e-6
    return abs(d) <= TOL_BAND + 1e-12


TOL_TEXT = {"count": "1%", "ratio": "1%", "occupancy": "2 pp", "band": "10%", "launch": "exact"}


def fmt_value(v):
    if v is None:
        return "null"
    if abs(v) < 1e15 and abs(v - round(v)) <= 1e-9 * max(1.0, abs(v)):  # an integer, up to unit scaling
        return f"{int(round(v)):,}"
    if abs(v) >= 100:
        return f"{v:,.1f}"
    return f"{v:.4g}"


def fmt_diff(cat, d):
    if d is None:
        return "n/a"
    if math.isinf(d):
        return "inf"
    if cat == "occupancy":
        return f"{d:+.2f} pp"
    return f"{100.0 * d:+.2f}%"

# ---- the comparison ---------------------------------------------------------------


class Tally:
    def __init__(self):
        self.compared = {c: 0 for c in TOL_TEXT}
        self.ok = {c: 0 for c in TOL_TEXT}
        self.misses = []          # (where, metric, cat, diff text)
        self.errors = []          # fatal problems that are not tolerance misses
        self.not_measured = 0
        self.dram_closer = {"all": 0, "none": 0, "tie": 0}


def compare_kernel(prog, k, row_all, row_none, tally, out):
    where = f"{prog}/{k.get('name')} grid {tuple(k.get('grid') or ())} dyn {fmt_value(k.get('dynamic_smem_bytes'))} B"
    m_all = row_all["metrics"] if row_all else {}
    m_none = row_none["metrics"] if row_none else {}
    d_all, d_none = ncu_derived(m_all), ncu_derived(m_none)
    ours = dict(k.get("metrics") or {})
    sources = k.get("metric_sources") or {}
    derived = k.get("derived") or {}
    names = [n for n in ours if n in m_all or n in m_none]
    names += [n for n in ("sectors_per_request_ld", "sectors_per_request_st", "threads_per_instruction",
                          "achieved_occupancy_pct", "theoretical_occupancy_pct") if n in derived]
    out.append("| metric | perfcheck | ncu (cache all) | ncu (cache none) | diff vs all | diff vs none "
               "| tolerance | closer | result |")
    out.append("|---|---:|---:|---:|---:|---:|---|---|---|")
    judged = 0
    for n in names:
        cat = category(n)
        mine = derived.get(n) if n in derived and n not in ours else ours.get(n)
        a = d_all.get(n) if n in d_all else m_all.get(n)
        b = d_none.get(n) if n in d_none else m_none.get(n)
        da, db = difference(cat, mine, a), difference(cat, mine, b)
        cands = [(abs(d), mode) for d, mode in ((da, "all"), (db, "none")) if d is not None]
        label = n + (f" (via {sources[n]})" if n in sources else "")
        if mine is None:
            result, closer = "not measured", ""
            if a is not None or b is not None:
                tally.not_measured += 1
        elif not cands:
            result, closer = "no ncu value", ""
        else:
            best = min(cands)
            closer = best[1] if len(cands) == 1 or cands[0][0] != cands[1][0] else "tie"
            d = da if best[1] == "all" else db
            ok = within(cat, d)
            tally.compared[cat] += 1
            if ok:
                tally.ok[cat] += 1
            else:
                tally.misses.append((where, n, cat, fmt_diff(cat, d)))
            if cat in ("count", "ratio"):
                judged += 1
            if n.startswith("dram__bytes") and len(cands) == 2:
                tally.dram_closer[closer] += 1
            result = "ok" if ok else ("differs" if cat == "launch" else "MISS")
        out.append(f"| {label} | {fmt_value(mine)} | {fmt_value(a)} | {fmt_value(b)} | {fmt_diff(cat, da)} "
                   f"| {fmt_diff(cat, db)} | {TOL_TEXT[cat]} | {closer} | {result} |")
    if judged == 0:
        tally.errors.append(f"{where}: no count or ratio was compared (were counters collected? "
                            f"not_measured_reason: {k.get('not_measured_reason')})")


def compare(json_dir, ncu_dir, out_md):
    tally = Tally()
    out = ["# perfcheck in-process counters against ncu --clock-control none", "",
           f"perfcheck reports: `{json_dir}`; ncu exports: `{ncu_dir}` (`<program>.csv` with --cache-control all, "
           "`<program>.cache-none.csv` with none).", "",
           "Tolerances: counts, sectors per request and threads per instruction 1%; achieved occupancy "
           "2 percentage points; duration, DRAM bytes, throughput percentages and issue activity 10%. Each value "
           "is judged against the closer of the two ncu runs (`closer`). `via` names the substitute counter "
           "perfcheck collected for that metric.", ""]
    paths = sorted(glob.glob(os.path.join(json_dir, "*.json")))
    if not paths:
        tally.errors.append(f"no *.json report in {json_dir}")
    for path in paths:
        prog = os.path.splitext(os.path.basename(path))[0]
        try:
            with open(path, encoding="utf-8") as f:
                rep = json.load(f)
        except (OSError, ValueError) as e:
            tally.errors.append(f"{path}: {e}")
            continue
        try:
            rows_all = read_ncu_csv(os.path.join(ncu_dir, prog + ".csv"))
            rows_none = read_ncu_csv(os.path.join(ncu_dir, prog + ".cache-none.csv"))
        except (OSError, ValueError) as e:
            tally.errors.append(f"{prog}: ncu export: {e}")
            continue
        kernels = rep.get("kernels") or []
        out.append(f"## {prog}")
        out.append("")
        out.append(f"metric set `{rep.get('metric_set')}`, {rep.get('passes')} passes, {len(kernels)} kernel "
                   f"entries; device {((rep.get('device') or {}).get('name'))}.")
        out.append("")
        if not kernels:
            tally.errors.append(f"{prog}: the report has no kernel entry")
        for k in kernels:
            grid, block = tuple(k.get("grid") or ()), tuple(k.get("block") or ())
            dyn = k.get("dynamic_smem_bytes")
            ra = find_row(rows_all, k.get("name", ""), grid, block, dyn)
            rn = find_row(rows_none, k.get("name", ""), grid, block, dyn)
            out.append(f"### {k.get('name')} grid {grid} block {block} dynamic {fmt_value(dyn)} B")
            out.append("")
            out.append(f"region `{k.get('region')}`, {k.get('launches')} launch(es), {k.get('profiled_launches')} "
                       f"profiled, {k.get('passes')} passes; ncu row ID {ra['id'] if ra else '-'} (all), "
                       f"{rn['id'] if rn else '-'} (none); verdict step "
                       f"{(k.get('diagnosis') or {}).get('step')} {(k.get('diagnosis') or {}).get('cause')}.")
            out.append("")
            if not ra and not rn:
                tally.errors.append(f"{prog}/{k.get('name')} grid {grid} block {block} dyn {dyn}: no ncu row with "
                                    "that signature")
                out.append("**no ncu row with this signature**")
                out.append("")
                continue
            compare_kernel(prog, k, ra, rn, tally, out)
            out.append("")

    cr_total = tally.compared["count"] + tally.compared["ratio"]
    cr_ok = tally.ok["count"] + tally.ok["ratio"]
    fatal = [m for m in tally.misses if m[2] in ("count", "ratio")]
    out.append("## Summary")
    out.append("")
    out.append(f"- counts and ratios within 1%: {cr_ok} of {cr_total}")
    out.append(f"- achieved occupancy within 2 pp: {tally.ok['occupancy']} of {tally.compared['occupancy']}")
    out.append(f"- duration, DRAM bytes, throughput within 10%: {tally.ok['band']} of {tally.compared['band']}")
    out.append(f"- theoretical occupancy exact: {tally.ok['launch']} of {tally.compared['launch']}")
    dc = tally.dram_closer
    out.append(f"- DRAM bytes closer to ncu --cache-control all: {dc['all']}, to none: {dc['none']}, tie: {dc['tie']}")
    out.append(f"- values ncu has and perfcheck did not measure: {tally.not_measured}")
    for where, n, cat, d in tally.misses:
        out.append(f"- {'MISS' if cat in ('count', 'ratio') else 'outside'} {TOL_TEXT[cat]}: {where}: {n} {d}")
    for e in tally.errors:
        out.append(f"- ERROR: {e}")
    status = 1 if fatal or tally.errors else 0
    summary = (f"accuracy: counts/ratios {cr_ok}/{cr_total} within 1%, occupancy {tally.ok['occupancy']}/"
               f"{tally.compared['occupancy']} within 2 pp, duration/DRAM/throughput {tally.ok['band']}/"
               f"{tally.compared['band']} within 10%, DRAM bytes closer to cache all {dc['all']} / none "
               f"{dc['none']}, {len(tally.errors)} error(s): {'FAIL' if status else 'PASS'}")
    out.append("")
    out.append(summary)
    text = "\n".join(out) + "\n"
    if out_md:
        with open(out_md, "w", encoding="utf-8") as f:
            f.write(text)
    sys.stdout.write(text)
    return status

# ---- self-test ------------------------------------------------------------------------

CONTRACT = [
    "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum", "dram__bytes_write.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "lts__t_requests_op_atom.sum", "lts__t_requests_op_red.sum",
    "smsp__average_thread_inst_executed_per_inst_executed.ratio", "smsp__issue_active.avg.per_cycle_active",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
]


def synthetic_reports(ncu_dir, dest, tweak=None):
    """One perfcheck-like JSON per program from its cache-all CSV; tweak(prog,
    kernel dict) may change a kernel before it is written."""
    for path in sorted(glob.glob(os.path.join(ncu_dir, "*.csv"))):
        base = os.path.basename(path)
        if base.count(".") != 1:  # only <program>.csv
            continue
        prog = base[:-4]
        kernels = []
        for r in read_ncu_csv(path):
            m = {n: r["metrics"].get(n) for n in CONTRACT}
            d = ncu_derived(r["metrics"])
            k = {"name": r["name"], "region": prog, "grid": list(r["grid"]), "block": list(r["block"]),
                 "dynamic_smem_bytes": r["dyn"], "launches": 1, "profiled_launches": 1, "passes": 1,
                 "metrics": m, "metric_sources": {}, "not_measured_reason": None,
                 "derived": {n: d[n] for n in ("sectors_per_request_ld", "sectors_per_request_st",
                                               "threads_per_instruction", "achieved_occupancy_pct",
                                               "theoretical_occupancy_pct")},
                 "diagnosis": {"step": 0, "cause": "none"}}
            if tweak:
                tweak(prog, k)
            kernels.append(k)
        with open(os.path.join(dest, prog + ".json"), "w", encoding="utf-8") as f:
            json.dump({"schema": "perfcheck-report/1", "metric_set": "full", "passes": 1,
                       "device": {"name": "synthetic"}, "regions": [], "kernels": kernels}, f)


def self_test(ncu_dir):
    problems = []
    # 1. unit conversion: every numeric cell of P.csv, converted, equals P.base-units.csv's.
    checked = 0
    for path in sorted(glob.glob(os.path.join(ncu_dir, "*.base-units.csv"))):
        disp = path.replace(".base-units.csv", ".csv")
        if not os.path.exists(disp):
            continue
        a, b = read_ncu_csv(disp), read_ncu_csv(path)
        for ra, rb in zip(a, b):
            for n, vb in rb["metrics"].items():
                va = ra["metrics"].get(n)
                if va is None:
                    continue
                checked += 1
                # Each export rounds what it prints: the display one to its last
                # printed digit of the scaled unit, the base one to 2 decimals.
                text = ra["raw"][n].strip().replace(",", "")
                decimals = len(text.split(".")[1]) if "." in text else 0
                quantum = 10.0 ** -decimals * unit_scale(ra["units"][n])
                if abs(va - vb) > 0.5 * quantum + 0.011 + 1e-9 * abs(vb):
                    problems.append(f"units: {os.path.basename(disp)} {n}: {va} vs base {vb}")
    if checked == 0:
        problems.append("units: no *.base-units.csv pair to check against")
    print(f"self-test: unit conversion checked on {checked} values")
    for full, want in (("mysteryA(const float *, float *, unsigned long)", "mysteryA"),
                       ("void scaleAdd<1>(float, const float *, const float *, float *, unsigned long)",
                        "scaleAdd<1>"),
                       ("void ns::k<(int)2>(float *)", "ns::k<(int)2>"),
                       ("void Functor::operator()(int)", "Functor::operator()"), ("add_one", "add_one")):
        if short_name(full) != want:
            problems.append(f"short_name({full!r}) = {short_name(full)!r}, want {want!r}")

    def run_case(label, want_status, tweak=None, want_in_summary=None):
        tmp = tempfile.mkdtemp(prefix="pc_acc_")
        try:
            synthetic_reports(ncu_dir, tmp, tweak)
            saved = sys.stdout
            sys.stdout = open(os.devnull, "w", encoding="utf-8")
            try:
                md = os.path.join(tmp, "out.md")
                st = compare(tmp, ncu_dir, md)
            finally:
                sys.stdout.close()
                sys.stdout = saved
            with open(md, encoding="utf-8") as f:
                text = f.read()
            last = text.strip().splitlines()[-1]
            print(f"self-test: {label}: exit {st} (want {want_status}): {last}")
            if st != want_status:
                problems.append(f"{label}: exit {st}, want {want_status}")
            if want_in_summary and want_in_summary not in text:
                problems.append(f"{label}: the report does not say {want_in_summary!r}")
        finally:
            shutil.rmtree(tmp)

    def scale(metric, factor, prog="mystery", name="mysteryA"):
        def tweak(p, k):
            if p == prog and k["name"] == name and k["metrics"].get(metric) is not None:
                k["metrics"][metric] *= factor
        return tweak

    def rename(p, k):
        if p == "atomics" and k["name"] == "sumAll":
            k["grid"] = [1, 1, 1]

    def occ(p, k):
        if p == "occupancy":
            k["metrics"]["sm__warps_active.avg.pct_of_peak_sustained_active"] += 3.0

    run_case("exact copy of the ncu values", 0, None, "PASS")
    run_case("requests +2%", 1, scale("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1.02),
             "MISS 1%: mystery/mysteryA")
    run_case("sectors -0.5%", 0, scale("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0.995))
    run_case("threads per instruction ratio +1.5%", 1,
             scale("smsp__average_thread_inst_executed_per_inst_executed.ratio", 1.015, "mystery", "mysteryB"))
    run_case("duration +50% (reported, not fatal)", 0, scale("gpu__time_duration.sum", 1.5),
             "outside 10%: mystery/mysteryA")
    run_case("achieved occupancy +3 pp (reported, not fatal)", 0, occ, "outside 2 pp: occupancy/scaleAdd<1>")
    run_case("a kernel without an ncu row", 1, rename, "no ncu row with that signature")
    if problems:
        for p in problems:
            print("self-test FAIL:", p)
        return 1
    print("self-test: PASS")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    return compare(argv[1], argv[2], argv[3])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
