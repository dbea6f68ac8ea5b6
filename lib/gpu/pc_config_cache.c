/*
 * pc_config_cache.c: the counter configuration work that does not depend on
 * the process, cached across processes next to the measured ceilings
 * ($XDG_CACHE_HOME/perfcheck or ~/.cache/perfcheck, pc_ceilings.h): today
 * the split of a metric set into rotation groups (pc_rp_plan_groups), which
 * costs about 1 s for the default set and 8 s for `full` on GH100 (one host
 * API config build per trial), and is the same for every run of a chip and
 * a list.
 *
 * One file per chip and list: groups-<CHIP>-<hash>.txt, the hash (pc_hash_str,
 * the project's one hash) over the CUPTI version and the plan's counter
 * names.  Its text:
 *   perfcheck-groups/4 CHIP NAMES_HASH
 *   cold NAME NAME ...        one line per group; "cold": the DRAM group
 *   warm NAME NAME ...
 * where NAME is a table metric as ncu spells it or an extra of the plan;
 * gpu__time_duration.sum may be in every group (version 2), every other
 * name is in one; version 4 is the split that counts the groups reading each
 * memory unit, so a file of an earlier split is made again.  A file that does not parse, or names a metric the plan
 * does not collect, or leaves one out, is ignored and rewritten.  Written through a temporary
 * file and a rename (pc_output_write_file); not in a privileged process.
 *
 * And the counter availability image of a device: avail-<CHIP>-<key>.bin,
 * the key a hash over the device's name, PCI location and UUID (a MIG
 * instance has its own), the kernel driver's version line
 * (/proc/driver/nvidia/version) and the CUPTI version; its text a line
 *   perfcheck-avail/1 CHIP KEY SIZE
 * then SIZE bytes, the image as cuptiProfilerGetCounterAvailability gave it.
 * That call costs about 70 ms every time (125 ms the first time in a process,
 * of which about 55 ms then moves into the first Start when it is skipped)
 * and gave the same 9184 bytes in nine processes on the H200
 * (tests/gpu/setup_probe.cu, docs/cupti.md §19).  A file of another size or
 * header is ignored and rewritten.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/pc_hash.h"
#include "pc_call.h"
#include "pc_cuda.h"
#include "base/pc_output.h"
#include "pc_ceilings.h"
#include "pc_cupti.h"
#include "pc_rp_internal.h"

/* The cache file of (chip, plan), or -1 when no directory can be named. */
static int pc_groups_path(const char *chip, const pc_rp_plan *plan, char *out, size_t len, uint64_t *hash) { /* one-channel-ok: the path is its result */
  char dir[1024];
  if (pc_ceilings_cache_dir(NULL, dir, sizeof dir)) return -1;
  const char *names[PC_M_COUNT + 64];
  const size_t n = pc_rp_plan_counter_names(plan, names, sizeof names / sizeof names[0]);
  if (n > sizeof names / sizeof names[0]) return -1;
  char key[64];
  snprintf(key, sizeof key, "%u", pc_cupti_version());
  uint64_t h = pc_hash_str(key);
  for (size_t i = 0; i < n; i++) h = h * 1099511628211ull ^ pc_hash_str(names[i]);
  /* Which metric each name fills matters too (a table metric or an extra). */
  for (int i = 0; i < PC_M_COUNT; i++) h = h * 31u + (plan->want[i] ? 1u + plan->use_substitute[i] : 0u);
  *hash = h;
  return snprintf(out, len, "%s/groups-%s-%016llx.txt", dir, chip, (unsigned long long)h) < (int)len ? 0 : -1;
}

/* The item a name stands for: a table id, PC_M_COUNT + extra index, -1. */
static int pc_item_of(const pc_rp_plan *plan, const char *name) {
  const pc_metric_def *m = pc_metric_lookup(name, NULL);
  if (m && plan->want[m->id] && strcmp(m->name, name) == 0) return m->id;
  for (size_t i = 0; i < plan->nextra; i++)
    if (strcmp(plan->extra[i], name) == 0) return PC_M_COUNT + (int)i;
  return -1;
}

