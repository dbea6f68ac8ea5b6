/* A reader that needs a writer (rooms_probe/core/write/pc_probe_write.c):
 * ctest build.rooms_found checks that file_cycles.py reports the step
 * against lib/core's room order. */
int pc_probe_write(int n);
int pc_probe_read(int n) { return pc_probe_write(n) + 1; }
