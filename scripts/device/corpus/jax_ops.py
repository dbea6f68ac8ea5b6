#!/usr/bin/env python3
"""JAX (XLA) kernels for the production corpus, optional:
a jitted elementwise op, a row reduction, a row softmax and a bf16 matmul.
XLA fuses each into its own kernels (loop / input-reduction fusions) and
sends the matmul to cuBLAS or its Triton GEMM emitter.  Each runs once inside
"corpus:jax_ops:<op>" after two warm-ups (the first compiles and autotunes)
outside any range; results are checked against NumPy.

XLA may launch from a thread of its own, and an NVTX push/pop range belongs
to the thread that pushed it, so each op also gets a start/end (process)
range of the same name when the NVTX provider has them (ncu can include
those; perfcheck's regions come from push/pop ranges).  Each run blocks on
its result inside the range.

XLA_PYTHON_CLIENT_PREALLOCATE=false (set here unless already set) keeps JAX
from taking 75% of the GPU up front: ncu saves and restores every
allocation around each replay pass.  Exit 77 with a "skipped:" line when jax
does not import or has no GPU.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_common import Nvtx, Op, Runner, skip_script  # noqa: E402

SCRIPT = "jax_ops"
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
try:
    import jax
    import jax.numpy as jnp
    import numpy as np
except Exception as e:
    skip_script(SCRIPT, "jax does not import: %s" % e)
try:
    GPUS = jax.devices("gpu")
except RuntimeError as e:
    skip_script(SCRIPT, "jax has no GPU backend: %s" % str(e).splitlines()[0])
if not GPUS:
    skip_script(SCRIPT, "jax lists no GPU")

KEY = jax.random.PRNGKey(0)


def within(got, want, scale, rtol, what):
    err = np.abs(np.asarray(got, dtype=np.float64) - np.asarray(want, dtype=np.float64))
    bad = err > rtol * np.asarray(scale, dtype=np.float64)
    if not np.any(bad):
        return None
    i = int(np.argmax(bad))
    return "%s: element %d: got %r, want %r" % (what, i, np.ravel(got)[i], np.ravel(want)[i])


class Case:
    def __init__(self, build):
        self.build, self.ref = build, None

    def setup(self):
        run, self.ref = self.build()
        return run

    def check(self, got):
        why = self.ref(np.asarray(got))
        self.ref = None
        return why


def elementwise():
    x = jax.random.normal(KEY, (8192, 8192), dtype=jnp.float32)
    f = jax.jit(lambda v: v * 2.0 + 1.0)
    xh = np.asarray(x).astype(np.float64)
    return (lambda: f(x).block_until_ready(),
            lambda g: within(g, 2.0 * xh + 1.0, 1.0 + 2.0 * np.abs(xh), 1e-6, "x * 2 + 1"))


def sum_rows():
    x = jax.random.normal(KEY, (8192, 8192), dtype=jnp.float32)
    f = jax.jit(lambda v: jnp.sum(v, axis=1))
    xh = np.asarray(x).astype(np.float64)
    return (lambda: f(x).block_until_ready(),
            lambda g: within(g, xh.sum(axis=1), np.abs(xh).sum(axis=1), 1e-5, "sum(axis=1)"))


def softmax_rows():
    x = jax.random.normal(KEY, (8192, 8192), dtype=jnp.float32)
    f = jax.jit(lambda v: jax.nn.softmax(v, axis=-1))
    xh = np.asarray(x).astype(np.float64)
    e = np.exp(xh - xh.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    return (lambda: f(x).block_until_ready(),
            lambda g: within(g, want, want.max(axis=1, keepdims=True), 1e-4, "softmax"))


def matmul_bf16():
    ka, kb = jax.random.split(KEY)
    a = jax.random.normal(ka, (4096, 4096), dtype=jnp.bfloat16)
    b = jax.random.normal(kb, (4096, 4096), dtype=jnp.bfloat16)
    f = jax.jit(lambda p, q: p @ q)
    ah, bh = np.asarray(a.astype(jnp.float32)).astype(np.float64), np.asarray(b.astype(jnp.float32)).astype(np.float64)
    pick = np.random.default_rng(1).integers(0, 4096, size=(256, 2))

    def ref(g):
        g = g.astype(np.float64)
        want = np.array([ah[i] @ bh[:, j] for i, j in pick])
        scale = np.array([np.abs(ah[i]) @ np.abs(bh[:, j]) for i, j in pick])
        return within(g[pick[:, 0], pick[:, 1]], want, scale, 1e-2, "matmul (256 sampled entries, bf16 output)")

    return lambda: f(a, b).block_until_ready(), ref


def make(name, what, expect, build):
    c = Case(build)
    return Op(name, what, expect, c.setup, c.check)


OPS = [
    make("elementwise", "jit(x * 2 + 1), fp32 8192x8192", "XLA loop fusion kernel (e.g. loop_multiply_fusion / fusion)", elementwise),
    make("sum_rows", "jit(jnp.sum(axis=1)), fp32 8192x8192", "XLA input reduction fusion (e.g. input_reduce_fusion)", sum_rows),
    make("softmax", "jit(jax.nn.softmax(axis=-1)), fp32 8192x8192", "XLA reduction fusions (max, exp-sum, divide)", softmax_rows),
    make("matmul_bf16", "jit(a @ b), bf16 4096^3", "cuBLAS(Lt) nvjet GEMM or an XLA Triton GEMM fusion", matmul_bf16),
]


def main():
    nvtx = Nvtx(["nvtx_module", "ctypes"])
    if nvtx.push is None:
        skip_script(SCRIPT, "no NVTX provider (%s)" % nvtx.why)
    print("corpus:%s jax %s, %s" % (SCRIPT, jax.__version__, GPUS[0].device_kind), flush=True)
    return Runner(SCRIPT, lambda: None, nvtx, process_range=True).run(OPS)


if __name__ == "__main__":
    sys.exit(main())
