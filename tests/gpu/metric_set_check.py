"""The default metric set on the GPU: what its passes cost against the
previous default, and whether its values for the pipes and L2 equal ncu's
rows.  Run on the GPU machine from the repository, after the README's build:

    python3 tests/gpu/metric_set_check.py [--build build] [--out DIR] [--steps N]

1. Pass cost (kernel replay, PERFCHECK_PROGRESS=1): build/kernels/mystery
   --profile and examples/python/torch_step.py --plain --steps N (default 20;
   skipped without PyTorch) under `perfcheck run`, once with the previous
   default's counters (OLD_DEFAULT below: the same CUPTI configuration, 4
   passes on GH100) and once with the default set.  Prints, per program and
   set, "PASSCOST program set passes=P launches=N replay_ms_each=E
   start_ms=S": E is the counter layer's "launch+replay" time per profiled
   launch (the launch and its replayed passes), S its "start" total (the
   first Start on a profiler object, about 140 ms on an H200, paid once).
2. Values: build/kernels/roofs --profile (an FP64-bound, an XU-bound and an
   L2-bound kernel) in process with the default set, and under
   `ncu --set full --metrics <the default set> --clock-control none`,
   read offline by `perfcheck diagnose`.  For each kernel the unit's own
   rows must agree within TOL_PCT percentage points: the FP64 pipe for
   dfma_chain, the XU pipe for xu_chain, and for l2_read each of L2's
   sub-units the default set collects plus ncu's lts__throughput against
   the largest of them (its definition: the maximum over its sub-units).
   Both verdicts must be at_roof; an INFO line names l2_read's busiest L2
   sub-unit in process and the L2 rows step 2 reads (STEP2_L2): the
   in-process verdict can be at_roof only when the busiest is one of them.
Writes its logs, reports and the export under --out (default
./metric_set_check).  Exit 0 when every check passed, 1 when one failed,
77 when a needed program (ncu, the build) is missing."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

TOL_PCT = 3.0

# The previous default set's counters, as CUPTI was given them (the SASS
# substitutes by their own names): 4 passes on GH100.
OLD_DEFAULT = ",".join("""
dram__bytes_read.sum dram__bytes_write.sum dram__throughput.avg.pct_of_peak_sustained_elapsed gpu__time_duration.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed lts__t_requests.sum lts__t_requests_op_atom.sum
lts__t_requests_op_red.sum lts__t_sectors.avg.pct_of_peak_sustained_elapsed lts__t_sectors.sum
sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active sm__sass_inst_executed_op_tma.sum
sm__warps_active.avg.pct_of_peak_sustained_active
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
smsp__issue_active.avg.per_cycle_active
smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio
smsp__sass_average_data_bytes_per_sector_mem_global_op_ldgsts.ratio
smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio
smsp__sass_inst_executed.sum smsp__sass_inst_executed_op_global_ld.sum smsp__sass_inst_executed_op_global_st.sum
smsp__sass_inst_executed_op_ldgsts.sum smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
smsp__sass_l1tex_t_sectors_pipe_lsu_mem_local_op_ld.sum smsp__sass_l1tex_t_sectors_pipe_lsu_mem_local_op_st.sum
smsp__sass_thread_inst_executed.sum smsp__sass_thread_inst_executed_op_fadd_pred_on.sum
smsp__sass_thread_inst_executed_op_ffma_pred_on.sum smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
smsp__sass_thread_inst_executed_pred_on.sum smsp__warps_active.avg.per_cycle_active
smsp__warps_eligible.avg.per_cycle_active
""".split())

A = ".avg.pct_of_peak_sustained_active"
E = ".avg.pct_of_peak_sustained_elapsed"
L2_SUBUNITS = ["lts__t_sectors" + E, "lts__ltcfabric2ltc_cycles_active" + E, "lts__t_tag_requests" + E,
               "lts__xbar2lts_cycles_active" + E, "lts__lts2xbar_cycles_active_realtime" + E,
               "lts__d_sectors_fill_device" + E]
# The L2 rows step 2 reads (lib/core/check/pc_checklist.c, PC_UNIT_ROWS):
# an in-process at_roof on L2 needs the busiest sub-unit among them.
STEP2_L2 = ["lts__throughput" + E, "lts__t_sectors" + E, "lts__ltcfabric2ltc_cycles_active" + E]
UNIT_ROWS = {"dfma_chain": ["sm__pipe_fp64_cycles_active" + A],
             "xu_chain": ["sm__inst_executed_pipe_xu" + A],
             "l2_read": L2_SUBUNITS}

failures = []


def say(line):
    print(line, flush=True)


def check(ok, line):
    say(("PASS " if ok else "FAIL ") + line)
    if not ok:
        failures.append(line)


def run(cmd, log, env=None, timeout=900):
    with open(log, "w") as f:
        try:
            rc = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    with open(log, errors="replace") as f:
        return rc, f.read()


def phase(text, name):
    """The counter layer's phase line: (total ms, count, ms each) of a phase."""
    m = re.search(r"counter layer, host time of \d+ profiled launches: (.*)", text)
    if not m:
        return None
    p = re.search(re.escape(name) + r" ([0-9.]+) ms \((\d+), ([0-9.]+) ms each\)", m.group(1))
    return (float(p.group(1)), int(p.group(2)), float(p.group(3))) if p else None


