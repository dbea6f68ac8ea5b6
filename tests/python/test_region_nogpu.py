"""perfcheck.region() where profiling cannot start (no driver; the toolkit's
stub driver on a GPU machine, as tests/nogpu does): the code inside runs,
one line says why, status() keeps it, and nesting, exceptions, threads and
forks neither crash nor hang."""

import asyncio
import multiprocessing
import os
import sys
import threading
import time

import pytest

import perfcheck
from perfcheck import Status

# The statuses a session answers without a usable driver: NO_DRIVER with a
# driver package missing or the stub; UNSUPPORTED in the CPU-only build.
OFF = {Status.ERROR_NO_DRIVER, Status.ERROR_NO_DEVICE, Status.ERROR_UNSUPPORTED}


@pytest.fixture(autouse=True)
def no_driver():
    """Every test starts with no session and default options; without the stub
    driver, a real one on this machine means the test does not apply."""
    stub = os.environ.get("PERFCHECK_TEST_STUB_DRIVER_DIR")
    if stub:
        assert os.environ.get("LD_LIBRARY_PATH", "").split(":")[0] == stub, \
            "ctest puts the stub driver first on LD_LIBRARY_PATH"
    else:
        import ctypes
        try:
            ctypes.CDLL("libcuda.so.1")
            pytest.skip("a real NVIDIA driver is here and the toolkit's stub driver is not: nothing to test")
        except OSError:
            pass
    perfcheck.close()
    perfcheck.configure()
    yield
    perfcheck.close()
    perfcheck.configure()


def assert_off(s):
    assert s.active is False
    assert s.status in OFF, s
    assert s.reason == perfcheck._lib.get().strerror_text(s.status)
    assert s.message
    if os.environ.get("PERFCHECK_TEST_STUB_DRIVER_DIR") and s.status == Status.ERROR_NO_DRIVER:
        assert "stub" in s.message.lower()
    assert str(s).startswith("perfcheck: profiling off: " + s.reason)


def test_before_any_region():
    s = perfcheck.status()
    assert (s.active, s.status, s.reason) == (False, None, "not started")
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.report()
    assert e.value.status == Status.ERROR_NO_REGION and "no region has run yet" in str(e.value)


def test_code_runs_and_status_is_clear(capsys):
    ran = []
    for i in range(3):
        with perfcheck.region("step") as r:
            ran.append(i)
    assert ran == [0, 1, 2]
    assert_off(r.status)
    assert_off(perfcheck.status())
    err = capsys.readouterr().err
    assert err.count("perfcheck: profiling off: ") == 1, err  # said once, not per region
    assert "the code runs unprofiled" in err
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.report()
    assert e.value.status in OFF
    assert "profiling is off: " + perfcheck.status().reason in str(e.value)


def test_quiet(capsys):
    perfcheck.configure(quiet=True)
    with perfcheck.region("q"):
        pass
    assert capsys.readouterr().err == ""
    assert_off(perfcheck.status())


class Boom(Exception):
    pass


def test_exception_passes_through_unchanged():
    err = Boom("inside")
    with pytest.raises(Boom) as e:
        with perfcheck.region("fails"):
            raise err
    assert e.value is err
    assert e.traceback[-1].name == "test_exception_passes_through_unchanged"
    # re-entered after the exception: runs as before
    ran = []
    with perfcheck.region("fails"):
        ran.append(1)
    assert ran == [1]
    for exc in (KeyboardInterrupt, SystemExit, GeneratorExit):
        with pytest.raises(exc):
            with perfcheck.region("base"):
                raise exc()


def test_nested_and_reentrant():
    outer = perfcheck.region("outer")
    order = []
    with outer:
        with perfcheck.region("inner"):
            with outer:  # the same object, re-entered
                order.append("innermost")
        order.append("outer")
    assert order == ["innermost", "outer"]

    @perfcheck.region("fact")
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    assert fact(10) == 3628800


def test_decorators():
    @perfcheck.region("named")
    def f(a, b=2):
        """doc"""
        return a + b

    assert f(1) == 3 and f.__name__ == "f" and f.__doc__ == "doc"

    @perfcheck.region
    def bare(x):
        return x * 2

    assert bare(21) == 42
    assert bare.name.endswith("bare")

    @perfcheck.region("coro")
    async def coro(x):
        await asyncio.sleep(0)
        return x + 1

    assert asyncio.run(coro(1)) == 2
    with pytest.raises(Boom):
        @perfcheck.region("raises")
        def g():
            raise Boom()
        g()


def test_bad_names():
    with pytest.raises(TypeError):
        perfcheck.region(3)
    with pytest.raises(ValueError):
        perfcheck.region("")
    with pytest.raises(ValueError):
        perfcheck.region("a\0b")
    with pytest.raises(TypeError):
        perfcheck.region("x")(1, 2)


def test_threads():
    count = [0]
    lock = threading.Lock()
    errors = []

    def work(t):
        try:
            reg = perfcheck.region("thread-%d" % t)
            for i in range(200):
                with reg:
                    with perfcheck.region("inner"):
                        with lock:
                            count[0] += 1
                if i % 50 == 0:
                    perfcheck.status()
        except BaseException as e:  # noqa: B902
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread hangs"
    assert errors == [] and count[0] == 8 * 200


