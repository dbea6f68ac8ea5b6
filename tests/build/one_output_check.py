#!/usr/bin/env python3
"""build.one_output: every file the library, the `perfcheck` command or the
Python package writes goes through the one output function.

  one_output_check.py [--min-files N] SOURCE_DIR [LIBRARY.so ...]

The one output function is lib/core/base/pc_output.c's pc_output_write_file
(for Python: perfcheck_file_write, through the C API).  This check reads
every C source under lib/ and tools/ and every module of python/perfcheck/
and fails on a call that opens, creates, renames or links a file for
writing anywhere else:

  C        fopen/fdopen/freopen/popen with a mode holding w, a or + (or a
           mode that is not a literal); open/openat with O_WRONLY, O_RDWR,
           O_CREAT, O_TRUNC or O_APPEND; creat, rename, renameat(2),
           link(at), symlink(at), mkstemp and friends, tmpfile, truncate.
  Python   open() with a mode holding w, a, x or +; os.open, os.rename,
           os.replace, os.link, os.symlink, shutil's copies and moves,
           Path.write_text/write_bytes/touch, tempfile.

It also reads what every LIBRARY.so imports (nm -D): plain getenv there
means a variable read outside secure_getenv, which a privileged process must
not do (lib/ has none, and nvtx3's loader is compiled with getenv defined as
secure_getenv).

Exit 0 with a summary; 1 naming each offending file:line.  A line may be
exempted with a comment holding "one-output-ok: REASON" (one is now:
perfcheck run's LD_PRELOAD alias, a symlink in a folder it just made).
"""
import os
import re
import shutil
import subprocess
import sys

ALLOWED_C = {os.path.join("lib", "core", "base", "pc_output.c")}

C_DIRS = ["lib", "tools"]
PY_DIRS = [os.path.join("python", "perfcheck")]


def strip_c(text):
    """Comments removed (newlines kept); a second copy with string and char
    literal contents blanked too, at the same offsets."""
    out, blank = [], []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            seg = "".join(ch if ch == "\n" else " " for ch in text[i:j])
            out.append(seg)
            blank.append(seg)
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            blank.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(text[i:j])
            blank.append(c + "".join(ch if ch == "\n" else "_" for ch in text[i + 1:j - 1]) + (c if j - i > 1 else ""))
            i = j
        else:
            out.append(c)
            blank.append(c)
            i += 1
    return "".join(out), "".join(blank)


def call_args(text, start):
    """The text between the '(' at `start` and its matching ')'."""
    depth, i = 0, start
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:i]
        i += 1
    return text[start + 1:]


def split_args(args):
    parts, depth, cur = [], 0, []
    for ch in args:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts]


FORBIDDEN_C = ["creat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat", "mkstemp",
               "mkstemps", "mkostemp", "mkostemps", "tmpfile", "truncate", "ftruncate", "tmpnam", "tempnam"]
WRITE_FLAGS = re.compile(r"\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b")


def check_c(path, rel, problems):
    text = open(path, encoding="utf-8", errors="replace").read()
    code, blank = strip_c(text)
    lines = text.split("\n")

    def where(off):
        line = blank.count("\n", 0, off) + 1
        if "one-output-ok:" in lines[line - 1]:
            return None
        return line

    for m in re.finditer(r"(?<![A-Za-z0-9_.>])(fopen|fopen64|fdopen|freopen|popen)\s*\(", blank):
        args = split_args(call_args(code, m.end() - 1))
        mode = args[1] if len(args) > 1 else ""
        lit = re.fullmatch(r'"([^"]*)"', mode)
        if lit and not re.search(r"[wa+]", lit.group(1)):
            continue
        line = where(m.start())
        if line:
            problems.append("%s:%d: %s(..., %s) writes a file outside the one output function" % (
                rel, line, m.group(1), mode or "?"))
    for m in re.finditer(r"(?<![A-Za-z0-9_.>])(open|open64|openat|openat64)\s*\(", blank):
        args = call_args(blank, m.end() - 1)
        if WRITE_FLAGS.search(args):
            line = where(m.start())
            if line:
                problems.append("%s:%d: %s(...) with %s opens a file for writing outside the one output function"
                                % (rel, line, m.group(1), WRITE_FLAGS.search(args).group(0)))
    for m in re.finditer(r"(?<![A-Za-z0-9_.>])(%s)\s*\(" % "|".join(FORBIDDEN_C), blank):
        line = where(m.start())
        if line:
            problems.append("%s:%d: %s() outside the one output function" % (rel, line, m.group(1)))


