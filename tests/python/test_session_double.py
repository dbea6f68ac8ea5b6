"""The profiling-on path of perfcheck.region() on a CPU, against a test double
of the library (tests/python/session_double.c: the real core, sessions that
need no GPU, every call logged with its pid).  What the GPU test checks on
the device with counters, this checks here call by call: begin/end pairing
under nesting, exceptions, threads, close() inside a region, forks, exit,
failures of begin and end, options from configure() and the environment,
and reports that outlive the session."""

import os

import pytest

from conftest import need_env

PRELUDE = r'''
import os, sys, threading
import perfcheck
def log():
    with open(os.environ["PERFCHECK_DOUBLE_LOG"]) as f:
        return [line.split(" ", 1)[1].rstrip("\n") for line in f]
'''


@pytest.fixture
def double(py, tmp_path):
    lib = os.path.join(need_env("PERFCHECK_TEST_FAKES"), "libperfcheck_double.so")
    assert os.path.isfile(lib), "fixture missing: %s" % lib
    logfile = tmp_path / "calls.log"

    def run(code, env=None, expect_rc=0):
        e = {"PERFCHECK_LIBRARY": lib, "PERFCHECK_DOUBLE_LOG": str(logfile)}
        e.update(env or {})
        p = py(PRELUDE + code, env=e, timeout=120)
        assert p.returncode == expect_rc, p.stdout + p.stderr
        lines = logfile.read_text().splitlines() if logfile.exists() else []
        return p, [(int(line.split(" ", 1)[0]), line.split(" ", 1)[1]) for line in lines]

    return run


def calls(log):
    return [c for _, c in log]


def test_regions_and_report(double):
    p, log = double(r'''
with perfcheck.region("train_step") as r:
    pass
s = perfcheck.status()
print(s.active, int(s.status), s.message)
rep = perfcheck.report()
print([g.name for g in rep.regions], rep.source)
perfcheck.close()
print(len(str(rep)) > 0, rep.regions[0].wall_ns, rep.regions[0].kernel_ns)  # the snapshot outlives the session
''')
    out = p.stdout.splitlines()
    assert out[0] == "True 0 session double: no GPU, no counters"
    assert out[1] == "['train_step'] in-process"
    assert out[2] == "True 1000 None"
    assert calls(log)[0].startswith("create mode=0 metrics=- kernels=- skip=0 count=0 per_signature=1 nvtx=1")
    assert calls(log)[1:] == ["begin train_step", "end train_step", "report 1", "destroy 0"]
    assert p.stderr == ""  # nothing to say when profiling is on


def test_nesting_and_exceptions(double):
    p, log = double(r'''
class Boom(Exception): pass
outer = perfcheck.region("outer")
err = Boom()
try:
    with outer:
        with perfcheck.region("inner"):
            with outer:
                raise err
except Boom as e:
    print(e is err)
@perfcheck.region("rec")
def rec(n):
    return 0 if n == 0 else 1 + rec(n - 1)
print(rec(3))
print([(g.name, g.parent) for g in perfcheck.report().regions])
''')
    assert p.stdout.splitlines()[:2] == ["True", "3"]
    assert calls(log)[1:-2] == ["begin outer", "begin inner", "begin outer", "end outer", "end inner", "end outer",
                                "begin rec", "begin rec", "begin rec", "begin rec",
                                "end rec", "end rec", "end rec", "end rec"]
    assert calls(log)[-2:] == ["report 7", "destroy 0"]  # destroyed at exit


def test_threads_balance(double):
    p, log = double(r'''
def work(t):
    for i in range(100):
        with perfcheck.region("t%d" % t):
            with perfcheck.region("inner"):
                pass
ts = [threading.Thread(target=work, args=(t,)) for t in range(8)]
[t.start() for t in ts]; [t.join(60) for t in ts]
print(any(t.is_alive() for t in ts))
''')
    assert p.stdout.strip() == "False"
    c = calls(log)
    assert sum(x.startswith("begin ") for x in c) == 8 * 200
    assert sum(x.startswith("end ") for x in c) == 8 * 200
    assert c[-1] == "destroy 0"  # every region closed before exit


