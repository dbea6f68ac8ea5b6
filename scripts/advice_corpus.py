#!/usr/bin/env python3
"""advice_corpus.py: does perfcheck's advice pay?  Scores the kernels/advice corpus.

    advice_corpus.py [--pairs PAIRS.tsv] [--timing TIME.tsv] [--report REPORT.json]
                     [--format text|json] [--speedup-min 1.2] [--roof-max 1.1]

TIME.tsv is `advice --time`'s output (one row per pair and variant, with the
median time and the speedup of the change).  REPORT.json is a perfcheck JSON
report of `advice --profile`: in process (`perfcheck run --format json -o X --
advice --profile`: each kernel's region is its NVTX range advice:<pair>:<variant>),
or offline (`perfcheck diagnose --format json` of an ncu export written with
`--print-nvtx-rename kernel`: each kernel is named after its range).  Kernels
are joined to pairs through that name; a range with several kernels (CUB's
sort) is judged by its longest one.

Per pair it prints the verdict on the original, whether that verdict names
the pair's change (pairs.tsv's `names`: a cause word, or cause:stall when the
change is named only together with that dominant stall reason), the speedup
the change measured, and the result:
  fault          right: the verdict names the change and the change paid
                 (>= --speedup-min); missed: the change paid, the verdict does
                 not name it; named, did not pay / dud: the change did not pay
                 (the pair does not test the rule: drop it or fix it).
  at_roof        right: at_roof, and the usual edit gave < --roof-max (or the
                 entry has no edit); wrong: another verdict; premise broken:
                 the edit paid, so the kernel was not at a roof for it.
  counterexample right: the verdict does not advise the change (pairs.tsv
                 lists the verdicts that would); wrong: it does; premise
                 broken: the change was not slower on this GPU.
Per cause (the first of a fault's names) it prints: pairs, changes that paid,
verdicts right, advice followed (the verdict named the change), advice that
paid, and the geomean speedup of the advice followed; then the totals beside
the published anchor (GPA, CGO 2021: 1.22x geomean from following its advice
on a V100).

The dominant stall perfcheck names is read from the verdict when the report
has it (a field such as `stall`/`dominant_stall`, or a stall metric as the
verdict's metric); the stall with the most warps per issued instruction in
the kernel's own counters is printed beside it for information only.

Exit status: 0 when the inputs could be read (whatever the scores), 2 on bad
input (a missing or malformed file, a pairs file without its header).
"""

import argparse
import json
import math
import os
import re
import sys

ANCHOR = "GPA (Zhou et al., CGO 2021): 1.22x geomean speedup from following its advice on a V100"
# advice:<pair>:<variant>, also with '/' separators; never a C++ name such as
# advice::stream::scale_f32 (a second ':' cannot start a pair id).
RANGE_RE = re.compile(r"(?<![A-Za-z0-9_])advice[:/]([A-Za-z0-9_]+)[:/](orig|changed)(?![A-Za-z0-9_])")
STALL_METRIC_RE = re.compile(r"smsp__(?:average_)?(?:pcsamp_)?warps_issue_stalled_([a-z_]+?)(?:_per_issue_active\.ratio|\.sum|\.avg|\b)")
NOT_STALLS = {"selected", "not_selected"}
KINDS = ("fault", "at_roof", "counterexample", "probe")


class BadInput(Exception):
    pass


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- inputs -------------------------------------------------------------------------------------
def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("%s: %s" % (path, e))


def read_pairs(path):
    header, pairs = None, []
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split("\t")
        if header is None:
            if f[:4] != ["id", "kind", "names", "change"]:
                raise BadInput("%s:%d: the header must start id, kind, names, change" % (path, n))
            header = f
            continue
        if len(f) != len(header):
            raise BadInput("%s:%d: %d fields, the header has %d" % (path, n, len(f), len(header)))
        row = dict(zip(header, f))
        if row["kind"] not in KINDS:
            raise BadInput("%s:%d: kind %r is not one of %s" % (path, n, row["kind"], ", ".join(KINDS)))
        row["names"] = [x.strip() for x in row["names"].split(",") if x.strip()]
        if not row["names"]:
            raise BadInput("%s:%d: no names" % (path, n))
        pairs.append(row)
    if header is None or not pairs:
        raise BadInput("%s: no header or no pairs" % path)
    return pairs


