/*
 * pc_funcinfo.h: what the driver says about a launch and a device, asked
 * outside launch callbacks: function attributes and the driver's occupancy
 * answer (the launch__* values ncu computes itself, docs/cupti.md §2.4), device
 * limits and ceilings.  pc_ceilings.c (measured ceilings and their cache) is
 * declared here too.
 */
#ifndef PC_FUNCINFO_H
#define PC_FUNCINFO_H

#include <cuda.h>
#include <stddef.h>

#include "../core/pc_core.h"

/* cuCtxSynchronize and cuCtxGetDevice as pc_cuda.c resolves them (see
 * pc_funcinfo.c: at CUDA 13000 cuGetProcAddress hands out their _v2 ABI,
 * which takes the context as an argument).  Both work with either ABI; the
 * caller has `ctx` current. */
CUresult pc_ctx_synchronize(CUcontext ctx);
CUresult pc_ctx_get_device(CUcontext ctx, CUdevice *dev);

/* Device facts for device `ordinal`, once per device (cached): name, compute
 * capability, SM count, the limits pc_occupancy_compute needs, granularities,
 * ceilings from clocks, replaced by a measured ceilings file when one is
 * cached for this device.  Returns PERFCHECK_OK or an error (msg says). */
perfcheck_status pc_funcinfo_device(int ordinal, pc_device *out, char *msg, size_t msglen);
/* Copies the cached facts of `ordinal` into *out and returns 1; 0 when they
 * are not cached yet (never calls the driver). */
int pc_funcinfo_device_cached(int ordinal, pc_device *out);
/* The device ordinal of a context (pushes it once, then cached); -1 when the
 * driver cannot say. */
int pc_funcinfo_ctx_ordinal(CUcontext ctx);
/* The cached ordinal of a context, -1 when unknown (never calls the driver). */
int pc_funcinfo_ctx_ordinal_cached(CUcontext ctx);

/* Attributes of a launch configuration: registers, static shared memory,
 * local memory, max threads per block (cuFuncGetAttribute), blocks per SM
 * (cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags), warps per SM,
 * theoretical occupancy, the four limits and the binding one from
 * pc_occupancy_compute, waves per SM.  When the model's blocks per SM differs
 * from the driver's, a->model_blocks_per_sm holds the model's.
 *   f: a CUfunction or, for <<<>>> launches, a CUkernel (docs/cupti.md §11).
 *   push: nonzero pushes ctx and turns a CUkernel into its CUfunction with
 *   cuKernelGetFunction; zero makes no context call at all (for the
 *   module-unload callback) and answers PERFCHECK_ERROR_NOT_FOUND for a
 *   CUkernel (*is_kernel = 1).
 * Returns PERFCHECK_OK, PERFCHECK_ERROR_NOT_FOUND or
 * PERFCHECK_ERROR_UNSUPPORTED (why says which call failed). */
perfcheck_status pc_funcinfo_attributes(CUcontext ctx, void *f, int push, const unsigned grid[3],
                                        const unsigned block[3], unsigned dynamic_smem, const pc_device *d,
                                        pc_attributes *a, int *is_kernel, char *why, size_t whylen);

/* The same from an activity record's values and the model alone (a kernel
 * reached only through a graph, with no function handle): blocks per SM is
 * the model's answer. */
void pc_funcinfo_model_attributes(const pc_device *d, unsigned registers, unsigned static_smem,
                                  unsigned local_per_thread, const unsigned grid[3], const unsigned block[3],
                                  unsigned dynamic_smem, pc_attributes *a);

/* The mangled name of f from the driver (cuFuncGetName, else
 * cuKernelGetName); returns 0 on success. */
int pc_funcinfo_name(void *f, char *out, size_t len);

/* Forgets the cached devices and contexts (session destroy). */
void pc_funcinfo_reset(void);

/* ---- measured ceilings (pc_ceilings.c) -------------------------------------- */

/* The cache file of device `ordinal`: `dir` (NULL: $XDG_CACHE_HOME/perfcheck
 * or ~/.cache/perfcheck) + "/ceilings-<name>-<pci>.txt".  Returns 0, or -1
 * when no directory can be named (no HOME) or the driver fails. */
int pc_ceilings_cache_path(int ordinal, const char *dir, char *out, size_t len);
/* Loads a cached measured ceilings file into d (peaks, ridge,
 * ceilings_source "measured").  Returns PERFCHECK_OK, PERFCHECK_ERROR_NOT_FOUND
 * (no file) or the reader's error. */
perfcheck_status pc_ceilings_load_cached(int ordinal, pc_device *d);
/* The benchmark kernels as PTX (for the ptxas check in tests/nogpu). */
const char *pc_ceilings_ptx(void);

#endif /* PC_FUNCINFO_H */
