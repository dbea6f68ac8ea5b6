"""The process-wide session behind region(), report(), status() and close().

One session per process (CUPTI takes one subscriber), created by the first
region with the options of configure() over the PERFCHECK_* variables
(perfcheck_options_from_env, so the variables mean what they mean to
``perfcheck run``).  When it cannot be created (no driver or GPU, the
CPU-only build, another CUPTI client such as torch.profiler, the library
missing) one line says so on stderr, status() keeps the reason, and every
region runs its code unprofiled.  Nothing here raises out of a region: the
profiled program's own exceptions pass through unchanged.

Locks: ``_lock`` guards ``_st`` and every call on the session handle, so a
handle is never used after close() destroyed it; it is held across the C
calls (which take the session's own lock and never call back into Python).
A fork child gets a fresh lock and never touches the parent's session: its
regions run unprofiled (CUDA does not survive a fork either).
"""

import atexit
import ctypes
import functools
import inspect
import os
import sys
import threading
from dataclasses import dataclass
from typing import Optional

from . import _lib
from ._errors import PerfcheckError, Status, status_of
from ._report import from_handle_copy

_MODES = {"auto": 0, "timing": 1, "counters": 2}
_FORMATS = {"text": 0, "json": 1, "csv": 2, "html": 3}


@dataclass(frozen=True)
class SessionStatus:
    """Where profiling stands in this process.

    ``active``: a session is collecting.  ``status``: Status.OK when
    active, else why not (ERROR_NO_DRIVER, ERROR_NO_DEVICE, ERROR_UNSUPPORTED
    for the CPU-only build, ERROR_CUPTI_IN_USE under another profiler,
    ERROR_INERT after a kernel fault, ...), None before the first region or
    when the library itself could not be loaded.  ``reason`` is the
    library's text for the status, ``message`` the detail (the session's
    last note when active: "hardware counters unavailable, timing only:
    ...")."""

    active: bool
    status: Optional[object]
    reason: str
    message: str

    def __str__(self):
        if self.active:
            return "perfcheck: profiling on" + (": %s" % self.message if self.message else "")
        text = "perfcheck: profiling off: %s" % self.reason
        if self.message and self.message != self.reason:
            text += ": %s" % self.message
        return text


class _State:
    def __init__(self):
        self.options = {}
        self.generation = 0
        self.reset()

    def reset(self):
        self.handle = None      # perfcheck_session*, only in the process that made it
        self.pid = None
        self.tried = False      # creation attempted since the last configure/close
        self.creating = False
        self.status = None
        self.reason = ""
        self.message = ""
        self.noted = set()      # statuses already said on stderr
        self.forked_from = None  # pid of the parent whose session this child inherited


_st = _State()
_lock = threading.Lock()
_atexit_registered = False


def _quiet():
    return bool(_st.options.get("quiet"))


def _say(key, text):
    """One line on stderr, once per key and process, unless quiet."""
    if key in _st.noted:
        return
    _st.noted.add(key)
    if not _quiet():
        try:
            sys.stderr.write(text.rstrip("\n") + "\n")
            sys.stderr.flush()
        except Exception:  # a closed stderr must not break the program
            pass


def _off(status, reason, message):
    _st.status = status
    _st.reason = reason
    _st.message = message
    text = "perfcheck: profiling off: %s" % reason
    if message and message != reason:
        text += ": %s" % message
    _say(("off", status), text + "; the code runs unprofiled")


def _options(lib, o=None):
    """perfcheck_options from the environment, then configure()'s values
    (`o`, else the stored ones; with `o` given, the defaults instead of the
    environment).  Returns the struct and the bytes objects it points into."""
    opts = _lib.Options()
    if o is None:
        bad = ctypes.c_uint()
        lib.options_from_env(ctypes.byref(opts), ctypes.byref(bad))
        o = _st.options
    else:
        lib.options_init(ctypes.byref(opts))
    keep = []

    def s(v):
        b = v.encode("utf-8")
        keep.append(b)
        return b

    if "mode" in o:
        opts.mode = _MODES[o["mode"]]
    if "metrics" in o:
        opts.metrics = s(o["metrics"])
    if "kernels" in o:
        opts.kernel_regex = s(o["kernels"])
    for key in ("launch_skip", "launch_count", "per_signature"):
        if key in o:
            setattr(opts, key, o[key])
    if "progress" in o:
        opts.progress = 1 if o["progress"] else 0
    if "nvtx" in o:
        opts.emit_nvtx = 1 if o["nvtx"] else 0
    if "quiet" in o:
        opts.quiet = 1 if o["quiet"] else 0
    if "output" in o:
        opts.output = s(o["output"])
    if "format" in o:
        opts.output_format = _FORMATS[o["format"]]
    return opts, keep


