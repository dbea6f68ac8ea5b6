"""Shared fixtures of the Python package's tests (run by ctest: see
python_tests.cmake, which sets the PERFCHECK_* variables read here).

A variable or fixture file that is missing fails the test that needs it;
it never skips it."""

import json
import os
import subprocess
import sys

import pytest

import perfcheck

pytest_plugins = ["perfcheck.pytest_plugin", "pytester"]


def pytest_addoption(parser):
    parser.addoption("--skip-exit-77", action="store_true",
                     help="exit 77 (ctest's 'skipped') when every test was skipped")


def pytest_sessionfinish(session, exitstatus):
    # 0: all ran (some may have skipped); 5: nothing collected (a module-level skip)
    if not session.config.getoption("--skip-exit-77") or exitstatus not in (0, 5):
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter is not None else {}
    if stats.get("skipped") and not any(stats.get(k) for k in ("passed", "failed", "error", "xfailed", "xpassed")):
        session.exitstatus = 77


def need_env(name):
    value = os.environ.get(name)
    if not value:
        pytest.fail("%s is not set: run the Python tests through ctest (tests/python/python_tests.cmake sets it)"
                    % name, pytrace=False)
    return value


@pytest.fixture(scope="session")
def data_dir():
    d = need_env("PERFCHECK_TEST_DATA")
    assert os.path.isdir(d), "PERFCHECK_TEST_DATA=%s is not a folder" % d
    return d


@pytest.fixture(scope="session")
def source_dir():
    d = need_env("PERFCHECK_SOURCE_DIR")
    assert os.path.isfile(os.path.join(d, "include", "perfcheck.h")), d
    return d


@pytest.fixture(scope="session")
def mystery_csv(data_dir):
    path = os.path.join(data_dir, "h200", "mystery.csv")
    assert os.path.isfile(path), "fixture missing: %s" % path
    return path


@pytest.fixture(scope="session")
def mystery(mystery_csv):
    """The seed's mystery program on the H200, diagnosed offline."""
    return perfcheck.diagnose(mystery_csv, quiet=True)


@pytest.fixture(scope="session")
def mystery_json(mystery):
    return json.loads(mystery.to_json())


def seed(report):
    """The four entries of the seed's mystery program, by name and dynamic
    shared memory (the writer orders kernels by time, not by launch):
    mysteryA, mysteryB, mysteryC with 116736 B, mysteryC with 0 B."""
    def one(name, smem=None):
        found = [k for k in report.kernels if k.name == name and (smem is None or k.dynamic_smem_bytes == smem)]
        assert len(found) == 1, "%s (%s B): %d entries" % (name, smem, len(found))
        return found[0]
    return one("mysteryA"), one("mysteryB"), one("mysteryC", 116736), one("mysteryC", 0)


def run_python(code, env=None, timeout=120, cwd=None, unset=()):
    """Runs `python -c code` in a fresh interpreter (the session and the
    library lookup are per process); returns the CompletedProcess."""
    e = dict(os.environ)
    for k in unset:
        e.pop(k, None)
    if env:
        e.update(env)
    return subprocess.run([sys.executable, "-c", code], env=e, cwd=cwd, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


@pytest.fixture
def py():
    return run_python
