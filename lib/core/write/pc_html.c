/* What the HTML writers share (pc_html.h): escaping, the page frame, number
 * formats, the colours of the causes, and the roofline as SVG.
 *
 * The page is one file: inline CSS, one small inline script that only sorts
 * tables and opens a kernel's metrics when a link points at it, and SVG
 * written here.  Nothing is fetched: it opens from disk with no network. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pc_core.h"
#include "expect/pc_expect.h" /* pc_xml_write_escaped: the one XML/HTML escaper */
#include "base/pc_fmt.h"
#include "write/pc_html.h"
#include "check/pc_check.h"

/* ---- Text ------------------------------------------------------------------ */

void pc_html_text(FILE *f, const char *s) { pc_xml_write_escaped(f, s ? s : "", 0); }

size_t pc_html_chars_for(double width_px) {
  double n = floor(width_px / PC_HTML_CHAR_W);
  return n < 1 ? 1 : (size_t)n;
}

void pc_html_text_cut(FILE *f, const char *s, size_t max_chars) {
  if (!s) s = "";
  if (max_chars == 0) return;
  /* Count characters; an invalid byte counts as one (it becomes U+FFFD). */
  size_t chars = 0, cut_at = 0; /* byte offset after max_chars - 1 characters */
  const unsigned char *p = (const unsigned char *)s;
  size_t off = 0;
  while (p[off]) {
    size_t n = pc_utf8_seq_len(p + off);
    if (n == 0) n = 1;
    chars++;
    off += n;
    if (chars == max_chars - 1) cut_at = off;
  }
  if (chars <= max_chars) {
    pc_html_text(f, s);
    return;
  }
  char small[512], *head = cut_at < sizeof small ? small : malloc(cut_at + 1);
  if (head) {
    memcpy(head, s, cut_at);
    head[cut_at] = '\0';
    pc_html_text(f, head);
    if (head != small) free(head);
  }
  fputs("\xE2\x80\xA6", f); /* U+2026 */
}

/* ---- Numbers --------------------------------------------------------------- */

const char *pc_html_num(char *buf, size_t len, double v) {
  if (!isfinite(v)) {
    snprintf(buf, len, "-");
  } else if (v == floor(v) && fabs(v) < 1e15) {
    snprintf(buf, len, "%.0f", v);
  } else if (fabs(v) >= 1e4) {
    snprintf(buf, len, "%.0f", v);
  } else if (fabs(v) >= 1e-3) {
    snprintf(buf, len, "%.4g", v);
  } else {
    snprintf(buf, len, "%.3e", v);
  }
  return buf;
}

/* ---- Page ------------------------------------------------------------------ */

static const char pc_html_css[] =
    "body{font:14px/1.45 \"DejaVu Sans\",\"Liberation Sans\",Arial,sans-serif;margin:16px 24px;color:#1b1b1b;"
    "background:#fff;max-width:1250px}\n"
    "h1{font-size:21px;margin:0 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #bbb}"
    "h3{font-size:15px;margin:18px 0 4px}\n"
    "p{margin:3px 0}p,li{overflow-wrap:anywhere}.meta{color:#333}.why,.note{color:#555}"
    ".mono{font-family:\"DejaVu Sans Mono\",monospace;overflow-wrap:anywhere}\n"
    "table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{border:1px solid #d4d4d4;padding:2px 6px;"
    "text-align:left;vertical-align:top}th{background:#f3f3f3;white-space:nowrap}td.name,table.m td:first-child{"
    "overflow-wrap:anywhere}td.name{min-width:12em}td.n,td[data-v]:not(.t),table.m td+td{"
    "text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "table.m td:first-child{font-family:\"DejaVu Sans Mono\",monospace}\n"
    "th[data-sort]{cursor:pointer}th[aria-sort=ascending]::after{content:\" \\25B2\"}"
    "th[aria-sort=descending]::after{content:\" \\25BC\"}\n"
    "svg{display:block;max-width:100%;height:auto}svg text{font-family:\"DejaVu Sans Mono\",\"Liberation Mono\","
    "monospace;font-size:11px;fill:#1b1b1b}\n"
    ".grid{stroke:#e6e6e6}.axis{stroke:#555;fill:none}.ceiling{stroke-width:2.2;fill:none}.ridge{stroke:#777;"
    "stroke-dasharray:4 3}\n"
    ".point{stroke:#222;stroke-width:.8;fill-opacity:.85}.from{fill:none;stroke:#666;stroke-dasharray:2 2}"
    ".move{stroke:#666;stroke-width:1.2}\n"
    ".band rect.b{stroke-width:1.2}.pass rect.b{fill:#dcefdc;stroke:#2e7d32}.catch rect.b{fill:#f9d6d5;"
    "stroke:#c62828}.na rect.b{fill:#ececec;stroke:#9e9e9e}\n"
    ".gauge{fill:#fff;stroke:#999}.tick{stroke:#222;stroke-width:1.5}.mark{fill:#222}.dia{fill:none;stroke:#222}"
    "svg text.q{font-weight:bold}\n"
    ".seg-k{fill:#3f6fb5}.seg-c{fill:#e39b2d}.seg-i{fill:#d9d9d9}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:50%;border:1px solid #222;margin-right:4px;"
    "vertical-align:-1px}\n"
    ".warnings{background:#fff8e1;border:1px solid #e8c16a;padding:6px 10px;margin:8px 0}\n"
    "article{border-top:1px solid #e3e3e3;padding-top:4px}article:target{background:#fbfbe8}\n"
    ".worse{background:#fbe3e2}.better{background:#e3f2e3}.added,.removed{background:#eef0f8}\n";

/* Sorting: a click on a th[data-sort] orders the rows of its table by the
 * cells' data-v (numbers; empty sorts last) or their text.  A link to a
 * kernel (#kN) opens its metrics. */
static const char pc_html_js[] =
    "(function(){\n"
    "function key(td,num){var v=td?td.getAttribute('data-v'):null;if(num){if(v===null||v==='')return null;"
    "return parseFloat(v);}return td?td.textContent:'';}\n"
    "document.querySelectorAll('th[data-sort]').forEach(function(th){th.addEventListener('click',function(){\n"
    "var table=th.closest('table'),body=table.tBodies[0],col=th.cellIndex,num=th.getAttribute('data-sort')==='num';\n"
    "var dir=th.getAttribute('aria-sort')==='descending'?1:-1;\n"
    "table.querySelectorAll('th[aria-sort]').forEach(function(o){o.removeAttribute('aria-sort');});\n"
    "th.setAttribute('aria-sort',dir>0?'ascending':'descending');\n"
    "var rows=Array.prototype.slice.call(body.rows);rows.sort(function(a,b){var x=key(a.cells[col],num),"
    "y=key(b.cells[col],num);if(x===null&&y===null)return 0;if(x===null)return 1;if(y===null)return -1;\n"
    "return num?(x-y)*dir:String(x).localeCompare(String(y))*dir;});\n"
    "rows.forEach(function(r){body.appendChild(r);});});});\n"
    "function open(){var h=location.hash;if(!h)return;var a=document.getElementById(h.slice(1));"
    "if(a){var d=a.querySelector('details');if(d)d.open=true;}}\n"
    "window.addEventListener('hashchange',open);open();\n"
    "})();\n";

void pc_html_begin(FILE *f, const char *title) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"generator\" content=\"perfcheck " PERFCHECK_VERSION_STRING "\">\n<title>",
        f);
  pc_html_text(f, title);
  fputs("</title>\n<style>\n", f);
  fputs(pc_html_css, f);
  fputs("</style>\n</head>\n<body>\n", f);
}

