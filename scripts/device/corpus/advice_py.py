#!/usr/bin/env python3
"""advice_py.py: the advice corpus's pairs whose change is a knob of Triton or
CuPy (kernels/advice/pairs_py.tsv), the way a Python user meets the
occupancy question: Triton's num_warps and num_stages, CuPy RawKernel's
compile options (-maxrregcount).

    advice_py.py --list
    advice_py.py --time [--pair ID,ID]            > time.tsv
    advice_py.py --profile [--variant orig|changed|both] [--pair ID,ID]

--time checks both variants of every pair against a reference, then runs 3
warm-ups and 11 event-timed launches of each variant, the two interleaved,
and prints one TSV row per variant with the same columns as
`build/kernels/advice --time` (scripts/advice_corpus.py reads both).
--profile runs each variant once untimed (Triton and NVRTC compile there),
then once inside the NVTX range advice:<pair>:<variant>, for ncu's
--nvtx-include and `perfcheck run --nvtx`.

Exit status: 0 when every pair ran and checked, 1 when one failed, 77 when
torch, triton, cupy or a GPU is missing.
"""

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(os.path.dirname(os.path.dirname(HERE)), "..", "kernels", "advice", "pairs_py.tsv")
MANIFEST = os.path.normpath(MANIFEST)

try:
    import cupy as cp
    import torch
    import triton
    import triton.language as tl
