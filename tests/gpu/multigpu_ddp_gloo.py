"""A PyTorch DDP training loop on the CPU with the gloo backend
(test_multigpu.sh part ddp_gloo), one rank of two: RANK, WORLD_SIZE,
LOCAL_RANK, MASTER_ADDR and MASTER_PORT come from the test, as a launcher
sets them.  The ranks' gradients are all-reduced by gloo and the models
must stay equal.  perfcheck writes a report only for a process that uses
CUDA, so the loss is also copied through cuda:0 once (a kernel in the NVTX
range "cuda_touch", pushed after CUDA started).  Exit 77 without torch or a CUDA device."""
import os
import sys

try:
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel as DDP
except ImportError as e:
    print("SKIP: no torch (%s)" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: torch sees no CUDA device (perfcheck reports only on processes that use CUDA)")
    sys.exit(77)

rank = int(os.environ["RANK"])
world = int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", rank=rank, world_size=world)
torch.manual_seed(0)
model = DDP(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
gen = torch.Generator().manual_seed(rank)
for step in range(5):
    x = torch.randn(16, 32, generator=gen)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# CUDA first, then the range: perfcheck's session starts with the process's
# first CUDA call, and a range pushed before it is not a region (docs/run.md).
torch.zeros(1, device="cuda")
torch.cuda.synchronize()
torch.cuda.nvtx.range_push("cuda_touch")
on_gpu = (loss.detach().cuda() * 2).sum().item()
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()

# The models stay equal across ranks (DDP's all-reduce over gloo).
w = torch.cat([p.detach().flatten() for p in model.parameters()])
ws = [torch.zeros_like(w) for _ in range(world)]
dist.all_gather(ws, w)
dist.barrier()
dist.destroy_process_group()
if not all(torch.allclose(ws[0], v, rtol=0, atol=1e-6) for v in ws):
    print("multigpu_ddp_gloo.py: rank %d: the ranks' models differ" % rank, file=sys.stderr)
    sys.exit(1)
print("multigpu_ddp_gloo.py: rank %d of %d: 5 DDP steps over gloo, loss %.4f (%.4f on cuda)" % (rank, world, loss.item(), on_gpu))
