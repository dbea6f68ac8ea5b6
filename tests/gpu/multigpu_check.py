"""Checks of the multi-GPU tests' JSON reports (test_multigpu.sh
calls it).  Each check prints what it found; exit 0 when every check held, 1
otherwise (2: bad arguments or an unreadable report).

  multigpu_check.py ranks R0.json R1.json MERGED.json MERGED_WITHOUT_1.json
  multigpu_check.py contexts REPORT.json
  multigpu_check.py visible REPORT.json PCI_BUS_ID
  multigpu_check.py nccl REPORT.json
  multigpu_check.py ddp R0.json R1.json MERGED.json
  multigpu_check.py two_devices REPORT.json PCI0 PCI1
  multigpu_check.py torchrun R0.json R1.json MERGED.json
"""
import json
import re
import sys

fails = 0


def check(ok, what):
    global fails
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails += 1
    return ok


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("FAIL cannot read %s: %s" % (path, e))
        sys.exit(2)


def pci_norm(s):
    """'00000000:19:00.0' (nvidia-smi) and '0000:19:00.0' (CUDA) alike."""
    m = re.match(r"^\s*([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)\s*$", s or "")
    return tuple(int(g, 16) for g in m.groups()) if m else None


def is_comm(k):
    n = k.get("display_name") or k["name"]
    base = n.split("<")[0].split("::")[-1]
    return base.startswith("nccl") or base.startswith("oneRankReduce")


def kernels(r, name):
    return [k for k in r["kernels"] if k["name"] == name or k.get("display_name") == name]


def missing_warnings(r):
    return [w for w in r["warnings"] if "is missing" in w]


def counted(k, metric="gpu__time_duration.sum"):
    v = k["metrics"].get(metric)
    return k["profiled_launches"] >= 1 and v is not None and v > 0


def ranks(a):
    r0, r1, m, m0 = (load(p) for p in a[:4])
    for i, r in enumerate((r0, r1)):
        check(r["rank"] == i and r["world_size"] == 2, "report %d: rank %r world_size %r" % (i, r["rank"], r["world_size"]))
        ks = kernels(r, "mg_saxpy")
        check(len(ks) == 1 and ks[0]["launches"] == 20 and ks[0]["device_ordinal"] == 0 and ks[0]["total_ns"] > 0,
              "report %d: mg_saxpy, 20 launches on device 0: %s" % (i, [(k["launches"], k["device_ordinal"]) for k in ks]))
        check(len(r["regions"]) >= 1 and all(g["rank"] == i for g in r["regions"]),
              "report %d: regions of rank %d: %s" % (i, i, [(g["name"], g["rank"]) for g in r["regions"]]))
    check(m["rank"] is None and m["world_size"] == 2, "merged: rank null, world_size %r" % m["world_size"])
    rk = sorted({g["rank"] for g in m["regions"]})
    check(rk == [0, 1] and len(m["regions"]) == len(r0["regions"]) + len(r1["regions"]),
          "merged: both ranks' regions (ranks %s, %d regions)" % (rk, len(m["regions"])))
    ks = kernels(m, "mg_saxpy")
    check(len(ks) == 1 and ks[0]["launches"] == 40, "merged: one mg_saxpy entry of 40 launches: %s" % [k["launches"] for k in ks])
    check(not missing_warnings(m), "merged: no missing-rank warning: %s" % missing_warnings(m))
    mw = missing_warnings(m0)
    check(len(mw) == 1 and "rank 1 of world size 2 is missing" in mw[0], "without r.1.json: rank 1 named missing: %s" % mw)
    check(sorted({g["rank"] for g in m0["regions"]}) == [0], "without r.1.json: rank 0's regions only")