static int pc_groups_read(const char *path, const char *chip, uint64_t hash, const pc_rp_plan *plan, pc_rp_group **out,
                          size_t *nout) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char head[160], want_head[160];
  snprintf(want_head, sizeof want_head, "perfcheck-groups/4 %s %016llx\n", chip, (unsigned long long)hash);
  int ok = fgets(head, sizeof head, f) && strcmp(head, want_head) == 0;
  pc_rp_group *g = NULL;
  size_t n = 0;
  unsigned char seen[PC_M_COUNT] = {0};
  size_t xseen = 0;
  char line[16384];
  while (ok && fgets(line, sizeof line, f)) {
    size_t len = strlen(line);
    if (!len || line[len - 1] != '\n') {
      ok = 0;
      break;
    }
    line[len - 1] = '\0';
    pc_rp_group *grown = realloc(g, (n + 1) * sizeof *g);
    if (!grown) {
      ok = 0;
      break;
    }
    g = grown;
    pc_rp_group *cur = &g[n++];
    memset(cur, 0, sizeof *cur);
    if (plan->nextra && !(cur->xwant = calloc(plan->nextra, 1))) {
      ok = 0;
      break;
    }
    char *save = NULL, *tok = strtok_r(line, " ", &save);
    if (!tok || (strcmp(tok, "cold") && strcmp(tok, "warm"))) {
      ok = 0;
      break;
    }
    cur->cold = strcmp(tok, "cold") == 0;
    int items = 0;
    while ((tok = strtok_r(NULL, " ", &save))) {
      const int it = pc_item_of(plan, tok);
      if (it < 0) {
        ok = 0;
        break;
      }
      if (it < PC_M_COUNT) {
        ok &= !seen[it] || (it == PC_M_DURATION && !cur->want[it]);
        seen[it] = cur->want[it] = 1;
      } else {
        ok &= !cur->xwant[it - PC_M_COUNT];
        cur->xwant[it - PC_M_COUNT] = 1;
        xseen++;
      }
      items++;
    }
    ok &= items > 0;
  }
  fclose(f);
  /* Every metric the plan collects, once. */
  for (int i = 0; ok && i < PC_M_COUNT; i++) ok = seen[i] == plan->want[i];
  if (!ok || n == 0 || xseen != plan->nextra) {
    pc_rp_groups_free(g, n);
    return -1;
  }
  *out = g;
  *nout = n;
  return 0;
}

typedef struct pc_groups_out {
  const char *chip;
  uint64_t hash;
  const pc_rp_plan *plan;
  const pc_rp_group *g;
  size_t n;
} pc_groups_out;

static int pc_groups_write(FILE *f, void *ctx) {
  const pc_groups_out *o = ctx;
  fprintf(f, "perfcheck-groups/4 %s %016llx\n", o->chip, (unsigned long long)o->hash);
  for (size_t k = 0; k < o->n; k++) {
    fputs(o->g[k].cold ? "cold" : "warm", f);
    for (int i = 0; i < PC_M_COUNT; i++)
      if (o->g[k].want[i]) fprintf(f, " %s", pc_metric_by_id((pc_metric_id)i)->name);
    for (size_t i = 0; o->g[k].xwant && i < o->plan->nextra; i++)
      if (o->g[k].xwant[i]) fprintf(f, " %s", o->plan->extra[i]);
    fputc('\n', f);
  }
  return ferror(f) ? -1 : 0;
}

/* mkdir -p for the cache directory's last two levels (~/.cache/perfcheck). */
static void pc_mkdirs(const char *path) {
  char d[1400];
  snprintf(d, sizeof d, "%s", path);
  char *slash = strrchr(d, '/');
  if (!slash) return;
  *slash = '\0';
  char *up = strrchr(d, '/');
  if (up && up != d) {
    *up = '\0';
    (void)mkdir(d, 0700);
    *up = '/';
  }
  (void)mkdir(d, 0700);
}

perfcheck_status pc_rp_groups_load(const char *chip, const pc_rp_plan *plan, pc_rp_group **out, size_t *n,
                                   pc_err *err) {
  char path[1400];
  uint64_t hash = 0;
  const int named = pc_groups_path(chip, plan, path, sizeof path, &hash) == 0;
  if (named && pc_groups_read(path, chip, hash, plan, out, n) == 0) return PERFCHECK_OK;
  const perfcheck_status st = pc_rp_plan_groups(chip, NULL, plan, out, n, err);
  if (st != PERFCHECK_OK || !named || pc_output_privileged()) return st;
  pc_mkdirs(path);
  const pc_groups_out o = {chip, hash, plan, *out, *n};
  (void)pc_output_write_file(path, pc_groups_write, (void *)&o, NULL); /* a cache: failing is fine */
  return st;
}

