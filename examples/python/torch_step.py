"""An MLP training step under perfcheck: which kernels take the step's time,
and the verdict on each, from in-process counters.

Run from the repository after building libperfcheck (or `pip install ./python`
and drop the two variables):

    PYTHONPATH=python PERFCHECK_LIBRARY=build/lib/libperfcheck.so.0 \
        python3 examples/python/torch_step.py

Options: --steps N (timed steps, default 20), --top K (kernels shown,
default 8), --json FILE (save the report), --plain (no perfcheck at all:
the baseline for its cost; `perfcheck run -- python3 examples/python/torch_step.py
--plain` profiles that same script from outside; without --plain under
`perfcheck run` the regions find the injection library's session already
there and say so).  The line "torch_step:" gives the loop's time in each
case.

Exit status 0; 1 when profiling did not start on a GPU machine (the reason
is printed); 77 without PyTorch or a GPU.
"""

import argparse
import statistics
import sys
import time


def build(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 1024)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(512, 1024, device="cuda")
    y = torch.randn(512, 1024, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def top_kernels(report, region, k):
    """The region's kernels by total time, entries of one signature summed
    over the region's runs; the verdict of the entry that was profiled."""
    groups = {}
    for kern in report.kernels:
        if kern.region != region:
            continue
        key = (kern.label, kern.grid, kern.block, kern.dynamic_smem_bytes)
        g = groups.setdefault(key, {"time": 0.0, "launches": 0, "kernel": kern, "timed": False})
        if kern.time_ns is not None:
            g["time"] += kern.time_ns
            g["timed"] = True
        g["launches"] += kern.launches or 0
        if (kern.profiled_launches or 0) > (g["kernel"].profiled_launches or 0):
            g["kernel"] = kern  # the entry with counters carries the verdict
    total = sum(g["time"] for g in groups.values())
    ranked = sorted(groups.values(), key=lambda g: -g["time"])
    return ranked[:k], total, len(groups)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--json")
    ap.add_argument("--plain", action="store_true")
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print("SKIP: python3 cannot import torch")
        return 77
    if not torch.cuda.is_available():
        print("SKIP: torch sees no GPU")
        return 77
    if not args.plain:
        import perfcheck

    step = build(torch)
    for _ in range(3):  # warm-up: cuBLAS handles, the allocator, lazy module loading
        step()
    torch.cuda.synchronize()

    times = []
    t0 = time.perf_counter()
    for _ in range(args.steps):
        s0 = time.perf_counter()
        if args.plain:
            step()
        else:
            with perfcheck.region("train_step"):
                step()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - s0)
    elapsed = time.perf_counter() - t0
    rest = statistics.median(times[1:]) if len(times) > 1 else times[0]
    print("torch_step: %s, %d steps in %.1f ms; step ms: first %.2f, median of the rest %.2f" % (
        "plain" if args.plain else "perfcheck.region", args.steps, elapsed * 1e3, times[0] * 1e3, rest * 1e3))
    if args.plain:
        return 0

    status = perfcheck.status()
    print(status)
    if not status.active:
        return 1
    report = perfcheck.report()
    if args.json:
        report.save(args.json)
    cupti = report.tool.cupti
    print("CUPTI: %s" % ("%s (%s)" % (cupti.path, cupti.version) if cupti else "not named in this report"))
    runs = [r for r in report.regions if r.name == "train_step"]
    shares = [r.kernel_share for r in runs if r.kernel_share is not None]
    print("region train_step: %d runs, kernels busy %s of the wall clock; step 1: %s" % (
        len(runs), "%.0f%%" % (100 * statistics.median(shares)) if shares else "-",
        runs[-1].diagnosis.cause if runs and runs[-1].diagnosis else "-"))
    ranked, total, n = top_kernels(report, "train_step", args.top)
    print("the %d of %d kernel signatures that take most of the step's kernel time:" % (len(ranked), n))
    print("%9s %6s %8s  %-44s %s" % ("time ms", "share", "launches", "kernel", "verdict"))
    for g in ranked:
        k = g["kernel"]
        share = "%5.1f%%" % (100 * g["time"] / total) if total and g["timed"] else "     -"
        name = k.label if len(k.label) <= 44 else k.label[:41] + "..."
        print("%9s %6s %8d  %-44s %s" % ("%.3f" % (g["time"] / 1e6) if g["timed"] else "-", share, g["launches"],
                                          name, k.verdict))
        if k.diagnosis and k.diagnosis.advice:
            print("%27s %s" % ("", k.diagnosis.advice))
    return 0


if __name__ == "__main__":
    sys.exit(main())
