/*
 * pc_ceilings_cache.c: the measured-ceilings cache, read side.
 *
 * `perfcheck ceilings` (pc_ceilings.c) measures a device's DRAM bandwidth and
 * FP32 rate once and writes them to $XDG_CACHE_HOME/perfcheck/ or
 * ~/.cache/perfcheck/, one file per device named by its name and PCI
 * location, in the ceilings-file format of pc_device_write_ceilings.  This
 * file finds and reads that file; pc_funcinfo_device loads it into the
 * pc_device it builds (ceilings_source "measured").  It calls the driver
 * (pc_cuda.h) and the core only: it sits below pc_funcinfo.c, and the
 * benchmark above both.
 */
#define _GNU_SOURCE /* secure_getenv */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "pc_call.h"
#include "pc_ceilings.h"
#include "pc_cuda.h"

int pc_ceilings_cache_dir(const char *dir, char *out, size_t len) { /* one-channel-ok: the folder is its result */
  if (dir && *dir) return snprintf(out, len, "%s", dir) < (int)len ? 0 : -1;
  /* secure_getenv: a privileged process reads no variable (no cache then). */
  const char *x = secure_getenv("XDG_CACHE_HOME");
  if (x && x[0] == '/') return snprintf(out, len, "%s/perfcheck", x) < (int)len ? 0 : -1;
  const char *h = secure_getenv("HOME");
  if (h && h[0] == '/') return snprintf(out, len, "%s/.cache/perfcheck", h) < (int)len ? 0 : -1;
  return -1;
}

int pc_device_key(int ordinal, char *out, size_t len) { /* one-channel-ok: the key is its result */
  CUdevice dev;
  if (PC_CU(NULL, cuDeviceGet, &dev, ordinal) != CUDA_SUCCESS) return -1;
  char name[128] = "";
  if (PC_CU(NULL, cuDeviceGetName, name, (int)sizeof name, dev) != CUDA_SUCCESS) return -1;
  name[sizeof name - 1] = '\0';
  for (char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-'))
      *p = '_';
  int dom = 0, bus = 0, slot = 0;
  PC_CU(NULL, cuDeviceGetAttribute, &dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
  PC_CU(NULL, cuDeviceGetAttribute, &bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
  PC_CU(NULL, cuDeviceGetAttribute, &slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
  return snprintf(out, len, "%s-%04x-%02x-%02x", name, (unsigned)dom, (unsigned)bus, (unsigned)slot) < (int)len ? 0 : -1;
}

int pc_ceilings_cache_path(int ordinal, const char *dir, char *out, size_t len) { /* one-channel-ok: the path is its result */
  char d[1024], key[192];
  if (pc_ceilings_cache_dir(dir, d, sizeof d) || pc_device_key(ordinal, key, sizeof key)) return -1;
  return snprintf(out, len, "%s/ceilings-%s.txt", d, key) < (int)len ? 0 : -1;
}

perfcheck_status pc_ceilings_load_cached(int ordinal, pc_device *d) {
  char path[1280];
  if (pc_ceilings_cache_path(ordinal, NULL, path, sizeof path)) return PERFCHECK_ERROR_NOT_FOUND;
  struct stat sb;
  if (stat(path, &sb) != 0) return PERFCHECK_ERROR_NOT_FOUND;
  pc_device tmp = *d;
  perfcheck_status st = pc_device_read_ceilings(&tmp, path, NULL);
  if (st != PERFCHECK_OK) return st;
  /* Only the ceilings: the limits stay the driver's. */
  if (pc_has(tmp.peak_dram_bytes_per_s) && pc_has(tmp.peak_fp32_flop_per_s)) {
    d->peak_dram_bytes_per_s = tmp.peak_dram_bytes_per_s;
    d->peak_fp32_flop_per_s = tmp.peak_fp32_flop_per_s;
    pc_device_update_ridge(d);
    snprintf(d->ceilings_source, sizeof d->ceilings_source, "%s", "measured");
    return PERFCHECK_OK;
  }
  return PERFCHECK_ERROR_PARSE;
}

