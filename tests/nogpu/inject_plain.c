/* inject_plain [EXIT_CODE]: a program that never touches CUDA, for the
 * injection library's no-GPU tests (inject_test.sh): under the library it
 * must print exactly what it prints without it, with the same exit code. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  const int code = argc > 1 ? atoi(argv[1]) : 0;
  printf("inject_plain: hello from a program without CUDA\n");
  fprintf(stderr, "inject_plain: a line on stderr\n");
  printf("inject_plain: exit %d\n", code);
  return code;
}
