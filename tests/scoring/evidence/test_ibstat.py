"""Tests of the ibstat/ibstatus parser on real outputs (expected values read off the samples)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import ibstat, registry
from scoring.evidence.base import EvidenceParseError, decode_text


def test_single_hdr100_port_on_connectx6(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/hpc-login-cx6-mt4123-hdr100.txt"))
    assert result.kind == "ibstat"
    assert result.metrics["format"] == "ibstat"
    assert result.metrics["ports"] == [
        {
            "ca": "mlx5_0",
            "port": 1,
            "state": "Active",
            "physical_state": "LinkUp",
            "rate_gbit_s": 100.0,
            "link_layer": "InfiniBand",
            "ca_type": "MT4123",
            "firmware": "20.35.1012",
        }
    ]
    assert result.metrics["max_active_rate_gbit_s"] == 100.0
    assert result.warnings == ()
    (fact,) = result.facts
    assert (fact.metric, fact.value, fact.unit, fact.line) == (
        "port_rate_gbit_s",
        100.0,
        "Gbit/s",
        12,
    )
    assert fact.details == {
        "ca": "mlx5_0",
        "port": 1,
        "state": "Active",
        "link_layer": "InfiniBand",
    }


def test_old_connectx3_fdr56(sample: Callable[[str], str]) -> None:
    metrics = ibstat.parse(sample("ibstat/mlx4-cx3-fdr56-mt4099.txt")).metrics
    (port,) = metrics["ports"]
    assert (port["ca"], port["rate_gbit_s"], port["ca_type"], port["firmware"]) == (
        "mlx4_0",
        56.0,
        "MT4099",
        "2.42.5000",
    )
    assert metrics["ca_types"] == ["MT4099"]


def test_roce_node_with_down_polling_and_disabled_ports(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/gpud-h100-roce-cx7-some-down-polling.txt"))
    metrics = result.metrics
    assert metrics["ca_count"] == 12
    assert metrics["port_count"] == 12
    assert metrics["active_port_count"] == 10
    assert metrics["down_port_count"] == 2
    assert metrics["link_layers"] == ["Ethernet"]
    assert metrics["ca_types"] == ["MT4125", "MT4129"]
    assert metrics["firmware_versions"] == ["22.39.1002", "28.39.1002"]
    assert metrics["active_rates_gbit_s"] == [100.0, 400.0]
    down = {p["ca"]: p for p in metrics["ports"] if p["state"] == "Down"}
    assert down["mlx5_11"]["physical_state"] == "Polling"
    assert down["mlx5_5"]["physical_state"] == "Disabled"
    # ibstat still prints a (meaningless) rate for a Down port; it travels with its state.
    assert down["mlx5_11"]["rate_gbit_s"] == 40.0
    rates = [p["rate_gbit_s"] for p in metrics["ports"]]
    assert rates.count(400.0) == 6 and rates.count(100.0) == 4 and rates.count(40.0) == 2
    assert "mlx5_11 port 1 is Down/Polling" in result.warnings
    assert "mlx5_5 port 1 is Down/Disabled" in result.warnings
    assert [f.line for f in result.facts][:4] == [11, 28, 45, 62]
    assert result.facts[3].details["state"] == "Down"


def test_ndr400_infiniband_with_space_indentation(sample: Callable[[str], str]) -> None:
    metrics = ibstat.parse(sample("ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt")).metrics
    assert metrics["port_count"] == 9
    assert metrics["active_port_count"] == 9
    ib = [p for p in metrics["ports"] if p["link_layer"] == "InfiniBand"]
    assert len(ib) == 8 and {p["rate_gbit_s"] for p in ib} == {400.0}
    bond = metrics["ports"][-1]
    assert (bond["ca"], bond["rate_gbit_s"], bond["link_layer"], bond["ca_type"]) == (
        "mlx5_bond_0",
        200.0,
        "Ethernet",
        "MT41692",
    )
    assert metrics["max_active_rate_gbit_s"] == 400.0


def test_ibstatus_format_reads_rate_width_and_speed(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/gpud-a100-ibstatus-hdr200-8ib-1eth.txt"))
    metrics = result.metrics
    assert metrics["format"] == "ibstatus"
    assert metrics["port_count"] == 9
    first = metrics["ports"][0]
    assert first == {
        "ca": "mlx5_0",
        "port": 1,
        "state": "Active",
        "physical_state": "LinkUp",
        "rate_gbit_s": 200.0,
        "link_layer": "InfiniBand",
        "ca_type": None,
        "firmware": None,
        "link_width": "4X",
        "speed": "HDR",
    }
    last = metrics["ports"][-1]
    assert (last["ca"], last["rate_gbit_s"], last["speed"], last["link_layer"]) == (
        "mlx5_8",
        40.0,
        "QDR",
        "Ethernet",
    )
    assert result.facts[-1].line == 79


def test_ibstatus_with_tabs_and_a_down_port(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/ibstatus-cx-100g-roce-tabs-one-down.txt"))
    ports = result.metrics["ports"]
    assert [(p["ca"], p["state"], p["physical_state"]) for p in ports] == [
        ("mlx5_0", "Down", "Disabled"),
        ("mlx5_1", "Active", "LinkUp"),
    ]
    assert {p["rate_gbit_s"] for p in ports} == {100.0}
    assert {p["speed"] for p in ports} == {"EDR"}
    assert result.warnings == ("mlx5_0 port 1 is Down/Disabled",)


def test_two_port_hca_pasted_from_a_tmux_pane(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/mlx4-cx3-2port-qdr40-tmux-pane.txt"))
    ports = result.metrics["ports"]
    assert [(p["port"], p["state"], p["rate_gbit_s"], p["link_layer"]) for p in ports] == [
        (1, "Active", 40.0, "InfiniBand"),
        (2, "Down", 10.0, "Ethernet"),
    ]
    assert [f.line for f in result.facts] == [12, 22]


def test_ca_line_without_ports_names_the_line() -> None:
    with pytest.raises(EvidenceParseError) as err:
        ibstat.parse("$ ibstat\nCA 'mlx5_0'\n\tCA type: MT4129\n\tNumber of ports: 1\n")
    assert err.value.line == 2
    assert "has no port status lines" in str(err.value)


def test_garbled_rate_gives_the_line(sample: Callable[[str], str]) -> None:
    text = sample("ibstat/hpc-login-cx6-mt4123-hdr100.txt").replace("Rate: 100", "Rate: f@st")
    with pytest.raises(EvidenceParseError) as err:
        ibstat.parse(text)
    assert err.value.line == 12
    assert "unreadable port rate 'f@st'" in str(err.value)


@pytest.mark.parametrize("rate", ["nan", "NaN", "-nan", "+NAN"])
def test_a_rate_of_nan_is_unreadable_not_a_number(sample: Callable[[str], str], rate) -> None:
    text = sample("ibstat/hpc-login-cx6-mt4123-hdr100.txt").replace("Rate: 100", f"Rate: {rate}")
    with pytest.raises(EvidenceParseError) as err:
        ibstat.parse(text)
    assert err.value.line == 12
    assert err.value.code == "ibstat.unreadable_rate"


def test_truncated_port_block_is_a_warning(sample: Callable[[str], str]) -> None:
    text = "\n".join(sample("ibstat/hpc-login-cx6-mt4123-hdr100.txt").splitlines()[:10])
    result = ibstat.parse(text)
    assert result.metrics["ports"][0]["rate_gbit_s"] is None
    assert "mlx5_0 port 1: no rate line (truncated output?)" in result.warnings
    assert result.facts == ()


def test_missing_second_port_is_flagged(sample: Callable[[str], str]) -> None:
    text = "\n".join(sample("ibstat/mlx4-cx3-2port-qdr40-tmux-pane.txt").splitlines()[:18])
    result = ibstat.parse(text)
    assert result.metrics["port_count"] == 1
    assert "CA mlx4_0 declares 2 ports but 1 shown (truncated output?)" in result.warnings


def test_single_port_query_without_ca_header() -> None:
    text = "State: Active\nPhysical state: LinkUp\nRate: 200\nLink layer: InfiniBand\n"
    result = ibstat.parse(text)
    assert result.metrics["ports"][0]["rate_gbit_s"] == 200.0
    assert result.metrics["ports"][0]["ca"] is None
    assert "1 port(s) printed without a CA header: CA name unknown" in result.warnings


def test_binary_bytes_are_refused_before_parsing() -> None:
    with pytest.raises(EvidenceParseError, match="binary content"):
        decode_text(b"CA 'mlx5_0'\x00\x00\xff")


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("ibstat/gpud-h100-roce-cx7-some-down-polling.txt") * 2000  # ~8 MB
    start = time.perf_counter()
    result = ibstat.parse(text)
    assert result.metrics["port_count"] == 24000
    assert time.perf_counter() - start < 30


def test_ibv_devinfo_roce_functions_with_ports_down(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/ibv_devinfo-cx7-4dev-roce-two-down-md-fenced.txt"))
    m = result.metrics
    assert (m["format"], m["ca_count"], m["port_count"]) == ("ibv_devinfo", 4, 4)
    assert (m["active_port_count"], m["down_port_count"]) == (2, 2)
    assert [(p["ca"], p["port"], p["state"]) for p in m["ports"]] == [
        ("rocep1s0f0", 1, "Down"),
        ("rocep1s0f1", 1, "Active"),
        ("roceP2p1s0f0", 1, "Down"),
        ("roceP2p1s0f1", 1, "Active"),
    ]
    assert m["link_layers"] == ["Ethernet"]
    assert (m["ca_types"], m["firmware_versions"]) == (["MT4129"], ["28.45.4028"])
    assert {p["transport"] for p in m["ports"]} == {"InfiniBand"}
    # Without -v ibv_devinfo prints no rate: that is no truncation.
    assert m["max_active_rate_gbit_s"] is None
    assert sorted(result.warnings) == ["roceP2p1s0f0 port 1 is Down", "rocep1s0f0 port 1 is Down"]


def test_ibv_devinfo_two_ports_on_one_hca(sample: Callable[[str], str]) -> None:
    m = ibstat.parse(sample("ibstat/ibv_devinfo-tf-gdr-mlx4-cx3-2port-roce.txt")).metrics
    assert [(p["ca"], p["port"], p["state"]) for p in m["ports"]] == [
        ("mlx4_0", 1, "Active"),
        ("mlx4_0", 2, "Active"),
    ]
    assert (m["ca_types"], m["link_layers"]) == (["MT4099"], ["Ethernet"])


def test_ibv_devinfo_mixed_firmware_one_port_down(sample: Callable[[str], str]) -> None:
    m = ibstat.parse(sample("ibstat/ibv_devinfo-cx4lx-4dev-roce-mixed-fw-one-down.txt")).metrics
    assert (m["port_count"], m["down_port_count"]) == (4, 1)
    assert m["ports"][1]["ca"] == "mlx5_1" and m["ports"][1]["state"] == "Down"
    assert m["firmware_versions"] == ["14.28.2006", "14.32.1010"]
    assert m["ca_types"] == ["MT4117"]


def test_ibv_devinfo_iwarp_soft_provider(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/ibv_devinfo-siw-iwarp-prompt-and-lsmod.txt"))
    (port,) = result.metrics["ports"]
    assert (port["ca"], port["state"], port["transport"]) == ("siw0", "Active", "iWARP")
    assert port["ca_type"] is None  # vendor 0x626d74 is no Mellanox part
    assert result.warnings == ()


def test_ibv_devinfo_verbose_excerpt_gives_the_rate(sample: Callable[[str], str]) -> None:
    # A filtered `ibv_devinfo -v`: no "port:" line; 4X lanes at 25.0 Gbps = 100 Gbit/s (EDR).
    result = ibstat.parse(sample("ibstat/ibv_devinfo-v-grep-bf3-down-linkup-edr-no-sm.txt"))
    m = result.metrics
    assert [(p["ca"], p["port"], p["state"], p["physical_state"]) for p in m["ports"]] == [
        ("mlx5_0", None, "Down", "LinkUp"),
        ("mlx5_1", None, "Down", "LinkUp"),
    ]
    assert [p["rate_gbit_s"] for p in m["ports"]] == [100.0, 100.0]
    assert m["ca_types"] == ["MT41692"]
    assert m["active_port_count"] == 0
    assert [f.value for f in result.facts] == [100.0, 100.0]


def test_ibstat_ports_down_with_link_up_and_a_separator_line(sample: Callable[[str], str]) -> None:
    result = ibstat.parse(sample("ibstat/bf3-ibstat-2ca-down-linkup-no-sm-separator.txt"))
    m = result.metrics
    assert (m["format"], m["ca_count"], m["down_port_count"]) == ("ibstat", 2, 2)
    assert {(p["state"], p["physical_state"], p["rate_gbit_s"]) for p in m["ports"]} == {
        ("Down", "LinkUp", 100.0)
    }
    assert m["max_active_rate_gbit_s"] is None
    assert m["link_layers"] == ["InfiniBand"]


def test_ibv_devinfo_enum_words_read_like_ibstat() -> None:
    text = (
        "hca_id:\tmlx5_3\n\ttransport:\t\t\tInfiniBand (0)\n\tvendor_id:\t\t\t0x02c9\n"
        "\tvendor_part_id:\t\t\t4123\n\tphys_port_cnt:\t\t\t1\n\t\tport:\t1\n"
        "\t\t\tstate:\t\t\tPORT_INIT (2)\n\t\t\tactive_width:\t\t2X (16)\n"
        "\t\t\tactive_speed:\t\t50.0 Gbps (64)\n\t\t\tphys_state:\t\tLINK_ERROR_RECOVERY (6)\n"
        "\t\t\tlink_layer:\t\tInfiniBand\n"
    )
    (port,) = ibstat.parse(text).metrics["ports"]
    assert (port["state"], port["physical_state"]) == ("Init", "LinkErrorRecovery")
    assert (port["rate_gbit_s"], port["ca_type"]) == (100.0, "MT4123")


def test_roce_ports_both_down_with_trimmed_fields(sample) -> None:
    m = ibstat.parse(sample("ibstat/blog-h20-cx6lx-mt4127-roce-both-down-trimmed.txt")).metrics
    assert (m["port_count"], m["active_port_count"], m["down_port_count"]) == (2, 0, 2)
    assert m["link_layers"] == ["Ethernet"]
    assert m["ca_types"] == ["MT4127"]
    assert [p["rate_gbit_s"] for p in m["ports"]] == [40.0, 40.0]
    assert m["firmware_versions"] == [] and m["max_active_rate_gbit_s"] is None


def test_ibstat_quoted_in_a_mail_reply(sample) -> None:
    text = sample("ibstat/linux-rdma-list-soft-roce-rxe0-mail-quoted-empty-fields.txt")
    assert registry.detect_kind(text) == "ibstat"
    m = ibstat.parse(text).metrics
    assert m["ports"] == [
        {
            "ca": "rxe0",
            "port": 1,
            "state": "Active",
            "physical_state": "LinkUp",
            "rate_gbit_s": 2.5,
            "link_layer": "Ethernet",
            "ca_type": None,  # printed empty by soft RoCE
            "firmware": None,
        }
    ]


def test_initializing_port_without_a_subnet_manager(sample) -> None:
    result = ibstat.parse(sample("ibstat/container-cx4-ib-initializing-no-sm-lid-65535.txt"))
    m = result.metrics
    assert [(p["state"], p["physical_state"], p["rate_gbit_s"]) for p in m["ports"]] == [
        ("Init", "LinkUp", 100.0)
    ]
    assert (m["active_port_count"], m["max_active_rate_gbit_s"]) == (0, None)
    assert m["ports"][0]["ca_type"] is None and m["firmware_versions"] == ["12.20.1010"]
    assert result.warnings == ("mlx5_0 port 1 is Init/LinkUp",)


def test_web_copy_without_indentation_and_blank_lines(sample) -> None:
    m = ibstat.parse(
        sample("ibstat/mthreads-docs-cx6-hdr200-blank-line-between-every-line.txt")
    ).metrics
    assert (m["port_count"], m["active_port_count"]) == (1, 1)
    assert (m["ca_types"], m["max_active_rate_gbit_s"]) == (["MT4123"], 200.0)
    assert m["link_layers"] == ["InfiniBand"]


def test_renamed_rdma_device_over_roce(sample) -> None:
    m = ibstat.parse(sample("ibstat/pve-ceph-cx5-renamed-rdma0-roce-100-prompts.txt")).metrics
    assert [p["ca"] for p in m["ports"]] == ["rdma0"]
    assert (m["link_layers"], m["active_rates_gbit_s"]) == (["Ethernet"], [100.0])
    assert m["firmware_versions"] == ["16.35.3006"]


def test_values_blanked_as_dots_are_unknown_and_an_abort_is_reported(sample) -> None:
    # The poster blanked the CA type, firmware and GUIDs as "..."; ibstat then stopped on the
    # next device with an "ibpanic:" line, so the devices after mlx5_7 were never listed.
    result = ibstat.parse(sample("ibstat/gpud-pr752-ibstat-redacted-values-then-ibpanic.txt"))
    (port,) = result.metrics["ports"]
    assert (port["ca"], port["state"], port["rate_gbit_s"], port["link_layer"]) == (
        "mlx5_7",
        "Active",
        200.0,
        "InfiniBand",
    )
    assert port["ca_type"] is None
    assert port["firmware"] is None
    assert result.metrics["ca_types"] == []
    assert result.metrics["firmware_versions"] == []
    assert any("stopped with an error" in w and "mlx5_8" in w for w in result.warnings)


def test_blanked_state_is_no_state() -> None:
    text = "CA 'mlx5_0'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: \u2026\n\t\tRate: 400\n"
    (port,) = ibstat.parse(text).metrics["ports"]
    assert port["state"] is None
    assert port["rate_gbit_s"] == 400.0


def test_fractional_rate_of_a_port_negotiated_down(sample) -> None:
    result = ibstat.parse(
        sample("ibstat/lshca-issue79-cx6dx-roce-fractional-rate-2.5-no-link-layer.txt")
    )
    (port,) = result.metrics["ports"]
    assert (port["ca"], port["state"], port["rate_gbit_s"], port["ca_type"]) == (
        "mlx5_2",
        "Active",
        2.5,
        "MT4125",
    )
    assert result.metrics["max_active_rate_gbit_s"] == 2.5


def test_ibstat_after_ibwarn_debug_lines(sample) -> None:
    result = ibstat.parse(
        sample("ibstat/rdma-core-pr847-set-x-ibstat-ibwarn-debug-lines-cx3-cut.txt")
    )
    states = [(p["port"], p["state"], p["rate_gbit_s"]) for p in result.metrics["ports"]]
    assert states == [(1, "Down", 10.0), (2, "Active", 56.0)]


_DEVINFO_CA = (
    "hca_id: {name}\n"
    "        transport:                      InfiniBand (0)\n"
    "        fw_ver:                         28.39.2048\n"
)
_DEVINFO_PORT = (
    "                port:   1\n"
    "                        state:                  PORT_ACTIVE (4)\n"
    "                        link_layer:             InfiniBand\n"
)


def test_a_device_cut_before_its_ports_is_flagged_not_dropped_silently() -> None:
    text = _DEVINFO_CA.format(name="mlx5_0") + _DEVINFO_PORT + _DEVINFO_CA.format(name="mlx5_1")
    result = ibstat.parse(text)
    assert (result.metrics["ca_count"], result.metrics["port_count"]) == (2, 1)
    assert result.warnings == ("CA mlx5_1 shows no port (truncated output?)",)


def test_every_device_with_its_ports_gives_no_truncation_warning() -> None:
    text = "".join(_DEVINFO_CA.format(name=n) + _DEVINFO_PORT for n in ("mlx5_0", "mlx5_1"))
    assert ibstat.parse(text).warnings == ()


_IBSTATUS_PORT = (
    "Infiniband device '{name}' port 1 status:\n"
    "        state:           4: ACTIVE\n"
    "        phys state:      5: LinkUp\n"
    "        rate:            400 Gb/sec (4X NDR)\n"
)


@pytest.mark.parametrize(
    ("layer_lines", "warnings"),
    [
        # The first port shows its link layer, the last one stops before it: cut.
        (("        link_layer:      Ethernet\n", ""), ("mlx5_1 port 1: no link layer line",)),
        # No port shows one (an ibstatus older than the link_layer line): nothing to flag.
        (("", ""), ()),
    ],
)
def test_a_port_ending_before_its_link_layer_is_flagged_when_the_others_show_one(
    layer_lines: tuple[str, str], warnings: tuple[str, ...]
) -> None:
    text = "".join(
        _IBSTATUS_PORT.format(name=name) + layer + "\n"
        for name, layer in zip(("mlx5_0", "mlx5_1"), layer_lines, strict=True)
    )
    result = ibstat.parse(text)
    assert [p["rate_gbit_s"] for p in result.metrics["ports"]] == [400.0, 400.0]
    assert tuple(w.removesuffix(" (truncated output?)") for w in result.warnings) == warnings
