"""Reports as Python objects.

A Report is built from the JSON that libperfcheck writes (schema
perfcheck-report/2, docs/report-contract.md) and keeps an owned C report
beside it, so that the text and CSV writers and the expectation engine are
the library's own.  Every JSON field is carried: the contract's fields are
dataclass fields, anything else lands in the entry's ``extra`` dict and is
also readable as an attribute (``kernel.derived.busiest_pipe`` works the day
the library starts writing it, with no change here).  JSON null, and a field
the report does not have, are None: never 0.
"""

import ctypes
import dataclasses
import gzip
import json
import os
import sys
import weakref
import zlib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import _lib
from ._errors import PerfcheckError

FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV, FORMAT_HTML = 0, 1, 2, 3


class _Entry:
    """Base of the report's dataclasses: ``extra`` holds the fields the
    contract does not name (yet), readable as attributes too."""

    def __getattr__(self, name):
        # Only called when ordinary lookup failed.
        if name.startswith("__"):
            raise AttributeError(name)
        extra = self.__dict__.get("extra")
        if extra is not None and name in extra:
            return extra[name]
        raise AttributeError("%s has no field %r" % (type(self).__name__, name))

    def get(self, name, default=None):
        """A field or an extra field by name; ``default`` when absent."""
        if name != "extra" and name in self.__dict__:
            return self.__dict__[name]
        return self.__dict__.get("extra", {}).get(name, default)

    def to_dict(self):
        """The entry as plain data: every declared field (None where the
        report had none) and every extra field; nested entries as dicts."""
        def plain(v):
            if isinstance(v, _Entry):
                return v.to_dict()
            if isinstance(v, list):
                return [plain(x) for x in v]
            if isinstance(v, tuple):
                return list(v)
            return v
        out = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self) if f.name != "extra"}
        out.update({k: plain(v) for k, v in self.extra.items()})
        return out

    @classmethod
    def _from(cls, data):
        """An instance from a JSON object (None for None or a non-object)."""
        if not isinstance(data, dict):
            return None
        known = {f.name: f for f in dataclasses.fields(cls) if f.name != "extra"}
        kwargs, extra = {}, {}
        for key, value in data.items():
            if key in known:
                conv = known[key].metadata.get("from")
                kwargs[key] = conv(value) if conv is not None and value is not None else value
            else:
                extra[key] = value
        return cls(extra=extra, **kwargs)


def _obj(cls):
    return {"from": cls._from}


def _list_of(cls):
    return {"from": lambda v: [cls._from(x) for x in v] if isinstance(v, list) else v}


def _tuple(v):
    return tuple(v) if isinstance(v, list) else v


@dataclass(repr=False)
class Finding(_Entry):
    """Something else the checklist walk noticed about a kernel (or region)."""

    step: Optional[int] = None
    cause: Optional[str] = None
    metric: Optional[str] = None
    value: Optional[float] = None
    threshold: Optional[float] = None
    advice: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        return "Finding(step=%r, cause=%r, value=%r)" % (self.step, self.cause, self.value)


@dataclass(repr=False)
class Stall(_Entry):
    """The dominant warp stall: the reason with the largest share of the
    stall cycles (``share``, 0 to 1), its ncu metric and value per issued
    instruction, whether it dominates (above 30%), and the runner-up."""

    reason: Optional[str] = None
    metric: Optional[str] = None
    per_issue: Optional[float] = None
    share: Optional[float] = None
    dominant: Optional[bool] = None
    second: Optional[str] = None
    second_share: Optional[float] = None
    reasons_measured: Optional[int] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        return "Stall(reason=%r, share=%r)" % (self.reason, self.share)


