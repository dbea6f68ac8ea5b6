"""Expectations through the C engine: results with the measured value and the
advice, the spellings of `perfcheck check`, refused specs, and the pytest
plugin turning a failure into a test failure with the engine's text."""

import json
import os

import pytest

import perfcheck
from perfcheck import Status


def test_failure_carries_value_and_advice(mystery):
    res = mystery.expect("mysteryA:sectors_per_request_ld<=4.5")
    assert not res and res.passed is False
    assert len(res) == 1 and len(res.failures) == 1
    r = res.results[0]
    assert r.status == Status.ERROR_EXPECTATION_FAILED and not r.passed
    assert r.measured == 32 and r.measured_word is None
    assert r.kernel == "mysteryA" and r.quantity == "sectors_per_request_ld"
    assert r.expected == "<= 4.5"
    assert "consecutive addresses" in r.advice
    assert r.message.startswith("mysteryA: sectors_per_request_ld is 32, expected <= 4.5")
    assert "uncoalesced_global_loads" in r.message
    assert res.message == r.message
    assert r.message in repr(res) and str(res) == res.message


def test_pass(mystery):
    res = mystery.expect("mysteryB:cause==divergent_warps", "mysteryA:threads_per_instruction>=24")
    assert res and res.passed and not res.failures and res.message == ""
    assert [r.measured_word for r in res] == ["divergent_warps", None]
    assert res.results[1].measured == 32
    assert str(res) == "all 2 expectation result(s) hold"


def test_spellings(mystery):
    # a regex checks every entry it matches
    res = mystery.expect("regex:^mystery[BC]$:threads_per_instruction>=24")
    assert [(r.kernel, r.passed) for r in res] == [
        ("mysteryB", False),
        ("mysteryC [grid 16384,1,1 block 256,1,1 dynamic smem 116736 B]", True),
        ("mysteryC [grid 16384,1,1 block 256,1,1 dynamic smem 0 B]", True)]
    assert res.results[0].measured == pytest.approx(16.22)
    # durations get the 10% band; `within N% of`; +-N% sets a band
    assert mystery.expect("mysteryA:gpu__time_duration.sum <= 90000")  # 96384 is inside 10%
    assert not mystery.expect("mysteryA:gpu__time_duration.sum <= 90000 +-0%")
    assert mystery.expect("mysteryA:gpu__time_duration.sum within 10% of 1e5")
    # words
    assert not mystery.expect("mysteryB:cause!=divergent_warps")
    assert mystery.expect("mysteryA:bound==memory")
    assert mystery.expect("mysteryA:step==3")
    # a list works as well as several arguments
    assert len(mystery.expect(["mysteryA:step==3", "mysteryB:step==4"])) == 2


def test_never_a_silent_pass(mystery):
    res = mystery.expect("nosuchkernel:step==3")
    assert not res
    r = res.results[0]
    assert r.status == Status.ERROR_NOT_FOUND and r.measured is None
    assert "nosuchkernel" in r.message
    res = mystery.expect("mysteryA:bank_conflict_share<=0.1")  # null in the report
    assert not res
    assert res.results[0].measured is None
    assert res.results[0].status in (Status.ERROR_NOT_MEASURED, Status.ERROR_NOT_FOUND)


def test_refused_specs(mystery):
    with pytest.raises(perfcheck.ExpectationSpecError) as e:
        mystery.expect("mysteryA:sectors_per_request_ld<=")
    assert e.value.status == Status.ERROR_PARSE
    assert "column" in str(e.value)
    assert isinstance(e.value, ValueError)
    with pytest.raises(perfcheck.ExpectationSpecError):
        mystery.expect("mysteryA:cause<divergent_warps")  # order on a word
    with pytest.raises(perfcheck.ExpectationSpecError):
        mystery.expect("no colon at all")
    with pytest.raises(ValueError):
        mystery.expect()
    with pytest.raises(TypeError):
        mystery.expect(3)


def test_misspelt_quantity_raises(mystery, data_dir):
    # A typo is a ValueError with the engine's suggestions, never a
    # False result that reads like a regression (the CLI exits 2 on it).
    with pytest.raises(ValueError) as e:
        mystery.expect("mysteryA:byts_per_sector_ld>=28")
    assert isinstance(e.value, perfcheck.ExpectationSpecError)
    assert 'unknown quantity "byts_per_sector_ld"; did you mean "bytes_per_sector_ld"' in str(e.value)
    assert "The quantities are" not in str(e.value) and len(str(e.value)) < 400
    # An ncu metric's spelling no kernel has: the same, found at check time.
    with pytest.raises(ValueError) as e:
        mystery.expect("mysteryA:dram__bytes_reed.sum<=4")
    assert 'did you mean "dram__bytes_read.sum"' in str(e.value)
    # The JSON derived block's names are the quantities: step 3's headline.
    r = perfcheck.diagnose(os.path.join(data_dir, "corpus", "h200-2026-12-01", "mystery.csv.gz"))
    assert r.expect("mysteryA:bytes_per_sector_ld<=4")
    assert not r.expect("mysteryA:bytes_per_sector_ld>=28")
    # Every number of the derived block is a quantity under its JSON name.
    derived = json.loads(r.to_json())["kernels"][0]["derived"]
    numbers = [k for k, v in derived.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    assert "bytes_per_sector_ld" in numbers and len(numbers) >= 15
    for key in numbers:
        assert r.expect("%s:%s>=-1e300" % (r.kernels[0].name, key)), key


def test_require(mystery):
    assert mystery.require("mysteryA:step==3")
    with pytest.raises(perfcheck.ExpectationFailed) as e:
        mystery.require("mysteryA:sectors_per_request_ld<=4.5")
    assert isinstance(e.value, AssertionError)
    assert "sectors_per_request_ld is 32, expected <= 4.5" in str(e.value)
    assert e.value.result.results[0].measured == 32


PLUGIN_TESTS = '''
import perfcheck

def report():
    return perfcheck.diagnose(%(csv)r, quiet=True)

def test_fixture_fails(perfcheck_expect):
    perfcheck_expect(report(), "mysteryA:sectors_per_request_ld<=4.5")

def test_fixture_passes(perfcheck_expect):
    res = perfcheck_expect(report(), "mysteryB:cause==divergent_warps")
    assert res.results[0].measured_word == "divergent_warps"

def test_bare_assert():
    assert report().expect("mysteryB:threads_per_instruction>=24")
'''


def test_pytest_plugin(pytester, mystery_csv):
    pytester.makeconftest('pytest_plugins = ["perfcheck.pytest_plugin"]\n')
    pytester.makepyfile(test_perf=PLUGIN_TESTS % {"csv": mystery_csv})
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "perfcheck %s: libperfcheck" % perfcheck.__version__ in out  # the header names the library
    assert "perfcheck expectation failed:" in out
    assert "mysteryA: sectors_per_request_ld is 32, expected <= 4.5" in out
    assert "consecutive addresses" in out  # the advice
    # a bare assert shows the engine's message through ExpectResult's repr
    assert "mysteryB: threads_per_instruction is 16.22, expected >= 24" in out
