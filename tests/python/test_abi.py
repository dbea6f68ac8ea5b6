"""The ctypes mirrors in perfcheck/_lib.py and _errors.py against perfcheck.h,
as the C compiler lays them out (tests/python/abi_layout.c)."""

import ctypes
import json
import re
import subprocess

import perfcheck
from perfcheck import _lib, _session
from perfcheck._report import FORMAT_CSV, FORMAT_JSON, FORMAT_TEXT

from conftest import need_env


def layout():
    out = subprocess.run([need_env("PERFCHECK_TEST_ABI")], stdout=subprocess.PIPE, check=True).stdout
    return json.loads(out)


def check_struct(cls, c):
    assert ctypes.sizeof(cls) == c["size"]
    py = [(name, getattr(cls, name).offset, getattr(cls, name).size) for name, _ in cls._fields_]
    assert py == [tuple(f) for f in c["fields"]]


def test_options_layout():
    check_struct(_lib.Options, layout()["options"])


def test_expectation_result_layout():
    check_struct(_lib.ExpectationResultC, layout()["expectation_result"])


def test_status_values():
    c = layout()["status"]
    assert len(c) == 22
    assert [(s.name, s.value) for s in perfcheck.Status] == [tuple(x) for x in c]


def test_causes():
    assert list(perfcheck.causes()) == layout()["causes"]
    assert perfcheck.causes()[0] == "none" and "divergent_warps" in perfcheck.causes()


def test_formats_and_modes():
    c = layout()
    assert [FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV] == c["formats"]
    assert [_session._MODES[m] for m in ("auto", "timing", "counters")] == c["modes"]
    assert [_session._FORMATS[f] for f in ("text", "json", "csv")] == c["formats"]


def test_versions_agree(source_dir):
    c = layout()
    lib = _lib.get()
    # The library under test was built from this header, and the package's
    # version is the project's.
    assert lib.number == c["version_number"]
    assert lib.version == c["version_string"] == perfcheck.__version__
    with open("%s/CMakeLists.txt" % source_dir) as f:
        m = re.search(r"project\(perfcheck VERSION (\S+)", f.read())
    assert m and m.group(1) == perfcheck.__version__
    assert lib.number // 10000 == _lib.WANT_MAJOR and lib.number >= _lib.WANT_MIN_NUMBER


def test_every_prototype_exists():
    lib = _lib.get()
    for name in _lib.PROTOTYPES:
        assert hasattr(lib.cdll, name), name
    # and each is exported by the library (tests/build/symbols.txt lists them)
    with open("%s/tests/build/symbols.txt" % need_env("PERFCHECK_SOURCE_DIR")) as f:
        listed = {line.strip() for line in f if line.strip() and not line.startswith("#")}
    assert set(_lib.PROTOTYPES) <= listed
    assert set(_lib.NEEDED_SYMBOLS) <= listed