@dataclass(repr=False)
class Diagnosis(_Entry):
    """The verdict: the step that catches the entry (1 to 5; 0 when every
    step passes), the cause word, the metric that settles it as ncu spells
    it, its value and threshold, the one change to make (``advice``), step
    2's ``bound``, whether it is ``borderline`` (a 5-point or 10% nudge of
    one threshold gives ``runner_up`` instead), the dominant warp ``stall``,
    and the other ``findings``, most important first."""

    step: Optional[int] = None
    cause: Optional[str] = None
    metric: Optional[str] = None
    value: Optional[float] = None
    threshold: Optional[float] = None
    advice: Optional[str] = None
    bound: Optional[str] = None
    borderline: Optional[bool] = None
    runner_up: Optional[str] = None
    stall: Optional[Stall] = field(default=None, metadata=_obj(Stall))
    findings: List[Finding] = field(default_factory=list, metadata=_list_of(Finding))
    extra: Dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        return "Diagnosis(step=%r, cause=%r, bound=%r, value=%r)" % (self.step, self.cause, self.bound, self.value)


@dataclass(repr=False)
class Duration(_Entry):
    """Kernel durations in ns over the timed launches."""

    min: Optional[float] = None
    median: Optional[float] = None
    max: Optional[float] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        return "Duration(min=%r, median=%r, max=%r)" % (self.min, self.median, self.max)


@dataclass
class Busiest(_Entry):
    """The busiest pipe or memory unit of a kernel: its name, its percentage
    of peak and the metric that measured it."""

    name: Optional[str] = None
    pct: Optional[float] = None
    metric: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(repr=False)
class Derived(_Entry):
    """Values computed from the metrics (the contract's ``derived``); the
    writer's other derived values (flops, dram_bytes, dram_gbps, gflops,
    memory_pct, compute_pct, ...) are in ``extra`` and read as attributes."""

    sectors_per_request_ld: Optional[float] = None
    sectors_per_request_st: Optional[float] = None
    threads_per_instruction: Optional[float] = None
    achieved_occupancy_pct: Optional[float] = None
    theoretical_occupancy_pct: Optional[float] = None
    arithmetic_intensity: Optional[float] = None
    bytes_per_sector_ld: Optional[float] = None
    bytes_per_sector_st: Optional[float] = None
    busiest_pipe: Optional[Busiest] = field(default=None, metadata=_obj(Busiest))
    busiest_memory: Optional[Busiest] = field(default=None, metadata=_obj(Busiest))
    extra: Dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        return "Derived(sectors_per_request_ld=%r, threads_per_instruction=%r, achieved_occupancy_pct=%r)" % (
            self.sectors_per_request_ld, self.threads_per_instruction, self.achieved_occupancy_pct)


@dataclass(repr=False)
class Kernel(_Entry):
    """One kernel entry: one per distinct launch signature (function, grid,
    block, dynamic shared memory) and region.  ``metrics`` maps ncu metric
    names to values (None: not measured); ``attributes`` holds the launch
    attributes and occupancy limits; ``diagnosis`` is the verdict."""

    name: Optional[str] = None
    display_name: Optional[str] = None
    demangled: Optional[str] = None
    mangled: Optional[str] = None
    region: Optional[str] = None
    grid: Optional[Tuple[int, int, int]] = field(default=None, metadata={"from": _tuple})
    block: Optional[Tuple[int, int, int]] = field(default=None, metadata={"from": _tuple})
    dynamic_smem_bytes: Optional[float] = None
    launches: Optional[int] = None
    profiled_launches: Optional[int] = None
    duration_ns: Optional[Duration] = field(default=None, metadata=_obj(Duration))
    total_ns: Optional[float] = None
    kernel_time_share: Optional[float] = None
    rank: Optional[int] = None
    attributes: Dict[str, Any] = field(default_factory=dict)
    metrics: Dict[str, Optional[float]] = field(default_factory=dict)
    derived: Optional[Derived] = field(default=None, metadata=_obj(Derived))
    diagnosis: Optional[Diagnosis] = field(default=None, metadata=_obj(Diagnosis))
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def label(self):
        """The name to show: display_name when the report has one, else name."""
        return self.display_name or self.name

    @property
    def verdict(self):
        """"step N cause", or None without a diagnosis."""
        d = self.diagnosis
        if d is None:
            return None
        return "step %s %s" % ("-" if d.step is None else d.step, d.cause)

    @property
    def time_ns(self):
        """The kernel's total time: total_ns when the report has it, else the
        median duration times the launches; None when neither was measured."""
        if self.total_ns is not None:
            return self.total_ns
        med = self.duration_ns.median if self.duration_ns is not None else None
        if med is None or self.launches is None:
            return None
        return med * self.launches

    def __repr__(self):
        smem = ", dynamic_smem_bytes=%r" % self.dynamic_smem_bytes if self.dynamic_smem_bytes else ""
        return "Kernel(name=%r, region=%r, grid=%r, block=%r%s, launches=%r, verdict=%r)" % (
            self.label, self.region, self.grid, self.block, smem, self.launches, self.verdict)


