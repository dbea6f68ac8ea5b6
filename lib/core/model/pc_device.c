/* The device model: limits, allocation granularities, ceilings, and the
 * ceilings file ("key = value" lines, `#` comments, keys = pc_device field
 * names). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_output.h"

void pc_device_init(pc_device *d) {
  if (!d) return;
  memset(d, 0, sizeof *d);
  d->cc_major = d->cc_minor = -1;
  d->sm_count = d->warp_size = d->max_threads_per_sm = d->max_threads_per_block = -1;
  d->max_blocks_per_sm = d->max_regs_per_sm = d->max_regs_per_block = -1;
  d->max_smem_per_sm = d->max_smem_per_block = d->max_smem_per_block_optin = -1;
  d->reserved_smem_per_block = d->reg_alloc_unit = d->warp_alloc_granularity = d->smem_alloc_unit = -1;
  d->peak_dram_bytes_per_s = d->peak_fp32_flop_per_s = d->ridge_flop_per_byte = PC_NULL;
}

/* The rules of NVIDIA's cuda_occupancy.h (CUDA 13.0), for cc 3.x to 12.x and,
 * as a guess that has held since Ampere, for later majors:
 *   registers are allocated per warp in units of 256 on every architecture;
 *   registers are split over 4 SM sub-partitions (the warp granularity);
 *   shared memory is allocated in 256 B units up to Turing (7.x) and in
 *   128 B units from Ampere (8.x) on;
 *   the driver reserves 1 KiB of shared memory per block from Ampere on
 *   (cudaDevAttrReservedSharedMemoryPerBlock), none before.
 * Only unknown (-1) fields are filled: a driver's answer wins. */
void pc_device_fill_granularities(pc_device *d) {
  if (!d || d->cc_major < 3) return;
  if (d->reg_alloc_unit < 0) d->reg_alloc_unit = 256;
  if (d->warp_alloc_granularity < 0) d->warp_alloc_granularity = 4;
  if (d->smem_alloc_unit < 0) d->smem_alloc_unit = d->cc_major >= 8 ? 128 : 256;
  if (d->reserved_smem_per_block < 0) d->reserved_smem_per_block = d->cc_major >= 8 ? 1024 : 0;
}

/* FP32 FMA lanes per SM (CUDA C Programming Guide, arithmetic instruction
 * throughput table). */
int pc_fp32_lanes_per_sm(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 5:
      return 128;
    case 6:
      return cc_minor == 0 ? 64 : 128;
    case 7:
      return 64; /* Volta and Turing */
    case 8:
      return cc_minor == 0 ? 64 : 128; /* A100: 64; GA10x, Orin, Ada: 128 */
    case 9:
    case 10:
    case 11:
    case 12:
      return 128;
    default:
      return -1;
  }
}

static int pc_positive(double v) { return isfinite(v) && v > 0; }

/* Per SM and cycle, as NVIDIA documents them: FP64 fused multiply-adds and
 * the 32-bit special-function (XU) results (CUDA C++ Programming Guide,
 * arithmetic instruction throughput table), and dense FP16 tensor-core
 * FLOP (the Volta, Turing, A100 and H100 architecture whitepapers: 64, 64,
 * 256 and 512 FMA per tensor core and cycle, 8, 8, 4 and 4 tensor cores
 * per SM).  -1 where a rate is not documented here. */
static int pc_fp64_fma_per_sm(int major, int minor) {
  if (major == 6) return minor == 0 ? 32 : 4;
  if (major == 7) return minor == 0 ? 32 : 2;
  if (major == 8) return minor == 0 ? 32 : 2;
  if (major == 9 && minor == 0) return 64;
  return -1;
}
static int pc_xu_per_sm(int major, int minor) {
  if (major == 7 || major == 8 || (major == 9 && minor == 0)) return 16;
  return -1;
}
static int pc_tensor_fp16_flop_per_sm(int major, int minor) {
  if (major == 7) return minor == 0 || minor == 5 ? 1024 : -1;
  if (major == 8 && minor == 0) return 2048;
  if (major == 9 && minor == 0) return 4096;
  return -1;
}

