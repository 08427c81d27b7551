"""Plain nvidia-smi table parser: R4xx and R5xx layouts, vGPU models, MIG, failures, fuzzing."""

from __future__ import annotations

import pytest

from scoring.evidence import nvidia_smi
from scoring.evidence.base import EvidenceParseError, strip_line_prefix


def test_new_layout_two_consumer_gpus(sample):
    result = nvidia_smi.parse(sample("nvidia_smi/autodl-2x2080ti-driver550-container.txt"))
    m = result.metrics
    assert (m["driver_version"], m["cuda_version"]) == ("550.90.07", "12.4")
    assert m["gpu_count"] == 2
    assert m["gpu_names"] == ["NVIDIA GeForce RTX 2080 Ti"] * 2
    assert m["memory_total_mib"] == [11264, 11264]
    assert m["memory_used_mib"] == [1, 1]
    assert m["bus_ids"] == ["00000000:B4:00.0", "00000000:B5:00.0"]
    assert m["ecc_volatile_uncorrected"] == [None, None]  # consumer card: "N/A"
    assert m["ecc_volatile_uncorrected_total"] is None
    assert m["mig_mode"] == [None, None]
    assert m["power_cap_w"] == [250.0, 250.0]
    assert m["vgpu"] is False
    assert m["gpus"][1]["perf_state"] == "P8"
    assert m["gpus"][1]["compute_mode"] == "Default"
    assert result.warnings == ()
    facts = [(f.metric, f.value, f.line) for f in result.facts]
    assert facts == [
        ("gpu_count", 2.0, 10),
        ("gpu_memory_total_mib", 11264.0, 10),
        ("gpu_memory_total_mib", 11264.0, 14),
    ]


def test_old_layout_ten_quadro_gpus(sample):
    m = nvidia_smi.parse(sample("nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt")).metrics
    assert (m["driver_version"], m["cuda_version"]) == ("470.63.01", "11.4")
    assert m["gpu_count"] == 10
    assert set(m["gpu_names"]) == {"Quadro RTX 8000"}
    assert m["memory_total_mib"] == [48601] * 10
    assert m["bus_ids"][9] == "00000000:C2:00.0"
    assert m["ecc_volatile_uncorrected"] == [None] * 10  # "Off"
    assert m["gpus"][0]["ecc_cell"] == "Off"
    assert m["persistence_mode"] == ["On"] * 10


def test_vgpu_profile_is_flagged(sample):
    result = nvidia_smi.parse(sample("nvidia_smi/arbutus-grid-v100d-8c-vgpu-driver550.txt"))
    m = result.metrics
    assert m["gpu_names"] == ["GRID V100D-8C"]
    assert m["vgpu"] is True
    assert m["vgpu_models"] == ["GRID V100D-8C"]
    assert m["memory_total_mib"] == [8192]
    assert m["ecc_volatile_uncorrected"] == [0]
    assert m["power_cap_w"] == [None]
    assert "vGPU/GRID model(s) listed: GRID V100D-8C" in result.warnings


@pytest.mark.parametrize(
    ("name", "vgpu"),
    [
        ("NVIDIA A100-4C", True),
        ("GRID T4-16Q", True),
        ("NVIDIA A16-2B", True),
        ("GRID K520", True),
        ("NVIDIA A100-SXM4-80GB", False),
        ("Tesla V100-SXM2-32GB", False),
        ("NVIDIA H100 80GB HBM3", False),
    ],
)
def test_vgpu_names(name, vgpu):
    text = (
        "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03   CUDA Version: 12.2     |\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "|===============================+======================+======================|\n"
        f"|   0  {name:<20}On   | 00000000:00:05.0 Off |                    0 |\n"
        "| N/A   30C    P0    40W / 250W |      0MiB / 16384MiB |      0%      Default |\n"
        "+-------------------------------+----------------------+----------------------+\n"
    )
    assert nvidia_smi.parse(text).metrics["vgpu"] is vgpu


def test_mig_modes_with_a_pending_change_and_ecc_counts(sample):
    m = nvidia_smi.parse(sample("nvidia_smi/dgx-a100-8gpu-driver450-mig-pending.txt")).metrics
    assert m["gpu_count"] == 8
    assert m["gpu_names"] == ["A100-SXM4-40GB"] * 8
    assert m["mig_mode"] == ["Disabled"] * 8
    assert m["mig_mode_pending"] == [False] * 7 + [True]  # GPU 7 shows "Disabled*"
    assert m["ecc_volatile_uncorrected"] == [0] * 7 + [None]  # GPU 7 shows "On" (MIG)
    assert m["ecc_volatile_uncorrected_total"] == 0
    assert m["memory_used_mib"][:3] == [400, 5701, 36121]
    assert m["memory_total_mib"] == [40537] * 8


