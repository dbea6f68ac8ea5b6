#!/usr/bin/env python3
"""CuPy kernels for the production corpus: a RawKernel,
an ElementwiseKernel, CUB reductions and scan, a Thrust/CUB sort and a
cuBLAS GEMM.  Each runs once inside the NVTX range "corpus:cupy_ops:<op>"
after two warm-ups (the first compiles a kernel through NVRTC) outside any
range, and its result is checked against NumPy on the host (or, for the
elementwise ones, against a CuPy expression computed after the range).

CUPY_ACCELERATORS=cub (set here unless already set) routes sum and cumsum
through CUB, as the brief asks.  Exit 77 with a "skipped:" line when CuPy or
a CUDA GPU is missing.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import Nvtx, Op, Runner, skip_script  # noqa: E402

SCRIPT = "cupy_ops"
os.environ.setdefault("CUPY_ACCELERATORS", "cub")
try:
    import cupy as cp
    import numpy as np
except Exception as e:
    skip_script(SCRIPT, "cupy does not import: %s" % e)
try:
    if cp.cuda.runtime.getDeviceCount() < 1:
        skip_script(SCRIPT, "CuPy sees no CUDA device")
except cp.cuda.runtime.CUDARuntimeError as e:
    skip_script(SCRIPT, "CuPy sees no CUDA device: %s" % e)

SAXPY = r"""
extern "C" __global__ void corpus_saxpy(const float a, const float* __restrict__ x,
                                        const float* __restrict__ y, float* __restrict__ out,
                                        unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}
