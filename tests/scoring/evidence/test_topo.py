"""nvidia-smi topo -m parser: NVLink meshes, NIC columns old and new, affinity, truncation."""

from __future__ import annotations

import time

import pytest

from scoring.evidence import topo
from scoring.evidence.base import EvidenceParseError


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
    # Refused as what it is (it was "no 'nvidia-smi topo -m' matrix found").
    with pytest.raises(EvidenceParseError, match="an 'nvidia-smi topo -p2p' status table") as no:
        topo.parse(text)
    assert no.value.code == "topo.p2p_only"


def test_header_without_gpu_rows_is_an_error():
    with pytest.raises(EvidenceParseError) as caught:
        topo.parse("\tGPU0\tGPU1\tCPU Affinity\n\nLegend:\n")
    assert caught.value.line == 1
    assert "no GPU rows" in caught.value.reason


def test_an_absurdly_wide_header_is_refused_quickly(parse_contract):
    started = time.perf_counter()
    header = "\t" + "\t".join(f"GPU{i}" for i in range(5000)) + "\n"
    row = "GPU0\t X " + "\tNV1" * 4999 + "\n"
    parse_contract(topo, "nvidia_smi_topo", header + row)
    assert time.perf_counter() - started < 5


def test_wide_matrix_with_fused_cells_keeps_every_column_in_place(sample):
    # 36 NIC columns; the NIC12 and NIC34 cells lost their padding ("NODENODE", "NODEPIX").
    path = "nvidia_smi_topo/sglang-env-8gpu-nv18-36nic-fused-cells-driver550.txt"
    result = topo.parse(sample(path))
    m = result.metrics
    assert (m["gpu_count"], m["nic_count"], m["nvlink_pairs"]) == (8, 36, 28)
    assert m["gpu_pair_links"] == {"NV18": 28}
    assert m["nic_names"][32:] == ["mlx5_bond_0", "mlx5_bond_1", "mlx5_bond_2", "mlx5_bond_3"]
    assert m["matrix"]["GPU0"]["NIC12"] == "NODE" and m["matrix"]["GPU0"]["NIC13"] == "NODE"
    assert m["matrix"]["GPU0"]["NIC34"] == "NODE" and m["matrix"]["GPU0"]["NIC35"] == "PIX"
    assert m["matrix"]["NIC12"]["NIC12"] == "X" and m["matrix"]["NIC13"]["NIC13"] == "X"
    assert m["gpu_affinity"]["GPU0"]["cpu_affinity"] == "0-55,112-167"
    assert m["gpu_affinity"]["GPU7"] == {
        "cpu_affinity": "70-99,102-107",
        "numa_affinity": "1",
        "gpu_numa_id": None,
    }
    assert m["numa_nodes"] == ["0", "1"]
    local = [f"mlx5_{n}" for n in range(8)] + ["mlx5_bond_3"]
    assert m["gpu_nic_affinity"]["GPU0"] == {"link": "PIX", "nics": local}
    assert m["gpu_nic_affinity"]["GPU2"]["nics"][-1] == "mlx5_bond_2"
    assert m["gpus_with_local_nic"] == 4
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("path", "gpus", "nics", "pairs", "numa"),
    [
        (
            "nvidia_smi_topo/go-fixture-6gpu-pcie-2numa-ansi-underline-header.txt",
            6,
            0,
            {"NODE": 4, "PIX": 3, "SYS": 8},
            ["0", "1"],
        ),
        (
            "nvidia_smi_topo/pod-2gpu-nv12-2nic-ansi-underline-no-legend.txt",
            2,
            2,
            {"NV12": 1},
            ["0", "1"],
        ),
    ],
)
def test_a_header_underlined_with_terminal_escapes_is_read(sample, path, gpus, nics, pairs, numa):
    text = sample(path)
    assert "\x1b[4m" in text
    m = topo.parse(text).metrics
    assert (m["gpu_count"], m["nic_count"], m["gpu_pair_links"]) == (gpus, nics, pairs)
    assert m["numa_nodes"] == numa
    # "0\t\tN/A": the empty field before GPU NUMA ID does not shift the affinity columns.
    assert m["gpu_affinity"]["GPU1"]["gpu_numa_id"] is None
    assert m["gpu_affinity"]["GPU1"]["numa_affinity"] in numa


def test_underlined_pod_topology_nics_without_legend(sample):
    result = topo.parse(sample("nvidia_smi_topo/pod-2gpu-nv12-2nic-ansi-underline-no-legend.txt"))
    m = result.metrics
    assert m["full_nvlink_mesh"] is True
    assert m["gpu_nic_affinity"]["GPU0"] == {"link": "PXB", "nics": ["NIC0", "NIC1"]}
    assert m["gpu_nic_affinity"]["GPU1"]["link"] == "SYS"
    assert m["gpu_affinity"]["GPU1"]["cpu_affinity"] == "64-127"
    assert any("no 'NIC Legend:' block" in w for w in result.warnings)


