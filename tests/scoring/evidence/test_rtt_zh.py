"""ping in Chinese: iputils under LANG=zh_CN (whole or partly translated) and Windows ping on a
Chinese system, from real outputs (see PROVENANCE.tsv); a Windows run redirected to a file by
cmd.exe is GBK, and reads the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import detect_kind, parse_bytes, rtt

SAMPLES = Path(__file__).parent / "samples" / "rtt"
VETH = "ping-zh-cn-iputils-veth-netns-two-runs-second-100pct-loss.txt"
MININET = "ping-zh-cn-mininet-partly-translated-loss-line-english.txt"
WINDOWS = "windows-ping-zh-cn-lidar-lan-4-replies.txt"
GLUED = "ping-zh-cn-bing-replies-run-together-on-one-line.txt"


def _text(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", [VETH, MININET, WINDOWS, GLUED])
def test_chinese_ping_is_detected(name):
    assert rtt.detect(_text(name)) == 90
    assert detect_kind(_text(name)) == "rtt"


def test_iputils_in_chinese_gives_counts_loss_and_replies_per_run():
    result = rtt.parse(_text(VETH))
    first, second = result.metrics["targets"]
    assert (first["target"], first["transmitted"], first["received"]) == ("192.167.3.1", 2, 2)
    assert first["loss_pct"] == 0.0
    assert (first["rtt_min_ms"], first["rtt_avg_ms"], first["rtt_max_ms"]) == (0.032, 0.039, 0.047)
    assert first["reply_count"] == 2  # "64 比特" ... "来自 ...: ... 时间=0.047 毫秒"
    # The second run had no reply: its summary alone says 100% loss.
    assert (second["target"], second["transmitted"], second["received"]) == ("192.167.2.1", 2, 0)
    assert second["loss_pct"] == 100.0 and second["rtt_avg_ms"] is None
    assert result.warnings == ("192.167.2.1: no reply at all (100% loss)",)
    losses = [f.value for f in result.facts if f.metric == "loss_pct"]
    assert losses == [0.0, 100.0]


def test_iputils_partly_translated_keeps_the_english_loss():
    metrics = rtt.parse(_text(MININET)).metrics
    assert metrics["target"] == "10.0.0.5"
    assert (metrics["transmitted"], metrics["received"], metrics["loss_pct"]) == (1, 1, 0.0)
    assert metrics["rtt_avg_ms"] == 2.265
    assert metrics["reply_count"] == 1


@pytest.mark.parametrize("encoding", ["utf-8", "gbk"])
def test_windows_ping_in_chinese_reads_like_the_english_one(encoding):
    result = parse_bytes(_text(WINDOWS).encode(encoding))
    metrics = result.metrics
    assert result.kind == "rtt" and metrics["method"] == "icmp"
    assert metrics["target"] == "192.168.0.3"
    assert (metrics["transmitted"], metrics["received"], metrics["loss_pct"]) == (4, 4, 0.0)
    assert (metrics["rtt_min_ms"], metrics["rtt_avg_ms"], metrics["rtt_max_ms"]) == (1.0, 1.0, 1.0)
    assert metrics["reply_count"] == 4
    assert [n["params"] for n in result.notes] == (
        [] if encoding == "utf-8" else [{"encoding": "GB18030"}]
    )


def test_windows_chinese_replies_alone_give_figures_when_the_summary_is_cut():
    text = _text(WINDOWS)
    cut = text[: text.index("192.168.0.3 的 Ping 统计信息")]
    metrics = rtt.parse(cut).metrics
    assert metrics["from_replies"] is True
    assert metrics["rtt_avg_ms"] == 1.0 and metrics["reply_count"] == 4
    assert metrics["loss_pct"] is None


def test_replies_glued_onto_the_header_leave_the_summary_to_speak():
    # The paste lost its line breaks up to "^C": the summary still gives every figure.
    metrics = rtt.parse(_text(GLUED)).metrics
    assert metrics["target"] == "204.79.197.200"
    assert (metrics["transmitted"], metrics["received"], metrics["loss_pct"]) == (6, 6, 0.0)
    assert (metrics["rtt_min_ms"], metrics["rtt_avg_ms"]) == (77.626, 156.653)
    assert metrics["rtt_max_ms"] == 311.185 and metrics["rtt_mdev_ms"] == 73.562
    assert metrics["from_replies"] is False
