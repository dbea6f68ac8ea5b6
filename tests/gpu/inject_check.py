#!/usr/bin/env python3
"""Checks of the JSON reports that the injection library wrote for unmodified
programs (tests/gpu/test_inject.sh).  One check per call:

  inject_check.py mystery REPORT.json          the four seed verdicts
  inject_check.py launches REPORT.json         4097 launches, step 1 caught
  inject_check.py roundtrip REPORT.json        step 1 not_the_slow_part
  inject_check.py kernels REPORT.json N        at least N kernel entries
  inject_check.py nvtx REPORT.json PROGRAM     one region per NVTX range
  inject_check.py nvtx_gate REPORT.json        counters only inside "second"
  inject_check.py nvtx_startend_gate REPORT.json  counters only inside the start/end range "phase"
  inject_check.py partial REPORT.json REGION.. these regions (a signal, exit())
  inject_check.py torch REPORT.json            a PyTorch script's kernels named
  inject_check.py linked REPORT.json COUNTERS_STDOUT
      the verdict words per kernel signature equal those the linked API gave
      (gpu_test_counters prints "mysteryA dyn      0 B: step 3 <cause> ...")
  inject_check.py linked_region REPORT.json REGION LINKED_STDOUT
      the program region's step-1 cause equals the linked API's region cause
      ("region roundtrip: ... step 1, cause not_the_slow_part")

Prints PASS/FAIL lines; exit status 0 when every line passed.
"""
import json
import re
import sys

failures = 0


def check(ok, what):
    global failures
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        failures += 1
    return ok


def load(path):
    with open(path) as f:
        return json.load(f)


def diag(entry):
    d = entry.get("diagnosis") or {}
    return d.get("step"), d.get("cause")


def region(report, name):
    for g in report.get("regions", []):
        if g.get("name") == name:
            return g
    return None


def kernels(report, name):
    return [k for k in report.get("kernels", []) if k.get("name") == name]


def describe(k):
    step, cause = diag(k)
    return "%s grid %s dyn %s region %s: step %s %s, launches %s, profiled %s%s" % (
        k.get("name"), k.get("grid"), k.get("dynamic_smem_bytes"), k.get("region"), step, cause,
        k.get("launches"), k.get("profiled_launches"),
        "" if not k.get("not_measured_reason") else " (" + k["not_measured_reason"] + ")")


def check_mystery(r):
    want = [("mysteryA", False, 3, "uncoalesced_global_loads"), ("mysteryB", False, 4, "divergent_warps"),
            ("mysteryC", True, 5, "occupancy_shared_memory"), ("mysteryC", False, 0, "at_roof")]
    check(r.get("metric_set") not in (None, "none", ""), "counters were collected (metric_set %s)" % r.get("metric_set"))
    g = region(r, "mystery")
    if check(g is not None, "a region named after the program (mystery)"):
        check(g.get("launches") == 4, "region mystery: %s launches, want 4" % g.get("launches"))
    for name, reserved, step, cause in want:
        ks = [k for k in kernels(r, name) if ((k.get("dynamic_smem_bytes") or 0) > 0) == reserved]
        label = "%s with %s dynamic shared memory" % (name, "a reserve of" if reserved else "0 B")
        if not check(len(ks) == 1, "%s: one entry (got %d)" % (label, len(ks))):
            continue
        k = ks[0]
        check(diag(k) == (step, cause), "%s: step %s %s, want step %d %s; %s" % (label, diag(k)[0], diag(k)[1], step,
                                                                                 cause, describe(k)))
        check(k.get("region") is None, "%s: no region (the program region does not mask steps 2-5)" % label)
        check((k.get("profiled_launches") or 0) >= 1, "%s: profiled (%s)" % (label, describe(k)))


def check_launches(r):
    g = region(r, "launches")
    if not check(g is not None, "a region named after the program (launches)"):
        return
    d = g.get("diagnosis") or {}
    check(g.get("launches") == 4097, "region launches: %s launches, want 4097" % g.get("launches"))
    check(d.get("step") == 1 and d.get("cause") in ("launch_overhead", "not_the_slow_part"),
          "region launches: step %s %s (launch_overhead for the launch loop alone; the program region also holds "
          "the host checks and copies, so not_the_slow_part is right too); kernel share %s, idle %s ns" %
          (d.get("step"), d.get("cause"), g.get("kernel_share"), g.get("gpu_idle_ns")))
    counts = sorted(k.get("launches") for k in kernels(r, "add_one"))
    check(counts == [1, 4096], "add_one: entries with %s launches, want [1, 4096]" % counts)


def check_roundtrip(r):
    g = region(r, "roundtrip")
    if not check(g is not None, "a region named after the program (roundtrip)"):
        return
    d = g.get("diagnosis") or {}
    check((d.get("step"), d.get("cause")) == (1, "not_the_slow_part"),
          "region roundtrip: step %s %s, want step 1 not_the_slow_part" % (d.get("step"), d.get("cause")))
    check((g.get("memcpy_ns") or 0) > (g.get("kernel_ns") or 0) > 0,
          "region roundtrip: memcpy %s ns above kernel %s ns" % (g.get("memcpy_ns"), g.get("kernel_ns")))
    check(len(kernels(r, "scale_head")) == 1, "scale_head: one entry")


def check_kernels(r, n):
    ks = r.get("kernels", [])
    check(len(ks) >= n, "%d kernel entries (want at least %d): %s" % (len(ks), n, ", ".join(sorted({k.get("name") or "?" for k in ks}))))


