#!/usr/bin/env python3
"""Checks `perfcheck diagnose --format json` (and csv) against the report
contract (docs/report-contract.md) with a real JSON parser.

usage: check_json.py PERFCHECK_BINARY TEST_DATA_DIR

For each fixture: the output parses as strict JSON (NaN or Infinity would be
rejected), every contract field is there with the right type, every metric of
the table is a key of "metrics", values that were not measured are null (never
0), and the fixture-specific facts hold (verdicts, names, substitutes).
"""
import csv
import io
import json
import subprocess
import sys

FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
    return cond


def reject_constant(name):
    raise ValueError("not JSON: %s" % name)


def run(binary, *args):
    p = subprocess.run([binary, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        sys.exit("%s %s: exit %d: %s" % (binary, " ".join(args), p.returncode,
                                         p.stderr.decode("utf-8", "replace")))
    return p.stdout


NUM = (int, float)
NUM_OR_NULL = (int, float, type(None))
STR_OR_NULL = (str, type(None))

FINDING = {"step": int, "cause": str, "metric": STR_OR_NULL, "value": NUM_OR_NULL,
           "threshold": NUM_OR_NULL, "advice": STR_OR_NULL}
DIAGNOSIS = dict(FINDING, bound=str, findings=list)
CAUSES = {"none", "not_the_slow_part", "launch_overhead", "uncoalesced_global_loads",
          "uncoalesced_global_stores", "local_memory_spills", "shared_bank_conflicts",
          "atomic_contention", "divergent_warps", "occupancy_registers",
          "occupancy_shared_memory", "occupancy_warps", "occupancy_blocks", "grid_too_small",
          "at_roof", "latency_bound", "not_assessed", "partial_warps", "communication"}
TOP = {"schema": str, "tool": dict, "device": dict, "regions": list, "kernels": list,
       "warnings": list, "source": str, "metric_set": str, "passes": int}
DEVICE = {"name": STR_OR_NULL, "compute_capability": STR_OR_NULL, "sm_count": (int, type(None)),
          "peak_dram_bytes_per_s": NUM_OR_NULL, "peak_fp32_flop_per_s": NUM_OR_NULL,
          "ridge_flop_per_byte": NUM_OR_NULL, "ceilings_source": STR_OR_NULL}
KERNEL = {"name": str, "mangled": STR_OR_NULL, "region": STR_OR_NULL, "device_ordinal": (int, type(None)),
          "grid": list, "block": list,
          "dynamic_smem_bytes": NUM_OR_NULL, "launches": int, "profiled_launches": int,
          "duration_ns": dict, "attributes": dict, "metrics": dict, "metric_sources": dict,
          "not_measured_reason": STR_OR_NULL, "passes": int, "derived": dict, "diagnosis": dict}
ATTRIBUTES = ["registers_per_thread", "static_smem_bytes", "local_bytes_per_thread",
              "max_threads_per_block", "blocks_per_sm", "warps_per_sm",
              "theoretical_occupancy_pct", "occupancy_limit_warps", "occupancy_limit_blocks",
              "occupancy_limit_registers", "occupancy_limit_shared_mem", "waves_per_sm",
              "model_blocks_per_sm"]
DERIVED = ["sectors_per_request_ld", "sectors_per_request_st", "threads_per_instruction",
           "achieved_occupancy_pct", "theoretical_occupancy_pct", "arithmetic_intensity"]


def check_fields(obj, spec, where):
    for key, types in spec.items():
        if check(key in obj, "%s: no field %r" % (where, key)):
            check(isinstance(obj[key], types) and not isinstance(obj[key], bool),
                  "%s.%s: %r is not %s" % (where, key, obj[key], types))


def check_diagnosis(d, where):
    check_fields(d, DIAGNOSIS, where)
    check(d.get("cause") in CAUSES, "%s: cause %r" % (where, d.get("cause")))
    check(d.get("bound") in ("memory", "compute", "latency", "unknown"), "%s: bound" % where)
    check(0 <= d.get("step", -1) <= 5, "%s: step %r" % (where, d.get("step")))
    for i, f in enumerate(d.get("findings", [])):
        check_fields(f, FINDING, "%s.findings[%d]" % (where, i))
        check(f.get("cause") in CAUSES, "%s.findings[%d]: cause" % (where, i))


def check_report(doc, table, label):
    check_fields(doc, TOP, label)
    check(doc.get("schema") == "perfcheck-report/2", label + ": schema")
    check(doc["tool"].get("name") == "perfcheck", label + ": tool.name")
    check(isinstance(doc["tool"].get("version"), str), label + ": tool.version")
    # Where an in-process report's numbers came from; null offline.
    cupti = doc["tool"].get("cupti", "missing")
    check(cupti is None or (isinstance(cupti, dict) and isinstance(cupti.get("path"), STR_OR_NULL)
                            and isinstance(cupti.get("version"), int)
                            and cupti.get("preloaded") in (True, False, None)), label + ": tool.cupti %r" % (cupti,))
    check("demangler" in doc["tool"] and isinstance(doc["tool"]["demangler"], STR_OR_NULL), label + ": tool.demangler")
    if doc.get("source") == "ncu-export":
        check(cupti is None and doc["tool"]["demangler"] is None, label + ": tool.cupti/demangler null offline")
    check_fields(doc["device"], DEVICE, label + ".device")
    for i, g in enumerate(doc["regions"]):
        check_diagnosis(g.get("diagnosis", {}), "%s.regions[%d].diagnosis" % (label, i))
    for i, k in enumerate(doc["kernels"]):
        where = "%s.kernels[%d]" % (label, i)
        check_fields(k, KERNEL, where)
        check(len(k["grid"]) == 3 and len(k["block"]) == 3, where + ": grid/block of 3")
        for key in ("min", "median", "max"):
            check(key in k["duration_ns"], "%s.duration_ns: no %s" % (where, key))
        for key in ATTRIBUTES:
            check(key in k["attributes"], "%s.attributes: no %s" % (where, key))
        check("binding_limit" in k["attributes"], where + ".attributes: no binding_limit")
        for name in table:
            if check(name in k["metrics"], "%s.metrics: no %s" % (where, name)):
                check(isinstance(k["metrics"][name], NUM_OR_NULL), "%s.metrics[%s]" % (where, name))
        for name, source in k["metric_sources"].items():
            check(name in table and isinstance(source, str), "%s.metric_sources[%s]" % (where, name))
        for key in DERIVED:
            check(key in k["derived"], "%s.derived: no %s" % (where, key))
        check_diagnosis(k["diagnosis"], where + ".diagnosis")
    for w in doc["warnings"]:
        check(isinstance(w, str), label + ": warning not a string")


def load(binary, path, table):
    raw = run(binary, "diagnose", "--format", "json", "--quiet", path)
    text = raw.decode("utf-8")  # strict: the writer must emit valid UTF-8
    doc = json.loads(text, parse_constant=reject_constant)
    check_report(doc, table, path.rsplit("/", 1)[-1])
    return doc


def kernels_by(doc, name):
    return [k for k in doc["kernels"] if k["name"] == name]


def main():
    binary, data = sys.argv[1], sys.argv[2]
    table = run(binary, "metrics", "--set", "full").decode().strip().split(",")
    check(len(table) >= 20, "perfcheck metrics --set full lists %d metrics" % len(table))

    # Seed 000 on the T4: the four verdicts, nulls where the seed printed nothing.
    t4 = load(binary, data + "/t4_seed000.csv", table)
    check(t4["source"] == "ncu-export", "t4: source")
    check(t4["device"]["compute_capability"] == "7.5", "t4: compute_capability")
    check(t4["device"]["sm_count"] == 40, "t4: sm_count")
    verdicts = {}
    for k in t4["kernels"]:
        verdicts[(k["name"], k["dynamic_smem_bytes"])] = (k["diagnosis"]["step"], k["diagnosis"]["cause"])
    check(verdicts.get(("mysteryA", 0)) == (3, "uncoalesced_global_loads"), "t4: mysteryA %r" % verdicts)
    check(verdicts.get(("mysteryB", 0)) == (4, "divergent_warps"), "t4: mysteryB")
    check(verdicts.get(("mysteryC", 48000)) == (5, "occupancy_shared_memory"), "t4: mysteryC 48000")
    check(verdicts.get(("mysteryC", 0)) == (0, "at_roof"), "t4: mysteryC 0")
    a = kernels_by(t4, "mysteryA")[0]
    check(a["metrics"]["sm__throughput.avg.pct_of_peak_sustained_elapsed"] is None,
          "t4: an unmeasured metric is null")
    check(a["metrics"]["lts__t_requests_op_atom.sum"] is None, "t4: a missing column is null")
    check(a["mangled"] is None and a["region"] is None, "t4: mangled and region are null offline")
    check(abs(a["derived"]["sectors_per_request_ld"] - 31.91) < 0.005, "t4: 31.91")
    check(a["metrics"]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 131072, "t4: requests")
    check(a["metric_sources"] == {}, "t4: no substitutes")

    # The hand-made export: merging and substitutes.
    v = load(binary, data + "/ncu_raw_valid.csv", table)
    s = kernels_by(v, "scaleAdd<4>")
    if check(len(s) == 1, "valid: one scaleAdd<4> entry"):
        s = s[0]
        check(s["launches"] == 3, "valid: 3 launches")
        check(s["duration_ns"] == {"min": 10500, "median": 11000, "max": 12000}, "valid: durations %r" % s["duration_ns"])
        check(s["metric_sources"] == {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum":
                                      "smsp__sass_inst_executed_op_global_ld.sum"},
              "valid: metric_sources %r" % s["metric_sources"])

    # Unusable values: null, never 0, and a warning each.
    u = load(binary, data + "/ncu_unusable_values.csv", table)
    n = kernels_by(u, "nanKernel")[0]
    check(n["metrics"]["dram__bytes_read.sum"] is None, "unusable: NaN is null")
    check(n["derived"]["achieved_occupancy_pct"] is None, "unusable: n/a is null")
    z = kernels_by(u, "zeroReq")[0]
    check(z["derived"]["sectors_per_request_ld"] is None, "unusable: zero requests give null")
    check(z["duration_ns"]["median"] is None, "unusable: inf duration is null")
    check(any("nanKernel" in w and "dram__bytes_read.sum" in w for w in u["warnings"]), "unusable: warning")

    # Hostile names survive (invalid UTF-8 as U+FFFD).
    h = load(binary, data + "/ncu_hostile_names.csv", table)
    names = [k["name"] for k in h["kernels"]]
    want = ['quote"Kernel', "comma,kernel<1, 2>", "newline\nkernel", "ctrl\x01\x1b[31mkernel(int)",
            "bad\ufffdutf8\ufffd", "tab\tkernel", "Name"]
    check(names == want, "hostile: names %r" % names)

    # CSV: one row per kernel, the same names, nulls as empty fields.
    raw = run(binary, "diagnose", "--format", "csv", "--quiet", data + "/ncu_hostile_names.csv")
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8"), newline="")))
    check(rows[0][:3] == ["name", "region", "grid"], "csv: header %r" % rows[0][:3])
    # Control characters are visible escapes in CSV, never raw.
    want_csv = [n.replace("\n", "\\n").replace("\t", "\\t").replace("\x01", "\\x01").replace("\x1b", "\\x1b")
                for n in want]
    check([r[0] for r in rows[1:]] == want_csv, "csv: names %r" % [r[0] for r in rows[1:]])
    check(not any(c < " " for r in rows for f in r for c in f), "csv: a raw control character")
    check(all(len(r) == len(rows[0]) for r in rows), "csv: ragged rows")
    raw = run(binary, "diagnose", "--format", "csv", "--quiet", data + "/t4_seed000.csv")
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8"), newline="")))
    check(len(rows) == 4, "csv: 4 T4 rows")
    # Longest total time first (seed 000's T4 times: B 2.145 ms, C48000 1.414, C0 1.184, A 0.449).
    check([(r["name"], r["dynamic_smem_bytes"]) for r in rows] ==
          [("mysteryB", "0"), ("mysteryC", "48000"), ("mysteryC", "0"), ("mysteryA", "0")],
          "csv: rows by total time %r" % [(r["name"], r["dynamic_smem_bytes"]) for r in rows])
    check(all(float(rows[i]["total_ns"]) >= float(rows[i + 1]["total_ns"]) for i in range(3)), "csv: total_ns order")
    a = [r for r in rows if r["name"] == "mysteryA"][0]
    check(a["threads_per_instruction_pred_on"] == "", "csv: unmeasured is an empty field")
    check(a["cause"] == "uncoalesced_global_loads", "csv: cause")
    check(a["display_name"] == "mysteryA", "csv: display_name")

    if FAILURES:
        for f in FAILURES:
            print("FAIL:", f)
        sys.exit(1)
    print("ok: %d kernels checked in 4 reports" % sum(len(d["kernels"]) for d in (t4, v, u, h)))


if __name__ == "__main__":
    main()
