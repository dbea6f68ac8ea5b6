#!/usr/bin/env python3
"""The figures of scripts/bench_overhead.sh: one section's, or the table of all.

    bench_overhead_summary.py --section C --runs OUT/runs.txt --logs OUT/logs --md OUT/bench_overhead.md
    bench_overhead_summary.py --table --runs OUT/runs.txt --logs OUT/logs --env OUT/summary.txt

Reads the RUN lines (one per process:
`RUN sec=C mode=plain rep=1 rc=0 wall_s=0.5412 cap_s=60 | RESULT ...`).  With
--section, prints that section's FIGURE, WHERE, PASS/FAIL and SKIP lines on
stdout and appends a Markdown part (a table of every mode's runs, then the
same lines) to --md.  With --table, prints one Markdown table of every
section in the runs, a row per workload: perfcheck's figure, the peers',
the goal and whether it is met; then, for each goal missed, where the time
goes; the GPU, driver, date and source from --env's ENV lines.  Warm-up runs
(rep=w) are shown in the section tables and left out of the medians.  A run
counts for a process-wall figure when it exited 0; for an in-process figure
(the RESULT line's wall_ms or us_per_launch, torch_step's loop time) when it
printed the line.  WHERE lines read the end of perfcheck's logs
(PERFCHECK_PROGRESS=1): the counter layer's host time by phase and lib/gpu's
set-up.
"""

import argparse
import csv
import gzip
import io
import json
import os
import re
import statistics

RUN_RE = re.compile(r"RUN sec=(\w+) mode=(\w+) rep=(\w+) rc=(\d+) wall_s=([0-9.]+) cap_s=(\d+) \|(.*)")


def parse_runs(path, section):
    runs = []
    with open(path) as f:
        for line in f:
            m = RUN_RE.match(line.strip())
            if not m or m.group(1) != section:
                continue
            rest = m.group(7)
            value = None
            v = re.search(r"(?:wall_ms|us_per_launch)=([0-9.]+)", rest)
            if v:
                value = float(v.group(1))
            else:
                v = re.search(r"steps in ([0-9.]+) ms", rest)
                if v:
                    value = float(v.group(1))
            steps = re.search(r"(\d+) steps in ", rest)
            # bench_launches' end_ms: perfcheck_session_end inside the timed
            # part (the activity flush, decoding, the region's report).
            end = re.search(r"\bend_ms=([0-9.]+)", rest)
            runs.append({"mode": m.group(2), "rep": m.group(3), "rc": int(m.group(4)),
                         "wall": float(m.group(5)), "cap": int(m.group(6)), "value": value,
                         "steps": int(steps.group(1)) if steps else None,
                         "end": float(end.group(1)) if end else None})
    return runs


class Section:
    def __init__(self, runs):
        self.runs = runs
        self.lines = []
        self.row = None  # the section's row of the table, where it has one

    def timed(self, mode, key):
        """The timed runs' values: process wall (rc 0) or the RESULT value."""
        out = []
        for r in self.runs:
            if r["mode"] != mode or r["rep"] == "w":
                continue
            if key == "wall":
                if r["rc"] == 0:
                    out.append(r["wall"])
            elif key == "loop":  # the RESULT value less perfcheck_session_end's share
                if r["value"] is not None and r["end"] is not None:
                    out.append(r["value"] - r["end"])
            elif r["value"] is not None:
                out.append(r["value"])
        return out

    def med(self, mode, key):
        x = self.timed(mode, key)
        return statistics.median(x) if x else None

    def n(self, mode, key):
        return len(self.timed(mode, key))

    def out(self, text):
        self.lines.append(text)

    def claim(self, ok, text):
        self.out("%s %s" % ("PASS" if ok else ("FAIL" if ok is not None else "SKIP"), text))


def load_report(logs, name):
    for path in (os.path.join(logs, name + ".json"), os.path.join(logs, name + ".json.gz")):
        if os.path.exists(path):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rt") as f:
                return json.load(f)
    return None


