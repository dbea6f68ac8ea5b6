"""Finding libperfcheck: PERFCHECK_LIBRARY, next to the package, the loader
path, and one error naming all three with the version wanted.  Each case
runs in a fresh interpreter (the library is loaded once per process)."""

import os

import pytest

from conftest import need_env

PROBE = r'''
import perfcheck, sys
try:
    info = perfcheck.library()
except perfcheck.LibraryError as e:
    print("ERROR"); print(e); sys.exit(3)
print("FOUND", info["found_by"], info["path"], info["version"], sep="\t")
'''


def fake(name):
    path = os.path.join(need_env("PERFCHECK_TEST_FAKES"), "libfake_%s.so" % name)
    assert os.path.isfile(path), "fixture missing: %s" % path
    return path


def test_found_through_the_variable(py):
    lib = need_env("PERFCHECK_LIBRARY")
    p = py(PROBE)
    assert p.returncode == 0, p.stdout + p.stderr
    # Tab-separated: a checkout's path may hold spaces.
    assert p.stdout.startswith("FOUND\tPERFCHECK_LIBRARY=%s\t%s\t0.1.0" % (lib, os.path.abspath(lib)))
    # a folder holding libperfcheck.so.0 works too
    folder = os.path.dirname(lib)
    assert os.path.exists(os.path.join(folder, "libperfcheck.so.0"))
    p = py(PROBE, env={"PERFCHECK_LIBRARY": folder})
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.rstrip("\n").split("\t")[2] == os.path.join(folder, "libperfcheck.so.0")


def test_found_on_the_loader_path(py):
    folder = os.path.dirname(need_env("PERFCHECK_LIBRARY"))
    p = py(PROBE, unset=["PERFCHECK_LIBRARY"], env={"LD_LIBRARY_PATH": folder})
    assert p.returncode == 0, p.stdout + p.stderr
    words = p.stdout.rstrip("\n").split("\t")
    assert words[1].startswith("the loader")
    assert os.path.realpath(words[-2]) == os.path.realpath(os.path.join(folder, "libperfcheck.so.0"))


def test_missing_names_all_three_places(py):
    unset = ["PERFCHECK_LIBRARY", "LD_LIBRARY_PATH"]
    p = py(PROBE, unset=unset)
    # Whether an installed copy is on the loader path, asked in the child's
    # environment (not this process's: the shell running ctest may have
    # LD_LIBRARY_PATH pointing at some libperfcheck, which the child does
    # not see).  Found there, it is what the child loads.
    installed = py("import ctypes; ctypes.CDLL('libperfcheck.so.0')", unset=unset).returncode == 0
    if installed:
        assert p.returncode == 0 and "the loader path" in p.stdout
        return
    assert p.returncode == 3, p.stdout + p.stderr
    err = p.stdout
    assert "cannot load libperfcheck.so.0 (wanted: libperfcheck 0.x, 0.1.0 or newer" in err
    assert "PERFCHECK_LIBRARY: not set" in err
    here = os.path.join(os.path.dirname(__import__("perfcheck").__file__), "libperfcheck.so.0")
    assert "next to the package: %s: no such file" % here in err
    assert "the loader path (LD_LIBRARY_PATH, ldconfig, system folders): libperfcheck.so.0: cannot open" in err
    assert "PERFCHECK_LIBRARY=build/lib/libperfcheck.so.0" in err  # what to do


def test_bad_variable_is_not_silently_ignored(py, tmp_path):
    p = py(PROBE, env={"PERFCHECK_LIBRARY": str(tmp_path / "nope.so")})
    assert p.returncode == 3
    assert "PERFCHECK_LIBRARY=%s: %s: no such file" % (tmp_path / "nope.so", tmp_path / "nope.so") in p.stdout
    assert "next to the package" in p.stdout and "not tried (PERFCHECK_LIBRARY is set)" in p.stdout
    assert "the loader path" in p.stdout


@pytest.mark.parametrize("which,why", [
    ("newmajor", "is version 1.2.3"),
    ("old", "is version 0.1.0 without perfcheck_report_to_string, perfcheck_free, perfcheck_report_from_json_text, "
            "perfcheck_options_from_env (built before the binding API: rebuild it)"),
    ("other", "loads, but is not libperfcheck (no perfcheck_version_number)"),
])
def test_wrong_library_refused(py, which, why):
    path = fake(which)
    p = py(PROBE, env={"PERFCHECK_LIBRARY": path})
    assert p.returncode == 3, p.stdout
    assert "PERFCHECK_LIBRARY=%s: %s %s" % (path, path, why) in p.stdout
    assert "wanted: libperfcheck 0.x, 0.1.0 or newer, with the binding API" in p.stdout


def test_no_library_region_still_runs(py, tmp_path):
    code = r'''
import perfcheck
ran = []
with perfcheck.region("step"):
    ran.append(1)
s = perfcheck.status()
print(ran, s.active, s.status, "|", s.reason)
print(s.message.splitlines()[0])
try:
    perfcheck.diagnose("x.csv")
except perfcheck.LibraryError as e:
    print("diagnose: LibraryError")
'''
    p = py(code, env={"PERFCHECK_LIBRARY": str(tmp_path / "nope.so")})
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "[1] False None | libperfcheck could not be loaded"
    assert lines[1].startswith("perfcheck: cannot load libperfcheck.so.0")
    assert lines[2] == "diagnose: LibraryError"
    assert p.stderr.count("perfcheck: profiling off: libperfcheck could not be loaded") == 1


def test_import_needs_no_library(py, tmp_path):
    p = py("import perfcheck, perfcheck.pytest_plugin; print(perfcheck.__version__)",
           env={"PERFCHECK_LIBRARY": str(tmp_path / "nope.so")})
    assert p.returncode == 0 and p.stdout.strip() == "0.1.0", p.stderr