def number(s):
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def read_timing(path):
    """{pair: {variant: row}} and the header lines."""
    meta, header, out = [], None, {}
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            meta.append(line[1:].strip())
            continue
        f = line.split("\t")
        if header is None:
            if f[:5] != ["pair", "kind", "variant", "status", "median_ms"]:
                raise BadInput("%s:%d: the header must start pair, kind, variant, status, median_ms" % (path, n))
            header = f
            continue
        if len(f) < 5:
            raise BadInput("%s:%d: %d fields" % (path, n, len(f)))
        row = dict(zip(header, f))
        row["median_ms"] = number(row.get("median_ms", "-"))
        out.setdefault(row["pair"], {})[row["variant"]] = row
    if header is None:
        raise BadInput("%s: no header line (pair, kind, variant, status, median_ms, ...)" % path)
    return out, meta


def read_report(path):
    try:
        rep = json.loads(read_text(path))
    except ValueError as e:
        raise BadInput("%s: not JSON: %s" % (path, e))
    if not isinstance(rep, dict) or not isinstance(rep.get("kernels"), list):
        raise BadInput("%s: not a perfcheck report (no kernels list)" % path)
    return rep


# ---- joining kernels to pairs ------------------------------------------------------------------------
def pair_key(k):
    """(pair, variant) from a kernel's region, else from its names; None when neither is an advice range."""
    for field in ("region", "name", "display_name", "demangled"):
        v = k.get(field)
        if isinstance(v, str):
            m = RANGE_RE.search(v)
            if m:
                return m.group(1), m.group(2)
    return None


def weight(k):
    t = k.get("total_ns")
    if isinstance(t, (int, float)):
        return float(t)
    d = k.get("duration_ns")
    if isinstance(d, dict) and isinstance(d.get("median"), (int, float)):
        return float(d["median"]) * float(k.get("launches") or 1)
    return 0.0


def stall_word(v):
    if isinstance(v, str):
        m = STALL_METRIC_RE.search(v)
        return m.group(1) if m else v
    if isinstance(v, dict):
        for key in ("name", "reason", "stall", "word"):
            if isinstance(v.get(key), str):
                return stall_word(v[key])
    return None


def named_stall(k):
    """The dominant stall perfcheck itself names for this kernel, or None."""
    d = k.get("diagnosis") or {}
    for src in (d, k, k.get("derived") or {}):
        for key in ("stall", "dominant_stall", "stall_reason", "top_stall"):
            w = stall_word(src.get(key))
            if w:
                return w
    metric = d.get("metric")
    if isinstance(metric, str):
        m = STALL_METRIC_RE.search(metric)
        if m:
            return m.group(1)
    return None


def counter_stall(k):
    """(reason, warps per issue) with the most stalled warps in the kernel's counters; information only."""
    best = None
    for name, v in (k.get("metrics") or {}).items():
        m = re.match(r"smsp__average_warps_issue_stalled_([a-z_]+)_per_issue_active\.ratio$", name)
        if m and m.group(1) not in NOT_STALLS and isinstance(v, (int, float)):
            if best is None or v > best[1]:
                best = (m.group(1), float(v))
    return best


def join(report):
    entries, unjoined = {}, 0
    for k in report["kernels"]:
        key = pair_key(k)
        if key is None:
            unjoined += 1
            continue
        entries.setdefault(key, []).append(k)
    main = {key: max(ks, key=weight) for key, ks in entries.items()}
    return main, entries, unjoined


def names_match(names, cause, stall):
    for n in names:
        c, _, s = n.partition(":")
        if c == cause and (not s or s == stall):
            return True
    return False


