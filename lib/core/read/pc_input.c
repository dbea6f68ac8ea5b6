/* Opening what the offline readers read: a path or stdin, gzip by content
 * (zlib), and what format the start looks like.  See pc_input.h.
 *
 * Why zlib: the exports people keep are gzip (the repo commits its corpus as
 * .csv.gz, ncu output is routinely gzipped), zlib's gz* interface
 * decompresses while it streams and passes anything else through as it is
 * (transparent mode), so one code path reads both without knowing the name;
 * it is on every Linux system already (libz.so.1), so linking it costs a
 * program that links us nothing it does not have.  The stream the readers
 * take is a stdio FILE over the gzFile (glibc's fopencookie), so
 * pc_ncu_csv.c keeps reading a FILE in chunks as before. */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "model/pc_core.h"
#include "read/pc_input.h"
#include "base/pc_util.h"

const char pc_input_formats[] =
    "an ncu raw export (ncu --csv --page raw), a perfcheck JSON report, or an nsys stats CSV (nsys stats "
    "--report cuda_gpu_kern_sum --format csv), plain or gzip";

struct pc_input {
  char *name;        /* path, or "stdin" */
  gzFile gz;
  int gzip;          /* the data was gzip-compressed */
  char *head;        /* the first bytes, decompressed */
  size_t hlen, hpos; /* head[hpos..hlen) not yet handed out */
  int eof;           /* gz has no more */
  int truncated;     /* a gzip stream without its end */
  char error[256];   /* the last read error */
  pc_input_kind kind;
  const char *what;  /* PC_INPUT_OTHER's phrase */
  FILE *stream;
};

/* Reads up to n bytes from gz.  Returns the count (0 at the end) or -1 with
 * in->error set.  A gzip stream that ends early ends the data here (and is
 * remembered), so that what came before it is read as a cut-short file is. */
static ssize_t pc_input_gzread(pc_input *in, char *buf, size_t n) {
  if (in->eof || n == 0) return 0;
  if (n > (size_t)1 << 30) n = (size_t)1 << 30; /* gzread takes an unsigned */
  int got = gzread(in->gz, buf, (unsigned)n);
  int zerr = Z_OK;
  const char *msg = gzerror(in->gz, &zerr);
  if (msg && strncmp(msg, "<fd:", 4) == 0 && strstr(msg, ": ")) msg = strstr(msg, ": ") + 2; /* gzdopen's name */
  if (got > 0 && zerr == Z_OK) return got;
  if (zerr == Z_BUF_ERROR) { /* "unexpected end of file": the stream was cut short */
    in->truncated = 1;
    in->eof = 1;
    gzclearerr(in->gz);
    return got > 0 ? got : 0;
  }
  if (zerr == Z_OK && got == 0) {
    in->eof = 1;
    return 0;
  }
  if (got > 0) return got; /* the error comes back on the next read */
  if (zerr == Z_ERRNO)
    snprintf(in->error, sizeof in->error, "read error: %s", strerror(errno ? errno : EIO));
  else if (zerr == Z_MEM_ERROR)
    snprintf(in->error, sizeof in->error, "%s", "out of memory decompressing");
  else
    snprintf(in->error, sizeof in->error, "damaged gzip data (%s)", msg && *msg ? msg : "zlib error");
  in->eof = 1;
  return -1;
}

/* UTF-16 or UTF-32 text (a byte order mark, or ASCII with a NUL beside
 * every byte): PC_INPUT_OTHER with the conversion to make; 0 otherwise. */
static int pc_input_utf16(pc_input *in) {
  const unsigned char *p = (const unsigned char *)in->head;
  const size_t n = in->hlen;
  int bits = 0;
  if (n >= 4 && ((p[0] == 0xFF && p[1] == 0xFE && p[2] == 0 && p[3] == 0) ||
                 (p[0] == 0 && p[1] == 0 && p[2] == 0xFE && p[3] == 0xFF)))
    bits = 32;
  else if (n >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF)))
    bits = 16;
  else if (n >= 16) {
    /* No mark: ASCII in every other byte, NUL in the others. */
    size_t m = n < 512 ? n & ~(size_t)1 : 512, zero[2] = {0, 0}, ascii[2] = {0, 0};
    for (size_t j = 0; j < m; j++) {
      zero[j & 1] += p[j] == 0;
      ascii[j & 1] += p[j] >= 0x09 && p[j] < 0x7F;
    }
    for (int odd = 0; odd < 2 && !bits; odd++)
      if (zero[odd] * 10 >= m / 2 * 9 && ascii[!odd] * 10 >= m / 2 * 9) bits = 16;
  }
  if (!bits) return 0;
  in->kind = PC_INPUT_OTHER;
  in->what = bits == 32 ? "UTF-32 text: perfcheck reads UTF-8 (and ASCII); convert it first: iconv -f UTF-32 -t UTF-8 "
                          "FILE > FILE.utf8.csv"
                        : "UTF-16 text (as Windows tools write it): perfcheck reads UTF-8 (and ASCII); convert it "
                          "first: iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.csv";
  return 1;
}

