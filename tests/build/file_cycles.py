#!/usr/bin/env python3
"""No two files of lib/ depend on each other in a loop, and lib/core's rooms
depend on each other one way.

Usage: file_cycles.py [--nm NM] [--include-root DIR ...] OBJECT.o ...

The graph is built from the object files themselves: file A depends on file
B when A's object needs (nm: undefined, U) a symbol
that B's object defines (nm: T, D, B, R, ...).  Every strongly connected
component of more than one file is a loop; each is printed with one path
around it, and the exit status is 1.  Symbols that no given object defines
(libc, libm, CUPTI through dlsym) are ignored.  Exit 0 prints the file count
and the edge count.

The rooms: a file of lib/core lives in a folder (lib/core/README.md), and a
file of one room may need symbols of the rooms ROOMS lists for it, and of its
own, only (read/ never needs write/ nor report/, ...).  A file whose path has
no core/ROOM/ (lib/gpu, lib/session.c, the probes) is not in a room.  Every
step against that order is printed, and the exit status is 1.

A room is its headers too: with --include-root DIR (lib/core, the one include
root), every .c and .h file of DIR/ROOM/ is read for its #include "ROOM/x.h"
lines, and a file may include headers of its own room and of the rooms ROOMS
lists for it only.  An include that climbs (a header of read/ including one
of report/, even for a type alone, which no symbol shows) is printed, and
the exit status is 1.
"""
import argparse
import os
import re
import subprocess
import sys


# What each room of lib/core may need besides itself: the order of
# lib/core/README.md (base, then model, then capture, check and expect, then
# read, write, report).  Closed under "needs": a room may need what the rooms
# it needs may need.
ROOMS = {
    "base": set(),
    "model": {"base"},
    "capture": {"base", "model"},
    "check": {"base", "model"},
    "expect": {"base", "model"},
    "read": {"base", "model", "check"},
    "write": {"base", "model", "check", "expect"},
    "report": {"base", "model", "check", "expect", "read", "write"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/([^"]+)"', re.M)


def include_steps(root):
    """The #include edges between rooms under an include root: returns
    (files, edges, bad), bad a list of messages for the includes that climb."""
    files, edges, bad = 0, {}, []
    for room in sorted(os.listdir(root)):
        folder = os.path.join(root, room)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".c", ".h")):
                continue
            files += 1
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                if target == room or not os.path.isdir(os.path.join(root, target)):
                    continue
                edges[(room, target)] = edges.get((room, target), 0) + 1
                if room not in ROOMS:
                    bad.append("%s/%s: room %s/ is not in file_cycles.py's ROOMS" % (room, name, room))
                elif target not in ROOMS[room]:
                    bad.append("%s/ includes %s/: %s/%s includes \"%s/%s\"" % (room, target, room, name, target, m.group(2)))
    return files, edges, bad


def room_of(name):
    """The room of a file: the folder after the path's last core/, if the
    file lies one folder below it."""
    parts = name.split("/")
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "core":
            rest = parts[i + 1:]
            return rest[0] if len(rest) == 2 else None
    return None


def source_name(obj):
    # CMake names objects .../CMakeFiles/<target>.dir/<path>/<file>.c.o; the
    # name shown is <path>/<file>.c, relative to the target's source folder
    p = obj.replace(os.sep, "/")
    if ".dir/" in p:
        p = p.split(".dir/", 1)[1]
    if p.endswith(".o"):
        p = p[:-2]
    return p


def symbols(nm, obj):
    out = subprocess.run([nm, "--format=posix", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind.isupper() and kind not in ("N",):  # global definitions only (lower case: file-local)
            defined.add(name)
    return defined, undefined


def sccs(nodes, edges):
    """Tarjan's algorithm, iterative."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def loop_path(comp, edges):
    """One closed walk through the component, for the message."""
    members = set(comp)
    start = comp[0]
    # BFS from start back to start inside the component.
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--include-root", action="append", default=[],
                    help="an include root whose folders are rooms (lib/core): check its #include lines")
    ap.add_argument("objects", nargs="+")
    a = ap.parse_args()
    objs = [o for o in a.objects if o.endswith(".o")]
    if not objs:
        print("file_cycles: no object files given")
        return 2
    names, defs, undefs = [], {}, {}
    for o in objs:
        n = source_name(o)
        if n in defs:  # one source in two targets (core/base/pc_err.c: the core and the injection loader)
            continue
        names.append(n)
        defs[n], undefs[n] = symbols(a.nm, o)
    owner = {}
    for n in names:
        for s in defs[n]:
            owner.setdefault(s, n)
    edges = {n: set() for n in names}
    why = {}
    for n in names:
        for s in undefs[n]:
            m = owner.get(s)
            if m and m != n:
                edges[n].add(m)
                why.setdefault((n, m), s)
    loops = [c for c in sccs(names, edges) if len(c) > 1]
    bad = 0
    if loops:
        for c in loops:
            path = loop_path(c, edges)
            print("loop among %d files: %s" % (len(c), ", ".join(c)))
            for x, y in zip(path, path[1:]):
                print("  %s -> %s (needs %s)" % (x, y, why[(x, y)]))
        bad = 1
    # the rooms, one way
    steps = {}
    for n in names:
        rn = room_of(n)
        if rn is None:
            continue
        if rn not in ROOMS:
            print("%s: room %s/ is not in file_cycles.py's ROOMS" % (n, rn))
            bad = 1
            continue
        for m in sorted(edges[n]):
            rm = room_of(m)
            if rm is None or rm == rn:
                continue
            steps.setdefault((rn, rm), 0)
            steps[(rn, rm)] += 1
            if rm not in ROOMS[rn]:
                print("%s/ depends on %s/: %s -> %s (needs %s)" % (rn, rm, n, m, why[(n, m)]))
                bad = 1
    inc_files, inc_edges = 0, {}
    for root in a.include_root:
        n_files, edges_r, msgs = include_steps(root)
        inc_files += n_files
        for k, v in edges_r.items():
            inc_edges[k] = inc_edges.get(k, 0) + v
        for msg in msgs:
            print(msg)
            bad = 1
    if bad:
        return 1
    print("file_cycles: %d files, %d dependencies, no loop" % (len(names), sum(len(e) for e in edges.values())))
    if steps:
        print("rooms: %d files in %d rooms, %d dependencies between rooms, all one way (%s)" % (
            sum(1 for n in names if room_of(n)), len({room_of(n) for n in names if room_of(n)}),
            sum(steps.values()), ", ".join("%s->%s %d" % (a, b, c) for (a, b), c in sorted(steps.items()))))
    if a.include_root:
        print("includes: %d files, %d includes between rooms, all one way (%s)" % (
            inc_files, sum(inc_edges.values()), ", ".join("%s->%s %d" % (x, y, c) for (x, y), c in sorted(inc_edges.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
