# The `perfcheck` command on the offline path (label unit): exit status 0 or 2,
# messages that name the file and line, and the JSON/CSV read back by a real
# parser.  Included from tests/CMakeLists.txt.
find_package(Python3 COMPONENTS Interpreter)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "perfcheck: no python3; the CLI tests are skipped")
  return()
endif()

set(_pc_data ${PERFCHECK_TEST_DATA})

# pc_cli_test(name EXIT n [STDOUT re...] [STDERR re...] [FLAGS flag...] ARGS arg...)
# FLAGS are check_cli.py's own (--no-stderr, --stdout-file PATH, ...).
function(pc_cli_test name)
  cmake_parse_arguments(T "" "EXIT" "STDOUT;STDERR;FLAGS;ARGS" ${ARGN})
  set(checks --exit ${T_EXIT} ${T_FLAGS})
  foreach(re IN LISTS T_STDOUT)
    list(APPEND checks --stdout ${re})
  endforeach()
  foreach(re IN LISTS T_STDERR)
    list(APPEND checks --stderr ${re})
  endforeach()
  add_test(NAME unit.cli.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/unit/check_cli.py ${checks} --
                   $<TARGET_FILE:perfcheck_cli> ${T_ARGS})
  set_tests_properties(unit.cli.${name} PROPERTIES LABELS unit)
endfunction()

add_test(NAME unit.cli.json COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/unit/check_json.py
                                    $<TARGET_FILE:perfcheck_cli> ${_pc_data})
set_tests_properties(unit.cli.json PROPERTIES LABELS unit)

# Seed 000's four verdicts, in the text report.
pc_cli_test(diagnose_t4 EXIT 0 FLAGS --no-stderr
  STDOUT "Part 1: what the launch configuration alone decides"
         "\nmysteryC, 48000 B dynamic     14          0       48000       1        8     25.0\n"
         "\nmysteryA: step 3 uncoalesced_global_loads: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum = 31.91 sectors/request \\(threshold 16 sectors/request\\)\n  time: "
         "\nmysteryB: step 4 divergent_warps: [^\n]* = 16.21 "
         "\nmysteryC, 48000 B dynamic: step 5 occupancy_shared_memory: "
         "\nmysteryC, 0 B dynamic: step 0 at_roof: "
  ARGS diagnose --quiet ${_pc_data}/t4_seed000.csv)
# Without --quiet the warnings go to stderr too.
# Quiet by default: the warnings are in the report; -v prints
# them on stderr as well.
pc_cli_test(diagnose_warnings EXIT 0
  STDERR "perfcheck: warning: [^\n]*ncu_unusable_values.csv:3: kernel nanKernel: dram__bytes_read.sum: NaN"
  ARGS diagnose -v --format csv ${_pc_data}/ncu_unusable_values.csv)
pc_cli_test(diagnose_warnings_quiet EXIT 0 FLAGS --no-stderr
  STDOUT "\nWarnings \\([0-9]+\\)\n[^\n]*ncu_unusable_values.csv:3: kernel nanKernel: dram__bytes_read.sum: NaN"
  ARGS diagnose ${_pc_data}/ncu_unusable_values.csv)
pc_cli_test(diagnose_csv EXIT 0 STDOUT "^name,region,grid,block," "\nmysteryA,,16384x1x1,256x1x1,0,1,449000,"
  ARGS diagnose -q -f csv ${_pc_data}/t4_seed000.csv)

# Bad input: exit 2, the file and line named.
pc_cli_test(bad_empty EXIT 2 FLAGS --no-stdout STDERR "bad/empty.csv:1: empty file"
  ARGS diagnose ${_pc_data}/bad/empty.csv)
pc_cli_test(bad_not_ncu EXIT 2 FLAGS --no-stdout STDERR "bad/not_ncu.csv:1: not an ncu export"
  ARGS diagnose ${_pc_data}/bad/not_ncu.csv)
pc_cli_test(bad_random EXIT 2 FLAGS --no-stdout STDERR "bad/random.bin:1: binary data, not text; expected"
  ARGS diagnose ${_pc_data}/bad/random.bin)
