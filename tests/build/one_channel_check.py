#!/usr/bin/env python3
"""build.one_channel: one error channel and one way to the program's stderr
(docs/architecture.md, "Errors").

  one_channel_check.py [--min-files N] SOURCE_DIR

Reads every C source under lib/ and tools/ (comments and string literals
left out) and fails on:

  a message buffer   told by its types, whatever its name: a writable
                     `char *, size_t` parameter pair of a function that can
                     fail (it returns perfcheck_status or int, or takes a
                     pc_err *).  A failure's reason goes into the caller's
                     pc_err (lib/core/base/pc_err.h), never beside it; a
                     function whose text is its result (a path, a name) says
                     so on that line with "one-channel-ok: REASON";
  a stderr write     under lib/ only (tools/ is the command, whose messages
                     are its own): fprintf, vfprintf, fputs, fputc, putc,
                     fwrite or dprintf to stderr (or fd 2), write(2, ...),
                     perror, anywhere but lib/core/base/pc_err.c: the
                     libraries' lines go through pc_say / pc_say_to.

Exit 0 with a summary; 1 naming each offending file:line.  A line may be
exempted with a comment holding "one-channel-ok: REASON" (the checklist's
pc_waits_on_memory, whose buffer is a verdict's reason, not an error; the
functions whose text is their result).
"""
import os
import re
import sys

C_DIRS = ["lib", "tools"]
ALLOWED_STDERR = {os.path.join("lib", "core", "base", "pc_err.c")}

# A writable `char *NAME, size_t LEN` pair (not `const char *`).
PAIR = re.compile(r"(?<![\w*])(?<!const )\bchar\s*\*\s*\w+\s*,\s*size_t\s+\w+")
FALLIBLE_RETURN = re.compile(r"\b(perfcheck_status|int)\s*$")
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


def message_buffers(code):
    """Offsets of writable char*/size_t pairs in the parameters of functions
    that can fail: the return type before the name is perfcheck_status or
    int, or the parameter list takes a pc_err *."""
    for m in PAIR.finditer(code):
        if code[max(0, m.start() - 6):m.start()].strip().endswith("const"):
            continue
        depth, i = 0, m.start()
        while i > 0:  # the parameter list's opening parenthesis
            i -= 1
            if code[i] == ")":
                depth += 1
            elif code[i] == "(":
                if depth == 0:
                    break
                depth -= 1
        if i <= 0:
            continue
        close, depth = m.end(), 0
        while close < len(code):
            if code[close] == "(":
                depth += 1
            elif code[close] == ")":
                if depth == 0:
                    break
                depth -= 1
            close += 1
        params = code[i + 1:close]
        head = code[:i].rstrip()
        name = re.search(r"(\w+)\s*$", head)
        if not name:
            continue
        before = head[:name.start()]
        start = max(before.rfind(";"), before.rfind("}"), before.rfind("{"), before.rfind("#"))
        ret = " ".join(before[start + 1:].split())
        if "pc_err *" in " ".join(params.split()) or "pc_err*" in params or FALLIBLE_RETURN.search(ret):
            yield m


def check(path, rel, problems):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.split("\n")
    code = blank_c(text)
    for m in message_buffers(code):
        line = code.count("\n", 0, m.start()) + 1
        if "one-channel-ok:" not in lines[line - 1]:
            problems.append("%s:%d: %s: a message buffer beside a failure; put the reason in a pc_err * "
                            "(lib/core/base/pc_err.h)" % (rel, line, " ".join(m.group(0).split())))
    rules = []
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
