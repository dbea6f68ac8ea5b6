#!/usr/bin/env python3
"""`perfcheck merge` end to end: JSON reports made now from the committed H200
exports (`perfcheck diagnose --format json`), merged, and the result read by
python's json module.  Also the exit status 2 for bad input, with the file
named, and an existing output file left alone when the input is bad.

usage: check_merge.py PERFCHECK DATA_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def main():
    exe, data, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL: " + what)

    def diagnose(name):
        out = os.path.join(work, name + ".json")
        p = run([exe, "diagnose", "--quiet", "--format", "json", os.path.join(data, "h200", name + ".csv")])
        if p.returncode != 0:
            sys.exit("perfcheck diagnose %s failed (%d): %s" % (name, p.returncode, p.stderr))
        with open(out, "w") as f:
            f.write(p.stdout)
        return out, json.loads(p.stdout)

    # Two "ranks" of one program (the same kernels, timed twice) and a third
    # process running other kernels.
    a_path, a = diagnose("mystery")
    b_path, b = diagnose("mystery.cache-none")
    c_path, c = diagnose("occupancy")
    check(len(a["kernels"]) == 4 and len(b["kernels"]) == 4 and len(c["kernels"]) == 3, "fixture kernel counts")

    out_path = os.path.join(work, "merged.json")
    if os.path.exists(out_path):
        os.remove(out_path)
    p = run([exe, "merge", "--quiet", "--format", "json", "--output", out_path, a_path, b_path, c_path])
    check(p.returncode == 0, "merge exit status %d (stderr %r)" % (p.returncode, p.stderr))
    check(p.stdout == "", "merge --output printed on stdout: %r" % p.stdout[:200])
    with open(out_path) as f:
        m = json.load(f)
    check(m["schema"] == "perfcheck-report/2", "schema")
    check(m["device"]["name"] == "NVIDIA H200", "device name %r" % m["device"]["name"])
    check(len(m["kernels"]) == 7, "merged kernel count %d, expected 4 + 3" % len(m["kernels"]))

    def key(k):
        return (k["name"], tuple(k["grid"]), tuple(k["block"]), k["dynamic_smem_bytes"], k["region"])

    merged = {key(k): k for k in m["kernels"]}
    check(len(merged) == 7, "merged keys are not distinct")
    for ka in a["kernels"]:
        kb = next(k for k in b["kernels"] if key(k) == key(ka))
        km = merged.get(key(ka))
        if km is None:
            check(False, "no merged entry for %s" % (key(ka),))
            continue
        label = "%s %s" % (ka["name"], ka["dynamic_smem_bytes"])
        check(km["launches"] == ka["launches"] + kb["launches"], label + ": launches summed")
        check(km["profiled_launches"] == ka["profiled_launches"] + kb["profiled_launches"], label + ": profiled summed")
        check(km["duration_ns"]["min"] == min(ka["duration_ns"]["min"], kb["duration_ns"]["min"]), label + ": min")
        check(km["duration_ns"]["max"] == max(ka["duration_ns"]["max"], kb["duration_ns"]["max"]), label + ": max")
        check(km["duration_ns"]["median"] is None, label + ": median of two processes must be null")
        # Counters of the first report, verdict walked again on them.
        check(km["metrics"] == ka["metrics"], label + ": counters of the first report")
        check(km["diagnosis"]["cause"] == ka["diagnosis"]["cause"], label + ": cause %s, expected %s"
              % (km["diagnosis"]["cause"], ka["diagnosis"]["cause"]))
        check(km["diagnosis"]["step"] == ka["diagnosis"]["step"], label + ": step")
    for kc in c["kernels"]:
        km = merged.get(key(kc))
        check(km is not None and km["duration_ns"] == kc["duration_ns"] and km["launches"] == kc["launches"]
              and km["diagnosis"]["cause"] == kc["diagnosis"]["cause"], "%s: kept as it was" % kc["name"])
    causes = sorted(k["diagnosis"]["cause"] for k in m["kernels"])
    check(causes.count("occupancy_shared_memory") == 3 and "uncoalesced_global_loads" in causes
          and "divergent_warps" in causes, "merged verdicts %s" % causes)
    med = [w for w in m["warnings"] if w.startswith("merge: 4 kernel entries")]
    check(len(med) == 1, "one warning about the 4 nulled medians: %s" % m["warnings"])

    # Ranks: the reports of ranks 0 and 1 of a world of 2 merge
    # with no missing-rank warning; rank 0's alone names rank 1 missing.
    rank_paths = []
    for r in (0, 1):
        d = dict(a, rank=r, world_size=2, local_rank=r)
        rank_paths.append(os.path.join(work, "r.%d.json" % r))
        with open(rank_paths[-1], "w") as f:
            json.dump(d, f)
    p = run([exe, "merge", "--quiet", "--format", "json"] + rank_paths)
    check(p.returncode == 0, "merge of two ranks: exit %d (%s)" % (p.returncode, p.stderr))
    mr = json.loads(p.stdout) if p.returncode == 0 else {"warnings": [], "kernels": []}
    check(mr.get("world_size") == 2 and mr.get("rank") is None, "merged ranks: world_size %r, rank %r"
          % (mr.get("world_size"), mr.get("rank")))
    check(not [w for w in mr["warnings"] if "is missing" in w], "no missing rank: %s" % mr["warnings"])
    check(len(mr["kernels"]) == len(a["kernels"]) and all(k["launches"] == 2 * next(
        x["launches"] for x in a["kernels"] if key(x) == key(k)) for k in mr["kernels"]),
        "two ranks' kernels merged by signature and device model")
    p = run([exe, "merge", "--quiet", "--format", "json", rank_paths[0]])
    m0 = json.loads(p.stdout) if p.returncode == 0 else {"warnings": []}
    missing_w = [w for w in m0["warnings"] if "is missing" in w]
    check(missing_w == ["merge: rank 1 of world size 2 is missing: no input report holds it"],
          "rank 1 named missing: %s" % missing_w)
    p = run([exe, "merge", "--quiet", rank_paths[0]])
    check("\nrank 0 of world size 2, local rank 0\n" in p.stdout and "rank 1 of world size 2 is missing" in p.stdout,
          "text: the world size and the missing rank")

    # One report merged is the report itself, byte for byte.
    p = run([exe, "merge", "--format=json", a_path])
    with open(a_path) as f:
        check(p.returncode == 0 and p.stdout == f.read(), "merging one report changed it")

    # Text by default.
    p = run([exe, "merge", "-q", a_path, c_path])
    check(p.returncode == 0 and "mysteryA" in p.stdout and "scaleAdd<4>" in p.stdout, "text report")

    # Bad input: exit 2, the file named, stdout empty, the output left alone.
    not_report = os.path.join(work, "not_report.json")
    with open(not_report, "w") as f:
        f.write('{"x": 1}\n')
    truncated = os.path.join(work, "truncated.json")
    with open(a_path) as f:
        text = f.read()
    with open(truncated, "w") as f:
        f.write(text[: len(text) // 2])
    keep = os.path.join(work, "keep.json")
    missing = os.path.join(work, "no_such_report.json")
    binary = os.path.join(data, "bad", "random.bin")
    for bad, needle in ((missing, missing + ": "), (not_report, "not_report.json:1:1: not a perfcheck report"),
                        (truncated, "truncated.json:"), (binary, "random.bin:1: binary data, not text")):
        with open(keep, "w") as f:
            f.write("keep")
        p = run([exe, "merge", "--format", "json", "--output", keep, a_path, bad])
        check(p.returncode == 2, "%s: exit %d, expected 2" % (bad, p.returncode))
        check(needle in p.stderr, "%s: stderr %r lacks %r" % (bad, p.stderr, needle))
        check(p.stdout == "", "%s: stdout not empty" % bad)
        with open(keep) as f:
            check(f.read() == "keep", "%s: the output file was touched" % bad)

    # Every input merge reads as diff and report do: ncu exports,
    # plain or gzip (by content), and "-" for stdin.
    csv = os.path.join(data, "h200", "mystery.csv")
    gz = os.path.join(data, "corpus", "h200-2026-12-01", "occupancy.csv.gz")
    p = run([exe, "merge", "--format", "json", csv, gz])
    check(p.returncode == 0, "merge of two ncu exports: exit %d (%s)" % (p.returncode, p.stderr))
    if p.returncode == 0:
        me = json.loads(p.stdout)
        check(len(me["kernels"]) == 4 + 3 and me["source"] == "ncu-export", "merged exports: %d kernels, source %r"
              % (len(me["kernels"]), me["source"]))
    with open(a_path) as f:
        p = run([exe, "merge", "--format", "json", "-", c_path], stdin=f)
    check(p.returncode == 0 and len(json.loads(p.stdout)["kernels"]) == 7 if p.returncode == 0 else False,
          "merge of stdin and a file: exit %d (%s)" % (p.returncode, p.stderr))
    p = run([exe, "merge", "-", "-"], stdin=subprocess.DEVNULL)
    check(p.returncode == 2 and "stdin (-) can be read once only" in p.stderr, "merge - -: %r" % p.stderr)

    # Usage.
    for args, needle in (([], "at least one report"), (["--format", "xml", a_path], "unknown format 'xml'"),
                         (["--frobnicate", a_path], "unknown option '--frobnicate'"),
                         (["--output"], "--output needs a file name"),
                         (["--output", os.path.join(work, "no", "dir", "x.json"), a_path], "cannot write")):
        p = run([exe, "merge"] + args)
        check(p.returncode == 2 and needle in p.stderr, "merge %s: exit %d, stderr %r" % (args, p.returncode, p.stderr))
    p = run([exe, "help", "merge"])
    check(p.returncode == 0 and p.stdout.startswith("usage: perfcheck merge"), "help merge")
    p = run([exe, "--help"])
    check("merge A.json" in p.stdout, "merge in the main usage")
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([exe, "merge", "-q", a_path], stdout=full, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 2 and "writing to stdout failed" in p.stderr, "write error: exit %d" % p.returncode)

    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("perfcheck merge: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