const char *pc_device_ceilings_origin(const char *src) {
  if (!src || !*src) return "source unknown";
  if (strcmp(src, "measured") == 0) return "measured by perfcheck ceilings";
  if (strcmp(src, "attributes") == 0) return "from the device's clocks, not measured";
  if (strcmp(src, "ncu-export") == 0) return "from the export's device attributes, not measured";
  if (strcmp(src, "file") == 0) return "from a ceilings file";
  return src;
}

size_t pc_device_pipe_peaks(const pc_device *d, pc_pipe_peak *out) {
  if (!d || !out || !pc_positive(d->peak_fp32_flop_per_s)) return 0;
  const int lanes = pc_fp32_lanes_per_sm(d->cc_major, d->cc_minor);
  size_t n = 0;
  out[n].pipe = "fp32";
  out[n].unit = "FLOP/s";
  out[n].per_s = d->peak_fp32_flop_per_s;
  snprintf(out[n].source, sizeof out[n].source, "%s", pc_device_ceilings_origin(d->ceilings_source));
  n++;
  if (lanes <= 0) return n;
  const double fp32_per_sm = 2.0 * lanes; /* FLOP per SM and cycle */
  const int fp64 = pc_fp64_fma_per_sm(d->cc_major, d->cc_minor), xu = pc_xu_per_sm(d->cc_major, d->cc_minor),
            tensor = pc_tensor_fp16_flop_per_sm(d->cc_major, d->cc_minor);
  if (fp64 > 0) {
    out[n].pipe = "fp64";
    out[n].unit = "FLOP/s";
    out[n].per_s = d->peak_fp32_flop_per_s * (2.0 * fp64) / fp32_per_sm;
    snprintf(out[n].source, sizeof out[n].source,
             "the FP32 roof x %d/%d: FP64 FMA per SM and cycle against FP32's on compute capability %d.%d (CUDA C++ "
             "Programming Guide, arithmetic instruction throughput)",
             fp64, lanes, d->cc_major, d->cc_minor);
    n++;
  }
  if (xu > 0) {
    out[n].pipe = "xu";
    out[n].unit = "results/s";
    out[n].per_s = d->peak_fp32_flop_per_s * xu / fp32_per_sm;
    snprintf(out[n].source, sizeof out[n].source,
             "the FP32 roof x %d/%.0f: special-function results per SM and cycle against FP32 FLOP on compute "
             "capability %d.%d (CUDA C++ Programming Guide, arithmetic instruction throughput)",
             xu, fp32_per_sm, d->cc_major, d->cc_minor);
    n++;
  }
  if (tensor > 0) {
    out[n].pipe = "tensor";
    out[n].unit = "FLOP/s";
    out[n].per_s = d->peak_fp32_flop_per_s * tensor / fp32_per_sm;
    snprintf(out[n].source, sizeof out[n].source,
             "the FP32 roof x %d/%.0f: dense FP16 tensor-core FLOP per SM and cycle against FP32's on compute "
             "capability %d.%d (NVIDIA's architecture whitepaper)",
             tensor, fp32_per_sm, d->cc_major, d->cc_minor);
    n++;
  }
  return n;
}

void pc_device_update_ridge(pc_device *d) {
  if (!d) return;
  if (pc_positive(d->peak_dram_bytes_per_s) && pc_positive(d->peak_fp32_flop_per_s))
    d->ridge_flop_per_byte = d->peak_fp32_flop_per_s / d->peak_dram_bytes_per_s;
  else
    d->ridge_flop_per_byte = PC_NULL;
}

