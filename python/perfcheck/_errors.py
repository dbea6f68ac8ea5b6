"""Status codes and the exceptions of the package."""

import enum


class Status(enum.IntEnum):
    """perfcheck_status, value for value (perfcheck.h's PERFCHECK_STATUS_LIST;
    tests/python/test_abi.py keeps the two equal)."""

    OK = 0
    ERROR_INVALID_ARGUMENT = 1
    ERROR_OUT_OF_MEMORY = 2
    ERROR_NO_DRIVER = 3
    ERROR_NO_DEVICE = 4
    ERROR_DRIVER_TOO_OLD = 5
    ERROR_CUPTI_UNAVAILABLE = 6
    ERROR_CUPTI_IN_USE = 7
    ERROR_COUNTERS_NOT_PERMITTED = 8
    ERROR_COUNTERS_BUSY = 9
    ERROR_SESSION_EXISTS = 10
    ERROR_NO_REGION = 11
    ERROR_REGION_OPEN = 12
    ERROR_INERT = 13
    ERROR_IO = 14
    ERROR_PARSE = 15
    ERROR_NOT_FOUND = 16
    ERROR_NOT_MEASURED = 17
    ERROR_UNSUPPORTED = 18
    ERROR_KERNEL_FAULT = 19
    ERROR_INTERNAL = 20
    ERROR_EXPECTATION_FAILED = 21


def status_of(code):
    """code as a Status, or the bare int for a value this package does not know
    (a newer library: the enum only grows)."""
    try:
        return Status(code)
    except ValueError:
        return int(code)


class PerfcheckError(Exception):
    """A libperfcheck call failed.

    Attributes: ``status`` (a :class:`Status`), ``reason`` (the library's
    static text for it, perfcheck_strerror) and ``detail`` (what
    perfcheck_last_error_message said: the file and line, the failing call).
    """

    def __init__(self, status, detail="", lib=None, reason=None):
        self.status = status_of(status)
        if reason is None:
            reason = lib.strerror_text(status) if lib is not None else getattr(self.status, "name", str(status))
        self.reason = reason
        self.detail = detail or ""
        text = "perfcheck: %s" % reason
        if self.detail and self.detail != reason:
            text += ": %s" % self.detail
        super().__init__(text)


class ExpectationSpecError(PerfcheckError, ValueError):
    """An expectation string the C engine refuses (malformed, an unknown
    quantity or word): a mistake in the test, not a performance failure.
    The message names the spec and the column, as ``perfcheck check`` does."""


class ExpectationFailed(AssertionError):
    """Raised by :meth:`Report.require` when an expectation does not hold.
    The message is the C engine's: kernel, quantity, measured value, expected
    bound, and the kernel's verdict with its advice.  ``result`` is the
    :class:`ExpectResult`."""

    def __init__(self, result):
        self.result = result
        super().__init__(result.message)
