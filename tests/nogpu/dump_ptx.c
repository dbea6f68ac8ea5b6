/* Prints the ceilings benchmarks' PTX (lib/gpu/pc_ceilings.c) so that ctest
 * can check it with ptxas: the library JIT-compiles it on the user's GPU,
 * where a syntax error would only show at run time. */
#include <stdio.h>

#include "pc_ceilings.h"

int main(void) { return fputs(pc_ceilings_ptx(), stdout) < 0; }
