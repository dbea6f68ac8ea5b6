"""Finding and loading libperfcheck.so through ctypes, and the C prototypes.

ctypes rather than cffi: it is in the standard library and needs no build
step and no compiler, so the package installs anywhere pip (or a plain
PYTHONPATH) does.  The cost is that the two structs Python fills
(perfcheck_options, perfcheck_expectation_result) are mirrored here by hand;
tests/python/test_abi.py compares them with sizeof/offsetof from a C program
compiled against perfcheck.h, and the status list with the header's.

The library is looked for, in this order:
  1. PERFCHECK_LIBRARY: a path to the library file, or to the folder holding
     libperfcheck.so.0.  When it is set, nothing else is tried: a wrong path
     is an error, never a silent fallback to another copy.
  2. next to the package: perfcheck/libperfcheck.so.0, which `pip install
     ./python` bundles from the CMake build folder.
  3. the loader path: dlopen("libperfcheck.so.0") (LD_LIBRARY_PATH, the
     ldconfig cache, the system folders; an installed prefix).
A candidate that loads but is not a libperfcheck of a compatible version is
refused and the search goes on.  When none works, one LibraryError names
all three places, what each gave, and the version wanted.
"""

import ctypes
import os
import threading

SONAME = "libperfcheck.so.0"
ENV_VAR = "PERFCHECK_LIBRARY"

# The library this package is written against: major 0, at least 0.1.0, with
# the four calls made for bindings (added in 0.1.0's binding API).
WANT_MAJOR = 0
WANT_MIN_NUMBER = 100  # major * 10000 + minor * 100 + patch
WANT_TEXT = "libperfcheck 0.x, 0.1.0 or newer, with the binding API"
NEEDED_SYMBOLS = (
    "perfcheck_report_to_string",
    "perfcheck_free",
    "perfcheck_report_from_json_text",
    "perfcheck_options_from_env",
)


class LibraryError(ImportError):
    """libperfcheck.so could not be found or is not a compatible version.

    The message names the three places looked in (PERFCHECK_LIBRARY, next to
    the package, the loader path), what each gave, and the version wanted.
    """


# ---- the two structs Python fills (perfcheck.h) ------------------------------

