"""nvidia-smi nvlink parser: --status speeds, <inactive> links, -e counters, -c, -R, excerpts."""

from __future__ import annotations

from scoring.evidence import nvlink


def test_h100_errors_and_status_with_elided_links(sample):
    result = nvlink.parse(sample("nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt"))
    m = result.metrics
    assert m["gpu_count"] == 1
    # Links 0 and 17 are shown around "[...]": nvidia-smi numbers links 0..17 without gaps.
    assert m["links_per_gpu"] == 18
    assert m["link_gbyte_s"] == 26.562
    assert m["link_gbyte_s_min"] == 26.562
    assert (m["replay_errors_total"], m["recovery_errors_total"], m["crc_errors_total"]) == (
        0,
        0,
        0,
    )
    assert m["links_with_errors"] == []
    assert m["gpus"]["0"]["name"] == "NVIDIA H100 80GB HBM3"
    assert m["gpus"]["0"]["uuid"] == "GPU-abcdefab-cdef-abdc-abcd-abababababab"
    assert m["p2p_supported_links"] is None
    assert "error counters of links hidden by the excerpt are not included" in result.warnings
    facts = {(f.metric, f.line): f.value for f in result.facts}
    assert facts[("links_per_gpu", 2)] == 18.0
    assert facts[("link_gbyte_s", 19)] == 26.562


def test_nvlink_bridge_pair_with_inactive_links_and_remote_devices(sample):
    path = "nvidia_smi_nvlink/hpe-dl380a-2x-h100pcie-bridge-R-and-s-inactive.txt"
    result = nvlink.parse(sample(path))
    m = result.metrics
    assert m["gpu_count"] == 2
    assert m["links_per_gpu"] == 12
    assert m["inactive_links"] == 12
    assert m["gpus"]["1"] == {
        "name": "NVIDIA H100 PCIe",
        "uuid": "GPU-9b1446e2-8a89-4cf6-b68c-a98d99e958d3",
        "active_links": 12,
        "inactive_links": 6,
        "all_links_inactive": False,
    }
    assert m["remote_devices"] == {"0": ["00000000:D5:00.0"], "1": ["00000000:C2:00.0"]}
    assert m["replay_errors_total"] is None
    assert result.warnings == ()


def test_old_driver_without_uuid_and_snipped_gpus(sample):
    path = "nvidia_smi_nvlink/microway-dgx1-v100-status-capabilities-snip.txt"
    result = nvlink.parse(sample(path))
    m = result.metrics
    assert m["gpu_count"] == 8
    assert sorted(m["gpus"]) == ["0", "7"]
    assert m["gpus"]["7"]["uuid"] is None
    assert m["gpus"]["7"]["name"] == "Tesla V100-SXM2-32GB"
    assert m["links_per_gpu"] == 6
    assert m["link_gbyte_s"] == 25.781
    assert m["p2p_supported_links"] == 2  # links 0 and 5 of GPU 0 are shown by -c
    assert any("GPU(s) 1, 2, 3, 4, 5, 6 hidden" in w for w in result.warnings)


def test_error_counters_are_summed_and_faulty_links_named():
    text = (
        "GPU 3: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n"
        "\t Link 0: Replay Errors: 12\n\t Link 0: Recovery Errors: 1\n\t Link 0: CRC Errors: 0\n"
        "\t Link 1: Replay Errors: 0\n\t Link 1: Recovery Errors: 0\n\t Link 1: CRC Errors: 7\n"
        "\t Link 2: Replay Errors: N/A\n"
    )
    result = nvlink.parse(text)
    m = result.metrics
    assert (m["replay_errors_total"], m["recovery_errors_total"], m["crc_errors_total"]) == (
        12,
        1,
        7,
    )
    assert m["links_with_errors"] == ["GPU 3 link 0", "GPU 3 link 1"]
    assert m["link_gbyte_s"] is None
    assert m["links_per_gpu"] == 3
    assert "1 error counter(s) not readable (N/A?)" in result.warnings
    assert any("no --status section" in w for w in result.warnings)


def test_a_degraded_link_shows_in_the_minimum_speed():
    text = "GPU 0: NVIDIA A100 (UUID: GPU-x)\n\t Link 0: 25 GB/s\n\t Link 1: 12.5 GB/s\n"
    m = nvlink.parse(text).metrics
    assert (m["link_gbyte_s"], m["link_gbyte_s_min"], m["links_per_gpu"]) == (25.0, 12.5, 2)


def test_capabilities_without_a_gpu_header_are_one_gpu():
    text = "Link 0, P2P is supported: true\nLink 1, P2P is supported: false\n"
    result = nvlink.parse(text)
    assert result.metrics["gpu_count"] == 1
    assert result.metrics["p2p_supported_links"] == 1
    assert any("without a 'GPU n:' header" in w for w in result.warnings)


def test_a_gpu_list_without_links_is_not_nvlink_output():
    assert nvlink.detect("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n") == 0


def test_huge_indices_do_not_blow_up(parse_contract):
    text = "GPU 999999: X\n[...]\nGPU 0: Y\n Link 999999: 25 GB/s\n Link 99999999999999: 1 GB/s\n"
    parse_contract(nvlink, "nvidia_smi_nvlink", text)


