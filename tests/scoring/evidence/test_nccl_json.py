"""nccl-tests' JSON report (``-J``) gives the figures its text output gives for the same run.

No real report was found in public material, so these tests write one as nccl-tests' own writer
does (NVIDIA/nccl-tests src/util.cu: one line, keys in its order, "%lf" figures, booleans as
the strings "true" / "false", the root padded to 6 characters, a NaN as "nan"), from the rows of
a real text sample, and compare what both files give.
"""

from __future__ import annotations

import io
import json
import tarfile
from dataclasses import replace
from typing import Any

import pytest

from scoring.evidence import nccl, registry
from scoring.evidence.base import EvidenceParseError, ParseResult
from scoring.evidence.bundle import parse_evidence
from tests.scoring.evidence.real_outputs import Sample
from tests.scoring.evidence.test_bundle import command, manifest

# nccl-tests 2.18.2 (NCCL 2.30.7), all_reduce over 2 GH200 nodes, 1 MiB .. 128 MiB.
CSCS = "nccl_tests/cscs-gh200-2node-sarus-v2.18.2.txt"
# What the report holds that the text table does not show, and the reverse.
JSON_ONLY = {"format", "json_version", "errors", "wrong_result"}
TEXT_ONLY = {"nccl_tests_version"}


def _f(value: float) -> str:
    return f"{value:f}"  # jsonDouble's "%lf"


def _half(time: str, algbw: str, busbw: str, wrong: str) -> str:
    nwrong = "null" if wrong == "N/A" else _f(float(wrong))
    return (
        f'{{"time":{_f(float(time))},"alg_bw":{_f(float(algbw))},'
        f'"bus_bw":{_f(float(busbw))},"nwrong":{nwrong}}}'
    )


def _row(cells: list[str], in_place_only: bool = False) -> str:
    size, count, type_, redop, root = cells[:5]
    out = "null" if in_place_only else _half(*cells[5:9])
    return (
        f'{{"size":{size},"count":{count},"type":"{type_}","redop":"{redop}",'
        f'"root":"{int(root):6d}","out_of_place":{out},"in_place":{_half(*cells[9:13])},'
        '"actual_iterations":20,"experiment_name":"all_reduce_perf"}'
    )


def _report(text: str, *, rows: list[str] | None = None, oob: int = 0) -> str:
    """The JSON report nccl-tests writes for the run whose text output is ``text``."""
    table = [line.split() for line in text.splitlines() if line[:1] == " " and "float" in line]
    rows = rows if rows is not None else [_row(cells) for cells in table]
    devices = [
        {
            "rank": r,
            "group": 0,
            "pid": pid,
            "hostname": host,
            "device": 0,
            "device_hex": "0009:01:00",
            "device_info": "NVIDIA GH200 120GB",
        }
        for r, pid, host in ((0, 15784, "nid007106"), (1, 24926, "nid007109"))
    ]
    devices_json = ",".join(json.dumps(d, separators=(",", ":")) for d in devices)
    okay = "true" if oob == 0 else "false"
    return (
        '{"version":2,"start_time":"2025-03-01 10:00:00","args":["all_reduce_perf","-b","1M",'
        '"-e","128M","-f2"],"env":["HOME=/users/someone","API_TOKEN=s3cr3t"],'
        '"nccl_version":23007,"config":{"nthreads":1,"ngpus":1,"minimum_bytes":1048576,'
        '"maximum_bytes":134217728,"step_factor":2,"warmup_iters":1,"iterations":20,'
        '"aggregated_iterations":1,"validation":1,"graph":0,"blocking_collectives":"false",'
        f'"per_iter_timing":"false","parallel_init":"false","devices":[{devices_json}]}},'
        f'"results":[{",".join(rows)}],"out_of_bounds":{{"count":{oob},"okay":"{okay}"}},'
        f'"average_bus_bandwidth":{{"bandwidth":{_f(14.9966)},"okay":"unchecked"}},'
        '"errors":[""],"end_time":"2025-03-01 10:00:09"}'
    )


def _without_lines(result: ParseResult) -> tuple[list[Any], dict[str, Any]]:
    facts = [replace(f, line=None) for f in result.facts]
    return facts, result.metrics


