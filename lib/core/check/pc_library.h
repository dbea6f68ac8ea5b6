/* pc_library.h: whose kernel it is, and what its user controls (pc_library.c). */
#ifndef PC_LIBRARY_H
#define PC_LIBRARY_H

#include <stddef.h>

#include "perfcheck.h"

/* The library that owns a kernel, told by its name (demangled, without the
 * return type and parameters, or a C name): "cuBLAS", "cuDNN", "CUB",
 * "CUTLASS", "cuFFT", "cuSPARSE", "cuSOLVER", "cuRAND", "NCCL", "PyTorch",
 * "Triton (torch.compile)", "CuPy", "XLA"; NULL for the user's own code.
 * Static strings. */
const char *pc_library_of(const char *name);

/* The change the user controls for a library's kernel whose verdict is
 * `cause`: one sentence into out.  Returns 1 when written, 0 when `library`
 * is NULL or empty (out is ""), -1 on a bad buffer. */
int pc_library_advice(const char *library, perfcheck_cause cause, char *out, size_t n); /* one-channel-ok: the advice sentence is its result */

#endif