def pass_cost(perfcheck, build, out, steps):
    programs = [("mystery", [os.path.join(build, "kernels", "mystery"), "--profile"])]
    try:
        import torch  # noqa: F401
        programs.append(("torch_step", [sys.executable, os.path.join("examples", "python", "torch_step.py"),
                                        "--plain", "--steps", str(steps)]))
    except ImportError:
        say("SKIP torch_step: no PyTorch here")
    env = dict(os.environ, PERFCHECK_PROGRESS="1", PERFCHECK_REPLAY="kernel")
    cost = {}
    for prog, cmd in programs:
        for label, metrics in (("old_default", OLD_DEFAULT), ("default", "default")):
            rep = os.path.join(out, "%s.%s.json" % (prog, label))
            rc, text = run([perfcheck, "run", "--metrics", metrics, "--format", "json", "--output", rep, "--"] + cmd,
                           os.path.join(out, "%s.%s.log" % (prog, label)), env)
            lr, st = phase(text, "launch+replay"), phase(text, "start")
            passes = None
            if os.path.exists(rep):
                with open(rep) as f:
                    passes = json.load(f).get("passes")
            if rc != 0 or not lr:
                check(False, "pass cost: %s with %s: exit %d, no phase line (log %s.%s.log)" % (prog, label, rc, prog,
                                                                                                label))
                continue
            cost[(prog, label)] = lr[2]
            say("PASSCOST %s %s passes=%s launches=%d replay_ms_each=%.2f start_ms=%.1f"
                % (prog, label, passes, lr[1], lr[2], st[0] if st else float("nan")))
        if (prog, "old_default") in cost and (prog, "default") in cost:
            a, b = cost[(prog, "old_default")], cost[(prog, "default")]
            say("PASSCOST %s default/old_default %.2fx (+%.2f ms a profiled launch)" % (prog, b / a, b - a))


def entries(report):
    """Kernel name (demangled, up to its parameters) -> entry with a verdict."""
    out = {}
    for k in report.get("kernels", []):
        name = (k.get("demangled") or k.get("name") or "").split("(")[0].split()[-1]
        if (k.get("diagnosis") or {}).get("cause"):
            out.setdefault(name, k)
    return out