def contexts(a):
    r = load(a[0])
    ks = kernels(r, "mg_ctx_scale")
    grids = sorted(k["grid"][0] for k in ks)
    check(grids == [64, 128], "two entries of mg_ctx_scale, one per context (grids %s)" % grids)
    for k in ks:
        check(k["device_ordinal"] == 0 and k["pci_bus_id"], "grid %d: device 0, PCI %s" % (k["grid"][0], k["pci_bus_id"]))
        check(counted(k) and counted(k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
              "grid %d: counters (%d profiled, duration %s, ld sectors %s; %s)" % (
                  k["grid"][0], k["profiled_launches"], k["metrics"].get("gpu__time_duration.sum"),
                  k["metrics"].get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), k["not_measured_reason"]))
    k64 = [k for k in ks if k["grid"][0] == 64]
    check(k64 and k64[0]["launches"] == 2, "the first context's entry has both its launches")
    g = [g for g in r["regions"] if g["name"] == "two_contexts"]
    check(len(g) == 1 and len(g[0]["devices"]) == 1 and g[0]["devices"][0]["ordinal"] == 0
          and g[0]["devices"][0]["launches"] == 3,
          "region two_contexts: one device entry, ordinal 0, 3 launches: %s" % (g[0]["devices"] if g else None))


def visible(a):
    r = load(a[0])
    want = pci_norm(a[1])
    check(want is not None, "nvidia-smi's bus id %r parses" % a[1])
    ks = kernels(r, "mg_saxpy")
    check(len(ks) == 1, "one mg_saxpy entry")
    for k in ks:
        check(k["device_ordinal"] == 0, "ordinal 0 under CUDA_VISIBLE_DEVICES (got %r)" % k["device_ordinal"])
        check(pci_norm(k["pci_bus_id"]) == want, "PCI bus id %s is nvidia-smi's %s" % (k["pci_bus_id"], a[1]))


def nccl_kernels(r):
    return [k for k in r["kernels"] if is_comm(k)]


def check_nccl_entries(r, where):
    ks = nccl_kernels(r)
    check(len(ks) >= 1, "%s: NCCL kernels reported: %s (every kernel: %s)" % (
        where, [k["name"] for k in ks], sorted({k.get("display_name") or k["name"] for k in r["kernels"]})))
    for k in ks:
        check(k["launches"] >= 1 and k["total_ns"] is not None and k["total_ns"] > 0,
              "%s: %s: %d launches, %s ns" % (where, k["display_name"], k["launches"], k["total_ns"]))
        check(k["profiled_launches"] == 0 and "communication kernel: not replayed" in (k["not_measured_reason"] or ""),
              "%s: %s not replayed (%r)" % (where, k["display_name"], k["not_measured_reason"]))
        check(k["diagnosis"]["cause"] == "communication", "%s: %s verdict %s" % (where, k["display_name"], k["diagnosis"]["cause"]))
    return ks


def nccl(a):
    r = load(a[0])
    check(r["metric_set"] not in ("none", "") and r["passes"] > 0, "counters mode: metric set %s, %d passes" % (r["metric_set"], r["passes"]))
    check(r["rank"] == 0 and r["world_size"] == 1, "rank 0 of world size 1")
    check_nccl_entries(r, "report")
    compute = [k for k in r["kernels"] if not is_comm(k) and k["profiled_launches"] >= 1]
    check(len(compute) >= 1, "compute kernels profiled beside them: %d" % len(compute))
    g = [g for g in r["regions"] if g["name"] == "allreduce"]
    check(len(g) == 1 and g[0]["communication_ns"] and g[0]["communication_ns"] > 0 and g[0]["communication_share"] > 0,
          "region allreduce: communication_ns %s, share %s" % (g[0]["communication_ns"] if g else None,
                                                               g[0]["communication_share"] if g else None))


def ddp(a):
    r0, r1, m = (load(p) for p in a[:3])
    for i, r in enumerate((r0, r1)):
        check(r["rank"] == i and r["world_size"] == 2 and r["local_rank"] == i,
              "report %d: rank %r, world_size %r, local_rank %r" % (i, r["rank"], r["world_size"], r["local_rank"]))
        check(any(g["name"] == "cuda_touch" and g["rank"] == i for g in r["regions"]), "report %d: region cuda_touch" % i)
    check(m["world_size"] == 2 and sorted({g["rank"] for g in m["regions"] if g["name"] == "cuda_touch"}) == [0, 1],
          "merged: cuda_touch of ranks 0 and 1")
    check(not missing_warnings(m), "merged: no missing-rank warning: %s" % missing_warnings(m))


