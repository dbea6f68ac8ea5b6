/* perfcheck run: a program built without perfcheck, under the injection
 * library (perfcheck_run.c). */
#ifndef PERFCHECK_RUN_H
#define PERFCHECK_RUN_H

/* `perfcheck run [options] [--] PROGRAM [ARGS...]`: argv[0] is "run".
 * Returns PROGRAM's exit status, 128+N when signal N ended it, 127 when it
 * cannot be found (126 when it cannot be executed), 2 on a usage error. */
int pc_cli_run(int argc, char **argv);

/* Its help text, for `perfcheck help run`. */
extern const char pc_cli_run_usage[];

/* Runs argv[0] (searched in PATH) with argv under libperfcheck_inject.so:
 * sets CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH (when unset) and
 * LD_PRELOAD in the child's environment; PERFCHECK_* settings are taken from
 * this process's environment, so set them first.  Waits for the program and
 * returns as pc_cli_run does; *ran (may be NULL) is 0 when it could not be
 * started (the message, prefixed with `who`, is on stderr).  When the
 * injection library cannot be found the program runs without it, after one
 * "perfcheck: profiling off:" line.  SIGINT and SIGQUIT are ignored while
 * waiting (the terminal sends them to the program too); SIGTERM is passed
 * on to the program. */
int pc_run_program(const char *who, char **argv, int *ran);

#endif /* PERFCHECK_RUN_H */
