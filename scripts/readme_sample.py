#!/usr/bin/env python3
"""The README's sample output, printed by the command itself.

    readme_sample.py [--perfcheck build/bin/perfcheck] [--check | --write] [README.md]

Runs `perfcheck diagnose` on the demo's offline export (the one scripts/demo.sh
diagnoses where there is no GPU) and keeps the lines that SELECT picks: the
verdicts with their evidence.  With no option it prints the block; --check
compares it with the README's block between the SAMPLE OUTPUT markers (exit 1
when they differ, with a diff); --write replaces that block.  ctest
unit.readme_sample runs --check, so the README never shows output the
command no longer prints.  When the report's layout changes, run --write; when
SELECT no longer finds its lines, change SELECT below.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPORT = "tests/data/corpus/h200-2026-12-01/mystery.csv.gz"  # scripts/demo.sh's export_csv
BEGIN = "<!-- BEGIN SAMPLE OUTPUT (scripts/readme_sample.py --write) -->"
END = "<!-- END SAMPLE OUTPUT -->"
# The lines shown: from the first line matching START up to (not including)
# the first empty line after it, each verdict's line and its advice (KEEP);
# the report's other lines under a verdict (time, findings) are left out.
SELECT_START = r"^Verdicts\b"
KEEP = r"^(\S|  advice: )"


def sample(perfcheck):
    cmd = [perfcheck, "diagnose", "-q", EXPORT]
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit("readme_sample: %s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    lines = p.stdout.split("\n")
    start = next((i for i, line in enumerate(lines) if re.search(SELECT_START, line)), None)
    if start is None:
        sys.exit("readme_sample: no line of `perfcheck diagnose %s` matches %r: the report's layout changed; "
                 "change SELECT_START in %s" % (EXPORT, SELECT_START, os.path.relpath(__file__, ROOT)))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    shown = [line for line in lines[start:end] if re.match(KEEP, line)]
    return "\n".join(["```console", "$ perfcheck diagnose " + EXPORT, "..."] + shown + ["```"]) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--perfcheck", default=os.path.join(ROOT, "build", "bin", "perfcheck"))
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when the README's block differs")
    mode.add_argument("--write", action="store_true", help="replace the README's block")
    ap.add_argument("readme", nargs="?", default=os.path.join(ROOT, "README.md"))
    a = ap.parse_args()
    block = sample(a.perfcheck)
    if not (a.check or a.write):
        sys.stdout.write(block)
        return 0
    with open(a.readme, encoding="utf-8") as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit("readme_sample: %s has no %r ... %r markers" % (a.readme, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    old, tail = rest.split(END, 1)
    old = old.lstrip("\n")
    if a.check:
        if old == block:
            print("readme_sample: %s shows what `perfcheck diagnose %s` prints" % (a.readme, EXPORT))
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), block.splitlines(True),
                                                   "README (committed)", "perfcheck (now)"))
        print("readme_sample: the README's sample output is stale: run scripts/readme_sample.py --write")
        return 1
    with open(a.readme, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + block + END + tail)
    print("readme_sample: %s: sample output rewritten (%d lines)" % (a.readme, block.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