def test_status_cut_inside_the_last_gpu_is_flagged(sample):
    result = nvlink.parse(sample("nvidia_smi_nvlink/a3-h100-pod-nvlink-status-4gpu-cut.txt"))
    m = result.metrics
    assert (m["gpu_count"], m["links_per_gpu"], m["link_gbyte_s"]) == (4, 18, 26.562)
    assert m["gpus"]["3"]["active_links"] == 2
    assert m["gpus"]["0"]["uuid"] == "GPU-f8844f98-2150-7cb7-b4d2-93705d00c323"
    assert result.warnings == (
        "fewer active links than the 18 of the other GPUs: GPU 3 (2) (links down, or the "
        "output was cut)",
    )


def test_a_gpu_whose_links_are_all_inactive(sample):
    path = "nvidia_smi_nvlink/rtx-a6000-3gpu-nvlink-s-bridge-pair-third-inactive.txt"
    result = nvlink.parse(sample(path))
    m = result.metrics
    assert (m["gpu_count"], m["links_per_gpu"], m["link_gbyte_s"]) == (3, 4, 14.062)
    assert m["gpus"]["2"] == {
        "name": "NVIDIA RTX A6000",
        "uuid": "GPU-02c05ee3-bdb5-aac7-f9e8-a4c8f3f725b3",
        "active_links": 0,
        "inactive_links": 0,
        "all_links_inactive": True,
    }
    assert m["gpus"]["0"]["all_links_inactive"] is False
    assert result.warnings == ("GPU 2: NVML reports all its NVLink links inactive",)


def test_gpu_list_cut_by_a_marker_has_unknown_links_not_few(sample):
    # GB200: GPU 0 shows its 18 links; GPU 1's list stops at "..." after two: unknown, so no
    # GPU reads as having links down; the -info block after it adds no link lines.
    result = nvlink.parse(sample("nvidia_smi_nvlink/gb200-nvlink-s-18x53-cut-then-nvlink-info.txt"))
    m = result.metrics
    assert m["gpu_count"] == 2
    assert m["links_per_gpu"] == 18
    assert m["link_gbyte_s"] == 53.125
    assert m["gpus"]["0"]["active_links"] == 18
    assert m["gpus"]["1"]["active_links"] is None
    assert m["gpus"]["1"]["name"] == "NVIDIA GB200"
    assert not any("fewer active links" in w for w in result.warnings)
    active = [f for f in result.facts if f.metric == "nvlink_active_links"]
    assert [(f.value, f.details["gpu"]) for f in active] == [(18.0, "0")]


def test_nvlink_section_of_a_node_report(sample) -> None:
    path = "nvidia_smi_nvlink/aws-p5-node-report-nvlink-s-8xh100-18-links-section.txt"
    m = nvlink.parse(sample(path)).metrics
    assert (m["gpu_count"], m["links_per_gpu"]) == (8, 18)
    assert (m["link_gbyte_s"], m["link_gbyte_s_min"]) == (26.562, 26.562)
    assert m["inactive_links"] == 0


def test_snip_marker_wrapped_in_dots_inside_each_gpu_list(sample) -> None:
    result = nvlink.parse(
        sample("nvidia_smi_nvlink/rhelai-kvm-vm-8xh100-nvlink-status-snip-per-gpu.txt")
    )
    m = result.metrics
    # "...<snip>..." hides links 2..16 of every GPU: the list ends at Link 17, so 18 links.
    assert (m["gpu_count"], m["links_per_gpu"], m["link_gbyte_s"]) == (8, 18, 26.562)
    assert m["inactive_links"] == 0
    assert len(result.warnings) == 8
    assert result.warnings[0] == "line 5: the output was cut by its author; hidden links inferred"


def test_four_dots_are_an_excerpt_marker_too(sample) -> None:
    # "...." above GPU 3: GPUs 0-2 were cut, not absent.
    text = sample("nvidia_smi_nvlink/azhpc-diag-issue73-v100-gpu3-two-inactive-dots-excerpt.txt")
    result = nvlink.parse(text)
    metrics = result.metrics
    assert metrics["gpu_count"] == 4
    assert metrics["inactive_links"] == 2
    assert metrics["links_per_gpu"] == 4
    assert metrics["link_gbyte_s"] == 25.781
    assert any("hidden by an excerpt marker" in w for w in result.warnings)


def test_a_remote_device_line_cut_short_is_not_a_link() -> None:
    # "Link 2: Remote Device 00" ends the paste: no bus id, no link; GPU 1's count is unknown.
    head = "GPU {n}: NVIDIA H100 80GB HBM3 (UUID: GPU-{n})\n"
    link = "         Link {i}: Remote Device 00000000:0{d}:00.0: Link {i}\n"
    text = (
        head.format(n=0)
        + "".join(link.format(i=i, d=5 + i % 4) for i in range(4))
        + head.format(n=1)
        + link.format(i=0, d=5)
        + "         Link 1: Remote Device 00"
    )
    result = nvlink.parse(text)
    assert result.metrics["remote_devices"]["1"] == ["00000000:05:00.0"]
    assert result.metrics["gpus"]["1"]["active_links"] is None
    assert result.warnings[0] == (
        "line 8: remote device '00' is no whole PCI bus id: the line was cut, its link is not "
        "counted"
    )
    assert "GPU 1: its link list ends in a cut line (8); its active links are unknown" in (
        result.warnings
    )
