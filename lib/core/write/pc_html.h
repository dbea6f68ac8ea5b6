/*
 * pc_html.h: what the two HTML writers share (pc_html.c): escaping, the
 * page frame (one self-contained file: inline CSS, an optional inline
 * script, no network), number formats, and the roofline drawn as SVG.
 *
 * The pictures are SVG written here, not drawn by a script: the page shows
 * everything with scripting off, stays a few kB per kernel, and a test can
 * read the drawing's geometry back from the markup.  Text that sits in a box
 * is set in the monospace font and cut to the characters the box holds
 * (PC_HTML_CHAR_W per character), with the whole text in a <title>.
 */
#ifndef PC_HTML_H
#define PC_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "model/pc_core.h"
#include "write/pc_words.h" /* pc_words_ns: a duration for people */

/* The width of one character of the boxes' monospace font (11 px DejaVu
 * Sans Mono / Liberation Mono advance 0.602 em = 6.62 px), rounded up. */
#define PC_HTML_FONT_PX 11
#define PC_HTML_CHAR_W 6.7

/* Text and attribute values: markup escaped, characters that HTML/XML 1.0
 * cannot hold (C0 controls, bytes that are not UTF-8) as U+FFFD. */
void pc_html_text(FILE *f, const char *s);
/* At most max_chars characters of s (code points), the last one "…" when s
 * is longer; escaped as text. */
void pc_html_text_cut(FILE *f, const char *s, size_t max_chars);
/* How many characters fit in width px of the box font (>= 1). */
size_t pc_html_chars_for(double width_px);

/* A number for people: NaN -> "-", integers below 1e6 exact, else 4
 * significant digits ("0.25", "16.22", "5.515e+04" never: 55154). */
const char *pc_html_num(char *buf, size_t len, double v);

/* <!DOCTYPE html> ... <body>, with the page's CSS; the title is escaped. */
void pc_html_begin(FILE *f, const char *title);
/* The inline script (table sorting, opening a kernel's metrics when its
 * link is followed; the page works without it) and </body></html>. */
void pc_html_end(FILE *f);

/* The colour of a verdict's cause on the roofline and in the legends. */
const char *pc_html_cause_color(perfcheck_cause c);

/* ---- The roofline ---------------------------------------------------------- */

typedef struct pc_roof_point {
  size_t index;          /* the kernel entry (data-k) */
  const char *label;     /* shown on hover and in the legend */
  double ai, gflops;     /* measured; a point only when both are > 0 */
  double from_ai, from_gflops; /* a diff: where it was (NaN: no arrow) */
  double share;          /* area: share of the region's kernel time; NaN: one size (then all are) */
  perfcheck_cause cause; /* colour */
  const char *cause_before; /* a diff: the earlier verdict's cause word, or NULL */
  char why[300];         /* when there is no point: why (filled by pc_roof_point_set); with
                            note set, how the drawn point was placed */
  int note;              /* the point is drawn and why says from what */
  int approx;            /* drawn from warm DRAM bytes (a multi-pass replay): hollow */
  int num;               /* the number it is labelled with (its place among the verdicts);
                            0: index + 1 */
} pc_roof_point;

/* A kernel with tensor activity is a tensor-core kernel when its tensor pipe
 * is at least this share of its pipe activity (pc_roof_tensor_share); below
 * it, it is drawn from its CUDA-core FLOPs. */
#define PC_ROOF_TENSOR_SHARE_MAX 0.5
double pc_roof_tensor_share(const pc_kernel *k);

/* Fills p from a kernel entry: ai and gflops from k->derived, or `why`
 * names what is not measured. */
void pc_roof_point_set(pc_roof_point *p, size_t index, const char *label, const pc_kernel *k);
/* 1 when p gets a point. */
int pc_roof_point_drawn(const pc_roof_point *p);

/* The roofline section: an SVG on log-log axes with the device's ceilings
 * (the DRAM roof, and a compute roof for each pipe whose peak the device
 * model holds or documents: FP32, FP64, XU, tensor, pc_device_pipe_peaks;
 * the legend says where each came from and which are missing), one circle
 * per drawn point, each labelled with its number (and its name where it
 * fits), then the legend table (every kernel, with why it has no point).
 * `id` names the section (HTML id).  Returns 0, or -1 when memory ran out
 * (the page is still well formed, but its points are missing). */
int pc_html_roofline(FILE *f, const char *id, const pc_device *d, const pc_roof_point *pts, size_t n);

#endif /* PC_HTML_H */