def test_the_report_is_nccl_tests_and_valid_json(sample: Sample) -> None:
    report = _report(sample(CSCS))
    assert "\n" not in report and json.loads(report)["results"][7]["root"] == "    -1"
    assert registry.detect_kind(report) == "nccl_tests"
    assert nccl.detect(report) == 95


def test_the_report_gives_the_text_outputs_figures(sample: Sample) -> None:
    text = sample(CSCS)
    from_text, from_json = nccl.parse(text), nccl.parse(_report(text))
    text_facts, text_metrics = _without_lines(from_text)
    json_facts, json_metrics = _without_lines(from_json)
    assert json_facts == text_facts
    shared = set(text_metrics) - TEXT_ONLY
    assert {k: json_metrics[k] for k in shared} == {k: text_metrics[k] for k in shared}
    assert set(json_metrics) - set(text_metrics) == JSON_ONLY
    assert (json_metrics["peak_busbw_gbyte_s"], json_metrics["avg_busbw_gbyte_s"]) == (
        22.88,
        14.9966,
    )
    assert (json_metrics["nccl_version"], json_metrics["hosts"]) == (
        "2.30.7",
        ["nid007106", "nid007109"],
    )
    assert (json_metrics["format"], json_metrics["json_version"]) == ("json", 2)
    assert [f.line for f in from_json.facts] == [None] * len(from_json.facts)


def test_the_environment_of_the_run_is_never_kept(sample: Sample) -> None:
    result = nccl.parse(_report(sample(CSCS)))
    assert "s3cr3t" not in json.dumps(result.metrics) + repr(result.facts) + repr(result.warnings)


def test_a_bundle_reads_the_report_as_it_reads_the_text(sample: Sample) -> None:
    # parse_lines is how an upload reads an nccl-tests file: one curve fact per table.
    text = sample(CSCS)
    from_text = nccl.parse_lines(text.splitlines())
    from_json = nccl.parse_lines(_report(text).splitlines())
    assert _without_lines(from_json)[0] == [
        replace(f, line=None, details={**f.details, "lines": [None] * len(f.details["lines"])})
        if "lines" in f.details
        else replace(f, line=None)
        for f in from_text.facts
    ]
    assert from_json.metrics["peak_busbw_gbyte_s"] == from_text.metrics["peak_busbw_gbyte_s"]


def test_a_pretty_printed_copy_is_read_alike(sample: Sample) -> None:
    report = _report(sample(CSCS))
    pretty = json.dumps(json.loads(report), indent=2)
    assert registry.detect_kind(pretty) == "nccl_tests"
    assert nccl.parse(pretty).facts == nccl.parse(report).facts
    assert nccl.parse_lines(pretty.splitlines()).facts == nccl.parse_lines([report]).facts


def test_wrong_results_are_named_by_their_row(sample: Sample) -> None:
    text = sample(CSCS)
    table = [line.split() for line in text.splitlines() if line[:1] == " " and "float" in line]
    table[3][12] = "2"  # in-place #wrong of the 8 MiB row
    result = nccl.parse(_report(text, rows=[_row(cells) for cells in table], oob=2))
    metrics = result.metrics
    assert (metrics["wrong_total"], metrics["out_of_bounds_ok"]) == (2, False)
    assert (metrics["wrong_line"], metrics["wrong_result"]) == (None, "results[3]")
    assert "results[3]: nccl-tests reported wrong results (out-of-bounds values)" in (
        result.warnings
    )


def test_an_in_place_only_row_shows_no_out_of_place_figure(sample: Sample) -> None:
    text = sample(CSCS)
    table = [line.split() for line in text.splitlines() if line[:1] == " " and "float" in line]
    rows = [_row(cells, in_place_only=(i == 0)) for i, cells in enumerate(table)]
    curve = nccl.parse(_report(text, rows=rows)).metrics["curve"]
    assert (curve[0]["out_of_place_busbw_gbyte_s"], curve[0]["in_place_busbw_gbyte_s"]) == (
        None,
        3.12,
    )
    assert curve[1]["out_of_place_busbw_gbyte_s"] == 5.9