# ---- scoring --------------------------------------------------------------------------------------------
def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def score(pairs, timing, report, speedup_min, roof_max, extreme_min=10.0):
    main, entries, unjoined = join(report) if report else ({}, {}, 0)
    rows = []
    for p in pairs:
        pid, kind = p["id"], p["kind"]
        t = timing.get(pid, {}) if timing is not None else {}
        o, c = t.get("orig"), t.get("changed")
        has_edit = p["change"] != "-"
        if timing is None:
            tstat = None
        elif o is None:
            tstat = "missing"
        elif o.get("status") != "ok":
            tstat = o.get("status")
        elif has_edit and c is None:
            tstat = "no changed row"
        elif has_edit and c.get("status") != "ok":
            tstat = c.get("status")
        elif not o["median_ms"] or (has_edit and not c["median_ms"]):
            tstat = "no median"
        else:
            tstat = "ok"
        speedup = o["median_ms"] / c["median_ms"] if tstat == "ok" and has_edit else None
        k = main.get((pid, "orig"))
        cause = ((k.get("diagnosis") or {}).get("cause") if k else None)
        stall = named_stall(k) if k else None
        cst = counter_stall(k) if k else None
        named = names_match(p["names"], cause, stall) if cause else None
        row = {"pair": pid, "kind": kind, "names": p["names"], "change": p["change"],
               "verdict": cause, "stall": stall, "counter_stall": cst[0] if cst else None,
               "counter_stall_ratio": cst[1] if cst else None,
               "advice": ((k.get("diagnosis") or {}).get("advice") if k else None),
               "kernels": len(entries.get((pid, "orig"), [])),
               "kernel": (k.get("display_name") or k.get("name")) if k else None,
               "time_share": k.get("kernel_time_share") if k else None,
               "rank": k.get("rank") if k else None,
               "timing": tstat, "speedup": speedup, "named": named,
               "estimated_speedup": (((k.get("diagnosis") or {}).get("estimated_gain") or {}).get("speedup")
                                     if k else None)}
        changed_k = main.get((pid, "changed"))
        row["verdict_changed"] = ((changed_k.get("diagnosis") or {}).get("cause") if changed_k else None)
        paid = None if speedup is None else speedup >= speedup_min
        if kind == "fault":
            if report is None:
                result = {True: "paid", False: "did not pay", None: "no timing"}[paid]
            elif k is None:
                result = "no verdict"
            elif paid is None:
                result = ("named" if named else "not named") + " (no timing)"
            elif paid:
                result = "right" if named else "missed"
            else:
                result = "named, did not pay" if named else "dud"
        elif kind == "at_roof":
            if has_edit and speedup is not None and speedup >= roof_max:
                result = "premise broken"
            elif report is None:
                result = "edit did not pay" if speedup is not None else ("no edit" if not has_edit else "no timing")
            elif k is None:
                result = "no verdict"
            else:
                result = "right" if cause == "at_roof" else "wrong"
        elif kind == "probe":
            # A rule decided by a pair: right when the verdict names the
            # change exactly when the change pays.
            if speedup is None:
                result = "no timing"
            elif report is None or k is None:
                result = "paid" if paid else "did not pay"
            elif named == bool(paid):
                result = "agrees" + (" (named, paid)" if named else " (not named, did not pay)")
            else:
                result = "disagrees" + (" (named, did not pay)" if named else " (not named, paid)")
        else:
            advised = names_match(p["names"], cause, stall) if cause else None
            row["named"] = advised
            if speedup is not None and speedup >= 1.0:
                result = "premise broken"
            elif report is None:
                result = "slower" if speedup is not None else "no timing"
            elif k is None:
                result = "no verdict"
            else:
                result = "wrong" if advised else "right"
        row["result"] = result
        rows.append(row)

    # per cause (fault pairs, grouped by their first name)
    causes = {}
    for r in rows:
        if r["kind"] != "fault":
            continue
        g = causes.setdefault(r["names"][0], {"pairs": 0, "paid": 0, "right": 0, "followed": 0, "followed_paid": 0,
                                              "followed_speedups": []})
        g["pairs"] += 1
        paid = r["speedup"] is not None and r["speedup"] >= speedup_min
        g["paid"] += paid
        g["right"] += bool(paid and r["named"])
        if r["named"]:
            g["followed"] += 1
            g["followed_paid"] += paid
            if r["speedup"] is not None:
                g["followed_speedups"].append(r["speedup"])
    for g in causes.values():
        g["geomean_followed"] = geomean(g.pop("followed_speedups"))

    faults = [r for r in rows if r["kind"] == "fault"]
    valid = [r for r in faults if r["speedup"] is not None and r["speedup"] >= speedup_min]
    followed = [r for r in faults if r["named"]]
    roofs = [r for r in rows if r["kind"] == "at_roof" and r["result"] != "premise broken"]
    counters = [r for r in rows if r["kind"] == "counterexample" and r["result"] != "premise broken"]
    totals = {
        "fault_pairs": len(faults),
        "fault_changes_paid": len(valid),
        "fault_verdicts_right": sum(1 for r in valid if r["named"]),
        "fault_verdicts_right_share": (sum(1 for r in valid if r["named"]) / len(valid)) if valid else None,
        "advice_followed": len(followed),
        "advice_followed_paid": sum(1 for r in followed if r["speedup"] is not None and r["speedup"] >= speedup_min),
        "geomean_advice_followed": geomean([r["speedup"] for r in followed if r["speedup"] is not None]),
        "geomean_changes_paid": geomean([r["speedup"] for r in valid]),
        "geomean_advice_followed_no_extremes": geomean([r["speedup"] for r in followed
                                                        if r["speedup"] is not None and r["speedup"] < extreme_min]),
        "extremes_left_out": sorted(r["pair"] for r in followed if r["speedup"] is not None
                                    and r["speedup"] >= extreme_min),
        "at_roof_entries": len(roofs),
        "at_roof_called_at_roof": sum(1 for r in roofs if r["result"] == "right"),
        "at_roof_premise_broken": sum(1 for r in rows if r["kind"] == "at_roof" and r["result"] == "premise broken"),
        "counterexamples": len(counters),
        "counterexamples_not_advised": sum(1 for r in counters if r["result"] == "right"),
        "counterexample_premise_broken": sum(1 for r in rows if r["kind"] == "counterexample"
                                             and r["result"] == "premise broken"),
        "report_kernels": len(report["kernels"]) if report else 0,
        "report_kernels_unjoined": unjoined,
        "pairs_without_verdict": sum(1 for r in rows if r["result"] == "no verdict"),
        "probes": sum(1 for r in rows if r["kind"] == "probe"),
        "probes_agree": sum(1 for r in rows if r["kind"] == "probe" and r["result"].startswith("agrees")),
        "probes_disagree": sum(1 for r in rows if r["kind"] == "probe" and r["result"].startswith("disagrees")),
    }
    return rows, causes, totals


