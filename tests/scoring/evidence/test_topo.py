"""nvidia-smi topo -m parser: NVLink meshes, NIC columns old and new, affinity, truncation."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evidence import topo
from scoring.evidence.base import EvidenceParseError, ParseResult

SAMPLES = [
    "nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt",
    "nvidia_smi_topo/autodl-2x2080ti-pix-container.txt",
    "nvidia_smi_topo/issue37-dgx1-v100-nv1-nv2.txt",
    "nvidia_smi_topo/microway-dgx1-v100-mlx5-columns.txt",
    "nvidia_smi_topo/microway-k80-4gpu-mlx4-soc-legend.txt",
    "nvidia_smi_topo/talos-dgx-h100-12nic-2numa-truncated.txt",
]
OTHER_KINDS = [
    "nccl_tests/h100-2node-4gpu-each-g4.txt",
    "nvidia_smi/autodl-2x2080ti-driver550-container.txt",
    "nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt",
    "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
    "dcgm_diag/mlengineering-r2-r3-fail-snippets.txt",
]


def test_a100_nvswitch_full_mesh_with_nic_legend(sample):
    result = topo.parse(sample("nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt"))
    m = result.metrics
    assert (m["gpu_count"], m["nic_count"]) == (8, 4)
    assert m["nvlink_pairs"] == 28
    assert m["full_nvlink_mesh"] is True
    assert (m["nvlink_min_links"], m["nvlink_max_links"]) == (12, 12)
    assert m["gpu_pair_links"] == {"NV12": 28}
    assert m["nic_names"] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert m["gpu_affinity"]["GPU0"] == {
        "cpu_affinity": "0-31,64-95",
        "numa_affinity": "0",
        "gpu_numa_id": None,
    }
    assert m["gpu_affinity"]["GPU7"]["cpu_affinity"] == "32-63,96-127"
    assert m["numa_nodes"] == ["0", "1"]
    assert m["gpu_nic_affinity"]["GPU0"] == {"link": "PXB", "nics": ["mlx5_0", "mlx5_1"]}
    assert m["gpu_nic_affinity"]["GPU2"] == {"link": "PXB", "nics": ["mlx5_2", "mlx5_3"]}
    # GPUs 4-7 have no NIC of their own on this server: every NIC is across the socket link.
    assert m["gpu_nic_affinity"]["GPU5"]["link"] == "SYS"
    assert m["gpus_with_local_nic"] == 4
    assert m["matrix"]["NIC2"]["NIC3"] == "PIX"
    assert result.warnings == ()
    facts = {f.metric: f.value for f in result.facts}
    assert facts == {"gpu_count": 8.0, "nic_count": 4.0, "nvlink_pairs": 28.0}


def test_dgx1_hybrid_cube_mesh_is_not_a_full_mesh(sample):
    m = topo.parse(sample("nvidia_smi_topo/issue37-dgx1-v100-nv1-nv2.txt")).metrics
    assert m["gpu_count"] == 8
    assert m["nic_count"] == 0
    assert m["nvlink_pairs"] == 16
    assert m["full_nvlink_mesh"] is False
    assert (m["nvlink_min_links"], m["nvlink_max_links"]) == (1, 2)
    assert m["gpu_pair_links"] == {"NV1": 8, "NV2": 8, "SYS": 12}
    assert m["gpu_nvlink_links"]["GPU0"] == 6
    assert m["gpu_affinity"]["GPU3"] == {
        "cpu_affinity": "0-95",
        "numa_affinity": None,
        "gpu_numa_id": None,
    }


def test_old_mlx5_columns_in_their_own_order(sample):
    m = topo.parse(sample("nvidia_smi_topo/microway-dgx1-v100-mlx5-columns.txt")).metrics
    assert m["nic_names"] == ["mlx5_0", "mlx5_2", "mlx5_1", "mlx5_3"]
    assert m["nvlink_pairs"] == 16
    assert m["gpu_nic_affinity"]["GPU0"] == {"link": "PIX", "nics": ["mlx5_0"]}
    assert m["gpu_nic_affinity"]["GPU6"] == {"link": "PIX", "nics": ["mlx5_3"]}
    assert m["gpus_with_local_nic"] == 8
    assert m["gpu_affinity"]["GPU4"]["cpu_affinity"] == "20-39,60-79"


def test_oldest_layout_with_soc_legend_and_mlx4(sample):
    m = topo.parse(sample("nvidia_smi_topo/microway-k80-4gpu-mlx4-soc-legend.txt")).metrics
    assert (m["gpu_count"], m["nic_count"]) == (4, 1)
    assert m["nvlink_pairs"] == 0
    assert m["full_nvlink_mesh"] is False
    assert m["gpu_pair_links"] == {"PHB": 4, "PIX": 2}
    assert m["gpu_nic_affinity"]["GPU3"] == {"link": "PHB", "nics": ["mlx4_0"]}
    assert m["gpus_with_local_nic"] == 0


def test_pcie_pair_in_a_container_and_the_p2p_table_is_ignored(sample):
    result = topo.parse(sample("nvidia_smi_topo/autodl-2x2080ti-pix-container.txt"))
    m = result.metrics
    assert (m["gpu_count"], m["nic_count"], m["nvlink_pairs"]) == (2, 0, 0)
    assert m["full_nvlink_mesh"] is False
    assert m["gpu_pair_links"] == {"PIX": 1}
    assert m["gpu_affinity"]["GPU1"] == {
        "cpu_affinity": "24-47,72-95",
        "numa_affinity": "1",
        "gpu_numa_id": None,
    }
    assert "1 other matrix table(s) ignored (topo -p2p?)" in result.warnings


def test_truncated_dgx_h100_keeps_the_gpu_figures(sample):
    result = topo.parse(sample("nvidia_smi_topo/talos-dgx-h100-12nic-2numa-truncated.txt"))
    m = result.metrics
    assert (m["gpu_count"], m["nic_count"]) == (8, 12)
    assert m["full_nvlink_mesh"] is True
    assert m["nvlink_min_links"] == 18
    assert m["nic_names"][0] == "NIC0"
    assert m["gpu_nic_affinity"]["GPU1"] == {"link": "PXB", "nics": ["NIC3"]}
    assert m["gpu_nic_affinity"]["GPU7"] == {"link": "PXB", "nics": ["NIC11"]}
    assert m["gpu_affinity"]["GPU4"]["cpu_affinity"] == "56-111,168-223"
    assert any("rows missing for NIC6, NIC7" in w for w in result.warnings)
    assert any("no 'NIC Legend:' block" in w for w in result.warnings)


def test_spaces_instead_of_tabs_give_the_same_result(sample):
    text = sample("nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt")
    assert topo.parse(text.expandtabs(8)).metrics == topo.parse(text).metrics


def test_a_missing_gpu_pair_makes_the_mesh_unknown():
    text = "\tGPU0\tGPU1\tGPU2\tCPU Affinity\nGPU0\t X \tNV4\tNV4\t0-7\nGPU1\tNV4\t X \n"
    result = topo.parse(text)
    assert result.metrics["full_nvlink_mesh"] is None
    assert any("row GPU1 has 2 of 3 cells" in w for w in result.warnings)
    assert any("rows missing for GPU2" in w for w in result.warnings)


def test_a_p2p_status_table_alone_is_not_a_topology():
    text = "        GPU0    GPU1\n GPU0   X       NS\n GPU1   NS      X\n"
    assert topo.detect(text) < 50
    with pytest.raises(EvidenceParseError, match="no 'nvidia-smi topo -m' matrix found"):
        topo.parse(text)


def test_header_without_gpu_rows_is_an_error():
    with pytest.raises(EvidenceParseError) as caught:
        topo.parse("\tGPU0\tGPU1\tCPU Affinity\n\nLegend:\n")
    assert caught.value.line == 1
    assert "no GPU rows" in caught.value.reason


@pytest.mark.parametrize("text", ["", "Legend:\n  X    = Self\n", "GPU 0: H100\n", "\xff\x00"])
def test_nothing_recognisable_is_an_error(text):
    with pytest.raises(EvidenceParseError, match="no 'nvidia-smi topo -m' matrix found"):
        topo.parse(text)


@pytest.mark.parametrize("path", OTHER_KINDS)
def test_other_tools_are_rejected(sample, path):
    text = sample(path)
    assert topo.detect(text) < 30
    with pytest.raises(EvidenceParseError):
        topo.parse(text)


@pytest.mark.parametrize("path", SAMPLES)
def test_every_sample_is_detected(sample, path):
    assert topo.detect(sample(path)) > 0


@pytest.mark.parametrize("path", SAMPLES)
def test_registry_detects_every_sample_as_topo(sample, path):
    registry = pytest.importorskip("scoring.evidence.registry")
    assert registry.detect_kind(sample(path)) == "nvidia_smi_topo"


def _check(text: str) -> None:
    assert 0 <= topo.detect(text) <= 100
    try:
        result = topo.parse(text)
    except EvidenceParseError as exc:
        assert exc.kind == "nvidia_smi_topo"
        return
    assert isinstance(result, ParseResult)
    json.dumps(result.metrics, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_fuzz_random_text(text):
    _check(text)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(SAMPLES),
    st.lists(
        st.tuples(st.integers(0, 10**5), st.integers(0, 30), st.text(max_size=10)), max_size=6
    ),
)
def test_fuzz_mutated_samples(sample, path, edits):
    text = sample(path)
    for position, width, insert in edits:
        position %= len(text) + 1
        text = text[:position] + insert + text[position + width :]
    _check(text)


def test_an_absurdly_wide_header_is_refused_quickly():
    started = time.perf_counter()
    header = "\t" + "\t".join(f"GPU{i}" for i in range(5000)) + "\n"
    row = "GPU0\t X " + "\tNV1" * 4999 + "\n"
    _check(header + row)
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("piece", [" ", "\n", " \n", "GPU0 ", "NV1\t", "X ", "NIC0: mlx5_0\n"])
def test_pathological_long_lines_stay_fast(piece):
    started = time.perf_counter()
    _check(piece * (300000 // len(piece)))
    assert time.perf_counter() - started < 5