void pc_html_end(FILE *f) {
  fputs("<script>\n", f);
  fputs(pc_html_js, f);
  fputs("</script>\n</body>\n</html>\n", f);
}

/* ---- Colours ----------------------------------------------------------------- */

const char *pc_html_cause_color(perfcheck_cause c) {
  switch (c) {
    case PERFCHECK_CAUSE_AT_ROOF: return "#2e7d32";
    case PERFCHECK_CAUSE_LATENCY_BOUND: return "#1e88e5";
    case PERFCHECK_CAUSE_NOT_THE_SLOW_PART: return "#8e24aa";
    case PERFCHECK_CAUSE_LAUNCH_OVERHEAD: return "#5e35b1";
    case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_LOADS: return "#d32f2f";
    case PERFCHECK_CAUSE_UNCOALESCED_GLOBAL_STORES: return "#c2185b";
    case PERFCHECK_CAUSE_LOCAL_MEMORY_SPILLS: return "#e64a19";
    case PERFCHECK_CAUSE_SHARED_BANK_CONFLICTS: return "#f9a825";
    case PERFCHECK_CAUSE_ATOMIC_CONTENTION: return "#795548";
    case PERFCHECK_CAUSE_DIVERGENT_WARPS: return "#fb8c00";
    case PERFCHECK_CAUSE_OCCUPANCY_REGISTERS: return "#00897b";
    case PERFCHECK_CAUSE_OCCUPANCY_SHARED_MEMORY: return "#00acc1";
    case PERFCHECK_CAUSE_OCCUPANCY_WARPS: return "#26a69a";
    case PERFCHECK_CAUSE_OCCUPANCY_BLOCKS: return "#4db6ac";
    case PERFCHECK_CAUSE_GRID_TOO_SMALL: return "#6d4c41";
    case PERFCHECK_CAUSE_NOT_ASSESSED: return "#9e9e9e";
    case PERFCHECK_CAUSE_COMMUNICATION: return "#3949ab";
    default: return "#bdbdbd";
  }
}

/* ---- Roofline ------------------------------------------------------------------ */

/* The tensor pipe's share of the kernel's pipe activity: the tensor pipe
 * (tensor cycles or GMMA instructions, the larger) over the sum of every
 * measured pipe's percentage of its peak; NaN when the tensor pipe was not
 * measured. */
