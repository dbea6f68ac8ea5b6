#!/usr/bin/env python3
"""The docs keep their promises (ctest build.docs).

    docs_check.py SOURCE_DIR

- README.md is a manual: at most 400 lines.
- The README's test command is the one CI runs: .ci/run's line between
  "# BEGIN README TEST COMMAND" and "# END README TEST COMMAND" appears in
  the README, character for character.
- The README's prerequisites line (`apt-get install ...`) names every Debian
  package .ci/run installs for the tests.
- Every relative link of README.md and docs/*.md reaches a file, and a
  link's #anchor a heading of that Markdown file (GitHub's slugs).
- The product speaks of the product: README.md and docs/*.md (not
  docs/measurements/, which holds the dated notes) mention no issue numbers,
  no "today", and a date only as part of a path, a measurement folder's
  name or a table's date column.
Prints each failure; exit 1 when there is one.
"""
import glob
import os
import re
import sys

MAX_README_LINES = 400


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    s = re.sub(r"`", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out = set()
    with open(path, encoding="utf-8") as f:
        in_code = False
        for line in f:
            if line.startswith("```"):
                in_code = not in_code
            elif not in_code and line.startswith("#"):
                out.add(slug(line.lstrip("#")))
    return out


def main():
    src = sys.argv[1]
    bad = []
    readme_path = os.path.join(src, "README.md")
    readme = open(readme_path, encoding="utf-8").read()
    ci = open(os.path.join(src, ".ci", "run"), encoding="utf-8").read()

    n = readme.count("\n")
    if n > MAX_README_LINES:
        bad.append("README.md has %d lines, more than %d: move reference material to docs/" % (n, MAX_README_LINES))

    m = re.search(r"# BEGIN README TEST COMMAND\n(.*?)\n# END README TEST COMMAND", ci, re.S)
    if not m:
        bad.append(".ci/run has no README TEST COMMAND markers")
    elif m.group(1).strip() not in readme:
        bad.append("README.md lacks .ci/run's test command: %s" % m.group(1).strip())

    line = next((ln for ln in readme.splitlines() if "apt-get install" in ln), None)
    if not line:
        bad.append("README.md has no apt-get install line")
    else:
        named = set(line.split("apt-get install", 1)[1].split())
        ci_pkgs = set()
        for loop in re.findall(r"^for p in ([^;]+); do", ci, re.M):
            ci_pkgs.update(loop.split())
        if not ci_pkgs:
            bad.append(".ci/run: no 'for p in ...; do' package lists found")
        for p in sorted(ci_pkgs - named):
            bad.append("README.md's apt-get line lacks %s, which .ci/run installs for the tests" % p)

    docs = [readme_path] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    docs.append(os.path.join(src, "docs", "measurements", "README.md"))
    link = re.compile(r"\]\(([^)\s]+)\)")
    for path in docs:
        rel = os.path.relpath(path, src)
        text = open(path, encoding="utf-8").read()
        for target in link.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                bad.append("%s: link to %s: no such file" % (rel, target))
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                bad.append("%s: link to %s: no heading #%s in %s" % (rel, target, frag, os.path.relpath(dest, src)))
        if os.sep + "measurements" + os.sep in path:
            continue
        for i, ln in enumerate(text.splitlines(), 1):
            if re.search(r"\bissues? #?\d+(?![.\-\d])", ln, re.I):
                bad.append("%s:%d: an issue number (history goes in commit messages): %s" % (rel, i, ln.strip()))
            if re.search(r"\btoday\b", ln, re.I):
                bad.append("%s:%d: 'today' (the docs describe the product as it is): %s" % (rel, i, ln.strip()))
            for d in re.finditer(r"\d{4}-\d\d-\d\d", ln):
                start = ln.rfind(" ", 0, d.start()) + 1
                end = ln.find(" ", d.end())
                token = ln[start:end if end >= 0 else len(ln)]
                if not re.search(r"/|h200|\|", token) and "| 20" not in ln:
                    bad.append("%s:%d: a date outside a path or measurement table (dated notes go to "
                               "docs/measurements/): %s" % (rel, i, ln.strip()))
    for b in bad:
        print("FAIL:", b)
    if not bad:
        print("docs: README.md %d lines; test command, prerequisites, links and wording as promised" % n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
