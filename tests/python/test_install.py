"""The install command of docs/python.md: pip builds the package with its own
stdlib-only backend (no setuptools, no wheel, no registry) and bundles the
built library, so that that one-liner works from a fresh shell with
no PERFCHECK_LIBRARY and no LD_LIBRARY_PATH."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from conftest import need_env

ONE_LINER = "import perfcheck; print(perfcheck.diagnose('tests/data/h200/mystery.csv'))"
SEED_LINES = ["mysteryA: step 3 uncoalesced_global_loads", "mysteryB: step 4 divergent_warps",
              "mysteryC, 116736 B dynamic: step 5 occupancy_shared_memory", "mysteryC, 0 B dynamic: step 0 at_roof"]


def pip(*args, env=None):
    have = subprocess.run([sys.executable, "-m", "pip", "--version"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT)
    if have.returncode != 0:
        pytest.fail("%s has no pip (apt-get install python3-pip): %s" % (sys.executable, have.stdout.decode()),
                    pytrace=False)
    return subprocess.run([sys.executable, "-m", "pip", *args], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, universal_newlines=True, timeout=300)


def clean_env(**extra):
    e = {k: v for k, v in os.environ.items()
         if k not in ("PERFCHECK_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH")}
    e.update(extra)
    return e


def tree(folder):
    out = set()
    for root, dirs, files in os.walk(folder):
        out.update(os.path.relpath(os.path.join(root, f), folder) for f in files + dirs)
    return out


def test_install_then_the_one_liner(tmp_path, source_dir):
    target = tmp_path / "site"
    before = tree(os.path.join(source_dir, "python"))
    # The build bundles what PERFCHECK_LIBRARY names (ctest's build tree; the
    # README's build folder, ../build/lib, when unset).
    p = pip("install", "--no-build-isolation", "--no-index", "--no-deps", "--target", str(target),
            os.path.join(source_dir, "python"),
            env=clean_env(PERFCHECK_LIBRARY=need_env("PERFCHECK_LIBRARY"), PIP_NO_INPUT="1"))
    assert p.returncode == 0, p.stdout
    assert (target / "perfcheck" / "libperfcheck.so.0").is_file()
    assert (target / "perfcheck" / "pytest_plugin.py").is_file()
    ep = next(target.glob("perfcheck-*.dist-info")) / "entry_points.txt"
    assert "[pytest11]\nperfcheck = perfcheck.pytest_plugin" in ep.read_text()
    # A fresh shell: no PERFCHECK_LIBRARY, no LD_LIBRARY_PATH.
    run = subprocess.run([sys.executable, "-c", ONE_LINER], cwd=source_dir, env=clean_env(PYTHONPATH=str(target)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert run.returncode == 0, run.stderr
    for line in SEED_LINES:
        assert line in run.stdout
    info = subprocess.run([sys.executable, "-c", "import json, perfcheck; print(json.dumps(perfcheck.library()))"],
                          env=clean_env(PYTHONPATH=str(target)), stdout=subprocess.PIPE, universal_newlines=True)
    found = json.loads(info.stdout)
    assert found["found_by"] == "next to the package"
    assert found["path"] == str(target / "perfcheck" / "libperfcheck.so.0")
    # The build left nothing in the source tree (no build/, egg-info, __pycache__).
    assert tree(os.path.join(source_dir, "python")) == before


def test_without_a_built_library(tmp_path, source_dir):
    """A copy of python/ with no ../build/lib beside it: a pure-Python wheel,
    and the package then says where it looked."""
    src = tmp_path / "src" / "python"
    shutil.copytree(os.path.join(source_dir, "python"), src, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "site"
    p = pip("install", "-v", "--no-build-isolation", "--no-index", "--no-deps", "--target", str(target), str(src),
            env=clean_env())
    assert p.returncode == 0, p.stdout
    assert "no libperfcheck.so.0 bundled" in p.stdout
    assert not (target / "perfcheck" / "libperfcheck.so.0").exists()
    run = subprocess.run([sys.executable, "-c", ONE_LINER], cwd=source_dir, env=clean_env(PYTHONPATH=str(target)),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    try:
        import ctypes
        ctypes.CDLL("libperfcheck.so.0")
        return  # an installed copy on the loader path would be found: nothing more to check here
    except OSError:
        pass
    assert run.returncode != 0
    assert "perfcheck: cannot load libperfcheck.so.0" in run.stderr
    assert "next to the package: %s: no such file" % (target / "perfcheck" / "libperfcheck.so.0") in run.stderr


def test_backend_wheel_and_sdist(tmp_path, source_dir):
    """The backend directly: RECORD hashes match, the library is executable,
    a wrong library is refused at build time."""
    sys.path.insert(0, os.path.join(source_dir, "python"))
    try:
        import _perfcheck_build as backend
    finally:
        sys.path.pop(0)
    assert backend.get_requires_for_build_wheel() == [] and backend.get_requires_for_build_sdist() == []
    name = backend.build_wheel(str(tmp_path), {"library": need_env("PERFCHECK_LIBRARY")})
    assert name.startswith("perfcheck-0.1.0-py3-none-linux_") and name.endswith(".whl")
    import base64
    import hashlib
    with zipfile.ZipFile(tmp_path / name) as z:
        names = z.namelist()
        record = z.read("perfcheck-0.1.0.dist-info/RECORD").decode()
        for line in record.strip().splitlines():
            path, digest, size = line.split(",")
            if path.endswith("RECORD"):
                continue
            data = z.read(path)
            assert int(size) == len(data)
            assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
                b"=").decode()
        assert (z.getinfo("perfcheck/libperfcheck.so.0").external_attr >> 16) & 0o111
        assert "Root-Is-Purelib: false" in z.read("perfcheck-0.1.0.dist-info/WHEEL").decode()
        meta = z.read("perfcheck-0.1.0.dist-info/METADATA").decode()
        assert "Name: perfcheck\nVersion: 0.1.0\n" in meta and "Requires-Python: >=3.9" in meta
    assert set(n for n in names if n.startswith("perfcheck/")) >= {
        "perfcheck/__init__.py", "perfcheck/_lib.py", "perfcheck/_report.py", "perfcheck/_session.py",
        "perfcheck/_expect.py", "perfcheck/_errors.py", "perfcheck/pytest_plugin.py", "perfcheck/py.typed",
        "perfcheck/libperfcheck.so.0"}
    wrong = os.path.join(need_env("PERFCHECK_TEST_FAKES"), "libfake_newmajor.so")
    with pytest.raises(RuntimeError, match="is version 1.2.3; wanted libperfcheck 0.x"):
        backend.build_wheel(str(tmp_path), {"library": wrong})
    with pytest.raises(RuntimeError, match="no such file"):
        backend.build_wheel(str(tmp_path), {"library": str(tmp_path / "nothing.so")})
    sdist = backend.build_sdist(str(tmp_path))
    import tarfile
    with tarfile.open(tmp_path / sdist) as t:
        members = t.getnames()
    assert "perfcheck-0.1.0/pyproject.toml" in members and "perfcheck-0.1.0/perfcheck/_lib.py" in members
    assert "perfcheck-0.1.0/PKG-INFO" in members