/* What the start looks like. */
static void pc_input_classify(pc_input *in) {
  const unsigned char *p = (const unsigned char *)in->head;
  const size_t n = in->hlen;
  in->what = "";
  if (n >= 4 && memcmp(p, "NVR\0", 4) == 0) {
    in->kind = PC_INPUT_OTHER;
    in->what = "an Nsight Compute report (.ncu-rep), not a CSV export: export it with `ncu --import REPORT.ncu-rep "
               "--csv --page raw > REPORT.csv`";
    return;
  }
  if (n >= 16 && memcmp(p, "SQLite format 3", 16) == 0) {
    in->kind = PC_INPUT_OTHER;
    in->what = "an SQLite database (an nsys export?), not a CSV: give `nsys stats --report cuda_gpu_kern_sum "
               "--format csv REPORT.nsys-rep` output instead";
    return;
  }
  static const struct {
    const char *magic;
    size_t len;
    const char *what;
  } other[] = {
      {"\x28\xB5\x2F\xFD", 4, "zstd-compressed: only gzip is read as it is; decompress it first (zstd -d)"},
      {"\xFD" "7zXZ\0", 6, "xz-compressed: only gzip is read as it is; decompress it first (xz -d)"},
      {"BZh", 3, "bzip2-compressed: only gzip is read as it is; decompress it first (bzip2 -d)"},
      {"PK\x03\x04", 4, "a zip archive: only gzip is read as it is; unzip it first"},
  };
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    if (n >= other[i].len && memcmp(p, other[i].magic, other[i].len) == 0) {
      in->kind = PC_INPUT_OTHER;
      in->what = other[i].what;
      return;
    }
  if (n >= 2 && p[0] == 0x1F && p[1] == 0x8B) {
    in->kind = PC_INPUT_OTHER;
    in->what = in->gzip ? "gzip-compressed twice: decompress it once first (gunzip -c FILE > FILE.once.gz), then give "
                          "that"
                        : "gzip data that could not be decompressed";
    return;
  }
  if (pc_input_utf16(in)) return;
  size_t i = 0;
  if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3; /* a UTF-8 byte order mark */
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
  if (i == n) {
    if (in->truncated) { /* "\x1f\x8b" alone: a gzip header cut before any data */
      in->kind = PC_INPUT_OTHER;
      in->what = "a gzip stream cut short before its first byte of data (a damaged or truncated .gz file)";
      return;
    }
    in->kind = PC_INPUT_EMPTY;
    return;
  }
  size_t control = 0;
  for (size_t j = 0; j < n; j++)
    control += p[j] < 0x20 && p[j] != '\t' && p[j] != '\n' && p[j] != '\v' && p[j] != '\f' && p[j] != '\r' &&
               p[j] != 0x1B;
  if (control && (n < 100 || control * 100 > n)) {
    in->kind = PC_INPUT_OTHER;
    in->what = "binary data, not text";
    return;
  }
  if (p[i] == '{') {
    in->kind = PC_INPUT_JSON;
    return;
  }
  if (p[i] == '[') {
    in->kind = PC_INPUT_OTHER;
    in->what = "a JSON array, not a perfcheck report (a report is one JSON object, {\"schema\": "
               "\"perfcheck-report/2\", ...}; perfcheck merge combines several reports)";
    return;
  }
  /* Line by line: ncu's header row, or nsys stats' (which may follow
   * nsys's own progress lines, as ncu's header may follow the program's
   * output). */
  in->kind = PC_INPUT_TEXT;
  for (size_t at = i; at < n;) {
    const unsigned char *nl = memchr(p + at, '\n', n - at);
    const size_t end = nl ? (size_t)(nl - p) : n;
    const char *line = (const char *)p + at;
    const size_t len = end - at;
    char buf[512];
    const size_t m = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, line, m);
    buf[m] = '\0';
    if (strstr(buf, "\"Kernel Name\"") || strstr(buf, ",Kernel Name,")) {
      in->kind = PC_INPUT_NCU_CSV;
      return;
    }
    if (strstr(buf, "Total Time (") &&
        (strstr(buf, "\"Instances\"") || strstr(buf, "\"Count\"") || strstr(buf, ",Instances,") ||
         strstr(buf, ",Count,"))) {
      in->kind = PC_INPUT_NSYS_CSV;
      return;
    }
    if (!nl) break;
    at = end + 1;
  }
}

