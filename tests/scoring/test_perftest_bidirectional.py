"""A bidirectional perftest run (-b) is judged one way: the fabric check and the POC fleet
figure halve the reported sum of both directions (scoring/verification/network/fabric.py,
scoring/poc/fleet.py), and the explanation names the tool that ran.

perftest's print_full_bw_report adds the remote side's report to the local one when the run
is bidirectional, so the printed "BW average" is both directions summed, while a port's rate
is a per-direction figure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring import poc
from scoring.evidence import parse_bytes
from scoring.evidence.perftest import bw_avg_each_way_gbit_s
from scoring.poc import PocEvidence
from scoring.verification import Claims, NodeEvidence, verify_candidate

SAMPLES = Path(__file__).parent / "evidence" / "samples" / "perftest"
CJK = re.compile(r"[\u4e00-\u9fff]")
# A 400G AMD AI NIC (RoCE), ib_write_bw -b -q 4 -a --report_gbits: 779.21 Gb/s both ways.
AINIC = "amd-ainic-ib_write_bw-bidir-4qp-a-gbits-server-newest.txt"
# ib_send_bw -b over RoCE, 8 QPs, a sweep cut at 16 KiB: 194.33 Gb/s both ways.
SEND = "cn-notes-roce-ib_send_bw-bidir-8qp-report-gbits-a-sweep-cut-at-16k-short-rule.txt"


def metrics(name: str) -> dict:
    result = parse_bytes((SAMPLES / name).read_bytes())
    assert result.kind == "perftest"
    return dict(result.metrics)


def fabric(name: str, rate_gbit_s: float):
    claims = Claims(
        gpu_model="H100 SXM5 80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        gpu_form_factor="sxm",
        nvlink_topology="full_mesh",
        fabric="roce",
        fabric_rate_gbit_s=rate_gbit_s,
        nics_per_node=8,
        node_count=2,
        logical_cpus_per_node=None,
    )
    evidence = [NodeEvidence("gpu-01", 1, "perftest", metrics(name), name, None)]
    return verify_candidate(claims, evidence).items["fabric"]


def test_the_parser_reports_the_sum_and_the_helper_one_direction() -> None:
    m = metrics(AINIC)
    assert (m["test"], m["bidirectional"], m["bw_avg_gbit_s"]) == ("ib_write_bw", True, 779.21)
    assert bw_avg_each_way_gbit_s(m) == pytest.approx(389.605)
    assert bw_avg_each_way_gbit_s({**m, "bidirectional": False}) == 779.21
    assert bw_avg_each_way_gbit_s({"bw_avg_gbit_s": None}) is None


def test_a_400g_port_claim_fits_the_bidirectional_run() -> None:
    item = fabric(AINIC, 400)
    assert item.status == "unverifiable"  # perftest alone never shows the ports
    assert (
        "ib_write_bw from node gpu-01 is a bidirectional run: 779.21 Gb/s both ways, "
        "389.6 Gb/s each way, which fits one 400 Gb/s port"
    ) in item.explanation_en
    assert "双向测试：双向合计 779.21 Gb/s，单向 389.6 Gb/s，符合单个 400 Gb/s 端口" in (
        item.explanation_zh
    )


def test_an_800g_port_claim_is_contradicted_by_the_bidirectional_run() -> None:
    item = fabric(AINIC, 800)
    assert item.status == "contradicted"
    assert "389.6 Gb/s each way, under 50 % of the claimed 800 Gb/s per port" in (
        item.explanation_en
    )
    assert "fits" not in item.explanation_en
    assert CJK.search(item.explanation_zh) and "389.6" in item.explanation_zh


def test_the_explanation_names_the_tool_the_parser_recognised() -> None:
    item = fabric(SEND, 100)
    assert "ib_send_bw from node gpu-01 is a bidirectional run: 194.33 Gb/s both ways" in (
        item.explanation_en
    )
    assert "97.2 Gb/s each way, which fits one 100 Gb/s port" in item.explanation_en
    assert "ib_write_bw" not in item.explanation_en
    assert "ib_send_bw" in item.explanation_zh


def test_poc_fleet_figure_is_one_direction() -> None:
    command = "ib_write_bw -d ionic_7 -b -q 4 -a --report_gbits gpu02"
    bidir = PocEvidence("gpu01", 7, "perftest", metrics(AINIC), AINIC, command)
    # A one-way run on another node of the same fleet (unidirectional: its figure as printed).
    one_way = PocEvidence(
        "gpu02", 8, "perftest", {"test": "ib_write_bw", "bw_avg_gbit_s": 392.1}, "w.txt"
    )
    fleet = poc.fleet_figures([bidir, one_way])["ib_write_bw_gbit_s"]
    assert fleet["nodes"] == 2
    assert fleet["worst"] == pytest.approx(389.605)
    assert fleet["median"] == pytest.approx((389.605 + 392.1) / 2)
    assert 779.21 not in fleet.values()
