/* The writer a probe reader needs (ctest build.rooms_found). */
int pc_probe_write(int n) { return 2 * n; }
