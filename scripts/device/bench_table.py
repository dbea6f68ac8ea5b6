#!/usr/bin/env python3
"""bench_table.py RUNS_TSV ENV_TXT REPORTS_DIR: the Markdown table of bench.sh.

runs.tsv rows: rep, workload, mode, exit status, process wall ms, then the
RESULT line's key=value fields (and bench.sh's extras).  A run counts when it
exited 0 and printed verified=yes; medians are over those runs only.  A figure
that was not measured prints as n/a, never as a number.
"""
import json
import os
import statistics
import sys


def load_runs(path):
    runs = []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 6:
                continue
            rep, w, m, rc, proc_ms, rest = parts[:6]
            fields = {}
            for tok in rest.split():
                if "=" in tok:
                    k, v = tok.split("=", 1)
                    fields[k] = v
            runs.append({"rep": int(rep), "w": w, "m": m, "rc": int(rc), "proc_ms": float(proc_ms), "f": fields})
    return runs


def ok(run):
    return run["rc"] == 0 and run["f"].get("verified") == "yes"


def num(run, key):
    v = run["f"].get(key)
    try:
        return float(v) if v is not None else None
    except ValueError:
        return None


class Cell:
    """The runs of one (workload, mode)."""

    def __init__(self, runs, w, m):
        self.all = [r for r in runs if r["w"] == w and r["m"] == m]
        self.ok = [r for r in self.all if ok(r)]

    def values(self, key):
        if key == "proc_ms":
            return [r["proc_ms"] for r in self.ok]
        return [x for x in (num(r, key) for r in self.ok) if x is not None]

    def med(self, key):
        v = self.values(key)
        return statistics.median(v) if v else None

    def n(self):
        return f"{len(self.ok)}/{len(self.all)}"

    def counters_collected(self):
        """True when every ok run had counter values in at least one kernel entry."""
        if not self.ok:
            return None
        return all((num(r, "entries_with_counters") or 0) > 0 for r in self.ok)


def fmt(x, digits=1):
    if x is None:
        return "n/a"
    return f"{x:,.{digits}f}"


def verdict(value, goal):
    """PASS when value <= goal.  A negative value (an added cost below the
    noise of the plain runs) passes, and says so."""
    if value is None:
        return "n/a"
    if value < 0:
        return "PASS (added cost below noise)"
    return "PASS" if value <= goal else "FAIL"


def ratio_of(num_, den):
    """num_ / den, or None when either is missing or den is not positive."""
    if num_ is None or den is None or den <= 0:
        return None
    return num_ / den


