"""perfcheck.load: saved reports read back as written, fields this package
does not know carried through, fields it knows but the file lacks as None."""

import copy
import json

import pytest

import perfcheck


def test_save_and_load(mystery, tmp_path):
    path = tmp_path / "mystery.json"
    mystery.save(path)
    back = perfcheck.load(path)
    assert back.to_dict() == mystery.to_dict()
    assert path.read_text() == mystery.to_json() + ("" if mystery.to_json().endswith("\n") else "\n")
    assert [(k.name, k.verdict) for k in back.kernels] == [(k.name, k.verdict) for k in mystery.kernels]
    assert back.kernels[0].metrics == mystery.kernels[0].metrics
    assert str(back) == str(mystery)  # the C report read from JSON writes the same text
    assert back.expect("mysteryB:cause==divergent_warps")


def test_save_follows_the_name(mystery, tmp_path):
    """The format follows the name, as `perfcheck -o NAME` writes: never a
    JSON document in a file called .csv or .html."""
    for name, want in (("r.csv", mystery.to_csv()), ("r.HTML", mystery.to_html()), ("r.txt", str(mystery)),
                       ("r.report", mystery.to_json())):
        mystery.save(tmp_path / name)
        text = (tmp_path / name).read_text()
        assert text == want + ("" if want.endswith("\n") else "\n"), name
    assert (tmp_path / "r.csv").read_text().startswith("name,region,")
    assert perfcheck.load(tmp_path / "r.report").to_dict() == mystery.to_dict()


def test_save_through_the_one_output_function(mystery, tmp_path):
    """Report.save goes through perfcheck_file_write, the writers'
    one output function: a symlink at the name is replaced, never followed;
    a FIFO or device is refused and left alone; a 0600 file stays 0600."""
    import os
    import stat
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link = tmp_path / "r.json"
    os.symlink(victim, link)
    mystery.save(link)
    assert victim.read_text() == "precious\n"
    assert not link.is_symlink() and perfcheck.load(link).to_dict() == mystery.to_dict()

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(perfcheck.PerfcheckError) as e:
        mystery.save(fifo)
    assert e.value.status == perfcheck.Status.ERROR_IO and "is a FIFO, not a regular file" in str(e.value)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    with pytest.raises(perfcheck.PerfcheckError, match="character device"):
        mystery.save("/dev/null")
    with pytest.raises(perfcheck.PerfcheckError, match="No such file or directory"):
        mystery.save(tmp_path / "no" / "such" / "r.json")
    assert sorted(os.listdir(tmp_path)) == ["fifo", "r.json", "victim"]  # no temporary left

    private = tmp_path / "private.json"
    private.write_text("old\n")
    os.chmod(private, 0o600)
    mystery.save(private)
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600
    assert perfcheck.load(private).to_dict() == mystery.to_dict()


def test_nul_in_a_path_is_refused(mystery, mystery_csv, tmp_path):
    """A NUL would end the C string early ('file\\0.evil' named
    'file'): ValueError before any file is read or written."""
    with pytest.raises(ValueError, match="NUL"):
        perfcheck.diagnose(mystery_csv + "\0.evil")
    with pytest.raises(ValueError, match="NUL"):
        perfcheck.load(str(tmp_path / "r.json") + "\0.evil")
    with pytest.raises(ValueError, match="NUL"):
        mystery.save(str(tmp_path / "r.json") + "\0.evil")
    with pytest.raises(ValueError, match="NUL"):
        mystery.save(b"r.json\0x")
    assert list(tmp_path.iterdir()) == []


def test_cli_written_report(mystery_csv, tmp_path):
    import subprocess
    from conftest import need_env
    out = tmp_path / "cli.json"
    with open(out, "wb") as f:
        subprocess.run([need_env("PERFCHECK_CLI"), "diagnose", "--format", "json", mystery_csv], stdout=f,
                       stderr=subprocess.DEVNULL, check=True)
    r = perfcheck.load(str(out))
    assert sorted(k.diagnosis.cause for k in r.kernels) == [
        "at_roof", "divergent_warps", "occupancy_shared_memory", "uncoalesced_global_loads"]


def newer_report(mystery_json):
    """The mystery report as a newer writer would make it: the fields being
    added to the contract, and some nobody has thought of yet."""
    d = copy.deepcopy(mystery_json)
    d["tool"]["cupti"] = {"path": "/site-packages/nvidia/cuda_cupti/lib/libcupti.so.13", "version": 130100,
                          "preloaded": True}
    d["future_section"] = {"answer": 42}
    k = [k for k in d["kernels"] if k["name"] == "mysteryA"][0]
    k["display_name"] = "mysteryA(const float*, float*, unsigned long)"
    k["demangled"] = "mysteryA(float const*, float*, unsigned long)"
    k["total_ns"] = 96384
    k["kernel_time_share"] = None
    k["brand_new"] = [1, 2, 3]
    k["derived"]["bytes_per_sector_ld"] = 4.0
    k["derived"]["bytes_per_sector_st"] = None
    k["derived"]["busiest_pipe"] = {"name": "lsu", "pct": 75.3, "metric": "sm__inst_executed_pipe_lsu.avg.pct",
                                    "extra_key": "x"}
    k["derived"]["busiest_memory"] = None
    k["derived"]["future_ratio"] = 0.5
    k["diagnosis"]["confidence"] = "high"
    k["diagnosis"]["findings"][0]["hint"] = "h"
    d["regions"] = [{"name": "train_step", "parent": None, "wall_ns": 1000.0, "kernel_ns": None,
                     "memcpy_ns": 0, "launches": 3, "kernel_share": None, "new_region_field": True,
                     "diagnosis": {"step": 1, "cause": "not_assessed", "metric": "kernel_ns / wall_ns",
                                   "value": None, "threshold": 0.5, "advice": "a", "bound": "unknown",
                                   "findings": []}}]
    return d