void pc_device_ceilings_from_clocks(pc_device *d, double mem_clock_khz, double bus_width_bits,
                                    double sm_clock_khz) {
  if (!d) return;
  d->peak_dram_bytes_per_s = PC_NULL;
  d->peak_fp32_flop_per_s = PC_NULL;
  if (pc_positive(mem_clock_khz) && pc_positive(bus_width_bits))
    d->peak_dram_bytes_per_s = 2.0 * mem_clock_khz * 1e3 * bus_width_bits / 8.0;
  int lanes = pc_fp32_lanes_per_sm(d->cc_major, d->cc_minor);
  if (pc_positive(sm_clock_khz) && lanes > 0 && d->sm_count > 0)
    d->peak_fp32_flop_per_s = (double)d->sm_count * lanes * 2.0 * sm_clock_khz * 1e3;
  pc_device_update_ridge(d);
  snprintf(d->ceilings_source, sizeof d->ceilings_source, "%s", "attributes");
}

/* ---- The ceilings file ---------------------------------------------------- */

typedef enum { PC_KEY_STR, PC_KEY_INT, PC_KEY_DBL } pc_key_kind;

typedef struct pc_device_key {
  const char *key;
  pc_key_kind kind;
  size_t offset;
  size_t size; /* for strings */
} pc_device_key;

#define PC_KEY_I(f) {#f, PC_KEY_INT, offsetof(pc_device, f), 0}
#define PC_KEY_D(f) {#f, PC_KEY_DBL, offsetof(pc_device, f), 0}
#define PC_KEY_S(f) {#f, PC_KEY_STR, offsetof(pc_device, f), sizeof(((pc_device *)0)->f)}

/* Every pc_device field, in struct order. */
static const pc_device_key pc_device_keys[] = {
    PC_KEY_S(name),
    PC_KEY_I(cc_major),
    PC_KEY_I(cc_minor),
    PC_KEY_I(sm_count),
    PC_KEY_I(warp_size),
    PC_KEY_I(max_threads_per_sm),
    PC_KEY_I(max_threads_per_block),
    PC_KEY_I(max_blocks_per_sm),
    PC_KEY_I(max_regs_per_sm),
    PC_KEY_I(max_regs_per_block),
    PC_KEY_I(max_smem_per_sm),
    PC_KEY_I(max_smem_per_block),
    PC_KEY_I(max_smem_per_block_optin),
    PC_KEY_I(reserved_smem_per_block),
    PC_KEY_I(reg_alloc_unit),
    PC_KEY_I(warp_alloc_granularity),
    PC_KEY_I(smem_alloc_unit),
    PC_KEY_D(peak_dram_bytes_per_s),
    PC_KEY_D(peak_fp32_flop_per_s),
    PC_KEY_D(ridge_flop_per_byte),
    PC_KEY_S(ceilings_source),
};

static char *pc_trim(char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = '\0';
  return s;
}

/* Parses one "key = value" line into *d; returns NULL or a static reason. */
static const char *pc_device_set(pc_device *d, const char *key, const char *value, int *ceiling_seen) {
  const pc_device_key *k = NULL;
  for (size_t i = 0; i < sizeof pc_device_keys / sizeof pc_device_keys[0]; i++)
    if (strcmp(pc_device_keys[i].key, key) == 0) k = &pc_device_keys[i];
  if (!k) return "unknown key";
  char *field = (char *)d + k->offset;
  if (k->kind == PC_KEY_STR) {
    if (strlen(value) >= k->size) return "value too long";
    memcpy(field, value, strlen(value) + 1);
    return NULL;
  }
  if (*value == '\0') return "missing value";
  char *end = NULL;
  errno = 0;
  if (k->kind == PC_KEY_INT) {
    long v = strtol(value, &end, 10);
    if (*end != '\0') return "not an integer";
    if (errno == ERANGE || v < 0 || v > INT_MAX) return "integer out of range (0 to INT_MAX)";
    *(int *)(void *)field = (int)v;
  } else {
    double v = strtod(value, &end);
    if (*end != '\0') return "not a number";
    if (errno == ERANGE || !pc_positive(v)) return "must be a finite positive number";
    *(double *)(void *)field = v;
    if (strcmp(key, "ridge_flop_per_byte") != 0) *ceiling_seen = 1;
  }
  return NULL;
}

