/* A test double of libperfcheck for the Python package's profiling-on path on
 * a CPU (tests/python/test_session_double.py): the real core (reports,
 * writers, readers, expectations, options from the environment) linked whole,
 * plus session functions that need no GPU.  They keep the C API's rules (one
 * session per process, a stack of open regions, end without begin is
 * PERFCHECK_ERROR_NO_REGION) and log every call, with the pid, to the file
 * named by PERFCHECK_DOUBLE_LOG, so that the test sees what Python called,
 * in which process.  Region names pick failures: "inert" makes begin answer
 * PERFCHECK_ERROR_INERT, "fault" makes end answer PERFCHECK_ERROR_KERNEL_FAULT.
 * Never installed, never loaded outside the tests. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfcheck.h"

struct perfcheck_session {
  char *open[64];
  size_t nopen;
  char regions[8192]; /* the ended regions, as JSON objects */
  size_t nregions;
  perfcheck_report *report;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static perfcheck_session *the_session;

__attribute__((format(printf, 1, 2))) static void logline(const char *fmt, ...) {
  const char *path = getenv("PERFCHECK_DOUBLE_LOG");
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "%ld ", (long)getpid());
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

PERFCHECK_API perfcheck_status perfcheck_session_create(const perfcheck_options *o, perfcheck_session **out) {
  if (!out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  *out = NULL;
  pthread_mutex_lock(&lock);
  perfcheck_status st = PERFCHECK_OK;
  if (the_session) {
    st = PERFCHECK_ERROR_SESSION_EXISTS;
  } else if (!(the_session = calloc(1, sizeof *the_session))) {
    st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  } else {
    char opts[600];
    snprintf(opts, sizeof opts, "mode=%d metrics=%s kernels=%s skip=%llu count=%llu per_signature=%u nvtx=%d "
             "quiet=%d output=%s format=%d", o ? (int)o->mode : -1, o && o->metrics ? o->metrics : "-",
             o && o->kernel_regex ? o->kernel_regex : "-", o ? (unsigned long long)o->launch_skip : 0ULL,
             o ? (unsigned long long)o->launch_count : 0ULL, o ? o->per_signature : 0u, o ? o->emit_nvtx : -1,
             o ? o->quiet : -1, o && o->output ? o->output : "-", o ? (int)o->output_format : -1);
    logline("create %s", opts);
    *out = the_session;
  }
  pthread_mutex_unlock(&lock);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_session_begin(perfcheck_session *s, const char *region) {
  if (!s || !region) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  if (strcmp(region, "inert") == 0) return PERFCHECK_ERROR_INERT;
  pthread_mutex_lock(&lock);
  perfcheck_status st = PERFCHECK_OK;
  if (s->nopen == 64) {
    st = PERFCHECK_ERROR_OUT_OF_MEMORY;
  } else {
    s->open[s->nopen++] = strdup(region);
    logline("begin %s", region);
  }
  pthread_mutex_unlock(&lock);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_session_end(perfcheck_session *s) {
  if (!s) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&lock);
  perfcheck_status st = PERFCHECK_OK;
  if (s->nopen == 0) {
    st = PERFCHECK_ERROR_NO_REGION;
    logline("end without begin");
  } else {
    char *name = s->open[--s->nopen];
    const char *parent = s->nopen ? s->open[s->nopen - 1] : NULL;
    size_t used = strlen(s->regions);
    if (s->nregions < 64)
      snprintf(s->regions + used, sizeof s->regions - used,
               "%s{\"name\": \"%s\", \"parent\": %s%s%s, \"depth\": %zu, \"wall_ns\": 1000, \"kernel_ns\": null, "
               "\"launches\": 0}", s->nregions ? ", " : "", name, parent ? "\"" : "", parent ? parent : "null",
               parent ? "\"" : "", s->nopen);
    s->nregions++;
    logline("end %s", name);
    if (strcmp(name, "fault") == 0) st = PERFCHECK_ERROR_KERNEL_FAULT;
    free(name);
  }
  pthread_mutex_unlock(&lock);
  return st;
}

PERFCHECK_API perfcheck_status perfcheck_session_report(perfcheck_session *s, const perfcheck_report **out) {
  if (!s || !out) return PERFCHECK_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&lock);
  char json[9000];
  snprintf(json, sizeof json,
           "{\"schema\": \"perfcheck-report/1\", \"source\": \"in-process\", \"step1_assessed\": true, "
           "\"regions\": [%s], \"kernels\": []}", s->regions);
  perfcheck_report_destroy(s->report); /* the borrowed report lives until the next call */
  s->report = NULL;
  perfcheck_status st = perfcheck_report_from_json_text(json, strlen(json), "double", 1, &s->report);
  *out = s->report;
  logline("report %zu", s->nregions);
  pthread_mutex_unlock(&lock);
  return st;
}

PERFCHECK_API const char *perfcheck_session_message(const perfcheck_session *s) {
  return s ? "session double: no GPU, no counters" : "";
}

PERFCHECK_API void perfcheck_session_destroy(perfcheck_session *s) {
  if (!s) return;
  pthread_mutex_lock(&lock);
  logline("destroy %zu", s->nopen);
  for (size_t i = 0; i < s->nopen; i++) free(s->open[i]);
  perfcheck_report_destroy(s->report);
  if (s == the_session) the_session = NULL;
  free(s);
  pthread_mutex_unlock(&lock);
}
