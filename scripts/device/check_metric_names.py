#!/usr/bin/env python3
"""Checks ncu metric names against `ncu --query-metrics` output, offline.

    check_metric_names.py [--query FILE] [--accepted FILE] [--names FILE]...
                          [--list A,B,...] [--print-valid]

A name passes when
  * its base name (the part before the first '.') is listed in the query file
    and its suffix is one that metric type takes:
      Counter     .sum|.avg|.min|.max, optionally followed by a submetric
                  (.per_second, .per_cycle_active, .pct_of_peak_sustained_active, ...)
      Throughput  .sum|.avg|.min|.max followed by a submetric
      Ratio       .ratio|.pct|.max_rate
  * or it is a launch statistic or device attribute (launch__*,
    device__attribute_*), which --query-metrics does not list;
  * or it has no suffix and the --accepted file (default
    tests/data/h200/metrics.txt, the names ncu 2025.3.1 accepted on the H200
    and wrote a column for) lists it (sm__maximum_warps_per_active_cycle_pct).

--query defaults to the GH100 list committed next to this script
(scripts/device/corpus/gh100_ncu_query_metrics.txt.gz, plain or gzip; the
device script passes the device's own `ncu --query-metrics` output).
--names defaults to scripts/device/corpus/metrics.txt; --list adds a
comma-separated list (e.g. `perfcheck metrics --set full`).

Prints one line per rejected name (with the closest listed names) and a
summary; exit 0 when every name passes, 1 otherwise, 2 on bad input.
--print-valid prints the passing names, comma-separated, on stdout (the
report goes to stderr then).
"""

import argparse
import difflib
import gzip
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_QUERY = os.path.join(HERE, "corpus", "gh100_ncu_query_metrics.txt.gz")
DEFAULT_NAMES = os.path.join(HERE, "corpus", "metrics.txt")
DEFAULT_ACCEPTED = os.path.join(ROOT, "tests", "data", "h200", "metrics.txt")

ROLLUPS = {"sum", "avg", "min", "max"}
# Submetrics after a rollup (ncu's "Metrics Structure": per-unit-of-time,
# per-cycle and percent-of-peak forms, and the peaks themselves).
SUBMETRICS = {
    "per_second",
    "per_cycle_active",
    "per_cycle_elapsed",
    "per_cycle_in_frame",
    "per_cycle_in_region",
    "pct_of_peak_sustained_active",
    "pct_of_peak_sustained_elapsed",
    "pct_of_peak_sustained_frame",
    "pct_of_peak_sustained_region",
    "peak_sustained",
    "peak_sustained_active",
    "peak_sustained_active.per_second",
    "peak_sustained_elapsed",
    "peak_sustained_elapsed.per_second",
    "peak_sustained_frame",
    "peak_sustained_frame.per_second",
    "peak_sustained_region",
    "peak_sustained_region.per_second",
}
RATIO_SUFFIXES = {"ratio", "pct", "max_rate"}
LINE = re.compile(r"^(\S+)\s+(Counter|Ratio|Throughput)\b")


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", "replace")


def load_query(path):
    """{base name: type} from `ncu --query-metrics` output."""
    types = {}
    for line in read_text(path).splitlines():
        m = LINE.match(line)
        if m:
            types[m.group(1)] = m.group(2)
    return types


def load_names(path):
    names = []
    for line in read_text(path).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return names


def load_accepted(path):
    """Names under '# N metrics used' in a metrics.txt of ncu_exports.sh."""
    if not path or not os.path.exists(path):
        return set()
    used, keep = set(), False
    for line in read_text(path).splitlines():
        if line.startswith("#"):
            keep = "metrics used" in line
            continue
        if keep and line.strip():
            used.add(line.strip())
    return used


def check(name, types, accepted):
    """(ok, how or why)."""
    if name.startswith("launch__") or name.startswith("device__attribute_"):
        return True, "launch statistic / device attribute"
    base, dot, suffix = name.partition(".")
    if not dot:
        if name in accepted:
            return True, "accepted by ncu on the H200 before (--accepted)"
        if name in types:
            return False, "%s %s needs a suffix" % (types[name], name)
        return False, "not listed"
    kind = types.get(base)
    if kind is None:
        return False, "base name %s not listed" % base
    if kind == "Ratio":
        if suffix in RATIO_SUFFIXES:
            return True, kind
        return False, "Ratio %s takes .ratio, .pct or .max_rate, not .%s" % (base, suffix)
    rollup, dot, sub = suffix.partition(".")
    if rollup not in ROLLUPS:
        return False, "%s %s needs .sum/.avg/.min/.max first, not .%s" % (kind, base, rollup)
    if kind == "Throughput" and not sub:
        return False, "Throughput %s needs a submetric (e.g. .%s.pct_of_peak_sustained_elapsed)" % (base, rollup)
    if sub and sub not in SUBMETRICS:
        return False, "%s %s: unknown submetric .%s" % (kind, base, sub)
    return True, kind


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--query", default=DEFAULT_QUERY, help="ncu --query-metrics output (plain or .gz)")
    ap.add_argument("--accepted", default=DEFAULT_ACCEPTED, help="metrics.txt of an earlier ncu_exports.sh run")
    ap.add_argument("--names", action="append", help="file of names, one a line, '#' comments")
    ap.add_argument("--list", action="append", default=[], help="comma-separated names")
    ap.add_argument("--print-valid", action="store_true", help="print the passing names, comma-separated")
    a = ap.parse_args(argv)
    try:
        types = load_query(a.query)
        names = []
        for f in a.names or ([] if a.list else [DEFAULT_NAMES]):
            names += load_names(f)
        accepted = load_accepted(a.accepted)
    except OSError as e:
        print("check_metric_names: %s" % e, file=sys.stderr)
        return 2
    for lst in a.list:
        names += [n.strip() for n in lst.split(",") if n.strip()]
    if not types:
        print("check_metric_names: no metric lines in %s" % a.query, file=sys.stderr)
        return 2
    seen, valid, bad, how = set(), [], [], {}
    for n in names:
        if n in seen:
            continue
        seen.add(n)
        ok, why = check(n, types, accepted)
        if ok:
            valid.append(n)
            how[why] = how.get(why, 0) + 1
        else:
            close = difflib.get_close_matches(n.partition(".")[0], list(types), n=3, cutoff=0.8)
            bad.append("%s: %s%s" % (n, why, ("; listed: " + ", ".join(close)) if close else ""))
    out = sys.stderr if a.print_valid else sys.stdout
    for b in bad:
        print("REJECTED " + b, file=out)
    print("%d names: %d pass (%s), %d rejected; query file %s (%d metrics)" % (
        len(seen), len(valid), ", ".join("%d %s" % (v, k) for k, v in sorted(how.items())), len(bad),
        os.path.basename(a.query), len(types)), file=out)
    if a.print_valid:
        print(",".join(valid))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
