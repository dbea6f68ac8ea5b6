"""A CuPy RawKernel under perfcheck: seed 000's mysteryA (a warp's lanes read
addresses 2048 floats apart) and its fix, each in a region, with the
verdicts and an expectation on each.

Run from the repository after building libperfcheck:

    PYTHONPATH=python PERFCHECK_LIBRARY=build/lib/libperfcheck.so.0 \
        python3 examples/python/cupy_raw_kernel.py

Exit status 0 when the expectations hold; 1 when one fails or profiling did
not start; 77 without CuPy or a GPU.
"""

import sys

SOURCE = r'''
extern "C" __global__ void transposed_scale(const float* __restrict__ in, float* __restrict__ out,
                                            unsigned long long n) {
    unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (t < n) {
        unsigned long long row = t & 2047, col = t >> 11;   /* lanes walk rows */
        unsigned long long j = row * 2048 + col;
        out[j] = fmaf(in[j], 2.0f, 1.0f);
    }
}
extern "C" __global__ void straight_scale(const float* __restrict__ in, float* __restrict__ out,
                                          unsigned long long n) {
    unsigned long long j = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (j < n) out[j] = fmaf(in[j], 2.0f, 1.0f);              /* lanes walk columns */
}
'''

EXPECTATIONS = ["transposed_scale:cause==uncoalesced_global_loads",
                "straight_scale:sectors_per_request_ld<=4.5"]


def main():
    try:
        import cupy
    except ImportError:
        print("SKIP: python3 cannot import cupy")
        return 77
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no device")
    except Exception as e:  # cupy raises its own CUDARuntimeError without a driver
        print("SKIP: CuPy sees no GPU (%s)" % e)
        return 77
    import perfcheck

    mod = cupy.RawModule(code=SOURCE)
    n = 2048 * 2048
    x = cupy.random.random(n, dtype=cupy.float32)
    y = cupy.empty_like(x)
    grid, block = ((n + 255) // 256,), (256,)
    for name in ("transposed_scale", "straight_scale"):
        kern = mod.get_function(name)
        kern(grid, block, (x, y, cupy.uint64(n)))  # load the module outside the regions
        cupy.cuda.Device().synchronize()
        if not cupy.allclose(y, x * 2 + 1):
            print("%s computes the wrong result" % name)
            return 1
        with perfcheck.region(name):
            for _ in range(5):
                kern(grid, block, (x, y, cupy.uint64(n)))
            cupy.cuda.Device().synchronize()
    status = perfcheck.status()
    print(status)
    if not status.active:
        return 1
    report = perfcheck.report()
    for k in report.kernels:
        print("%-18s %s" % (k.label, k.verdict))
        if k.diagnosis and k.diagnosis.advice:
            print("%18s %s" % ("", k.diagnosis.advice))
    result = report.expect(*EXPECTATIONS)
    for r in result:
        print("%s %s: %s" % ("ok  " if r.passed else "FAIL", r.spec, r.message))
    return 0 if result else 1


if __name__ == "__main__":
    sys.exit(main())
