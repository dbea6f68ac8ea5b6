"""A training loop of a small MLP compiled with torch.compile(mode="reduce-overhead"),
whose forward and backward run as CUDA graphs (Inductor's cudagraph trees),
for the counters of CUDA graph launches (scripts/device/bench graphs):

    perfcheck run --mode counters --format json --output R.json -- python3 torch_compile_graphs.py

It knows nothing of perfcheck.  After Inductor's warm-up and recording runs,
each step replays the graphs with cudaGraphLaunch, so STEPS (default 40)
steps launch each graph more often than perfcheck's default set has one-pass
groups (5 on GH100): every group of every graph can be collected.  The
optimizer step runs eagerly, outside the graphs (ordinary launches: kernel
replay in perfcheck's default mode).  Checks its own results: the compiled
model's output equals the eager model's (same weights, TF32 off) and the loss
went down.  Exit 0 when both hold, 1 otherwise, 77 without torch, a GPU or
a compiler for Inductor's kernels."""
import os
import sys
import time

try:
    import torch
except ImportError:
    print("SKIP: python3 cannot import torch")
    sys.exit(77)
if not torch.cuda.is_available():
    print("SKIP: torch sees no GPU")
    sys.exit(77)

steps = int(os.environ.get("STEPS", "40"))
torch.manual_seed(0)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 1024), torch.nn.GELU(),
    torch.nn.Linear(1024, 1024), torch.nn.GELU(),
    torch.nn.Linear(1024, 10),
).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.02)
x = torch.randn(256, 1024, device=dev)
y = torch.randint(0, 10, (256,), device=dev)
loss_fn = torch.nn.CrossEntropyLoss()

try:
    compiled = torch.compile(model, mode="reduce-overhead")
except Exception as e:  # noqa: BLE001 - no Inductor here: nothing to test
    print("SKIP: torch.compile is unavailable: %s" % e)
    sys.exit(77)


def step():
    torch.compiler.cudagraph_mark_step_begin()
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(compiled(x), y)
    loss.backward()
    opt.step()
    return loss.detach().clone()


t0 = time.time()
try:
    first = step().item()
except Exception as e:  # noqa: BLE001 - e.g. no C compiler for Triton's launcher
    print("SKIP: the compiled step failed before any graph ran: %s: %s" % (type(e).__name__, e))
    sys.exit(77)
for _ in range(steps - 1):
    last_t = step()
torch.cuda.synchronize()
last = last_t.item()
t1 = time.time()

# The compiled forward against the eager one, with the same weights.
with torch.no_grad():
    torch.compiler.cudagraph_mark_step_begin()
    got = compiled(x).clone()
    want = model(x)
err = (got - want).abs().max().item()
scale = want.abs().max().item()
ok_out = err <= 1e-4 * max(scale, 1.0)
print("torch_compile_graphs: %d steps in %.1f s (compile included), loss %.4f -> %.4f, compiled vs eager max "
      "abs diff %.3g (scale %.3g)" % (steps, t1 - t0, first, last, err, scale))
sys.exit(0 if ok_out and last < first else 1)
