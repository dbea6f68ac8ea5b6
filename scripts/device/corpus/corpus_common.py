"""Shared plumbing of the corpus scripts (torch_ops.py, triton_ops.py,
cupy_ops.py, jax_ops.py): NVTX ranges from whatever the process offers, and
the run order every script follows.

Run order, per op (so that ncu --nvtx-include and perfcheck's NVTX regions
see exactly one execution of each op, and nothing else):
  1. setup()      allocate inputs, build the op; outside any NVTX range
  2. run() twice  warm-up (JIT compilation, cuBLAS/cuDNN heuristics, plan
                  caches), outside any NVTX range; synchronize
  3. push "corpus:<script>:<op>", run() once, synchronize, pop
  4. check(result) where the op has an independent reference
  5. drop the op's tensors and return cached memory (ncu saves and restores
     every allocation before each replay pass: a small footprint keeps that
     cheap)
One line per op: its range name, ok / MISMATCH / FAILED / skipped: <why>,
the host wall time of the ranged run (with its synchronize), and what the op
is and which library kernel it is expected to call.

Environment:
  CORPUS_DEADLINE_S  stop starting new ops after this many seconds since the
                     script started (each remaining op prints "skipped:
                     deadline"), so an outer timeout never cuts a profile short
  CORPUS_ONLY        comma-separated op names: run only those
Exit status: 0 when every op ran (or was skipped with a reason), 1 when one
failed or mismatched, 77 when the library or a GPU is missing.
"""

import ctypes
import glob
import os
import sys
import time

SKIP = 77
_T0 = time.monotonic()


def log(msg):
    print(msg, flush=True)


def skip_script(script, why):
    """The whole script cannot run here (no library, no GPU)."""
    log("corpus:%s skipped: %s" % (script, why))
    sys.exit(SKIP)


# ---- NVTX -------------------------------------------------------------------------------


class Nvtx:
    """Push/pop (thread) ranges and start/end (process) ranges in NVTX's
    default domain, through the first provider that works.  `provider` names
    it; `push` / `pop` are None when none works.  Every provider here goes
    through NVTX's injection (NVTX_INJECTION64_PATH), which is how both ncu
    and `perfcheck run` receive the ranges."""

    def __init__(self, order):
        self.provider = None
        self.push = self.pop = self.start = self.end = None
        self.why = ""
        tried = []
        for name in order:
            try:
                if getattr(self, "_try_" + name)():
                    self.provider = self.provider or name
                    return
                tried.append(name + ": not usable")
            except Exception as e:  # an optional provider failing is a reason, not an error
                tried.append("%s: %s" % (name, e))
        self.why = "; ".join(tried)

    # the `nvtx` package (NVIDIA's Python bindings over the NVTX3 C API)
    def _try_nvtx_module(self):
        import nvtx  # noqa: F401  (optional)

        self.push = lambda msg: nvtx.push_range(message=msg)
        self.pop = nvtx.pop_range
        self.start = lambda msg: nvtx.start_range(message=msg)
        self.end = nvtx.end_range
        self.provider = "nvtx module %s" % getattr(nvtx, "__version__", "")
        return True

    def _try_torch(self):
        import torch  # noqa: F401  (optional)

        if not hasattr(torch.cuda, "nvtx"):
            return False
        self.push = torch.cuda.nvtx.range_push
        self.pop = torch.cuda.nvtx.range_pop
        if hasattr(torch.cuda.nvtx, "range_start"):
            self.start = torch.cuda.nvtx.range_start
            self.end = torch.cuda.nvtx.range_end
        self.provider = "torch.cuda.nvtx"
        return True

    def _try_cupy(self):
        from cupy.cuda import nvtx  # optional; absent when CuPy was built without NVTX

        if hasattr(nvtx, "available") and not nvtx.available:
            return False
        self.push = nvtx.RangePush
        self.pop = nvtx.RangePop
        self.provider = "cupy.cuda.nvtx"
        return True

    def _try_ctypes(self):
        """A shared library exporting the NVTX C API: libnvtx3interop (CUDA
        13's exported NVTX3), or the older libnvToolsExt, from the loader's
        path, the CUDA toolkit, or the nvidia-* wheels of this Python."""
        names = ["libnvtx3interop.so.1", "libnvtx3interop.so", "libnvToolsExt.so.1", "libnvToolsExt.so"]
        dirs = [""]
        for base in ("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"):
            dirs.append(base + "/")
        for sp in sys.path:
            dirs += [d + "/" for d in glob.glob(os.path.join(sp, "nvidia", "*", "lib"))]
        for d in dirs:
            for n in names:
                try:
                    lib = ctypes.CDLL(d + n)
                except OSError:
                    continue
                if not (hasattr(lib, "nvtxRangePushA") and hasattr(lib, "nvtxRangePop")):
                    continue
                lib.nvtxRangePushA.argtypes = [ctypes.c_char_p]
                lib.nvtxRangePushA.restype = ctypes.c_int
                lib.nvtxRangePop.restype = ctypes.c_int
                self.push = lambda msg, f=lib.nvtxRangePushA: f(msg.encode())
                self.pop = lib.nvtxRangePop
                if hasattr(lib, "nvtxRangeStartA") and hasattr(lib, "nvtxRangeEnd"):
                    lib.nvtxRangeStartA.argtypes = [ctypes.c_char_p]
                    lib.nvtxRangeStartA.restype = ctypes.c_uint64
                    lib.nvtxRangeEnd.argtypes = [ctypes.c_uint64]
                    self.start = lambda msg, f=lib.nvtxRangeStartA: f(msg.encode())
                    self.end = lib.nvtxRangeEnd
                self.provider = "ctypes " + (d + n)
                return True
        return False


