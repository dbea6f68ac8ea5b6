/* pc_library.c: whose kernel it is, and what its user controls.
 *
 * A verdict names the change a kernel's author would make; most GPU time in
 * real programs goes to kernels the user did not write (cuBLAS, cuDNN, CUB,
 * cuFFT, PyTorch's own, Inductor's Triton).  For those the useful advice is
 * the knob the user does control: the shape, the dtype, the memory layout,
 * the library call or its configuration.  The library is told by the
 * kernel's name, the only thing every source of a report has (an ncu export,
 * an in-process launch); a name no rule knows is the user's own code. */
#include <stdio.h>
#include <string.h>

#include "model/pc_core.h"
#include "check/pc_library.h"

typedef struct pc_lib_rule {
  const char *needle; /* a substring of the name */
  int prefix;         /* 1: the name must start with it */
  const char *library;
} pc_lib_rule;

/* In order: the first rule that matches names the library (CUB inside
 * PyTorch's namespace is CUB; cuBLAS's kernels that cuDNN calls are
 * cuBLAS's). */
static const pc_lib_rule pc_lib_rules[] = {
    {"ncclDevKernel", 0, "NCCL"},
    {"ncclKernel", 0, "NCCL"},
    {"cudnn", 0, "cuDNN"},
    {"bn_fw_", 0, "cuDNN"},
    {"bn_bw_", 0, "cuDNN"},
    {"elemWiseRNNcell", 0, "cuDNN"},
    {"_fprop_implicit_gemm", 0, "cuDNN"},
    {"_dgrad_", 0, "cuDNN"},
    {"_wgrad_", 0, "cuDNN"},
    {"implicit_convolve", 0, "cuDNN"},
    {"nvjet_", 1, "cuBLAS"},
    {"xmma_gemm", 0, "cuBLAS"},
    {"cublas", 0, "cuBLAS"},
    {"gemv2", 0, "cuBLAS"},
    {"gemvx", 0, "cuBLAS"},
    {"gemmSN", 0, "cuBLAS"},
    {"gemmk1", 0, "cuBLAS"},
    {"splitKreduce", 0, "cuBLAS"},
    {"ampere_", 1, "cuBLAS"},
    {"cutlass_80_", 1, "cuBLAS"},
    {"cub::", 0, "CUB"},
    {"thrust::", 0, "CUB"},
    {"cutlass", 0, "CUTLASS"},
    {"cusparse", 0, "cuSPARSE"},
    {"potrf", 0, "cuSOLVER"},
    {"getrf", 0, "cuSOLVER"},
    {"geqrf", 0, "cuSOLVER"},
    {"syevd", 0, "cuSOLVER"},
    {"cusolver", 0, "cuSOLVER"},
    {"regular_fft", 0, "cuFFT"},
    {"vector_fft", 0, "cuFFT"},
    {"dpRadix", 0, "cuFFT"},
    {"spRadix", 0, "cuFFT"},
    {"curand", 0, "cuRAND"},
    {"triton_", 1, "Triton (torch.compile)"},
    {"cupy", 1, "CuPy"},
    {"at::", 1, "PyTorch"},
    {"native::", 1, "PyTorch"},
    {"c10::", 1, "PyTorch"},
    {"pytorch_flash::", 1, "PyTorch"},
    {"(anonymous namespace)::elementwise_kernel_with_index", 1, "PyTorch"},
    {"cunn_", 1, "PyTorch"},
    {"_fusion", 0, "XLA"},
};

const char *pc_library_of(const char *name) {
  if (!name || !*name) return NULL;
  /* The function's own qualified name: template arguments name other
   * libraries' types (flash-attention's traits hold CUTLASS's). */
  char base[256];
  size_t n = strcspn(name, "<(");
  if (n >= sizeof base) n = sizeof base - 1;
  memcpy(base, name, n);
  base[n] = '\0';
  const char *last = base;
  for (const char *p = strstr(base, "::"); p; p = strstr(p + 2, "::")) last = p + 2;
  /* CUB's kernels are Device...Kernel, whatever namespace ncu prints them in
   * (radix_sort::DeviceRadixSortOnesweepKernel, cub::DeviceReduceKernel). */
  const size_t ln = strlen(last);
  if (strncmp(last, "Device", 6) == 0 && ln > 12 && strcmp(last + ln - 6, "Kernel") == 0) return "CUB";
  for (size_t i = 0; i < sizeof pc_lib_rules / sizeof pc_lib_rules[0]; i++) {
    const pc_lib_rule *r = &pc_lib_rules[i];
    if (r->prefix ? strncmp(base, r->needle, strlen(r->needle)) == 0 : strstr(base, r->needle) != NULL)
      return r->library;
  }
  return NULL;
}

/* The cause's family, for the knob advice. */
typedef enum { PC_FAM_ROOF, PC_FAM_MEMORY, PC_FAM_ATOMIC, PC_FAM_LANES, PC_FAM_GRID, PC_FAM_OTHER } pc_family;

static pc_family pc_family_of(perfcheck_cause c) {
  switch (c) {
    case PERFCHECK_CAUSE_AT_ROOF: return PC_FAM_ROOF;
    case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS:
    case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES: return PC_FAM_MEMORY;
    case PERFCHECK_CAUSE_ATOMIC_CONTENTION: return PC_FAM_ATOMIC;
    case PERFCHECK_CAUSE_DIVERGENT_WARPS:
    case PERFCHECK_CAUSE_PARTIAL_WARPS: return PC_FAM_LANES;
    case PERFCHECK_CAUSE_GRID_TOO_SMALL: return PC_FAM_GRID;
    default: return PC_FAM_OTHER;
  }
}

