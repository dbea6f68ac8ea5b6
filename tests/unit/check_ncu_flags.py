#!/usr/bin/env python3
"""ncu's options against `perfcheck run` (and `perfcheck diagnose`), read from
ncu's own --help text.

Every option of the help text must either work in `perfcheck run` with the
same arity as ncu's (a switch stays a switch, an option with a value takes
exactly one), or be refused by name ("ncu's --X is not supported here:
..."), never taken for the program or for another option's value.  The
options listed below must work: --nvtx (a switch), --nvtx-include,
--nvtx-exclude (ncu's push/pop syntax), -k/--kernel-name, -c/--launch-count,
-s/--launch-skip, --set (basic, detailed, full), --metrics, -o/--export,
--csv; and on `perfcheck diagnose`, --csv and -o/--export.

The options are written `  -k [ --kernel-name ] arg` or `  --nvtx`, as
ncu's --help (boost program_options) prints them.  The committed help file
(tests/data/ncu/ncu-help.documented.txt) is transcribed from NVIDIA's
documentation; scripts/device/bench tools runs this script on the
real `ncu --help` of the GPU machine.

usage: check_ncu_flags.py PERFCHECK HELP_FILE DATA_DIR
"""
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile

OPTION = re.compile(r"^\s{1,4}(?:-(\w) \[ --([\w-]+) \]|--([\w-]+))(?:\s+(arg)\b)?")

# The options that must work: they must exist in ncu's text with this
# arity, and work in `perfcheck run` with a valid value.
MUST_WORK = {
    "nvtx": (False, None),
    "nvtx-include": (True, "train/"),
    "nvtx-exclude": (True, "warmup/"),
    "kernel-name": (True, "mysteryA"),
    "launch-count": (True, "1"),
    "launch-skip": (True, "0"),
    "set": (True, "full"),
    "metrics": (True, "gpu__time_duration.sum"),
    "export": (True, None),  # a file: filled in below
    "csv": (False, None),
}
# Where perfcheck's meaning differs from ncu's on purpose (docs/cli.md and
# `perfcheck run --help` say so): help and version behave as ncu's; -v is
# --verbose (ncu's -v is --version), still a switch; -f is --format (ncu's
# -f is --force-overwrite, accepted by its long name), so a bare -f is
# refused loudly, never taken silently.
DIFFERS = {"help", "version", "force-overwrite"}
# ncu's own values for options whose value perfcheck reads: ncu's default
# --kernel-name-base works, ncu's --mode is refused with its value named.
VALUES = {"mode": "launch-and-attach", "kernel-name-base": "function"}


def parse(path):
    opts = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = OPTION.match(line)
            if m:
                short, long1, long2, arg = m.groups()
                opts.append((short, long1 or long2, arg is not None))
    return opts


def run(pc, args, env=None):
    return subprocess.run([pc] + args, capture_output=True, text=True, timeout=60, env=env)