def test_newer_fields_carried(mystery_json, tmp_path):
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(newer_report(mystery_json)))
    r = perfcheck.load(path)
    assert r.tool.cupti.path.endswith("libcupti.so.13") and r.tool.cupti.version == 130100
    assert r.tool.cupti.preloaded is True
    assert r.extra["future_section"] == {"answer": 42}
    a = r.kernels_named("mysteryA")[0]
    assert a.display_name == "mysteryA(const float*, float*, unsigned long)"
    assert a.label == a.display_name
    assert a.demangled.startswith("mysteryA(")
    assert a.total_ns == 96384 and a.time_ns == 96384
    assert a.kernel_time_share is None
    assert a.brand_new == [1, 2, 3] and a.extra["brand_new"] == [1, 2, 3]
    assert a.derived.bytes_per_sector_ld == 4.0 and a.derived.bytes_per_sector_st is None
    bp = a.derived.busiest_pipe
    assert isinstance(bp, perfcheck.Busiest)
    assert (bp.name, bp.pct, bp.metric) == ("lsu", 75.3, "sm__inst_executed_pipe_lsu.avg.pct")
    assert bp.extra_key == "x"
    assert a.derived.busiest_memory is None
    assert a.derived.future_ratio == 0.5
    assert a.diagnosis.confidence == "high"
    assert a.diagnosis.findings[0].hint == "h"
    reg = r.regions[0]
    assert (reg.name, reg.parent, reg.wall_ns, reg.kernel_ns, reg.kernel_share) == ("train_step", None, 1000.0,
                                                                                     None, None)
    assert reg.memcpy_ns == 0  # a measured 0 stays 0
    assert reg.memset_ns is None  # absent: None
    assert reg.new_region_field is True
    assert reg.diagnosis.cause == "not_assessed" and reg.diagnosis.value is None
    # The whole file is kept, unknown fields included.
    assert r.to_dict() == json.loads(path.read_text())
    # The C side reads what it knows: text and expectations still work.
    assert "mysteryA" in str(r)
    assert r.expect("mysteryA:cause==uncoalesced_global_loads")
    with pytest.raises(AttributeError, match="no field 'nothing_like_this'"):
        a.nothing_like_this


def test_older_report_lacks_fields(mystery_json, tmp_path):
    d = copy.deepcopy(mystery_json)
    for k in d["kernels"]:
        del k["profiled_launches"], k["derived"]["arithmetic_intensity"], k["display_name"], k["total_ns"]
    del d["device"]["ridge_flop_per_byte"]
    path = tmp_path / "older.json"
    path.write_text(json.dumps(d))
    r = perfcheck.load(path)
    assert r.kernels[0].profiled_launches is None
    assert r.kernels[0].derived.arithmetic_intensity is None
    assert r.kernels[0].display_name is None and r.kernels[0].label == r.kernels[0].name
    assert r.kernels[0].total_ns is None
    assert r.kernels[0].time_ns == r.kernels[0].duration_ns.median * r.kernels[0].launches
    assert r.device.ridge_flop_per_byte is None


def test_load_errors(tmp_path, mystery_csv):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "perfcheck-report/1",\n "kernels": [1,]}')
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.load(bad)
    assert e.value.status == perfcheck.Status.ERROR_PARSE
    assert "bad.json:2:" in e.value.detail
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.load(other)
    assert e.value.status == perfcheck.Status.ERROR_PARSE and "not a perfcheck report" in e.value.detail
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.load(tmp_path / "nope.json")
    assert e.value.status == perfcheck.Status.ERROR_IO and "nope.json" in e.value.detail
    with pytest.raises(perfcheck.PerfcheckError) as e:
        perfcheck.load(mystery_csv)  # a CSV is not JSON
    assert e.value.status == perfcheck.Status.ERROR_PARSE
    nan = tmp_path / "nan.json"
    nan.write_text('{"schema": "perfcheck-report/1", "kernels": [], "x": NaN}')
    with pytest.raises(perfcheck.PerfcheckError):  # not JSON (Python's json would take it)
        perfcheck.load(nan)


def test_utf8_bom(mystery, tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + mystery.to_json().encode())
    assert perfcheck.load(path).to_dict() == mystery.to_dict()
