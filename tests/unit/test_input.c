/* Opening inputs (lib/core/read/pc_input.c, pc_read.c): gzip by content, stdin,
 * the format told by the content, and the messages for what is none of
 * them.  Real data: the committed H200 exports, plain and .csv.gz. */
#define _GNU_SOURCE /* mkstemp, dup2 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "model/pc_core.h"
#include "read/pc_input.h"

#define DATA(f) PERFCHECK_TEST_DATA "/" f

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  b[n] = '\0';
  *len = (size_t)n;
  return b;
}

static void temp_path(char *out, size_t len, const char *suffix) {
  snprintf(out, len, "/tmp/perfcheck_input_XXXXXX");
  int fd = mkstemp(out);
  assert_true(fd >= 0);
  close(fd);
  unlink(out);
  strncat(out, suffix, len - strlen(out) - 1);
}

/* data gzip-compressed into `path`. */
static void write_gz(const char *path, const char *data, size_t len) {
  gzFile g = gzopen(path, "wb9");
  assert_non_null(g);
  assert_int_equal(gzwrite(g, data, (unsigned)len), (int)len);
  assert_int_equal(gzclose(g), Z_OK);
}

static void write_plain(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, len, f), len);
  fclose(f);
}

static const pc_kernel *find(const pc_report *r, const char *name, double dyn) {
  for (size_t i = 0; i < r->nkernels; i++)
    if (strcmp(r->kernels[i].name, name) == 0 && (dyn < 0 || r->kernels[i].dynamic_smem == dyn)) return &r->kernels[i];
  fail_msg("no kernel %s", name);
  return NULL;
}

/* The committed H200 corpus export of the mystery kernels (ncu --set full
 * plus perfcheck's metrics), gzip as committed: the four seed verdicts, and
 * no warning (it has every metric the checklist reads). */
static void test_corpus_gzip_as_committed(void **state) {
  (void)state;
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_read(DATA("corpus/h200-2026-12-01/mystery.csv.gz"), 1, &r), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 4);
  assert_int_equal(find(r, "mysteryA", -1)->diag.verdict.cause, PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS);
  assert_int_equal(find(r, "mysteryB", -1)->diag.verdict.cause, PERFCHECK_CAUSE_DIVERGENT_WARPS);
  assert_int_equal(find(r, "mysteryC", 116736)->diag.verdict.cause, PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY);
  assert_int_equal(find(r, "mysteryC", 0)->diag.verdict.cause, PERFCHECK_CAUSE_AT_ROOF);
  for (size_t i = 0; i < r->nwarnings; i++) print_message("unexpected warning: %s\n", r->warnings[i]);
  assert_int_equal(r->nwarnings, 0);
  perfcheck_report_destroy(r);
  /* The export reader itself takes it too. */
  assert_int_equal(perfcheck_report_from_ncu_csv(DATA("corpus/h200-2026-12-01/mystery.csv.gz"), 1, &r), PERFCHECK_OK);
  assert_int_equal(r->nkernels, 4);
  perfcheck_report_destroy(r);
}