double pc_roof_tensor_share(const pc_kernel *k) {
  static const pc_metric_id others[] = {PC_M_PIPE_FMA_PCT, PC_M_PIPE_ALU_PCT, PC_M_PIPE_FP64_PCT,
                                        PC_M_PIPE_LSU_PCT, PC_M_PIPE_XU_PCT,  PC_M_PIPE_UNIFORM_PCT};
  double tensor = PC_NULL;
  if (pc_has(k->metric[PC_M_PIPE_TENSOR_PCT])) tensor = k->metric[PC_M_PIPE_TENSOR_PCT];
  if (pc_has(k->metric[PC_M_PIPE_TENSOR_GMMA_PCT]) && !(tensor >= k->metric[PC_M_PIPE_TENSOR_GMMA_PCT]))
    tensor = k->metric[PC_M_PIPE_TENSOR_GMMA_PCT];
  if (!(tensor >= 0)) return PC_NULL;
  double sum = tensor;
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    if (k->metric[others[i]] > 0) sum += k->metric[others[i]];
  return sum > 0 ? tensor / sum : 0.0;
}

void pc_roof_point_set(pc_roof_point *p, size_t index, const char *label, const pc_kernel *k) {
  memset(p, 0, sizeof *p);
  p->index = index;
  p->label = label;
  p->ai = k->derived.arithmetic_intensity;
  p->gflops = k->derived.gflops;
  p->from_ai = p->from_gflops = PC_NULL;
  p->share = k->time_share;
  p->cause = k->diag.verdict.cause;
  const pc_derived *d = &k->derived;
  const double dur = k->metric[PC_M_DURATION];
  const int tensor_active = k->metric[PC_M_PIPE_TENSOR_PCT] > pc_threshold_value("tensor_active_pct") ||
                            k->metric[PC_M_PIPE_TENSOR_GMMA_PCT] > pc_threshold_value("tensor_active_pct");
  const double tshare = pc_roof_tensor_share(k);
  if (k->is_graph) { /* its time is its kernels': no share, and no point beside theirs */
    p->ai = p->gflops = PC_NULL;
    snprintf(p->why, sizeof p->why, "a CUDA graph's entry: its counters are every launch's sum over its %u kernels "
             "(CUPTI cannot split a graph launch by node), so it is no point of its own",
             (unsigned)k->graph_kernels);
  } else if (pc_is_null(d->flops))
    snprintf(p->why, sizeof p->why, "FLOPs not measured (smsp__sass_thread_inst_executed_op_f*_pred_on.sum)");
  else if (pc_is_null(d->dram_bytes))
    snprintf(p->why, sizeof p->why, "DRAM bytes not measured (dram__bytes_read.sum, dram__bytes_write.sum)");
  else if (!(d->dram_bytes > 0))
    snprintf(p->why, sizeof p->why, "no DRAM traffic measured (0 bytes): the intensity has no value");
  else if (!(d->flops > 0))
    snprintf(p->why, sizeof p->why, "no floating-point work measured (0 FLOP): no place on a log axis");
  else if (pc_is_null(d->arithmetic_intensity) && tensor_active && !(tshare < PC_ROOF_TENSOR_SHARE_MAX)) {
    /* A tensor-core kernel (the tensor pipe at least half of its pipe
     * activity): its tensor FLOPs are not among the counters (the metric
     * set has the tensor pipe's cycles, not its operations), so the FLOPs
     * counted are a small part of its work and would place it far below
     * where it runs. */
    p->ai = p->gflops = PC_NULL;
    snprintf(p->why, sizeof p->why,
             "a tensor-core kernel (the tensor pipe %.0f%% of its pipe activity, at %.1f%% of its peak): its tensor "
             "FLOPs are not among the counters (the set measures the pipe's cycles, not its operations), so it has "
             "no point; the tensor roof is drawn for reference",
             tshare * 100.0, pc_has(k->metric[PC_M_PIPE_TENSOR_PCT]) ? k->metric[PC_M_PIPE_TENSOR_PCT] : 0.0);
  } else if (pc_is_null(d->arithmetic_intensity) && (k->passes > 1 || tensor_active) && dur > 0) {
    /* Placed from its measured FLOPs, DRAM bytes and duration, and says how:
     * a CUDA-core kernel with a little tensor activity (the checklist
     * leaves its intensity unknown at any, rule tensor_active_pct: an FMA
     * kernel's 2% on the H200 adds next to nothing), or DRAM bytes of a
     * multi-pass kernel replay, which are not a cold run's (later passes
     * find the data in L2, the replay's memory restore adds writes): the
     * point is drawn hollow and its legend row says so. */
    p->ai = d->flops / d->dram_bytes;
    p->gflops = d->flops / dur;
    p->note = 1;
    if (k->passes > 1) {
      p->approx = 1;
      snprintf(p->why, sizeof p->why,
               "approximate: DRAM bytes of a %d-pass kernel replay, not a cold run (later passes find the data in "
               "L2; the replay's memory restore adds writes); hollow.  PERFCHECK_REPLAY=rotate measures them from a "
               "flushed L2",
               k->passes);
    } else {
      snprintf(p->why, sizeof p->why,
               "CUDA-core FLOPs: the tensor pipe is %.0f%% of its pipe activity (at %.1f%% of its peak), under "
               "the %.0f%% that makes a tensor-core kernel",
               tshare * 100.0, pc_has(k->metric[PC_M_PIPE_TENSOR_PCT]) ? k->metric[PC_M_PIPE_TENSOR_PCT] : 0.0,
               PC_ROOF_TENSOR_SHARE_MAX * 100.0);
    }
  } else if (pc_is_null(dur) || pc_is_null(d->gflops))
    snprintf(p->why, sizeof p->why, "duration not measured (gpu__time_duration.sum)");
  else if (!(d->gflops > 0) || !(d->arithmetic_intensity > 0))
    snprintf(p->why, sizeof p->why, "a measured value is not positive");
  else if (k->dram_cold) {
    p->note = 1;
    snprintf(p->why, sizeof p->why, "DRAM bytes of a launch that started from a flushed L2 (a cold run)");
  }
}