def ncu_rows(path):
    """ncu --csv --page raw: a header row, a units row, one row per kernel."""
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        lines = [l for l in f.read().splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        return []
    h = rows[0]
    return [dict(zip(h, r)) for r in rows[2:]]


def first_log(logs, prefix):
    """logs/PREFIX.<rep>.log of the first round that made one (or its .gz)."""
    names = sorted(n for n in os.listdir(logs) if n.startswith(prefix + ".") and n.endswith(".log")) \
        if os.path.isdir(logs) else []
    return os.path.join(logs, names[0]) if names else os.path.join(logs, prefix + ".1.log")


def num(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return None


def ratio_text(x, base):
    return "%.3fx" % (x / base) if x is not None and base else "-"


# The goals each figure is held to: what perfcheck may cost a program.
GOALS = {
    "timing_cpp": 1.20,        # 4096 tiny C++ launches, timing mode, x plain (and below nsys)
    "timing_torch": 1.05,      # 4096 tiny PyTorch ops, timing mode, x plain
    "counters_ncu": 0.10,      # added wall, of ncu's with the same metric list
    "counters_full": 0.02,     # added wall, of ncu --set full's
    "rotation": 1.05,          # the 1000-step training step under rotation, process wall x plain
}


# ---- where the time goes: the end of perfcheck's logs ------------------------
PHASE_RE = re.compile(r"(?:: |, )([a-z][a-z0-9 +/_-]*?) ([0-9.]+) ms \((\d+),")


def log_text(path):
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            opener = gzip.open if p.endswith(".gz") else open
            with opener(p, "rt", errors="replace") as f:
                return f.read()
    return ""


def progress(logs, sec, mode, reps):
    """The counter layer's phases (ms) and lib/gpu's set-up and exit (ms) of
    each timed run's log: a list of dicts, one per run that printed them."""
    out = []
    for rep in reps:
        text = log_text(os.path.join(logs, "%s.%s.%s.log" % (sec, mode, rep)))
        d = {}
        for line in text.splitlines():
            if "counter layer, host time of" in line:
                d["phases"] = {name: float(ms) for name, ms, _ in PHASE_RE.findall(line[line.index("host time of"):])}
                n = re.search(r"host time of (\d+) profiled launch", line)
                d["profiled"] = int(n.group(1)) if n else None
            elif "lib/gpu host time:" in line:
                m = re.search(r"set-up ([0-9.]+) ms", line)
                e = re.search(r"at exit: [a-z ]*?([0-9.]+) ms", line)
                d["setup"] = float(m.group(1)) if m else None
                d["exit"] = float(e.group(1)) if e else None
        if d:
            out.append(d)
    return out


def where_counters(S, logs, sec, mode, label, added):
    """A WHERE line: the median added wall of MODE split into the counter
    layer's host time (CUPTI's calls and the replayed passes, by phase),
    lib/gpu's set-up, and the rest (perfcheck's own: loading, the
    collector, the report, the process's exit)."""
    reps = sorted({r["rep"] for r in S.runs if r["mode"] == mode and r["rep"] != "w" and r["rc"] == 0})
    runs = progress(logs, sec, mode, reps)
    if added is None:
        return None
    if not runs or not any("phases" in r for r in runs):
        return "WHERE %s: added %+.3f s; no run printed the counter layer's phases (logs/%s.%s.*.log)" % (
            label, added, sec, mode)
    names = []
    for r in runs:
        for n in r.get("phases", {}):
            if n not in names:
                names.append(n)
    med = {n: statistics.median(r.get("phases", {}).get(n, 0.0) for r in runs) for n in names}
    layer = statistics.median(sum(r.get("phases", {}).values()) for r in runs) / 1e3
    setup = [r["setup"] for r in runs if r.get("setup") is not None]
    setup_s = statistics.median(setup) / 1e3 if setup else 0.0
    top = sorted(med.items(), key=lambda kv: -kv[1])[:4]
    rest = added - layer - setup_s
    profiled = [r["profiled"] for r in runs if r.get("profiled") is not None]
    return ("WHERE %s: added %+.3f s (median of %d run%s): the counter layer %.3f s over %s profiled launch(es), "
            "CUPTI's calls and the replayed passes (%s); lib/gpu's set-up %.3f s; the rest %+.3f s, perfcheck's own "
            "(the injection library, the collector, the report, the exit)" % (
                label, added, len(runs), "" if len(runs) == 1 else "s", layer,
                "%g" % statistics.median(profiled) if profiled else "?",
                ", ".join("%s %.3f s" % (n, v / 1e3) for n, v in top), setup_s, rest))


def not_measured_units(report):
    """The units the report's step-2 notes say the set did not measure."""
    for k in (report or {}).get("kernels", []):
        for f in (k.get("diagnosis") or {}).get("findings") or []:
            a = f.get("advice") or ""
            if f.get("step") == 2 and f.get("cause") == "not_assessed" and "covers the units measured: " in a:
                m = re.search(r"covers the units measured: (.*?) (?:were|was) not measured", a)
                if m:
                    return m.group(1)
    return None


# ---- the sections ------------------------------------------------------------
def timing_section(S, host, goal, what, peers):
    """peers: (mode, label) pairs timed beside plain and perfcheck."""
    p, t = S.med("plain", "value"), S.med("perfcheck", "value")
    sec = "A" if host == "C++" else "B"
    counts = "/".join(str(S.n(m, "value")) for m in ["plain", "perfcheck"] + [m for m, _ in peers])
    if not (p and t):
        S.claim(None, "timing %s: no timed plain and perfcheck run printed its RESULT line (logs/%s.*.log)" % (host, sec))
        return
    per = lambda x: (x - p) * 1e3 / 4096  # noqa: E731  us a launch added
    pv = {m: S.med(m, "value") for m, _ in peers}
    S.out("FIGURE timing %s, %s (the loop's wall in the process, median of %s runs plain/perfcheck/%s): "
          "plain %.2f ms (%.2f us a launch), perfcheck %.2f ms (%s, %+.2f us a launch)%s" % (
              host, what, counts, "/".join(m for m, _ in peers), p, p * 1e3 / 4096, t, ratio_text(t, p), per(t),
              "".join(", %s %s" % (label, "%.2f ms (%s, %+.2f us a launch)" % (pv[m], ratio_text(pv[m], p), per(pv[m]))
                                   if pv[m] else "-") for m, label in peers)))
    n = pv.get("nsys")
    loop = S.med("perfcheck", "loop")
    if loop is not None:
        # nsys does its flushing and report after the process: the same
        # loop without perfcheck_session_end is the like-for-like figure.
        S.out("FIGURE timing %s without perfcheck_session_end (its flush, decoding and report, inside the timed "
              "part; median of %d runs): perfcheck %.2f ms (%s, %+.2f us a launch)%s" % (
                  host, S.n("perfcheck", "loop"), loop, ratio_text(loop, p), per(loop),
                  ", nsys %.2f ms (%s)" % (n, ratio_text(n, p)) if n else ""))
    ok = t / p <= goal
    S.claim(ok, "timing %s <= %.2fx plain (%.3fx)" % (host, goal, t / p))
    if host == "C++":
        S.claim(None if not n else t < n, "timing %s ahead of nsys in the same run (perfcheck %.2f ms, nsys %s)" % (
            host, t, "%.2f ms" % n if n else "-: no nsys run"))
        ok = ok and bool(n) and t < n
    peer_text = ", ".join("%s %.2fx" % (label, pv[m] / p) for m, label in peers if pv[m]) or "-"
    S.row = {"workload": "4096 tiny %s, timing mode (median of %d)" % (
                 "C++ launches" if host == "C++" else "PyTorch ops", S.n("perfcheck", "value")),
             "perfcheck": "%.2fx" % (t / p), "peers": peer_text,
             "goal": "<= %.2fx%s" % (goal, ", and below nsys in the same run" if host == "C++" else ""), "met": ok}


def section_A(S, logs):
    timing_section(S, "C++", GOALS["timing_cpp"], "4096 tiny launches", [("nsys", "nsys")])
    names = [("plain", "plain"), ("cb", "callbacks"), ("act", "activity"), ("cbact", "both"),
             ("perfcheck", "perfcheck")]
    v = {m: S.med("probe_" + m, "value") for m, _ in names}
    if any(x is not None for x in v.values()):
        S.out("FIGURE host cost per launch (overhead_probe, median of %d processes, each the median of its rounds): "
              "%s" % (max(S.n("probe_" + m, "value") for m, _ in names),
                      ", ".join("%s %s" % (label, "%.3f us" % v[m] if v[m] is not None else "-") for m, label in names)))
    if all(v[m] is not None for m in ("plain", "cbact", "perfcheck")):
        alone = ", ".join("%s alone %+.3f" % (label, v[m] - v["plain"])
                          for m, label in (("cb", "callbacks"), ("act", "activity")) if v[m] is not None)
        w = ("WHERE timing C++, a launch's host cost (overhead_probe): perfcheck %+.3f us over plain; CUPTI's launch "
             "callbacks and activity records %+.3f us of it%s; perfcheck's own %+.3f us" % (
                 v["perfcheck"] - v["plain"], v["cbact"] - v["plain"], " (%s)" % alone if alone else "",
                 v["perfcheck"] - v["cbact"]))
        S.out(w)
        if S.row is not None:
            S.row["where"] = w


def section_B(S, logs):
    timing_section(S, "PyTorch", GOALS["timing_torch"], "4096 x.add_(1)", [("nsys", "nsys"), ("kineto", "Kineto")])
    reps = sorted({r["rep"] for r in S.runs if r["mode"] == "perfcheck" and r["rep"] != "w"})
    runs = [r for r in progress(logs, "B", "perfcheck", reps) if r.get("setup") is not None]
    if runs and S.row is not None:
        w = ("WHERE timing PyTorch: lib/gpu's set-up %.1f ms and its exit %.1f ms are outside the loop (medians of %d "
             "run%s); inside it each launch pays CUPTI's callbacks and activity records and perfcheck's own share "
             "(section A's probe)" % (statistics.median(r["setup"] for r in runs),
                                       statistics.median(r["exit"] or 0.0 for r in runs), len(runs),
                                       "" if len(runs) == 1 else "s"))
        S.out(w)
        S.row["where"] = w


def counters_section(S, logs, sec, what, modes, extrapolate=False):
    """Counters on one program: the added process wall of each perfcheck mode
    against ncu's with the same list and against ncu --set full's."""
    wp = S.med("plain", "wall")
    if not wp:
        S.claim(None, "counters, %s: no timed plain run exited 0 (logs/%s.plain.*.log)" % (what, sec))
        return
    names = [(m, label) for m, label in (("kernel", "perfcheck kernel replay"), ("rotate", "perfcheck rotate"),
                                         ("ncu", "ncu --metrics <same list>"), ("ncufull", "ncu --set full"),
                                         ("ncufull0", "ncu --set full, no launch profiled")) if m in modes]
    add = {m: S.med(m, "wall") - wp for m, _ in names if S.med(m, "wall") is not None}
    S.out("FIGURE %s, process wall (median of %s runs plain/%s): plain %.3f s; added: %s" % (
        what, S.n("plain", "wall"), "/".join(str(S.n(m, "wall")) for m, _ in names), wp,
        ", ".join("%s %s" % (label, "%+.3f s" % add[m] if m in add else "-") for m, label in names)))
    full, full_note = add.get("ncufull"), ""
    if extrapolate and "ncufull" in add and "ncufull0" in add:
        # ncu --set full profiled the first n launches: one launch costs
        # (added(n) - added(0)) / n, and every launch is extrapolated.
        n = next((int(x) for x in re.findall(r"--launch-count (\d+)", log_text(first_log(logs, sec + ".ncufull")))),
                 None) or HUNDRED_FULL_COUNT
        launches = HUNDRED_LAUNCHES
        per = (add["ncufull"] - add["ncufull0"]) / n
        full = add["ncufull0"] + per * launches
        full_note = " (extrapolated: %d launches measured, %+.3f s a launch, %d launches)" % (n, per, launches)
        S.out("FIGURE %s, ncu --set full over all %d launches, extrapolated from %d launches (%+.3f s) and none "
              "(%+.3f s): %+.3f s a launch, %+.3f s" % (what, launches, n, add["ncufull"], add["ncufull0"], per, full))
    rep = load_report(logs, sec + ".kernel")
    if rep:
        S.out("FIGURE perfcheck's set on this device: %s passes (report of %s.kernel, metric_set %s)" % (
            rep.get("passes"), sec, rep.get("metric_set")))
    ratios = {}
    for ref, limit, label, refv in (("ncu", GOALS["counters_ncu"], "ncu's added wall, same metric list", add.get("ncu")),
                                    ("ncufull", GOALS["counters_full"], "ncu --set full's added wall" + full_note, full)):
        if ref not in [m for m, _ in names]:
            continue
        for m in ("kernel", "rotate"):
            if m not in [x for x, _ in names]:
                continue
            if m not in add:
                S.claim(None, "counters (%s) <= %.2f of %s: no timed %s run exited 0" % (m, limit, label, m))
            elif refv is None or refv <= 0:
                S.claim(None, "counters (%s) <= %.2f of %s: no %s figure (%s)" % (
                    m, limit, label, ref, "no run exited 0" if refv is None else "it added %+.3f s" % refv))
            else:
                ratios[(m, ref)] = add[m] / refv
                S.claim(add[m] / refv <= limit, "counters (%s) <= %.2f of %s (%.3f: %+.3f s against %+.3f s)" % (
                    m, limit, label, add[m] / refv, add[m], refv))
    wheres = [w for w in (where_counters(S, logs, sec, m, "%s, %s" % (what, label), add.get(m))
                          for m, label in (("kernel", "kernel replay"), ("rotate", "rotation")) if m in add) if w]
    for w in wheres:
        S.out(w)
    parts, ok = [], True
    for m, label in (("kernel", "kernel replay"), ("rotate", "rotation")):
        got = ["%.3f of %s" % (ratios[(m, ref)], "ncu's" if ref == "ncu" else "--set full's")
               for ref in ("ncu", "ncufull") if (m, ref) in ratios]
        if got:
            parts.append("%s %s" % (label, ", ".join(got)))
    for (m, ref), v in ratios.items():
        ok = ok and v <= (GOALS["counters_ncu"] if ref == "ncu" else GOALS["counters_full"])
    peers = ", ".join("%s %s" % (label, "%+.2f s" % v) for label, v in (
        ("ncu", add.get("ncu")), ("--set full", full)) if v is not None) or "-"
    goal = "<= %.2f of ncu's" % GOALS["counters_ncu"]
    if "ncufull" in modes:
        goal += " and <= %.2f of --set full's" % GOALS["counters_full"]
    S.row = {"workload": what + ", counters, added wall (median of %d)" % S.n("plain", "wall"),
             "perfcheck": "; ".join(parts) or "-", "peers": peers + full_note.replace(" (", " (--set full ", 1),
             "goal": goal, "met": ok if ratios else None, "where": wheres}


def section_C(S, logs):
    counters_section(S, logs, "C", "4-launch program (mystery)", ("kernel", "rotate", "ncu", "ncufull"))


def section_O(S, logs):
    counters_section(S, logs, "O", "occupancy program (3 launches)", ("kernel", "ncu"))


HUNDRED_LAUNCHES = 101  # the 100 kernels and bench_launches' prime launch
HUNDRED_FULL_COUNT = 4


def section_H(S, logs):
    counters_section(S, logs, "H", "100-kernel program", ("kernel", "ncu", "ncufull", "ncufull0"), extrapolate=True)


def ncu_passes(text):
    """ncu's '... - 38 passes' per profiled kernel."""
    return [int(x) for x in re.findall(r" - (\d+) pass(?:es)?\b", text)]


def section_P(S, logs):
    text = log_text(first_log(logs, "P.sets"))
    sets = {}
    for line in text.splitlines():
        m = re.match(r"PASSES set=(\w+) (.*)", line)
        if m:
            kv = dict(re.findall(r"(\w+) (\d+)", m.group(2)))
            sets[m.group(1)] = kv
    dev = {k: v.get("device0") for k, v in sets.items()}
    ncu = ncu_passes(log_text(first_log(logs, "C.ncufull"))) or ncu_passes(log_text(first_log(logs, "P.ncu")))
    if sets:
        S.out("FIGURE passes on this device (perfcheck metrics --passes): %s; on GH100: %s" % (
            ", ".join("%s %s" % (k, v or "-") for k, v in dev.items()),
            ", ".join("%s %s" % (k, sets[k].get("GH100", "-")) for k in sets)))
    if ncu:
        S.out("FIGURE ncu --set full: %s passes a kernel (%d kernel(s) profiled)" % (
            "/".join(str(x) for x in sorted(set(ncu))), len(ncu)))
    missing = None
    for name in ("C.kernel", "O.kernel", "H.kernel"):
        missing = missing or not_measured_units(load_report(logs, name))
    if missing:
        S.out("FIGURE not measured by the default set (a report's step-2 note): %s" % missing)
    if not sets and not ncu:
        S.claim(None, "passes: no PASSES line (logs/P.sets.*.log) and no ncu --set full log")
        return
    d = dev.get("default")
    where = None
    if missing:
        sol = dev.get("sol") or sets.get("sol", {}).get("GH100")
        where = ("WHERE passes: the default set's %s passes leave out %s; perfcheck's sol set measures every pipe and "
                 "level in %s passes on this device" % (d or "-", missing, sol or "-"))
        S.out(where)
    S.row = {"workload": "passes for the default set",
             "perfcheck": "%s%s" % (d or "-", " (not measured: %s)" % missing if missing else ""),
             "peers": "ncu --set full %s" % ("/".join(str(x) for x in sorted(set(ncu))) if ncu else "-"),
             "goal": "every pipe and level measured, at the least added cost, stated",
             "met": False if missing else None, "where": where}
def dram_compare(S, label, ncu_log, rep, name_match, claim):
    ncu = ncu_rows(ncu_log)
    if ncu is None or rep is None:
        S.claim(None, "DRAM %s: %s" % (label, "no ncu output (%s)" % os.path.basename(ncu_log) if ncu is None
                                      else "no perfcheck report"))
        return
    if not ncu:
        S.claim(None, "DRAM %s: ncu printed no kernel row (%s)" % (label, os.path.basename(ncu_log)))
        return
    done = set()
    for k in rep.get("kernels", []):
        name = k.get("name") or ""
        if not name_match(name) or name in done:
            continue
        mine = [r for r in ncu if r.get("Kernel Name", "").startswith(name)]
        if not mine:
            continue
        done.add(name)
        for met in ("dram__bytes_read.sum", "dram__bytes_write.sum"):
            refs = [num(r[met]) for r in mine if num(r.get(met)) is not None]
            ref = statistics.mean(refs) if refs else None
            v = (k.get("metrics") or {}).get(met)
            rot = k.get("rotation") or {}
            how = "replay %s%s, dram_cold %s" % (
                k.get("replay"), ", groups %s of %s" % (rot.get("collected"), rot.get("groups")) if rot else "",
                k.get("dram_cold"))
            if v is None or not ref:
                S.claim(False if claim else None, "DRAM %s %s %s: perfcheck %s, ncu --cache-control all %s (%s)" % (
                    label, name, met, v, ref, how))
                continue
            text = "DRAM %s %s %s within 10%% of ncu --cache-control all: %.0f vs %.0f (%+.1f%%; %s)" % (
                label, name, met, v, ref, 100 * (v - ref) / ref, how)
            if claim:
                S.claim(abs(v - ref) <= 0.10 * ref, text)
            else:
                S.out("FIGURE " + text.replace(" within 10% of", " against"))
    if not done:
        S.claim(None, "DRAM %s: no kernel of the report matched an ncu row" % label)


def section_D(S, logs):
    if S.runs and any(r["mode"] in ("ncu", "rotate") for r in S.runs):
        dram_compare(S, "mystery (rotate)", first_log(logs, "D.ncu"), load_report(logs, "D.rotate"),
                     lambda n: True, True)
        if any(r["mode"] == "kernel" for r in S.runs):
            dram_compare(S, "mystery (kernel replay)", first_log(logs, "D.ncu"),
                         load_report(logs, "D.kernel"), lambda n: True, False)
    if any(r["mode"].startswith("gemm") for r in S.runs):
        gemm = re.compile(r"gemm|nvjet|xmma|cutlass")
        dram_compare(S, "cuBLAS GEMM (rotate)", first_log(logs, "D.gemm_ncu"),
                     load_report(logs, "D.gemm_rotate"), lambda n: bool(gemm.search(n)), True)


def signature(k):
    return (k.get("name"), tuple(k.get("grid") or ()), tuple(k.get("block") or ()), k.get("dynamic_smem_bytes"),
            k.get("region"))


def section_E(S, logs):
    wp, lp = S.med("plain", "wall"), S.med("plain", "value")
    if not wp:
        S.claim(None, "training step: no timed plain run exited 0 (logs/E.plain.*.log)")
        return
    steps = next((r["steps"] for r in S.runs if r["steps"]), None)
    what = "%s-step" % steps if steps else "?-step"
    walls, verdicts, complete = {}, {}, {}
    for m, label in (("rotate", "rotate"), ("session", "rotate with sessions"), ("kernel", "kernel replay")):
        w, lm = S.med(m, "wall"), S.med(m, "value")
        if w is None and not any(r["mode"] == m for r in S.runs):
            continue  # the mode was not run (SECTIONS' MODES without it)
        if w is None:
            S.claim(None, "training step under %s: no timed run exited 0 (logs/E.%s.*.log)" % (label, m))
            continue
        S.out("FIGURE torch_step, the %s training step (median of %d/%d runs): process wall plain %.2f s, %s %.2f s (%s); "
              "the loop plain %s, %s %s (%s)" % (
                  what, S.n("plain", "wall"), S.n(m, "wall"), wp, label, w, ratio_text(w, wp),
                  "%.1f ms" % lp if lp else "-", label, "%.1f ms" % lm if lm else "-", ratio_text(lm, lp)))
        walls[m] = w / wp
        if m in ("rotate", "session"):
            who = "rotation" if m == "rotate" else "rotation with sessions"
            g = GOALS["rotation"]
            S.claim(w / wp <= g, "%s on the %s training step <= %.2fx plain, process wall (%.3fx)" % (who, what, g, w / wp))
            if lm and lp:
                S.claim(lm / lp <= g, "%s on the %s training step <= %.2fx plain, the loop (%.3fx)" % (who, what, g, lm / lp))
    reps = {m: load_report(logs, "E." + m) for m in ("rotate", "session", "kernel")}
    for m, rep in reps.items():
        if rep is None:
            continue
        ks = rep.get("kernels", [])
        have = [k for k in ks if k.get("replay") or k.get("passes")]
        full = [k for k in have if not k.get("rotation") or
                (k["rotation"].get("collected") or 0) >= (k["rotation"].get("groups") or 0)]
        kinds = {}
        for k in have:
            kinds[k.get("replay")] = kinds.get(k.get("replay"), 0) + 1
        S.out("FIGURE torch_step under %s: %d kernel entries, %d with counters (%s), %d with every group" % (
            m, len(ks), len(have), ", ".join("%s %d" % kv for kv in sorted(kinds.items(), key=str)) or "none", len(full)))
        complete[m] = (len(full), len(ks))
        if m in ("rotate", "session"):
            S.claim(len(full) == len(ks) and ks != [],
                    "every kernel signature has its counters under %s (%d of %d entries complete)" % (
                        "rotation" if m == "rotate" else "rotation with sessions", len(full), len(ks)))
    for m in ("rotate", "session"):
        if not reps[m] or not reps["kernel"]:
            continue
        kern = {signature(k): k for k in reps["kernel"].get("kernels", []) if k.get("diagnosis")}
        # A difference is flagged when either report marks its verdict
        # borderline with the other's as the runner-up (the threshold sits
        # between the two modes' values), or rotation left the entry short
        # of groups (not_assessed, its missing groups named).
        same, differ, flagged = 0, [], []
        for k in reps[m].get("kernels", []):
            other = kern.get(signature(k))
            if not other or not k.get("diagnosis"):
                continue
            da, db = k["diagnosis"], other["diagnosis"]
            a, b = da.get("cause"), db.get("cause")
            if a == b:
                same += 1
                continue
            rot = k.get("rotation") or {}
            short = (rot.get("collected") or 0) < (rot.get("groups") or 0)
            why = ("borderline" if (da.get("borderline") and da.get("runner_up") == b) or
                   (db.get("borderline") and db.get("runner_up") == a) else "short of groups" if short else None)
            (flagged if why else differ).append("%s: %s %s, kernel %s, counter_spread %s%s" % (
                k.get("display_name") or k.get("name"), m, a, b, k.get("counter_spread"),
                " (%s)" % why if why else ""))
        who = "rotation" if m == "rotate" else "rotation with sessions"
        n = same + len(differ) + len(flagged)
        if n == 0:
            S.claim(None, "%s's verdicts against kernel replay's: no signature with a verdict in both reports" % who)
        else:
            verdicts[m] = (same, n, len(flagged), len(differ))
            S.claim(not differ, "%s's verdicts are kernel replay's or flagged where they differ: %d of %d signatures "
                    "the same, %d differ flagged%s%s" % (
                        who, same, n, len(flagged), ("; flagged: " + "; ".join(flagged[:5])) if flagged else "",
                        ("; differ unflagged: " + "; ".join(differ[:5])) if differ else ""))
    wheres = [w for w in (where_counters(S, logs, "E", m, "the %s training step, %s" % (what, label),
                                         S.med(m, "wall") - wp if S.med(m, "wall") is not None else None)
                          for m, label in (("rotate", "rotation"), ("session", "rotation with sessions"),
                                           ("kernel", "kernel replay"))
                          if any(r["mode"] == m for r in S.runs)) if w]
    for w in wheres:
        S.out(w)
    rot = "rotate" if "rotate" in walls else "session" if "session" in walls else None
    if rot is None:
        return
    parts = ["%.2fx process wall" % walls[rot]]
    if "kernel" in walls:
        parts.append("kernel replay %.2fx" % walls["kernel"])
    if rot in complete:
        parts.append("%d of %d entries with every group" % complete[rot])
    if rot in verdicts:
        same, n, fl, dif = verdicts[rot]
        parts.append("verdicts: %d of %d as kernel replay's, %d flagged, %d differ unflagged" % (same, n, fl, dif))
    S.row = {"workload": "%s PyTorch training step, rotation (median of %d)" % (what, S.n(rot, "wall")),
             "perfcheck": "; ".join(parts), "peers": "-",
             "goal": "<= %.2fx, every signature's counters, kernel replay's verdicts (differences flagged)"
                     % GOALS["rotation"],
             "met": walls[rot] <= GOALS["rotation"] and (rot not in complete or complete[rot][0] == complete[rot][1])
                    and (rot not in verdicts or verdicts[rot][3] == 0),
             "where": wheres}


SECTIONS = {"A": section_A, "B": section_B, "C": section_C, "O": section_O, "H": section_H, "P": section_P,
            "D": section_D, "E": section_E}
TABLE_ORDER = "ABCOPHE"  # the table's rows, in the order a reader asks


def md_table(runs):
    modes = []
    for r in runs:
        if r["mode"] not in modes:
            modes.append(r["mode"])
    rows = ["| mode | timed runs (rc) | process wall median s | in-process value median | min..max | warm-up wall s |",
            "| --- | --- | --- | --- | --- | --- |"]
    for m in modes:
        t = [r for r in runs if r["mode"] == m and r["rep"] != "w"]
        w = [r for r in runs if r["mode"] == m and r["rep"] == "w"]
        walls = [r["wall"] for r in t if r["rc"] == 0]
        vals = [r["value"] for r in t if r["value"] is not None]
        span = vals or walls
        rows.append("| %s | %d (%s) | %s | %s | %s | %s |" % (
            m, len(t), ",".join(str(r["rc"]) for r in t) or "-",
            "%.3f" % statistics.median(walls) if walls else "-",
            "%.3f" % statistics.median(vals) if vals else "-",
            "%.3f..%.3f" % (min(span), max(span)) if span else "-",
            ", ".join("%.3f (rc %d)" % (r["wall"], r["rc"]) for r in w) or "-"))
    return rows


def summarize(runs_path, logs, section):
    S = Section(parse_runs(runs_path, section))
    if not S.runs:
        S.claim(None, "section %s: no run was made" % section)
    else:
        try:
            SECTIONS[section](S, logs)
        except Exception as e:  # a summary that breaks says so and keeps the others
            S.claim(None, "section %s: its summary failed: %s: %s" % (section, type(e).__name__, e))
    return S


def env_lines(path):
    """The ENV lines of bench_overhead.sh's summary.txt, by key."""
    env = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"ENV ([^:]+?)(?: \(.*?\))?: (.*)", line.strip())
                if m and m.group(1) not in env:
                    env[m.group(1)] = m.group(2)
    except OSError:
        pass
    return env


def cell(text):
    return str(text).replace("|", "/").replace("\n", " ")


def table(runs_path, logs, env_path, sections=TABLE_ORDER):
    """The overhead table: a row per section of SECTIONS that has one, in TABLE_ORDER."""
    out = []
    env = env_lines(env_path) if env_path else {}
    gpu = env.get("GPU", "not recorded")
    out.append("# What perfcheck costs the programs it profiles")
    out.append("")
    out.append("GPU (name, driver, ...): %s. Date: %s. Source: %s. %s; ncu %s; nsys %s; %s." % (
        gpu, env.get("date", "-"), env.get("source", "-"), env.get("perfcheck", "perfcheck -"),
        env.get("ncu", "-"), env.get("nsys", "-"), env.get("python", "python -")))
    out.append("Ratios are medians of alternating whole-process runs; counters' are of the added process wall "
               "(the mode's less plain's).")
    out.append("")
    out.append("| workload | perfcheck | peers | goal | met |")
    out.append("| --- | --- | --- | --- | --- |")
    wheres, skipped = [], []
    for sec in (x for x in TABLE_ORDER if x in sections):
        S = summarize(runs_path, logs, sec)
        if not S.runs:
            skipped.append(sec)
            continue
        r = S.row
        if r is None:
            why = "; ".join(l for l in S.lines if l.startswith(("SKIP", "FAIL"))) or "no figure"
            out.append("| section %s | %s | - | - | - |" % (sec, cell(why)))
            continue
        met = {True: "yes", False: "**no**", None: "-"}[r["met"]]
        out.append("| %s | %s | %s | %s | %s |" % (cell(r["workload"]), cell(r["perfcheck"]), cell(r["peers"]),
                                                  cell(r["goal"]), met))
        if r["met"] is False:
            w = r.get("where")
            w = [w] if isinstance(w, str) else (w or [])
            wheres.append((r["workload"], w))
    if skipped:
        out.append("")
        out.append("Not run: section%s %s (bench_overhead.sh's SKIP lines say why)." % (
            "s" if len(skipped) > 1 else "", ", ".join(skipped)))
    if wheres:
        out.append("")
        out.append("Where the time goes, for each goal missed:")
        for what, ws in wheres:
            out.append("- %s:%s" % (what, "" if ws else " no breakdown measured"))
            for w in ws:
                out.append("  - %s" % (w[len("WHERE "):] if w.startswith("WHERE ") else w))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--section", choices=sorted(SECTIONS))
    what.add_argument("--table", action="store_true", help="one table of every section in --runs")
    ap.add_argument("--title", default="")
    ap.add_argument("--runs", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--md")
    ap.add_argument("--env", help="with --table: bench_overhead.sh's summary.txt, for its ENV lines")
    ap.add_argument("--sections", default=TABLE_ORDER, help="with --table: the sections asked for (default: all)")
    ap.add_argument("--note", default="", help="a line for the Markdown only (the rounds the budget cut)")
    a = ap.parse_args()
    if a.table:
        print("\n".join(table(a.runs, a.logs, a.env, a.sections.replace(" ", ""))))
        return 0
    S = summarize(a.runs, a.logs, a.section)
    for line in S.lines:
        print(line, flush=True)
    if a.md:
        with open(a.md, "a") as f:
            f.write("\n## %s. %s\n\n" % (a.section, a.title))
            if S.runs:
                f.write("\n".join(md_table(S.runs)) + "\n\n")
            f.write("".join("- %s\n" % l for l in S.lines + ([a.note] if a.note else [])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
