#!/usr/bin/env bash
# Several GPUs, ranks and NCCL on the GPU (label gpu).  One part per
# ctest; each exits 77 with "SKIP: <reason>" when what it needs is absent
# (a GPU, torch, a second device), 0 when every check held, 1 otherwise.
# multigpu_check.py reads the JSON reports; every program runs under
# `timeout` (a hang fails the part, it does not eat the GPU session).
#
#   test_multigpu.sh ranks PERFCHECK CHECK_PY PROG
#     Two processes on one GPU at once, each under `perfcheck run` (timing
#     mode: two processes' counter sessions on one GPU are not the point)
#     with RANK=0/1 WORLD_SIZE=2 and --output r.%q{RANK}.json; then
#     `perfcheck merge`: both ranks' regions, no missing-rank warning; merged
#     again without r.1.json: rank 1 named missing.
#   test_multigpu.sh contexts CHECK_PY CONTEXTS_BIN
#     Two contexts on device 0 in one process (multigpu_contexts.cu),
#     counters mode: both entries with counters, ordinal 0, clean exit.
#   test_multigpu.sh visible PERFCHECK CHECK_PY PROG
#     CUDA_VISIBLE_DEVICES=K (K = 0, and 1 when there is a second GPU, with
#     CUDA_DEVICE_ORDER=PCI_BUS_ID, nvidia-smi's order): the kernel's ordinal
#     is 0 and its PCI bus id is nvidia-smi's of GPU K.
#   test_multigpu.sh nccl PERFCHECK CHECK_PY NCCL_PY
#     A one-rank torch.distributed NCCL all-reduce on cuda:0 under
#     `perfcheck run` in counters mode: its NCCL kernels reported with their
#     time, not replayed, no hang, exit 0.
#   test_multigpu.sh ddp_gloo PERFCHECK CHECK_PY DDP_PY
#     DDP on the CPU over gloo, two ranks (RANK/WORLD_SIZE/LOCAL_RANK set
#     here, as a launcher does), each under `perfcheck run` with
#     PERFCHECK_OUTPUT=d.%q{RANK}.json: two reports with rank 0 and 1, merged.
#   test_multigpu.sh two_devices CHECK_PY TWO_DEVICES_BIN
#     One process on two GPUs (multigpu_two_devices.cu): per-device entries,
#     the peer copy a copy.  77 below two devices.
#   test_multigpu.sh torchrun PERFCHECK CHECK_PY NCCL_PY
#     `python3 -m torch.distributed.run --nproc-per-node=2` of the NCCL
#     all-reduce, each rank under `perfcheck run` (counters) writing
#     t.%q{RANK}.json: per-rank reports with NCCL kernels, merged, no hang.
#     77 below two devices.
set -u
part=$1
shift
# Multicast stays off (the device tool's KINDS.md); never cuMulticastCreate.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
unset RANK WORLD_SIZE LOCAL_RANK OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE PERFCHECK_ROOT_PID
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LIMIT=${MULTIGPU_TIMEOUT_S:-240}

# The number of usable GPUs, asked the way the library asks (the driver).
ngpus=$(python3 - <<'PY' 2>/dev/null
import ctypes
try:
    c = ctypes.CDLL("libcuda.so.1")
    n = ctypes.c_int(0)
    print(n.value if c.cuInit(0) == 0 and c.cuDeviceGetCount(ctypes.byref(n)) == 0 else 0)
except OSError:
    print(0)
PY
)
ngpus=${ngpus:-0}
if [ "$ngpus" -lt 1 ]; then
  echo "SKIP: no usable GPU (libcuda.so.1, cuInit and a device are needed)"
  exit 77
