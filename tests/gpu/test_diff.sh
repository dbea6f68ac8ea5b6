#!/usr/bin/env bash
# test_diff.sh PERFCHECK DIFF_PLANT: `perfcheck diff` of real runs on the GPU
# (label gpu; exit 77 without one).
#   - two runs of the same program (diff_plant, coalesced) under `perfcheck run`
#     in counters mode: no change beyond noise, exit 0;
#   - the same program with scale_copy made uncoalesced (diff_plant --planted):
#     exit 1, naming scale_copy with its verdict change to uncoalesced_global_loads
#     (bytes per sector 32 -> 4 by construction: lanes 2 MiB apart) and a slower
#     time; axpy_steady is not named worse.
# Logs and the reports stay in $PERFCHECK_DIFF_KEEP when it is set.
set -u
PERFCHECK=$1 PROG=$2
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
tmp=${PERFCHECK_DIFF_KEEP:-$(mktemp -d)}
mkdir -p "$tmp"
[ -n "${PERFCHECK_DIFF_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT

if ! python3 - <<'PY' >/dev/null 2>&1; then
import ctypes, sys
c = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(0)
sys.exit(0 if c.cuInit(0) == 0 and c.cuDeviceGetCount(ctypes.byref(n)) == 0 and n.value > 0 else 1)
PY
  echo "SKIP: no usable GPU (libcuda.so.1, cuInit and a device are needed)"
  exit 77
fi

for r in a1 a2 b; do
  arg=; [ $r = b ] && arg=--planted
  "$PERFCHECK" run --mode counters --format json --output "$tmp/$r.json" -- "$PROG" $arg > "$tmp/$r.log" 2>&1
  rc=$?
  if [ $rc = 0 ] && [ -s "$tmp/$r.json" ]; then pass "run $r"; else fail "run $r (rc=$rc)"; sed 's/^/  /' "$tmp/$r.log"; fi
done

"$PERFCHECK" diff "$tmp/a1.json" "$tmp/a2.json" > "$tmp/same.txt" 2>&1
rc=$?
sed 's/^/  same| /' "$tmp/same.txt"
if [ $rc = 0 ]; then pass "diff of two runs of the same program: exit 0"; else fail "diff of the same program: exit $rc, expected 0"; fi

"$PERFCHECK" diff "$tmp/a1.json" "$tmp/b.json" > "$tmp/planted.txt" 2>&1
rc=$?
"$PERFCHECK" diff --format json "$tmp/a1.json" "$tmp/b.json" > "$tmp/planted.json" 2>/dev/null
sed 's/^/  planted| /' "$tmp/planted.txt"
if [ $rc = 1 ]; then pass "diff across the planted change: exit 1"; else fail "diff across the planted change: exit $rc, expected 1"; fi
python3 - "$tmp/planted.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pairs = d.get("kernels", [])
bad = 0
def check(ok, what):
    global bad
    print(("PASS " if ok else "FAIL ") + what)
    bad += 0 if ok else 1
sc = [p for p in pairs if "scale_copy" in (p.get("label") or "")]
ax = [p for p in pairs if "axpy_steady" in (p.get("label") or "")]
check(len(sc) >= 1 and all(p["presence"] == "paired" for p in sc), "scale_copy paired (%d)" % len(sc))
check(len(ax) >= 1 and all(p["presence"] == "paired" for p in ax), "axpy_steady paired (%d)" % len(ax))
for p in sc:
    check(p["change"] == "worse", "scale_copy worse (%s)" % p["change"])
    check(p["verdict_change"] == "worse" and "uncoalesced_global_loads" in json.dumps(p["after"]),
          "scale_copy's verdict turns to uncoalesced_global_loads (%s)" % p["verdict_change"])
    check(p["time"]["change"] == "worse", "scale_copy slower (%s, %s%%)" % (p["time"]["change"], p["time"]["change_pct"]))
for p in ax:
    check(p["change"] != "worse", "axpy_steady not worse (%s)" % p["change"])
print("worse kernels:", [p["label"] for p in pairs if p["change"] == "worse"])
sys.exit(1 if bad else 0)
PY
if [ $? = 0 ]; then pass "planted diff JSON"; else fail "planted diff JSON"; fi
echo "$fails failed"
[ $fails = 0 ]