def test_unified_memory_gpu_shows_no_memory_size(sample):
    path = "nvidia_smi/dgx-spark-gb10-driver580-memory-not-supported.txt"
    result = nvidia_smi.parse(sample(path))
    m = result.metrics
    assert (m["driver_version"], m["cuda_version"]) == ("580.95.05", "13.0")
    assert m["gpu_names"] == ["NVIDIA GB10"]
    assert m["bus_ids"] == ["0000000F:01:00.0"]
    assert m["memory_total_mib"] == [None]
    assert m["gpus"][0]["display_active"] == "On"
    assert "GPU 0: memory size not shown ('Not Supported')" in result.warnings


def test_truncated_names_are_reported():
    text = (
        "| NVIDIA-SMI 520.61.05    Driver Version: 520.61.05    CUDA Version: 11.8     |\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "|===============================+======================+======================|\n"
        "|   0  NVIDIA A100 80G...  On   | 00000000:17:00.0 Off |                    0 |\n"
        "| N/A   29C    P0    43W / 300W |      0MiB / 81920MiB |      0%      Default |\n"
        "|                               |                      |             Disabled |\n"
        "+-------------------------------+----------------------+----------------------+\n"
    )
    result = nvidia_smi.parse(text)
    assert result.metrics["gpu_names"] == ["NVIDIA A100 80G..."]
    assert "GPU 0: name truncated by nvidia-smi ('NVIDIA A100 80G...')" in result.warnings
    # no "MIG M." header row: the third line is not read as a MIG mode
    assert result.metrics["mig_mode"] == [None]


def test_two_runs_pasted_keep_the_first_listing(sample):
    text = sample("nvidia_smi/autodl-2x2080ti-driver550-container.txt")
    result = nvidia_smi.parse(text + text)
    assert result.metrics["gpu_count"] == 2
    assert any("GPU 0 listed again" in w for w in result.warnings)


def test_driver_failure_is_an_error_with_its_message():
    text = (
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running.\n"
    )
    with pytest.raises(EvidenceParseError) as caught:
        nvidia_smi.parse(text)
    assert caught.value.line == 2
    assert "couldn't communicate with the NVIDIA driver" in caught.value.reason


def test_truncated_table_still_gives_the_gpus_shown(sample):
    lines = sample("nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt").splitlines()
    result = nvidia_smi.parse("\n".join(lines[:15]))
    assert result.metrics["gpu_count"] == 2
    assert result.metrics["memory_total_mib"] == [48601, 48601]


def test_h200_table_driver550(sample):
    m = nvidia_smi.parse(sample("nvidia_smi/h200-vm-passthrough-driver550-table.txt")).metrics
    assert (m["driver_version"], m["cuda_version"], m["gpu_count"]) == ("550.90.12", "12.4", 1)
    assert (m["gpu_names"], m["memory_total_mib"]) == (["NVIDIA H200"], [143771])
    assert (m["mig_mode"], m["ecc_volatile_uncorrected_total"]) == (["Disabled"], 0)
    assert m["power_cap_w"] == [700.0]


def test_mig_enabled_h100_nvl_with_cuda_not_available(sample):
    result = nvidia_smi.parse(sample("nvidia_smi/h100nvl-vm-mig-7x1g12gb-table-cuda-na.txt"))
    m = result.metrics
    assert (m["driver_version"], m["cuda_version"]) == ("550.127.06", None)
    assert (m["gpu_count"], m["gpu_names"]) == (1, ["NVIDIA H100 NVL"])
    assert (m["mig_mode"], m["mig_mode_pending"]) == (["Enabled"], [False])
    assert m["memory_total_mib"] == [95830]
    # "On" in the ECC cell is a mode, not an error count.
    assert m["ecc_volatile_uncorrected_total"] is None
    assert m["vgpu"] is False


def test_r565_table_eight_h100_bare_metal_bus_ids(sample):
    m = nvidia_smi.parse(
        sample("nvidia_smi/thamada-hgx-h100x8-driver565-cuda127-table.txt")
    ).metrics
    assert (m["driver_version"], m["cuda_version"]) == ("565.57.01", "12.7")
    assert m["gpu_count"] == 8
    assert m["gpu_names"] == ["NVIDIA H100 80GB HBM3"] * 8
    assert m["memory_total_mib"] == [81559] * 8
    assert m["power_cap_w"] == [700.0] * 8
    assert m["mig_mode"] == ["Disabled"] * 8
    assert m["ecc_volatile_uncorrected_total"] == 0
    assert m["bus_ids"][0] == "00000000:18:00.0" and m["bus_ids"][-1] == "00000000:DB:00.0"
    assert m["vgpu"] is False