/* One sentence per library and family: what the user changes, since the
 * kernel itself is the library's. */
static const char *pc_knob(const char *lib, pc_family fam) {
  if (strcmp(lib, "cuBLAS") == 0) {
    if (fam == PC_FAM_ROOF)
      return "The GEMM is at its roof: do less work on it, a lower precision (TF32 with "
             "torch.backends.cuda.matmul.allow_tf32, BF16 or FP8) or fewer or smaller products.";
    if (fam == PC_FAM_GRID)
      return "cuBLAS's kernel for this shape does not fill the GPU: batch the small products into one call (bmm, a "
             "grouped or strided-batched GEMM) or make the problem larger.";
    return "cuBLAS picked this kernel for the shape and type: make M, N and K multiples of 16 (8 for FP16/BF16), "
           "keep the operands 16-byte aligned, use BF16/FP16 or TF32, or batch small products into one call.";
  }
  if (strcmp(lib, "cuDNN") == 0) {
    if (fam == PC_FAM_ROOF)
      return "cuDNN's kernel is at its roof: a lower precision (BF16/FP16, or TF32 with "
             "torch.backends.cudnn.allow_tf32) or a smaller layer is what remains.";
    if (fam == PC_FAM_GRID)
      return "cuDNN's kernel does not fill the GPU for this size: a larger batch, or several small layers batched, "
             "gives it more blocks.";
    return "cuDNN chose this algorithm for the shape: use channels_last (NHWC) tensors, BF16/FP16, channel counts "
           "that are multiples of 8, and torch.backends.cudnn.benchmark = True to let it pick the fastest.";
  }
  if (strcmp(lib, "CUB") == 0)
    return "A CUB primitive (sort, scan, select) behind a library call: sort fewer or narrower keys (int32 rather "
           "than int64, a smaller key range), or avoid the sort (torch.topk, bincount, a segmented reduction).";
  if (strcmp(lib, "cuFFT") == 0)
    return "A cuFFT kernel: use sizes whose factors are 2, 3, 5 and 7, a real-to-complex transform (rfft) for real "
           "input, one batched plan instead of many calls, and half precision where it is enough.";
  if (strcmp(lib, "cuSPARSE") == 0)
    return "A cuSPARSE kernel: its format and algorithm are your choice (CSR or BSR, the SpMM algorithm argument), "
           "and a denser block layout or a larger right-hand side uses it better.";
  if (strcmp(lib, "cuSOLVER") == 0)
    return "A cuSOLVER kernel: batch the factorizations into one batched call, or factor larger matrices; many "
           "small ones leave the GPU idle.";
  if (strcmp(lib, "CUTLASS") == 0)
    return "A CUTLASS kernel: its tile shape, stages and alignment are template parameters of whoever instantiated "
           "it; with your own instantiation, try the profiler's (cutlass_profiler) best configuration for the shape.";
  if (strcmp(lib, "NCCL") == 0)
    return "A communication kernel: overlap it with compute (a separate stream, bucketed all-reduce) or communicate "
           "less often, in larger messages.";
  if (strcmp(lib, "cuRAND") == 0)
    return "A cuRAND kernel: generate the numbers in fewer, larger calls, or in the kernel that uses them.";
  if (strcmp(lib, "Triton (torch.compile)") == 0) {
    if (fam == PC_FAM_ROOF)
      return "A kernel torch.compile generated, at its roof: a lower precision or less work in the fused region is "
             "what remains.";
    return "A kernel torch.compile generated: try mode=\"max-autotune\" (it tunes block sizes and num_warps), or "
           "change what it fuses (torch._inductor.config), or the tensor layouts going in.";
  }
  if (strcmp(lib, "XLA") == 0)
    return "A kernel XLA generated: change the shapes and layouts going in (static, padded to multiples of 8 or "
           "128) or the fusion XLA chose (XLA_FLAGS), since the kernel is the compiler's.";
  if (strcmp(lib, "CuPy") == 0)
    return "A CuPy kernel: a RawKernel is your own source (its advice applies); a built-in's knobs are the dtype, "
           "contiguous inputs and fewer, larger calls.";
  /* PyTorch */
  switch (fam) {
    case PC_FAM_ROOF:
      return "PyTorch's kernel is at its roof: less work is what remains (a narrower dtype such as BF16, fewer "
             "passes over the data by fusing with its neighbours: torch.compile).";
    case PC_FAM_MEMORY:
      return "PyTorch's kernel reads or writes with a stride: make the tensors contiguous in the order the "
             "operator walks them (.contiguous(), reduce over the last dimension, channels_last for convolutions) "
             "before the call.";
    case PC_FAM_ATOMIC:
      return "PyTorch's scatter/index kernel adds with atomics into few addresses: sort or deduplicate the "
             "indices first, or use a segment reduction or bincount instead.";
    case PC_FAM_GRID:
      return "PyTorch's kernel has too little work to fill the GPU: batch the small tensors (a foreach or fused "
             "variant, one larger tensor), or capture the step in a CUDA graph so the launches cost less.";
    default:
      return "A PyTorch operator's kernel: fuse it with its neighbours (torch.compile), use a narrower dtype (BF16), "
             "contiguous inputs, or the fused or foreach variant of the operation where there is one.";
  }
}

int pc_library_advice(const char *library, perfcheck_cause cause, char *out, size_t n) { /* one-channel-ok: the advice sentence is its result */
  if (!out || n == 0) return -1;
  out[0] = '\0';
  if (!library || !*library) return 0;
  snprintf(out, n, "%s", pc_knob(library, pc_family_of(cause)));
  return 1;
}