/* A plain export and its gzip give the same report, value for value. */
static void test_gzip_equals_plain(void **state) {
  (void)state;
  size_t n;
  char *csv = slurp(DATA("h200/mystery.csv"), &n);
  char gz[64];
  temp_path(gz, sizeof gz, ".csv"); /* the name says csv: content decides */
  write_gz(gz, csv, n);
  perfcheck_report *a = NULL, *b = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(DATA("h200/mystery.csv"), 1, &a), PERFCHECK_OK);
  assert_int_equal(perfcheck_report_read(gz, 1, &b), PERFCHECK_OK);
  assert_int_equal(a->nkernels, b->nkernels);
  for (size_t i = 0; i < a->nkernels; i++) {
    assert_string_equal(a->kernels[i].name, b->kernels[i].name);
    for (int m = 0; m < PC_M_COUNT; m++) {
      const double x = a->kernels[i].metric[m], y = b->kernels[i].metric[m];
      assert_true((pc_is_null(x) && pc_is_null(y)) || x == y);
    }
    assert_int_equal(a->kernels[i].diag.verdict.cause, b->kernels[i].diag.verdict.cause);
  }
  assert_int_equal(a->nwarnings, b->nwarnings);
  perfcheck_report_destroy(a);
  perfcheck_report_destroy(b);

  /* A gzip stream cut short (the committed PyTorch corpus export, 60 lines,
   * cut at 3/4 of its bytes: 42 lines come out): what came before is read,
   * with one warning. */
  size_t tn;
  char *t = slurp(DATA("corpus/h200-2026-12-01/torch_ops.csv.gz"), &tn);
  char cut[64];
  temp_path(cut, sizeof cut, ".gz");
  write_plain(cut, t, tn * 3 / 4);
  free(t);
  assert_int_equal(perfcheck_report_read(cut, 1, &b), PERFCHECK_OK);
  print_message("cut short: %zu kernels\n", b->nkernels);
  assert_true(b->nkernels >= 30);
  int warned = 0;
  for (size_t i = 0; i < b->nwarnings; i++) warned |= strstr(b->warnings[i], "gzip stream ends before its end") != NULL;
  assert_true(warned);
  perfcheck_report_destroy(b);

  /* Damaged gzip data: an error naming the file and zlib's reason. */
  size_t gn;
  char *g = slurp(gz, &gn);
  for (size_t i = gn / 3; i < gn / 3 + 64 && i < gn; i++) g[i] = (char)(g[i] ^ 0x5A);
  write_plain(cut, g, gn);
  b = (perfcheck_report *)1;
  assert_int_not_equal(perfcheck_report_read(cut, 1, &b), PERFCHECK_OK);
  assert_null(b);
  print_message("damaged: %s\n", perfcheck_last_error_message());
  assert_non_null(strstr(perfcheck_last_error_message(), cut));
  assert_true(strstr(perfcheck_last_error_message(), "damaged gzip data") ||
              strstr(perfcheck_last_error_message(), "fields where the header"));
  unlink(cut);
  unlink(gz);
  free(g);
  free(csv);
}

