"""NCCL all-reduce under perfcheck (test_multigpu.sh parts nccl and
torchrun).  Exit 77 without torch, CUDA or NCCL.

  multigpu_nccl.py single    one rank (RANK=0, WORLD_SIZE=1, MASTER_ADDR and
                             MASTER_PORT set by the test) on cuda:0: an avg
                             all-reduce (NCCL runs its oneRankReduce kernel;
                             a one-rank sum is a copy or nothing) and a sum
  multigpu_nccl.py torchrun  a rank of `torch.distributed.run
                             --nproc-per-node=2`: cuda:LOCAL_RANK, sum
                             all-reduces of 4M floats, checked

The collectives run inside the NVTX range "allreduce" (a perfcheck region),
next to a matmul (compute) in "compute".  Multicast stays off (NCCL_NVLS_ENABLE=0,
TORCH_SYMM_MEM_DISABLE_MULTICAST=1, NVSHMEM_DISABLE_NVLS=1: the test sets them;
this script refuses to run without them)."""
import os
import sys

for var, want in (("NCCL_NVLS_ENABLE", "0"), ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"), ("NVSHMEM_DISABLE_NVLS", "1")):
    if os.environ.get(var) != want:
        print("multigpu_nccl.py: %s must be %s (multicast stays off)" % (var, want), file=sys.stderr)
        sys.exit(2)

try:
    import torch
    import torch.distributed as dist
except ImportError as e:
    print("SKIP: no torch (%s)" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: torch sees no CUDA device")
    sys.exit(77)
if not dist.is_nccl_available():
    print("SKIP: this torch has no NCCL")
    sys.exit(77)

mode = sys.argv[1] if len(sys.argv) > 1 else "single"
rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
local = int(os.environ.get("LOCAL_RANK", "0"))
if torch.cuda.device_count() <= local:
    print("SKIP: %d CUDA device(s), local rank %d" % (torch.cuda.device_count(), local))
    sys.exit(77)
dev = torch.device("cuda", local)
torch.cuda.set_device(dev)
import inspect  # noqa: E402

kw = {"device_id": dev} if "device_id" in inspect.signature(dist.init_process_group).parameters else {}
dist.init_process_group("nccl", rank=rank, world_size=world, **kw)

a = torch.randn(1024, 1024, device=dev)
torch.cuda.nvtx.range_push("compute")
for _ in range(3):
    a = torch.tanh(a @ a) * 0.5
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()

x = torch.full((1 << 22,), float(rank + 1), device=dev)
torch.cuda.nvtx.range_push("allreduce")
for _ in range(5):
    if mode == "single":
        y = x.clone()
        dist.all_reduce(y, op=dist.ReduceOp.AVG)
        dist.all_reduce(y, op=dist.ReduceOp.SUM)
    else:
        y = x.clone()
        dist.all_reduce(y, op=dist.ReduceOp.SUM)
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()

want = 1.0 if mode == "single" else float(sum(range(1, world + 1)))
got = y[-1].item()
dist.barrier()
dist.destroy_process_group()
if got != want:
    print("multigpu_nccl.py: rank %d: all-reduce gave %g, want %g" % (rank, got, want), file=sys.stderr)
    sys.exit(1)
print("multigpu_nccl.py: rank %d of %d (%s): all-reduce ok" % (rank, world, mode))
