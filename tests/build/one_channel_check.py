#!/usr/bin/env python3
"""build.one_channel: one error channel and one way to the program's stderr
(issue 23 item 3; docs/architecture.md, "Errors").

  one_channel_check.py [--min-files N] SOURCE_DIR

Reads every C source under lib/ and tools/ (comments and string literals
left out) and fails on:

  a message buffer   a parameter pair `char *NAME, size_t LEN` with NAME one
                     of why, err, error, errbuf, errmsg, msg, reason, bad, or
                     a parameter named whylen, errlen or msglen: an internal
                     call returns a perfcheck_status and fills the caller's
                     pc_err (lib/core/base/pc_err.h) instead;
  a stderr write     under lib/ only (tools/ is the command, whose messages
                     are its own): fprintf, vfprintf, fputs, fputc, putc,
                     fwrite or dprintf to stderr (or fd 2), write(2, ...),
                     perror, anywhere but lib/core/base/pc_err.c: the
                     libraries' lines go through pc_say / pc_say_to.

Exit 0 with a summary; 1 naming each offending file:line.  A line may be
exempted with a comment holding "one-channel-ok: REASON" (one is today: the
checklist's pc_waits_on_memory, whose buffer is a verdict's reason, not an
error).
"""
import os
import re
import sys

C_DIRS = ["lib", "tools"]
ALLOWED_STDERR = {os.path.join("lib", "core", "base", "pc_err.c")}

BUFFER = re.compile(r"\bchar\s*\*\s*(why|err|error|errbuf|errmsg|msg|reason|bad)\s*,\s*size_t\b"
                    r"|\bsize_t\s+(whylen|errlen|msglen)\b")
STDERR = re.compile(r"\b(fprintf|vfprintf|dprintf)\s*\(\s*(stderr|2|STDERR_FILENO)\s*,"
                    r"|\b(fputs|fputc|putc|fwrite)\s*\([^;]*,\s*stderr\s*\)"
                    r"|\bwrite\s*\(\s*(2|STDERR_FILENO)\s*,"
                    r"|\bperror\s*\(")


def blank_c(text):
    """Comments and the contents of string and char literals replaced by
    spaces (newlines kept), so that offsets and line numbers stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(q + " " * (min(j, n) - i - 1) + (q if j < n else ""))
            i = j + 1
            continue
        else:
            out.append(text[i])
            i += 1
            continue
        out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
        i = j
    return "".join(out)


def check(path, rel, problems):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    code = blank_c(text)
    rules = [(BUFFER, "a message buffer; take a pc_err * (lib/core/base/pc_err.h)")]
    if rel.split(os.sep)[0] == "lib" and rel not in ALLOWED_STDERR:
        rules.append((STDERR, "writes to stderr; use pc_say or pc_say_to (lib/core/base/pc_err.h)"))
    for rx, why in rules:
        for m in rx.finditer(code):
            line = code.count("\n", 0, m.start()) + 1
            if "one-channel-ok:" in lines[line - 1]:
                continue
            problems.append("%s:%d: %s: %s" % (rel, line, " ".join(m.group(0).split()), why))


def main(argv):
    min_files = 20
    if len(argv) > 2 and argv[1] == "--min-files":
        min_files = int(argv[2])
        argv = argv[:1] + argv[3:]
    if len(argv) != 2:
        print(__doc__)
        return 2
    root = argv[1]
    problems, nfiles = [], 0
    for d in C_DIRS:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    path = os.path.join(base, f)
                    nfiles += 1
                    check(path, os.path.relpath(path, root), problems)
    if nfiles < min_files:
        problems.append("only %d source files found under %s: wrong SOURCE_DIR?" % (nfiles, root))
    for p in problems:
        print("FAIL " + p)
    if problems:
        print("one_channel_check: %d problem(s)" % len(problems))
        return 1
    print("one_channel_check: %d files: no message buffer, and lib/ writes to stderr through "
          "lib/core/base/pc_err.c only" % nfiles)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