class Options(ctypes.Structure):
    """perfcheck_options."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("mode", ctypes.c_int),
        ("metrics", ctypes.c_char_p),
        ("kernel_regex", ctypes.c_char_p),
        ("launch_skip", ctypes.c_uint64),
        ("launch_count", ctypes.c_uint64),
        ("per_signature", ctypes.c_uint),
        ("progress", ctypes.c_int),
        ("emit_nvtx", ctypes.c_int),
        ("quiet", ctypes.c_int),
        ("output", ctypes.c_char_p),
        ("output_format", ctypes.c_int),
    ]


class ExpectationResultC(ctypes.Structure):
    """perfcheck_expectation_result."""

    _fields_ = [
        ("size", ctypes.c_size_t),
        ("spec", ctypes.c_char_p),
        ("kernel", ctypes.c_char_p),
        ("quantity", ctypes.c_char_p),
        ("status", ctypes.c_int),
        ("measured", ctypes.c_double),
        ("measured_word", ctypes.c_char_p),
        ("expected", ctypes.c_char_p),
        ("message", ctypes.c_char_p),
        ("advice", ctypes.c_char_p),
    ]


# ---- prototypes ------------------------------------------------------------------

_P = ctypes.c_void_p
_S = ctypes.c_int  # perfcheck_status, perfcheck_format, ...
_STR = ctypes.c_char_p
_SZ = ctypes.c_size_t

PROTOTYPES = {
    "perfcheck_strerror": (_STR, [_S]),
    "perfcheck_cause_name": (_STR, [_S]),
    "perfcheck_last_error_message": (_STR, []),
    "perfcheck_version_string": (_STR, []),
    "perfcheck_version_number": (ctypes.c_uint, []),
    "perfcheck_options_init": (None, [ctypes.POINTER(Options)]),
    "perfcheck_options_from_env": (_S, [ctypes.POINTER(Options), ctypes.POINTER(ctypes.c_uint)]),
    "perfcheck_report_to_string": (_S, [_P, _S, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(_SZ)]),
    "perfcheck_free": (None, [_P]),
    "perfcheck_file_write": (_S, [_STR, ctypes.c_char_p, _SZ]),
    "perfcheck_report_from_ncu_csv": (_S, [_STR, ctypes.c_int, ctypes.POINTER(_P)]),
    "perfcheck_report_from_json_text": (_S, [_STR, _SZ, _STR, ctypes.c_int, ctypes.POINTER(_P)]),
    "perfcheck_report_destroy": (None, [_P]),
    "perfcheck_report_kernel_count": (_SZ, [_P]),
    "perfcheck_session_create": (_S, [ctypes.POINTER(Options), ctypes.POINTER(_P)]),
    "perfcheck_session_begin": (_S, [_P, _STR]),
    "perfcheck_session_end": (_S, [_P]),
    "perfcheck_session_report": (_S, [_P, ctypes.POINTER(_P)]),
    "perfcheck_session_message": (_STR, [_P]),
    "perfcheck_session_destroy": (None, [_P]),
    "perfcheck_expectations_create": (_S, [ctypes.POINTER(_P)]),
    "perfcheck_expectations_destroy": (None, [_P]),
    "perfcheck_expectations_add": (_S, [_P, _STR]),
    "perfcheck_expectations_check": (_S, [_P, _P, ctypes.POINTER(_SZ)]),
    "perfcheck_expectations_result_count": (_SZ, [_P]),
    "perfcheck_expectations_result": (_S, [_P, _SZ, ctypes.POINTER(ExpectationResultC)]),
    "perfcheck_expectations_failures_text": (_STR, [_P]),
}

# Calls of newer libraries, used when the library has them (an older one
# still loads: each use checks for None).
OPTIONAL_PROTOTYPES = {
    "perfcheck_options_check": (_S, [ctypes.POINTER(Options)]),
}


class Library:
    """A loaded libperfcheck: the ctypes handle with its prototypes set, where
    it was found, and its version."""

    def __init__(self, cdll, path, found_by, version, number):
        self.cdll = cdll
        self.path = path
        self.found_by = found_by
        self.version = version
        self.number = number
        for name, (restype, argtypes) in PROTOTYPES.items():
            fn = getattr(cdll, name)
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name[len("perfcheck_"):], fn)
        for name, (restype, argtypes) in OPTIONAL_PROTOTYPES.items():
            fn = getattr(cdll, name, None)
            if fn is not None:
                fn.restype = restype
                fn.argtypes = argtypes
            setattr(self, name[len("perfcheck_"):], fn)

    def text(self, ptr):
        """A C string the library returned, as str (None stays None)."""
        return None if ptr is None else ptr.decode("utf-8", "replace")

    def last_error(self):
        return self.text(self.last_error_message()) or ""

    def strerror_text(self, status):
        return self.text(self.strerror(int(status))) or ""

    def report_string(self, handle, fmt):
        """perfcheck_report_to_string as str; raises PerfcheckError."""
        from ._errors import PerfcheckError

        out = ctypes.c_void_p()
        n = ctypes.c_size_t()
        st = self.report_to_string(handle, fmt, ctypes.byref(out), ctypes.byref(n))
        if st != 0:
            raise PerfcheckError(st, self.last_error(), self)
        try:
            return ctypes.string_at(out.value, n.value).decode("utf-8", "replace")
        finally:
            self.free(out)


def _check(cdll):
    """None when cdll is a compatible libperfcheck, else why not, and its version."""
    try:
        vnum = cdll.perfcheck_version_number
        vstr = cdll.perfcheck_version_string
    except AttributeError:
        return "loads, but is not libperfcheck (no perfcheck_version_number)", None, None
    vnum.restype, vnum.argtypes = ctypes.c_uint, []
    vstr.restype, vstr.argtypes = ctypes.c_char_p, []
    number = int(vnum())
    version = (vstr() or b"?").decode("ascii", "replace")
    if number // 10000 != WANT_MAJOR or number < WANT_MIN_NUMBER:
        return "is version %s" % version, version, number
    missing = [s for s in NEEDED_SYMBOLS if not hasattr(cdll, s)]
    if missing:
        return "is version %s without %s (built before the binding API: rebuild it)" % (
            version, ", ".join(missing)), version, number
    return None, version, number


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def _plan():
    """[(place, what to dlopen or None, why it was not tried)] for the three places."""
    env = os.environ.get(ENV_VAR)
    here = os.path.join(_package_dir(), SONAME)
    if env:
        target = os.path.join(env, SONAME) if os.path.isdir(env) else env
        skip = "not tried (%s is set)" % ENV_VAR
        return [("%s=%s" % (ENV_VAR, env), target, None),
                ("next to the package (%s)" % here, None, skip),
                ("the loader path (%s)" % SONAME, None, skip)]
    return [(ENV_VAR, None, "not set"),
            ("next to the package", here, None),
            ("the loader path (LD_LIBRARY_PATH, ldconfig, system folders)", SONAME, None)]


def find():
    """Loads the first compatible library of the three places; raises LibraryError."""
    lines = []
    for place, target, why in _plan():
        if target is None:
            lines.append("  %s: %s" % (place, why))
            continue
        if os.sep in target and not os.path.exists(target):
            lines.append("  %s: %s: no such file" % (place, target))
            continue
        try:
            cdll = ctypes.CDLL(target)
        except OSError as e:
            lines.append("  %s: %s" % (place, e))
            continue
        bad, version, number = _check(cdll)
        if bad:
            lines.append("  %s: %s %s" % (place, target, bad))
            continue
        path = target
        if os.sep not in target:  # found by the loader: say which file
            path = _loaded_path(cdll) or target
        return Library(cdll, os.path.abspath(path) if os.sep in path else path, place, version, number)
    raise LibraryError(
        "perfcheck: cannot load %s (wanted: %s).  Looked in:\n%s\n"
        "Build it (cmake -S . -B build && cmake --build build), then set %s=build/lib/%s "
        "or reinstall the package (pip install ./python) from that tree." % (
            SONAME, WANT_TEXT, "\n".join(lines), ENV_VAR, SONAME))


def _loaded_path(cdll):
    """The file the dynamic loader picked for cdll (dladdr on one of its symbols)."""
    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]

    try:
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
    except (OSError, AttributeError):
        return None
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
    dladdr.restype = ctypes.c_int
    info = DlInfo()
    addr = ctypes.cast(cdll.perfcheck_version_number, ctypes.c_void_p)
    if dladdr(addr, ctypes.byref(info)) and info.dli_fname:
        return info.dli_fname.decode("utf-8", "replace")
    return None


_lock = threading.Lock()
_loaded = None


def get():
    """The process's Library, loaded on first use; raises LibraryError.  A
    failure is not remembered: the next call looks again (after the caller
    set PERFCHECK_LIBRARY, say)."""
    global _loaded
    lib = _loaded
    if lib is not None:
        return lib
    with _lock:
        if _loaded is None:
            _loaded = find()
        return _loaded


def _after_fork_in_child():
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
