"""One training step of a small MLP in PyTorch, inside an NVTX range, for the
recorded snapshots (scripts/device/bench snapshots):

    PERFCHECK_SNAPSHOT_DIR=DIR perfcheck run --mode counters -- python3 torch_train_step.py

It knows nothing of perfcheck.  Three warm-up steps run first, outside the
range, so that cuBLAS, the caching allocator and the autograd engine are set
up; then one step (forward, loss, backward, optimizer step) runs in the NVTX
range "train_step" (torch.cuda.nvtx.range_push/range_pop, the default
domain).  The model is small on purpose (batch 64, 512 -> 256 -> 256 -> 10):
each kernel runs microseconds while Python and the framework spend far
longer between launches, so the step is host-bound.  Exit 0 when the loss
went down over the steps, 1 otherwise, 77 without torch or a GPU."""
import sys

try:
    import torch
except ImportError:
    print("SKIP: python3 cannot import torch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: torch sees no GPU")
    sys.exit(77)

torch.manual_seed(0)
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.Linear(512, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 256), torch.nn.ReLU(),
    torch.nn.Linear(256, 10),
).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
x = torch.randn(64, 512, device=dev)
y = torch.randint(0, 10, (64,), device=dev)
loss_fn = torch.nn.CrossEntropyLoss()


def step():
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


first = step().item()
for _ in range(2):
    step()
torch.cuda.synchronize()

torch.cuda.nvtx.range_push("train_step")
loss = step()
torch.cuda.synchronize()
torch.cuda.nvtx.range_pop()

last = loss.item()
print("torch_train_step: loss %.4f -> %.4f" % (first, last))
sys.exit(0 if last < first else 1)