def test_close_inside_a_region(double):
    p, log = double(r'''
with perfcheck.region("a"):
    perfcheck.close()            # destroys the session, region a with it
    with perfcheck.region("b"):  # a new session
        pass
print("ok")
''')
    # a's exit must not end b's session's innermost region (there is none left)
    assert calls(log)[0].startswith("create ") and calls(log)[1] == "begin a"
    assert calls(log)[2] == "destroy 1"
    assert calls(log)[3].startswith("create ")
    assert calls(log)[4:] == ["begin b", "end b", "destroy 0"]


def test_fork_child_never_calls_the_session(double):
    p, log = double(r'''
with perfcheck.region("parent_before"):
    pass
with perfcheck.region("open_across_fork"):
    pid = os.fork()
    if pid == 0:
        with perfcheck.region("child"):
            x = 42
        s = perfcheck.status()
        perfcheck.close()
        os._exit(0 if (x == 42 and not s.active and s.reason == "forked child") else 1)
    _, st = os.waitpid(pid, 0)
print(os.WEXITSTATUS(st), os.getpid())
with perfcheck.region("parent_after"):
    pass
''')
    rc, parent = p.stdout.split()
    assert rc == "0"
    assert {pid for pid, _ in log} == {int(parent)}  # the child logged nothing: it never called the library
    assert calls(log)[1:] == ["begin parent_before", "end parent_before", "begin open_across_fork",
                              "end open_across_fork", "begin parent_after", "end parent_after", "destroy 0"]
    assert "profiling off in this forked child" in p.stderr


def test_begin_and_end_failures(double):
    p, log = double(r'''
ran = []
for _ in range(2):
    with perfcheck.region("inert"):   # begin answers ERROR_INERT: the body runs, no end is called
        ran.append(1)
    with perfcheck.region("fault"):   # end answers ERROR_KERNEL_FAULT: said once, nothing raised
        ran.append(2)
print(ran, perfcheck.status().active)
''')
    assert p.stdout.strip() == "[1, 2, 1, 2] True"
    assert calls(log)[1:] == ["begin fault", "end fault", "begin fault", "end fault", "destroy 0"]
    assert p.stderr.count("region 'inert' not profiled: the session stopped collecting after an earlier failure") == 1
    assert p.stderr.count("perfcheck: region end: a kernel faulted") == 1


def test_configure_and_environment(double):
    p, log = double(r'''
perfcheck.configure(mode="timing", metrics=["sol"], kernels="^gemm", launch_skip=2, launch_count=5,
                    nvtx=False, output="out-%p.json", format="json")
with perfcheck.region("a"):
    pass
try:
    perfcheck.configure(mode="counters")
except perfcheck.PerfcheckError as e:
    print(e.status.name)
perfcheck.close()
perfcheck.configure()                 # back to the environment
with perfcheck.region("b"):
    pass
''', env={"PERFCHECK_MODE": "counters", "PERFCHECK_LAUNCH_COUNT": "9", "PERFCHECK_KERNELS": "regex:^conv"})
    assert p.stdout.strip() == "ERROR_SESSION_EXISTS"
    creates = [c for c in calls(log) if c.startswith("create ")]
    assert creates[0] == ("create mode=1 metrics=sol kernels=^gemm skip=2 count=5 per_signature=1 nvtx=0 "
                          "quiet=0 output=out-%p.json format=1")
    assert creates[1] == ("create mode=2 metrics=- kernels=^conv skip=0 count=9 per_signature=1 nvtx=1 "
                          "quiet=0 output=- format=0")


def test_session_exists_elsewhere(double):
    """Another session in the process (perfcheck run's, or C code's): the
    regions run, status says why."""
    p, log = double(r'''
import ctypes
from perfcheck import _lib
h = ctypes.c_void_p()
print(_lib.get().session_create(None, ctypes.byref(h)))   # someone else's session
with perfcheck.region("mine"):
    pass
s = perfcheck.status()
print(s.active, s.status.name)
''')
    assert p.stdout.splitlines() == ["0", "False ERROR_SESSION_EXISTS"]
    assert "perfcheck: profiling off: another perfcheck session is already active in this process" in p.stderr
