/* The command's own messages may go to stderr: fine under tools/. */
#include <stdio.h>

void cmd_usage(void) { fprintf(stderr, "usage: perfcheck ...\n"); }
