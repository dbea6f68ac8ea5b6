/* Half of a deliberate loop (cycle_b.c is the other half): ctest
 * build.file_cycles_found checks that file_cycles.py reports it. */
int pc_cycle_b(int n);
int pc_cycle_a(int n) { return n > 0 ? pc_cycle_b(n - 1) : 0; }