@dataclass(repr=False)
class Region(_Entry):
    """One ended region: its wall clock, the union of its kernel intervals
    (``kernel_ns``), copies, launches, the kernels' share of the wall clock,
    and step 1's verdict in ``diagnosis``."""

    name: Optional[str] = None
    parent: Optional[str] = None
    wall_ns: Optional[float] = None
    kernel_ns: Optional[float] = None
    memcpy_ns: Optional[float] = None
    memset_ns: Optional[float] = None
    gpu_idle_ns: Optional[float] = None
    launches: Optional[int] = None
    dropped_records: Optional[int] = None
    kernel_share: Optional[float] = None
    diagnosis: Optional[Diagnosis] = field(default=None, metadata=_obj(Diagnosis))
    extra: Dict[str, Any] = field(default_factory=dict)

    def __repr__(self):
        d = self.diagnosis
        return "Region(name=%r, wall_ns=%r, kernel_share=%r, cause=%r)" % (
            self.name, self.wall_ns, self.kernel_share, d.cause if d else None)


@dataclass
class Device(_Entry):
    """The device the report was made on, with the ceilings step 2 used."""

    name: Optional[str] = None
    compute_capability: Optional[str] = None
    sm_count: Optional[int] = None
    peak_dram_bytes_per_s: Optional[float] = None
    peak_fp32_flop_per_s: Optional[float] = None
    ridge_flop_per_byte: Optional[float] = None
    ceilings_source: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Cupti(_Entry):
    """The CUPTI the library used in process: its file and version."""

    path: Optional[str] = None
    version: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class Tool(_Entry):
    """What made the report: name and version, and ``cupti`` (None offline,
    or when the library does not say)."""

    name: Optional[str] = None
    version: Optional[str] = None
    cupti: Optional[Cupti] = field(default=None, metadata=_obj(Cupti))
    extra: Dict[str, Any] = field(default_factory=dict, repr=False)


def _fs(path):
    """A path as the bytes the C library takes.  A NUL would end the C string
    early ('file\\0.evil' would name 'file'): ValueError, as open() says."""
    b = os.fsencode(os.fspath(path))
    if b"\0" in b:
        raise ValueError("perfcheck: a path with a NUL byte in it: %r" % (path,))
    return b


