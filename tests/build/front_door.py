#!/usr/bin/env python3
"""lib/gpu has one front door and one lock.

Usage: front_door.py SOURCE_DIR --nm NM GPU_OBJECT.o ... --callers CALLER_OBJECT.o ...

1. The callers of lib/gpu (lib/session.c and the injection runtime,
   lib/inject/*.c) include no lib/gpu header but pc_gpu.h.
2. Every lib/gpu symbol their objects need is defined by the objects that
   implement pc_gpu.h (pc_gpu.c, pc_harvest.c) or is declared in pc_gpu.h:
   the include rule cannot be dodged with a forward declaration.
3. Locks sit beside what they guard, one per owner: every mutex or rwlock
   that lib/gpu declares (a file-scope variable or a struct field; a
   pointer to a borrowed one does not count) is the loader's, in pc_cupti.c's
   process struct, or the collector's two (its lock and its launch gate,
   pc_collector.c); lib/inject declares one per library (the runtime's,
   pc_inject_rt.c; the loader's, pc_inject.c).
Prints what it checked; exit 1 on a violation.
"""
import argparse
import os
import re
import subprocess
import sys


def nm_symbols(nm, obj):
    out = subprocess.run([nm, "--format=posix", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        if parts[1] == "U":
            undefined.add(parts[0])
        elif parts[1].isupper():
            defined.add(parts[0])
    return defined, undefined


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("--nm", default="nm")
    ap.add_argument("objects", nargs="+")
    ap.add_argument("--callers", nargs="+", required=True)
    a = ap.parse_args()
    gpu_objs, caller_objs = a.objects, a.callers
    bad = 0
    lib = os.path.join(a.source, "lib")

    # 1. includes
    callers = [os.path.join(lib, "session.c")] + sorted(
        os.path.join(lib, "inject", f) for f in os.listdir(os.path.join(lib, "inject")) if f.endswith((".c", ".h")))
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    for path in callers:
        text = open(path, encoding="utf-8").read()
        for name in inc.findall(text):
            if "gpu/" in name and os.path.basename(name) != "pc_gpu.h":
                print("%s includes %s: only pc_gpu.h of lib/gpu" % (os.path.relpath(path, a.source), name))
                bad += 1
    if not bad:
        print("includes: %d caller files include no lib/gpu header but pc_gpu.h" % len(callers))

    # 2. symbols
    front = open(os.path.join(lib, "gpu", "pc_gpu.h"), encoding="utf-8").read()
    declared = set(re.findall(r"\b(pc_[a-z0-9_]+)\s*\(", front))
    door_defs, gpu_defs = set(), {}
    for obj in gpu_objs:
        d, _ = nm_symbols(a.nm, obj)
        base = os.path.basename(obj)
        for s in d:
            gpu_defs[s] = base
        if base.startswith(("pc_gpu.c", "pc_harvest.c")):
            door_defs |= d
    nsym = 0
    for obj in caller_objs:
        _, u = nm_symbols(a.nm, obj)
        for s in sorted(u):
            if s not in gpu_defs:
                continue
            nsym += 1
            if s not in door_defs and s not in declared:
                print("%s calls %s (%s), which pc_gpu.h does not offer" % (os.path.basename(obj), s, gpu_defs[s]))
                bad += 1
    print("symbols: %d lib/gpu symbols used by %d caller objects, all through pc_gpu.h" % (nsym, len(caller_objs)))

    # 3. locks
    lock = re.compile(r"^\s*(?:static\s+)?pthread_(?:mutex|rwlock)_t\s+\w+", re.M)
    allowed = {"gpu": {"pc_cupti.c": 1, "pc_collector.c": 2}, "inject": {"pc_inject_rt.c": 1, "pc_inject.c": 1}}
    for room, want in sorted(allowed.items()):
        found = {}
        d = os.path.join(lib, room)
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                n = len(lock.findall(open(os.path.join(d, f), encoding="utf-8").read()))
                if n:
                    found[f] = n
        if found != want:
            print("lib/%s declares locks %s; expected %s (each beside the state it guards)" % (room, found, want))
            bad += 1
        else:
            print("locks: lib/%s's: %s" % (room, ", ".join("%s %d" % kv for kv in sorted(found.items()))))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