def _ensure():
    """The session handle, creating it on first use; None when profiling is
    off.  Caller holds _lock."""
    global _atexit_registered
    if _st.forked_from is not None:
        _say(("fork",), "perfcheck: profiling off in this forked child (pid %d) of pid %d: a session does not "
             "survive fork (nor does CUDA); its regions run unprofiled" % (os.getpid(), _st.forked_from))
        return None
    if _st.handle is not None:
        return _st.handle
    if _st.tried:
        return None
    _st.tried = True
    try:
        lib = _lib.get()
    except _lib.LibraryError as e:
        _off(None, "libperfcheck could not be loaded", str(e))
        return None
    opts, keep = _options(lib)
    handle = ctypes.c_void_p()
    _st.creating = True
    try:
        st = lib.session_create(ctypes.byref(opts), ctypes.byref(handle))
    finally:
        _st.creating = False
    del keep
    if st != Status.OK:
        _off(status_of(st), lib.strerror_text(st), lib.last_error())
        return None
    _st.handle = handle
    _st.pid = os.getpid()
    _st.status = Status.OK
    _st.reason = lib.strerror_text(Status.OK)
    _st.message = lib.text(lib.session_message(handle)) or ""
    if not _atexit_registered:
        atexit.register(_at_exit)
        _atexit_registered = True
    return handle


def _begin(name):
    """Opens a region; returns the session generation it belongs to, or None
    when nothing was opened."""
    with _lock:
        h = _ensure()
        if h is None:
            return None
        lib = _lib.get()
        st = lib.session_begin(h, name)
        if st != Status.OK:
            _st.message = lib.last_error()
            _say(("begin", st), "perfcheck: region %r not profiled: %s: %s" % (
                name.decode("utf-8", "replace"), lib.strerror_text(st), _st.message))
            return None
        return _st.generation


def _end(generation):
    with _lock:
        if generation != _st.generation or _st.handle is None or _st.forked_from is not None:
            return  # closed meanwhile (close(), or a fork): nothing of ours is open
        lib = _lib.get()
        st = lib.session_end(_st.handle)
        if st != Status.OK:
            _st.message = lib.last_error() or lib.text(lib.session_message(_st.handle)) or ""
            _say(("end", st), "perfcheck: region end: %s: %s" % (lib.strerror_text(st), _st.message))


class region:
    """A profiled region: ``with perfcheck.region("train_step"):`` or
    ``@perfcheck.region("name")`` (also ``@perfcheck.region`` alone, named
    after the function; coroutine functions are awaited inside).

    Kernels launched from any thread between entry and exit belong to the
    innermost open region, and their counters and verdicts appear in
    :func:`perfcheck.report`.  Regions nest, may be re-entered (a decorated
    recursive function, a loop), and follow the C API's rules across
    threads: the process has one stack of open regions, and exit closes the
    innermost.  The first region creates the process's session (see
    :func:`configure`).

    It never raises on perfcheck's behalf: with no GPU, no driver, the
    CPU-only build or another profiler holding CUPTI, the code inside runs
    unprofiled, one line on stderr says why, and :attr:`status` (or
    :func:`perfcheck.status`) keeps it.  An exception raised inside passes
    through unchanged, after the region is closed.
    """

    def __init__(self, name):
        if callable(name) and not isinstance(name, str):  # bare @perfcheck.region
            fn, name = name, getattr(name, "__qualname__", getattr(name, "__name__", "region"))
        else:
            fn = None
        if not isinstance(name, str):
            raise TypeError("a region name is a str, not %s" % type(name).__name__)
        if not name or "\0" in name:
            raise ValueError("a region name must be non-empty and hold no NUL character: %r" % (name,))
        self.name = name
        self._cname = name.encode("utf-8", "surrogateescape")
        self._tls = threading.local()
        self._wrapped = self._wrap(fn) if fn is not None else None

    # ---- context manager -----------------------------------------------------------------

    def __enter__(self):
        gen = _begin(self._cname)
        stack = self._tls.__dict__.setdefault("stack", [])
        stack.append(gen)
        return self

    def __exit__(self, exc_type, exc, tb):
        stack = self._tls.__dict__.get("stack")
        gen = stack.pop() if stack else None
        if gen is not None:
            _end(gen)
        return False  # never swallow the body's exception

    @property
    def status(self):
        """:func:`perfcheck.status` now."""
        return status()

    # ---- decorator ---------------------------------------------------------------------------

    def _wrap(self, fn):
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def awrapper(*args, **kwargs):
                with self:
                    return await fn(*args, **kwargs)
            return awrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper

    def __call__(self, *args, **kwargs):
        if self._wrapped is not None:  # @perfcheck.region without a name: we are the function
            return self._wrapped(*args, **kwargs)
        if len(args) == 1 and not kwargs and callable(args[0]):
            return self._wrap(args[0])
        raise TypeError("region(%r) decorates a function; use it as @region(...) or in a with statement"
                        % self.name)

    def __repr__(self):
        return "perfcheck.region(%r)" % self.name