int pc_roof_point_drawn(const pc_roof_point *p) {
  return isfinite(p->ai) && isfinite(p->gflops) && p->ai > 0 && p->gflops > 0;
}

static int pc_pos(double v) { return isfinite(v) && v > 0; }

typedef struct pc_axes {
  double left, top, pw, ph; /* the plot box, px */
  double lx0, lx1, ly0, ly1; /* log10 of the ranges */
} pc_axes;

static double pc_ax_x(const pc_axes *a, double v) { return a->left + (log10(v) - a->lx0) / (a->lx1 - a->lx0) * a->pw; }
static double pc_ax_y(const pc_axes *a, double v) {
  return a->top + a->ph - (log10(v) - a->ly0) / (a->ly1 - a->ly0) * a->ph;
}

/* Decades that hold [lo, hi], at least `min_decades` wide. */
static void pc_decades(double lo, double hi, int min_decades, double *l0, double *l1) {
  double a = floor(log10(lo) + 1e-9), b = ceil(log10(hi) - 1e-9);
  if (b <= a) b = a + 1;
  while (b - a < min_decades) {
    a -= 1;
    if (b - a < min_decades) b += 1;
  }
  *l0 = a;
  *l1 = b;
}

static const char *pc_decade_label(char *buf, size_t len, int e) {
  if (e >= 0 && e <= 6)
    snprintf(buf, len, "%.0f", pow(10, e));
  else if (e < 0 && e >= -3)
    snprintf(buf, len, "%.*f", -e, pow(10, e));
  else
    snprintf(buf, len, "1e%d", e);
  return buf;
}

/* Points drawn largest first, so that a small point is never hidden. */
typedef struct pc_draw_order {
  double r;
  size_t i;
} pc_draw_order;

static int pc_cmp_draw(const void *x, const void *y) {
  const pc_draw_order *a = x, *b = y;
  if (a->r != b->r) return a->r < b->r ? 1 : -1;
  return (a->i > b->i) - (a->i < b->i);
}

#define PC_ROOF_W 760.0
#define PC_ROOF_H 470.0
#define PC_ROOF_R 6.0   /* a point's radius without a time share */
#define PC_ROOF_RMAX 28.0 /* the radius of a kernel with all of the time */

static int pc_has_share(const pc_roof_point *p) { return isfinite(p->share) && p->share >= 0; }

/* scaled: every drawn point has a share (else all are one size: a fixed size
 * beside scaled ones would read as a share). */
static double pc_point_r(const pc_roof_point *p, int scaled) {
  if (!scaled || !pc_has_share(p)) return PC_ROOF_R;
  double r = sqrt(fmin(p->share, 1.0)) * PC_ROOF_RMAX; /* area proportional to the share */
  return r < 2.5 ? 2.5 : r;
}

/* A compute roof's colour and name. */
static const char *pc_pipe_color(const char *pipe) {
  if (strcmp(pipe, "fp32") == 0) return "#2e7d32";
  if (strcmp(pipe, "fp64") == 0) return "#ef6c00";
  if (strcmp(pipe, "xu") == 0) return "#6a1b9a";
  return "#c62828"; /* tensor */
}
static const char *pc_pipe_title(const char *pipe) {
  if (strcmp(pipe, "fp32") == 0) return "FP32";
  if (strcmp(pipe, "fp64") == 0) return "FP64";
  if (strcmp(pipe, "xu") == 0) return "XU";
  return "Tensor (FP16, dense)";
}

/* A placed label's box, px. */
typedef struct pc_box {
  double x0, y0, x1, y1;
} pc_box;

static int pc_box_hits(const pc_box *b, const pc_box *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (b->x0 < v[i].x1 && v[i].x0 < b->x1 && b->y0 < v[i].y1 && v[i].y0 < b->y1) return 1;
  return 0;
}

