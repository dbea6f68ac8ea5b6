#!/usr/bin/env bash
# `perfcheck check` end to end on the seed's T4 export and the H200 export: exit 0 when every
# expectation holds, 1 when one fails (message on stdout), 2 on bad input;
# the same on the JSON report `perfcheck diagnose --format json` writes; the
# JUnit file parsed by python3's XML parser.
# Usage: check_cli_test.sh PERFCHECK DATA_DIR VALIDATE_JUNIT_PY
set -uo pipefail
pc=$1 data=$2 validate=$3 sanitized=${4:-}
csv=$data/t4_seed000.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

# expect_run WANT_RC WANT_TEXT -- ARGS...: runs `perfcheck check ARGS`, checks
# the exit status and that stdout+stderr contain WANT_TEXT.
expect_run() {
  local want_rc=$1 want_text=$2
  shift 3
  local out rc
  out=$("$pc" check "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ] || ! grep -qF -- "$want_text" <<<"$out"; then
    echo "FAILED: perfcheck check $* -> exit $rc (want $want_rc), output:"
    echo "$out" | sed 's/^/    /'
    echo "    (wanted the text: $want_text)"
    fails=$((fails + 1))
  else
    echo "ok: exit $rc: perfcheck check $*"
  fi
}

[ -r "$csv" ] || { echo "missing $csv"; exit 1; }
"$pc" diagnose --quiet --format json "$csv" >"$tmp/seed.json" || { echo "perfcheck diagnose --format json failed"; exit 1; }

for report in "$csv" "$tmp/seed.json"; do
  # 0: the good kernels hold.
  expect_run 0 "0 of 6 checks failed" -- --quiet \
    --expect 'regex:^mystery[BC]$:sectors_per_request_ld<=4.5' \
    --expect 'mysteryC:threads_per_instruction>=24' \
    --expect 'mysteryA:cause==uncoalesced_global_loads' "$report"
  # 1: mysteryA fails step 3, with the kernel, quantity, value, bound and advice.
  expect_run 1 "FAIL mysteryA: sectors_per_request_ld is 31.91, expected <= 4.5; verdict: step 3, uncoalesced_global_loads: " -- \
    --expect 'mysteryA:sectors_per_request_ld<=4.5' --expect 'mysteryB:cause!=divergent_warps' "$report"
  expect_run 1 "FAIL mysteryB: cause is divergent_warps, expected != divergent_warps" -- \
    --expect 'mysteryB:cause!=divergent_warps' "$report"
  expect_run 1 "2 of 4 checks failed" -- --expect 'mysteryA:sectors_per_request_ld<=4.5' \
    --expect 'regex:^mystery[BC]$:threads_per_instruction>=24' "$report"
  # 1: a kernel that is not there, a quantity that was not measured.
  expect_run 1 "no kernel named \"mysteryD\"" -- --expect 'mysteryD:step==0' "$report"
  expect_run 1 "sm__throughput.avg.pct_of_peak_sustained_elapsed was not measured" -- --quiet \
    --expect 'mysteryA:sm__throughput.avg.pct_of_peak_sustained_elapsed>=0' "$report"
done

# The same on the real H200 export of the mystery program (ncu 2025.3.1):
# mysteryC is two launch signatures there (one-block-per-SM reservation and
# 0 B), so a name matches two entries.
h200=$data/h200/mystery.csv
expect_run 0 "0 of 6 checks failed" -- --quiet \
  --expect 'regex:^mystery[BC]$:sectors_per_request_ld<=4.5' \
  --expect 'mysteryC:threads_per_instruction>=24' --expect 'mysteryB:cause==divergent_warps' "$h200"
expect_run 1 "FAIL mysteryA: sectors_per_request_ld is 32, expected <= 4.5; verdict: step 3, uncoalesced_global_loads: " -- \
  --expect 'mysteryA:sectors_per_request_ld<=4.5' "$h200"
expect_run 1 "FAIL mysteryC [grid 16384,1,1 block 256,1,1 dynamic smem 116736 B]: cause is occupancy_shared_memory, expected == at_roof" -- \
  --expect 'mysteryC:cause==at_roof' "$h200"
expect_run 1 "no kernel named \"mysteryD\"" -- --expect 'mysteryD:step==0' "$h200"
expect_run 0 "within 10%" -- --expect 'mysteryB:gpu__time_duration.sum within 10% of 300000' "$h200"

# 2: bad input.
expect_run 2 'bad expectation "mysteryA:sectors_per_request_ld=<4.5": column 32:' -- \
  --expect 'mysteryA:sectors_per_request_ld=<4.5' "$csv"
expect_run 2 'column 15: expected a comparison' -- --expect 'mysteryA:step 3' "$csv"
expect_run 2 "nothing to check" -- "$csv"
expect_run 2 "which report?" -- --expect 'mysteryA:step==3'
expect_run 2 "unknown option '--bogus'" -- --bogus --expect 'mysteryA:step==3' "$csv"
expect_run 2 "cannot open" -- --expect 'mysteryA:step==3' "$tmp/missing.csv"
printf '{"schema": "perfcheck-report/1",\n "kernels": [}\n' >"$tmp/bad.json"
expect_run 2 "bad.json:2:14:" -- --expect 'mysteryA:step==3' "$tmp/bad.json"
expect_run 0 "usage: perfcheck check" -- --help
if [ "${PC_NOCUDA_BUILD:-}" = 1 ]; then
  # A build without the CUDA toolkit says so, exit 2, and starts nothing
  # (docs/cli.md, "Built without CUDA").
  expect_run 2 "perfcheck check: built without the CUDA toolkit" -- --expect 'mysteryA:step==3' -- ./app --arg
  expect_run 2 "perfcheck check: built without the CUDA toolkit" -- --expect 'mysteryA:step==3' -- /bin/true
else
  expect_run 2 "perfcheck check: cannot run ./app" -- --expect 'mysteryA:step==3' -- ./app --arg
fi
# A program that never uses CUDA prints no "profiling off" line, and the
# message says both reasons.
if [ "${PC_NOCUDA_BUILD:-}" = 1 ]; then
  :
elif [ "$sanitized" = --sanitized ]; then
  echo "skip: check -- /bin/true (an ASan build cannot preload its injection library into /bin/true)"
else
  expect_run 2 "/bin/true wrote no perfcheck report (exit status 0): either it never used CUDA" -- \
    --expect 'mysteryA:step==3' -- /bin/true
fi
# A typo is bad input (2), never a regression (1).
# Refused as the expectation is read, with at most three nearest
# names, never the list of every quantity.
expect_run 2 'bad expectation "mysteryA:sectors_per_request_requets_ld<=4": column 10: unknown quantity "sectors_per_request_requets_ld"; did you mean "sectors_per_request_ld" or "sectors_per_request_st"?' -- \
  --expect 'mysteryA:sectors_per_request_requets_ld<=4' "$csv"
err=$("$pc" check --expect 'mysteryA:sectors_per_request_requets_ld<=4' "$csv" 2>&1 >/dev/null)
if [ "${#err}" -lt 300 ]; then echo "ok: a typo's message is one short line (${#err} bytes)"; else
  echo "FAILED: typo message ${#err} bytes: $err"; fails=$((fails + 1)); fi
# An ncu metric's spelling no kernel of the report has: the same, at check time.
expect_run 2 'unknown quantity: mysteryA: no quantity named "dram__bytes_reed.sum" in the report; did you mean "dram__bytes_read.sum"' -- \
  --expect 'mysteryA:dram__bytes_reed.sum<=4' "$csv"
# bytes_per_sector_ld, step 3's headline in the JSON derived block, is a quantity.
expect_run 1 'FAIL mysteryA: bytes_per_sector_ld is 4, expected >= 28' -- \
  --expect 'mysteryA:bytes_per_sector_ld>=28' "$data/corpus/h200-2026-12-01/mystery.csv.gz"
expect_run 2 'unknown quantity' -- --expect 'regex:^mystery:sector_per_request_ld<=4' "$tmp/seed.json"
expect_run 2 'unknown cause word "divergnt" (one of: none, not_the_slow_part,' -- --expect 'mysteryB:cause==divergnt' "$csv"
expect_run 2 'unknown bound word' -- --expect 'mysteryB:bound==fast' "$csv"
expect_run 2 'column 10: expected a quantity' -- --expect 'mysteryA:<=4' "$csv"
# ... while an expectation read correctly that does not hold stays 1.
expect_run 1 "no kernel named \"mysteryD\"" -- --expect 'mysteryD:sectors_per_request_ld<=4' "$csv"
# A result that cannot be written is no pass, and no "fail"
# either (1 says an expectation does not hold): stdout on /dev/full.
if [ -w /dev/full ]; then
  out=$("$pc" check --quiet --expect 'mysteryA:step==3' "$csv" 2>&1 >/dev/full)
  rc=$?
  if [ "$rc" -eq 2 ] && grep -qF "writing the results to stdout failed" <<<"$out"; then
    echo "ok: exit 2: perfcheck check > /dev/full"
  else
    echo "FAILED: perfcheck check > /dev/full -> exit $rc (want 2): $out"
    fails=$((fails + 1))
  fi
fi
# --junit goes through a temporary file and rename: a folder that does not
# exist is an error (2) and leaves nothing behind.
expect_run 2 "cannot write $tmp/no/such/j.xml: cannot create a file in $tmp/no/such" -- --quiet \
  --expect 'mysteryA:step==3' --junit "$tmp/no/such/j.xml" "$csv"
# Short options mean the same in every subcommand.
expect_run 0 "0 of 1 check failed" -- -q -e 'mysteryA:step==3' "$csv"

# JUnit: written on failure too, and valid XML with the right counts.
expect_run 1 "2 of 5 checks failed" -- --quiet --junit "$tmp/out.xml" --suite 'seed <000>' \
  --expect 'mysteryA:sectors_per_request_ld<=4.5' --expect 'mysteryB:cause!=divergent_warps' \
  --expect 'regex:^mysteryC$:sectors_per_request_ld<=4.5' --expect 'mysteryA:step==3' "$csv"
if python3 "$validate" "$tmp/out.xml" --tests 5 --failures 2 --contains 'mysteryA: sectors_per_request_ld <= 4.5' \
  --contains 'expected != divergent_warps'; then
  grep -q 'classname="seed &lt;000&gt;"' "$tmp/out.xml" || { echo "FAILED: suite name not escaped"; fails=$((fails + 1)); }
else
  fails=$((fails + 1))
fi
expect_run 2 "cannot write" -- --junit "$tmp/no/such/dir/out.xml" --expect 'mysteryA:step==3' "$csv"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) of perfcheck check failed"
  exit 1
fi
echo "perfcheck check: all CLI cases behave"
