#!/usr/bin/env bash
# perfcheck diff, perfcheck check --baseline and perfcheck report on the
# committed H200 exports: exit 0 when nothing got worse (the same run in other
# units, two runs of the same programs), exit 1 across a planted uncoalesced
# kernel (named, with its verdict and time change), exit 2 on bad input; the
# JSON read back by python's parser; --format html accepted by every command
# that writes a report.
#   diff_cli_test.sh PERFCHECK DATA_DIR TESTS_HTML_DIR WORK_DIR
set -u
pc=$1 data=$2 here=$3 work=$4
mkdir -p "$work"
fails=0 passes=0
ok() { passes=$((passes + 1)); echo "PASS $1"; }
no() { fails=$((fails + 1)); echo "FAIL $1"; }
expect_exit() { # WANT NAME CMD...
  local want=$1 name=$2
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then ok "$name (exit $rc)"; else no "$name: exit $rc, wanted $want"; cat "$work/out" "$work/err"; fi
}
expect_out() { # NAME PATTERN (fixed string, in the last command's stdout)
  if grep -qF -- "$2" "$work/out"; then ok "$1"; else no "$1: no '$2' in:"; cat "$work/out"; fi
}
expect_err() {
  if grep -qF -- "$2" "$work/err"; then ok "$1"; else no "$1: no '$2' in:"; cat "$work/err"; fi
}

h=$data/h200
planted=$work/occupancy.planted.csv
python3 "$here/plant_uncoalesced.py" "$h/occupancy.csv" 'scaleAdd<1>' "$planted" || { echo "FAIL planting"; exit 1; }

expect_exit 0 "diff: one run against itself in base units" "$pc" diff -q "$h/mystery.csv" "$h/mystery.base-units.csv"
expect_out "  ... every kernel unchanged" "perfcheck diff: 0 kernels worse, 0 better, 0 moved, 4 unchanged"
for p in mystery occupancy launches atomics roundtrip; do
  expect_exit 0 "diff: two runs of $p" "$pc" diff -q "$h/$p.csv" "$h/$p.cache-none.csv"
  expect_out "  ... $p: nothing worse" "perfcheck diff: 0 kernels worse"
done

expect_exit 1 "diff: a planted uncoalesced kernel" "$pc" diff -q "$h/occupancy.csv" "$planted"
expect_out "  ... names the kernel" "  scaleAdd<1>, 0 B dynamic [grid 65536x1x1 block 256x1x1]"
expect_out "  ... its time change" "    time +200.0% (median 58.14 us -> 174.4 us; band 10%), total 58.14 us -> 174.4 us, share 11.27% -> 13.29%: slower"
expect_out "  ... its verdict change" "    verdict: step 0 latency_bound -> step 3 uncoalesced_global_loads: worse"
expect_out "  ... the checklist number" "    sectors_per_request_ld 4 -> 32 (+700.0%, tolerance 1%): worse"
expect_out "  ... the other kernel unchanged" "Unchanged within tolerance (1): scaleAdd<4>"
expect_exit 0 "diff: the planted change undone is better, not worse" "$pc" diff -q "$planted" "$h/occupancy.csv"
expect_out "  ... better" "perfcheck diff: 0 kernels worse, 2 better"