int pc_html_roofline(FILE *f, const char *id, const pc_device *d, const pc_roof_point *pts, size_t n) {
  char b1[64], b2[64];
  const double bw = pc_pos(d->peak_dram_bytes_per_s) ? d->peak_dram_bytes_per_s : PC_NULL;
  pc_pipe_peak roofs[PC_PIPE_PEAKS];
  const size_t nroofs = pc_device_pipe_peaks(d, roofs);
  const double peak = nroofs ? roofs[0].per_s / 1e9 : PC_NULL; /* FP32, GFLOP/s */
  const double ridge = (pc_has(bw) && pc_has(peak)) ? peak * 1e9 / bw : PC_NULL;

  /* The ranges: every point (and where a diff's point came from), each
   * roof and its ridge. */
  double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  size_t drawn = 0, have_share = 0, approx = 0;
  for (size_t i = 0; i < n; i++) {
    const pc_roof_point *p = &pts[i];
    if (!pc_roof_point_drawn(p)) continue;
    drawn++;
    approx += p->approx != 0;
    if (pc_has_share(p)) have_share++;
    xlo = fmin(xlo, p->ai), xhi = fmax(xhi, p->ai), ylo = fmin(ylo, p->gflops), yhi = fmax(yhi, p->gflops);
    if (pc_pos(p->from_ai) && pc_pos(p->from_gflops))
      xlo = fmin(xlo, p->from_ai), xhi = fmax(xhi, p->from_ai), ylo = fmin(ylo, p->from_gflops),
      yhi = fmax(yhi, p->from_gflops);
  }
  for (size_t r = 0; r < nroofs; r++) {
    const double g = roofs[r].per_s / 1e9;
    yhi = fmax(yhi, g * 1.3), ylo = fmin(ylo, g);
    if (pc_has(bw)) xlo = fmin(xlo, g * 1e9 / bw), xhi = fmax(xhi, g * 1e9 / bw);
  }
  if (!isfinite(xlo)) xlo = 0.1, xhi = 100;
  if (!isfinite(ylo)) ylo = 1, yhi = 1e5;
  pc_axes ax = {72, 16, PC_ROOF_W - 72 - 24, PC_ROOF_H - 16 - 56, 0, 0, 0, 0};
  pc_decades(xlo / 1.5, xhi * 1.5, 3, &ax.lx0, &ax.lx1);
  pc_decades(ylo / 1.5, yhi, 3, &ax.ly0, &ax.ly1);
  const double xmin = pow(10, ax.lx0), xmax = pow(10, ax.lx1), ymin = pow(10, ax.ly0), ymax = pow(10, ax.ly1);

  fprintf(f, "<section id=\"%s\">\n<h2>Roofline</h2>\n", id);
  fputs("<p class=\"note\">Arithmetic intensity (FLOP per DRAM byte) against achieved FLOP/s, on log axes, from "
        "measured values only: derived.arithmetic_intensity = derived.flops / derived.dram_bytes, and "
        "derived.gflops.  ",
        f);
  if (approx)
    fprintf(f, "The cache level, plainly: %zu of the %zu points use DRAM bytes counted across a multi-pass kernel "
               "replay, warm rather than cold (later passes find the data in L2), and are drawn hollow: their "
               "intensity is approximate.",
            approx, drawn);
  else
    fputs("The DRAM bytes are those of the run as measured (an export's own; in process, a cold run's from a "
          "flushed L2 or a single pass).",
          f);
  fputs("</p>\n", f);
  fprintf(f,
          "<svg class=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"roofline\">\n",
          PC_ROOF_W, PC_ROOF_H, PC_ROOF_W, PC_ROOF_H);
  fputs("<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto\"><path d=\"M0,0L8,4L0,8z\" fill=\"#666\"/></marker></defs>\n",
        f);
  fprintf(f,
          "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fff\" stroke=\"none\" "
          "data-lx0=\"%.0f\" data-lx1=\"%.0f\" data-ly0=\"%.0f\" data-ly1=\"%.0f\"/>\n",
          ax.left, ax.top, ax.pw, ax.ph, ax.lx0, ax.lx1, ax.ly0, ax.ly1);
  /* Grid and tick labels, one per decade (every other one past 8). */
  int xstep = (ax.lx1 - ax.lx0) > 8 ? 2 : 1, ystep = (ax.ly1 - ax.ly0) > 8 ? 2 : 1;
  for (int e = (int)ax.lx0; e <= (int)ax.lx1; e++) {
    double x = pc_ax_x(&ax, pow(10, e));
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, ax.top, x, ax.top + ax.ph);
    if ((e - (int)ax.lx0) % xstep == 0)
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x, ax.top + ax.ph + 15,
              pc_decade_label(b1, sizeof b1, e));
  }
  for (int e = (int)ax.ly0; e <= (int)ax.ly1; e++) {
    double y = pc_ax_y(&ax, pow(10, e));
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", ax.left, y, ax.left + ax.pw, y);
    if ((e - (int)ax.ly0) % ystep == 0)
      fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", ax.left - 6, y + 4,
              pc_decade_label(b1, sizeof b1, e));
  }
  fprintf(f, "<rect class=\"axis\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", ax.left, ax.top, ax.pw,
          ax.ph);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">arithmetic intensity, FLOP per DRAM byte</text>\n",
          ax.left + ax.pw / 2, PC_ROOF_H - 18);
  fprintf(f,
          "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">achieved GFLOP/s</text>\n",
          ax.top + ax.ph / 2, ax.top + ax.ph / 2);

  /* The points, largest first (a small one is never hidden). */
  const int scaled = drawn > 0 && have_share == drawn;
  pc_draw_order *order = malloc((n ? n : 1) * sizeof *order);
  size_t no = 0;
  if (order)
    for (size_t i = 0; i < n; i++)
      if (pc_roof_point_drawn(&pts[i])) order[no].r = pc_point_r(&pts[i], scaled), order[no].i = i, no++;
  if (order) qsort(order, no, sizeof *order, pc_cmp_draw);

  /* What a label must not cover: every point, the DRAM roof's label and
   * the labels placed before it. */
  const size_t cap_boxes = 2 * n + PC_PIPE_PEAKS + 64;
  pc_box *boxes = malloc(cap_boxes * sizeof *boxes);
  size_t nboxes = 0;
  for (size_t j = 0; boxes && order && j < no; j++) {
    const pc_roof_point *p = &pts[order[j].i];
    const double cx = pc_ax_x(&ax, p->ai), cy = pc_ax_y(&ax, p->gflops), r = order[j].r;
    boxes[nboxes++] = (pc_box){cx - r, cy - r, cx + r, cy + r};
  }

  /* The memory roof: GFLOP/s = bytes/s x FLOP/byte / 1e9, up to the
   * highest compute roof's ridge. */
  double ridge_max = ridge;
  for (size_t r = 0; r < nroofs && pc_has(bw); r++) ridge_max = fmax(ridge_max, roofs[r].per_s / bw);
  if (pc_has(bw)) {
    double x0 = fmax(xmin, ymin * 1e9 / bw);
    double x1 = fmin(pc_has(ridge_max) ? ridge_max : xmax, fmin(xmax, ymax * 1e9 / bw));
    if (x0 < x1) {
      double px0 = pc_ax_x(&ax, x0), py0 = pc_ax_y(&ax, bw * x0 / 1e9);
      double px1 = pc_ax_x(&ax, x1), py1 = pc_ax_y(&ax, bw * x1 / 1e9);
      fprintf(f,
              "<line class=\"ceiling\" data-ceiling=\"dram\" data-value=\"%.6g\" stroke=\"#1565c0\" x1=\"%.1f\" "
              "y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>DRAM %s GB/s (%s)</title></line>\n",
              bw, px0, py0, px1, py1, pc_html_num(b1, sizeof b1, bw / 1e9), pc_device_ceilings_origin(d->ceilings_source));
      double ang = atan2(py0 - py1, px1 - px0) * 180.0 / 3.14159265358979323846;
      /* The label sits above the line, a third of the way along. */
      double lx = px0 + (px1 - px0) * 0.3, ly = py0 + (py1 - py0) * 0.3 - 6;
      fprintf(f, "<text class=\"clabel\" x=\"%.1f\" y=\"%.1f\" transform=\"rotate(%.2f %.1f %.1f)\" fill=\"#1565c0\">"
                 "DRAM %s GB/s</text>\n",
              lx, ly, -ang, lx, ly, pc_html_num(b1, sizeof b1, bw / 1e9));
      /* The slanted label as a row of small boxes, one per character. */
      const size_t chars = strlen("DRAM  GB/s") + strlen(b1);
      const double ca = cos(ang * 3.14159265358979323846 / 180.0), sa = sin(ang * 3.14159265358979323846 / 180.0);
      for (size_t c = 0; boxes && c < chars && nboxes < cap_boxes; c++) {
        const double t = (c + 0.5) * PC_HTML_CHAR_W, x = lx + t * ca, y = ly - t * sa - 4;
        boxes[nboxes++] = (pc_box){x - 4, y - 6, x + 4, y + 6};
      }
    }
  }
  /* The compute roofs, each flat from its own ridge. */
  for (size_t r = 0; r < nroofs; r++) {
    const double g = roofs[r].per_s / 1e9;
    if (!(g >= ymin && g <= ymax)) continue;
    const double rr = pc_has(bw) ? g * 1e9 / bw : PC_NULL;
    double x0 = pc_has(rr) ? fmax(xmin, rr) : xmin;
    if (!(x0 < xmax)) continue;
    const double px0 = pc_ax_x(&ax, x0), px1 = pc_ax_x(&ax, xmax), py = pc_ax_y(&ax, g);
    const int flop = strcmp(roofs[r].unit, "FLOP/s") == 0;
    fprintf(f,
            "<line class=\"ceiling%s\" data-ceiling=\"%s\" data-value=\"%.6g\" stroke=\"%s\" x1=\"%.1f\" y1=\"%.1f\" "
            "x2=\"%.1f\" y2=\"%.1f\"><title>%s %s %s (",
            r ? " pipe" : "", roofs[r].pipe, roofs[r].per_s, pc_pipe_color(roofs[r].pipe), px0, py, px1, py,
            pc_pipe_title(roofs[r].pipe), pc_html_num(b1, sizeof b1, g), flop ? "GFLOP/s" : "G results/s");
    pc_html_text(f, roofs[r].source);
    fputs(")</title></line>\n", f);
    char text[96];
    snprintf(text, sizeof text, "%s %s %s", pc_pipe_title(roofs[r].pipe), pc_html_num(b1, sizeof b1, g),
             flop ? "GFLOP/s" : "G results/s");
    const double w = strlen(text) * PC_HTML_CHAR_W;
    /* Above the line at its right end, below it, or at its left end (the
     * ridge): the first place that covers no point and no other label. */
    const pc_box cand[4] = {{px1 - 4 - w, py - 17, px1 - 4, py - 4},
                            {px1 - 4 - w, py + 3, px1 - 4, py + 16},
                            {px0 + 4, py - 17, px0 + 4 + w, py - 4},
                            {px0 + 4, py + 3, px0 + 4 + w, py + 16}};
    pc_box box = cand[0];
    for (int c = 0; c < 4; c++)
      if (cand[c].x0 >= ax.left && cand[c].x1 <= ax.left + ax.pw && cand[c].y0 >= ax.top &&
          cand[c].y1 <= ax.top + ax.ph && !(boxes && pc_box_hits(&cand[c], boxes, nboxes))) {
        box = cand[c];
        break;
      }
    if (boxes && nboxes < cap_boxes) boxes[nboxes++] = box;
    fprintf(f, "<text class=\"clabel\" data-ceiling=\"%s\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", roofs[r].pipe,
            box.x0, box.y1 - 3, pc_pipe_color(roofs[r].pipe));
    pc_html_text(f, text);
    fputs("</text>\n", f);
  }
  if (pc_has(ridge) && ridge > xmin && ridge < xmax) {
    double px = pc_ax_x(&ax, ridge);
    fprintf(f, "<line class=\"ridge\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", px,
            pc_has(peak) && peak <= ymax ? pc_ax_y(&ax, peak) : ax.top, px, ax.top + ax.ph);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" fill=\"#555\">ridge %s</text>\n", px + 4,
            ax.top + ax.ph - 6, pc_html_num(b1, sizeof b1, ridge));
  }

  for (size_t j = 0; j < no; j++) {
    const pc_roof_point *p = &pts[order[j].i];
    double cx = pc_ax_x(&ax, p->ai), cy = pc_ax_y(&ax, p->gflops);
    if (pc_pos(p->from_ai) && pc_pos(p->from_gflops)) {
      double fx = pc_ax_x(&ax, p->from_ai), fy = pc_ax_y(&ax, p->from_gflops);
      fprintf(f, "<circle class=\"from\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\"/>", fx, fy, PC_ROOF_R);
      if (hypot(cx - fx, cy - fy) > 2 * PC_ROOF_R)
        fprintf(f, "<line class=\"move\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" marker-end=\"url(#arrow)\"/>",
                fx, fy, cx, cy);
    }
    fprintf(f, "<circle class=\"point%s\" data-k=\"%zu\" data-ai=\"%.9g\" data-gflops=\"%.9g\" ",
            p->approx ? " approx" : "", p->index, p->ai, p->gflops);
    if (scaled) fprintf(f, "data-share=\"%.9g\" ", p->share);
    if (p->approx)
      fprintf(f, "cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" stroke=\"%s\" fill=\"none\"><title>", cx, cy, order[j].r,
              pc_html_cause_color(p->cause));
    else
      fprintf(f, "cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"><title>", cx, cy, order[j].r,
              pc_html_cause_color(p->cause));
    fprintf(f, "%d. ", p->num > 0 ? p->num : (int)p->index + 1);
    pc_html_text(f, p->label);
    fprintf(f, ": %s FLOP/byte%s, %s GFLOP/s, ", pc_html_num(b1, sizeof b1, p->ai), p->approx ? " (approximate)" : "",
            pc_html_num(b2, sizeof b2, p->gflops));
    if (scaled) fprintf(f, "%s%% of the kernel time, ", pc_html_num(b1, sizeof b1, p->share * 100));
    if (p->cause_before && strcmp(p->cause_before, perfcheck_cause_name(p->cause)) != 0)
      fprintf(f, "%s -> ", p->cause_before);
    fprintf(f, "%s</title></circle>\n", perfcheck_cause_name(p->cause));
  }
  /* Each point's label: its number and, where it fits beside the point
   * without covering another label, its name (the legend below has every
   * name); the largest points (the most time) are placed first. */
  for (size_t j = 0; j < no; j++) {
    const pc_roof_point *p = &pts[order[j].i];
    const double cx = pc_ax_x(&ax, p->ai), cy = pc_ax_y(&ax, p->gflops), r = order[j].r;
    char num[24];
    snprintf(num, sizeof num, "%d", p->num > 0 ? p->num : (int)p->index + 1);
    /* Names for the first ten verdicts (the time is theirs), numbers for
     * the rest: the legend below names every one. */
    const int nth = p->num > 0 ? p->num : (int)p->index + 1;
    const size_t name_chars = nth <= 10 ? 22 : 0;
    const size_t label_chars = strlen(num) + (name_chars ? 1 + (strlen(p->label) < name_chars ? strlen(p->label) : name_chars) : 0);
    const double wfull = label_chars * PC_HTML_CHAR_W, wnum = strlen(num) * PC_HTML_CHAR_W;
    /* Right, left, above, below: the first place that is free. */
    int placed = 0, with_name = 0;
    pc_box at = {0, 0, 0, 0};
    for (int pass = name_chars ? 0 : 1; pass < 2 && !placed; pass++) {
      const double w = pass == 0 ? wfull : wnum;
      const pc_box cand[4] = {{cx + r + 2, cy - 6, cx + r + 2 + w, cy + 6},
                              {cx - r - 2 - w, cy - 6, cx - r - 2, cy + 6},
                              {cx - w / 2, cy - r - 14, cx + w / 2, cy - r - 2},
                              {cx - w / 2, cy + r + 2, cx + w / 2, cy + r + 14}};
      for (int c = 0; c < 4 && !placed; c++) {
        const pc_box *b = &cand[c];
        if (b->x0 < ax.left || b->x1 > ax.left + ax.pw || b->y0 < ax.top || b->y1 > ax.top + ax.ph) continue;
        if (boxes && pc_box_hits(b, boxes, nboxes)) continue;
        at = *b, placed = 1, with_name = pass == 0;
      }
    }
    if (!placed) at = (pc_box){cx + r + 2, cy - 6, cx + r + 2 + wnum, cy + 6}; /* its number, whatever it covers */
    if (boxes && nboxes < cap_boxes) boxes[nboxes++] = at;
    fprintf(f, "<text class=\"plabel\" data-k=\"%zu\" x=\"%.1f\" y=\"%.1f\">%s", p->index, at.x0, at.y1 - 3, num);
    if (with_name) {
      fputc(' ', f);
      pc_html_text_cut(f, p->label, name_chars);
    }
    fputs("</text>\n", f);
  }
  const int drew_points = order != NULL && boxes != NULL;
  free(order);
  free(boxes);
  fputs("</svg>\n", f);

  /* What the chart shows and what it does not. */
  fputs("<ul class=\"legend\">\n", f);
  if (pc_has(bw))
    fprintf(f, "<li>DRAM roof: %s GB/s (%s).</li>\n", pc_html_num(b1, sizeof b1, bw / 1e9),
            pc_device_ceilings_origin(d->ceilings_source));
  else
    fputs("<li>DRAM roof: not known (device.peak_dram_bytes_per_s is null): no line.</li>\n", f);
  static const char *const pipes[] = {"fp32", "fp64", "xu", "tensor"};
  for (size_t q = 0; q < sizeof pipes / sizeof pipes[0]; q++) {
    const pc_pipe_peak *rf = NULL;
    for (size_t r = 0; r < nroofs; r++)
      if (strcmp(roofs[r].pipe, pipes[q]) == 0) rf = &roofs[r];
    fprintf(f, "<li data-roof=\"%s\">%s roof: ", pipes[q], pc_pipe_title(pipes[q]));
    if (rf) {
      fprintf(f, "%s %s (", pc_html_num(b1, sizeof b1, rf->per_s / 1e9),
              strcmp(rf->unit, "FLOP/s") == 0 ? "GFLOP/s" : "G results/s: one instruction's result each");
      pc_html_text(f, rf->source);
      fputs(")", f);
      if (q == 0 && pc_has(ridge)) fprintf(f, "; ridge point %s", pc_html_num(b2, sizeof b2, ridge));
      fputs(".</li>\n", f);
    } else if (q == 0) {
      fputs("not known (device.peak_fp32_flop_per_s is null): no line.</li>\n", f);
    } else {
      fprintf(f, "not drawn: no peak measured or documented for compute capability %d.%d here.</li>\n", d->cc_major,
              d->cc_minor);
    }
  }
  fprintf(f, "<li>%zu of %zu kernel%s drawn%s; ", drawn, n, n == 1 ? "" : "s",
          approx ? ", the hollow ones from warm DRAM bytes (approximate)" : "");
  if (scaled)
    fputs("a point's area is proportional to the kernel's share of its region's kernel time "
          "(kernels[].kernel_time_share; offline, of the export's profiled launches): a kernel with all of it "
          "would be the largest circle.</li>\n",
          f);
  else if (drawn)
    fprintf(f, "every point has the same size: %zu of the %zu drawn kernel%s no kernel time share "
               "(kernels[].kernel_time_share is null), and no size is guessed.</li>\n",
            drawn - have_share, drawn, drawn == 1 ? " has" : "s have");
  else
    fputs("no point to draw.</li>\n", f);
  fputs("<li>Colour: the verdict's cause (below).  Each point is labelled with its kernel's number among the "
        "verdicts; hover it for the kernel.</li>\n</ul>\n",
        f);

  /* The legend table: every kernel, and why one has no point. */
  fputs("<table class=\"roof-legend\"><thead><tr><th>#</th><th>kernel</th><th>FLOP/byte</th><th>GFLOP/s</th>"
        "<th>verdict</th><th>point</th></tr></thead><tbody>\n",
        f);
  for (size_t i = 0; i < n; i++) {
    const pc_roof_point *p = &pts[i];
    fprintf(f, "<tr><td class=\"n\">%d</td><td class=\"name\"><span class=\"sw\" style=\"background:%s\"></span>"
               "<a href=\"#k%zu\">",
            p->num > 0 ? p->num : (int)p->index + 1, pc_html_cause_color(p->cause), p->index);
    pc_html_text(f, p->label);
    fprintf(f, "</a></td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>", pc_html_num(b1, sizeof b1, p->ai),
            pc_html_num(b2, sizeof b2, p->gflops));
    if (p->cause_before && strcmp(p->cause_before, perfcheck_cause_name(p->cause)) != 0)
      fprintf(f, "%s &#8594; ", p->cause_before);
    fprintf(f, "%s</td><td>", perfcheck_cause_name(p->cause));
    if (pc_roof_point_drawn(p) && p->note) {
      fputs("drawn <span class=\"why\">(", f);
      pc_html_text(f, p->why);
      fputs(")</span>", f);
    } else if (pc_roof_point_drawn(p))
      fputs("drawn", f);
    else {
      fputs("<span class=\"why\">no point: ", f);
      pc_html_text(f, p->why[0] ? p->why : "not measured");
      fputs("</span>", f);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</tbody></table>\n</section>\n", f);
  return drew_points ? 0 : -1;
}
