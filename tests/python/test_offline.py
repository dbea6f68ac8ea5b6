"""perfcheck.diagnose on the committed ncu exports: the seed's verdicts as
objects, every JSON field carried, null as None, the text and CSV writers,
and bad input."""

import glob
import json
import math
import os

import pytest

import perfcheck

from conftest import seed

SEED_VERDICTS = sorted([  # mystery.cu on the H200 (tests/data/h200/summary.txt): name, dynamic smem, verdict
    ("mysteryA", 0, 3, "uncoalesced_global_loads"),
    ("mysteryB", 0, 4, "divergent_warps"),
    ("mysteryC", 116736, 5, "occupancy_shared_memory"),
    ("mysteryC", 0, 0, "at_roof"),
])


def test_four_seed_verdicts(mystery):
    got = sorted((k.name, k.dynamic_smem_bytes, k.diagnosis.step, k.diagnosis.cause) for k in mystery.kernels)
    assert got == SEED_VERDICTS
    a, b, c_big, c_none = seed(mystery)
    assert a.diagnosis.bound == "memory"
    assert a.diagnosis.metric == ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / "
                                  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
    assert a.diagnosis.value == 32 and 4 <= a.diagnosis.threshold < 32
    assert "read consecutive addresses" in a.diagnosis.advice
    assert a.derived.sectors_per_request_ld == 32
    assert a.derived.sectors_per_request_st == pytest.approx(31.902, abs=1e-3)
    assert a.metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4194304
    assert a.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 131072
    assert b.derived.threads_per_instruction == pytest.approx(16.22)
    assert c_big.dynamic_smem_bytes == 116736 and c_none.dynamic_smem_bytes == 0
    assert c_big.derived.achieved_occupancy_pct == pytest.approx(12.35, abs=0.01)
    assert c_big.attributes["blocks_per_sm"] == 1 and c_none.attributes["blocks_per_sm"] == 8
    assert a.grid == (16384, 1, 1) and a.block == (256, 1, 1)
    assert a.duration_ns.median == 96384 and a.launches == 1
    assert a.total_ns == 96384 and a.time_ns == 96384
    assert a.kernel_time_share == pytest.approx(96384 / (96384 + 295680 + 234176 + 151392))
    assert a.display_name == a.label == "mysteryA"
    assert a.demangled == "mysteryA(const float *, float *, unsigned long)"
    mem = a.derived.busiest_memory
    assert isinstance(mem, perfcheck.Busiest)
    assert (mem.name, mem.metric) == ("dram", "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    assert mem.pct == pytest.approx(4.17913)
    assert a.verdict == "step 3 uncoalesced_global_loads"
    # Findings: mysteryA's stores are uncoalesced too; step 1 is the region's
    # (offline there is none), so no kernel finding is at step 1.
    causes = [f.cause for f in a.diagnosis.findings]
    assert causes[0] == "uncoalesced_global_stores"
    assert all(f.step >= 2 for f in a.diagnosis.findings)
    assert a.rank == 4 and a.diagnosis.borderline is False and a.diagnosis.runner_up is None
    assert [k.name for k in mystery.kernels_named("mysteryC")] == ["mysteryC", "mysteryC"]


def test_report_level_fields(mystery):
    assert mystery.schema == "perfcheck-report/2"
    assert mystery.source == "ncu-export"
    assert mystery.step1_assessed is False
    assert mystery.regions == []
    assert mystery.tool.name == "perfcheck"
    assert mystery.tool.version == perfcheck.library()["version"]
    assert mystery.tool.cupti is None  # offline: no CUPTI (absent or null alike)
    d = mystery.device
    assert (d.name, d.compute_capability, d.sm_count) == ("NVIDIA H200", "9.0", 132)
    assert d.ridge_flop_per_byte == pytest.approx(13.8978, abs=1e-3)
    assert d.max_threads_per_sm == 2048  # not a declared field: read from extra
    assert d.extra["max_threads_per_sm"] == 2048


def test_null_is_none_never_zero(mystery, mystery_json):
    a = seed(mystery)[0]
    assert a.mangled is None and a.region is None
    assert a.attributes["local_bytes_per_thread"] is None
    assert a.derived.bank_conflict_share is None
    assert a.diagnosis.stall is None  # no stall reason in this export
    # Not in this export (no column, no pipe counters): None, not 0.
    assert a.derived.bytes_per_sector_ld is None and a.derived.busiest_pipe is None
    assert a.metrics.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio") is None
    # Every null of the JSON is None in the objects, and no None became 0.
    for k, kj in zip(mystery.kernels, mystery_json["kernels"]):
        for key, v in kj["metrics"].items():
            assert k.metrics[key] == v
        for key, v in kj["derived"].items():
            got = k.derived.get(key)
            assert (got.to_dict() if isinstance(got, perfcheck.Busiest) else got) == v
            assert getattr(k.derived, key) is got
        for key, v in kj["attributes"].items():
            assert k.attributes[key] == v


def test_every_json_field_is_carried(mystery, mystery_json):
    import dataclasses
    for k, kj in zip(mystery.kernels, mystery_json["kernels"]):
        declared = {f.name for f in dataclasses.fields(perfcheck.Kernel)} - {"extra"}
        for key in kj:
            assert key in declared or key in k.extra, key
        assert k.extra["metric_sources"] == kj["metric_sources"]
        assert k.diagnosis.to_dict() == kj["diagnosis"]  # every field of the verdict, findings included
        assert k.not_measured_reason == kj["not_measured_reason"]
    assert mystery.to_dict() == mystery_json


def test_text_report(mystery):
    text = str(mystery)
    for line in ("mysteryA: step 3 uncoalesced_global_loads",
                 "mysteryB: step 4 divergent_warps",
                 "mysteryC, 116736 B dynamic: step 5 occupancy_shared_memory",
                 "mysteryC, 0 B dynamic: step 0 at_roof"):
        assert line in text
    assert text.startswith("perfcheck %s: NVIDIA H200" % perfcheck.library()["version"])
    assert "step 1 (is the kernel the slow part?) is not assessed" in text


def test_json_and_csv(mystery, mystery_json):
    assert json.loads(mystery.to_json()) == mystery_json
    assert json.loads(mystery.to_json(indent=2)) == mystery_json
    assert "\n  " in mystery.to_json(indent=2)
    rows = mystery.to_csv().strip().split("\n")
    assert len(rows) == 1 + 4
    assert sorted(r.split(",")[0] for r in rows[1:]) == ["mysteryA", "mysteryB", "mysteryC", "mysteryC"]


def test_html(mystery):
    """The library's HTML writer: one page, a roofline point per kernel with
    measured intensity and FLOP/s (the export's four), no network."""
    page = mystery.to_html()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert page.rstrip().endswith("</html>")
    assert page.count('<circle class="point"') == 4
    for name in ("mysteryA", "mysteryB", "mysteryC"):
        assert name in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page


def test_cli_agrees(mystery, mystery_csv):
    """The same report as `perfcheck diagnose --format json`."""
    import subprocess
    from conftest import need_env
    out = subprocess.run([need_env("PERFCHECK_CLI"), "diagnose", "--format", "json", mystery_csv],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    assert json.loads(out) == json.loads(mystery.to_json())


def test_t4_seed_export(data_dir):
    r = perfcheck.diagnose(os.path.join(data_dir, "t4_seed000.csv"), quiet=True)
    assert sorted((k.name, k.dynamic_smem_bytes, k.diagnosis.cause) for k in r.kernels) == [
        ("mysteryA", 0, "uncoalesced_global_loads"), ("mysteryB", 0, "divergent_warps"),
        ("mysteryC", 0, "at_roof"), ("mysteryC", 48000, "occupancy_shared_memory")]
    a = r.kernels_named("mysteryA")[0]
    assert a.diagnosis.value == pytest.approx(31.91, abs=0.01)
    # The T4 export lacks columns: said in the warnings, None in the metrics.
    assert any("no column dram__throughput.avg.pct_of_peak_sustained_elapsed" in w for w in r.warnings)
    assert a.metrics["dram__throughput.avg.pct_of_peak_sustained_elapsed"] is None


def test_unusable_values_are_none(data_dir):
    r = perfcheck.diagnose(os.path.join(data_dir, "ncu_unusable_values.csv"), quiet=True)
    by = {k.name: k for k in r.kernels}
    assert by["nanKernel"].metrics["dram__bytes_read.sum"] is None
    assert by["nanKernel"].metrics["sm__warps_active.avg.pct_of_peak_sustained_active"] is None
    assert by["negKernel"].metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] is None
    assert by["negKernel"].derived.sectors_per_request_ld is None
    assert by["zeroReq"].derived.sectors_per_request_ld is None
    assert by["zeroReq"].duration_ns.median is None
    assert by["zeroReq"].time_ns is None
    assert by["nanKernel"].derived.sectors_per_request_ld == 4
    assert any('"12abc" is not a number' in w for w in r.warnings)


def test_hostile_names_survive(data_dir):
    r = perfcheck.diagnose(os.path.join(data_dir, "ncu_hostile_names.csv"), quiet=True)
    names = [k.name for k in r.kernels]
    assert 'quote"Kernel' in names and "comma,kernel<1, 2>" in names and "newline\nkernel" in names
    str(r)  # the text writer escapes them; it must not fail


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(os.environ.get("PERFCHECK_TEST_DATA", "/nonexistent"),
                                                               "h200", "*.csv"))))
