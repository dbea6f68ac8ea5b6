#!/usr/bin/env python3
"""Hand-written Triton kernels for the production corpus.

Four kernels in the shape of Triton's own tutorials: a vector add, a fused
row softmax, a tiled matmul on tl.dot (Triton picks wgmma on Hopper), and a
fused layer norm.  Each runs once inside the NVTX range
"corpus:triton_ops:<op>" after two warm-ups (the first compiles it) outside
any range, and its result is checked against PyTorch.  Triton launches on
PyTorch tensors; the ranges come from the nvtx module when it is
installed, else from torch.cuda.nvtx.  Configurations
are fixed (no autotuning): the launches in the range are the only ones.

Exit 77 with a "skipped:" line when triton, torch or a CUDA GPU is missing.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import Nvtx, Op, Runner, skip_script  # noqa: E402

SCRIPT = "triton_ops"
try:
    import torch
    import triton
    import triton.language as tl
except Exception as e:
    skip_script(SCRIPT, "triton or torch does not import: %s" % e)
if not torch.cuda.is_available():
    skip_script(SCRIPT, "torch sees no CUDA device")

DEV = "cuda"
torch.manual_seed(0)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    # one program per row; the whole row lives in registers
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    # grouped ordering of the output tiles for L2 reuse, as in Triton's matmul tutorial
    pid = tl.program_id(0)
    n_pid_m, n_pid_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = GROUP_M * n_pid_n
    first_m = (pid // group) * GROUP_M
    size_m = min(n_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group) % size_m)
    pid_n = (pid % group) // size_m
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a), tl.load(b), acc=acc)
        a += BK * sak
        b += BK * sbk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(c_ptr + cm[:, None] * scm + cn[None, :] * scn, acc.to(tl.float16),
             mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    # one program per row: mean, variance, then normalize, in BLOCK-wide chunks
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n, other=0.0).to(tl.float32)
        d = tl.where(cols < n, x - mean, 0.0)
        acc += d * d
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n + eps)
    for off in range(0, n, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=mask)


def close(got, want, rtol, what):
    """None when |got - want| <= rtol * max|want| everywhere, else why not."""
    err = (got.float() - want.float()).abs().max().item()
    scale = want.float().abs().max().item()
    if err <= rtol * scale:
        return None
    return "%s: max |error| %.3g exceeds %.3g x max |reference| %.3g" % (what, err, rtol, scale)


def setup_add():
    n = 1 << 26  # 64M fp32
    x, y = torch.randn(n, device=DEV), torch.randn(n, device=DEV)
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)

    def run():
        add_kernel[grid](x, y, out, n, BLOCK=1024)
        return out

    run.ref = lambda: x + y
    return run


def setup_softmax():
    x = torch.randn(8192, 8192, device=DEV)
    out = torch.empty_like(x)

    def run():
        softmax_kernel[(x.shape[0],)](out, x, x.stride(0), out.stride(0), x.shape[1], BLOCK=8192, num_warps=16)
        return out

    run.ref = lambda: torch.softmax(x, dim=-1)
    return run


def setup_matmul():
    M = N = K = 4096
    a, b = torch.randn(M, K, device=DEV, dtype=torch.float16), torch.randn(K, N, device=DEV, dtype=torch.float16)
    c = torch.empty(M, N, device=DEV, dtype=torch.float16)
    grid = (triton.cdiv(M, 128) * triton.cdiv(N, 128),)

    def run():
        matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), BM=128, BN=128, BK=64, GROUP_M=8, num_warps=8, num_stages=3)
        return c

    run.ref = lambda: a @ b
    return run


def setup_layer_norm():
    x = torch.randn(16384, 4096, device=DEV)
    w, b = torch.randn(4096, device=DEV), torch.randn(4096, device=DEV)
    y = torch.empty_like(x)

    def run():
        layer_norm_kernel[(x.shape[0],)](x, y, w, b, x.stride(0), x.shape[1], 1e-5, BLOCK=1024, num_warps=8)
        return y

    run.ref = lambda: torch.nn.functional.layer_norm(x, (4096,), w, b, 1e-5)
    return run


class Checked:
    """Keeps the last setup's run() so check() can compute its reference
    after the ranged run (the reference's own kernels stay outside the range)."""

    def __init__(self, setup, rtol, what):
        self.setup, self.rtol, self.what, self.run = setup, rtol, what, None

    def make(self):
        self.run = self.setup()
        return self.run

    def check(self, got):
        want = self.run.ref()
        why = close(got, want, self.rtol, self.what)
        self.run = None
        return why


def op(name, what, expect, setup, rtol):
    c = Checked(setup, rtol, name)
    return Op(name, what, expect, c.make, c.check)


OPS = [
    op("add", "x + y, fp32 64M", "add_kernel (Triton, BLOCK 1024, 16-byte vector loads)", setup_add, 0.0),
    op("softmax", "row softmax, fp32 8192x8192", "softmax_kernel (Triton, one row per program, 16 warps)", setup_softmax, 1e-4),
    op("matmul", "fp16 4096^3, fp32 accumulate", "matmul_kernel (Triton tl.dot: wgmma on sm_90, 128x128x64 tiles)", setup_matmul, 2e-2),
    op("layer_norm", "layer norm, fp32 16384 x 4096", "layer_norm_kernel (Triton, one row per program, three passes over the row)", setup_layer_norm, 1e-4),
]


def main():
    nvtx = Nvtx(["nvtx_module", "torch", "ctypes"])
    if nvtx.push is None:
        skip_script(SCRIPT, "no NVTX provider (%s)" % nvtx.why)
    print("corpus:%s triton %s, torch %s, %s" % (SCRIPT, triton.__version__, torch.__version__,
                                               torch.cuda.get_device_name()), flush=True)
    return Runner(SCRIPT, torch.cuda.synchronize, nvtx, free=torch.cuda.empty_cache).run(OPS)


if __name__ == "__main__":
    sys.exit(main())