/* ==== The counter availability image ======================================= */

/* The kernel driver's version line, read once a process: a driver update can
 * change what is available.  Empty when unreadable (no cache then). */
static char pc_drv_line[256];
static pthread_once_t pc_drv_once = PTHREAD_ONCE_INIT;

static void pc_drv_read(void) {
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  if (!f) return;
  if (!fgets(pc_drv_line, sizeof pc_drv_line, f)) pc_drv_line[0] = '\0';
  fclose(f);
}

int pc_rp_avail_key(int ordinal, const char *chip, uint64_t *key) {
  CUdevice dev;
  CUuuid uuid;
  char devkey[192];
  if (pc_device_key(ordinal, devkey, sizeof devkey) || PC_CU(NULL, cuDeviceGet, &dev, ordinal) != CUDA_SUCCESS ||
      PC_CU(NULL, cuDeviceGetUuid, &uuid, dev) != CUDA_SUCCESS)
    return -1;
  (void)pthread_once(&pc_drv_once, pc_drv_read);
  if (!pc_drv_line[0]) return -1;
  char s[768];
  int n = snprintf(s, sizeof s, "%s|%s|%u|%s|", chip, devkey, pc_cupti_version(), pc_drv_line);
  for (size_t i = 0; i < sizeof uuid.bytes && n > 0 && (size_t)n + 2 < sizeof s; i++)
    n += snprintf(s + n, sizeof s - (size_t)n, "%02x", (unsigned char)uuid.bytes[i]);
  if (n <= 0 || (size_t)n >= sizeof s) return -1;
  *key = pc_hash_str(s);
  return 0;
}

static int pc_avail_path(const char *chip, uint64_t key, char *out, size_t len) { /* one-channel-ok: the path is its result */
  char dir[1024];
  if (pc_ceilings_cache_dir(NULL, dir, sizeof dir)) return -1;
  return snprintf(out, len, "%s/avail-%s-%016llx.bin", dir, chip, (unsigned long long)key) < (int)len ? 0 : -1;
}

/* The largest image we accept (9184 bytes on GH100). */
#define PC_AVAIL_MAX (1u << 20)

int pc_rp_avail_read(const char *chip, uint64_t key, uint8_t **img, size_t *size) {
  char path[1400];
  if (pc_avail_path(chip, key, path, sizeof path)) return -1;
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char head[160], chip_in[64];
  unsigned long long key_in = 0;
  size_t n = 0;
  uint8_t *buf = NULL;
  int ok = fgets(head, sizeof head, f) && sscanf(head, "perfcheck-avail/1 %63s %llx %zu", chip_in, &key_in, &n) == 3 &&
           strcmp(chip_in, chip) == 0 && key_in == key && n > 0 && n <= PC_AVAIL_MAX && (buf = malloc(n)) &&
           fread(buf, 1, n, f) == n && fgetc(f) == EOF;
  fclose(f);
  if (!ok) {
    free(buf);
    return -1;
  }
  *img = buf;
  *size = n;
  return 0;
}

typedef struct pc_avail_out {
  const char *chip;
  uint64_t key;
  const uint8_t *img;
  size_t size;
} pc_avail_out;

static int pc_avail_write_fn(FILE *f, void *ctx) {
  const pc_avail_out *o = ctx;
  fprintf(f, "perfcheck-avail/1 %s %016llx %zu\n", o->chip, (unsigned long long)o->key, o->size);
  if (fwrite(o->img, 1, o->size, f) != o->size) return -1;
  return ferror(f) ? -1 : 0;
}

void pc_rp_avail_write(const char *chip, uint64_t key, const uint8_t *img, size_t size) {
  char path[1400];
  if (!img || !size || size > PC_AVAIL_MAX || pc_output_privileged() || pc_avail_path(chip, key, path, sizeof path))
    return;
  pc_mkdirs(path);
  const pc_avail_out o = {chip, key, img, size};
  (void)pc_output_write_file(path, pc_avail_write_fn, (void *)&o, NULL);
}
