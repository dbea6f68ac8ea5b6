/*
 * pc_funcinfo.h: what the driver says about a launch and a device, asked
 * outside launch callbacks: function attributes and the driver's occupancy
 * answer (the launch__* values ncu computes itself, docs/cupti.md §2.4), device
 * limits and ceilings (a measured ceilings file replaces the clock-based
 * ones: pc_ceilings.h).
 */
#ifndef PC_FUNCINFO_H
#define PC_FUNCINFO_H

#include <cuda.h>
#include <stddef.h>

#include "model/pc_core.h"

/* cuCtxSynchronize as pc_cuda.c resolves it (see pc_funcinfo.c: at CUDA
 * 13000 cuGetProcAddress hands out its _v2 ABI, which takes the context as
 * an argument); the caller has `ctx` current.  A failure goes to *err. */
CUresult pc_ctx_synchronize(CUcontext ctx, pc_err *err);

/* Device facts for device `ordinal`, once per device (cached): name, compute
 * capability, SM count, the limits pc_occupancy_compute needs, granularities,
 * ceilings from clocks, replaced by a measured ceilings file when one is
 * cached for this device.  Returns PERFCHECK_OK or an error (*err says). */
perfcheck_status pc_funcinfo_device(int ordinal, pc_device *out, pc_err *err);
/* Copies the cached facts of `ordinal` into *out and returns 1; 0 when they
 * are not cached yet (never calls the driver). */
int pc_funcinfo_device_cached(int ordinal, pc_device *out);
/* The device ordinal of a context (pushes it once, then cached); -1 when the
 * driver cannot say. */
int pc_funcinfo_ctx_ordinal(CUcontext ctx);
/* "0000:19:00.0": the PCI location of device `ordinal` (domain, bus,
 * device from the driver's attributes).  Returns 0, -1 when the driver
 * cannot say. */
int pc_funcinfo_pci_bus_id(int ordinal, char *out, size_t len); /* one-channel-ok: the bus id is its result */
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
 * PERFCHECK_ERROR_UNSUPPORTED (*why says which call failed).  *why may hold
 * a failed occupancy call with PERFCHECK_OK too: the model answered then.
 * *canon (may be NULL) gets the CUfunction whose attributes were read (f
 * itself, or a CUkernel's CUfunction in ctx) on success, else NULL: the
 * compiled function's identity (pc_sigtab_func_resolved). */
perfcheck_status pc_funcinfo_attributes(CUcontext ctx, void *f, int push, const unsigned grid[3],
                                        const unsigned block[3], unsigned dynamic_smem, const pc_device *d,
                                        pc_attributes *a, int *is_kernel, void **canon, pc_err *why);

/* The mangled name of f from the driver (cuFuncGetName, else
 * cuKernelGetName); returns 0 on success. */
int pc_funcinfo_name(void *f, char *out, size_t len); /* one-channel-ok: the name is its result */

/* Forgets the cached devices and contexts (session destroy). */
void pc_funcinfo_reset(void);

#endif /* PC_FUNCINFO_H */
