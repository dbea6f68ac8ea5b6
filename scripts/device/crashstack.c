/* crashstack.c: a preloadable crash reporter for the device runs (not part of
 * libperfcheck).  On SIGSEGV, SIGBUS, SIGFPE or SIGILL it writes the crashing
 * thread's stack (glibc's backtrace: it unwinds libraries built without frame
 * pointers, CUPTI's and the driver's included) and the thread id to stderr,
 * then dies of the signal as before.  scripts/device/bench verdicts builds it with
 *   cc -shared -fPIC -O1 -o crashstack.so crashstack.c
 * and adds it to LD_PRELOAD.  A handler the program installs later replaces
 * this one, as it should. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void crashstack_on(int sig) {
  void *frames[64];
  const int n = backtrace(frames, 64);
  char head[96];
  const int len = snprintf(head, sizeof head, "CRASH: signal %d in thread %ld, %d frames:\n", sig,
                           (long)syscall(SYS_gettid), n);
  if (len > 0) (void)!write(2, head, (size_t)len);
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void crashstack_init(void) {
  void *warm[1];
  (void)backtrace(warm, 1); /* loads libgcc_s now, not inside the handler */
  const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction cur;
    if (sigaction(sigs[i], NULL, &cur) == 0 && cur.sa_handler == SIG_DFL) signal(sigs[i], crashstack_on);
  }
}