fi
need_gpus() { if [ "$ngpus" -lt "$1" ]; then echo "SKIP: $ngpus GPU(s), this part needs $1"; exit 77; fi; }
need_torch() {
  local why
  why=$(python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)' 2>&1)
  case $? in
    0) ;;
    3) echo "SKIP: torch sees no CUDA device"; exit 77 ;;
    *) echo "SKIP: python3 cannot import torch: $(echo "$why" | tail -1)"; exit 77 ;;
  esac
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# ran WHAT RC: the exit status of a program run, 124/137 a hang.
ran() {
  if [ "$2" = 124 ] || [ "$2" = 137 ]; then echo "FAIL $1: timed out after $LIMIT s (a hang)"; return 1; fi
  if [ "$2" != 0 ]; then echo "FAIL $1: exit $2"; return 1; fi
  echo "ok   $1: exit 0"
}
show() { for f in "$@"; do [ -s "$f" ] && { echo "--- $(basename "$f")"; tail -30 "$f"; }; done; }
# smi_bus K: nvidia-smi's PCI bus id of GPU K.
smi_bus() { nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$1" 2>/dev/null | head -1; }

fails=0
case $part in
  ranks)
    PERFCHECK=$1 CHECK=$2 PROG=$3
    for r in 0 1; do
      RANK=$r WORLD_SIZE=2 timeout -k 10 "$LIMIT" "$PERFCHECK" run --mode timing --format json \
        --output "$tmp/r.%q{RANK}.json" -- "$PROG" > "$tmp/p$r.out" 2> "$tmp/p$r.err" &
      eval "pid$r=\$!"
    done
    wait "$pid0"; rc0=$?
    wait "$pid1"; rc1=$?
    ran "rank 0 under perfcheck run" $rc0 || fails=$((fails + 1))
    ran "rank 1 under perfcheck run" $rc1 || fails=$((fails + 1))
    [ $fails = 0 ] || show "$tmp/p0.err" "$tmp/p1.err"
    "$PERFCHECK" merge --format json --output "$tmp/merged.json" "$tmp/r.0.json" "$tmp/r.1.json" || fails=$((fails + 1))
    mkdir "$tmp/kept" && cp "$tmp/r.1.json" "$tmp/kept/" 2>/dev/null
    rm -f "$tmp/r.1.json"  # rank 1's report is lost
    "$PERFCHECK" merge --format json --output "$tmp/merged0.json" "$tmp/r.0.json" || fails=$((fails + 1))
    "$PERFCHECK" merge "$tmp/r.0.json" 2>&1 | grep 'is missing'
    python3 "$CHECK" ranks "$tmp/r.0.json" "$tmp/kept/r.1.json" "$tmp/merged.json" "$tmp/merged0.json" || fails=$((fails + 1))
    ;;
  contexts)
    CHECK=$1 BIN=$2
    timeout -k 10 "$LIMIT" "$BIN" "$tmp/contexts.json" > "$tmp/c.out" 2> "$tmp/c.err"
    rc=$?
    [ $rc = 77 ] && { cat "$tmp/c.out"; exit 77; }
    ran "two contexts on one device" $rc || { fails=$((fails + 1)); show "$tmp/c.out" "$tmp/c.err"; }
    python3 "$CHECK" contexts "$tmp/contexts.json" || fails=$((fails + 1))
    ;;
  visible)
    PERFCHECK=$1 CHECK=$2 PROG=$3
    gpus="0"
    [ "$ngpus" -ge 2 ] && gpus="0 1"
    for k in $gpus; do
      bus=$(smi_bus "$k")
      echo "GPU $k: nvidia-smi says $bus"
      CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$k timeout -k 10 "$LIMIT" "$PERFCHECK" run --mode timing \
        --format json --output "$tmp/v$k.json" -- "$PROG" > "$tmp/v$k.out" 2> "$tmp/v$k.err"
      ran "CUDA_VISIBLE_DEVICES=$k" $? || { fails=$((fails + 1)); show "$tmp/v$k.err"; }
      python3 "$CHECK" visible "$tmp/v$k.json" "$bus" || fails=$((fails + 1))
    done
    ;;
  nccl)
    PERFCHECK=$1 CHECK=$2 SCRIPT=$3
    need_torch
    RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$(free_port) CUDA_VISIBLE_DEVICES=0 \
      timeout -k 10 "$LIMIT" "$PERFCHECK" run --mode counters --format json --output "$tmp/nccl.json" -- \
      python3 "$SCRIPT" single > "$tmp/n.out" 2> "$tmp/n.err"
    rc=$?
    [ $rc = 77 ] && { cat "$tmp/n.out"; exit 77; }
    ran "a one-rank NCCL all-reduce under perfcheck run (counters)" $rc || { fails=$((fails + 1)); show "$tmp/n.out" "$tmp/n.err"; }
    python3 "$CHECK" nccl "$tmp/nccl.json" || fails=$((fails + 1))
    ;;
  ddp_gloo)
    PERFCHECK=$1 CHECK=$2 SCRIPT=$3
    need_torch
    port=$(free_port)
    for r in 0 1; do
      RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port PERFCHECK_FORMAT=json \
        PERFCHECK_OUTPUT="$tmp/d.%q{RANK}.json" timeout -k 10 "$LIMIT" "$PERFCHECK" run --mode timing -- \
        python3 "$SCRIPT" > "$tmp/d$r.out" 2> "$tmp/d$r.err" &
      eval "pid$r=\$!"
    done
    wait "$pid0"; rc0=$?
    wait "$pid1"; rc1=$?
    if [ $rc0 = 77 ] || [ $rc1 = 77 ]; then cat "$tmp/d0.out"; exit 77; fi
    ran "DDP rank 0 (gloo)" $rc0 || { fails=$((fails + 1)); show "$tmp/d0.out" "$tmp/d0.err"; }
    ran "DDP rank 1 (gloo)" $rc1 || { fails=$((fails + 1)); show "$tmp/d1.out" "$tmp/d1.err"; }
    "$PERFCHECK" merge --format json --output "$tmp/dm.json" "$tmp"/d.*.json || fails=$((fails + 1))
    python3 "$CHECK" ddp "$tmp/d.0.json" "$tmp/d.1.json" "$tmp/dm.json" || fails=$((fails + 1))
    ;;
  two_devices)
    CHECK=$1 BIN=$2
    need_gpus 2
    timeout -k 10 "$LIMIT" "$BIN" "$tmp/two.json" > "$tmp/t.out" 2> "$tmp/t.err"
    rc=$?
    [ $rc = 77 ] && { cat "$tmp/t.out"; exit 77; }
    ran "one process on two GPUs" $rc || { fails=$((fails + 1)); show "$tmp/t.out" "$tmp/t.err"; }
    # The process numbers devices as CUDA does by default; ask the driver
    # for their bus ids in that order, as nvidia-smi names them.
    b0=$(python3 - 0 <<'PY'
import ctypes, sys
c = ctypes.CDLL("libcuda.so.1"); c.cuInit(0)
d = ctypes.c_int(0); c.cuDeviceGet(ctypes.byref(d), int(sys.argv[1]))
b = ctypes.create_string_buffer(32); c.cuDeviceGetPCIBusId(b, 32, d); print(b.value.decode())
PY
)
    b1=$(python3 - 1 <<'PY'
import ctypes, sys
c = ctypes.CDLL("libcuda.so.1"); c.cuInit(0)
d = ctypes.c_int(0); c.cuDeviceGet(ctypes.byref(d), int(sys.argv[1]))
b = ctypes.create_string_buffer(32); c.cuDeviceGetPCIBusId(b, 32, d); print(b.value.decode())
PY
)
    echo "driver bus ids: device 0 $b0, device 1 $b1; nvidia-smi: $(smi_bus 0), $(smi_bus 1)"
    python3 "$CHECK" two_devices "$tmp/two.json" "$b0" "$b1" || fails=$((fails + 1))
    ;;
  torchrun)
    PERFCHECK=$1 CHECK=$2 SCRIPT=$3
    need_gpus 2
    need_torch
    timeout -k 10 "$LIMIT" python3 -m torch.distributed.run --standalone --nproc-per-node=2 --no-python \
      "$PERFCHECK" run --mode counters --format json --output "$tmp/t.%q{RANK}.json" -- \
      python3 "$SCRIPT" torchrun > "$tmp/tr.out" 2> "$tmp/tr.err"
    rc=$?
    grep -q '^SKIP' "$tmp/tr.out" && [ $rc != 0 ] && { grep '^SKIP' "$tmp/tr.out" | head -1; exit 77; }
    ran "torchrun --nproc-per-node=2, NCCL all-reduce" $rc || { fails=$((fails + 1)); show "$tmp/tr.out" "$tmp/tr.err"; }
    ls "$tmp"
    "$PERFCHECK" merge --format json --output "$tmp/tm.json" "$tmp/t.0.json" "$tmp/t.1.json" || fails=$((fails + 1))
    python3 "$CHECK" torchrun "$tmp/t.0.json" "$tmp/t.1.json" "$tmp/tm.json" || fails=$((fails + 1))
    ;;
  *)
    echo "test_multigpu.sh: unknown part $part"
    exit 2
    ;;
esac
if [ $fails = 0 ]; then echo "PASS multigpu $part"; exit 0; fi
echo "FAIL multigpu $part: $fails failed"
exit 1