def values(perfcheck, build, out, ncu):
    roofs = [os.path.join(build, "kernels", "roofs"), "--profile"]
    rc, text = run([perfcheck, "run", "--format", "json", "--output", os.path.join(out, "roofs.inproc.json"), "--"] +
                   roofs, os.path.join(out, "roofs.inproc.log"))
    check(rc == 0, "roofs in process: exit %d" % rc)
    rc, listing = run([perfcheck, "metrics"], os.path.join(out, "metrics.txt"))
    default = listing.strip().splitlines()[-1] if rc == 0 else ""
    export = os.path.join(out, "roofs.ncu.csv")
    rc, _ = run([ncu, "--set", "full", "--metrics", default, "--clock-control", "none", "--csv", "--page", "raw",
                 "--launch-count", "3"] + roofs, export)
    check(rc == 0, "roofs under ncu: exit %d" % rc)
    off = os.path.join(out, "roofs.offline.json")
    rc, _ = run([perfcheck, "diagnose", "--format", "json", "-o", off, export], os.path.join(out, "diagnose.log"))
    check(rc == 0, "perfcheck diagnose of the ncu export: exit %d" % rc)
    try:
        with open(os.path.join(out, "roofs.inproc.json")) as f:
            inproc = entries(json.load(f))
        with open(off) as f:
            offline = entries(json.load(f))
    except (OSError, ValueError) as e:
        check(False, "reading the reports: %s" % e)
        return
    for kernel, rows in UNIT_ROWS.items():
        ip, nc = inproc.get(kernel), offline.get(kernel)
        if not ip or not nc:
            check(False, "%s: in process %s, offline %s" % (kernel, "found" if ip else "missing",
                                                           "found" if nc else "missing"))
            continue
        im, om = ip.get("metrics") or {}, nc.get("metrics") or {}
        for row in rows:
            a, b = im.get(row), om.get(row)
            ok = a is not None and b is not None and abs(a - b) <= TOL_PCT
            check(ok, "VALUE %s %s in process %s, ncu %s (within %.0f points)" % (kernel, row, a, b, TOL_PCT))
        if kernel == "l2_read":
            got = [im.get(r) for r in L2_SUBUNITS if im.get(r) is not None]
            thr = om.get("lts__throughput" + E)
            top = max(got) if got else None
            if got:
                busiest = max((r for r in L2_SUBUNITS if im.get(r) is not None), key=lambda r: im[r])
                say("INFO l2_read: the busiest L2 sub-unit in process is %s (%.1f%%); step 2 reads L2 by %s"
                    % (busiest, im[busiest], ", ".join(STEP2_L2)))
            ok = top is not None and thr is not None and abs(top - thr) <= TOL_PCT
            check(ok, "VALUE l2_read busiest L2 sub-unit in process %s, ncu's lts__throughput %s (within %.0f "
                      "points)" % (top, thr, TOL_PCT))
        ci, co = ip["diagnosis"]["cause"], nc["diagnosis"]["cause"]
        check(ci == "at_roof" and co == "at_roof", "VERDICT %s in process %s (%s), offline %s (%s)"
              % (kernel, ci, ip["diagnosis"].get("metric"), co, nc["diagnosis"].get("metric")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="metric_set_check")
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    perfcheck = os.path.join(args.build, "bin", "perfcheck")
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    for need in (perfcheck, os.path.join(args.build, "kernels", "roofs"), os.path.join(args.build, "kernels", "mystery"),
                 ncu):
        if not os.access(need, os.X_OK):
            say("SKIP: %s not found (build with the README's commands first; ncu on PATH)" % need)
            return 77
    os.makedirs(args.out, exist_ok=True)
    rc, text = run([perfcheck, "metrics", "--passes", "--metrics", OLD_DEFAULT, "--chip", "GH100"],
                   os.path.join(args.out, "old_passes.txt"))
    check(rc == 0 and text.strip() == "4", "the previous default's counters take 4 passes on GH100: %s" % text.strip())
    pass_cost(perfcheck, args.build, args.out, args.steps)
    values(perfcheck, args.build, args.out, ncu)
    say("RESULT %s (%d failed)" % ("PASS" if not failures else "FAIL", len(failures)))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