perfcheck_status pc_input_open(const char *path, pc_input **out, pc_err *err) {
  if (out) *out = NULL;
  pc_err_clear(err);
  if (!path || !out) return pc_err_set(err, PERFCHECK_ERROR_INVALID_ARGUMENT, "pc_input_open: NULL argument");
  const int is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "stdin" : path;
  int fd = is_stdin ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: cannot open: %s", name, strerror(errno));
  }
  struct stat sb;
  if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    close(fd);
    return pc_err_set(err, PERFCHECK_ERROR_IO, "%s: is a directory", name);
  }
  pc_input *in = calloc(1, sizeof *in);
  char *nm = pc_strdup(name);
  char *head = malloc(PC_INPUT_PEEK);
  gzFile gz = (in && nm && head) ? gzdopen(fd, "rb") : NULL;
  if (!gz) {
    close(fd);
    free(in), free(nm), free(head);
    return pc_err_set(err, PERFCHECK_ERROR_OUT_OF_MEMORY, "%s: out of memory", name);
  }
  in->name = nm;
  in->head = head;
  in->gz = gz;
  gzbuffer(gz, 128u << 10);
  while (in->hlen < PC_INPUT_PEEK && !in->eof) {
    ssize_t got = pc_input_gzread(in, head + in->hlen, PC_INPUT_PEEK - in->hlen);
    if (got < 0) {
      pc_err_set(err, PERFCHECK_ERROR_IO, "%s: %s", name, in->error);
      pc_input_close(in);
      return PERFCHECK_ERROR_IO;
    }
    in->hlen += (size_t)got;
  }
  in->gzip = !gzdirect(gz);
  pc_input_classify(in);
  *out = in;
  return PERFCHECK_OK;
}

const char *pc_input_name(const pc_input *in) { return in ? in->name : ""; }
pc_input_kind pc_input_kind_of(const pc_input *in) { return in ? in->kind : PC_INPUT_EMPTY; }
const char *pc_input_what(const pc_input *in) { return in && in->what ? in->what : ""; }
int pc_input_gzip(const pc_input *in) { return in ? in->gzip : 0; }
const char *pc_input_error(const pc_input *in) { return in ? in->error : ""; }
int pc_input_truncated(const pc_input *in) { return in ? in->truncated : 0; }

/* Copies up to n bytes: the rest of the head first, then from gz. */
static ssize_t pc_input_take(pc_input *in, char *buf, size_t n) {
  if (in->hpos < in->hlen) {
    size_t k = in->hlen - in->hpos;
    if (k > n) k = n;
    memcpy(buf, in->head + in->hpos, k);
    in->hpos += k;
    return (ssize_t)k;
  }
  return pc_input_gzread(in, buf, n);
}

static ssize_t pc_input_cookie_read(void *cookie, char *buf, size_t n) {
  ssize_t r = pc_input_take(cookie, buf, n);
  if (r < 0) errno = EIO;
  return r;
}

FILE *pc_input_stream(pc_input *in) {
  if (!in) return NULL;
  if (!in->stream) {
    cookie_io_functions_t io = {pc_input_cookie_read, NULL, NULL, NULL};
    in->stream = fopencookie(in, "r", io);
  }
  return in->stream;
}

void pc_input_close(pc_input *in) {
  if (!in) return;
  if (in->stream) fclose(in->stream); /* no close function: the gzFile stays ours */
  if (in->gz) gzclose_r(in->gz);     /* closes the descriptor (stdin's is a dup) */
  free(in->head);
  free(in->name);
  free(in);
}
