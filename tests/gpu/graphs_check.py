"""Reads a perfcheck JSON report and says what it holds for CUDA graphs
(scripts/device/bench graphs):

    python3 graphs_check.py REPORT.json [--min-graphs N]

One line per graph entry (name, launches, kernels, groups collected, the
missing ones' reason, how many of its metrics have values, its verdict), one
line on its kernels' entries, then PASS/FAIL lines:
  - at least N graph entries (default 1);
  - every graph entry launched at least as often as the set has groups
    collected every group, and has counters (passes > 0, metrics with values);
  - every kernel entry with a graph names its graph's entry (graph.entry),
    and has no counters of its own unless it was also launched on a stream.
Exit 0 when every check passed, 1 otherwise, 2 on a bad input."""
import json
import sys


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    min_graphs = 1
    if "--min-graphs" in argv:
        min_graphs = int(argv[argv.index("--min-graphs") + 1])
    try:
        with open(argv[1]) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print("FAIL cannot read %s: %s" % (argv[1], e))
        return 2
    kernels = rep.get("kernels") or []
    graphs = [k for k in kernels if k.get("graph_launch")]
    members = [k for k in kernels if k.get("graph")]
    names = {k["name"] for k in graphs}
    print("report: %d kernel entries, %d graph entries, %d graph kernels' entries, metric_set %s, passes %s"
          % (len(kernels), len(graphs), len(members), rep.get("metric_set"), rep.get("passes")))
    ok = True
    if len(graphs) < min_graphs:
        print("FAIL graph entries: %d, want at least %d" % (len(graphs), min_graphs))
        ok = False
    for g in graphs:
        gl = g["graph_launch"]
        rot = g.get("rotation") or {}
        metrics = g.get("metrics") or {}
        measured = sum(1 for v in metrics.values() if v is not None)
        diag = g.get("diagnosis") or {}
        print("graph entry %r: %s launches, %s kernels a launch (%s distinct), replay %s, groups %s of %s, "
              "profiled %s, %d of %d metrics measured, verdict %s (step %s), missing: %s"
              % (g["name"], g.get("launches"), gl.get("kernels"), gl.get("signatures"), g.get("replay"),
                 rot.get("collected"), rot.get("groups"), g.get("profiled_launches"), measured, len(metrics),
                 diag.get("cause"), diag.get("step"), rot.get("missing_reason") or g.get("not_measured_reason")))
        groups = rot.get("groups") or 0
        if not g.get("passes") or measured == 0:
            print("FAIL %r has no counters: %s" % (g["name"], g.get("not_measured_reason")))
            ok = False
        elif groups and g.get("launches", 0) >= groups and rot.get("collected") != groups:
            print("FAIL %r: launched %s times, %s of %s groups (%s)" % (g["name"], g.get("launches"),
                                                                    rot.get("collected"), groups,
                                                                    rot.get("missing_reason")))
            ok = False
    bad = []
    for k in members:
        entry = k["graph"].get("entry")
        own = k.get("passes", 0) > 0
        if entry not in names:
            bad.append("%s: entry %r" % (k["name"], entry))
        elif not own and "counters are in the entry" not in (k.get("not_measured_reason") or ""):
            bad.append("%s: reason %r" % (k["name"], k.get("not_measured_reason")))
    print("graph kernels: %d entries name their graph's entry, %d do not%s"
          % (len(members) - len(bad), len(bad), (": " + "; ".join(bad[:5])) if bad else ""))
    if bad or not members:
        print("FAIL graph kernels' entries (%d, %d wrong)" % (len(members), len(bad)))
        ok = False
    print("%s graphs: %d graph entries with counters, their kernels pointing to them"
          % ("PASS" if ok else "FAIL", len(graphs)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