def main():
    pc, help_file, data = sys.argv[1], sys.argv[2], sys.argv[3]
    opts = parse(help_file)
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL: " + what)

    check(len(opts) >= 40, "%s: only %d options read" % (help_file, len(opts)))
    names = {o[1]: o for o in opts}
    tmp = tempfile.mkdtemp(prefix="perfcheck ncu flags.")
    atexit.register(shutil.rmtree, tmp, True)  # nothing is left in TMPDIR
    env = dict(os.environ)
    env.pop("PERFCHECK_VERBOSE", None)
    # These options are ncu's, with ncu's arity.
    for name, (takes, _) in MUST_WORK.items():
        o = names.get(name)
        check(o is not None, "ncu's help has no --%s" % name)
        if o:
            check(o[2] == takes, "--%s: ncu's takes %s a value, the test expects %s" % (name, "" if o[2] else "no",
                                                                                       takes))
    shorts = {"k": "kernel-name", "c": "launch-count", "s": "launch-skip", "o": "export"}
    for s, name in shorts.items():
        o = names.get(name)
        check(o is not None and o[0] == s, "ncu's -%s is not --%s" % (s, name))

    accepted, refused = [], []
    for short, name, takes in opts:
        if name in DIFFERS:
            continue
        value = (VALUES.get(name) or MUST_WORK.get(name, (takes, "x"))[1]) if takes else None
        if name == "export":
            value = os.path.join(tmp, "r.txt")
        for flag in ["--" + name] + (["-" + short] if short and short != "v" else []):
            args = ["run", flag] + ([value] if takes else []) + ["/bin/echo", "ok"]
            p = run(pc, args, env)
            label = "perfcheck %s" % " ".join(args)
            if p.returncode == 0:
                check(p.stdout == "ok\n", "%s: exit 0 but stdout %r (an arity taken wrong)" % (label, p.stdout))
                accepted.append(flag)
            else:
                ok = p.returncode == 2 and re.search(r"ncu's --%s( \S+)? is not supported here: " % re.escape(name),
                                                     p.stderr) is not None
                check(ok, "%s: exit %d, neither working nor refused by name: %s" % (label, p.returncode,
                                                                                   p.stderr.strip()[:300]))
                refused.append(flag)
            if name in MUST_WORK:
                check(p.returncode == 0, "%s must work: exit %d %s" % (label, p.returncode, p.stderr.strip()[:200]))
    # A switch never eats the program, an option never eats another option.
    p = run(pc, ["run", "--nvtx", "--nvtx-include", "train/", "/bin/echo", "ok"], env)
    check(p.returncode == 0 and p.stdout == "ok\n", "--nvtx --nvtx-include train/: %r %r" % (p.stdout, p.stderr))
    p = run(pc, ["run", "--nvtx", "--", "/bin/echo", "ok"], env)
    check(p.returncode == 0 and p.stdout == "ok\n", "--nvtx -- PROGRAM: %r %r" % (p.stdout, p.stderr))
    p = run(pc, ["run", "--nvtx-include", "--", "/bin/echo", "ok"], env)
    check(p.returncode == 2 and "--nvtx-include needs a value before '--'" in p.stderr, "value '--': %r" % p.stderr)
    p = run(pc, ["run", "--nvtx", "train", "--", "/bin/echo", "ok"], env)
    check(p.returncode == 2 and "--nvtx is a switch, as ncu's" in p.stderr and "--nvtx-include 'train/'" in p.stderr,
          "--nvtx NAME --: %r" % p.stderr)
    p = run(pc, ["run", "-k", "--set", "full", "/bin/echo", "ok"], env)
    check(p.returncode == 2 and "-k needs a value, not the option '--set'" in p.stderr, "-k --set: %r" % p.stderr)
    # A start/end range (no '/'), and two that must be open at once, as ncu reads them.
    p = run(pc, ["run", "--nvtx-include", "train", "--nvtx-exclude", "warmup,eval", "/bin/echo", "ok"], env)
    check(p.returncode == 0 and p.stdout == "ok\n", "start/end ranges: %r %r" % (p.stdout, p.stderr))
    p = run(pc, ["run", "--nvtx-include", "D@train", "/bin/echo", "ok"], env)
    check(p.returncode == 2 and "names the NVTX domain \"D\"" in p.stderr, "a domain: %r" % p.stderr)
    for s in ("basic", "detailed", "full"):
        p = run(pc, ["metrics", "--set", s])
        check(p.returncode == 0 and "gpu__time_duration.sum" in p.stdout, "metrics --set %s: %r" % (s, p.stderr))
    # The differences, as documented.
    p = run(pc, ["run", "--version"], env)
    check(p.returncode == 0 and p.stdout.startswith("perfcheck "), "--version: %r" % p.stdout)
    p = run(pc, ["run", "--force-overwrite", "/bin/echo", "ok"], env)
    check(p.returncode == 0 and p.stdout == "ok\n", "--force-overwrite: %r" % p.stderr)
    p = run(pc, ["run", "-v", "/bin/echo", "ok"], env)
    check(p.returncode == 0 and p.stdout == "ok\n", "-v (verbose, a switch as ncu's -v): %r" % p.stderr)
    p = run(pc, ["run", "-f", "-o", "x", "/bin/echo", "ok"], env)
    check(p.returncode == 2 and "-f is --format here" in p.stderr, "-f -o: %r" % p.stderr)

    # diagnose: ncu's --csv and -o/--export.
    export = os.path.join(data, "corpus", "h200-2026-12-01", "mystery.csv.gz")
    p = run(pc, ["diagnose", "--csv", export])
    check(p.returncode == 0 and p.stdout.startswith("name,region,"), "diagnose --csv: %r" % p.stderr)
    for flag in ("-o", "--export"):
        out = os.path.join(tmp, "d%s.txt" % flag.strip("-"))
        p = run(pc, ["diagnose", flag, out, export])
        check(p.returncode == 0 and p.stdout == "" and open(out).read().startswith("perfcheck "),
              "diagnose %s FILE: %r" % (flag, p.stderr))
    p = run(pc, ["diagnose", "-k", "mysteryB", export])
    check(p.returncode == 0 and "mysteryB" in p.stdout and "mysteryA" not in p.stdout, "diagnose -k: %r" % p.stderr)

    print("%d ncu options read from %s: %d forms work, %d refused by name" % (len(opts), help_file, len(accepted),
                                                                              len(refused)))
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("ncu flags: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
