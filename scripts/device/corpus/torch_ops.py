#!/usr/bin/env python3
"""PyTorch eager ops for the production corpus.

Each op runs once inside its own NVTX range "corpus:torch_ops:<op>" after
two warm-ups outside any range (see corpus_common.py for the order).  Next
to each op: what it is, and the kernel PyTorch (or cuBLAS / cuDNN / CUB /
CUTLASS) is expected to launch for it on an H200 with torch 2.11 (cu130).
The expectation is recorded for the reader; the ncu export of the run says
what really ran.

Sizes are those of real work (8192 x 8192 fp32 elementwise, 4096^3 GEMMs,
8 x 16 x 2048 x 128 attention) and each op stays within a few milliseconds.

    python3 torch_ops.py            (CORPUS_ONLY=add_f32,mm_bf16 to pick ops)
Exit 77 with a "skipped:" line when torch or a CUDA GPU is missing.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import Nvtx, Op, Runner, Skip, skip_script  # noqa: E402

SCRIPT = "torch_ops"
try:
    import torch
    import torch.nn.functional as F
except Exception as e:  # torch missing or broken: say so, do not fail the device run
    skip_script(SCRIPT, "torch does not import: %s" % e)
if not torch.cuda.is_available():
    skip_script(SCRIPT, "torch %s sees no CUDA device" % torch.__version__)

DEV = "cuda"
N = 8192  # elementwise / reduction matrices: 8192 x 8192 fp32 = 256 MiB
G = 4096  # GEMM M = N = K
torch.manual_seed(0)


def randn(*shape, dtype=torch.float32, **kw):
    return torch.randn(*shape, device=DEV, dtype=dtype, **kw)


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on


# ---- elementwise ---------------------------------------------------------------------


def add_f32():
    a, b = randn(N, N), randn(N, N)
    return lambda: a + b


def mul_f32():
    a, b = randn(N, N), randn(N, N)
    return lambda: a * b


def gelu_f32():
    a = randn(N, N)
    return lambda: F.gelu(a)


def silu_f32():
    a = randn(N, N)
    return lambda: F.silu(a)


def add_bf16():
    a, b = randn(N, N, dtype=torch.bfloat16), randn(N, N, dtype=torch.bfloat16)
    return lambda: a + b


def cast_f32_bf16():
    a = randn(N, N)
    return lambda: a.to(torch.bfloat16)


def add_transposed():
    a, b = randn(N, N), randn(N, N)
    return lambda: a.t() + b


def add_misaligned():
    a, b = randn(N * N + 1), randn(N * N + 1)
    a1, b1 = a[1:], b[1:]  # contiguous, but 4 bytes past a 16-byte boundary
    return lambda: a1 + b1


def add_mixed_dtype():
    a, b = randn(N, N), randn(N, N, dtype=torch.bfloat16)
    return lambda: a + b


def where_f32():
    a, b = randn(N, N), randn(N, N)
    m = a > 0
    return lambda: torch.where(m, a, b)


def fill_f32():
    a = torch.empty(N, N, device=DEV)
    return lambda: a.fill_(1.5)


def dropout_f32():
    a = randn(N, N)
    return lambda: F.dropout(a, p=0.1, training=True)


def foreach_add():
    ts = [randn(1 << 20) for _ in range(128)]
    return lambda: torch._foreach_add_(ts, 1.0)


# ---- reductions, normalization ------------------------------------------------------------


def sum_rows():
    a = randn(N, N)
    return lambda: a.sum(dim=1)


def sum_cols():
    a = randn(N, N)
    return lambda: a.sum(dim=0)


def mean_all():
    a = randn(N, N)
    return lambda: a.mean()


def amax_rows():
    a = randn(N, N)
    return lambda: a.amax(dim=1)


def softmax_f32():
    a = randn(N, N)
    return lambda: torch.softmax(a, dim=-1)


def log_softmax_f32():
    a = randn(N, N)
    return lambda: torch.log_softmax(a, dim=-1)


def cross_entropy():
    logits = randn(8192, 32000)
    target = torch.randint(0, 32000, (8192,), device=DEV)
    return lambda: F.cross_entropy(logits, target)


def layer_norm_f32():
    x, w, b = randn(16384, 4096), randn(4096), randn(4096)
    return lambda: F.layer_norm(x, (4096,), w, b)


def rms_norm_f32():
    if not hasattr(F, "rms_norm"):
        raise Skip("torch %s has no F.rms_norm" % torch.__version__)
    x, w = randn(16384, 4096), randn(4096)
    return lambda: F.rms_norm(x, (4096,), w)


# ---- indexing, copies, random -------------------------------------------------------------


def transpose_copy():
    a = randn(N, N)
    return lambda: a.t().contiguous()


def index_select():
    a = randn(N, N)
    idx = torch.randint(0, N, (N,), device=DEV)
    return lambda: a.index_select(0, idx)


def gather_f32():
    a = randn(N, N)
    idx = torch.randint(0, N, (N, N), device=DEV)
    return lambda: torch.gather(a, 1, idx)


def embedding_f32():
    w = randn(50304, 1024)
    ids = torch.randint(0, 50304, (32, 2048), device=DEV)
    return lambda: F.embedding(ids, w)


def index_add_atomic():
    x = torch.zeros(1024, 1024, device=DEV)
    src = randn(65536, 1024)
    idx = torch.randint(0, 1024, (65536,), device=DEV)  # 64 rows land on each target row
    return lambda: x.index_add_(0, idx, src)


def cat_f32():
    a, b = randn(N, N // 2), randn(N, N // 2)
    return lambda: torch.cat([a, b], dim=1)


def rand_f32():
    return lambda: torch.rand(N * N, device=DEV)


def randn_f32():
    return lambda: torch.randn(N * N, device=DEV)


def sort_f32():
    x = randn(1 << 24)
    return lambda: torch.sort(x)


def topk_f32():
    x = randn(1 << 24)
    return lambda: torch.topk(x, 1024)


def cumsum_f32():
    x = randn(1 << 24)
    return lambda: torch.cumsum(x, 0)


# ---- GEMMs, convolution, attention --------------------------------------------------------


def mm(dtype, tf32):
    def setup():
        set_tf32(tf32)
        a, b = randn(G, G, dtype=dtype), randn(G, G, dtype=dtype)
        return lambda: a @ b

    return setup


def bmm_bf16():
    a, b = randn(64, 1024, 1024, dtype=torch.bfloat16), randn(64, 1024, 1024, dtype=torch.bfloat16)
    return lambda: torch.bmm(a, b)


def linear_bf16_bias():
    x, w, b = randn(8192, 4096, dtype=torch.bfloat16), randn(4096, 4096, dtype=torch.bfloat16), randn(
        4096, dtype=torch.bfloat16)
    return lambda: F.linear(x, w, b)


def conv2d_bf16_nhwc():
    set_tf32(True)
    x = randn(32, 256, 56, 56, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    w = randn(256, 256, 3, 3, dtype=torch.bfloat16).to(memory_format=torch.channels_last)
    return lambda: F.conv2d(x, w, padding=1)


def conv2d_f32_nchw():
    set_tf32(True)  # cuDNN's default: TF32 tensor cores for fp32 convolutions
    x, w = randn(32, 256, 56, 56), randn(256, 256, 3, 3)
    return lambda: F.conv2d(x, w, padding=1)


def sdpa(backend_name):
    def setup():
        try:
            from torch.nn.attention import SDPBackend, sdpa_kernel
        except ImportError as e:
            raise Skip("torch.nn.attention: %s" % e)
        q, k, v = (randn(8, 16, 2048, 128, dtype=torch.bfloat16) for _ in range(3))
        if backend_name is None:
            return lambda: F.scaled_dot_product_attention(q, k, v)
        backend = getattr(SDPBackend, backend_name, None)
        if backend is None:
            raise Skip("torch %s has no SDPBackend.%s" % (torch.__version__, backend_name))

        def run():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v)

        try:
            run()
            torch.cuda.synchronize()
        except RuntimeError as e:  # "No available kernel" when the backend refuses these inputs
            raise Skip("SDPBackend.%s refuses bf16 8x16x2048x128: %s" % (backend_name, str(e).splitlines()[0]))
        return run

    return setup


# name, what it is, the kernel expected (recorded, not asserted), setup.  In order of
# importance: when CORPUS_DEADLINE_S cuts the run short (under ncu --set full every
# kernel takes about a second), the ops that cover the most kinds of kernel have run.
OPS = [
    Op("add_f32", "a + b, fp32 8192x8192", "vectorized_elementwise_kernel<4, CUDAFunctor_add<float>> (16-byte loads)", add_f32),
    Op("gelu_f32", "F.gelu, fp32 8192x8192", "vectorized_elementwise_kernel<4, GeluCUDAKernelImpl lambda>", gelu_f32),
    Op("layer_norm_f32", "F.layer_norm, 16384 x 4096 fp32", "vectorized_layer_norm_kernel<float, float>", layer_norm_f32),
    Op("sum_cols", "a.sum(dim=0), fp32 8192x8192", "reduce_kernel<..., ReduceOp<float, ...>> (reduction across rows)", sum_cols),
    Op("softmax_f32", "torch.softmax(dim=-1), fp32 8192x8192", "cunn_SoftMaxForward<4, float, float, float, SoftMaxForwardEpilogue> (or ...Smem)", softmax_f32),
    Op("transpose_copy", "a.t().contiguous(), fp32 8192x8192", "elementwise_kernel<128, 4, direct_copy_kernel_cuda lambda> (strided reads)", transpose_copy),
    Op("gather_f32", "torch.gather(a, 1, random 8192x8192 index)", "_scatter_gather_elementwise_kernel<128, 8, ...> (random 4-byte reads)", gather_f32),
    Op("rand_f32", "torch.rand(64M)", "distribution_elementwise_grid_stride_kernel<float, 4, uniform lambda> (Philox)", rand_f32),
    Op("mm_f32", "a @ b, fp32 4096^3, allow_tf32 False", "cuBLAS FP32 SIMT GEMM (FFMA: sm90_xmma_gemm_f32f32_f32f32_f32... or cutlass_80_simt_sgemm...)", mm(torch.float32, False)),
    Op("mm_tf32", "a @ b, fp32 4096^3, allow_tf32 True", "cuBLAS TF32 tensor-core GEMM (nvjet_tst_... / sm90_xmma_gemm_..._tf32f32...)", mm(torch.float32, True)),
    Op("mm_bf16", "a @ b, bf16 4096^3", "cuBLASLt nvjet_hsh_... (wgmma + TMA)", mm(torch.bfloat16, False)),
    Op("sdpa_flash", "SDPA, SDPBackend.FLASH_ATTENTION", "pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, ...>> (FA2, mma.sync + cp.async)", sdpa("FLASH_ATTENTION")),
    Op("sdpa_cudnn", "SDPA, SDPBackend.CUDNN_ATTENTION", "cudnn_generated_fort_native_sdpa_sm90_... (wgmma + TMA)", sdpa("CUDNN_ATTENTION")),
    Op("sdpa_efficient", "SDPA, SDPBackend.EFFICIENT_ATTENTION", "fmha_cutlassF_bf16_aligned_64x128_rf_sm80 (CUTLASS memory-efficient attention)", sdpa("EFFICIENT_ATTENTION")),
    Op("sort_f32", "torch.sort(16M fp32)", "CUB radix sort: DeviceRadixSortHistogramKernel, ExclusiveSum, DeviceRadixSortOnesweepKernel x4 (+ index iota)", sort_f32),
    Op("cumsum_f32", "torch.cumsum(16M fp32)", "CUB DeviceScanInitKernel + DeviceScanKernel", cumsum_f32),
    Op("conv2d_bf16_nhwc", "conv2d 3x3, 32x256x56x56 bf16 channels_last", "cuDNN implicit GEMM (sm90_xmma_fprop_implicit_gemm_bf16... or cudnn_generated_...)", conv2d_bf16_nhwc),
    Op("index_add_atomic", "x.index_add_(0, idx, src), 64 sources per row", "indexFuncLargeIndex<...> with atomicAdd (gpuAtomic)", index_add_atomic),
    Op("add_bf16", "a + b, bf16 8192x8192", "vectorized_elementwise_kernel<8, CUDAFunctor_add<BFloat16>> (16-byte loads)", add_bf16),
    Op("cast_f32_bf16", "a.to(bf16), 8192x8192", "vectorized_elementwise_kernel<4, copy cast lambda> (4-byte in, 2-byte out)", cast_f32_bf16),
    Op("add_transposed", "a.t() + b (non-contiguous), fp32", "elementwise_kernel<128, 4, gpu_kernel_impl_nocast> with OffsetCalculator (strided reads)", add_transposed),
    Op("add_misaligned", "a[1:] + b[1:] (4 bytes off 16-byte alignment)", "unrolled_elementwise_kernel<CUDAFunctor_add<float>> (no vector loads)", add_misaligned),
    Op("sum_rows", "a.sum(dim=1), fp32 8192x8192", "reduce_kernel<512, 1, ReduceOp<float, func_wrapper_t<float, sum_functor>>> (vectorized)", sum_rows),
    Op("linear_bf16_bias", "F.linear(x 8192x4096, W 4096x4096, b), bf16", "cuBLASLt GEMM with bias epilogue (nvjet_..._bias) or GEMM + add", linear_bf16_bias),
    Op("bmm_bf16", "torch.bmm, 64 x 1024^3 bf16", "cuBLASLt batched nvjet_... (wgmma + TMA)", bmm_bf16),
    Op("mm_fp16", "a @ b, fp16 4096^3", "cuBLASLt nvjet_hsh_... (wgmma + TMA)", mm(torch.float16, False)),
    Op("index_select", "a.index_select(0, 8192 random rows)", "indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>", index_select),
    Op("embedding_f32", "F.embedding, 32x2048 ids into 50304 x 1024", "indexSelectLargeIndex (embedding forward is index_select)", embedding_f32),
    Op("cross_entropy", "F.cross_entropy, 8192 x 32000 logits", "cunn_SoftMaxForward (log_softmax) + nll_loss_forward_reduce_cuda_kernel_2d (one small block)", cross_entropy),
    Op("topk_f32", "torch.topk(16M fp32, 1024)", "radix select (radixFindKthValues / computeBlockwiseWithinKCounts / gatherTopK) + bitonic sort", topk_f32),
    Op("sdpa_default", "SDPA bf16 8x16x2048x128, backend torch picks", "the default backend's kernel (flash / cuDNN)", sdpa(None)),
    Op("sdpa_math", "SDPA, SDPBackend.MATH", "bmm (cuBLAS) + scale + softmax + bmm: several kernels", sdpa("MATH")),
    Op("conv2d_f32_nchw", "conv2d 3x3, 32x256x56x56 fp32 NCHW (TF32)", "cuDNN: NCHW->NHWC transforms + TF32 implicit GEMM", conv2d_f32_nchw),
    Op("rms_norm_f32", "F.rms_norm, 16384 x 4096 fp32", "vectorized_layer_norm_kernel (rms) or a composite of pow/mean/rsqrt/mul kernels", rms_norm_f32),
    Op("log_softmax_f32", "torch.log_softmax(dim=-1), fp32", "cunn_SoftMaxForward<..., LogSoftMaxForwardEpilogue>", log_softmax_f32),
    Op("mean_all", "a.mean(), fp32 8192x8192", "reduce_kernel<512, 1, ReduceOp<float, MeanOps>> (global, with a semaphore pass)", mean_all),
    Op("amax_rows", "a.amax(dim=1), fp32", "reduce_kernel<512, 1, ReduceOp<float, MaxOps<float>>>", amax_rows),
    Op("mul_f32", "a * b, fp32 8192x8192", "vectorized_elementwise_kernel<4, BinaryFunctor<..., MulFunctor<float>>>", mul_f32),
    Op("silu_f32", "F.silu, fp32 8192x8192", "vectorized_elementwise_kernel<4, silu_kernel lambda>", silu_f32),
    Op("add_mixed_dtype", "fp32 + bf16 (type promotion)", "unrolled_elementwise_kernel / vectorized kernel with dynamic casting", add_mixed_dtype),
    Op("where_f32", "torch.where(mask, a, b), fp32", "vectorized_elementwise_kernel<4, where lambda> (1-byte mask + 4-byte values)", where_f32),
    Op("fill_f32", "a.fill_(1.5), fp32 8192x8192", "vectorized_elementwise_kernel<4, FillFunctor<float>> (stores only)", fill_f32),
    Op("dropout_f32", "F.dropout(p=0.1, training), fp32", "fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, bool> (Philox)", dropout_f32),
    Op("foreach_add", "torch._foreach_add_ on 128 x 1M fp32", "multi_tensor_apply_kernel<TensorListMetadata<1>, BinaryOpScalarFunctor>", foreach_add),
    Op("cat_f32", "torch.cat([a, b], dim=1), 2 x 8192x4096", "CatArrayBatchedCopy_vectorized / CatArrayBatchedCopy", cat_f32),
    Op("randn_f32", "torch.randn(64M)", "distribution_elementwise_grid_stride_kernel<float, 4, normal lambda> (Philox, Box-Muller)", randn_f32),
]


def free():
    set_tf32(False)
    torch.cuda.empty_cache()


def main():
    nvtx = Nvtx(["torch", "nvtx_module", "ctypes"])
    if nvtx.push is None:
        skip_script(SCRIPT, "no NVTX provider (%s)" % nvtx.why)
    print("corpus:%s torch %s, CUDA %s, cuDNN %s, %s" % (
        SCRIPT, torch.__version__, torch.version.cuda, torch.backends.cudnn.version(),
        torch.cuda.get_device_name()), flush=True)
    set_tf32(False)
    return Runner(SCRIPT, torch.cuda.synchronize, nvtx, free=free).run(OPS)


if __name__ == "__main__":
    sys.exit(main())