# ---- output -----------------------------------------------------------------------------------------------
def fmt_x(v):
    return "-" if v is None else "%.2fx" % v


def print_text(rows, causes, totals, meta, report, args, out):
    w = out.write
    w("advice corpus: does perfcheck's advice pay?\n")
    for m in meta:
        if m.startswith("gpu=") or m.startswith("advice --time"):
            w("  timing: %s\n" % m)
    if report is not None:
        w("  report: %s, source %s, metric set %s, %d kernels (%d outside advice ranges)\n" % (
            ", ".join(args.report), report.get("source"), report.get("metric_set"), totals["report_kernels"],
            totals["report_kernels_unjoined"]))
    if args.part != "all":
        w("  part: %s (pairs.tsv's part column)\n" % args.part)
    w("  thresholds: a change pays at >= %.2fx; a usual edit of an at_roof kernel gives < %.2fx\n\n" % (
        args.speedup_min, args.roof_max))
    share = any(r["time_share"] is not None for r in rows)
    w("%-20s %-14s %-26s %-16s %-16s %8s %s %s\n" % ("pair", "kind", "verdict (orig)", "stall (perfcheck)",
                                                   "stall (counters)", "speedup", "share rank " if share else "",
                                                   "result"))
    for r in rows:
        v = r["verdict"] or "-"
        if r["kernels"] > 1:
            v += " (%d kernels)" % r["kernels"]
        sr = ""
        if share:
            sr = "%5s %4s " % ("-" if r["time_share"] is None else "%.2f" % r["time_share"],
                               "-" if r["rank"] is None else r["rank"])
        w("%-20s %-14s %-26s %-16s %-16s %8s %s %s%s\n" % (
            r["pair"], r["kind"], v, r["stall"] or "-", r["counter_stall"] or "-", fmt_x(r["speedup"]), sr, r["result"],
            "" if r["timing"] in (None, "ok") else "  [timing: %s]" % r["timing"]))
    w("\nper cause (fault pairs, by the first verdict that names their change)\n")
    w("%-44s %5s %5s %6s %9s %12s %10s\n" % ("cause", "pairs", "paid", "right", "followed", "followed&paid",
                                             "geomean"))
    for c in sorted(causes):
        g = causes[c]
        w("%-44s %5d %5d %6d %9d %12d %10s\n" % (c, g["pairs"], g["paid"], g["right"], g["followed"],
                                                 g["followed_paid"], fmt_x(g["geomean_followed"])))
    t = totals
    w("\ntotals\n")
    share = t["fault_verdicts_right_share"]
    w("  fault pairs: %d; changes that paid (>= %.2fx): %d; verdicts naming them: %d%s\n" % (
        t["fault_pairs"], args.speedup_min, t["fault_changes_paid"], t["fault_verdicts_right"],
        " (%.0f%%)" % (100 * share) if share is not None else ""))
    w("  advice followed (verdict named the change): %d, of which paid: %d; geomean speedup of advice followed: %s "
      "(of every change that paid: %s)\n" % (t["advice_followed"], t["advice_followed_paid"],
                                             fmt_x(t["geomean_advice_followed"]), fmt_x(t["geomean_changes_paid"])))
    w("  geomean of advice followed without the changes of %.0fx or more (%s): %s\n" % (
        args.extreme_min, ", ".join(t["extremes_left_out"]) or "none", fmt_x(t["geomean_advice_followed_no_extremes"])))
    w("  at_roof entries called at_roof: %d of %d (%d more whose usual edit paid: premise broken)\n" % (
        t["at_roof_called_at_roof"], t["at_roof_entries"], t["at_roof_premise_broken"]))
    w("  counterexamples not advised: %d of %d (%d more whose change was not slower: premise broken)\n" % (
        t["counterexamples_not_advised"], t["counterexamples"], t["counterexample_premise_broken"]))
    if t["probes"]:
        w("  probes (a rule decided by a pair: the verdict names the change exactly when it pays): %d agree, "
          "%d disagree, of %d\n" % (t["probes_agree"], t["probes_disagree"], t["probes"]))
    if t["pairs_without_verdict"]:
        w("  pairs with no kernel in the report: %d\n" % t["pairs_without_verdict"])
    w("  published anchor: %s\n" % ANCHOR)