def test_every_h200_export(path):
    r = perfcheck.diagnose(path, quiet=True)
    assert r.kernels
    for k in r.kernels:
        assert k.diagnosis.cause in set(perfcheck.causes()) - {"none"}


def test_h200_exports_are_there(data_dir):
    assert len(glob.glob(os.path.join(data_dir, "h200", "*.csv"))) >= 10


def test_bad_input(data_dir, tmp_path):
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.diagnose(os.path.join(data_dir, "bad", "not_ncu.csv"), quiet=True)
    assert e.value.status == perfcheck.Status.ERROR_PARSE
    assert "not_ncu.csv" in e.value.detail and "not_ncu.csv" in str(e.value)
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.diagnose(tmp_path / "missing.csv")
    assert e.value.status == perfcheck.Status.ERROR_IO
    assert "missing.csv: cannot open" in e.value.detail
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.diagnose(tmp_path)
    assert e.value.status == perfcheck.Status.ERROR_IO and "is a directory" in e.value.detail
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.diagnose(os.path.join(data_dir, "bad", "empty.csv"), quiet=True)
    assert e.value.status == perfcheck.Status.ERROR_PARSE


def test_warnings_on_stderr_only_when_verbose(data_dir, capfd, monkeypatch):
    # Quiet by default: the warnings are in the report only.
    monkeypatch.delenv("PERFCHECK_VERBOSE", raising=False)
    r = perfcheck.diagnose(os.path.join(data_dir, "ncu_unusable_values.csv"))
    assert capfd.readouterr().err == ""
    assert any('"12abc" is not a number' in w for w in r.warnings)
    # PERFCHECK_VERBOSE=1 prints them as well (read at each warning).
    monkeypatch.setenv("PERFCHECK_VERBOSE", "1")
    perfcheck.diagnose(os.path.join(data_dir, "ncu_unusable_values.csv"))
    assert '"12abc" is not a number' in capfd.readouterr().err
    perfcheck.diagnose(os.path.join(data_dir, "ncu_unusable_values.csv"), quiet=True)
    assert capfd.readouterr().err == ""


def test_numbers_are_floats_or_ints_not_nan(mystery):
    for k in mystery.kernels:
        for v in k.metrics.values():
            assert v is None or (isinstance(v, (int, float)) and not math.isnan(v))


def test_gzip_inputs(mystery, data_dir, tmp_path):
    # The exports and reports people keep are gzip, read as they are.
    import gzip
    r = perfcheck.diagnose(os.path.join(data_dir, "corpus", "h200-2026-12-01", "mystery.csv.gz"))
    causes = sorted(k.diagnosis.cause for k in r.kernels)
    assert causes == ["at_roof", "divergent_warps", "occupancy_shared_memory", "uncoalesced_global_loads"]
    assert r.warnings == []
    p = tmp_path / "r.json.gz"
    p.write_bytes(gzip.compress(mystery.to_json().encode()))
    back = perfcheck.load(p)
    assert [k.name for k in back.kernels] == [k.name for k in mystery.kernels]
    p.write_bytes(gzip.compress(mystery.to_json().encode())[:-20])
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.load(p)
    assert "damaged gzip data" in e.value.detail
