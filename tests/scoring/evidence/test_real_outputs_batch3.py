"""Key figures of the real outputs added in the third corpus batch, read by hand from each file.

Each row: the sample, its kind as detected from the content, and the figures the parser must
return (checked against the tool's own text, not against a previous parser run).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scoring.evidence import PARSERS, registry

EXPECTED: list[tuple[str, str, dict[str, Any]]] = [
    (
        "dmi/backendai-issue113-dgx2-system-information-no-handle.txt",
        "dmi",
        {"products": ["NVIDIA DGX-2"], "manufacturers": ["NVIDIA"], "virtual": False},
    ),
    (
        "dmi/system76-firmware-issue432-dmidecode3.5-t-system-oryx-pro-laptop.txt",
        "dmi",
        {
            "products": ["Oryx Pro"],
            "dmidecode_version": "3.5",
            "smbios_version": "3.0",
            "virtual": False,
            "record_count": 2,
        },
    ),
    (
        "nvidia_smi_mig/dcgm-issue138-a100-lgi-mixed-2gpus-cut-at-gpu2.txt",
        "nvidia_smi_mig",
        {
            "gpu_instance_count": 8,
            "gpu_instance_profiles": ["1g.10gb", "2g.20gb", "3g.40gb"],
            "tables": ["lgi"],
        },
    ),
    (
        "kernel_log/akash-issue244-dmesg-T-grep-nvrm-xid43-31-94-vm-cut.txt",
        "kernel_log",
        {
            "xid_count": 4,
            "xid_by_code": {"31": 1, "43": 2, "94": 1},
            "xid_gpus": ["0000:00:05", "0000:00:07", "0000:00:08"],
            "format": "dmesg_ctime",
        },
    ),
    (
        "nvbandwidth/nvbw-readme-early-h2d-ce-2gpu-no-sum-no-header.txt",
        "nvbandwidth",
        {"testcase_names": ["host_to_device_memcpy_ce"], "h2d_gbyte_s": 9.28},
    ),
    (
        "nvidia_smi_topo/dcgm-issue149-dgx-a100-320gb-nv12-10nic-gpu-numa-id-cut.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 10,
            "full_nvlink_mesh": None,
            "nvlink_min_links": 12,
            "numa_nodes": ["1", "3", "7"],
        },
    ),
    (
        "ibstat/gpud-h100-ndr400-8ib-4x-cx6dx-eth-three-down-disabled.txt",
        "ibstat",
        {
            "port_count": 12,
            "active_port_count": 9,
            "down_port_count": 3,
            "max_active_rate_gbit_s": 400.0,
            "ca_types": ["MT4125", "MT4129"],
        },
    ),
    (
        "fio/fio-issue576-run-status-only-read-dm-aggr-disk-stats.txt",
        "fio",
        {"read_bw_mbyte_s": 403.0, "write_bw_mbyte_s": None, "disks": ["dm-2", "sda"]},
    ),
    (
        "fio/spdk-issue771-nvmf-jenkins-log-randrw-summary-zero-disk-stats.txt",
        "fio",
        {"read_bw_mbyte_s": 92.8, "write_bw_mbyte_s": 195.0},
    ),
    (
        "perftest/pib-issue4-ib_atomic_bw-cmp-and-swap-soft-ib-inline-notice.txt",
        "perftest",
        {
            "test": "ib_atomic_bw",
            "test_type": "bandwidth",
            "max_size_bytes": 8,
            "msg_rate_mpps": 0.219031,
            "link_type": "IB",
        },
    ),
    (
        "nvidia_smi_xml/telegraf-grid-p4-1q-vgpu-windows-wddm-driver513-v11.xml.txt",
        "nvidia_smi_xml",
        {
            "driver_version": "513.46",
            "gpu_count": 1,
            "gpu_names": ["GRID P4-1Q"],
            "virtualization_mode": ["VGPU"],
            "memory_total_mib": [1024],
        },
    ),
    (
        "dcgm_diag/dcgm-issue55-3.0.4-r3-denylist-table-cut-at-integration.txt",
        "dcgm_diag",
        {"overall": "incomplete", "level": 3, "failed_tests": []},
    ),
    (
        "nvidia_smi_list/datadog-pr33120-a100-80gb-7x1g10gb-container-prompt.txt",
        "nvidia_smi_list",
        {"gpu_count": 1, "mig_count": 7, "mig_profiles": ["1g.10gb"]},
    ),
    (
        "nvidia_smi_list/telegraf-issue5812-4xa100-one-with-4x1g20gb.txt",
        "nvidia_smi_list",
        {"gpu_count": 4, "mig_count": 4, "mig_profiles": ["1g.20gb"]},
    ),
    (
        "nvidia_smi_list/nvct-issue203-a100-pcie-2x3g40gb-lxc.txt",
        "nvidia_smi_list",
        {"gpu_count": 1, "mig_count": 2, "mig_profiles": ["3g.40gb"]},
    ),
    (
        "nvidia_smi_list/go-dcgm-issue30-a100-pcie-one-2g20gb-prompts.txt",
        "nvidia_smi_list",
        {"gpu_count": 1, "mig_count": 1, "mig_profiles": ["2g.20gb"]},
    ),
    (
        "nccl_tests/superbench-a100-8gpu-reduce-scatter-size0-rows-nccl-info-line.txt",
        "nccl_tests",
        {
            "collective": "reduce_scatter",
            "ranks": 8,
            "peak_busbw_gbyte_s": 231.52,
            "avg_busbw_gbyte_s": 60.168,
            "max_size_bytes": 8589934592,
            "out_of_bounds": 0,
        },
    ),
    (
        "nccl_tests/issue214-2node-a40-sendrecv-truncated-mid-row.txt",
        "nccl_tests",
        {"ranks": 2, "peak_busbw_gbyte_s": 0.26, "hosts": ["gpu23", "gpu24"], "wrong_total": 0},
    ),
    (
        "nccl_tests/issue82-2node-v100-pcie-broadcast-tcp-nccl-warn-one-row.txt",
        "nccl_tests",
        {"collective": "broadcast", "ranks": 2, "peak_busbw_gbyte_s": 0.0, "row_count": 1},
    ),
    (
        "nccl_tests/rccl-pr2078-ainic-allreduce-tail-rows-asterisks-note.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "peak_busbw_gbyte_s": 361.17,
            "avg_busbw_gbyte_s": 142.652,
            "max_size_bytes": 17179869184,
            "wrong_total": 0,
        },
    ),
]


@pytest.mark.parametrize(("path", "kind", "figures"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_output_figures(
    sample: Callable[[str], str], path: str, kind: str, figures: dict[str, Any]
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    metrics = PARSERS[kind].parse(text).metrics
    assert {key: metrics[key] for key in figures} == figures