def test_bridge_pair_beside_a_third_gpu_is_no_mesh(sample):
    m = topo.parse(sample("nvidia_smi_topo/rtx-a6000-3gpu-nv4-bridge-pair-one-numa.txt")).metrics
    assert (m["gpu_count"], m["nvlink_pairs"], m["full_nvlink_mesh"]) == (3, 1, False)
    assert m["gpu_pair_links"] == {"NODE": 2, "NV4": 1}
    assert m["gpu_nvlink_links"] == {"GPU0": 4, "GPU1": 4, "GPU2": 0}
    assert m["numa_nodes"] == ["0"]


def test_four_gpus_on_one_numa_node_without_nic(sample):
    m = topo.parse(sample("nvidia_smi_topo/agent-transcript-4gpu-node-one-numa-no-nic.txt")).metrics
    assert (m["gpu_count"], m["nic_count"], m["nvlink_pairs"]) == (4, 0, 0)
    assert m["gpu_pair_links"] == {"NODE": 6}
    assert m["numa_nodes"] == ["0"]
    assert {a["cpu_affinity"] for a in m["gpu_affinity"].values()} == {"0-119"}
    assert m["gpus_with_local_nic"] == 0


def test_fused_cells_split_only_into_connection_codes():
    header = "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
    rows = "GPU0\t X \tNV8\tPXBSYS\t0-7\t0\nGPU1\tNV8\t X \tSYS\tPXB\t0-7\t0\n"
    m = topo.parse(header + rows).metrics
    assert m["matrix"]["GPU0"] == {"GPU0": "X", "GPU1": "NV8", "NIC0": "PXB", "NIC1": "SYS"}
    assert m["gpu_affinity"]["GPU0"]["cpu_affinity"] == "0-7"


def test_tab_separated_spaced_self_cells_and_empty_nic_affinity(sample):
    m = topo.parse(
        sample("nvidia_smi_topo/hgx-h100-nv18-10nic-tabs-spaced-x-nic-rows-cut.txt")
    ).metrics
    assert (m["gpu_count"], m["nic_count"], m["nvlink_pairs"]) == (8, 10, 28)
    assert m["full_nvlink_mesh"] is True
    assert m["gpu_pair_links"] == {"NV18": 28}
    assert m["numa_nodes"] == ["0", "1"]
    assert m["gpu_affinity"]["GPU4"] == {
        "cpu_affinity": "56-111,168-223",
        "numa_affinity": "1",
        "gpu_numa_id": None,
    }
    assert m["gpus_with_local_nic"] == 8
    assert m["gpu_nic_affinity"]["GPU3"] == {"link": "PIX", "nics": ["NIC5"]}


def test_four_gpus_four_numa_nodes(sample):
    m = topo.parse(sample("nvidia_smi_topo/h100-4gpu-nv6-4numa-nic-pix-legend.txt")).metrics
    assert (m["gpu_count"], m["nic_count"], m["nvlink_pairs"]) == (4, 4, 6)
    assert m["nvlink_min_links"] == m["nvlink_max_links"] == 6
    assert m["numa_nodes"] == ["1", "3", "5", "7"]
    assert m["gpu_affinity"]["GPU0"]["cpu_affinity"] == "6,14,22,30"


def test_dashed_rule_under_a_shortened_header(sample) -> None:
    path = "nvidia_smi_topo/blog-h200-nv18-9nic-bond-dashed-rule-short-numa-headers-cn-legend.txt"
    m = topo.parse(sample(path)).metrics
    assert (m["gpu_count"], m["nic_count"]) == (8, 9)
    assert m["full_nvlink_mesh"] is True and m["nvlink_min_links"] == 18
    assert m["nic_names"][-1] == "mlx5_bond_0"
    assert m["gpu_nic_affinity"]["GPU1"] == {"link": "PIX", "nics": ["mlx5_3"]}
    assert m["gpus_with_local_nic"] == 8
    # "NUMA" and "GPU NUMA" are the NUMA Affinity and GPU NUMA ID columns, shortened.
    assert m["gpu_affinity"]["GPU4"] == {
        "cpu_affinity": "48-95,144-191",
        "numa_affinity": "1",
        "gpu_numa_id": None,
    }
    assert m["numa_nodes"] == ["0", "1"]


def test_h20_two_nics_without_a_nic_legend(sample) -> None:
    m = topo.parse(sample("nvidia_smi_topo/blog-8xh20-nv18-2nic-phb-no-legend.txt")).metrics
    assert (m["gpu_count"], m["nic_count"]) == (8, 2)
    assert m["full_nvlink_mesh"] is True and m["gpu_pair_links"] == {"NV18": 28}
    assert m["nic_names"] == ["NIC0", "NIC1"]  # no NIC Legend to name them
    assert m["gpu_nic_affinity"]["GPU6"] == {"link": "PHB", "nics": ["NIC0", "NIC1"]}
    assert m["gpus_with_local_nic"] == 0  # PHB at best: no NIC under a GPU's PCIe switch
    assert m["numa_nodes"] == ["0", "1"]
