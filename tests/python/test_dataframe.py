"""Report.to_dataframe (pandas, when installed: CI installs python3-pandas)."""

import json
import math

import pytest

pandas = pytest.importorskip("pandas", reason="pandas is not installed (apt-get install python3-pandas)")

import perfcheck  # noqa: E402


def test_kernels_frame(mystery):
    df = mystery.to_dataframe()
    assert list(df["name"]) == [k.name for k in mystery.kernels]  # the report's order
    got = sorted(zip(df["name"], df["dynamic_smem_bytes"], df["step"], df["cause"]))
    assert got == [("mysteryA", 0, 3, "uncoalesced_global_loads"), ("mysteryB", 0, 4, "divergent_warps"),
                   ("mysteryC", 0, 0, "at_roof"), ("mysteryC", 116736, 5, "occupancy_shared_memory")]
    a = df[df["name"] == "mysteryA"].iloc[0]
    b = df[df["name"] == "mysteryB"].iloc[0]
    assert a["sectors_per_request_ld"] == 32
    assert b["threads_per_instruction"] == pytest.approx(16.22)
    assert a["attr_registers_per_thread"] == 16
    assert a["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4194304
    assert a["grid"] == (16384, 1, 1)
    assert a["verdict_metric"].startswith("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / ")
    assert a["duration_ns_median"] == 96384 and a["total_ns"] == 96384
    assert a["display_name"] == "mysteryA"
    assert a["busiest_memory_name"] == "dram"
    # null is missing, never 0
    assert math.isnan(a["bank_conflict_share"])
    assert math.isnan(a["attr_local_bytes_per_thread"])
    assert math.isnan(a["bytes_per_sector_ld"])
    assert df["region"].isna().all()
    assert df.shape[0] == 4 and df.shape[1] > 60


def test_regions_frame_and_new_fields(mystery_json, tmp_path):
    d = json.loads(json.dumps(mystery_json))
    d["regions"] = [{"name": "step", "parent": None, "wall_ns": 2e6, "kernel_ns": 1.5e6, "memcpy_ns": None,
                     "launches": 12, "kernel_share": 0.75, "future": 1,
                     "diagnosis": {"step": 0, "cause": "none", "value": 0.75, "findings": []}}]
    for k in d["kernels"]:
        k["derived"]["busiest_pipe"] = {"name": "lsu", "pct": 70.0, "metric": "m"}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(d))
    r = perfcheck.load(p)
    regions = r.to_dataframe("regions")
    assert list(regions["name"]) == ["step"]
    assert regions.loc[0, "kernel_share"] == 0.75 and regions.loc[0, "launches"] == 12
    assert math.isnan(regions.loc[0, "memcpy_ns"])
    assert regions["memset_ns"].dtype == "float64"  # absent: NaN as well
    assert regions.loc[0, "future"] == 1 and regions.loc[0, "cause"] == "none"
    kernels = r.to_dataframe()
    assert kernels.loc[0, "busiest_pipe_name"] == "lsu" and kernels.loc[0, "busiest_pipe_pct"] == 70.0
    with pytest.raises(ValueError):
        r.to_dataframe("devices")


def test_no_regions(mystery):
    assert mystery.to_dataframe("regions").shape[0] == 0


def test_without_pandas(py):
    code = r'''
import sys
sys.modules["pandas"] = None  # as if it were not installed
import os, perfcheck
r = perfcheck.diagnose(os.path.join(os.environ["PERFCHECK_TEST_DATA"], "h200", "mystery.csv"), quiet=True)
try:
    r.to_dataframe()
except ImportError as e:
    print(e)
'''
    p = py(code)
    assert p.returncode == 0, p.stderr
    assert "Report.to_dataframe needs pandas (apt-get install python3-pandas" in p.stdout