"""
SQ_ADD = cp.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x + y", "corpus_sq_add")
rng = cp.random.default_rng(0)


def randn(*shape):
    return rng.standard_normal(shape, dtype=cp.float32)


def within(got, want, scale, rtol, what):
    """None when |got - want| <= rtol * scale elementwise (NumPy arrays)."""
    err = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64))
    bad = err > rtol * np.asarray(scale, dtype=np.float64)
    if not np.any(bad):
        return None
    i = int(np.argmax(bad))
    return "%s: element %d: got %r, want %r (tolerance %.3g)" % (
        what, i, np.ravel(got)[i], np.ravel(want)[i], rtol * np.ravel(np.broadcast_to(scale, np.shape(err)))[i])


class Case:
    """setup() builds the op; check() compares after the ranged run."""

    def __init__(self):
        self.ref = None


def op_saxpy():
    c = Case()
    k = cp.RawKernel(SAXPY, "corpus_saxpy")

    def setup():
        n = 1 << 26
        x, y, out = randn(n), randn(n), cp.empty(n, dtype=cp.float32)

        def run():
            k(((n + 255) // 256,), (256,), (cp.float32(2.0), x, y, out, cp.uint64(n)))
            return out

        def ref(got):
            xh, yh = cp.asnumpy(x).astype(np.float64), cp.asnumpy(y).astype(np.float64)
            return within(cp.asnumpy(got), 2.0 * xh + yh, 1.0 + 2.0 * np.abs(xh) + np.abs(yh), 1e-6, "saxpy")

        c.ref = ref
        return run

    return setup, lambda got: c.ref(got)


def op_sq_add():
    c = Case()

    def setup():
        n = 1 << 26
        x, y = randn(n), randn(n)
        def ref(got):
            xh, yh = cp.asnumpy(x).astype(np.float64), cp.asnumpy(y).astype(np.float64)
            return within(cp.asnumpy(got), xh * xh + yh, 1.0 + xh * xh + np.abs(yh), 1e-6, "sq_add")

        c.ref = ref
        return lambda: SQ_ADD(x, y)

    return setup, lambda got: c.ref(got)


def op_sum_all():
    c = Case()

    def setup():
        x = randn(1 << 26)
        xh = cp.asnumpy(x).astype(np.float64)
        c.ref = lambda got: within(float(got), xh.sum(), np.abs(xh).sum(), 1e-5, "sum")
        return lambda: cp.sum(x)

    return setup, lambda got: c.ref(got)


def op_sum_rows():
    c = Case()

    def setup():
        x = randn(8192, 8192)
        xh = cp.asnumpy(x).astype(np.float64)
        c.ref = lambda got: within(cp.asnumpy(got), xh.sum(axis=1), np.abs(xh).sum(axis=1), 1e-5, "sum(axis=1)")
        return lambda: x.sum(axis=1)

    return setup, lambda got: c.ref(got)


def op_cumsum():
    c = Case()

    def setup():
        x = randn(1 << 24)
        xh = cp.asnumpy(x).astype(np.float64)
        c.ref = lambda got: within(cp.asnumpy(got), np.cumsum(xh), 1.0 + np.cumsum(np.abs(xh)), 1e-5, "cumsum")
        return lambda: cp.cumsum(x)

    return setup, lambda got: c.ref(got)


def op_sort():
    c = Case()

    def setup():
        x = randn(1 << 24)
        want = np.sort(cp.asnumpy(x))
        c.ref = lambda got: None if np.array_equal(cp.asnumpy(got), want) else "sort: result differs from np.sort"
        return lambda: cp.sort(x)

    return setup, lambda got: c.ref(got)


def op_matmul():
    c = Case()

    def setup():
        n = 4096
        a, b = randn(n, n), randn(n, n)
        ah, bh = cp.asnumpy(a).astype(np.float64), cp.asnumpy(b).astype(np.float64)
        pick = np.random.default_rng(1).integers(0, n, size=(256, 2))

        def ref(got):
            g = cp.asnumpy(got)
            want = np.array([ah[i] @ bh[:, j] for i, j in pick])
            scale = np.array([np.abs(ah[i]) @ np.abs(bh[:, j]) for i, j in pick])
            return within(g[pick[:, 0], pick[:, 1]], want, scale, 1e-5, "matmul (256 sampled entries)")

        c.ref = ref
        return lambda: cp.matmul(a, b)

    return setup, lambda got: c.ref(got)


def make(name, what, expect, factory):
    setup, check = factory()
    return Op(name, what, expect, setup, check)


OPS = [
    make("rawkernel_saxpy", "RawKernel 2x + y, fp32 64M", "corpus_saxpy (NVRTC)", op_saxpy),
    make("elementwise_sq_add", "ElementwiseKernel x*x + y, fp32 64M", "corpus_sq_add (CuPy generated)", op_sq_add),
    make("sum_all", "cupy.sum, fp32 64M", "cub::DeviceReduceKernel + DeviceReduceSingleTileKernel", op_sum_all),
    make("sum_rows", "x.sum(axis=1), fp32 8192x8192", "CUB DeviceSegmentedReduceKernel (or CuPy's reduction kernel)", op_sum_rows),
    make("cumsum", "cupy.cumsum, fp32 16M", "CUB DeviceScanInitKernel + DeviceScanKernel", op_cumsum),
    make("sort", "cupy.sort, fp32 16M", "Thrust/CUB radix sort (DeviceRadixSort* / Onesweep kernels)", op_sort),
    make("matmul_f32", "cupy.matmul, fp32 4096^3", "cuBLAS FP32 GEMM (SIMT unless CuPy enables TF32)", op_matmul),
]


def main():
    nvtx = Nvtx(["nvtx_module", "cupy", "ctypes"])
    if nvtx.push is None:
        skip_script(SCRIPT, "no NVTX provider (%s)" % nvtx.why)
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print("corpus:%s cupy %s, CUPY_ACCELERATORS=%s, %s" % (SCRIPT, cp.__version__, os.environ["CUPY_ACCELERATORS"],
                                                         name), flush=True)
    pool = cp.get_default_memory_pool()
    return Runner(SCRIPT, cp.cuda.Device().synchronize, nvtx, free=pool.free_all_blocks).run(OPS)


if __name__ == "__main__":
    sys.exit(main())