# A damaged export: the complete rows are diagnosed, exit 0 (was 2),
# with one warning naming the first bad line and the rows dropped.
pc_cli_test(bad_truncated_row EXIT 0 STDOUT "\nk: step "
  STDERR "bad/truncated_row.csv:4: 50 fields where the header \\(line 1\\) has 51; 1 row dropped, 1 launch row kept"
  ARGS diagnose -v ${_pc_data}/bad/truncated_row.csv)
pc_cli_test(bad_truncated_quote EXIT 0 STDOUT "\nk: step "
  STDERR "bad/truncated_quote.csv:4: a quoted field[^\n]*; 1 row dropped, 1 launch row kept"
  ARGS diagnose -v ${_pc_data}/bad/truncated_quote.csv)
pc_cli_test(bad_header_only EXIT 2 FLAGS --no-stdout STDERR "bad/header_only.csv:3: the header \\(line 1\\) is followed by no launch"
  ARGS diagnose ${_pc_data}/bad/header_only.csv)
pc_cli_test(bad_details_page EXIT 2 FLAGS --no-stdout STDERR "details_page.csv:1: .*--page raw"
  ARGS diagnose ${_pc_data}/bad/details_page.csv)
pc_cli_test(missing_file EXIT 2 FLAGS --no-stdout STDERR "no_such_file.csv: cannot open"
  ARGS diagnose ${_pc_data}/no_such_file.csv)

# Usage.
pc_cli_test(no_arguments EXIT 2 FLAGS --no-stdout STDERR "usage: perfcheck <command>" ARGS)
pc_cli_test(unknown_command EXIT 2 FLAGS --no-stdout STDERR "unknown command 'frobnicate'" "usage: perfcheck"
  ARGS frobnicate)
pc_cli_test(unknown_option EXIT 2 FLAGS --no-stdout STDERR "unknown option '--frobnicate'"
  ARGS diagnose --frobnicate x.csv)
pc_cli_test(unknown_format EXIT 2 FLAGS --no-stdout STDERR "unknown format 'xml'"
  ARGS diagnose --format xml ${_pc_data}/t4_seed000.csv)
pc_cli_test(diagnose_no_file EXIT 2 FLAGS --no-stdout STDERR "diagnose needs an ncu export" ARGS diagnose)
pc_cli_test(version EXIT 0 STDOUT "^perfcheck ${PROJECT_VERSION}\n" ARGS --version)
pc_cli_test(help EXIT 0 STDOUT "usage: perfcheck <command>" "diagnose FILE   " ARGS --help)
pc_cli_test(help_diagnose EXIT 0 STDOUT "usage: perfcheck diagnose" ARGS help diagnose)
pc_cli_test(diagnose_help EXIT 0 STDOUT "usage: perfcheck diagnose" ARGS diagnose --help)
pc_cli_test(help_metrics EXIT 0 STDOUT "usage: perfcheck metrics" ARGS metrics -h)
pc_cli_test(metrics_default EXIT 0
  STDOUT "^gpu__time_duration.sum,[^\n]*l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum[^\n]*sm__warps_active.avg.pct_of_peak_sustained_active,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio,[^\n]*sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,[^\n]*lts__t_sectors.sum,smsp__warps_eligible.avg.per_cycle_active,[^\n]*smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio\n$"
  ARGS metrics)
# The pass counts of the reference chips (CUPTI's host API, no GPU needed).
# A build without the toolkit has no host library to ask: exit 2 and one line
# that says why.
if(PERFCHECK_HAVE_CUDA AND PERFCHECK_SANITIZE)
  # CUPTI's host library is opened with RTLD_DEEPBIND, which ASan aborts on:
  # a sanitizer build says so and uses no host API.
  pc_cli_test(metrics_passes_sanitized EXIT 1 FLAGS --no-stdout
    STDERR "a sanitizer runtime is loaded" ARGS metrics --passes)
