/*
 * pc_expect.h: expectations (performance assertions) and their JUnit output,
 * pure C (pc_expect.c).  The public API (perfcheck_expectations_*) is in
 * perfcheck.h, banner "Expectations"; this header exposes the parser and the
 * tolerance policy to the unit tests.
 */
#ifndef PC_EXPECT_H
#define PC_EXPECT_H

#include "base/pc_regex.h"
#include <stddef.h>
#include <stdio.h>

#include "model/pc_core.h"

/* The tolerance policy of perfcheck.h, as numbers (percent of the value). */
#define PC_EXPECT_BAND_TIME_PCT 10.0 /* durations: run-to-run and clock noise */
#define PC_EXPECT_BAND_RATE_PCT 5.0  /* throughput %, achieved occupancy, DRAM traffic */
/* Exact comparisons still forgive this relative error, so that a value that
 * went through text (JSON, CSV) compares equal to the one measured. */
#define PC_EXPECT_EXACT_REL 1e-9
/* Two runs of the same kernels do not repeat every count exactly: on the H200
 * (the tests/data/h200 exports against their cache-none twins) global store sectors moved
 * by up to 0.22% and L2 atomic requests by 0.05%, so that sectors per
 * request read 3.997 in one run and 4.002 in the next.  Comparing two runs
 * (perfcheck diff), a count or ratio gets this band instead of none. */
#define PC_EXPECT_RERUN_EXACT_PCT 1.0

typedef enum pc_expect_class {
  PC_EXPECT_EXACT = 0, /* counts, ratios, launch values, theoretical occupancy, step */
  PC_EXPECT_TIME = 1,  /* durations */
  PC_EXPECT_RATE = 2   /* throughput percentages and other rates */
} pc_expect_class;

/* What kind of value the quantity is. */
typedef enum pc_expect_kind {
  PC_EXPECT_NUMBER = 0, /* pc_kernel_value */
  PC_EXPECT_STEP = 1,   /* the verdict's step */
  PC_EXPECT_CAUSE = 2,  /* the verdict's cause word */
  PC_EXPECT_BOUND = 3   /* step 2's answer */
} pc_expect_kind;

typedef struct pc_expectation {
  char *spec;                /* as written, or built from parts */
  char *kernel;              /* a name, or the pattern when is_regex */
  int is_regex;
  pc_regex re;                /* compiled when is_regex */
  char *quantity;
  pc_expect_kind kind;
  perfcheck_comparison cmp;
  double value;              /* numbers */
  int word;                  /* perfcheck_cause or perfcheck_bound for words */
  double tolerance_pct;      /* NaN: the policy's band */
} pc_expectation;

typedef struct pc_expect_result {
  const pc_expectation *e;   /* NULL for a result judged outside the set (pc_expect_add_result) */
  char *spec, *quantity;     /* such a result's own ("baseline base.json", "baseline"); NULL otherwise */
  const char *type;          /* its JUnit failure type (static text); NULL: by the status */
  char *kernel;              /* label of the entry checked, or the pattern */
  perfcheck_status status;   /* OK, EXPECTATION_FAILED, NOT_FOUND, NOT_MEASURED */
  double measured;
  const char *measured_word; /* static */
  char *expected;
  char *message;
  char *advice;
} pc_expect_result;

/* The public opaque perfcheck_expectations is this struct. */
typedef struct perfcheck_expectations {
  pc_expectation *items;
  size_t n, cap;
  pc_expect_result *results;
  size_t nresults, cap_results;
  size_t failures;
  char *failures_text;       /* failure messages, one a line; "" when none */
} pc_expectations;

/* Parses a spec string (grammar in perfcheck.h).  On failure returns
 * PERFCHECK_ERROR_PARSE with err->msg = "column N: what is wrong" (1-based byte
 * column into spec), or PERFCHECK_ERROR_OUT_OF_MEMORY; *out is untouched. */
perfcheck_status pc_expect_parse(const char *spec, pc_expectation *out, pc_err *err);
void pc_expectation_free(pc_expectation *e);

/* Adds a result judged outside the set's expectations (a comparison with a
 * stored report, a program's exit status) to its results: the strings are
 * copied; status PERFCHECK_OK (passed) or PERFCHECK_ERROR_EXPECTATION_FAILED;
 * `type` (static text, may be NULL) is its JUnit failure type.  Returns
 * PERFCHECK_OK or PERFCHECK_ERROR_OUT_OF_MEMORY (nothing added). */
perfcheck_status pc_expect_add_result(pc_expectations *set, const char *spec, const char *kernel,
                                      const char *quantity, const char *expected, perfcheck_status status,
                                      const char *type, const char *message);

/* The class and the default band (percent, 0 for exact) of a quantity. */
pc_expect_class pc_expect_quantity_class(const char *quantity);
double pc_expect_default_band_pct(const char *quantity);
/* Is `measured` within band_pct percent of `expected` (plus the exact
 * comparisons' PC_EXPECT_EXACT_REL)?  What `within`, `==` and perfcheck diff
 * use. */
int pc_expect_within_band(double expected, double measured, double band_pct);
/* The band for comparing a quantity across two runs: the default band, and
 * PC_EXPECT_RERUN_EXACT_PCT where that is exact. */
double pc_expect_rerun_band_pct(const char *quantity);


/* XML 1.0 character data / attribute value: escapes markup, replaces
 * characters XML 1.0 cannot hold (C0 controls but tab, LF and CR; U+FFFE,
 * U+FFFF; bytes that are not UTF-8) with U+FFFD.  In an attribute, tab, LF
 * and CR are written as character references so they survive
 * attribute-value normalization. */
void pc_xml_write_escaped(FILE *f, const char *s, int attribute);

#endif /* PC_EXPECT_H */
