"""A Triton kernel before and after a fix, checked with expectations.

`scale_strided` walks a 4096 x 4096 matrix with the row taken from the low
bits of the element index, so a warp's 32 lanes touch addresses 4096 floats
apart (seed 000's mysteryA, in Triton).  `scale_fixed` swaps the roles of row
and column: the lanes touch consecutive floats.  perfcheck must say the first
is uncoalesced (step 3) and see 4 sectors per request in the second.  One
element per thread (BLOCK = 32 x num_warps), so that the loads stay scalar.

Run from the repository after building libperfcheck:

    PYTHONPATH=python PERFCHECK_LIBRARY=build/lib/libperfcheck.so.0 \
        python3 examples/python/triton_kernel.py

Exit status 0 when both expectations hold; 1 when one fails (the engine's
message says why) or profiling did not start; 77 without Triton, PyTorch or
a GPU.
"""

import sys
import time

N = 4096
NUM_WARPS = 4
BLOCK = 32 * NUM_WARPS

EXPECT_BEFORE = "regex:^scale_strided:cause==uncoalesced_global_loads"
EXPECT_AFTER = "regex:^scale_fixed:sectors_per_request_ld<=4.5"


def main():
    try:
        import torch
        import triton
        import triton.language as tl
    except ImportError as e:
        print("SKIP: %s" % e)
        return 77
    if not torch.cuda.is_available():
        print("SKIP: torch sees no GPU")
        return 77
    import perfcheck

    @triton.jit
    def scale_strided(src, dst, n, total, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = i < total
        row = i % n          # consecutive lanes: consecutive rows
        col = i // n
        j = row * n + col    # ... so addresses n floats apart
        tl.store(dst + j, tl.load(src + j, mask=mask) * 2.0 + 1.0, mask=mask)

    @triton.jit
    def scale_fixed(src, dst, n, total, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = i < total
        row = i // n         # the fix: consecutive lanes, consecutive columns
        col = i % n
        j = row * n + col
        tl.store(dst + j, tl.load(src + j, mask=mask) * 2.0 + 1.0, mask=mask)

    src = torch.randn(N * N, device="cuda")
    dst = torch.empty_like(src)
    grid = (triton.cdiv(N * N, BLOCK),)
    want = src * 2.0 + 1.0
    for kern in (scale_strided, scale_fixed):  # compile, and check the result, outside the regions
        dst.zero_()
        kern[grid](src, dst, N, N * N, BLOCK=BLOCK, num_warps=NUM_WARPS)
        torch.cuda.synchronize()
        if not torch.allclose(dst, want):
            print("%s computes the wrong result" % kern.__name__)
            return 1

    ms = {}
    for name, kern in (("before", scale_strided), ("after", scale_fixed)):
        with perfcheck.region(name):
            t0 = time.perf_counter()
            for _ in range(10):
                kern[grid](src, dst, N, N * N, BLOCK=BLOCK, num_warps=NUM_WARPS)
            torch.cuda.synchronize()
            ms[name] = (time.perf_counter() - t0) * 1e3 / 10
    status = perfcheck.status()
    print(status)
    if not status.active:
        return 1
    report = perfcheck.report()
    for k in report.kernels:
        sp = k.derived.sectors_per_request_ld if k.derived else None
        print("%-8s %-16s sectors/request %-6s %s" % (k.region, k.label, "-" if sp is None else "%.2f" % sp,
                                                    k.verdict))
        if k.diagnosis and k.diagnosis.advice:
            print("%27s %s" % ("", k.diagnosis.advice))
    print("per launch (with perfcheck on): before %.3f ms, after %.3f ms" % (ms["before"], ms["after"]))
    result = report.expect(EXPECT_BEFORE, EXPECT_AFTER)
    for r in result:
        print("%s %s: %s" % ("ok  " if r.passed else "FAIL", r.spec, r.message))
    return 0 if result else 1


if __name__ == "__main__":
    sys.exit(main())