def two_devices(a):
    r = load(a[0])
    p0, p1 = pci_norm(a[1]), pci_norm(a[2])
    for name, ordinal, pci in (("mg_dev0", 0, p0), ("mg_dev1", 1, p1)):
        ks = kernels(r, name)
        check(len(ks) == 1, "%s: one entry" % name)
        for k in ks:
            check(k["device_ordinal"] == ordinal and pci_norm(k["pci_bus_id"]) == pci,
                  "%s: device %r, PCI %s (nvidia-smi %s)" % (name, k["device_ordinal"], k["pci_bus_id"], pci))
            check(counted(k), "%s: counters on its own device (%d profiled; %s)" % (name, k["profiled_launches"], k["not_measured_reason"]))
    check(kernels(r, "mg_dev0") and kernels(r, "mg_dev0")[0]["launches"] == 2, "mg_dev0: both launches, around the switch")
    g = [g for g in r["regions"] if g["name"] == "both"]
    devs = g[0]["devices"] if g else []
    check([d["ordinal"] for d in devs] == [0, 1] and [d["launches"] for d in devs] == [2, 1],
          "region both: step 1 per device: %s" % [(d["ordinal"], d["launches"], d["kernel_share"]) for d in devs])
    wall = g[0]["wall_ns"] if g else None
    check(wall and all(d["kernel_ns"] > 0 and abs(d["kernel_share"] - d["kernel_ns"] / wall) < 1e-9 for d in devs),
          "each device's busy time against the region's wall clock %s: %s" % (wall, [(d["kernel_ns"], d["kernel_share"]) for d in devs]))
    check(g and g[0]["memcpy_ns"] is not None and g[0]["memcpy_ns"] > 0, "the peer copy counts as a copy: memcpy_ns %s" % (g[0]["memcpy_ns"] if g else None))


def torchrun(a):
    r0, r1, m = (load(p) for p in a[:3])
    for i, r in enumerate((r0, r1)):
        check(r["rank"] == i and r["world_size"] == 2 and r["local_rank"] == i, "report %d: rank %r of %r, local %r" % (i, r["rank"], r["world_size"], r["local_rank"]))
        ks = check_nccl_entries(r, "report %d" % i)
        check(all(k["device_ordinal"] == i for k in ks), "report %d: NCCL kernels on device %d" % (i, i))
    check(sorted({g["rank"] for g in m["regions"]}) == [0, 1], "merged: regions of ranks 0 and 1")
    check(not missing_warnings(m), "merged: no missing-rank warning")
    # Kernels merge by signature and device model: each NCCL entry's
    # launches are the two ranks' together.
    both = {}
    for r in (r0, r1):
        for k in nccl_kernels(r):
            key = (k["name"], tuple(k["grid"]), tuple(k["block"]), k["region"])
            both[key] = both.get(key, 0) + k["launches"]
    got = {(k["name"], tuple(k["grid"]), tuple(k["block"]), k["region"]): k["launches"] for k in nccl_kernels(m)}
    check(got == both and got, "merged: NCCL entries with both ranks' launches: %s" % got)


PARTS = {"ranks": (ranks, 4), "contexts": (contexts, 1), "visible": (visible, 2), "nccl": (nccl, 1), "ddp": (ddp, 3),
         "two_devices": (two_devices, 3), "torchrun": (torchrun, 3)}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in PARTS or len(sys.argv) - 2 < PARTS[sys.argv[1]][1]:
        print(__doc__)
        sys.exit(2)
    PARTS[sys.argv[1]][0](sys.argv[2:])
    print("%s: %d failed" % (sys.argv[1], fails))
    sys.exit(1 if fails else 0)
