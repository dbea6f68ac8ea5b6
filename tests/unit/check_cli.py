#!/usr/bin/env python3
"""Runs a command and checks its exit status and output.

usage: check_cli.py --exit N [--stdout REGEX]... [--stderr REGEX]...
                    [--no-stdout] [--no-stderr] [--stdout-file PATH] -- COMMAND ARGS...

Each REGEX must match somewhere in the stream (Python re, DOTALL).  Used by
the CLI tests of tests/CMakeLists.txt, where ctest alone can check only
"zero or not" and one stream.
"""
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit("usage: check_cli.py --exit N [--stdout RE] [--stderr RE] -- COMMAND...")
    split = args.index("--")
    opts, cmd = args[:split], args[split + 1:]
    want_exit, out_res, err_res, no_stdout, no_stderr, out_file = None, [], [], False, False, None
    i = 0
    while i < len(opts):
        if opts[i] == "--exit":
            want_exit = int(opts[i + 1])
            i += 2
        elif opts[i] == "--stdout":
            out_res.append(opts[i + 1])
            i += 2
        elif opts[i] == "--stderr":
            err_res.append(opts[i + 1])
            i += 2
        elif opts[i] == "--no-stdout":
            no_stdout = True
            i += 1
        elif opts[i] == "--no-stderr":
            no_stderr = True
            i += 1
        elif opts[i] == "--stdout-file":  # e.g. /dev/full, for write errors
            out_file = opts[i + 1]
            i += 2
        else:
            sys.exit("check_cli.py: unknown option %s" % opts[i])
    if out_file:
        with open(out_file, "wb") as f:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, timeout=300)
    else:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    out = (p.stdout or b"").decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    failures = []
    if want_exit is not None and p.returncode != want_exit:
        failures.append("exit status %d, expected %d" % (p.returncode, want_exit))
    for r in out_res:
        if not re.search(r, out, re.DOTALL):
            failures.append("stdout does not match %r" % r)
    for r in err_res:
        if not re.search(r, err, re.DOTALL):
            failures.append("stderr does not match %r" % r)
    if no_stdout and out:
        failures.append("stdout is not empty")
    if no_stderr and err:
        failures.append("stderr is not empty")
    if failures:
        print("command:", " ".join(cmd))
        print("--- stdout ---\n" + out[-4000:])
        print("--- stderr ---\n" + err[-4000:])
        for f in failures:
            print("FAIL:", f)
        sys.exit(1)
    print("ok:", " ".join(cmd))


if __name__ == "__main__":
    main()
