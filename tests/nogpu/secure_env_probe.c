/* The probe of nogpu.secure_getenv (secure_env_test.sh): what the library
 * reads from the environment, printed one field a line, so that the test can
 * run it as a plain program and as a setuid one (the kernel's AT_SECURE) and
 * compare.  It calls the same code the library and the injection library
 * call: pc_config_from_env (every PERFCHECK_* option), pc_job_place with
 * secure_getenv (the rank variables, as the session), pc_output_expand
 * (%q{VAR} and PERFCHECK_ROOT_PID), and getenv/secure_getenv of one control
 * variable (the setup works: getenv sees it, secure_getenv must not).  The
 * rest (PERFCHECK_SNAPSHOT_DIR, the ceilings
 * cache's XDG_CACHE_HOME/HOME, nvtx3's NVTX_INJECTION64_PATH) needs a GPU
 * session to reach; build.one_output checks that libperfcheck.so imports no
 * getenv at all, so they too go through secure_getenv.
 *
 * Linked with the static core (no library path to resolve in a setuid
 * program, where LD_LIBRARY_PATH and $ORIGIN are ignored). */
#define _GNU_SOURCE /* secure_getenv, getauxval */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "model/pc_config.h"
#include "base/pc_output.h"

static const char *show(const char *s) { return s ? s : "(null)"; }

int main(void) {
  printf("at_secure=%lu\n", getauxval(AT_SECURE));
  printf("getenv_control=%s\n", show(getenv("PC_PROBE_CONTROL")));
  printf("secure_getenv_control=%s\n", show(secure_getenv("PC_PROBE_CONTROL")));
  perfcheck_options o;
  pc_env_config x;
  int bad = pc_config_from_env(&o, &x, stderr);
  printf("bad=%d\n", bad);
  printf("mode=%d\n", (int)o.mode);
  printf("metrics=%s\n", show(o.metrics));
  printf("kernel_regex=%s\n", show(o.kernel_regex));
  printf("launch_skip=%llu\n", (unsigned long long)o.launch_skip);
  printf("launch_count=%llu\n", (unsigned long long)o.launch_count);
  printf("per_signature=%u\n", o.per_signature);
  printf("progress=%d\n", o.progress);
  printf("output=%s\n", show(o.output));
  printf("format=%d\n", (int)o.output_format);
  printf("nvtx=%s\n", show(x.nvtx_include));
  int rank, world, local;
  pc_job_place(secure_getenv, &rank, &world, &local, NULL);
  printf("rank=%d\nworld_size=%d\nlocal_rank=%d\n", rank, world, local);
  char *p = pc_output_expand("r.%q{PC_PROBE_RANK}.json", NULL);
  printf("expanded=%s\n", show(p));
  free(p);
  return 0;
}
