"""perfcheck in a PyTorch process, on the device (label gpu; skipped, with the
reason, without torch or a GPU).  Each case runs in a fresh interpreter that
imports torch first, so torch has loaded its own CUPTI (the nvidia-cuda-cupti
wheel) before perfcheck starts: the report names the one used.

  - region verdicts from in-process counters for an MLP training step, with
    nested regions and an exception inside one;
  - a DataLoader with forked workers that use regions: no crash, no hang;
  - torch.profiler active: counters, or one clear message and the script
    runs on, and torch's profile is intact.
The JSON each script prints is echoed, so the device log shows the figures.
"""

import json

import pytest

torch = pytest.importorskip("torch", reason="python3 cannot import torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no GPU", allow_module_level=True)

import perfcheck  # noqa: E402
from perfcheck import Status  # noqa: E402

CAUSES = set(perfcheck.causes()) - {"none"}

MLP = r'''
import json, sys, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 512)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device="cuda"); y = torch.randn(256, 512, device="cuda")
def step():
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward(); opt.step()
    return loss
step(); torch.cuda.synchronize()
'''


def run(py, code):
    p = py(code, timeout=300)
    print(p.stdout)
    print(p.stderr)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_region_verdicts(py):
    out = run(py, MLP + r'''
import perfcheck
class Boom(Exception): pass
for _ in range(3):
    with perfcheck.region("train_step"):
        step()
caught = False
try:
    with perfcheck.region("outer"):
        with perfcheck.region("inner"):
            step()
            raise Boom()
except Boom:
    caught = True
with perfcheck.region("after_exception"):
    step()
torch.cuda.synchronize()
s = perfcheck.status()
r = perfcheck.report()
ks = [k for k in r.kernels if k.region == "train_step"]
print(json.dumps({
    "active": s.active, "message": s.message, "caught": caught,
    "cupti": None if r.tool.cupti is None else [r.tool.cupti.path, r.tool.cupti.version],
    "regions": [[g.name, g.parent, g.kernel_share, g.diagnosis.cause if g.diagnosis else None] for g in r.regions],
    "kernels": [[k.label, k.launches, k.profiled_launches, k.diagnosis.step, k.diagnosis.cause,
                 k.derived.sectors_per_request_ld, k.derived.threads_per_instruction,
                 k.metrics.get("gpu__time_duration.sum")] for k in ks],
    "text_ok": "Verdicts" in str(r),
    "expect": r.expect("regex:.:step>=0").passed,
}))
''')
    assert out["active"], out["message"]
    assert out["caught"]
    names = [g[0] for g in out["regions"]]
    assert names.count("train_step") == 3
    assert {"outer", "inner", "after_exception"} <= set(names)
    assert [g[1] for g in out["regions"] if g[0] == "inner"] == ["outer"]
    for g in out["regions"]:
        assert g[2] is None or 0 <= g[2] <= 1.5
    kernels = out["kernels"]
    assert len({k[0] for k in kernels}) >= 3  # GEMMs, GELU, the loss, SGD
    for k in kernels:
        assert k[4] in CAUSES and 0 <= k[3] <= 5
    profiled = [k for k in kernels if k[2]]
    if "timing only" in out["message"] or "counters" in out["message"] and "unavailable" in out["message"]:
        pytest.xfail("counters refused on this machine: %s" % out["message"])
    assert profiled, "no kernel got counters: %s" % out["message"]
    assert any(k[5] is not None for k in profiled) and any(k[6] is not None for k in profiled)
    assert out["text_ok"] and out["expect"]


def test_forked_dataloader_workers(py):
    out = run(py, MLP + r'''
import perfcheck, torch.utils.data as tud
class DS(tud.Dataset):
    def __len__(self): return 64
    def __getitem__(self, i):
        with perfcheck.region("worker_item"):   # in a forked worker: runs, unprofiled
            return torch.full((4,), float(i))
with perfcheck.region("epoch"):
    step()
    loader = tud.DataLoader(DS(), batch_size=8, num_workers=2, multiprocessing_context="fork")
    total = sum(float(b.sum()) for b in loader)
    step()
torch.cuda.synchronize()
r = perfcheck.report()
print(json.dumps({"total": total, "active": perfcheck.status().active,
                  "regions": [g.name for g in r.regions]}))
''')
    assert out["total"] == 4 * sum(range(64))
    assert out["active"]
    assert out["regions"] == ["epoch"]  # the workers' regions stay in the workers


def test_torch_profiler_active(py):
    out = run(py, MLP + r'''
import perfcheck
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    with perfcheck.region("under_profiler"):
        step()
    torch.cuda.synchronize()
s = perfcheck.status()
events = [e.key for e in prof.key_averages()]
rep = None
if s.active:
    rep = [g.name for g in perfcheck.report().regions]
print(json.dumps({"active": s.active, "status": None if s.status is None else int(s.status),
                  "reason": s.reason, "message": s.message, "events": len(events), "regions": rep}))
''')
    assert out["events"] > 0  # torch's own profile is intact
    if out["active"]:
        assert out["regions"] == ["under_profiler"]
    else:
        assert out["status"] == Status.ERROR_CUPTI_IN_USE, out
        assert "CUPTI" in out["message"] or "CUPTI" in out["reason"]
