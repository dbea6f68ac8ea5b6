"""A small PyTorch workload for tests/gpu/test_inject.sh: a few matmuls and
elementwise operations on the GPU, checked against the CPU.  It knows nothing
of perfcheck; under `perfcheck run` the report must name its kernels.
Exit status 0 when the GPU results match, 1 otherwise; 77 without torch or a
GPU (the test skips then)."""
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
a = torch.randn(512, 512)
b = torch.randn(512, 512)
ga, gb = a.cuda(), b.cuda()
gc = None
for _ in range(3):
    gc = torch.relu(ga @ gb) * 0.5 + 1.0  # a GEMM, then elementwise kernels
gd = torch.sigmoid(gc).sum(dim=1)         # a reduction
torch.cuda.synchronize()
c = torch.relu(a @ b) * 0.5 + 1.0
d = torch.sigmoid(c).sum(dim=1)
ok = torch.allclose(gc.cpu(), c, rtol=1e-3, atol=1e-2) and torch.allclose(gd.cpu(), d, rtol=1e-3, atol=1e-2)
print("torch_script: GPU results %s the CPU's" % ("match" if ok else "DO NOT match"))
sys.exit(0 if ok else 1)