# ---- the run ----------------------------------------------------------------------------


class Op:
    """One corpus op.  setup() returns run, a callable doing the op once and
    returning its result; check(result) returns None when the result is
    right, else a sentence saying how it is wrong (only where the op has an
    independent reference)."""

    def __init__(self, name, what, expect, setup, check=None):
        self.name, self.what, self.expect, self.setup, self.check = name, what, expect, setup, check


class Skip(Exception):
    """Raised by a setup that cannot run here (a backend missing), with why."""


class Runner:
    def __init__(self, script, sync, nvtx, free=None, process_range=False):
        self.script, self.sync, self.nvtx, self.free = script, sync, nvtx, free
        self.process_range = process_range and nvtx.start is not None
        self.failed = 0
        self.deadline = float(os.environ.get("CORPUS_DEADLINE_S", "0") or 0)
        only = os.environ.get("CORPUS_ONLY", "")
        self.only = {x.strip() for x in only.split(",") if x.strip()}

    def range_name(self, op):
        return "corpus:%s:%s" % (self.script, op.name)

    def run(self, ops):
        log("corpus:%s NVTX through %s%s" % (
            self.script, self.nvtx.provider, " (also a start/end range per op)" if self.process_range else ""))
        for op in ops:
            if self.only and op.name not in self.only:
                continue
            name = self.range_name(op)
            elapsed = time.monotonic() - _T0
            if self.deadline and elapsed > self.deadline:
                self._line(name, "skipped: deadline (%.0f s of %.0f s used)" % (elapsed, self.deadline), None, op)
                continue
            self._one(op, name)
        return 1 if self.failed else 0

    def _line(self, name, status, ms, op):
        t = "%9.3f ms" % ms if ms is not None else "%12s" % "-"
        log("%-44s %-10s %s  %s -> %s" % (name, status, t, op.what, op.expect))

    def _one(self, op, name):
        run = result = None
        try:
            try:
                run = op.setup()
                for _ in range(2):
                    run()
                self.sync()
            except Skip as e:
                self._line(name, "skipped: %s" % e, None, op)
                return
            handle = None
            self.nvtx.push(name)
            if self.process_range:
                handle = self.nvtx.start(name)
            t0 = time.perf_counter()
            try:
                result = run()
                self.sync()
            finally:
                ms = (time.perf_counter() - t0) * 1e3
                if handle is not None:
                    self.nvtx.end(handle)
                self.nvtx.pop()
            why = op.check(result) if op.check else None
            if why:
                self.failed += 1
                self._line(name, "MISMATCH", ms, op)
                log("    %s" % why)
            else:
                self._line(name, "ok", ms, op)
        except Exception as e:
            self.failed += 1
            self._line(name, "FAILED", None, op)
            log("    %s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
        finally:
            del run, result
            if self.free:
                self.free()