elseif(PERFCHECK_HAVE_CUDA)
  pc_cli_test(metrics_passes_chips EXIT 0 STDOUT "^GH100 8\nGB100 8\nAD102 8\nGA100 7\n" ARGS metrics --passes)
  pc_cli_test(metrics_passes_chip EXIT 0 STDOUT "^8\n$" ARGS metrics --passes --chip GH100)
else()
  pc_cli_test(metrics_passes_nocuda EXIT 2 FLAGS --no-stdout
    STDERR "built without the CUDA toolkit: in-process profiling is not available" ARGS metrics --passes)
  # "Built without CUDA" is exit 2 in every command whose status is
  # perfcheck's own (docs/cli.md), and check does not start the program
  # (--no-stdout: echo's line would be there).
  pc_cli_test(ceilings_nocuda EXIT 2 FLAGS --no-stdout
    STDERR "^perfcheck ceilings: built without the CUDA toolkit" ARGS ceilings)
  # perfcheck run keeps the program's exit status: it runs unprofiled.
  pc_cli_test(run_nocuda EXIT 3 STDOUT "^program started\n$" ARGS run -- sh -c "echo program started && exit 3")
  pc_cli_test(check_program_nocuda EXIT 2 FLAGS --no-stdout
    STDERR "^perfcheck check: built without the CUDA toolkit"
    ARGS check --expect "a:step==1" -- echo program started)
endif()
pc_cli_test(metrics_full EXIT 0 STDOUT "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum" ARGS metrics --set full)
pc_cli_test(metrics_bad_set EXIT 2 FLAGS --no-stdout STDERR "unknown metric set 'fastest'" ARGS metrics --set fastest)

# A failed write is exit 1, not a silent success.
if(EXISTS /dev/full)
  pc_cli_test(write_error EXIT 2 FLAGS --stdout-file /dev/full STDERR "writing to stdout failed: No space left on device"
    ARGS diagnose --quiet ${_pc_data}/t4_seed000.csv)
endif()

# Step 1 from an nsys stats CSV (the fixture is hand-made in
# NVIDIA's documented format, its header says so): the run's kernel time
# against the wall clock given, copies beside it.
pc_cli_test(nsys_step1 EXIT 0 FLAGS --no-stderr
  STDOUT "\nrun +450\\.000 +0\\.777 +7\\.654 +0\\.2 +4  not_the_slow_part\n"
         "\nregion run: step 1 not_the_slow_part: kernel_ns / wall_ns = 0\\.001726"
  ARGS diagnose --wall-time 450ms ${_pc_data}/nsys/mystery_kern_mem.hand-made.csv)
# The same from a real nsys export of the H200, with the plain
# run's measured wall clock.
pc_cli_test(nsys_step1_real EXIT 0 FLAGS --no-stderr
  STDOUT "\nrun +506\\.756 +0\\.760 +8\\.034 +0\\.1 +4  not_the_slow_part\n"
         "\nregion run: step 1 not_the_slow_part: kernel_ns / wall_ns = 0\\.001499"
  ARGS diagnose --wall-time 506755682ns ${_pc_data}/nsys/mystery_kern_mem.h200-2026-12-02.csv)
pc_cli_test(nsys_no_wall EXIT 0 FLAGS --no-stderr
  STDOUT "step 1 needs the run's wall clock, which an nsys summary does not hold: give it with --wall-time"
  ARGS diagnose ${_pc_data}/nsys/mystery_kern_mem.hand-made.csv)
pc_cli_test(nsys_bad_wall EXIT 2 FLAGS --no-stdout STDERR "bad --wall-time '4 5s'"
  ARGS diagnose --wall-time "4 5s" ${_pc_data}/nsys/mystery_kern_mem.hand-made.csv)
pc_cli_test(nsys_wall_on_ncu EXIT 2 FLAGS --no-stdout
  STDERR "mystery.csv:1: an ncu export, not an nsys stats CSV" "--wall-time is for an nsys stats CSV"
  ARGS diagnose --wall-time 1s ${_pc_data}/h200/mystery.csv)
