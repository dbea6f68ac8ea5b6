/*
 * pc_ceilings.h: measured ceilings.  The cache reader (pc_ceilings_cache.c)
 * sits below pc_funcinfo.c; the benchmark (pc_ceilings.c,
 * perfcheck_measure_ceilings) sits above the capture and pc_funcinfo.c.
 */
#ifndef PC_CEILINGS_H
#define PC_CEILINGS_H

#include <stddef.h>

#include "model/pc_core.h"

/* The cache directory: `dir` when given, else $XDG_CACHE_HOME/perfcheck or
 * ~/.cache/perfcheck.  Returns 0, or -1 when none can be named (no HOME). */
int pc_ceilings_cache_dir(const char *dir, char *out, size_t len); /* one-channel-ok: the folder is its result */
/* Device `ordinal`'s name and PCI location, "NVIDIA_H200-0000-17-00" (the
 * name alone could be two identical cards): the ceilings file's key, and part
 * of the availability image's (pc_rp_avail_key).  Returns 0, or -1 when the
 * driver fails or out is too short. */
int pc_device_key(int ordinal, char *out, size_t len); /* one-channel-ok: the key is its result */
/* The cache file of device `ordinal`: the directory above +
 * "/ceilings-<name>-<pci>.txt".  Returns 0, or -1 when no directory can be
 * named or the driver fails. */
int pc_ceilings_cache_path(int ordinal, const char *dir, char *out, size_t len); /* one-channel-ok: the path is its result */
/* Loads a cached measured ceilings file into d (peaks, ridge,
 * ceilings_source "measured").  Returns PERFCHECK_OK, PERFCHECK_ERROR_NOT_FOUND
 * (no file) or the reader's error. */
perfcheck_status pc_ceilings_load_cached(int ordinal, pc_device *d);
/* The benchmark kernels as PTX (for the ptxas check in tests/nogpu). */
const char *pc_ceilings_ptx(void);

#endif /* PC_CEILINGS_H */