def test_nan_and_null_figures_leave_their_row_out(sample: Sample) -> None:
    text = sample(CSCS)
    report = _report(text).replace('"bus_bw":3.120000', '"bus_bw":"nan"', 1)
    result = nccl.parse(report)
    assert result.metrics["min_size_bytes"] == 2097152
    assert "1 result row(s) without figures (null or nan) left out: results[0]" in (result.warnings)


@pytest.mark.parametrize(
    ("edit", "code"),
    [
        # A run killed before jsonOutputFinalize: the object is left open.
        (lambda r: r[: r.index(',"out_of_bounds"')], "nccl.json_unreadable"),
        (lambda r: r.replace('"results":[', '"results":[],"x":[', 1), "nccl.json_no_results"),
        (lambda r: r.replace('"size":1048576', '"size":"1M"', 1), "nccl.json_bad_value"),
        (lambda r: r.replace('"time":339.610000', '"time":true', 1), "nccl.json_bad_value"),
        (lambda r: r.replace('"results":[{', '"results":[7,{', 1), "nccl.json_bad_value"),
    ],
)
def test_a_broken_report_fails_its_own_file_with_its_code(
    sample: Sample, edit: Any, code: str
) -> None:
    report = edit(_report(sample(CSCS)))
    assert registry.detect_kind(report) == "nccl_tests"
    for parse in (nccl.parse, lambda t: nccl.parse_lines(t.splitlines())):
        with pytest.raises(EvidenceParseError) as caught:
            parse(report)
        assert (caught.value.kind, caught.value.code) == ("nccl_tests", code)


def test_an_upload_with_a_broken_report_keeps_its_other_files(sample: Sample) -> None:
    files = {
        # Killed in its fourth row: the object stays open.
        "nccl.json": _report(sample(CSCS)).split('{"size":8388608')[0],
        "dmesg.txt": sample(
            "kernel_log/aws-notes-ec2-t3-micro-nitro-dmesg-egrep-dmi-hypervisor-detected-kvm-"
            "prompt.txt"
        ),
    }
    commands = [
        command("nccl-json", ["all_reduce_perf", "-J", "nccl.json"], "nccl.json"),
        command("dmesg", ["dmesg"], "dmesg.txt"),
    ]
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:gz") as tar:
        for name, text in {"manifest.json": manifest(commands).decode(), **files}.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    results = {r.file: r for r in parse_evidence("node.tar.gz", packed.getvalue())}
    failed = results["nccl.json"]
    assert (failed.ok, failed.kind, failed.error_detail["code"]) == (
        False,
        "nccl_tests",
        "nccl.json_unreadable",
    )
    assert (results["dmesg.txt"].ok, results["dmesg.txt"].kind) == (True, "kernel_log")


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 3, "jobs": []}',  # not the writer's opening keys
        '{"fio version": "fio-3.33", "jobs": [{"jobname": "x"}]}',
        '{"start_time": "x", "version": 2, "args": []}',  # keys out of the writer's order
    ],
)
def test_other_json_is_not_an_nccl_tests_report(text: str) -> None:
    assert nccl.detect(text) < 40


@pytest.mark.parametrize(
    ("value", "width", "printed"),
    [
        # getFloatStr: two decimals, then one, then none as the integer part grows.
        (339.6123, 7, " 339.61"),
        (5871.0749, 7, "5871.07"),
        (12345.678, 7, "12345.7"),
        (123456.7, 7, " 123457"),
        (3.0949, 6, "  3.09"),
        (1234.567, 6, "1234.6"),
        (12345.6, 6, " 12346"),
        (0.004, 6, "  0.00"),
    ],
)
def test_figures_are_printed_as_the_text_table_prints_them(
    value: float, width: int, printed: str
) -> None:
    from scoring.evidence.nccl.json_report import _float_str

    assert _float_str(value, width) == printed


def test_the_reports_full_precision_reads_as_the_text_tables_figure(sample: Sample) -> None:
    # The JSON holds "%lf" (22.876543); the text table of the same run printed 22.88.
    report = _report(sample(CSCS)).replace('"bus_bw":22.880000', '"bus_bw":22.876543', 1)
    assert nccl.parse(report).metrics["peak_busbw_gbyte_s"] == 22.88
