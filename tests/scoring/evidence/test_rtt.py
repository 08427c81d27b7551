"""Tests of the round-trip-time parser (ping, fping, Windows ping, collector TCPING)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import registry, rtt
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]


def _figures(metrics: dict) -> tuple:
    return (
        metrics["rtt_min_ms"],
        metrics["rtt_avg_ms"],
        metrics["rtt_max_ms"],
        metrics["loss_pct"],
        metrics["target"],
    )


@pytest.mark.parametrize(
    ("path", "expected", "method"),
    [
        # "rtt min/avg/max/mdev = 0.027/0.154/0.584/0.215 ms", "5 packets transmitted, 5 received"
        (
            "rtt/devmachine-iputils-ping-loopback-5.txt",
            (0.027, 0.154, 0.584, 0.0, "127.0.0.1"),
            "icmp",
        ),
        (
            "rtt/devmachine-iputils-ping-D-localhost.txt",
            (0.018, 0.033, 0.042, 0.0, "localhost"),
            "icmp",
        ),
        ("rtt/devmachine-iputils-ping-q-ipv6.txt", (0.038, 0.136, 0.328, 0.0, "::1"), "icmp"),
        (
            "rtt/cisco-don-issue14-linux-ping-ctrl-c.txt",
            (0.197, 0.207, 0.217, 0.0, "172.25.30.2"),
            "icmp",
        ),
        # "Minimum = 258ms, Maximum = 377ms, Average = 295ms"
        (
            "rtt/node-net-ping-issue76-windows-ping-crlf.txt",
            (258.0, 295.0, 377.0, 0.0, "servername.abc.com"),
            "icmp",
        ),
        # "xmt/rcv/%loss = 4/4/0%, min/avg/max = 0.47/0.51/0.62"
        ("rtt/ping3-issue96-fping-l-summary.txt", (0.47, 0.51, 0.62, 0.0, "192.168.2.2"), "fping"),
        # BusyBox: "round-trip min/avg/max = 0.081/0.083/0.086 ms", "2 packets received"
        (
            "rtt/busybox-docker-exec-ping-c2-round-trip.txt",
            (0.081, 0.083, 0.086, 0.0, "backend"),
            "icmp",
        ),
        # old iputils "icmp_req=" replies, RST-indented
        (
            "rtt/openstack-docs-old-iputils-icmp-req-rst-indented.txt",
            (0.165, 0.297, 0.619, 0.0, "203.0.113.101"),
            "icmp",
        ),
    ],
)
def test_real_outputs(sample: Sample, path: str, expected: tuple, method: str) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "rtt"
    result = rtt.parse(text)
    assert _figures(result.metrics) == expected
    assert result.metrics["method"] == method
    assert result.metrics["from_replies"] is False
    assert {f.metric for f in result.facts} == {"rtt_avg_ms", "loss_pct"}


def test_cut_before_the_summary_uses_the_replies(sample: Sample) -> None:
    text = sample("rtt/devmachine-iputils-ping-loopback-5.txt")
    cut = text[: text.index("--- 127.0.0.1 ping statistics")]
    result = rtt.parse(cut)
    metrics = result.metrics
    assert (metrics["rtt_min_ms"], metrics["rtt_max_ms"]) == (0.027, 0.584)
    assert metrics["rtt_avg_ms"] == round((0.584 + 0.049 + 0.053 + 0.059 + 0.027) / 5, 3)
    assert metrics["loss_pct"] is None
    assert metrics["from_replies"] is True
    assert any("no summary line" in w for w in result.warnings)


def test_total_loss_is_reported() -> None:
    # iputils' summary when nothing answers (its exact wording).
    text = (
        "PING 10.9.9.9 (10.9.9.9) 56(84) bytes of data.\n\n"
        "--- 10.9.9.9 ping statistics ---\n"
        "3 packets transmitted, 0 received, 100% packet loss, time 2051ms\n"
    )
    result = rtt.parse(text)
    assert (result.metrics["loss_pct"], result.metrics["rtt_avg_ms"]) == (100.0, None)
    assert any("100% loss" in w for w in result.warnings)


def test_collector_tcp_connect_probe() -> None:
    text = (
        "TCPING 10.0.0.2:22 (10.0.0.2)\n"
        "connected to 10.0.0.2:22: seq=1 time=0.410 ms\n"
        "connected to 10.0.0.2:22: seq=2 time=0.390 ms\n\n"
        "--- 10.0.0.2:22 tcp-connect statistics ---\n"
        "2 packets transmitted, 2 received, 0% packet loss\n"
        "rtt min/avg/max/mdev = 0.390/0.400/0.410/0.010 ms\n"
    )
    metrics = rtt.parse(text).metrics
    assert (metrics["method"], metrics["target"], metrics["port"]) == (
        "tcp_connect",
        "10.0.0.2",
        22,
    )
    assert _figures(metrics) == (0.39, 0.4, 0.41, 0.0, "10.0.0.2")


def test_two_targets_in_one_file(sample: Sample) -> None:
    text = sample("rtt/devmachine-iputils-ping-loopback-5.txt") + sample(
        "rtt/devmachine-iputils-ping-D-localhost.txt"
    )
    metrics = rtt.parse(text).metrics
    assert [t["target"] for t in metrics["targets"]] == ["127.0.0.1", "localhost"]
    assert metrics["target"] == "127.0.0.1"


def test_not_ping_is_refused() -> None:
    with pytest.raises(EvidenceParseError, match="no ping"):
        rtt.parse("nothing here\n")
    assert rtt.detect("nothing here\n") == 0


def test_no_reply_at_all_after_ctrl_c(sample: Sample) -> None:
    result = rtt.parse(sample("rtt/docker-bridge-ping-100pct-loss-ctrl-c-echoed.txt"))
    m = result.metrics
    assert (m["transmitted"], m["received"], m["loss_pct"]) == (44, 0, 100.0)
    assert m["rtt_avg_ms"] is None and m["target"] == "172.17.0.2"
    assert result.warnings == ("172.17.0.2: no reply at all (100% loss)",)


def test_repeated_runs_to_one_target_are_kept_apart(sample) -> None:
    # ibping to the same LID through three HCAs: three summaries, none overwriting another.
    result = rtt.parse(
        sample("rtt/nccl-tests-issue188-ibping-three-hcas-same-lid-summaries-prompts.txt")
    )
    metrics = result.metrics
    assert metrics["method"] == "ibping"
    assert metrics["target_count"] == 3
    assert [t["rtt_avg_ms"] for t in metrics["targets"]] == [0.703, 0.792, 0.793]
    assert (metrics["rtt_min_ms"], metrics["rtt_avg_ms"], metrics["rtt_max_ms"]) == (
        0.031,
        0.703,
        900.078,
    )
    assert [t["transmitted"] for t in metrics["targets"]] == [10000, 10000, 10000]


def test_one_ping_run_is_still_one_target() -> None:
    text = (
        "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
        "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=0.120 ms\n\n"
        "--- 10.0.0.2 ping statistics ---\n"
        "1 packets transmitted, 1 received, 0% packet loss, time 0ms\n"
        "rtt min/avg/max/mdev = 0.120/0.120/0.120/0.000 ms\n"
    )
    result = rtt.parse(text)
    assert result.metrics["target_count"] == 1
    assert result.metrics["method"] == "icmp"