# The format an output name asks for, by its extension (any case): the
# library's rule (pc_output_format_of_name), for configure(output=...).
_NAME_FORMATS = {".json": "json", ".csv": "csv", ".html": "html", ".htm": "html", ".txt": "text"}


def _format_of_name(path):
    return _NAME_FORMATS.get(os.path.splitext(os.path.basename(path))[1].lower())


def _check_with_library(new):
    """configure()'s values checked as the session will check them
    (perfcheck_options_check: the regex guard for kernels, output's %
    placeholders, metrics' syntax), so that a bad one is a ValueError here,
    not profiling turned off later.  Without a library (or an older one
    without the call) there is nothing to check against, and no session."""
    try:
        lib = _lib.get()
    except _lib.LibraryError:
        return
    if lib.options_check is None:
        return
    opts, keep = _options(lib, new)
    if lib.options_check(ctypes.byref(opts)) != 0:
        raise ValueError(lib.last_error())
    del keep


def configure(mode=None, metrics=None, kernels=None, launch_skip=None, launch_count=None, per_signature=None,
              progress=None, nvtx=None, quiet=None, output=None, format=None):
    """Sets the options of the process's session; call it before the first
    region (or after :func:`close`).  Each call replaces the previous one;
    an argument left None takes its PERFCHECK_* variable, else the default:

    - ``mode``: "auto" (counters where the GPU allows, else timing with a
      note), "timing" or "counters" (PERFCHECK_MODE);
    - ``metrics``: "default", "sol", "full", ncu's "basic" or "detailed", or ncu metric names (a str
      with commas or a list; may start with a set) (PERFCHECK_METRICS);
    - ``kernels``: a POSIX extended regex searched in each kernel's name
      (its demangled name without return type and parameters), as the C
      API's ``perfcheck_options.kernel_regex``; it goes through the same
      regex guard as PERFCHECK_KERNELS's ``regex:EXPR`` (the environment
      variable also takes a bare function name, ncu's -k);
    - ``launch_skip``, ``launch_count`` (0: no limit), ``per_signature``:
      which launches get counters (ncu's -s, -c);
    - ``progress``: a stderr line per profiled kernel;
    - ``nvtx``: regions also open an NVTX range (default True);
    - ``quiet``: no notes on stderr even with PERFCHECK_VERBOSE=1 (notes
      are in the report and status(); the library prints them on stderr only
      when PERFCHECK_VERBOSE=1);
    - ``output``, ``format`` ("text", "json", "csv", "html"): where the report is
      written when the session ends (at exit, or :func:`close`), with
      %p/%h/%q{VAR} as in PERFCHECK_OUTPUT; the format follows the name
      (.json, .csv, .html, .txt) when ``format`` is left out, and a name
      and a format that disagree are a ValueError.

    Raises ValueError for a bad value, PerfcheckError(ERROR_SESSION_EXISTS)
    when the session has started.  The values are checked at once as the
    library will check them (perfcheck_options_check): a kernels regex the
    regex guard refuses (``regex:(``), an output with an unknown %
    placeholder (``x%z``), a malformed metric list.  Metric names are
    checked against the GPU when the session starts: an unknown one turns
    profiling off with the reason in :func:`status`."""
    new = {}
    if mode is not None:
        if mode not in _MODES:
            raise ValueError("mode must be one of %s, not %r" % (", ".join(_MODES), mode))
        new["mode"] = mode
    if metrics is not None:
        if not isinstance(metrics, str):
            metrics = ",".join(metrics)
        if not metrics or "\0" in metrics:
            raise ValueError("metrics must be a set name or ncu metric names")
        new["metrics"] = metrics
    if kernels is not None:
        if not isinstance(kernels, str) or not kernels or "\0" in kernels:
            raise ValueError("kernels must be a non-empty str")
        new["kernels"] = kernels
    for key, value, least, bits in (("launch_skip", launch_skip, 0, 64), ("launch_count", launch_count, 0, 64),
                                    ("per_signature", per_signature, 1, 32)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or not least <= value < 2 ** bits:
                raise ValueError("%s must be an integer from %d to 2**%d - 1, not %r" % (key, least, bits, value))
            new[key] = value
    for key, value in (("progress", progress), ("nvtx", nvtx), ("quiet", quiet)):
        if value is not None:
            new[key] = bool(value)
    if output is not None:
        output = os.fspath(output)
        if not output or "\0" in output:
            raise ValueError("output must be a non-empty path")
        new["output"] = output
    if format is not None:
        if format not in _FORMATS:
            raise ValueError("format must be one of %s, not %r" % (", ".join(_FORMATS), format))
        new["format"] = format
    if output is not None:
        by_name = _format_of_name(output)
        if by_name and format is not None and format != by_name:
            raise ValueError("output %r is named for %s, but format is %r: give one (the format follows the name "
                             "when format is left out)" % (output, by_name, format))
        if by_name:
            new["format"] = by_name
    _check_with_library(new)
    with _lock:
        if _st.handle is not None or _st.creating:
            raise PerfcheckError(Status.ERROR_SESSION_EXISTS,
                                 "configure() comes before the first region, or after perfcheck.close()",
                                 reason="the session has already started")
        _st.options = new
        _st.tried = False
        _st.noted = set()


def status():
    """A :class:`SessionStatus`: whether this process is profiling and, if
    not, why."""
    with _lock:
        if _st.forked_from is not None:
            return SessionStatus(False, None, "forked child",
                                 "pid %d is a fork of pid %d, whose session does not carry over" % (
                                     os.getpid(), _st.forked_from))
        if _st.handle is not None:
            lib = _lib.get()
            msg = lib.text(lib.session_message(_st.handle)) or _st.message
            return SessionStatus(True, Status.OK, _st.reason, msg)
        if not _st.tried:
            return SessionStatus(False, None, "not started",
                                 "no region has run yet: the session starts with the first region")
        return SessionStatus(False, _st.status, _st.reason, _st.message)


def report():
    """A snapshot of the session's report: every region ended so far, with
    its kernels' counters and verdicts, as a :class:`Report` that stays
    valid after later regions.  Raises PerfcheckError when there is no
    session: before the first region, or with profiling off (the status
    and its reason are in the exception, as in :func:`status`)."""
    with _lock:
        if _st.handle is None:
            if _st.forked_from is not None:
                raise PerfcheckError(Status.ERROR_UNSUPPORTED, "no report in a forked child (pid %d of pid %d)" % (
                    os.getpid(), _st.forked_from), reason="no report")
            if not _st.tried:
                raise PerfcheckError(Status.ERROR_NO_REGION, "no region has run yet in this process",
                                     reason="no report")
            detail = _st.reason + (": " + _st.message if _st.message and _st.message != _st.reason else "")
            raise PerfcheckError(_st.status if _st.status is not None else Status.ERROR_UNSUPPORTED,
                                 "profiling is off: " + detail, reason="no report")
        lib = _lib.get()
        borrowed = ctypes.c_void_p()
        st = lib.session_report(_st.handle, ctypes.byref(borrowed))
        if st != Status.OK:
            raise PerfcheckError(st, lib.last_error(), lib)
        return from_handle_copy(lib, borrowed)


def close():
    """Ends the process's session: closes regions still open, writes the
    report where configure(output=...) or PERFCHECK_OUTPUT says, and
    detaches from CUDA.  The next region starts a new session (with the
    options of configure() again).  Also called at interpreter exit.  Safe
    to call at any time, and more than once."""
    with _lock:
        _close_locked()


def _close_locked():
    h = _st.handle
    if h is not None and _st.pid == os.getpid() and _st.forked_from is None:
        _lib.get().session_destroy(h)
    options, forked = _st.options, _st.forked_from
    _st.reset()
    _st.options = options
    _st.forked_from = forked
    _st.generation += 1


def _at_exit():
    # Another thread may be inside a region's end (waiting for the GPU):
    # wait a while for it, but never hang the interpreter's exit.
    if not _lock.acquire(timeout=30):
        if not _quiet():
            sys.stderr.write("perfcheck: the session was busy at exit; its report was not written\n")
        return
    try:
        if _st.handle is not None and _st.pid == os.getpid():
            _close_locked()
    finally:
        _lock.release()


def _after_fork_in_child():
    global _lock
    _lock = threading.Lock()
    if _st.handle is not None or _st.creating:
        _st.forked_from = _st.pid if _st.pid is not None else os.getppid()
        _st.handle = None
        _st.generation += 1
    _st.noted = set()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
