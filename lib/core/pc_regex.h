/*
 * pc_regex.h: the one guard every regular expression a user supplies goes
 * through (expectations' regex:PATTERN, --kernels / PERFCHECK_KERNELS,
 * --nvtx / PERFCHECK_NVTX), and ncu's kernel-filter vocabulary.
 *
 * The engine is glibc's regcomp/regexec (POSIX extended, REG_NOSUB): no
 * extra library for a program that links libperfcheck.  Without
 * back-references glibc matches with a lazily built DFA (no backtracking),
 * but two costs still grow without bound, so the guard bounds them before
 * regcomp is called:
 *   compile  glibc copies the tree of an operand once per count of a bounded
 *            repetition, so ((a{255}){255}){255} asks for 16 million nodes
 *            (3.5 GB measured); and every optional copy widens the DFA's
 *            states, so the first match costs about the square of the
 *            expanded size (([a-z]{0,40}){40}x: 1.2 s on a 1 KiB name).
 *   match    back-references make glibc backtrack: (x|xx)+\1y ran for over
 *            100 s against a 1 KiB template name.
 * The rules, each named in the refusal:
 *   length       at most PC_REGEX_MAX_LEN bytes
 *   count        a repetition count {m,n} at most PC_REGEX_MAX_COUNT
 *   nesting      counted repetition nested at most PC_REGEX_MAX_NESTING deep
 *   expansion    at most PC_REGEX_MAX_EXPANSION atoms once every counted and
 *                '+' repetition is written out (a{255}: 255; (ab){3}: 6)
 *   backref      no back-reference (\1 .. \9)
 *   stacked      no repetition operator right after another (a++, a*{2}):
 *                POSIX leaves them undefined and glibc copies the tree per
 *                operator
 * Measured here (glibc 2.36, x86-64): the worst accepted patterns we found,
 * ((.?){2}){255}x, (.?){255}(.?){255}x and (.*a.?){100}x, compile in about
 * 1 ms and take about 0.1 s and 8 MB for a first match against an 8 KiB
 * name (later matches reuse the DFA built so far).
 *
 * Pure C, libc only: the `perfcheck` command compiles this file too, so that
 * `perfcheck run --kernels` refuses what the library would.
 */
#ifndef PC_REGEX_H
#define PC_REGEX_H

#include <regex.h>
#include <stddef.h>

#define PC_REGEX_MAX_LEN 512
#define PC_REGEX_MAX_COUNT 255
#define PC_REGEX_MAX_NESTING 2
#define PC_REGEX_MAX_EXPANSION 512

/* Checks `pattern` against the rules above.  Returns 0 when it may go to
 * regcomp; else -1 with `why` naming the rule ("refused: back-reference \1
 * (...)") and *at the 0-based byte offset of the offending character. */
int pc_regex_check(const char *pattern, size_t *at, char *why, size_t whylen);

/* The guard, then regcomp(re, pattern, REG_EXTENDED | REG_NOSUB).  Returns 0
 * with *re compiled (regfree it); else -1 with why (the guard's rule, or
 * regerror's text) and *at (0 when regcomp refused). */
int pc_regex_compile(regex_t *re, const char *pattern, size_t *at, char *why, size_t whylen);

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
 * every special character escaped.  Returns a malloc'd string, or NULL with
 * why set (an empty NAME or EXPR, a refused or invalid EXPR, out of
 * memory); *at as pc_regex_check's, an offset into spec. */
char *pc_kernel_filter_regex(const char *spec, size_t *at, char *why, size_t whylen);

#endif /* PC_REGEX_H */