def merge_reports(reports):
    """Several reports as one: their kernels in one list (each names its own ranges)."""
    if not reports:
        return None
    if len(reports) == 1:
        return reports[0]
    out = dict(reports[0])
    out["kernels"] = [k for r in reports for k in r["kernels"]]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--pairs", action="append", help="a manifest (repeatable; default kernels/advice/pairs.tsv)")
    ap.add_argument("--timing", action="append", help="advice --time output (repeatable)")
    ap.add_argument("--report", action="append", help="perfcheck JSON report of advice --profile (repeatable)")
    ap.add_argument("--part", choices=("all", "tune", "valid"), default="all",
                    help="score only the pairs of this part of the corpus (pairs.tsv's part column)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--speedup-min", type=float, default=1.2)
    ap.add_argument("--roof-max", type=float, default=1.1)
    ap.add_argument("--extreme-min", type=float, default=10.0,
                    help="a followed change at or above this speedup is left out of the second geomean")
    args = ap.parse_args(argv)
    if not args.timing and not args.report:
        ap.error("give --timing, --report or both")
    args.pairs = args.pairs or [os.path.join(repo_root(), "kernels", "advice", "pairs.tsv")]
    try:
        pairs = [p for path in args.pairs for p in read_pairs(path)]
        timing, meta = None, []
        for path in args.timing or []:
            t, m = read_timing(path)
            timing = dict(timing or {}, **t)
            meta += m
        report = merge_reports([read_report(path) for path in args.report or []])
    except BadInput as e:
        print("advice_corpus.py: %s" % e, file=sys.stderr)
        return 2
    if args.part != "all":
        pairs = [p for p in pairs if p.get("part", "tune") == args.part]
    if timing is not None:
        unknown = sorted(set(timing) - {p["id"] for p in pairs})
        if unknown and args.part == "all":
            print("advice_corpus.py: the timing names pairs not in %s (ignored): %s" % (", ".join(args.pairs),
                                                                                     ", ".join(unknown)),
                  file=sys.stderr)
    rows, causes, totals = score(pairs, timing, report, args.speedup_min, args.roof_max, args.extreme_min)
    if args.format == "json":
        json.dump({"schema": "advice-corpus/1", "pairs_file": args.pairs, "timing": args.timing, "report": args.report,
                   "part": args.part, "timing_header": meta, "speedup_min": args.speedup_min,
                   "roof_max": args.roof_max, "extreme_min": args.extreme_min,
                   "anchor": ANCHOR, "pairs": rows, "causes": causes, "totals": totals}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_text(rows, causes, totals, meta, report, args, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
