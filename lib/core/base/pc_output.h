/*
 * pc_output.h: where a report goes, and writing it there without losing or
 * clobbering anything (pc_output.c).
 *
 * Output patterns (perfcheck_options.output, PERFCHECK_OUTPUT, --output):
 *   %p        the process id
 *   %h        the host name
 *   %q{VAR}   the value of environment variable VAR (an MPI rank); unset or
 *             empty, the process id is used instead and one warning line says
 *             so (every rank must get its own file: an empty value would
 *             make them all write r..json)
 *   %%        a percent sign
 *   "-"       stdout; "stderr": stderr
 * Any other '%' sequence is refused when the pattern is read (start-up).
 * Values of %h and %q{VAR} are made one path component: '/', control
 * characters and a value of "." or ".." become '_'.  A %q{VAR} value longer
 * than 128 bytes gives the process id instead, with one warning (cut, two
 * ranks' values could become one file name).
 *
 * Processes of one run: `perfcheck run` marks the program it starts as the
 * run's root (PERFCHECK_ROOT_PID, set in the child only; the injection
 * library sets it in the first CUDA process when it is unset).  A process
 * of the run that is not the root (an exec'd or forked CUDA child, an MPI
 * rank under mpirun) writes, when the pattern has no %p, to the expanded
 * name with ".PID" put before its extension (report.json ->
 * report.4242.json), so no two processes write the same file.
 *
 * Writing a file (pc_output_write_file, the one output function: every
 * writer of the library and of the `perfcheck` command goes through it, and
 * ctest build.one_output checks that no other code opens a file to write):
 *   - "-" is stdout (streamed, flushed, its errors reported);
 *   - an existing target that is not a regular file (a device such as
 *     /dev/full, a FIFO, a socket, a folder) is refused and left alone;
 *   - the content goes to a temporary file in the target's folder, opened
 *     O_CREAT | O_EXCL | O_NOFOLLOW with mode 0600 (a symlink planted at a
 *     predictable name is never followed), written, flushed and synced, then
 *     renamed over the target: a reader sees the old file or the new one,
 *     never half of one; a symlink at the target is replaced, not written
 *     through; a failure (no such folder, disk full, RLIMIT_FSIZE) leaves the
 *     target as it was and removes the temporary;
 *   - the file keeps an existing file's mode (root also keeps its owner); a
 *     new file gets 0666 less the umask (read from /proc/self/status, never
 *     changed), or 0600 in a privileged process, whose umask is its
 *     invoker's, or when the umask cannot be read.
 * pc_output_deliver adds: when the write fails, the report goes to stderr
 * after one line that says why, so nothing is lost.
 *
 * Privileged processes (setuid, setgid, file capabilities: the kernel's
 * AT_SECURE): environment variables are read with secure_getenv (so %q
 * gives the pid), and no report file is written; one line on stderr says
 * so.  stdout and stderr, the program's own streams, are still written.
 *
 * Pure C and libc only, no library state: the `perfcheck` command compiles
 * this file too (merge --output, check --junit, run --output).
 */
#ifndef PC_OUTPUT_H
#define PC_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "base/pc_err.h"

/* Checks a pattern's placeholders.  Returns PERFCHECK_OK, or
 * PERFCHECK_ERROR_INVALID_ARGUMENT with err set ("unknown %x; use %p, %h,
 * %q{VAR} or %%", ...). */
perfcheck_status pc_output_check_pattern(const char *pattern, pc_err *err);

/* The format an output name asks for, by its extension (any case): ".json"
 * 1 (PERFCHECK_FORMAT_JSON), ".csv" 2, ".html" or ".htm" 3, ".txt" 0; -1
 * for another extension, none, "-" or "stderr".  What `perfcheck -o
 * NAME`, PERFCHECK_OUTPUT and Python's configure(output=) write when no
 * format is given, and what a format given beside such a name must match. */
int pc_output_format_of_name(const char *path);

/* Expands a pattern for this process (rules above).  Returns a malloc'd path
 * ("-" and "stderr" come back as they are), or NULL when out of memory.
 * Each warning (an unset %q variable) is one line written to `warn` (may be
 * NULL), "perfcheck: ...\n". */
char *pc_output_expand(const char *pattern, FILE *warn);

/* Nonzero when this process runs with privileges its user does not have
 * (getauxval(AT_SECURE)). */
int pc_output_privileged(void);

/* Writes what `write` writes (its return: 0 ok, nonzero failed) to `path`
 * by the rules above ("-": stdout).  Returns PERFCHECK_OK; or
 * PERFCHECK_ERROR_IO (_INVALID_ARGUMENT without a path, _OUT_OF_MEMORY)
 * with err set ("/dev/full is a character device, not a regular file: ...",
 * "cannot create a file in /x: No such file or directory", "writing failed:
 * File too large") and nothing left behind: the target is as it was and the
 * temporary removed. */
typedef int (*pc_output_writer)(FILE *f, void *ctx);
perfcheck_status pc_output_write_file(const char *path, pc_output_writer write, void *ctx, pc_err *err);

/* pc_output_write_file of `size` bytes at `data`. */
perfcheck_status pc_output_write_bytes(const char *path, const void *data, size_t size, pc_err *err);

/* The whole rule for a report: expands `pattern`, then "-" is stdout,
 * "stderr" stderr, a privileged process writes no file (one line), else
 * pc_output_write_file, and on its failure one line and the report on
 * stderr.  Lines go to `err` (stderr when NULL); `quiet` drops the
 * informational ones but never the fallback report or the line before it.
 * Returns 0 when the report reached its destination, 1 when it went to
 * stderr instead, -1 when it was not written at all (privileged, or stderr
 * failed too). */
int pc_output_deliver(const char *pattern, pc_output_writer write, void *ctx, int quiet, FILE *err);

#endif /* PC_OUTPUT_H */