/* A JSON report, gzip-compressed, read by both readers; and "-" for stdin. */
static void test_json_gzip_and_stdin(void **state) {
  (void)state;
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_from_ncu_csv(DATA("h200/mystery.csv"), 1, &r), PERFCHECK_OK);
  char *json = NULL;
  size_t n = 0;
  assert_int_equal(perfcheck_report_to_string(r, PERFCHECK_FORMAT_JSON, &json, &n), PERFCHECK_OK);
  char gz[64];
  temp_path(gz, sizeof gz, ".json.gz");
  write_gz(gz, json, n);
  perfcheck_report *a = NULL;
  assert_int_equal(perfcheck_report_from_json(gz, 1, &a), PERFCHECK_OK);
  assert_int_equal(a->nkernels, r->nkernels);
  perfcheck_report_destroy(a);
  assert_int_equal(perfcheck_report_read(gz, 1, &a), PERFCHECK_OK);
  assert_string_equal(a->source, "ncu-export");
  perfcheck_report_destroy(a);

  /* stdin: the gzip JSON, then a plain export, through "-". */
  int saved = dup(STDIN_FILENO);
  int fd = open(gz, O_RDONLY);
  assert_true(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
  close(fd);
  assert_int_equal(perfcheck_report_read("-", 1, &a), PERFCHECK_OK);
  assert_int_equal(a->nkernels, r->nkernels);
  perfcheck_report_destroy(a);
  fd = open(DATA("h200/occupancy.csv"), O_RDONLY);
  assert_true(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
  close(fd);
  assert_int_equal(perfcheck_report_from_ncu_csv("-", 1, &a), PERFCHECK_OK);
  assert_int_equal(a->nkernels, 3);
  perfcheck_report_destroy(a);
  /* An empty stdin is named "stdin". */
  fd = open("/dev/null", O_RDONLY);
  assert_true(fd >= 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO);
  close(fd);
  assert_int_equal(perfcheck_report_read("-", 1, &a), PERFCHECK_ERROR_PARSE);
  assert_string_equal(perfcheck_last_error_message(),
                      "stdin:1: empty file; expected an ncu raw export (ncu --csv --page raw), a perfcheck JSON "
                      "report, or an nsys stats CSV (nsys stats --report cuda_gpu_kern_sum --format csv), plain or "
                      "gzip");
  assert_true(dup2(saved, STDIN_FILENO) == STDIN_FILENO);
  close(saved);
  unlink(gz);
  perfcheck_free(json);
  perfcheck_report_destroy(r);
}

/* What is none of the formats says what it is and what to do. */
static void test_wrong_formats(void **state) {
  (void)state;
  perfcheck_report *r = NULL;
  assert_int_equal(perfcheck_report_read(DATA("h200/mystery.ncu-rep"), 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), "mystery.ncu-rep:1: an Nsight Compute report (.ncu-rep), "
                                                         "not a CSV export: export it with `ncu --import"));
  /* A JSON report given to the ncu reader, an export to the JSON reader. */
  assert_int_equal(perfcheck_report_from_json(DATA("h200/mystery.csv"), 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), "mystery.csv:1: an ncu export, not a perfcheck JSON report"));
  char path[64];
  temp_path(path, sizeof path, ".csv");
  write_plain(path, "{\"schema\": \"perfcheck-report/1\"}\n", 33);
  assert_int_equal(perfcheck_report_from_ncu_csv(path, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), ":1: a JSON document, not an ncu raw export"));
  write_plain(path, "\x28\xB5\x2F\xFD\x00\x00", 6);
  assert_int_equal(perfcheck_report_read(path, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), "zstd-compressed: only gzip is read as it is"));
  /* Plain text that is no export: the formats perfcheck reads are named. */
  write_plain(path, "hello\nworld\n", 12);
  assert_int_equal(perfcheck_report_read(path, 1, &r), PERFCHECK_ERROR_PARSE);
  assert_non_null(strstr(perfcheck_last_error_message(), "no header row"));
  assert_non_null(strstr(perfcheck_last_error_message(), "perfcheck reads an ncu raw export"));
  unlink(path);
  assert_int_equal(perfcheck_report_read(DATA("no_such_file.csv.gz"), 1, &r), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(perfcheck_last_error_message(), "no_such_file.csv.gz: cannot open: "));
  assert_int_equal(perfcheck_report_read(DATA("bad"), 1, &r), PERFCHECK_ERROR_IO);
  assert_non_null(strstr(perfcheck_last_error_message(), "bad: is a directory"));
}

/* pc_input: the kind and the gzip flag of real files. */
static void test_kinds(void **state) {
  (void)state;
  static const struct {
    const char *path;
    pc_input_kind kind;
    int gzip;
  } t[] = {
      {DATA("h200/mystery.csv"), PC_INPUT_NCU_CSV, 0},
      {DATA("corpus/h200-2026-12-01/torch_ops.csv.gz"), PC_INPUT_NCU_CSV, 1},
      {DATA("h200-torch/torch_step.perfcheck-run.json"), PC_INPUT_JSON, 0},
      {DATA("h200/mystery.ncu-rep"), PC_INPUT_OTHER, 0},
      {DATA("bad/random.bin"), PC_INPUT_OTHER, 0},
      {DATA("bad/empty.csv"), PC_INPUT_EMPTY, 0},
      {DATA("bad/not_ncu.csv"), PC_INPUT_TEXT, 0},
      {DATA("nsys/mystery_kern_mem.hand-made.csv"), PC_INPUT_NSYS_CSV, 0},
  };
  pc_err err;
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    pc_input *in = NULL;
    assert_int_equal(pc_input_open(t[i].path, &in, &err), PERFCHECK_OK);
    if (pc_input_kind_of(in) != t[i].kind || pc_input_gzip(in) != t[i].gzip)
      fail_msg("%s: kind %d gzip %d", t[i].path, (int)pc_input_kind_of(in), pc_input_gzip(in));
    pc_input_close(in);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus_gzip_as_committed), cmocka_unit_test(test_gzip_equals_plain),
      cmocka_unit_test(test_json_gzip_and_stdin),      cmocka_unit_test(test_wrong_formats),
      cmocka_unit_test(test_kinds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