except Exception as e:  # a missing library is a skip, not a failure
    print("advice_py: skipped: %s" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("advice_py: skipped: torch sees no CUDA device")
    sys.exit(77)

torch.manual_seed(0)
DEV = "cuda"


# ---- Triton kernels (written after Triton's tutorials) ------------------------------------------------------
@triton.jit
def softmax_rows(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


@triton.jit
def rowsum_chunks(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    # one program a row, the row read in chunks of BLOCK
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = GROUP_M * num_n
    gid = pid // group
    first_m = gid * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group) % size_m
    pid_n = (pid % group) // size_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16))


# ---- CuPy RawKernels: a cold path sets the registers (kernels/advice/pairs_occ.cu) -------------------------
COLD = r"""
template <int kLive>
__device__ __forceinline__ float coldPath(float seed, const float* __restrict__ coef) {
  float v[kLive];
  v[0] = seed;
#pragma unroll
  for (int k = 1; k < kLive; ++k) v[k] = fmaf(v[k - 1], coef[k], seed);
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < kLive / 2; ++k) s = fmaf(v[k], v[kLive - 1 - k], s);
  return s;
}
extern "C" __global__ void chase_cold(const unsigned* __restrict__ nodes, unsigned mask, int steps,
                                      unsigned* __restrict__ out, const float* __restrict__ coef, int flag) {
  const unsigned lane = threadIdx.x & 31u;
  const size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) >> 5;
  unsigned j = (unsigned)warp & mask, acc = 0;
  for (int s = 0; s < steps; ++s) {
    const unsigned w = nodes[(size_t)j * 32 + lane];
    acc += w;
    j = __shfl_sync(0xffffffffu, w, 0) & mask;
  }
  if (flag) acc += __float_as_uint(coldPath<80>((float)acc, coef));
  out[warp * 32 + lane] = acc;
}
extern "C" __global__ void fma_cold(const float* __restrict__ in, float* __restrict__ out, size_t n, int iters,
                                    const float* __restrict__ coef, int flag) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i], b = a + 0.5f;
  for (int k = 0; k < iters; ++k) {
    a = fmaf(a, 0.999f, 0.001f);
    b = fmaf(b, 0.998f, 0.002f);
  }
  float y = a + b;
  if (flag) y += coldPath<56>(y, coef);
  out[i] = y;
}
"""


class Pair:
    """One pair: setup() once; run(v) launches variant v (0 orig, 1 changed) asynchronously; check(v) after
    a synchronize returns None or why the output is wrong; attrs(v) the launch's resources."""

    def __init__(self, pid):
        self.id = pid

    def attrs(self, v):
        return {}


class TritonSoftmax(Pair):
    def __init__(self, pid, rows, cols, warps):
        super().__init__(pid)
        self.rows, self.cols, self.warps = rows, cols, warps

    def setup(self):
        self.x = torch.randn(self.rows, self.cols, device=DEV)
        self.out = torch.empty_like(self.x)
        self.ref = torch.softmax(self.x, dim=-1)
        self.k = [None, None]

    def run(self, v):
        self.k[v] = softmax_rows[(self.rows,)](self.out, self.x, self.x.stride(0), self.cols,
                                              BLOCK=triton.next_power_of_2(self.cols), num_warps=self.warps[v])

    def check(self, v):
        err = (self.out - self.ref).abs().max().item()
        return None if err < 1e-6 else "max |out - torch.softmax| = %g" % err

    def attrs(self, v):
        return triton_attrs(self.k[v], 32 * self.warps[v], self.rows)


class TritonRowsum(Pair):
    def __init__(self, pid, rows, cols, block, warps):
        super().__init__(pid)
        self.rows, self.cols, self.block, self.warps = rows, cols, block, warps

    def setup(self):
        self.x = torch.randn(self.rows, self.cols, device=DEV)
        self.out = torch.empty(self.rows, device=DEV)
        self.ref = self.x.double().sum(dim=1)
        self.k = [None, None]

    def run(self, v):
        self.k[v] = rowsum_chunks[(self.rows,)](self.out, self.x, self.x.stride(0), self.cols,
                                               BLOCK=self.block[v], num_warps=self.warps[v])

    def check(self, v):
        err = ((self.out.double() - self.ref).abs() / (self.ref.abs() + 1.0)).max().item()
        return None if err < 1e-4 else "max relative error against a float64 sum = %g" % err

    def attrs(self, v):
        return triton_attrs(self.k[v], 32 * self.warps[v], self.rows)


class TritonMatmul(Pair):
    def __init__(self, pid, n, tile, warps, stages):
        super().__init__(pid)
        self.n, self.tile, self.warps, self.stages = n, tile, warps, stages

    def setup(self):
        n = self.n
        self.a = torch.randn(n, n, device=DEV, dtype=torch.float16)
        self.b = torch.randn(n, n, device=DEV, dtype=torch.float16)
        self.c = torch.empty(n, n, device=DEV, dtype=torch.float16)
        self.ref = (self.a.float() @ self.b.float())
        self.k = [None, None]

    def run(self, v):
        n, (bm, bn, bk) = self.n, self.tile
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        self.k[v] = matmul[grid](self.a, self.b, self.c, n, n, n, self.a.stride(0), self.a.stride(1),
                                 self.b.stride(0), self.b.stride(1), self.c.stride(0), self.c.stride(1),
                                 BM=bm, BN=bn, BK=bk, GROUP_M=8, num_warps=self.warps[v], num_stages=self.stages[v])

    def check(self, v):
        rel = ((self.c.float() - self.ref).norm() / self.ref.norm()).item()
        return None if rel < 2e-3 else "relative error %g against an fp32 product" % rel

    def attrs(self, v):
        bm, bn, _ = self.tile
        return triton_attrs(self.k[v], 32 * self.warps[v], (self.n // bm) * (self.n // bn))


def triton_attrs(k, block, grid):
    out = {"block": block, "grid": grid}
    if k is None:
        return out
    for key, name in (("regs", "n_regs"), ("local_bytes", "n_spills")):
        val = getattr(k, name, None)
        if isinstance(val, int):
            out[key] = val if key == "regs" else val * 4
    sh = getattr(k, "shared", None)
    if sh is None:
        sh = getattr(getattr(k, "metadata", None), "shared", None)
    if isinstance(sh, int):
        out["dyn_smem"] = sh
    return out


class CupyCold(Pair):
    """A CuPy RawKernel compiled twice: with NVRTC's defaults and with --maxrregcount=32."""

    def __init__(self, pid, name):
        super().__init__(pid)
        self.name = name

    def setup(self):
        self.k = [cp.RawKernel(COLD, self.name, options=("-std=c++17",)),
                  cp.RawKernel(COLD, self.name, options=("-std=c++17", "--maxrregcount=32"))]
        self.coef = cp.linspace(0.5, 0.75, 256, dtype=cp.float32)
        if self.name == "chase_cold":
            self.log2, self.steps, self.threads = 20, 24, 2 << 20
            self.nodes = cp.random.RandomState(5).randint(0, 2**31 - 1, size=32 << self.log2, dtype=cp.int64)
            self.nodes = self.nodes.astype(cp.uint32)
            self.out = cp.empty(self.threads, dtype=cp.uint32)
            self.ref = self.chase_ref()
        else:
            self.n, self.iters = 8 << 20, 1024
            self.x = cp.random.RandomState(7).uniform(0.25, 0.75, self.n).astype(cp.float32)
            self.out = cp.empty(self.n, dtype=cp.float32)
            self.ref = self.fma_ref()

    def chase_ref(self):
        mask = (1 << self.log2) - 1
        warps = self.threads // 32
        j = cp.arange(warps, dtype=cp.uint32) & cp.uint32(mask)
        acc = cp.zeros((warps, 32), dtype=cp.uint32)
        nodes = self.nodes.reshape(-1, 32)
        for _ in range(self.steps):
            w = nodes[j]
            acc += w
            j = w[:, 0] & cp.uint32(mask)
        return acc.reshape(-1)

    def fma_ref(self):
        a = self.x.astype(cp.float64)
        b = a + 0.5
        # fmaf in float32 step by step, exactly as the kernel (CuPy's fma kernel would be one ulp off on
        # some inputs: compare within a tolerance instead)
        a32, b32 = self.x.copy(), self.x + cp.float32(0.5)
        for _ in range(self.iters):
            a32 = a32 * cp.float32(0.999) + cp.float32(0.001)
            b32 = b32 * cp.float32(0.998) + cp.float32(0.002)
        del a, b
        return a32 + b32

    def run(self, v):
        k = self.k[v]
        if self.name == "chase_cold":
            k((self.threads // 256,), (256,), (self.nodes, cp.uint32((1 << self.log2) - 1), cp.int32(self.steps),
                                              self.out, self.coef, cp.int32(0)))
        else:
            k(((self.n + 255) // 256,), (256,), (self.x, self.out, cp.uint64(self.n), cp.int32(self.iters),
                                                 self.coef, cp.int32(0)))

    def check(self, v):
        if self.name == "chase_cold":
            bad = int((self.out != self.ref).sum())
            return None if bad == 0 else "%d of %d words differ from the chase recomputed by CuPy" % (bad, self.out.size)
        err = float(cp.abs(self.out - self.ref).max())
        return None if err < 1e-4 else "max |out - ref| = %g" % err

    def attrs(self, v):
        k = self.k[v]
        out = {"block": 256}
        for key, name in (("regs", "num_regs"), ("local_bytes", "local_size_bytes")):
            try:
                out[key] = int(getattr(k, name))
            except Exception:
                pass
        return out


def make(pid):
    if pid == "tri_softmax_warps":
        return TritonSoftmax(pid, 65536, 1024, (1, 4))
    if pid == "tri_rowsum_warps":
        return TritonRowsum(pid, 8192, 8192, (1024, 1024), (1, 8))
    if pid == "tri_matmul_warps":
        return TritonMatmul(pid, 4096, (128, 128, 32), (4, 8), (3, 3))
    if pid == "tri_matmul_stages":
        return TritonMatmul(pid, 4096, (128, 128, 64), (4, 4), (5, 2))
    if pid == "cupy_chase_maxrreg":
        return CupyCold(pid, "chase_cold")
    if pid == "cupy_fma_maxrreg":
        return CupyCold(pid, "fma_cold")
    return None


def read_manifest():
    rows, header = [], None
    with open(MANIFEST, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if header is None:
                header = fields
                continue
            rows.append(dict(zip(header, fields)))
    return rows


def sync():
    torch.cuda.synchronize()
    cp.cuda.Device().synchronize()


def time_pair(p, kind):
    evs = {v: [] for v in (0, 1)}
    for _ in range(3):
        for v in (0, 1):
            p.run(v)
    sync()
    for _ in range(11):
        for v in (0, 1):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            p.run(v)
            b.record()
            b.synchronize()
            evs[v].append(a.elapsed_time(b))
    med = {v: statistics.median(evs[v]) for v in (0, 1)}
    rows = []
    for v, name in ((0, "orig"), (1, "changed")):
        at = p.attrs(v)
        rows.append("\t".join(str(x) for x in (
            p.id, kind, name, "ok", "%.5f" % med[v], "%.5f" % min(evs[v]), "%.5f" % max(evs[v]), len(evs[v]),
            "%.3f" % (med[0] / med[v]), at.get("regs", "-"), at.get("local_bytes", "-"), "-", "-",
            at.get("grid", "-"), at.get("block", "-"), at.get("dyn_smem", "-"), "-")))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--list", action="store_true")
    mode.add_argument("--time", action="store_true")
    mode.add_argument("--profile", action="store_true")
    ap.add_argument("--pair", default="")
    ap.add_argument("--variant", default="orig", choices=("orig", "changed", "both"))
    args = ap.parse_args()
    rows = read_manifest()
    if args.list:
        for r in rows:
            print("\t".join(r.values()))
        return 0
    want = {x for x in args.pair.split(",") if x}
    failed = 0
    if args.time:
        print("# advice_py --time %s" % time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        print("# gpu=%s torch=%s triton=%s cupy=%s" % (torch.cuda.get_device_name(), torch.__version__,
                                                        triton.__version__, cp.__version__))
        print("# warmups=3 runs=11 (variants interleaved, CUDA events; speedup = orig median / this median)")
        print("pair\tkind\tvariant\tstatus\tmedian_ms\tmin_ms\tmax_ms\truns\tspeedup\tregs\tlocal_bytes\t"
              "blocks_per_sm\toccupancy_pct\tgrid\tblock\tdyn_smem\tnote", flush=True)
    variants = {"orig": (0,), "changed": (1,), "both": (0, 1)}[args.variant]
    for r in rows:
        if want and r["id"] not in want:
            continue
        p = make(r["id"])
        if p is None:
            print("advice_py: %s has no implementation" % r["id"], file=sys.stderr)
            failed += 1
            continue
        try:
            p.setup()
            why = None
            for v in (0, 1):
                p.run(v)
                sync()
                why = why or p.check(v)
            if why:
                raise RuntimeError("check failed: " + why)
            if args.time:
                for line in time_pair(p, r["kind"]):
                    print(line, flush=True)
            else:
                for v in variants:
                    name = "advice:%s:%s" % (r["id"], ("orig", "changed")[v])
                    p.run(v)
                    sync()
                    torch.cuda.nvtx.range_push(name)
                    p.run(v)
                    sync()
                    torch.cuda.nvtx.range_pop()
                    print("%s ok" % name, flush=True)
        except Exception as e:  # one pair failing is reported, the run goes on
            failed += 1
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            if args.time:
                print("\t".join((r["id"], r["kind"], "orig", "FAILED: " + msg.replace("\t", " "))), flush=True)
            else:
                print("advice:%s FAILED: %s" % (r["id"], msg), flush=True)
        finally:
            p = None
            torch.cuda.empty_cache()
            cp.get_default_memory_pool().free_all_blocks()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