PY_PATTERNS = [
    (re.compile(r"\bos\.(open|rename|replace|link|symlink|truncate)\s*\("), "os.%s"),
    (re.compile(r"\bshutil\.(copy\w*|move)\s*\("), "shutil.%s"),
    (re.compile(r"\.(write_text|write_bytes|touch)\s*\("), ".%s"),
    (re.compile(r"\btempfile\.(\w+)"), "tempfile.%s"),
]


def check_py(path, rel, problems):
    text = open(path, encoding="utf-8", errors="replace").read()
    for no, line in enumerate(text.split("\n"), 1):
        code = line.split("#", 1)[0]
        if "one-output-ok:" in line:
            continue
        for m in re.finditer(r"(?<![\w.])open\s*\(", code):
            args = split_args(call_args(text.split("\n", no - 1)[-1], m.end() - 1))
            mode = None
            for a in args[1:]:
                if a.startswith("mode="):
                    mode = a[5:]
            if mode is None and len(args) > 1 and not re.match(r"\w+=", args[1]):
                mode = args[1]
            if mode is None:
                continue  # "r", the default
            lit = re.fullmatch(r"[rRbB]*[\"']([^\"']*)[\"']", mode)
            if lit and not re.search(r"[wax+]", lit.group(1)):
                continue
            problems.append("%s:%d: open(..., %s) writes a file outside perfcheck_file_write" % (rel, no, mode))
        for pat, what in PY_PATTERNS:
            for m in pat.finditer(code):
                problems.append("%s:%d: %s writes a file outside perfcheck_file_write" % (rel, no, what % m.group(1)))


def check_imports(lib, problems):
    nm = shutil.which("nm")
    if not nm:
        print("one_output_check: no nm: the imports of %s are not checked" % lib)
        return
    out = subprocess.run([nm, "-D", "--undefined-only", lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if out.returncode != 0:
        problems.append("%s: nm failed: %s" % (lib, out.stderr.strip()))
        return
    for line in out.stdout.split("\n"):
        sym = line.split()[-1].split("@")[0] if line.split() else ""
        if sym == "getenv":
            problems.append("%s imports getenv: a variable is read without secure_getenv "
                            "(nm -D --undefined-only; objdump -dr the objects to find it)" % lib)


def main(argv):
    min_files = 20
    if len(argv) > 2 and argv[1] == "--min-files":
        min_files = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    problems, nfiles = [], 0
    for d in C_DIRS:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(base, f)
                rel = os.path.relpath(path, root)
                nfiles += 1
                if rel not in ALLOWED_C:
                    check_c(path, rel, problems)
    for d in PY_DIRS:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(base, f)
                    nfiles += 1
                    check_py(path, os.path.relpath(path, root), problems)
    if nfiles < min_files:
        problems.append("only %d source files found under %s: wrong SOURCE_DIR?" % (nfiles, root))
    for lib in argv[2:]:
        check_imports(lib, problems)
    for p in problems:
        print("FAIL " + p)
    if problems:
        print("one_output_check: %d problem(s); write through pc_output_write_file (lib/core/base/pc_output.h) or "
              "perfcheck_file_write" % len(problems))
        return 1
    print("one_output_check: %d files: every file write goes through lib/core/base/pc_output.c; %d librar%s import no "
          "getenv" % (nfiles, len(argv) - 2, "y" if len(argv) == 3 else "ies"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
