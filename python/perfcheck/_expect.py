"""Expectations: the C library's engine (perfcheck_expectations_*), results
as Python objects.  Nothing is parsed or compared here: a spec means what it
means to ``perfcheck check``, and changes to that vocabulary reach Python
with the library."""

import ctypes
import math
from dataclasses import dataclass
from typing import List, Optional

from ._errors import ExpectationSpecError, PerfcheckError, Status, status_of
from ._lib import ExpectationResultC


@dataclass(frozen=True)
class ExpectationResult:
    """One expectation checked against one kernel entry (or against none,
    when no kernel matched).

    ``status`` is Status.OK (holds), ERROR_EXPECTATION_FAILED (measured and
    outside the bound), ERROR_NOT_FOUND (no such kernel, or a metric this
    kernel lacks) or ERROR_NOT_MEASURED.  A misspelt quantity is never a
    result: :meth:`Report.expect` raises ValueError
    (:class:`ExpectationSpecError`) naming the nearest quantities.  ``measured`` is the value (None when not measured,
    and for words, which are in ``measured_word``); ``expected`` the bound
    as the engine states it ("<= 4.5", "within 10% of 1200000"); ``message``
    one line with the kernel's verdict and advice; ``advice`` the verdict's
    advice alone."""

    spec: str
    kernel: str
    quantity: str
    status: object
    measured: Optional[float]
    measured_word: Optional[str]
    expected: str
    message: str
    advice: str

    @property
    def passed(self):
        """True when the expectation holds for this entry (status OK)."""
        return self.status == Status.OK


class ExpectResult:
    """The results of :meth:`Report.expect`: true when every expectation
    holds.  ``results`` (one per expectation and matching kernel entry),
    ``failures`` (the failed ones), ``message`` (the failures' messages, one
    a line; "" when all hold).  ``repr()`` carries the messages, so a bare
    ``assert report.expect(...)`` in pytest shows them."""

    def __init__(self, results, message):
        self.results: List[ExpectationResult] = results
        self.failures: List[ExpectationResult] = [r for r in results if not r.passed]
        self.message: str = message
        self.passed: bool = bool(results) and not self.failures

    def __bool__(self):
        return self.passed

    def __iter__(self):
        return iter(self.results)

    def __len__(self):
        return len(self.results)

    def __str__(self):
        if self.passed:
            return "all %d expectation result(s) hold" % len(self.results)
        return self.message

    def __repr__(self):
        if self.passed:
            return "<ExpectResult: %d held>" % len(self.results)
        return "<ExpectResult: %d of %d failed:\n%s>" % (len(self.failures), len(self.results), self.message)


def _text(b):
    return None if b is None else b.decode("utf-8", "replace")


def check(lib, handle, specs):
    """Checks every spec against the C report ``handle``."""
    if len(specs) == 1 and isinstance(specs[0], (list, tuple)):
        specs = tuple(specs[0])
    if not specs:
        raise ValueError("expect() needs at least one expectation")
    for s in specs:
        if not isinstance(s, str):
            raise TypeError("an expectation is a string such as 'mysteryA:sectors_per_request_ld<=4.5', not %r"
                            % (s,))
        if "\0" in s:
            raise ExpectationSpecError(Status.ERROR_PARSE, "expectation %r: a NUL character" % s, lib)
    exps = ctypes.c_void_p()
    st = lib.expectations_create(ctypes.byref(exps))
    if st != Status.OK:
        raise PerfcheckError(st, lib.last_error(), lib)
    try:
        for s in specs:
            st = lib.expectations_add(exps, s.encode("utf-8"))
            if st == Status.ERROR_PARSE or st == Status.ERROR_INVALID_ARGUMENT:
                raise ExpectationSpecError(st, lib.last_error(), lib)
            if st != Status.OK:
                raise PerfcheckError(st, lib.last_error(), lib)
        failures = ctypes.c_size_t()
        st = lib.expectations_check(exps, handle, ctypes.byref(failures))
        if st not in (Status.OK, Status.ERROR_EXPECTATION_FAILED):
            raise PerfcheckError(st, lib.last_error(), lib)
        results = []
        for i in range(lib.expectations_result_count(exps)):
            r = ExpectationResultC()
            r.size = ctypes.sizeof(r)
            st = lib.expectations_result(exps, i, ctypes.byref(r))
            if st != Status.OK:
                raise PerfcheckError(st, lib.last_error(), lib)
            results.append(ExpectationResult(
                spec=_text(r.spec) or "", kernel=_text(r.kernel) or "", quantity=_text(r.quantity) or "",
                status=status_of(r.status), measured=None if math.isnan(r.measured) else r.measured,
                measured_word=_text(r.measured_word), expected=_text(r.expected) or "",
                message=_text(r.message) or "", advice=_text(r.advice) or ""))
        message = _text(lib.expectations_failures_text(exps)) or ""
    finally:
        lib.expectations_destroy(exps)
    # A quantity no kernel of the report has is a mistake in the
    # expectation, not a failed check: the engine marks it
    # ERROR_INVALID_ARGUMENT (its message names the nearest quantities), as
    # `perfcheck check` exits 2 on it.
    typos = [r for r in results if r.status == Status.ERROR_INVALID_ARGUMENT]
    if typos:
        raise ExpectationSpecError(Status.ERROR_INVALID_ARGUMENT,
                                   "expectation %r: unknown quantity: %s" % (typos[0].spec, typos[0].message), lib)
    return ExpectResult(results, message)