def find_passes(obj):
    """A 'passes'-like integer anywhere in a perfcheck JSON report, or None."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k in ("passes", "num_passes", "pass_count") and isinstance(v, int):
                return v
            found = find_passes(v)
            if found is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            found = find_passes(v)
            if found is not None:
                return found
    return None


def main():
    runs_path, env_path, reports_dir = sys.argv[1:4]
    runs = load_runs(runs_path)
    env = []
    with open(env_path) as f:
        env = [line.rstrip("\n") for line in f if line.strip()]
    envd = {}
    for line in env:
        if ": " in line:
            k, v = line.split(": ", 1)
            envd[k] = v
    cell = lambda w, m: Cell(runs, w, m)  # noqa: E731
    out = []
    p = out.append

    p("# perfcheck speed benchmark (tests/bench, scripts/device/bench.sh)")
    p("")
    p("## Environment")
    p("")
    for line in env:
        p(f"- {line}")
    p("")
    p("Every figure is a median over separate processes (n = runs that exited 0 with verified results / runs started). "
      "`wall` is the host clock (CLOCK_MONOTONIC) around the timed part: region begin, the launches, "
      "cudaDeviceSynchronize, region end (perfcheck modes). `proc` is the whole process, timed by the script "
      "(CUDA context, setup, warm-up, session create/destroy, verification).")
    p("")

    # ---- timing overhead
    p("## Timing mode overhead")
    p("")
    p("| workload | plain wall ms | timing wall ms | timing / plain | goal | result | n plain, timing |")
    p("| --- | ---: | ---: | ---: | ---: | --- | --- |")
    for w, goal in (("tiny", 1.10), ("bound", 1.01)):
        a, b = cell(w, "plain"), cell(w, "timing")
        pa, tb = a.med("wall_ms"), b.med("wall_ms")
        ratio = ratio_of(tb, pa)
        p(f"| {w} | {fmt(pa, 3)} | {fmt(tb, 3)} | {fmt(ratio, 3)} | ≤ {goal:.2f} | {verdict(ratio, goal)} | {a.n()}, {b.n()} |")
    p("")
    p("tiny: 4096 launches of seed 003's add_one (16 blocks × 256 threads) after one warm-up launch. "
      "bound: 50 launches of a 4-chain FMA kernel (2^20 threads × 64,000 FMA, about 2 ms each).")
    p("")

    # ---- million
    p("## One region, 1,000,000 launches")
    p("")
    p("| mode | wall ms | rss growth MiB (max over runs) | peak growth MiB (max) | launches counted (every run) "
      "| dropped records (max) | n |")
    p("| --- | ---: | ---: | ---: | --- | ---: | --- |")
    mil_ok = None
    for m in ("plain", "timing"):
        c = cell("million", m)
        rss = c.values("rss_growth_mib")
        rss_max = max(rss) if rss else None
        peak = c.values("peak_growth_mib")
        peak_max = max(peak) if peak else None
        if m == "timing":
            counted = [num(r, "launches_counted") for r in c.ok]
            if not counted:
                all_counted, counted_s = None, "n/a (no successful run)"
            elif all(x is not None for x in counted):
                all_counted = all(int(x) == 1000000 for x in counted)
                counted_s = ("all 1,000,000" if all_counted else
                             "NOT ALL: " + ", ".join(f"{int(x):,}" for x in counted))
            else:
                all_counted = None
                counted_s = "n/a (not in report)"
            drops = c.values("dropped_records")
            drop_s = fmt(max(drops), 0) if drops else "n/a"
            if rss_max is not None and all_counted is not None:
                mil_ok = rss_max <= 64.0 and all_counted
        else:
            counted_s, drop_s = "(no perfcheck)", "(no perfcheck)"
        p(f"| {m} | {fmt(c.med('wall_ms'), 1)} | {fmt(rss_max, 1)} | {fmt(peak_max, 1)} | {counted_s} | {drop_s} | {c.n()} |")
    p("")
    p(f"Goal: timing-mode rss growth ≤ 64 MiB and every launch counted: "
      f"**{'n/a' if mil_ok is None else ('PASS' if mil_ok else 'FAIL')}**. "
      "rss growth = VmRSS after region end − VmRSS before region begin (the goal's figure); peak growth = VmHWM "
      "after region end − VmRSS before begin, an upper bound of the growth inside the region.")
    p("")

    # ---- counters vs ncu
    full_count = int(envd.get("fifty_full_count", "10"))
    full_small = int(envd.get("fifty_full_small", "5"))
    p("## Counter cost against ncu")
    p("")
    p("Added wall = median process wall of the mode − median process wall of plain (same binary, same workload). "
      "ncu runs the plain binary with `--clock-control none`, profiling only the workload's kernels (`-k`), "
      "after their warm-up launches (`-s`), as many as the workload launches (`-c`); its process is timed whole.")
    p("")
    p("| workload | plain proc ms | perfcheck default added | perfcheck sol added | ncu default-list added | ncu --set full added "
      "| default / ncu list (≤ 0.10) | default / ncu full (≤ 0.02) |")
    p("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
    notes = []
    extrapolation = None
    for w in ("mystery", "fifty"):
        plain = cell(w, "plain").med("proc_ms")
        added = {}
        for m in ("counters-default", "counters-sol", "ncu-default", "ncu-full", "ncu-full-small"):
            c = cell(w, m)
            v = c.med("proc_ms")
            added[m] = (v - plain) if (v is not None and plain is not None) else None
            if m.startswith("counters") and c.counters_collected() is False:
                notes.append(f"{w}/{m}: no counter values in the report (the session fell back to timing?): "
                             "its added wall is not a counter cost")
                added[m] = None
        pc = added["counters-default"]
        r_list = ratio_of(pc, added["ncu-default"])
        r_full = ratio_of(pc, added["ncu-full"])
        full_s, rfull_s, vfull = fmt(added["ncu-full"], 0), fmt(r_full, 4), verdict(r_full, 0.02)
        if w == "fifty" and added["ncu-full"] is not None:
            # Measured on the first `full_count` launches only: a lower bound of ncu's cost
            # for all 50.  The runs with `full_small` launches give the cost of one more
            # launch, from which the cost of all 50 is extrapolated (labelled as such).
            full_s = f"≥ {fmt(added['ncu-full'], 0)} ({full_count} launches)"
            rfull_s = f"≤ {fmt(r_full, 4)}"
            est = None
            if added["ncu-full-small"] is not None and full_count > full_small:
                per_launch = (added["ncu-full"] - added["ncu-full-small"]) / (full_count - full_small)
                if per_launch > 0:
                    est = added["ncu-full"] + (50 - full_count) * per_launch
                    extrapolation = (per_launch, est)
            r_est = ratio_of(pc, est)
            if est is not None:
                full_s += f"; ≈ {fmt(est, 0)} for 50 (extrapolated)"
                rfull_s += f"; ≈ {fmt(r_est, 4)} (extrapolated)"
            if vfull == "FAIL" and r_est is not None and r_est <= 0.02:
                vfull = "PASS on the extrapolation only"
        p(f"| {w} | {fmt(plain, 0)} | {fmt(pc, 0)} | {fmt(added['counters-sol'], 0)} "
          f"| {fmt(added['ncu-default'], 0)} | {full_s} "
          f"| {fmt(r_list, 4)} {verdict(r_list, 0.10)} | {rfull_s} {vfull} |")
    p("")
    p(f"fifty under `ncu --set full` is profiled on its first {full_count} launches (and, to price one more launch, "
      f"on its first {full_small}), not on all 50: the measured figure is a lower bound of ncu's cost and the ratio "
      "an upper bound; the extrapolation adds (50 − "
      f"{full_count}) × (added({full_count}) − added({full_small})) / {full_count - full_small}"
      + (f", {fmt(extrapolation[0], 0)} ms a launch." if extrapolation else ".")
      + " perfcheck profiles each distinct kernel once (mystery: 4 of 4 launches; fifty: 5 of 50) and only "
      "times the rest; ncu profiles every selected launch.")
    p("")
    p("In-region view (wall ms, region only, no session create/destroy):")
    p("")
    p("| workload | plain | timing | counters-default | counters-sol |")
    p("| --- | ---: | ---: | ---: | ---: |")
    for w in ("mystery", "fifty"):
        p(f"| {w} | " + " | ".join(fmt(cell(w, m).med("wall_ms"), 2)
                                   for m in ("plain", "timing", "counters-default", "counters-sol")) + " |")
    p("")

    # ---- passes
    p("## Passes per profiled kernel")
    p("")
    json_passes = None
    jp = os.path.join(reports_dir, "mystery_counters-default.json")
    if os.path.exists(jp):
        try:
            with open(jp) as f:
                json_passes = find_passes(json.load(f))
        except (OSError, ValueError):
            json_passes = None
    pc_default = envd.get("perfcheck passes (default)", "n/a")
    pc_sol = envd.get("perfcheck passes (sol)", "n/a")

    def ncu_passes(w, m):
        vals = set()
        for r in cell(w, m).ok:
            s = r["f"].get("ncu_passes", "none")
            if s != "none":
                vals.update(s.split(","))
        return ",".join(sorted(vals, key=int)) if vals else "n/a"

    def pc_num(s):
        tok = [t for t in s.split() if t.startswith("passes=")]
        return int(tok[0].split("=")[1]) if tok else None

    d = pc_num(pc_default)
    p("| set | perfcheck (CUPTI host API, this device) | in the JSON report | goal | ncu passes per kernel (mystery; fifty) |")
    p("| --- | --- | --- | --- | --- |")
    p(f"| default | {d if d is not None else pc_default} | {json_passes if json_passes is not None else 'n/a'} | ≤ 4: "
      f"{verdict(d, 4)} | {ncu_passes('mystery', 'ncu-default')}; {ncu_passes('fifty', 'ncu-default')} (same list) |")
    s = pc_num(pc_sol)
    p(f"| sol | {s if s is not None else pc_sol} | | | |")
    p(f"| ncu --set full | | | | {ncu_passes('mystery', 'ncu-full')}; {ncu_passes('fifty', 'ncu-full')} |")
    p("")

    # ---- distinct
    p("## 10,000 launches of 20 distinct kernels")
    p("")
    p("Counter cost = wall(counters-default) − wall(timing), region wall medians. "
      "A = that cost for `distinct` (10,000 launches, round-robin over 20 kernels); "
      "B = that cost for `distinct20` (the same 20 kernels, one launch each: 20 profiled launches). "
      "Goal: A / B about 1 (judged ≤ 1.5).")
    p("")
    p("| workload | timing wall ms | counters-default wall ms | counter cost ms | entries with counters | n timing, counters |")
    p("| --- | ---: | ---: | ---: | --- | --- |")
    costs = {}
    for w in ("distinct", "distinct20"):
        t, c = cell(w, "timing"), cell(w, "counters-default")
        tw, cw = t.med("wall_ms"), c.med("wall_ms")
        cost = cw - tw if (tw is not None and cw is not None and c.counters_collected()) else None
        costs[w] = cost
        ent = c.values("entries_with_counters")
        p(f"| {w} | {fmt(tw, 2)} | {fmt(cw, 2)} | {fmt(cost, 2)} | {fmt(min(ent), 0) if ent else 'n/a'} of 20 | {t.n()}, {c.n()} |")
    ratio = ratio_of(costs["distinct"], costs["distinct20"])
    p("")
    p(f"A / B = **{fmt(ratio, 2)}** ({verdict(ratio, 1.5)})")
    p("")

    # ---- every cell
    p("## Every (workload, mode)")
    p("")
    p("| workload | mode | n | wall ms median [min, max] | proc ms | create ms | end ms "
      "| launches counted (ncu: profiled) | entries w/ counters |")
    p("| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |")
    seen = []
    for r in runs:
        if (r["w"], r["m"]) not in seen:
            seen.append((r["w"], r["m"]))
    for w, m in seen:
        c = cell(w, m)
        wall = c.values("wall_ms")
        wall_s = f"{fmt(statistics.median(wall), 3)} [{fmt(min(wall), 3)}, {fmt(max(wall), 3)}]" if wall else "n/a"
        # ncu rows: the launches ncu profiled ("==PROF== Profiling" lines), not perfcheck's count.
        lc = c.values("ncu_profiled" if m.startswith("ncu") else "launches_counted")
        exp = [] if m.startswith("ncu") else c.values("launches_expected")
        lc_s = "n/a"
        if lc:
            lc_s = f"{int(min(lc)):,}" if min(lc) == max(lc) else f"{int(min(lc)):,}..{int(max(lc)):,}"
            if exp and min(lc) != max(exp):
                lc_s += f" (expected {int(max(exp)):,})"
        ent = c.values("entries_with_counters")
        p(f"| {w} | {m} | {c.n()} | {wall_s} | {fmt(c.med('proc_ms'), 0)} | {fmt(c.med('create_ms'), 1)} "
          f"| {fmt(c.med('end_ms'), 2)} | {lc_s} | {fmt(min(ent), 0) if ent else 'n/a'} |")
    p("")

    # ---- failures and notes
    bad = [r for r in runs if not ok(r)]
    launch_mismatch = [(w, m) for w, m in seen
                       if any(num(r, "launches_counted") is not None and num(r, "launches_expected") is not None
                              and num(r, "launches_counted") != num(r, "launches_expected") for r in cell(w, m).ok)]
    want_profiled = {("mystery", "ncu-default"): 4, ("mystery", "ncu-full"): 4,
                     ("fifty", "ncu-default"): 50, ("fifty", "ncu-full"): full_count,
                     ("fifty", "ncu-full-small"): full_small}
    for w, m in seen:
        if m.startswith("ncu"):
            names = {k for r in cell(w, m).ok for k in r["f"].get("ncu_kernels", "none").split(",")}
            counts = {int(x) for x in cell(w, m).values("ncu_profiled")}
            want = want_profiled.get((w, m))
            if "prime_kernel" in names or "none" in names or (want is not None and counts and counts != {want}):
                notes.append(f"{w}/{m}: ncu profiled {sorted(counts)} launches of {sorted(names)}, "
                             f"expected {want}: check the -k/-s/-c selection in the log")
    with_note = sorted({(r["w"], r["m"]) for r in runs if r["f"].get("has_note") == "yes"})
    if bad or notes or launch_mismatch or with_note:
        p("## Failures and notes")
        p("")
        logs = os.path.join(os.path.dirname(os.path.abspath(runs_path)), "logs")
        for w, m in seen:  # one line per (workload, mode): how many failed, and the first reason
            fails = [r for r in bad if r["w"] == w and r["m"] == m]
            if not fails:
                continue
            r = fails[0]
            why = "exit %d" % r["rc"] if r["rc"] != 0 else "results not verified"
            if r["rc"] in (124, 137):
                why += " (timeout or killed)"
            log = f"logs/{w}_{m}_{r['rep']}.log"
            try:
                with open(os.path.join(logs, os.path.basename(log)), errors="replace") as f:
                    lines = [x.strip() for x in f if x.strip()]
                last = next((x for x in reversed(lines) if x.startswith("bench_launches:") or "ERROR" in x),
                            lines[-1] if lines else "")
            except OSError:
                last = ""
            p(f"- FAILED {w}/{m}: {len(fails)} of {len(cell(w, m).all)} runs; run {r['rep']}: {why}: "
              f"`{last[:160]}` ({log})")
        for w, m in launch_mismatch:
            p(f"- {w}/{m}: the report's launch count differs from the launches made")
        for w, m in with_note:
            p(f"- {w}/{m}: perfcheck printed a NOTE (see logs/{w}_{m}_*.log)")
        for n in notes:
            p(f"- {n}")
        p("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
