/* The CSV report: a header row, then one row per kernel entry.  Fields are
 * quoted as RFC 4180 says (a field holding a comma, a quote, CR or LF is
 * quoted, and quotes inside are doubled); a value that was not measured is
 * an empty field.  Rows end with LF.
 *
 * A text field (a kernel name, a region, advice) that begins with = + - or
 * @ would be taken for a formula by a spreadsheet that opens the file (CSV
 * injection: a kernel named =HYPERLINK(...) runs as one): it is written with
 * a single quote before it and quoted, as OWASP's CSV-injection guidance
 * says ('=HYPERLINK(...)); spreadsheets show the text, and the quote tells a
 * reader of the file that the first character is the name's own.  Numbers
 * are written as numbers (a negative one keeps its sign). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "base/pc_fmt.h"
#include "write/pc_words.h"
#include "write/pc_write.h"

void pc_csv_write_field(FILE *f, const char *s) {
  if (!s) return;
  const int formula = s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@';
  int quote = formula || strpbrk(s, ",\"") != NULL;
  if (quote) fputc('"', f);
  if (formula) fputc('\'', f);
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    if (*p == '"') {
      fputs("\"\"", f);
      p++;
      continue;
    }
    if (*p < 0x20 || *p == 0x7f) { /* a kernel name's control characters: visible, never raw (a terminal would act on ESC) */
      if (*p == '\n')
        fputs("\\n", f);
      else if (*p == '\t')
        fputs("\\t", f);
      else if (*p == '\r')
        fputs("\\r", f);
      else
        fprintf(f, "\\x%02x", *p);
      p++;
      continue;
    }
    size_t n = pc_utf8_seq_len(p);
    if (n == 0) {
      fputs("\xEF\xBF\xBD", f); /* not UTF-8: U+FFFD, as the JSON writer does */
      p++;
    } else {
      fwrite(p, 1, n, f);
      p += n;
    }
  }
  if (quote) fputc('"', f);
}

static void pc_csv_number(FILE *f, double v) {
  if (!isfinite(v)) return; /* not measured: empty field */
  char buf[40];
  pc_fmt_double(buf, sizeof buf, v);
  fputs(buf, f);
}

static const char *const pc_csv_columns[] = {
    "name", "region", "grid", "block", "dynamic_smem_bytes", "launches", "duration_ns_median",
    "sectors_per_request_ld", "sectors_per_request_st", "threads_per_instruction",
    "threads_per_instruction_pred_on", "achieved_occupancy_pct", "theoretical_occupancy_pct",
    "flops", "dram_bytes", "arithmetic_intensity", "waves_per_sm", "dram_gbps", "gflops",
    "memory_pct", "compute_pct", "local_sectors", "bank_conflict_share", "atomic_share",
    "step", "cause", "bound", "metric", "value", "threshold", "advice",
    /* Appended, so that earlier columns keep their places. */
    "display_name", "total_ns", "kernel_time_share", "bytes_per_sector_ld", "bytes_per_sector_st",
    "bytes_per_sector_ldgsts", "busiest_pipe", "busiest_pipe_pct", "busiest_memory", "busiest_memory_pct",
    /* Appended: the device the kernel ran on. */
    "device_ordinal", "pci_bus_id",
    /* Appended: rank in its region, borderline mark, dominant stall. */
    "rank", "borderline", "runner_up", "stall", "stall_share",
    /* Appended: the label the text and HTML reports give the entry (what
     * tells apart entries that share a display name), whether it is worth
     * changing, the library that owns it and the change the user controls
     * there, the borderline runner-up's evidence, and the estimated gain. */
    "label", "worth_changing", "library", "library_advice", "runner_up_metric", "runner_up_value",
    "runner_up_threshold", "estimated_speedup", "estimated_saved_ns", "estimated_basis"};

