"""perfcheck: why a CUDA kernel is slow, kernel by kernel, from Python.

A binding of libperfcheck (ctypes over its public C API).  For every kernel
it answers the checklist's five questions (is it the slow part, which
ceiling, is the memory traffic real, are the lanes working, is occupancy the
limit) and gives one verdict with the one change to make.

In process, around PyTorch, Triton or CuPy code::

    import perfcheck
    with perfcheck.region("train_step"):
        loss = model(x).sum(); loss.backward(); opt.step()
    rep = perfcheck.report()
    for k in rep.kernels:
        print(k.label, k.verdict, k.diagnosis.advice)

Offline, on an ``ncu --csv --page raw`` export, with no GPU::

    print(perfcheck.diagnose("app.csv"))

In tests: ``assert report.expect("regex:^gelu:cause!=uncoalesced_global_loads")``
or the pytest fixture ``perfcheck_expect`` (perfcheck.pytest_plugin).

The library is found through PERFCHECK_LIBRARY, next to the package, or on
the loader path (see :class:`LibraryError`).  Values that were not measured
are None, never 0.
"""

from ._errors import ExpectationFailed, ExpectationSpecError, PerfcheckError, Status
from ._expect import ExpectationResult, ExpectResult
from ._lib import LibraryError
from ._report import (Busiest, Cupti, Derived, Device, Diagnosis, Duration, Finding, Kernel, Region, Report, Tool,
                      diagnose, load)
from ._session import SessionStatus, close, configure, region, report, status

__version__ = "0.1.0"

__all__ = [
    "Busiest", "Cupti", "Derived", "Device", "Diagnosis", "Duration", "ExpectResult", "ExpectationFailed",
    "ExpectationResult", "ExpectationSpecError", "Finding", "Kernel", "LibraryError", "PerfcheckError", "Region",
    "Report", "SessionStatus", "Status", "Tool", "causes", "close", "configure", "diagnose", "library", "load",
    "region",
    "report", "status", "__version__",
]

# Public names show as perfcheck.X (tracebacks, reprs, pickles).
for _name in __all__:
    _obj = globals().get(_name)
    if isinstance(_obj, type) or callable(_obj) and getattr(_obj, "__module__", "").startswith("perfcheck._"):
        _obj.__module__ = __name__
del _name, _obj


def library():
    """Where the loaded libperfcheck is and what it is: a dict with ``path``,
    ``found_by`` (PERFCHECK_LIBRARY, next to the package, the loader path)
    and ``version``.  Loads it if needed; raises LibraryError when it cannot
    be found or is not a compatible version."""
    from . import _lib

    lib = _lib.get()
    return {"path": lib.path, "found_by": lib.found_by, "version": lib.version}


def causes():
    """The cause words the loaded library can give in a verdict, in the
    order of its enum (perfcheck_cause_name): "none", "not_the_slow_part",
    ..., "not_assessed", and whatever a newer library added.  Raises
    LibraryError when libperfcheck cannot be loaded."""
    from . import _lib

    lib = _lib.get()
    words = []
    for i in range(1000):
        w = lib.text(lib.cause_name(i))
        if w == "unknown":
            break
        words.append(w)
    return tuple(words)
