#!/usr/bin/env python3
"""Writes the hand-made ncu CSV fixtures of tests/data (run from anywhere).

Every fixture is in the layout of `ncu --csv --page raw` (ncu 2024.3 to
2025.3): a header row of quoted column names (the launch columns, then the
metric columns in alphabetical order, as ncu sorts them), a units row, then one
row per profiled launch, every field quoted, LF line ends.  The files are
committed; this script documents how they were made and regenerates them.
The derivation of t4_seed000.csv from seed 000 is in t4_seed000.md.
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))

LEAD = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
        "Stream", "Block Size", "Grid Size", "Device", "CC"]


def quote(v):
    return '"' + str(v).replace('"', '""') + '"'


def write_csv(path, columns, units, rows, prelude="", cut=None):
    """columns: metric column names (after LEAD); units: dict name -> unit;
    rows: list of (lead values, dict metric -> text)."""
    text = prelude
    text += ",".join(quote(c) for c in LEAD + columns) + "\n"
    text += ",".join(quote("") for _ in LEAD) + "," + \
        ",".join(quote(units.get(c, "")) for c in columns) + "\n"
    for lead, vals in rows:
        text += ",".join(quote(v) for v in lead) + "," + \
            ",".join(quote(vals.get(c, "")) for c in columns) + "\n"
    data = text.encode("utf-8", "surrogateescape")
    if cut is not None:
        data = data[:cut(data)]
    with open(os.path.join(HERE, path), "wb") as f:
        f.write(data)


# ---- Tesla T4, seed 000 -----------------------------------------------------
T4_DEVICE = {
    "device__attribute_clock_rate": "1,590,000",               # kHz
    "device__attribute_compute_capability_major": "7",
    "device__attribute_compute_capability_minor": "5",
    "device__attribute_display_name": "Tesla T4",
    "device__attribute_global_memory_bus_width": "256",        # bit
    "device__attribute_max_blocks_per_multiprocessor": "16",
    "device__attribute_max_registers_per_block": "65,536",
    "device__attribute_max_registers_per_multiprocessor": "65,536",
    "device__attribute_max_shared_memory_per_block": "49,152",
    "device__attribute_max_shared_memory_per_block_optin": "65,536",
    "device__attribute_max_shared_memory_per_multiprocessor": "65,536",
    "device__attribute_max_threads_per_block": "1,024",
    "device__attribute_max_threads_per_multiprocessor": "1,024",
    "device__attribute_memory_clock_rate": "5,001,000",        # kHz
    "device__attribute_multiprocessor_count": "40",
    "device__attribute_reserved_shared_memory_per_block": "0",
    "device__attribute_warp_size": "32",
}

T4_COLUMNS = sorted(list(T4_DEVICE) + [
    "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "launch__block_size", "launch__grid_size", "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps", "launch__registers_per_thread",
    "launch__shared_mem_per_block_dynamic", "launch__shared_mem_per_block_static",
    "launch__waves_per_multiprocessor", "sm__maximum_warps_per_active_cycle_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
])

# --print-units base: bytes, ns, %.
T4_UNITS = {
    "device__attribute_clock_rate": "khz",
    "device__attribute_global_memory_bus_width": "bit",
    "device__attribute_max_shared_memory_per_block": "byte",
    "device__attribute_max_shared_memory_per_block_optin": "byte",
    "device__attribute_max_shared_memory_per_multiprocessor": "byte",
    "device__attribute_memory_clock_rate": "khz",
    "device__attribute_reserved_shared_memory_per_block": "byte",
    "dram__bytes_read.sum": "byte", "dram__bytes_write.sum": "byte",
    "gpu__time_duration.sum": "nsecond",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "request",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "request",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "sector",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "sector",
    "launch__occupancy_limit_blocks": "block", "launch__occupancy_limit_registers": "block",
    "launch__occupancy_limit_shared_mem": "block", "launch__occupancy_limit_warps": "block",
    "launch__registers_per_thread": "register/thread",
    "launch__shared_mem_per_block_dynamic": "byte/block",
    "launch__shared_mem_per_block_static": "byte/block",
    "sm__maximum_warps_per_active_cycle_pct": "%",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "%",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "%",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": "inst",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "inst",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": "inst",
}


def t4_row(i, name, regs, dyn, limits, waves, theo, dur_ns, ld_sect, st_sect, tpi, ach, ffma,
           sm_pct=""):
    vals = dict(T4_DEVICE)
    vals.update({
        "dram__bytes_read.sum": "16,777,216", "dram__bytes_write.sum": "16,777,216",
        "gpu__time_duration.sum": dur_ns,
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "131,072",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "131,072",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": ld_sect,
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": st_sect,
        "launch__block_size": "256", "launch__grid_size": "16,384",
        "launch__occupancy_limit_blocks": limits[0], "launch__occupancy_limit_registers": limits[1],
        "launch__occupancy_limit_shared_mem": limits[2], "launch__occupancy_limit_warps": limits[3],
        "launch__registers_per_thread": regs, "launch__shared_mem_per_block_dynamic": dyn,
        "launch__shared_mem_per_block_static": "0", "launch__waves_per_multiprocessor": waves,
        "sm__maximum_warps_per_active_cycle_pct": theo,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": sm_pct,
        "sm__warps_active.avg.pct_of_peak_sustained_active": ach,
        # The seed's kernels do fmaf only: no FADD or FMUL (FLOPs need all three).
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": "0",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ffma,
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": "0",
        "smsp__thread_inst_executed_per_inst_executed.ratio": tpi,
    })
    lead = [i, "23817", "mystery", "t4-node", name, "1", "7", "(256, 1, 1)", "(16384, 1, 1)",
            "0", "7.5"]
    return lead, vals


def t4_seed000():
    rows = [
        t4_row(0, "mysteryA(const float *, float *, unsigned long)", "8", "0",
               ("16", "32", "16", "4"), "102.40", "100", "449,000", "4,182,508", "4,194,304",
               "32", "81.90", "4,194,304"),
        t4_row(1, "mysteryB(const float *, float *, unsigned long, int)", "14", "0",
               ("16", "16", "16", "4"), "102.40", "100", "2,145,000", "524,288", "524,288",
               "16.21", "98.18", "4,294,967,296"),
        t4_row(2, "mysteryC(const float *, float *, unsigned long, int)", "14", "48,000",
               ("16", "16", "1", "4"), "409.60", "25", "1,414,000", "524,288", "524,288",
               "32", "24.82", "4,294,967,296"),
        t4_row(3, "mysteryC(const float *, float *, unsigned long, int)", "14", "0",
               ("16", "16", "16", "4"), "102.40", "100", "1,184,000", "524,288", "524,288",
               "32", "86.29", "4,294,967,296", sm_pct="99.24"),
    ]
    write_csv("t4_seed000.csv", T4_COLUMNS, T4_UNITS, rows)


# ---- a hand-made export in ncu's default (auto-scaled) units -----------------
# Values are invented for the parser's sake (H200-like limits); they are not
# measurements.
H200_DEVICE = {
    "device__attribute_clock_rate": "1.98",                      # Ghz
    "device__attribute_compute_capability_major": "9",
    "device__attribute_compute_capability_minor": "0",
    "device__attribute_display_name": "NVIDIA H200",
    "device__attribute_global_memory_bus_width": "6,144",
    "device__attribute_max_blocks_per_multiprocessor": "32",
    "device__attribute_max_registers_per_block": "65,536",
    "device__attribute_max_registers_per_multiprocessor": "65,536",
    "device__attribute_max_shared_memory_per_block": "49.15",    # Kbyte/block
    "device__attribute_max_shared_memory_per_block_optin": "232.45",
    "device__attribute_max_shared_memory_per_multiprocessor": "233.47",
    "device__attribute_max_threads_per_block": "1,024",
    "device__attribute_max_threads_per_multiprocessor": "2,048",
    "device__attribute_memory_clock_rate": "3.20",               # Ghz
    "device__attribute_multiprocessor_count": "132",
    "device__attribute_reserved_shared_memory_per_block": "1.02",
    "device__attribute_warp_size": "32",
}
H200_UNITS = {
    "device__attribute_clock_rate": "Ghz", "device__attribute_memory_clock_rate": "Ghz",
    "device__attribute_global_memory_bus_width": "bit",
    "device__attribute_max_shared_memory_per_block": "Kbyte/block",
    "device__attribute_max_shared_memory_per_block_optin": "Kbyte/block",
    "device__attribute_max_shared_memory_per_multiprocessor": "Kbyte",
    "device__attribute_reserved_shared_memory_per_block": "Kbyte/block",
    "dram__bytes_read.sum": "Mbyte", "dram__bytes_write.sum": "Kbyte",
    "gpu__time_duration.sum": "usecond",
    "launch__shared_mem_per_block_dynamic": "Kbyte/block",
    "launch__shared_mem_per_block_static": "Kbyte/block",
    "launch__registers_per_thread": "register/thread",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "sector",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "sector",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "request",
    "smsp__sass_inst_executed_op_global_ld.sum": "inst",
    "smsp__sass_inst_executed_op_global_st.sum": "inst",
    "sm__cycles_elapsed.avg": "cycle",
    "sm__maximum_warps_per_active_cycle_pct": "%",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "%",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "%",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "%",
}
VALID_COLUMNS = sorted(list(H200_DEVICE) + [
    "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    # loads: only the substitute counter; stores: both (the L1TEX one wins)
    "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "launch__block_size", "launch__grid_size", "launch__registers_per_thread",
    "launch__shared_mem_per_block_dynamic", "launch__shared_mem_per_block_static",
    "launch__occupancy_per_block_size",  # an instanced metric: ignored
    "launch__waves_per_multiprocessor",
    "sm__cycles_elapsed.avg",  # not a perfcheck metric: ignored
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    # both spellings: the current one wins
    "smsp__average_thread_inst_executed_per_inst_executed.ratio",
    "smsp__thread_inst_executed_per_inst_executed.ratio",
])


def valid_row(i, name, grid, block, dyn, dur_us, extra=None):
    vals = dict(H200_DEVICE)
    vals.update({
        "dram__bytes_read.sum": "16.78", "dram__bytes_write.sum": "640.00",
        "gpu__time_duration.sum": dur_us,
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": "71.30",
        "smsp__sass_inst_executed_op_global_ld.sum": "32,768",
        "smsp__sass_inst_executed_op_global_st.sum": "99,999",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "32,768",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "131,072",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "131,072",
        "launch__block_size": str(block[0] * block[1] * block[2]),
        "launch__grid_size": str(grid[0] * grid[1] * grid[2]),
        "launch__registers_per_thread": "32",
        "launch__shared_mem_per_block_dynamic": dyn,
        "launch__shared_mem_per_block_static": "4.10",
        "launch__occupancy_per_block_size": "32:100;64:100;128:100",
        "launch__waves_per_multiprocessor": "0.97",
        "sm__cycles_elapsed.avg": "20,000",
        "sm__maximum_warps_per_active_cycle_pct": "100",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": "12.50",
        "sm__warps_active.avg.pct_of_peak_sustained_active": "88.10",
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "1,048,576",
        "smsp__average_thread_inst_executed_per_inst_executed.ratio": "31.50",
        "smsp__thread_inst_executed_per_inst_executed.ratio": "7.00",
    })
    if extra:
        vals.update(extra)
    lead = [i, "4242", "valid", "h200-node", name, "1", "7",
            "(%d, %d, %d)" % block, "(%d, %d, %d)" % grid, "0", "9.0"]
    return lead, vals


def ncu_raw_valid():
    sa = "void scaleAdd<4>(float, const float *, float *, int)"
    rows = [
        valid_row(0, sa, (1024, 1, 1), (256, 1, 1), "0", "10.50"),
        # 4 KiB static + 48000 B dynamic + 1 KiB reserved: 4 blocks of 4 warps.
        valid_row(1, "mysteryC(const float *, float *, unsigned long, int)", (512, 2, 1),
                  (128, 1, 1), "48.00", "1,414.00",
                  {"sm__maximum_warps_per_active_cycle_pct": "25"}),
        # Later launches of scaleAdd: only the duration may differ in use.
        valid_row(2, sa, (1024, 1, 1), (256, 1, 1), "0", "12.00",
                  {"sm__warps_active.avg.pct_of_peak_sustained_active": "11.00"}),
        valid_row(3, "mysteryC(const float *, float *, unsigned long, int)", (512, 2, 1),
                  (128, 1, 1), "0", "1,184.00"),
        valid_row(4, sa, (1024, 1, 1), (256, 1, 1), "0", "11.00"),
    ]
    prelude = ("scaleAdd: 1048576 elements, max error 0\n"
               "==PROF== Connected to process 4242 (/tmp/valid)\n"
               "==PROF== Profiling \"scaleAdd\" - 0: 0%....50%....100% - 9 passes\n"
               "==PROF== Disconnected from process 4242\n")
    write_csv("ncu_raw_valid.csv", VALID_COLUMNS, H200_UNITS, rows, prelude=prelude)


# ---- good exports with unusable values ----------------------------------------
def ncu_unusable_values():
    # The store-sector column is missing; every other problem sits in a cell.
    cols = [c for c in VALID_COLUMNS if c != "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
    rows = [
        valid_row(0, "nanKernel(float *)", (64, 1, 1), (256, 1, 1), "0", "5.00",
                  {"dram__bytes_read.sum": "nan",
                   "sm__warps_active.avg.pct_of_peak_sustained_active": "n/a"}),
        valid_row(1, "negKernel(float *)", (64, 1, 1), (256, 1, 1), "0", "6.00",
                  {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "-5",
                   "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": "12abc"}),
        valid_row(2, "zeroReq(float *)", (64, 1, 1), (256, 1, 1), "0", "7.00",
                  {"smsp__sass_inst_executed_op_global_ld.sum": "0",
                   "gpu__time_duration.sum": "inf"}),
    ]
    write_csv("ncu_unusable_values.csv", cols, H200_UNITS, rows)


# ---- hostile kernel names -------------------------------------------------------
HOSTILE_NAMES = [
    'quote"Kernel(int)',
    "comma,kernel<1, 2>(int, float)",
    "newline\nkernel(int)",
    "ctrl\x01\x1b[31mkernel(int)",
    "bad\udcffutf8\udcc3(int)",   # bytes FF and C3 (a cut sequence): not UTF-8
    "tab\tkernel",
    "Kernel Name",                # the header's own text, as a name
]


def ncu_hostile_names():
    rows = [valid_row(i, n, (1, 1, 1), (32, 1, 1), "0", "1.00") for i, n in enumerate(HOSTILE_NAMES)]
    write_csv("ncu_hostile_names.csv", VALID_COLUMNS, H200_UNITS, rows)


# ---- bad input ------------------------------------------------------------------
def bad_inputs():
    os.makedirs(os.path.join(HERE, "bad"), exist_ok=True)
    open(os.path.join(HERE, "bad", "empty.csv"), "wb").close()
    rows = [valid_row(0, "k(int)", (1, 1, 1), (32, 1, 1), "0", "1.00"),
            valid_row(1, "k2(int)", (1, 1, 1), (32, 1, 1), "0", "1.00")]
    # Cut inside a quoted field of the last row.
    write_csv(os.path.join("bad", "truncated_quote.csv"), VALID_COLUMNS, H200_UNITS, rows,
              cut=lambda d: len(d) - 40)
    # Cut at a field boundary of the last row: too few fields.
    write_csv(os.path.join("bad", "truncated_row.csv"), VALID_COLUMNS, H200_UNITS, rows,
              cut=lambda d: d.rindex(b'","') + 1)
    write_csv(os.path.join("bad", "header_only.csv"), VALID_COLUMNS, H200_UNITS, [])
    with open(os.path.join(HERE, "bad", "not_ncu.csv"), "w") as f:
        f.write("name,age,city\nbob,3,Paris\nalice,4,\"Rome, Italy\"\n")
    with open(os.path.join(HERE, "bad", "details_page.csv"), "w") as f:
        f.write('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
                '"Block Size","Grid Size","Device","CC","Section Name","Metric Name",'
                '"Metric Unit","Metric Value"\n'
                '"0","1","a","h","k(int)","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0",'
                '"GPU Speed Of Light Throughput","Duration","usecond","1.00"\n')
    rng = random.Random(20260901)
    data = bytes(rng.randrange(256) for _ in range(4096))
    assert b"Kernel Name" not in data
    with open(os.path.join(HERE, "bad", "random.bin"), "wb") as f:
        f.write(data)


if __name__ == "__main__":
    t4_seed000()
    ncu_raw_valid()
    ncu_unusable_values()
    ncu_hostile_names()
    bad_inputs()