perfcheck_status pc_device_read_ceilings(pc_device *d, const char *path, pc_err *err) {
  pc_err_clear(err);
  if (!d || !path) {
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "no device or no path");
  }
  FILE *f = fopen(path, "r");
  if (!f) {
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
  }
  /* Parse into a copy: a file with an error changes nothing. */
  pc_device tmp = *d;
  int ceiling_seen = 0, source_seen = 0;
  perfcheck_status st = PERFCHECK_OK;
  char *line = NULL;
  size_t cap = 0;
  unsigned long lineno = 0;
  while (getline(&line, &cap, f) != -1) {
    lineno++;
    char *hash = strchr(line, '#'); /* '#' starts a comment anywhere */
    if (hash) *hash = '\0';
    char *s = pc_trim(line);
    if (*s == '\0') continue;
    char *eq = strchr(s, '=');
    char *key = eq ? (*eq = '\0', pc_trim(s)) : NULL;
    const char *why = !eq ? "expected `key = value`" : *key == '\0' ? "missing key before `=`" : NULL;
    if (!why) {
      why = pc_device_set(&tmp, key, pc_trim(eq + 1), &ceiling_seen);
      if (!why) {
        if (strcmp(key, "ceilings_source") == 0) source_seen = 1;
        continue;
      }
      st = pc_err_set(err, PERFCHECK_ERROR_PARSE, "%s:%lu: %s: %s", path, lineno, key, why);
      break;
    }
    st = pc_err_set(err, PERFCHECK_ERROR_PARSE, "%s:%lu: %s", path, lineno, why);
    break;
  }
  if (st == PERFCHECK_OK && ferror(f)) {
    st = pc_err_set(err, PERFCHECK_ERROR_IO, "%s: read error", path);
  }
  free(line);
  fclose(f);
  if (st != PERFCHECK_OK) return st;
  /* The ridge follows the peaks when both are known; a ridge alone (no
   * peaks) is kept as given. */
  if (pc_positive(tmp.peak_dram_bytes_per_s) && pc_positive(tmp.peak_fp32_flop_per_s)) pc_device_update_ridge(&tmp);
  if (ceiling_seen && !source_seen) snprintf(tmp.ceilings_source, sizeof tmp.ceilings_source, "%s", "file");
  *d = tmp;
  return PERFCHECK_OK;
}

static int pc_device_ceilings_out(FILE *f, void *ctx) {
  const pc_device *d = ctx;
  fprintf(f, "# perfcheck device ceilings: key = value; unknown values are left out\n");
  for (size_t i = 0; i < sizeof pc_device_keys / sizeof pc_device_keys[0]; i++) {
    const pc_device_key *k = &pc_device_keys[i];
    const char *field = (const char *)d + k->offset;
    if (k->kind == PC_KEY_STR) {
      /* A '#' or a newline would not read back: such a name is left out. */
      if (field[0] && !strpbrk(field, "#\r\n")) fprintf(f, "%s = %s\n", k->key, field);
    } else if (k->kind == PC_KEY_INT) {
      int v = *(const int *)(const void *)field;
      if (v >= 0) fprintf(f, "%s = %d\n", k->key, v);
    } else {
      double v = *(const double *)(const void *)field;
      if (pc_positive(v)) fprintf(f, "%s = %.17g\n", k->key, v);
    }
  }
  return ferror(f) ? -1 : 0;
}

/* Through the one output function (pc_output.h): a regular file replaced
 * whole, never a device or a symlink's target. */
perfcheck_status pc_device_write_ceilings(const pc_device *d, const char *path, pc_err *err) {
  pc_err_clear(err);
  if (!d || !path)
    return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_device_write_ceilings: no device or no path");
  pc_err why;
  perfcheck_status st = pc_output_write_file(path, pc_device_ceilings_out, (void *)(uintptr_t)d, &why);
  if (st != PERFCHECK_OK) return pc_err_set(err, st, "%s: %s", path, why.msg);
  return PERFCHECK_OK;
}
