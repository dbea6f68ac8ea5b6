#!/usr/bin/env python3
"""unit.advice_corpus: scripts/advice_corpus.py's parsing, join and scoring on
tests/data/advice-format, a FORMAT FIXTURE (invented numbers, not a
measurement: see its README.md).  The counts below follow from the fixture's
invented pairs, times and verdicts; each outcome the script knows occurs a
known number of times.  Exit 0 when every assertion holds."""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "scripts", "advice_corpus.py")
FIX = os.path.join(ROOT, "tests", "data", "advice-format")
PAIRS = os.path.join(FIX, "pairs.tsv")
TIME = os.path.join(FIX, "time.tsv")


def run(*args):
    p = subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def scored(report):
    rc, out, err = run("--pairs", PAIRS, "--timing", TIME, "--report", os.path.join(FIX, report), "--format", "json")
    assert rc == 0, err
    return json.loads(out)


class AdviceCorpus(unittest.TestCase):
    def check_scores(self, doc):
        res = {r["pair"]: r["result"] for r in doc["pairs"]}
        self.assertEqual(res, {
            "f_named_paid": "right", "f_missed": "missed", "f_stall_named": "right", "f_stall_other": "missed",
            "f_dud": "named, did not pay", "f_failed_timing": "named (no timing)", "f_noverdict": "no verdict",
            "r_right": "right", "r_wrong": "wrong", "r_lib": "right", "r_broken": "premise broken",
            "c_right": "right", "c_wrong": "wrong"})
        by = {r["pair"]: r for r in doc["pairs"]}
        # the stall perfcheck names: a verdict field, or the verdict's stall metric
        self.assertEqual(by["f_stall_named"]["stall"], "long_scoreboard")
        self.assertEqual(by["f_stall_other"]["stall"], "long_scoreboard")
        # the counters' largest stall, 'selected' left out (it is not a stall)
        self.assertEqual(by["f_stall_named"]["counter_stall"], "long_scoreboard")
        self.assertAlmostEqual(by["f_stall_named"]["counter_stall_ratio"], 7.5)
        # a range of two kernels is judged by the longer one
        self.assertEqual(by["r_lib"]["kernels"], 2)
        self.assertEqual(by["r_lib"]["verdict"], "at_roof")
        self.assertAlmostEqual(by["f_named_paid"]["speedup"], 2.0)
        self.assertIsNone(by["f_failed_timing"]["speedup"])
        self.assertTrue(by["f_failed_timing"]["timing"].startswith("FAIL"))
        self.assertEqual(by["f_named_paid"]["verdict_changed"], "at_roof")
        t = doc["totals"]
        self.assertEqual(t["fault_pairs"], 7)
        self.assertEqual(t["fault_changes_paid"], 5)
        self.assertEqual(t["fault_verdicts_right"], 2)
        self.assertAlmostEqual(t["fault_verdicts_right_share"], 0.4)
        self.assertEqual(t["advice_followed"], 4)
        self.assertEqual(t["advice_followed_paid"], 2)
        self.assertAlmostEqual(t["geomean_advice_followed"], (2.0 * 3.0 * 1.05) ** (1 / 3), places=6)
        self.assertAlmostEqual(t["geomean_changes_paid"], math.exp(sum(map(math.log, (2.0, 1.5, 3.0, 1.3, 2.5))) / 5),
                               places=6)
        self.assertEqual((t["at_roof_entries"], t["at_roof_called_at_roof"], t["at_roof_premise_broken"]), (3, 2, 1))
        self.assertEqual((t["counterexamples"], t["counterexamples_not_advised"], t["counterexample_premise_broken"]),
                         (2, 1, 0))
        self.assertEqual(t["report_kernels"], 15)
        self.assertEqual(t["report_kernels_unjoined"], 1)
        self.assertEqual(t["pairs_without_verdict"], 1)
        c = doc["causes"]
        self.assertEqual(c["uncoalesced_global_loads"], {"pairs": 1, "paid": 1, "right": 1, "followed": 1,
                                                         "followed_paid": 1, "geomean_followed": 2.0})
        self.assertEqual(c["latency_bound:barrier"]["right"], 0)
        self.assertEqual(c["shared_bank_conflicts"]["followed_paid"], 0)
        self.assertIsNone(c["divergent_warps"]["geomean_followed"])
        self.assertIn("1.22x", doc["anchor"])

    def test_in_process_report_joins_by_region(self):
        self.check_scores(scored("report-inprocess.json"))

    def test_offline_report_joins_by_renamed_kernel(self):
        self.check_scores(scored("report-offline.json"))

    def test_text_output(self):
        rc, out, err = run("--pairs", PAIRS, "--timing", TIME, "--report", os.path.join(FIX, "report-inprocess.json"))
        self.assertEqual(rc, 0, err)
        self.assertIn("verdicts naming them: 2 (40%)", out)
        self.assertIn("published anchor: GPA (Zhou et al., CGO 2021): 1.22x", out)
        self.assertIn("gpu=FORMAT-FIXTURE", out)

    def test_timing_only(self):
        rc, out, err = run("--pairs", PAIRS, "--timing", TIME, "--format", "json")
        self.assertEqual(rc, 0, err)
        res = {r["pair"]: r["result"] for r in json.loads(out)["pairs"]}
        self.assertEqual(res["f_named_paid"], "paid")
        self.assertEqual(res["f_dud"], "did not pay")
        self.assertEqual(res["r_right"], "edit did not pay")
        self.assertEqual(res["r_lib"], "no edit")
        self.assertEqual(res["c_right"], "slower")

    def test_the_real_manifest_parses(self):
        rc, out, err = run("--timing", TIME, "--format", "json")  # default --pairs: kernels/advice/pairs.tsv
        self.assertEqual(rc, 0, err)
        doc = json.loads(out)
        kinds = [r["kind"] for r in doc["pairs"]]
        self.assertGreaterEqual(kinds.count("fault"), 25)
        self.assertGreaterEqual(len(kinds), 30)
        self.assertIn("not in", err)  # the fixture's invented pair ids are named as unknown

    def test_bad_input_exits_2(self):
        with tempfile.TemporaryDirectory() as d:
            bad_json = os.path.join(d, "bad.json")
            with open(bad_json, "w") as f:
                f.write("{\"kernels\": [")
            bad_pairs = os.path.join(d, "pairs.tsv")
            with open(bad_pairs, "w") as f:
                f.write("pair\tkind\n")
            bad_time = os.path.join(d, "time.tsv")
            with open(bad_time, "w") as f:
                f.write("# no header\n")
            for args in (["--pairs", PAIRS, "--report", bad_json],
                         ["--pairs", PAIRS, "--report", os.path.join(d, "missing.json")],
                         ["--pairs", bad_pairs, "--timing", TIME],
                         ["--pairs", PAIRS, "--timing", bad_time]):
                rc, out, err = run(*args)
                self.assertEqual(rc, 2, args)
                self.assertIn("advice_corpus.py:", err)
            rc, out, err = run("--pairs", PAIRS)
            self.assertEqual(rc, 2)  # neither --timing nor --report


if __name__ == "__main__":
    unittest.main(verbosity=2)
