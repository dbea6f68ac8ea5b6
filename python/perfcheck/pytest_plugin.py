"""pytest plugin: performance expectations as test failures.

Installed with the package (entry point ``pytest11``), or named in a
conftest.py: ``pytest_plugins = ["perfcheck.pytest_plugin"]``.

Fixture ``perfcheck_expect``: ``perfcheck_expect(report, *specs)`` checks
the specs against a :class:`perfcheck.Report` with the C library's engine
and, when one does not hold, fails the test with the engine's messages
(kernel, quantity, measured value, expected bound, and the kernel's verdict
and advice), without a Python traceback.  Returns the ExpectResult when all
hold.  A malformed spec is an error of the test (ExpectationSpecError), not
a failure.

The header of the run names the libperfcheck in use (or why none loads).
"""

import pytest

import perfcheck


@pytest.fixture
def perfcheck_expect():
    """``perfcheck_expect(report, *specs)``: fail the test, with the engine's
    messages, unless every expectation holds."""

    def check(report, *specs):
        result = report.expect(*specs)
        if not result:
            pytest.fail("perfcheck expectation failed:\n" + result.message, pytrace=False)
        return result

    return check


def pytest_report_header(config):
    try:
        info = perfcheck.library()
    except perfcheck.LibraryError as e:
        return "perfcheck %s: libperfcheck not loaded (%s)" % (perfcheck.__version__, str(e).splitlines()[0])
    return "perfcheck %s: libperfcheck %s at %s (found by %s)" % (
        perfcheck.__version__, info["version"], info["path"], info["found_by"])
