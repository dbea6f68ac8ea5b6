/* The other half of the deliberate loop of cycle_a.c. */
int pc_cycle_a(int n);
int pc_cycle_b(int n) { return n > 0 ? pc_cycle_a(n - 1) : 1; }
