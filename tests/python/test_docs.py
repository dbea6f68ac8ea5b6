"""Docs kept true: every public name has a docstring, and docs/python.md
shows the install command and the calls that test_install.py and the other
tests exercise."""

import inspect
import os

import perfcheck


def public_members(cls):
    for name, value in inspect.getmembers(cls):
        if name.startswith("_"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, (property, staticmethod, classmethod)) or inspect.isfunction(raw):
            yield name, raw


def test_every_public_name_has_a_docstring():
    missing = []
    for name in perfcheck.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(perfcheck, name)
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for member, raw in public_members(obj):
                doc = raw.__doc__ if not isinstance(raw, (staticmethod, classmethod)) else raw.__func__.__doc__
                if not (doc or "").strip():
                    missing.append("%s.%s" % (name, member))
    assert missing == []
    assert inspect.getdoc(perfcheck).startswith("perfcheck: why a CUDA kernel is slow")
    import perfcheck.pytest_plugin as plugin
    assert inspect.getdoc(plugin) and inspect.getdoc(plugin.perfcheck_expect)


def test_python_doc(source_dir):
    with open(os.path.join(source_dir, "docs", "python.md"), encoding="utf-8") as f:
        doc = f.read()
    for needle in ("pip install ./python", "PERFCHECK_LIBRARY", "perfcheck.region(", "perfcheck.report()",
                   "perfcheck.diagnose(", "perfcheck.load(", ".expect(", "perfcheck_expect",
                   "to_dataframe", "examples/python/torch_step.py", "ctest --test-dir build -R python"):
        assert needle in doc, needle
    start = doc.index("```python")
    quick = doc[start:doc.index("```", start + 9)].strip("`").split("\n")[1:]
    assert len([line for line in quick if line.strip()]) <= 10  # a ten-line quick start