perfcheck_status pc_write_csv(const pc_report *r, FILE *f, pc_err *err) {
  pc_err_clear(err);
  if (!r || !f) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_write_csv: NULL argument");
  pc_locale_guard lg;
  pc_locale_begin(&lg);
  pc_label *labels = calloc(r->nkernels ? r->nkernels : 1, sizeof *labels);
  if (!labels || pc_kernel_labels(r, labels) != 0) {
    free(labels);
    pc_locale_end(&lg);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "pc_write_csv: out of memory");
  }
  size_t ncol = sizeof pc_csv_columns / sizeof pc_csv_columns[0];
  for (size_t i = 0; i < ncol; i++) {
    if (i) fputc(',', f);
    fputs(pc_csv_columns[i], f);
  }
  fputc('\n', f);

  for (size_t i = 0; i < r->nkernels; i++) {
    const pc_kernel *k = &r->kernels[i];
    const pc_derived *d = &k->derived;
    const pc_finding *v = &k->diag.verdict;
    char dims[2][48];
    snprintf(dims[0], sizeof dims[0], "%ux%ux%u", k->grid[0], k->grid[1], k->grid[2]);
    snprintf(dims[1], sizeof dims[1], "%ux%ux%u", k->block[0], k->block[1], k->block[2]);
    const double derived[] = {d->sectors_per_request_ld, d->sectors_per_request_st,
                              d->threads_per_instruction, d->threads_per_instruction_pred_on,
                              d->achieved_occupancy_pct, d->theoretical_occupancy_pct,
                              d->flops, d->dram_bytes, d->arithmetic_intensity, d->waves_per_sm,
                              d->dram_gbps, d->gflops, d->memory_pct, d->compute_pct,
                              d->local_sectors, d->bank_conflict_share, d->atomic_share};

    pc_csv_write_field(f, k->name);
    fputc(',', f);
    pc_csv_write_field(f, k->region);
    fprintf(f, ",%s,%s,", dims[0], dims[1]);
    pc_csv_number(f, k->dynamic_smem);
    fprintf(f, ",%" PRIu64 ",", k->launches);
    pc_csv_number(f, k->dur_median_ns);
    for (size_t j = 0; j < sizeof derived / sizeof derived[0]; j++) {
      fputc(',', f);
      pc_csv_number(f, derived[j]);
    }
    fprintf(f, ",%d,%s,%s,", v->step, perfcheck_cause_name(v->cause),
            perfcheck_bound_name(k->diag.bound));
    pc_csv_write_field(f, v->metric);
    fputc(',', f);
    pc_csv_number(f, v->value);
    fputc(',', f);
    pc_csv_number(f, v->threshold);
    fputc(',', f);
    pc_csv_write_field(f, v->advice);
    fputc(',', f);
    pc_csv_write_field(f, k->display_name ? k->display_name : k->name);
    const double tail[] = {k->total_ns, k->time_share, d->bytes_per_sector_ld, d->bytes_per_sector_st,
                           d->bytes_per_sector_ldgsts};
    for (size_t j = 0; j < sizeof tail / sizeof tail[0]; j++) {
      fputc(',', f);
      pc_csv_number(f, tail[j]);
    }
    fputc(',', f);
    pc_csv_write_field(f, k->busiest_pipe.name);
    fputc(',', f);
    pc_csv_number(f, k->busiest_pipe.pct);
    fputc(',', f);
    pc_csv_write_field(f, k->busiest_memory.name);
    fputc(',', f);
    pc_csv_number(f, k->busiest_memory.pct);
    fputc(',', f);
    if (k->device_ordinal >= 0) fprintf(f, "%d", k->device_ordinal);
    fputc(',', f);
    pc_csv_write_field(f, k->pci_bus_id[0] ? k->pci_bus_id : NULL);
    fputc(',', f);
    if (k->rank > 0) fprintf(f, "%d", k->rank);
    fprintf(f, ",%d,", k->diag.borderline);
    pc_csv_write_field(f, k->diag.borderline ? perfcheck_cause_name(k->diag.runner_up) : NULL);
    fputc(',', f);
    pc_csv_write_field(f, k->diag.stall.reason);
    fputc(',', f);
    pc_csv_number(f, k->diag.stall.share);
    fputc(',', f);
    pc_csv_write_field(f, labels[i].text);
    const int worth = pc_kernel_worth_changing(k);
    fprintf(f, ",%s,", worth < 0 ? "" : worth ? "true" : "false");
    pc_csv_write_field(f, k->library[0] ? k->library : NULL);
    fputc(',', f);
    pc_csv_write_field(f, k->diag.library_advice[0] ? k->diag.library_advice : NULL);
    const char *rm = NULL;
    double rv = PC_NULL, rt = PC_NULL;
    (void)pc_runner_up_evidence(k, &r->device, &rm, &rv, &rt);
    fputc(',', f);
    pc_csv_write_field(f, rm);
    fputc(',', f);
    pc_csv_number(f, rv);
    fputc(',', f);
    pc_csv_number(f, rt);
    const int gain = pc_gain_known(&k->diag.gain);
    fputc(',', f);
    pc_csv_number(f, gain ? k->diag.gain.speedup : PC_NULL);
    fputc(',', f);
    pc_csv_number(f, gain ? k->diag.gain.saved_ns : PC_NULL);
    fputc(',', f);
    pc_csv_write_field(f, gain && k->diag.gain.basis[0] ? k->diag.gain.basis : NULL);
    fputc('\n', f);
  }
  for (size_t i = 0; i < r->nkernels; i++) free(labels[i].text);
  free(labels);
  pc_locale_end(&lg);
  if (fflush(f) != 0 || ferror(f)) return pc_err_set(err, PERFCHECK_ERROR_IO, "writing the CSV report failed");
  return PERFCHECK_OK;
}
