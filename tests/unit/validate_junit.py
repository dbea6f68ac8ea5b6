#!/usr/bin/env python3
"""Validates a JUnit XML file written by perfcheck with a real XML parser.

Usage: validate_junit.py FILE [--tests N] [--failures N] [--contains TEXT]...
                         [--replacement] [-- CMD ARG...]

CMD (everything after --; FILE is appended to it) runs first, must write
FILE, and must exit 0 or with --run-exit's code.  The file must parse as XML 1.0; the counts on
<testsuites> and <testsuite> must match the <testcase> and <failure>
elements; every testcase needs classname and name; every failure a message.
--contains: TEXT must occur (after XML decoding) in a testcase name or a
failure message.  --replacement: U+FFFD must occur (hostile input was
replaced, not dropped or passed through).
"""
import argparse
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run-exit", type=int, default=0)
    ap.add_argument("file")
    ap.add_argument("--tests", type=int)
    ap.add_argument("--failures", type=int)
    ap.add_argument("--contains", action="append", default=[])
    ap.add_argument("--replacement", action="store_true")
    argv = sys.argv[1:]
    run = []
    if "--" in argv:
        run = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    a = ap.parse_args(argv)
    if run:
        rc = subprocess.call(run + [a.file])
        if rc != a.run_exit:
            print(f"{' '.join(run)} {a.file} exited {rc}, expected {a.run_exit}")
            return 1
    try:
        root = ET.parse(a.file).getroot()
    except ET.ParseError as e:
        print(f"{a.file}: not well-formed XML: {e}")
        return 1
    if root.tag != "testsuites":
        print(f"root element is <{root.tag}>, not <testsuites>")
        return 1
    cases = root.findall("./testsuite/testcase")
    failures = root.findall("./testsuite/testcase/failure")
    errors = []
    for node in [root] + root.findall("./testsuite"):
        if int(node.get("tests", -1)) != len(cases):
            errors.append(f"<{node.tag}> tests={node.get('tests')} but {len(cases)} testcases")
        if int(node.get("failures", -1)) != len(failures):
            errors.append(f"<{node.tag}> failures={node.get('failures')} but {len(failures)} failures")
    for c in cases:
        if not c.get("classname") or not c.get("name"):
            errors.append(f"testcase without classname or name: {c.attrib}")
    for f in failures:
        if not f.get("message"):
            errors.append("failure without a message")
    if a.tests is not None and len(cases) != a.tests:
        errors.append(f"{len(cases)} testcases, expected {a.tests}")
    if a.failures is not None and len(failures) != a.failures:
        errors.append(f"{len(failures)} failures, expected {a.failures}")
    texts = [c.get("name", "") for c in cases] + [f.get("message", "") for f in failures]
    texts += [f.text or "" for f in failures]
    for t in a.contains:
        if not any(t in x for x in texts):
            errors.append(f"no testcase name or failure message contains {t!r}")
    if a.replacement and not any("\ufffd" in x for x in texts):
        errors.append("no U+FFFD replacement character found")
    for e in errors:
        print(e)
    if errors:
        return 1
    print(f"{a.file}: valid JUnit XML, {len(cases)} testcases, {len(failures)} failures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