def check_nvtx(r, program):
    g = {x.get("name"): x for x in r.get("regions", [])}
    for name in ("first", "second", "outer", "inner", "phase", program):
        check(name in g, "region %s (regions: %s)" % (name, sorted(g)))
    if "inner" in g:
        check(g["inner"].get("parent") == "outer", "region inner: parent %s, want outer" % g["inner"].get("parent"))
    for name in ("first", "second", "outer", "phase"):
        if name in g:
            check(g[name].get("parent") == program, "region %s: parent %s, want %s" % (name, g[name].get("parent"), program))
    for name, launches in (("first", 1), ("second", 1), ("outer", 1), ("inner", 1), ("phase", 1)):
        if name in g:
            check(g[name].get("launches") == launches, "region %s: %s launches, want %d" % (name, g[name].get("launches"), launches))
    key = lambda t: (t[0] or "", t[1] or "")
    where = sorted(((k.get("name"), k.get("region")) for k in r.get("kernels", [])), key=key)
    want = sorted([("nvtx_fill", "first"), ("nvtx_scale", "second"), ("nvtx_fill", "inner"), ("nvtx_fill", None),
                   ("nvtx_scale", "phase")], key=key)
    check(where == want, "kernels by region: %s, want %s" % (where, want))


def check_nvtx_gate(r):
    for k in r.get("kernels", []):
        if k.get("region") == "second":
            check((k.get("profiled_launches") or 0) >= 1, "inside PERFCHECK_NVTX=second: profiled; %s" % describe(k))
        else:
            check((k.get("profiled_launches") or 0) == 0 and "PERFCHECK_NVTX" in (k.get("not_measured_reason") or ""),
                  "outside: not profiled, and says why; %s" % describe(k))


def check_nvtx_startend_gate(r):
    """--nvtx-include phase (no '/': ncu's start/end syntax): counters only for
    the launch inside the start/end range, which another thread ended."""
    inside = [k for k in r.get("kernels", []) if k.get("region") == "phase"]
    check(len(inside) == 1, "one kernel in the start/end range phase: %d" % len(inside))
    for k in r.get("kernels", []):
        if k.get("region") == "phase":
            check((k.get("profiled_launches") or 0) >= 1 and k.get("metrics", {}).get("gpu__time_duration.sum"),
                  "inside the start/end range phase: profiled; %s" % describe(k))
        else:
            check((k.get("profiled_launches") or 0) == 0 and "NVTX range filter" in (k.get("not_measured_reason") or ""),
                  "outside: not profiled, and says why; %s" % describe(k))
    notes = " ".join(r.get("warnings", []))
    check("start/end ranges were not followed" not in notes, "every start/end range followed (CUPTI gave its id)")


def check_partial(r, names):
    have = sorted(x.get("name") for x in r.get("regions", []))
    for name in names:
        check(name in have, "region %s in the report written at the signal or exit() (regions: %s)" % (name, have))
    check(len(r.get("kernels", [])) >= 1, "kernels in it: %d" % len(r.get("kernels", [])))


def check_torch(r):
    names = sorted({k.get("name") or "" for k in r.get("kernels", [])})
    check(len(names) >= 2, "%d distinct kernels: %s" % (len(names), names[:12]))
    check(any(re.search(r"elementwise|vectorized|unrolled", n) for n in names), "an elementwise kernel is named")
    check(any(re.search(r"gemm|gemv|cutlass|xmma|sm90|matmul|cublas", n, re.I) for n in names), "a matmul kernel is named")
    check(all(n and n != "(unknown)" for n in names), "every kernel has a name")


def check_linked(r, linked_stdout):
    linked = {}
    with open(linked_stdout) as f:
        for line in f:
            m = re.match(r"^(mystery[ABC])\s+dyn\s+(\d+) B: step (\d) (\S+)", line)
            if m:
                linked[(m.group(1), int(m.group(2)) > 0)] = (int(m.group(3)), m.group(4))
    if not check(len(linked) == 4, "the linked API's four verdicts read (%s)" % linked):
        return
    for (name, reserved), want in sorted(linked.items()):
        ks = [k for k in kernels(r, name) if ((k.get("dynamic_smem_bytes") or 0) > 0) == reserved]
        got = diag(ks[0]) if len(ks) == 1 else None
        check(got == want, "%s (%s dynamic shared memory): injected %s, linked %s" %
              (name, "reserved" if reserved else "0 B", got, want))


def check_linked_region(r, name, linked_stdout):
    linked = None
    with open(linked_stdout) as f:
        for line in f:
            m = re.match(r"^region %s: .* step (\d), cause (\S+)" % re.escape(name), line)
            if m:
                linked = (int(m.group(1)), m.group(2))
    g = region(r, name)
    got = None
    if g is not None:
        d = g.get("diagnosis") or {}
        got = (d.get("step"), d.get("cause"))
    check(linked is not None and got == linked, "region %s: injected %s, linked %s" % (name, got, linked))


def main(argv):
    what, path = argv[1], argv[2]
    try:
        r = load(path)
    except (OSError, ValueError) as e:
        check(False, "%s: not a JSON report: %s" % (path, e))
        return 1
    check(r.get("schema") == "perfcheck-report/2", "%s: schema %s" % (path, r.get("schema")))
    if what == "mystery":
        check_mystery(r)
    elif what == "launches":
        check_launches(r)
    elif what == "roundtrip":
        check_roundtrip(r)
    elif what == "kernels":
        check_kernels(r, int(argv[3]))
    elif what == "nvtx":
        check_nvtx(r, argv[3])
    elif what == "nvtx_gate":
        check_nvtx_gate(r)
    elif what == "nvtx_startend_gate":
        check_nvtx_startend_gate(r)
    elif what == "partial":
        check_partial(r, argv[3:])
    elif what == "torch":
        check_torch(r)
    elif what == "linked":
        check_linked(r, argv[3])
    elif what == "linked_region":
        check_linked_region(r, argv[3], argv[4])
    else:
        check(False, "unknown check " + what)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
