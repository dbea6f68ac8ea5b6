#!/usr/bin/env python3
"""Held-out production kernels: the validation part of the corpus.

Kernels nobody on the project wrote or tuned a rule on: PyTorch's optimizer,
distribution, reduction, normalization, pooling, upsampling and indexing
kernels, cuDNN's TF32 and RNN kernels, cuFFT, cuSOLVER, cuSPARSE, CUB through
torch.unique, Triton kernels that torch.compile generates, and CuPy's
built-ins and a register-heavy RawKernel.  None of them is in torch_ops.py,
cupy_ops.py or triton_ops.py, on which earlier rules were tuned.  Each op runs
once inside the NVTX range "corpus:valid_ops:<op>" after two warm-ups
(corpus_common.py says the order).  The expected verdict of each kernel is
written from ncu's numbers of the run (tests/data/validation/), never from
perfcheck's.

    python3 valid_ops.py            (CORPUS_ONLY=adamw_fused,randn to pick ops)
Exit 77 with a "skipped:" line when torch or a CUDA GPU is missing.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import Nvtx, Op, Runner, Skip, skip_script  # noqa: E402

SCRIPT = "valid_ops"
try:
    import torch
    import torch.nn.functional as F
except Exception as e:
    skip_script(SCRIPT, "torch does not import: %s" % e)
if not torch.cuda.is_available():
    skip_script(SCRIPT, "torch %s sees no CUDA device" % torch.__version__)

DEV = "cuda"
torch.manual_seed(0)


def randn(*shape, dtype=torch.float32):
    return torch.randn(*shape, device=DEV, dtype=dtype)


def adam(fused, foreach):
    def setup():
        params = [torch.nn.Parameter(randn(1024, 1024)) for _ in range(64)]
        for p in params:
            p.grad = randn(1024, 1024)
        opt = torch.optim.AdamW(params, lr=1e-3, fused=fused, foreach=foreach)

        def run():
            opt.step()
        return run
    return setup


def randn_f32():
    return lambda: torch.randn(64 << 20, device=DEV)


def normal_bf16():
    x = torch.empty(8192, 8192, device=DEV, dtype=torch.bfloat16)
    return lambda: x.normal_()


def var_rows():
    a = randn(8192, 8192)
    return lambda: a.var(dim=1)


def std_cols():
    a = randn(8192, 8192)
    return lambda: a.std(dim=0)


def argmax_rows():
    a = randn(8192, 8192)
    return lambda: a.argmax(dim=1)


def norm_all():
    a = randn(8192, 8192)
    return lambda: torch.linalg.vector_norm(a)


def group_norm():
    x = randn(32, 256, 56, 56)
    gn = torch.nn.GroupNorm(32, 256).to(DEV)
    return lambda: gn(x)


def batch_norm_train():
    x = randn(32, 256, 56, 56)
    bn = torch.nn.BatchNorm2d(256).to(DEV).train()
    return lambda: bn(x)


def max_pool():
    x = randn(32, 256, 112, 112)
    return lambda: F.max_pool2d(x, 3, stride=2, padding=1)


def upsample_bilinear():
    x = randn(16, 64, 128, 128)
    return lambda: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)


def embedding_backward():
    w = torch.nn.Parameter(randn(50304, 1024))
    ids = torch.randint(0, 50304, (32, 2048), device=DEV)
    g = randn(32, 2048, 1024)

    def run():
        w.grad = None
        F.embedding(ids, w).backward(g)
    return run


def scatter_add():
    src = randn(16 << 20)
    idx = torch.randint(0, 1 << 16, (16 << 20,), device=DEV)
    out = torch.zeros(1 << 16, device=DEV)
    return lambda: out.zero_().scatter_add_(0, idx, src)


def unique_sorted():
    x = torch.randint(0, 1 << 20, (16 << 20,), device=DEV)
    return lambda: torch.unique(x)


def cumprod_rows():
    a = torch.rand(4096, 4096, device=DEV) + 0.5
    return lambda: torch.cumprod(a, dim=1)


def conv2d_tf32_nhwc():
    torch.backends.cudnn.allow_tf32 = True
    x = randn(32, 128, 56, 56).to(memory_format=torch.channels_last)
    w = randn(128, 128, 3, 3).to(memory_format=torch.channels_last)
    return lambda: F.conv2d(x, w, padding=1)


def conv1x1_bf16():
    x = randn(64, 512, 28, 28, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = randn(256, 512, 1, 1, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    return lambda: F.conv2d(x, w)


def lstm_cudnn():
    lstm = torch.nn.LSTM(512, 512, num_layers=2, batch_first=True).to(DEV)
    x = randn(64, 128, 512)
    return lambda: lstm(x)


def rfft2():
    x = randn(64, 1024, 1024)
    return lambda: torch.fft.rfft2(x)


def fft_c2c():
    x = torch.randn(256, 65536, device=DEV, dtype=torch.complex64)
    return lambda: torch.fft.fft(x, dim=-1)


def cholesky():
    a = randn(64, 512, 512)
    spd = a @ a.transpose(-1, -2) + 512 * torch.eye(512, device=DEV)
    return lambda: torch.linalg.cholesky(spd)


def sparse_mm():
    n = 1 << 16
    nnz = 32 * n
    rows = torch.randint(0, n, (nnz,), device=DEV)
    cols = torch.randint(0, n, (nnz,), device=DEV)
    a = torch.sparse_coo_tensor(torch.stack([rows, cols]), randn(nnz), (n, n)).coalesce().to_sparse_csr()
    b = randn(n, 64)
    return lambda: a @ b


def mm_fp32_odd():
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b = randn(4095, 4097), randn(4097, 4093)
    return lambda: a @ b


def mm_bf16_skinny():
    a, b = randn(8, 8192, dtype=torch.bfloat16), randn(8192, 8192, dtype=torch.bfloat16)
    return lambda: a @ b


def compiled(fn_name):
    def setup():
        if not hasattr(torch, "compile"):
            raise Skip("torch.compile is missing")
        try:
            import triton  # noqa: F401
        except Exception as e:
            raise Skip("triton does not import: %s" % e)
        if fn_name == "ln_gelu":
            x, w, b = randn(16384, 4096), randn(4096), randn(4096)

            def f(x, w, b):
                return F.gelu(F.layer_norm(x, (4096,), w, b))
            g = torch.compile(f)
            return lambda: g(x, w, b)
        x, y = randn(8192, 8192), randn(8192, 8192)

        def f(x, y):
            return torch.softmax(x * 0.125 + y, dim=-1)
        g = torch.compile(f)
        return lambda: g(x, y)
    return setup


def cupy_setup(name):
    def setup():
        try:
            import cupy as cp
        except Exception as e:
            raise Skip("cupy does not import: %s" % e)
        if name == "gaussian":
            from cupyx.scipy import ndimage
            x = cp.random.rand(4096, 4096, dtype=cp.float32)
            return lambda: ndimage.gaussian_filter(x, sigma=3)
        if name == "cupy_fft":
            x = cp.random.rand(64, 1 << 16).astype(cp.complex64)
            return lambda: cp.fft.fft(x, axis=-1)
        if name == "cupy_raw_poly":
            src = r"""
            extern "C" __global__ void poly_eval(const float* x, float* y, size_t n) {
              size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
              if (i >= n) return;
              float v = x[i], c[24];
              #pragma unroll
              for (int k = 0; k < 24; ++k) c[k] = 1.0f / (k + 1.0f) + v * 0.001f * k;
              float acc = 0.0f, p = 1.0f;
              for (int it = 0; it < 64; ++it) {
                #pragma unroll
                for (int k = 0; k < 24; ++k) { acc = fmaf(c[k], p, acc); p = fmaf(p, v, 0.5f) * 0.5f; }
              }
              y[i] = acc;
            }"""
            k = cp.RawKernel(src, "poly_eval")
            x = cp.random.rand(16 << 20, dtype=cp.float32)
            y = cp.empty_like(x)
            return lambda: k(((x.size + 255) // 256,), (256,), (x, y, cp.uint64(x.size)))
        raise Skip("unknown op %s" % name)
    return setup


# name, what it is, what is expected to run (recorded, not asserted), setup
OPS = [
    Op("adamw_fused", "AdamW(fused=True).step, 64 x 1M fp32", "fused_adamw kernel (multi_tensor_apply)", adam(True, False)),
    Op("adamw_foreach", "AdamW(foreach=True).step, 64 x 1M fp32", "multi_tensor_apply_kernel<..., AdamFunctor> and foreach ops", adam(False, True)),
    Op("randn_f32", "torch.randn(64M)", "distribution_elementwise_grid_stride_kernel (Philox, normal)", randn_f32),
    Op("normal_bf16", "x.normal_(), bf16 8192x8192", "distribution kernel (Philox, Box-Muller)", normal_bf16),
    Op("var_rows", "a.var(dim=1), fp32 8192x8192", "reduce_kernel<WelfordOps>", var_rows),
    Op("std_cols", "a.std(dim=0), fp32 8192x8192", "reduce_kernel<WelfordOps> across rows", std_cols),
    Op("argmax_rows", "a.argmax(dim=1)", "reduce_kernel<ArgMaxOps>", argmax_rows),
    Op("norm_all", "linalg.vector_norm, fp32 8192x8192", "reduce_kernel<NormTwoOps> (two passes)", norm_all),
    Op("group_norm", "GroupNorm(32, 256), 32x256x56x56", "RowwiseMomentsCUDAKernel + ComputeFusedParams + elementwise", group_norm),
    Op("batch_norm_train", "BatchNorm2d train, 32x256x56x56", "cuDNN or native batch_norm_collect_statistics + transform", batch_norm_train),
    Op("max_pool", "max_pool2d 3x3 s2, 32x256x112x112", "max_pool_forward_nchw", max_pool),
    Op("upsample_bilinear", "interpolate x2 bilinear, 16x64x128x128", "upsample_bilinear2d_out_frame", upsample_bilinear),
    Op("embedding_backward", "embedding backward, 32x2048 ids into 50304 x 1024", "embedding_backward_feature_kernel / sort + segment reduce", embedding_backward),
    Op("scatter_add", "scatter_add_ of 16M into 64K bins", "_scatter_gather_elementwise_kernel with atomicAdd", scatter_add),
    Op("unique_sorted", "torch.unique(16M int64)", "CUB radix sort + unique + scan", unique_sorted),
    Op("cumprod_rows", "torch.cumprod(dim=1), 4096x4096", "tensor_kernel_scan_innermost_dim", cumprod_rows),
    Op("conv2d_tf32_nhwc", "conv2d 3x3 TF32, 32x128x56x56 channels_last", "cuDNN TF32 implicit GEMM", conv2d_tf32_nhwc),
    Op("conv1x1_bf16", "conv2d 1x1 bf16, 64x512x28x28 channels_last", "cuDNN / cuBLAS GEMM", conv1x1_bf16),
    Op("lstm_cudnn", "LSTM 2 layers 512, 64x128", "cuDNN RNN kernels + cuBLAS GEMMs", lstm_cudnn),
    Op("rfft2", "torch.fft.rfft2, 64x1024x1024", "cuFFT regular_fft / vector_fft kernels", rfft2),
    Op("fft_c2c", "torch.fft.fft, 256 x 65536 complex64", "cuFFT kernels", fft_c2c),
    Op("cholesky", "linalg.cholesky, 64 x 512^2", "cuSOLVER potrf batched kernels", cholesky),
    Op("sparse_mm", "CSR 64K^2 (2M nnz) @ 64K x 64", "cuSPARSE SpMM (csrmm) kernels", sparse_mm),
    Op("mm_fp32_odd", "a @ b fp32, 4095x4097x4093, no TF32", "cuBLAS SIMT SGEMM, unaligned", mm_fp32_odd),
    Op("mm_bf16_skinny", "a @ b bf16, 8 x 8192 x 8192", "cuBLAS GEMV-like / split-K kernel", mm_bf16_skinny),
    Op("compiled_ln_gelu", "torch.compile(layer_norm + gelu), 16384x4096", "a Triton kernel generated by Inductor", compiled("ln_gelu")),
    Op("compiled_softmax", "torch.compile(softmax(x/8 + y)), 8192^2", "a Triton kernel generated by Inductor", compiled("softmax")),
    Op("cupy_gaussian", "cupyx.scipy.ndimage.gaussian_filter sigma 3, 4096^2", "CuPy ndimage correlate kernels", cupy_setup("gaussian")),
    Op("cupy_fft", "cupy.fft.fft, 64 x 65536 complex64", "cuFFT through CuPy", cupy_setup("cupy_fft")),
    Op("cupy_raw_poly", "CuPy RawKernel, 24 coefficients live a thread, 16M", "poly_eval (register-heavy FMA loop)", cupy_setup("cupy_raw_poly")),
]


def main():
    nvtx = Nvtx(["nvtx_module", "torch", "ctypes"])
    if nvtx.push is None:
        skip_script(SCRIPT, "no NVTX provider: %s" % nvtx.why)
    return Runner(SCRIPT, torch.cuda.synchronize, nvtx, free=torch.cuda.empty_cache).run(OPS)


if __name__ == "__main__":
    sys.exit(main())
