#!/usr/bin/env python3
"""The figures of one section of scripts/bench_overhead.sh.

    bench_overhead_summary.py --section C --runs OUT/runs.txt --logs OUT/logs --md OUT/bench_overhead.md

Reads the section's RUN lines (one per process:
`RUN sec=C mode=plain rep=1 rc=0 wall_s=0.5412 cap_s=60 | RESULT ...`), prints
its FIGURE, PASS/FAIL and SKIP lines on stdout and appends a Markdown part
(a table of every mode's runs, then the same lines) to --md.  Warm-up runs
(rep=w) are shown in the table and left out of the medians.  A run counts
for a process-wall figure when it exited 0; for an in-process figure (the
RESULT line's wall_ms or us_per_launch, torch_step's loop time) when it
printed the line.
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


# ---- the sections ------------------------------------------------------------
def timing_section(S, host, claim_max, what):
    p, t, n = S.med("plain", "value"), S.med("perfcheck", "value"), S.med("nsys", "value")
    counts = "/".join(str(S.n(m, "value")) for m in ("plain", "perfcheck", "nsys"))
    if not (p and t):
        S.claim(None, "timing %s: no timed plain and perfcheck run printed its RESULT line (logs/%s.*.log)" % (
            host, "A" if host == "C++" else "B"))
        return
    per = lambda x: (x - p) * 1e3 / 4096  # noqa: E731  us a launch added
    S.out("FIGURE timing %s, %s (the loop's wall in the process, median of %s runs plain/perfcheck/nsys): "
          "plain %.2f ms (%.2f us a launch), perfcheck %.2f ms (%s, %+.2f us a launch), nsys %s" % (
              host, what, counts, p, p * 1e3 / 4096, t, ratio_text(t, p), per(t),
              "%.2f ms (%s, %+.2f us a launch)" % (n, ratio_text(n, p), per(n)) if n else "-"))
    loop = S.med("perfcheck", "loop")
    if loop is not None:
        # nsys does its flushing and report after the process: the same
        # loop without perfcheck_session_end is the like-for-like figure.
        S.out("FIGURE timing %s without perfcheck_session_end (its flush, decoding and report, inside the timed "
              "part; median of %d runs): perfcheck %.2f ms (%s, %+.2f us a launch)%s" % (
                  host, S.n("perfcheck", "loop"), loop, ratio_text(loop, p), per(loop),
                  ", nsys %.2f ms (%s)" % (n, ratio_text(n, p)) if n else ""))
    S.claim(t / p <= claim_max, "timing %s <= %.2fx plain (%.3fx)" % (host, claim_max, t / p))
    S.claim(None if not n else t < n, "timing %s ahead of nsys in the same run (perfcheck %.2f ms, nsys %s)" % (
        host, t, "%.2f ms" % n if n else "-: no nsys run"))


def section_A(S, logs):
    timing_section(S, "C++", 1.10, "4096 tiny launches")
    names = [("plain", "plain"), ("cb", "callbacks"), ("act", "activity"), ("actz", "activity, zeroed buffers"),
             ("actpin", "activity, pinned record buffers"), ("cbact", "both"), ("perfcheck", "perfcheck"),
             ("nsys", "plain under nsys")]
    v = {m: S.med("probe_" + m, "value") for m, _ in names}
    if any(x is not None for x in v.values()):
        diff = lambda a, b: v[a] - v[b] if v[a] is not None and v[b] is not None else None  # noqa: E731
        notes = [(label, diff(a, b)) for label, a, b in (
            ("perfcheck over plain", "perfcheck", "plain"),
            ("perfcheck's own (over callbacks and activity)", "perfcheck", "cbact"),
            ("nsys over plain", "nsys", "plain"))]
        S.out("FIGURE host cost per launch (overhead_probe, median of %d processes, each the median of its rounds): "
              "%s%s" % (
                  max(S.n("probe_" + m, "value") for m, _ in names),
                  ", ".join("%s %s" % (label, "%.3f us" % v[m] if v[m] is not None else "-") for m, label in names),
                  "".join("; %s %+.3f us" % (label, d) for label, d in notes if d is not None)))


def section_B(S, logs):
    timing_section(S, "PyTorch", 1.05, "4096 x.add_(1)")


def section_C(S, logs):
    wp = S.med("plain", "wall")
    if not wp:
        S.claim(None, "counters against ncu: no timed plain run of mystery exited 0 (logs/C.plain.*.log)")
        return
    names = [("kernel", "perfcheck kernel replay"), ("rotate", "perfcheck rotate"),
             ("ncu", "ncu --metrics <same list>"), ("ncufull", "ncu --set full")]
    add = {m: S.med(m, "wall") - wp for m, _ in names if S.med(m, "wall") is not None}
    S.out("FIGURE mystery --profile, process wall (median of %s runs plain/%s): plain %.3f s; added: %s" % (
        S.n("plain", "wall"), "/".join(str(S.n(m, "wall")) for m, _ in names), wp,
        ", ".join("%s %s" % (label, "%+.3f s" % add[m] if m in add else "-") for m, label in names)))
    rep = load_report(logs, "C.kernel")
    if rep:
        S.out("FIGURE perfcheck's default set on this device: %s passes (report of C.kernel, metric_set %s)" % (
            rep.get("passes"), rep.get("metric_set")))
    for ref, limit, label in (("ncu", 0.10, "ncu's added wall, same metric list"),
                              ("ncufull", 0.02, "ncu --set full's added wall")):
        for m in ("kernel", "rotate"):
            if m not in add:
                S.claim(None, "counters (%s) <= %.2f of %s: no timed %s run exited 0" % (m, limit, label, m))
            elif ref not in add or add[ref] <= 0:
                S.claim(None, "counters (%s) <= %.2f of %s: no %s figure (%s)" % (
                    m, limit, label, ref, "no run exited 0" if ref not in add else "it added %+.3f s" % add[ref]))
            else:
                S.claim(add[m] / add[ref] <= limit, "counters (%s) <= %.2f of %s (%.3f: %+.3f s against %+.3f s)" % (
                    m, limit, label, add[m] / add[ref], add[m], add[ref]))


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
        if m in ("rotate", "session"):
            who = "rotation" if m == "rotate" else "rotation with sessions"
            S.claim(w / wp <= 1.10, "%s on the %s training step <= 1.10x plain, process wall (%.3fx)" % (who, what, w / wp))
            if lm and lp:
                S.claim(lm / lp <= 1.10, "%s on the %s training step <= 1.10x plain, the loop (%.3fx)" % (who, what, lm / lp))
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
            S.claim(not differ, "%s's verdicts are kernel replay's or flagged where they differ: %d of %d signatures "
                    "the same, %d differ flagged%s%s" % (
                        who, same, n, len(flagged), ("; flagged: " + "; ".join(flagged[:5])) if flagged else "",
                        ("; differ unflagged: " + "; ".join(differ[:5])) if differ else ""))


SECTIONS = {"A": section_A, "B": section_B, "C": section_C, "D": section_D, "E": section_E}


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--section", required=True, choices=sorted(SECTIONS))
    ap.add_argument("--title", default="")
    ap.add_argument("--runs", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--md")
    ap.add_argument("--note", default="", help="a line for the Markdown only (the rounds the budget cut)")
    a = ap.parse_args()
    S = Section(parse_runs(a.runs, a.section))
    if not S.runs:
        S.claim(None, "section %s: no run was made" % a.section)
    else:
        try:
            SECTIONS[a.section](S, a.logs)
        except Exception as e:  # a summary that breaks says so and keeps the others
            S.claim(None, "section %s: its summary failed: %s: %s" % (a.section, type(e).__name__, e))
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
