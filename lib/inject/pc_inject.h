/*
 * pc_inject.h: the contract between the injection library's two halves.
 *
 *   libperfcheck_inject.so (pc_inject.c), the loader: what CUDA_INJECTION64_PATH,
 *     NVTX_INJECTION64_PATH and LD_PRELOAD name.  It needs nothing but libc,
 *     so that a program that never touches CUDA loads no CUPTI at all.  It
 *     exports the injection entry points (and nothing else) and, at the first
 *     CUDA initialization, loads the runtime below.
 *   libperfcheck.so (pc_inject_rt.c), the runtime: configuration from the
 *     environment, the session, NVTX ranges as regions, exit and signal
 *     handling.  Loading libperfcheck.so (dlopen, not a copy linked into the
 *     loader; the program's own copy when it links one) gives ONE copy of
 *     the session state per process: a program that links libperfcheck
 *     itself shares it, and a session it created before its first CUDA
 *     context keeps the process (the runtime steps aside).
 *
 * libperfcheck.so exports two symbols for the loader, PC_INJECT_ENTRY and
 * PC_INJECT_NVTX_ENTRY (see perfcheck.map); the ABI number changes whenever
 * either call below does.
 */
#ifndef PC_INJECT_H
#define PC_INJECT_H

#define PC_INJECT_ABI 2
#define PC_INJECT_ENTRY "pc_inject_initialize"
#define PC_INJECT_NVTX_ENTRY "pc_inject_nvtx_initialize"

/* Called by the loader's InitializeInjection, inside cuInit: reads the
 * configuration (one warning line per bad value on stderr), subscribes to
 * CUPTI and arranges for the session to start at the first context
 * creation.  On any failure it prints one line, "perfcheck: profiling off:
 * REASON", and leaves the program alone.  Idempotent.  Returns 1 (the value
 * the driver expects from InitializeInjection) in every case. */
typedef int (*pc_inject_initialize_fn)(int abi);

/* Called by the loader's InitializeInjectionNvtx2 (nvtx_version 2) and
 * InitializeInjectionNvtx (1): loads CUPTI (libperfcheck links none) and
 * forwards NVTX's export table to cuptiNvtxInitialize2 / cuptiNvtxInitialize.
 * Returns 1 on success, 0 when NVTX stays without a tool. */
typedef int (*pc_inject_nvtx_fn)(int abi, int nvtx_version, void *get_export_table);

#endif /* PC_INJECT_H */