expect_exit 1 "diff --format json" "$pc" diff -q --format json -o "$work/diff.json" "$h/occupancy.csv" "$planted"
if python3 - "$work/diff.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "perfcheck-diff/1", d["schema"]
assert d["worse"] == 2 and d["summary"]["same"] == 1, d["summary"]
k = [x for x in d["kernels"] if x["label"] == "scaleAdd<1>, 0 B dynamic"][0]
assert k["name"] == "scaleAdd<1>" and k["change"] == "worse"
assert d["kernels"][0]["change"] == "worse"  # the after report's order: by total time
assert k["before"]["total_ns"] == 58144 and k["after"]["total_ns"] == 174432, (k["before"], k["after"])
assert k["before"]["busiest_memory"]["name"] == "dram" and k["before"]["busiest_pipe"] is None
assert k["busiest_change"] == {"pipe": "same", "memory": "same"}, k["busiest_change"]
assert k["before"]["verdict"]["cause"] == "latency_bound" and k["after"]["verdict"]["cause"] == "uncoalesced_global_loads"
assert k["time"]["change"] == "worse" and k["time"]["change_pct"] == 200
m = {x["name"]: x for x in k["metrics"]}
assert m["sectors_per_request_ld"]["change"] == "worse" and m["sectors_per_request_ld"]["after"] == 32
EOF
then ok "  ... the JSON says the same"; else no "  ... the JSON"; fi
expect_exit 1 "diff --format html" "$pc" diff -q --format html -o "$work/diff.html" "$h/occupancy.csv" "$planted"
if grep -q '<tr id="k0" class="worse"><td>worse</td>' "$work/diff.html"; then ok "  ... the page marks it"; else no "  ... the page"; fi

expect_exit 1 "check --baseline: the planted change fails" "$pc" check --baseline "$h/occupancy.csv" "$planted"
expect_out "  ... with the diff" "verdict: step 0 latency_bound -> step 3 uncoalesced_global_loads: worse"
expect_exit 0 "check --baseline: two runs pass" "$pc" check -q --baseline "$h/mystery.csv" "$h/mystery.cache-none.csv"
expect_exit 1 "check --baseline with an expectation that fails" "$pc" check -q --baseline "$h/mystery.csv" \
  --expect 'mysteryA:sectors_per_request_ld<=4.5' "$h/mystery.cache-none.csv"
expect_exit 2 "check --baseline: a baseline that is not there" "$pc" check --baseline "$work/none.json" "$h/mystery.csv"
expect_err "  ... named" "none.json"

expect_exit 2 "diff: one report" "$pc" diff "$h/mystery.csv"
expect_err "  ... says so" "diff needs two reports"
expect_exit 2 "diff: a file that is not there" "$pc" diff "$h/mystery.csv" "$work/none.csv"
expect_err "  ... named" "none.csv"
expect_exit 2 "diff: not a report" "$pc" diff "$h/mystery.csv" "$data/bad/random.bin"
expect_exit 2 "diff --format csv" "$pc" diff --format csv "$h/mystery.csv" "$h/mystery.csv"
expect_err "  ... says which" "unknown format 'csv' (text, json or html)"
echo keep >"$work/kept.html"
expect_exit 2 "diff: bad input leaves the output alone" "$pc" diff -o "$work/kept.html" "$h/mystery.csv" "$work/none.csv"
if [ "$(cat "$work/kept.html")" = keep ]; then ok "  ... it does"; else no "  ... it was overwritten"; fi

expect_exit 0 "report --html from an export" "$pc" report -q --html "$work/m.html" "$h/mystery.csv"
expect_exit 0 "report --format json" "$pc" report -q --format json -o "$work/m.json" "$h/mystery.csv"
expect_exit 0 "report --html from the JSON" "$pc" report -q --html "$work/m2.html" "$work/m.json"
if cmp -s "$work/m.html" "$work/m2.html"; then ok "  ... the same page"; else no "  ... the pages differ"; fi
expect_exit 0 "diagnose --format html" "$pc" diagnose -q --format html "$h/mystery.csv"
expect_out "  ... a page" "<!DOCTYPE html>"
expect_exit 0 "merge --format html" "$pc" merge -q --format html "$work/m.json" "$work/m.json"
expect_out "  ... a page" "<!DOCTYPE html>"
expect_exit 2 "run --format xml" "$pc" run --format xml -- true
expect_err "  ... lists html" "(text, json, csv or html)"
expect_exit 2 "report: nothing to read" "$pc" report
expect_exit 2 "report: not a report" "$pc" report --html "$work/x.html" "$data/bad/random.bin"
expect_exit 0 "help diff" "$pc" help diff
expect_out "  ... exit status" "exit status: 0 nothing got worse beyond tolerance"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