def test_r550_table_ada_gpu_without_mig(sample):
    m = nvidia_smi.parse(sample("nvidia_smi/thamada-l40s-driver550-table-mig-na.txt")).metrics
    assert (m["driver_version"], m["cuda_version"]) == ("550.127.05", "12.4")
    assert (m["gpu_count"], m["gpu_names"]) == (1, ["NVIDIA L40S"])
    assert m["memory_total_mib"] == [46068]
    assert m["mig_mode"] == [None]  # "N/A": Ada has no MIG
    assert m["power_cap_w"] == [350.0]
    assert m["gpus"][0]["perf_state"] == "P8"


def test_r560_table_with_prompt_and_persistence_off(sample):
    path = "nvidia_smi/nccl-tests-issue264-h100x8-driver560-persistence-off.txt"
    m = nvidia_smi.parse(sample(path)).metrics
    assert (m["driver_version"], m["cuda_version"]) == ("560.35.03", "12.6")
    assert m["gpu_count"] == 8
    assert m["persistence_mode"] == ["Off"] * 8
    assert m["memory_total_mib"] == [81559] * 8
    assert m["bus_ids"][1] == "00000000:3B:00.0"


def test_r535_h20_table_with_elided_gpus(sample):
    m = nvidia_smi.parse(
        sample("nvidia_smi/blog-8xh20-driver535-r535-table-3-of-8-shown.txt")
    ).metrics
    assert (m["driver_version"], m["cuda_version"]) == ("535.161.03", "12.2")
    assert (m["gpu_count"], m["gpu_count_partial"]) == (3, "excerpt")  # GPUs 2..6 cut: "..."
    assert m["gpu_names"] == ["NVIDIA H20"] * 3
    assert m["memory_total_mib"] == [97871] * 3
    assert m["power_cap_w"] == [500.0] * 3
    assert m["bus_ids"] == ["00000000:04:00.0", "00000000:23:00.0", "00000000:E4:00.0"]


def test_table_relayed_by_kubectl_logs_prefix(sample):
    # Every line starts with "[pod/<name>/<container>] "; the paste is cut after GPU 0's line.
    result = nvidia_smi.parse(
        sample("nvidia_smi/gpu-operator-issue382-kubectl-logs-prefix-a30-mig-on-driver515-cut.txt")
    )
    metrics = result.metrics
    assert (metrics["driver_version"], metrics["cuda_version"]) == ("515.48.07", "11.7")
    assert metrics["gpu_count"] == 1
    assert metrics["gpu_names"] == ["NVIDIA A30"]
    assert metrics["bus_ids"] == ["00000000:17:00.0"]
    assert metrics["gpu_count_partial"] == "cut"


KUBECTL_PREFIXED = (
    "nvidia_smi/gpu-operator-issue382-kubectl-logs-prefix-a30-mig-on-driver515-cut.txt"
)


def test_pod_prefix_is_only_stripped_at_the_line_start(sample):
    text = sample(KUBECTL_PREFIXED)
    lines, prefix = strip_line_prefix(text.splitlines(), nvidia_smi._TABLE_START_RE)
    assert prefix == "[pod/nvidia-operator-validator-lg2lf/toolkit-validation] "
    assert lines[1].startswith("+-----")
    # The last line is cut inside the tag: it does not start with the prefix, so it stays.
    assert lines[-1] == "[pod/nvidia-operator-validator-lg2lf/toolkit-validation"
    # A tag inside a cell is no prefix, and a table without prefixes is left as it is.
    table = ["+-----+", "| 0  see [pod/a/b] |", "+-----+"]
    assert strip_line_prefix(table, nvidia_smi._TABLE_START_RE) == (table, None)


def test_lines_tagged_by_two_containers_are_all_stripped(sample):
    # kubectl logs --prefix names whichever container wrote a line: the tag is matched by its
    # shape, not letter for letter.
    text = sample(KUBECTL_PREFIXED)
    lines = text.splitlines()
    mixed = [
        line.replace("/toolkit-validation]", "/driver-validation]") if n % 2 else line
        for n, line in enumerate(lines)
    ]
    assert nvidia_smi.parse("\n".join(mixed)) == nvidia_smi.parse(text)