def wait_child(pid, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hangs")


def test_fork_child():
    with perfcheck.region("parent"):
        pass
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: regions run, status answers, then a clean exit
        os.close(r)
        try:
            with perfcheck.region("child"):
                v = 41 + 1
            s = perfcheck.status()
            os.write(w, ("%d %s" % (v, s.active)).encode())
        finally:
            os._exit(0)
    os.close(w)
    assert wait_child(pid) == 0
    with os.fdopen(r) as f:
        assert f.read() == "42 False"


def _worker(x):
    with perfcheck.region("worker"):
        return x * x


def test_forked_pool_workers():
    """As a DataLoader's forked workers: regions in them run, nothing hangs."""
    with perfcheck.region("before the pool"):
        pass
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        assert pool.map_async(_worker, range(20)).get(timeout=60) == [x * x for x in range(20)]


def test_fork_never_touches_the_parents_session(py):
    """A child forked from a process that has a session must not call into
    it (its locks may be held by a thread that did not survive the fork).
    Simulated: a handle no C call could survive."""
    code = r'''
import ctypes, os, sys
import perfcheck
from perfcheck import _session
_session._st.handle = ctypes.c_void_p(0xdead)  # a "live" session of this process
_session._st.pid = os.getpid()
_session._st.tried = True
pid = os.fork()
if pid == 0:
    with perfcheck.region("in the child"):
        x = 1
    s = perfcheck.status()
    try:
        perfcheck.report()
        ok = False
    except perfcheck.PerfcheckError as e:
        ok = "forked child" in str(e)
    perfcheck.close()  # must not destroy the parent's session
    os._exit(0 if (x == 1 and not s.active and s.reason == "forked child" and ok) else 1)
_, st = os.waitpid(pid, 0)
_session._st.handle = None  # never destroy the fake one
print("child", os.WEXITSTATUS(st) if os.WIFEXITED(st) else "signal %d" % os.WTERMSIG(st))
'''
    p = py(code, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "child 0", p.stdout + p.stderr
    assert "profiling off in this forked child" in p.stderr


def test_configure():
    with pytest.raises(ValueError, match="mode must be one of auto, timing, counters"):
        perfcheck.configure(mode="fast")
    with pytest.raises(ValueError):
        perfcheck.configure(format="xml")
    perfcheck.configure(format="html")
    from perfcheck import _lib as _l, _session as _s
    assert _s._options(_l.get())[0].output_format == 3  # PERFCHECK_FORMAT_HTML
    with pytest.raises(ValueError):
        perfcheck.configure(launch_count=-1)
    with pytest.raises(ValueError):
        perfcheck.configure(per_signature=0)
    with pytest.raises(ValueError):
        perfcheck.configure(launch_skip=True)
    # Refused at once, as the session would refuse them (perfcheck_options_check).
    with pytest.raises(ValueError, match=r'kernel_regex "regex:\(" \(at character'):
        perfcheck.configure(kernels="regex:(")
    with pytest.raises(ValueError, match=r'output "x%z" is not an output pattern \(unknown %z'):
        perfcheck.configure(output="x%z")
    with pytest.raises(ValueError, match="is not a metric list"):
        perfcheck.configure(metrics="sol,,x")
    with pytest.raises(ValueError, match="named for json, but format is 'csv'"):
        perfcheck.configure(output="r.json", format="csv")
    # The format follows the output's name.
    perfcheck.configure(output="/tmp/report-%p.CSV")
    assert _s._options(_l.get())[0].output_format == 2  # PERFCHECK_FORMAT_CSV
    perfcheck.configure(mode="timing", metrics=["default", "smsp__inst_executed.sum"], kernels="^gemm",
                        launch_skip=2, launch_count=3, per_signature=1, progress=True, nvtx=False, quiet=True,
                        output="/tmp/report-%p.json", format="json")
    from perfcheck import _lib, _session
    opts, keep = _session._options(_lib.get())
    assert (opts.mode, opts.metrics, opts.kernel_regex) == (1, b"default,smsp__inst_executed.sum", b"^gemm")
    assert (opts.launch_skip, opts.launch_count, opts.per_signature) == (2, 3, 1)
    assert (opts.progress, opts.emit_nvtx, opts.quiet, opts.output, opts.output_format) == (
        1, 0, 1, b"/tmp/report-%p.json", 1)
    with perfcheck.region("configured"):
        pass
    assert_off(perfcheck.status())


def test_configure_after_start_is_refused():
    from perfcheck import _session
    _session._st.handle = object()  # as if a session had started
    try:
        with pytest.raises(perfcheck.PerfcheckError) as e:
            perfcheck.configure(mode="timing")
        assert e.value.status == Status.ERROR_SESSION_EXISTS
    finally:
        _session._st.handle = None


def test_environment_variables(py):
    """PERFCHECK_* through perfcheck_options_from_env: a bad value is one
    warning line from the library, and the code runs."""
    code = r'''
import perfcheck
from perfcheck import _lib, _session
with perfcheck.region("env"):
    print("ran")
opts, _ = _session._options(_lib.get())
print(opts.mode, opts.launch_count, opts.output_format)
'''
    p = py(code, env={"PERFCHECK_MODE": "bogus", "PERFCHECK_LAUNCH_COUNT": "5", "PERFCHECK_FORMAT": "csv"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["ran", "0 5 2"]
    assert 'perfcheck: PERFCHECK_MODE="bogus" is not one of timing, counters' in p.stderr
    assert p.stderr.count("perfcheck: profiling off: ") == 1


def test_close_is_idempotent():
    perfcheck.close()
    perfcheck.close()
    with perfcheck.region("after close"):
        pass
    assert_off(perfcheck.status())
