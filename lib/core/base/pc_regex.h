/*
 * pc_regex.h: the one guard every regular expression a user supplies goes
 * through (expectations' regex:PATTERN, --kernels / PERFCHECK_KERNELS,
 * --nvtx / PERFCHECK_NVTX), the matcher they all use, and ncu's
 * kernel-filter vocabulary.
 *
 * The matcher is our own: glibc's regexec searches by trying a
 * match at every start position, each of which may scan to the end, so its
 * cost grew with the square of the name (regex:a+x against 10 KB of 'a':
 * 0.24 s, 100 KB: 50 s, 1 MB: over 120 s; exports allow 64 MiB names).
 * Weighed: TRE (libtre, in Debian) matches in linear time too, but every
 * program that links libperfcheck would then load it, for a library last
 * released in 2009; RE2 is C++; capping the subject a regex sees would
 * change what `$` and long template names match, a rule users would have to
 * remember.  The guard below already restricts the syntax to what a
 * Thompson NFA handles without backtracking (no back-references, bounded
 * counts), so the matcher is one: the pattern becomes an NFA program (a
 * counted repetition written out, at most PC_REGEX_MAX_EXPANSION atoms),
 * and a match runs it as a DFA built lazily, one state per set of NFA
 * states reached, for that call only (so a match is thread-safe and takes no
 * lock).  Every byte of the name costs one table lookup once its state
 * exists; a new state costs at most the program's size; at most 4096
 * states are kept (then the cache starts again; after two such starts the
 * rest of the name is stepped as an NFA, byte by byte, which costs the same
 * without storing states), so time is linear in the name's length (times
 * the program's size at worst) and memory bounded whatever the name
 * (scripts/bench_regex.py: regex:a+x on a 1 MB name, milliseconds; a
 * pattern whose DFA never settles, a[ab]{200}c on random a and b, about a
 * second per MB).
 *
 * The language is POSIX extended as glibc's regcomp reads it (regcomp is
 * still called, on the pattern only, so its syntax errors and messages are
 * the ones users know), matched over bytes as in the C locale: alternation,
 * groups, * + ? {m} {m,} {m,n} {,n}, ., ^ and $ anywhere (no REG_NEWLINE:
 * they match at the ends of the name only), bracket expressions with ranges,
 * [:class:] (ASCII), [=c=] and [.c.]; \w \W \s \S, \` and \' as GNU's.
 * Refused, each by a rule of the guard:
 *   length       at most PC_REGEX_MAX_LEN bytes
 *   count        a repetition count {m,n} at most PC_REGEX_MAX_COUNT
 *   nesting      counted repetition nested at most PC_REGEX_MAX_NESTING deep
 *   expansion    at most PC_REGEX_MAX_EXPANSION atoms once every counted and
 *                '+' repetition is written out (a{255}: 255; (ab){3}: 6)
 *   backref      no back-reference (\1 .. \9): no linear-time matcher has them
 *   boundary     no word-boundary assertion (\b \B \< \>): the matcher
 *                looks at one byte at a time; write the bytes around it
 *                ([^[:alnum:]_]) or anchors instead
 *   stacked      no repetition operator right after another (a++, a*{2}):
 *                POSIX leaves them undefined
 * (glibc's regcomp alone once needed the length, count, nesting and
 * expansion rules too: ((a{255}){255}){255} asked it for 3.5 GB.)
 * Matching is by bytes: '.' is one byte, and a UTF-8 character in a name is
 * matched by its bytes (in a UTF-8 locale glibc would match it as one).
 *
 * Pure C, libc only: the `perfcheck` command compiles this file too, so that
 * `perfcheck run --kernels` refuses what the library would.
 */
#ifndef PC_REGEX_H
#define PC_REGEX_H

#include <stddef.h>

#include "base/pc_err.h"

#define PC_REGEX_MAX_LEN 512
#define PC_REGEX_MAX_COUNT 255
#define PC_REGEX_MAX_NESTING 2
#define PC_REGEX_MAX_EXPANSION 512

/* Checks `pattern` against the rules above.  Returns PERFCHECK_OK when it
 * may go to regcomp; else PERFCHECK_ERROR_INVALID_ARGUMENT with err naming
 * the rule ("refused by the regex guard (rule \"backref\"): ...") and *at
 * the 0-based byte offset of the offending character. */
perfcheck_status pc_regex_check(const char *pattern, size_t *at, pc_err *err);

/* A compiled pattern: immutable once compiled, so any number of threads
 * may match it at once. */
typedef struct pc_regex {
  struct pc_rx_prog *prog;
} pc_regex;

/* The guard, then regcomp's syntax check, then the matcher's program.
 * Returns PERFCHECK_OK with *re compiled (pc_regex_free it); else
 * PERFCHECK_ERROR_INVALID_ARGUMENT (the guard's rule or regerror's text in
 * err) or _OUT_OF_MEMORY, and *at (0 when regcomp refused).  *re is left
 * empty on failure (pc_regex_free is a no-op on it). */
perfcheck_status pc_regex_compile(pc_regex *re, const char *pattern, size_t *at, pc_err *err);

/* Whether the pattern matches somewhere in `subject` (a search, as regexec
 * without REG_NEWLINE): 1 it does, 0 it does not, -1 out of memory (callers
 * take it as no match).  Time linear in strlen(subject); thread-safe. */
int pc_regex_match(const pc_regex *re, const char *subject);

/* Frees what pc_regex_compile made; NULL or an empty one is a no-op. */
void pc_regex_free(pc_regex *re);

/* The most DFA states one match keeps before its cache starts again (4096;
 * after two such starts the rest of the name is stepped as an NFA).  Only
 * tests change it, to reach those paths on short names. */
extern unsigned pc_regex_dfa_state_limit;

/* ncu's -k vocabulary for a kernel filter (`--kernel-name` with the default
 * `--kernel-name-base function`):
 *   NAME         the function name, exactly: no namespace, no template
 *                arguments, no parameters ("gemm" selects ns::gemm<128>(...)
 *                and gemm(float*), not gemm2 nor my_gemm).  A NAME with
 *                template arguments ("scaleAdd<4>") selects that
 *                instantiation only, and one with "::" that qualified name.
 *   regex:EXPR   a POSIX extended regex searched in the name (ncu's
 *                "regex:"), through the guard.
 * The result is a POSIX extended regex for perfcheck_options.kernel_regex,
 * which is matched against the demangled name without its return type and
 * parameters (pc_kernel_short_name): NAME becomes ^(.*::)?NAME(<.*)?$ with
 * every special character escaped.  Returns PERFCHECK_OK with *out a
 * malloc'd string; else PERFCHECK_ERROR_INVALID_ARGUMENT (an empty NAME or
 * EXPR, a refused or invalid EXPR) or _OUT_OF_MEMORY with err set and *out
 * NULL; *at as pc_regex_check's, an offset into spec. */
perfcheck_status pc_kernel_filter_regex(const char *spec, char **out, size_t *at, pc_err *err);

#endif /* PC_REGEX_H */
