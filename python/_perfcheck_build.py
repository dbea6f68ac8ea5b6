"""The PEP 517 build backend of the perfcheck package, standard library only.

Why not setuptools: with `requires = []` pip needs nothing to build this
package, so `pip install ./python` works offline in any environment that has
pip, with or without build isolation.  setuptools before 70.1 also needs the
`wheel` package to build a wheel (pyenv's Python 3.11 and Python 3.12+
virtual environments have neither by default), and there is no registry to
fetch them from on the machines this runs on.

What it builds: a wheel of perfcheck/*.py plus, when it can find one, the
built libperfcheck.so.0 as perfcheck/libperfcheck.so.0 (then the wheel is
tagged for this platform).  The library is taken from, in this order:
  the config setting `library` (pip install --config-settings library=PATH),
  PERFCHECK_LIBRARY (a file, or a folder holding libperfcheck.so.0),
  ../build/lib/libperfcheck.so.0 (the README's build folder).
A library found there must load and be a compatible version, or the build
fails saying why.  With none found, the wheel holds the Python code only and
the package looks for the library through PERFCHECK_LIBRARY or the loader
path when it runs (a note on stderr says so; pip shows it with -v).
"""

import base64
import hashlib
import io
import os
import re
import sys
import sysconfig
import tarfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "perfcheck"
SONAME = "libperfcheck.so.0"
SUMMARY = "Why a CUDA kernel is slow, kernel by kernel: libperfcheck from Python (regions, reports, expectations)"
ENTRY_POINTS = "[pytest11]\nperfcheck = perfcheck.pytest_plugin\n"


def _version():
    with open(os.path.join(HERE, NAME, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError("perfcheck build: no __version__ in perfcheck/__init__.py")
    return m.group(1)


def _metadata(version):
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\nRequires-Python: >=3.9\n"
            "Provides-Extra: pandas\nRequires-Dist: pandas; extra == \"pandas\"\n" % (NAME, version, SUMMARY))


def _library(config_settings):
    """(path of the library to bundle, where it came from), or (None, None)."""
    settings = config_settings or {}
    for origin, value in (("config setting library", settings.get("library")),
                          ("PERFCHECK_LIBRARY", os.environ.get("PERFCHECK_LIBRARY"))):
        if value:
            path = os.path.join(value, SONAME) if os.path.isdir(value) else value
            if not os.path.isfile(path):
                raise RuntimeError("perfcheck build: %s=%s: no such file" % (origin, value))
            return os.path.realpath(path), origin
    default = os.path.join(HERE, os.pardir, "build", "lib", SONAME)
    if os.path.isfile(default):
        return os.path.realpath(default), "build/lib"
    return None, None


def _check_library(path, origin):
    """Refuses a library that the package would refuse at run time."""
    import ctypes

    sys.path.insert(0, HERE)
    keep, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # no __pycache__ in the source tree
    try:
        from perfcheck import _lib
    finally:
        sys.path.remove(HERE)
        sys.dont_write_bytecode = keep
    try:
        cdll = ctypes.CDLL(path)
    except OSError as e:
        raise RuntimeError("perfcheck build: %s (%s) does not load: %s" % (path, origin, e)) from e
    bad, _, _ = _lib._check(cdll)
    if bad:
        raise RuntimeError("perfcheck build: %s (%s) %s; wanted %s" % (path, origin, bad, _lib.WANT_TEXT))


def _package_files():
    pkg = os.path.join(HERE, NAME)
    out = []
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            out.append(("%s/%s" % (NAME, name), os.path.join(pkg, name)))
    return out


def _stamp():
    # Reproducible: SOURCE_DATE_EPOCH when set, else a fixed date (zip needs >= 1980).
    t = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    return time.gmtime(max(t, 315532800))[:6]


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


# ---- PEP 517 hooks --------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    lib, origin = _library(config_settings)
    if lib is not None:
        _check_library(lib, origin)
        tag = "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())
    else:
        tag = "py3-none-any"
        sys.stderr.write("perfcheck build: no %s bundled (none in PERFCHECK_LIBRARY or ../build/lib); the package "
                         "will look for it through PERFCHECK_LIBRARY or the loader path\n" % SONAME)
    dist_info = "%s-%s.dist-info" % (NAME, version)
    files = []  # (arcname, bytes, mode)
    for arc, path in _package_files():
        with open(path, "rb") as f:
            files.append((arc, f.read(), 0o644))
    if lib is not None:
        with open(lib, "rb") as f:
            files.append(("%s/%s" % (NAME, SONAME), f.read(), 0o755))
    wheel_meta = "Wheel-Version: 1.0\nGenerator: perfcheck _perfcheck_build\nRoot-Is-Purelib: %s\nTag: %s\n" % (
        "true" if lib is None else "false", tag)
    for name, text in (("METADATA", _metadata(version)), ("WHEEL", wheel_meta),
                       ("entry_points.txt", ENTRY_POINTS), ("top_level.txt", NAME + "\n")):
        files.append(("%s/%s" % (dist_info, name), text.encode("utf-8"), 0o644))
    record = [_record_line(arc, data) for arc, data, _ in files] + ["%s/RECORD,," % dist_info]
    files.append(("%s/RECORD" % dist_info, ("\n".join(record) + "\n").encode("utf-8"), 0o644))

    filename = "%s-%s-%s.whl" % (NAME, version, tag)
    stamp = _stamp()
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data, mode in files:
            info = zipfile.ZipInfo(arc, date_time=stamp)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = "%s-%s" % (NAME, version)
    filename = base + ".tar.gz"
    members = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
               ("_perfcheck_build.py", os.path.join(HERE, "_perfcheck_build.py"))] + _package_files()
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))

    def add(tar, arc, data):
        info = tarfile.TarInfo("%s/%s" % (base, arc))
        info.size, info.mtime, info.mode = len(data), mtime, 0o644
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for arc, path in members:
            with open(path, "rb") as f:
                add(tar, arc, f.read())
        add(tar, "PKG-INFO", _metadata(version).encode("utf-8"))
    return filename