class Report:
    """A perfcheck report: ``kernels`` and ``regions`` (lists of
    :class:`Kernel` and :class:`Region`), ``device``, ``tool``,
    ``warnings``, and the report-level fields (``schema``, ``source``,
    ``metric_set``, ``passes``, ``step1_assessed``; others in ``extra``).

    ``str(report)`` is the text report, :meth:`to_json` the JSON,
    :meth:`to_csv` one row per kernel, :meth:`to_dataframe` a pandas
    DataFrame, :meth:`expect` checks expectations.  Reports are immutable
    values: a session's report is a snapshot.
    """

    def __init__(self, handle, text, lib):
        """Takes ownership of the C report ``handle`` (a perfcheck_report*)
        whose JSON is ``text``.  Use :func:`diagnose`, :func:`load` or
        :func:`perfcheck.report` rather than this."""
        self._handle = handle
        self._lib = lib
        self._text = text
        self._finalizer = weakref.finalize(self, lib.report_destroy, handle)
        data = json.loads(text)
        if not isinstance(data, dict):
            raise PerfcheckError(15, "a perfcheck report is a JSON object", lib)
        self._data = data
        self.schema = data.get("schema")
        self.tool = Tool._from(data.get("tool"))
        self.source = data.get("source")
        self.metric_set = data.get("metric_set")
        self.passes = data.get("passes")
        self.step1_assessed = data.get("step1_assessed")
        self.device = Device._from(data.get("device"))
        self.regions = [Region._from(r) for r in data.get("regions") or []]
        self.kernels = [Kernel._from(k) for k in data.get("kernels") or []]
        self.warnings = list(data.get("warnings") or [])
        known = {"schema", "tool", "source", "metric_set", "passes", "step1_assessed", "device", "regions",
                 "kernels", "warnings"}
        self.extra = {k: v for k, v in data.items() if k not in known}

    # ---- output ----------------------------------------------------------------

    def __str__(self):
        return self._lib.report_string(self._handle, FORMAT_TEXT)

    def __repr__(self):
        return "<perfcheck.Report source=%r device=%r: %d kernel(s), %d region(s)>" % (
            self.source, self.device.name if self.device else None, len(self.kernels), len(self.regions))

    def to_json(self, indent=None):
        """The report as JSON text: exactly what it was read from (the
        library's writer, or the file given to :func:`load`), or re-indented
        with ``indent``."""
        if indent is None:
            return self._text
        return json.dumps(self._data, indent=indent)

    def to_dict(self):
        """The JSON as plain Python data (a deep copy); null is None."""
        return json.loads(self._text)

    def to_csv(self):
        """One row per kernel, as ``perfcheck diagnose --format csv`` writes it."""
        return self._lib.report_string(self._handle, FORMAT_CSV)

    def to_html(self):
        """The report as one self-contained HTML page (roofline, the five
        questions per kernel, region timelines), as ``perfcheck report
        --html`` writes it: the library's writer, nothing drawn here."""
        return self._lib.report_string(self._handle, FORMAT_HTML)

    def save(self, path):
        """Writes the report to ``path`` in the format its name says, as the
        ``perfcheck`` command does: ``.csv`` :meth:`to_csv`, ``.html`` (or
        ``.htm``) :meth:`to_html`, ``.txt`` the text report, any other name
        :meth:`to_json` (readable by :func:`load`, ``perfcheck check`` and
        ``perfcheck merge``), through the library's one output function
        (``perfcheck_file_write``): a regular file replaced whole through a
        temporary file and a rename (a symlink at ``path`` is replaced, never
        followed; an existing file keeps its mode); a device, FIFO or folder
        at ``path`` is refused.  ``"-"`` is ``sys.stdout`` (JSON).  Raises
        PerfcheckError (ERROR_IO: why, in the detail), ValueError for a path
        with a NUL byte."""
        name = _fs(path)
        ext = os.path.splitext(os.path.basename(name))[1].lower()
        if ext == b".csv":
            text = self.to_csv()
        elif ext in (b".html", b".htm"):
            text = self.to_html()
        elif ext == b".txt":
            text = str(self)
        else:
            text = self._text
        if not text.endswith("\n"):
            text += "\n"
        if name == b"-":
            sys.stdout.write(text)
            sys.stdout.flush()
            return
        data = text.encode("utf-8")
        st = self._lib.file_write(name, data, len(data))
        if st != 0:
            raise PerfcheckError(st, self._lib.last_error(), self._lib)

    def to_dataframe(self, what="kernels"):
        """A pandas DataFrame, one row per kernel (``what="kernels"``) or per
        region (``"regions"``).  Kernel columns: the entry's fields, the
        verdict (``step``, ``cause``, ``bound``, ``verdict_metric``,
        ``verdict_value``, ``verdict_threshold``, ``advice``), every derived
        value by its name, every attribute as ``attr_NAME``, and every metric
        by its ncu name.  Values that were not measured are NaN in numeric
        columns (None in text columns), never 0.  Needs pandas; raises ImportError without it."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("perfcheck: Report.to_dataframe needs pandas (apt-get install python3-pandas, "
                              "or pip install pandas)") from e
        if what == "kernels":
            rows = [_kernel_row(k) for k in self.kernels]
        elif what == "regions":
            rows = [_region_row(r) for r in self.regions]
        else:
            raise ValueError("what must be 'kernels' or 'regions', not %r" % (what,))
        df = pandas.DataFrame.from_records(rows)
        # A numeric column with a null in it is float with NaN, even when every
        # value is null (pandas would keep such a column as objects).
        for col in df.columns:
            values = df[col].tolist()
            if any(v is None for v in values) and all(
                    v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in values):
                df[col] = pandas.to_numeric(df[col].astype("float64"))
        return df

    # ---- lookups -----------------------------------------------------------------

    def kernels_named(self, name):
        """The kernel entries whose name or display name is ``name`` (one per
        launch signature and region)."""
        return [k for k in self.kernels if k.name == name or k.display_name == name]

    # ---- expectations ----------------------------------------------------------------

    def expect(self, *specs):
        """Checks expectations, spelled as ``perfcheck check --expect`` takes
        them (``"mysteryA:sectors_per_request_ld<=4.5"``,
        ``"regex:^gelu:cause!=uncoalesced_global_loads"``,
        ``"k:gpu__time_duration.sum within 10% of 1.2e6"``), with the C
        library's engine.  Returns an :class:`ExpectResult`: true when all
        hold, with one result per expectation and kernel entry (measured
        value, expected bound, message with the verdict's advice).  A kernel
        not in the report or a value not measured is a failure, never a
        pass.  Raises ExpectationSpecError (a ValueError) for a spec the
        engine refuses, a misspelt quantity among them: its message names at
        most three nearest quantities, as ``perfcheck check`` does (exit 2).
        The quantities are the JSON report's names (``derived``,
        ``attributes``, ``metrics`` by ncu name, ...), one table in the C
        library for the CLI, the library and this package."""
        from ._expect import check

        return check(self._lib, self._handle, specs)

    def require(self, *specs):
        """As :meth:`expect`, but raises :class:`ExpectationFailed` (an
        AssertionError carrying the engine's messages) when any fails."""
        from ._errors import ExpectationFailed

        result = self.expect(*specs)
        if not result:
            raise ExpectationFailed(result)
        return result


def _flat(prefix, d, row):
    for k, v in d.items():
        if isinstance(v, dict):
            _flat("%s%s_" % (prefix, k), v, row)
        elif isinstance(v, (list, tuple)):
            row[prefix + k] = tuple(v)
        else:
            row[prefix + k] = v


def _verdict(d, row):
    d = d or Diagnosis()
    row.update(step=d.step, cause=d.cause, bound=d.bound, verdict_metric=d.metric, verdict_value=d.value,
               verdict_threshold=d.threshold, advice=d.advice, borderline=d.borderline, runner_up=d.runner_up,
               stall=d.stall.reason if d.stall else None, stall_share=d.stall.share if d.stall else None)


def _kernel_row(k):
    dur = k.duration_ns or Duration()
    row = {"name": k.name, "display_name": k.display_name, "region": k.region, "grid": k.grid, "block": k.block,
           "dynamic_smem_bytes": k.dynamic_smem_bytes, "launches": k.launches,
           "profiled_launches": k.profiled_launches, "duration_ns_min": dur.min,
           "duration_ns_median": dur.median, "duration_ns_max": dur.max, "total_ns": k.total_ns,
           "kernel_time_share": k.kernel_time_share, "rank": k.rank}
    _verdict(k.diagnosis, row)
    if k.derived is not None:
        derived = {f.name: getattr(k.derived, f.name) for f in dataclasses.fields(Derived) if f.name != "extra"}
        for name in ("busiest_pipe", "busiest_memory"):
            b = derived.pop(name)
            if b is not None:
                derived[name] = {"name": b.name, "pct": b.pct, "metric": b.metric, **b.extra}
        derived.update(k.derived.extra)
        _flat("", derived, row)
    _flat("attr_", k.attributes or {}, row)
    for m, v in (k.metrics or {}).items():
        row[m] = v
    return row


def _region_row(r):
    row = {f.name: getattr(r, f.name) for f in dataclasses.fields(Region) if f.name not in ("extra", "diagnosis")}
    _verdict(r.diagnosis, row)
    _flat("", {k: v for k, v in r.extra.items()}, row)
    return row


# ---- constructors ----------------------------------------------------------------------

def _owned(lib, fn, *args):
    """Calls a perfcheck_report_from_* function; returns the new handle or raises."""
    out = ctypes.c_void_p()
    st = fn(*args, ctypes.byref(out))
    if st != 0:
        raise PerfcheckError(st, lib.last_error(), lib)
    return out


def from_handle_copy(lib, borrowed):
    """A Report that owns a copy of a borrowed C report (a session's)."""
    text = lib.report_string(borrowed, FORMAT_JSON)
    raw = text.encode("utf-8")
    handle = _owned(lib, lib.report_from_json_text, raw, len(raw), b"<session>", 1)
    return Report(handle, text, lib)


def diagnose(path, quiet=False):
    """Runs the checklist over an Nsight Compute export made with
    ``ncu --csv --page raw`` (``perfcheck metrics`` prints the
    ``--metrics`` list) and returns the :class:`Report`.  Needs no GPU and
    no CUDA: the CPU-only build of libperfcheck does it.  Step 1 is
    ``not_assessed`` (an export has no wall clock).  The export may be
    gzip-compressed (told by its content) and ``path`` may be "-" (stdin).
    Unusable values become None with a warning in ``report.warnings``
    (also on stderr when PERFCHECK_VERBOSE=1, unless ``quiet``).  Raises
    PerfcheckError: ERROR_IO (cannot read),
    ERROR_PARSE (not an ncu raw export; the detail names file and line);
    LibraryError when libperfcheck cannot be loaded."""
    lib = _lib.get()
    handle = _owned(lib, lib.report_from_ncu_csv, _fs(path), 1 if quiet else 0)
    try:
        text = lib.report_string(handle, FORMAT_JSON)
    except BaseException:
        lib.report_destroy(handle)
        raise
    return Report(handle, text, lib)


def load(path, quiet=False):
    """Reads a saved perfcheck JSON report (``perfcheck run --format json``,
    ``perfcheck diagnose --format json``, :meth:`Report.save`) as written:
    the checklist is not run again, null stays None, and fields this
    package does not know are kept (in ``extra``).  A gzip-compressed
    report (told by its content) is read as it is.  Raises PerfcheckError:
    ERROR_IO, ERROR_PARSE (the detail says FILE:LINE:COLUMN)."""
    lib = _lib.get()
    name = os.fspath(path)
    _fs(name)  # ValueError for a NUL in it, before the file system is asked
    try:
        with open(name, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise PerfcheckError(14, "%s: cannot open: %s" % (name, e.strerror or e), lib) from e
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise PerfcheckError(14, "%s: damaged gzip data (%s)" % (name, e), lib) from e
    bname = os.fsencode(name)
    handle = _owned(lib, lib.report_from_json_text, raw, len(raw), bname, 1 if quiet else 0)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    return Report(handle, raw.decode("utf-8", "replace"), lib)
