"""Key figures of the real outputs added in the seventh corpus batch, read by hand from each file.

The shapes: nvbandwidth v0.10 (a COEFFICIENT_OF_VARIATION line after each SUM, CUDA versions
printed "13.3 (13030)", a bidirectional test's Read1/Read2/Total matrices under one "Running"
line) and its SUM lines alone after a grep; nccl-tests with Open MPI's help-aggregation lines
between the column header and the rows, an rccl-tests version line inside the header, a
one-rank run of 2.13.6, and a quoted summary of another run above a table; ibstat, ibstatus and
ibv_devinfo of ConnectX-7 and BlueField-3 ports cut mid-port; DCGM 4.4.1 on B200; fio behind an
avocado log prefix; a driver 580 MIG devices table ("Shared Memory-Usage"), ``-L`` with
compute-instance devices, ``mig -lci`` and ``-lcip``; a topology of 4 visible H800 with 17 NICs;
an Xid 154 whose recovery action is wrapped onto the next line; single-device ``lspci -vv``
blocks without their command line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scoring.evidence import PARSERS, kernel_log, lspci, nvbandwidth, nvidia_smi_mig, registry
from tests.scoring.evidence.conftest import SAMPLES

Sample = Callable[[str], str]

_XE9780_TESTS = [
    "host_to_device_memcpy_ce",
    "device_to_host_memcpy_ce",
    "host_to_device_bidirectional_memcpy_ce",
    "device_to_host_bidirectional_memcpy_ce",
    "device_to_device_memcpy_read_ce",
    "device_to_device_memcpy_write_ce",
    "device_to_device_bidirectional_memcpy_read_ce_read1",
    "device_to_device_bidirectional_memcpy_read_ce_read2",
    "device_to_device_bidirectional_memcpy_read_ce_total",
    "device_to_device_bidirectional_memcpy_write_ce_write1",
    "device_to_device_bidirectional_memcpy_write_ce_write2",
    "device_to_device_bidirectional_memcpy_write_ce_total",
]

EXPECTED: list[tuple[str, str, dict[str, Any]]] = [
    (
        # Header: "nvbandwidth Version: v0.10.0", "CUDA Runtime Version: 13.3 (13030)", "CUDA
        # Driver Version (API): 13.3 (13030)", "Driver Version: 610.57.04", and no "Device N:"
        # line. The H2D row is 55.59 55.60 55.60 55.59 55.58 55.60 55.58: 389.14 / 7 = 55.591.
        # The smallest D2D read cell is 764.16 (row 0 column 4, and three more); the SUM line
        # 32140.19 over the 42 off-diagonal cells is a mean of 765.243.
        "nvbandwidth/xe9780-7x-b300-v0.10.0-coefficient-of-variation-read1-read2-total-matrices.txt",
        "nvbandwidth",
        {
            "nvbandwidth_version": "v0.10.0",
            "cuda_runtime_version": "13.3",
            "cuda_driver_version": "13.3",
            "driver_version": "610.57.04",
            "device_count": 0,
            "testcase_names": _XE9780_TESTS,
            "h2d_gbyte_s": 55.591,
            "d2h_gbyte_s": 57.12,
            "d2d_min_gbyte_s": 764.16,
            "d2d_mean_gbyte_s": 765.243,
            "errors": [],
        },
    ),
    (
        # 43 "SUM <test> <value>" lines and nothing else.
        "nvbandwidth/oci-gb200-guide-grep-sum-only-43-lines-latency-and-local-copy.txt",
        "nvbandwidth",
        {"nvbandwidth_version": None, "h2d_gbyte_s": None, "d2d_mean_gbyte_s": None},
    ),
    (
        # 24 rows from "1024  256  float  sum  -1  61.99 ..." to "8589934592 ... 35.29  0"; the
        # largest busbw is the in-place 42.14 of 134217728 B (out-of-place 41.43 there); "# Avg
        # bus bandwidth    : 18.4247"; "NCCL version 2.30.3+cuda13.0"; "nccl-tests version
        # 2.18.3"; ranks 0..15 on R6KD-CX8aaS-GPU-11 and -12, one GPU each.
        "nccl_tests/6kd-rtx6000d-2node-16rank-v2.18.3-nccl2.30.3-mca-help-lines-between-header-and-rows.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 16,
            "row_count": 24,
            "peak_busbw_gbyte_s": 42.14,
            "peak_size_bytes": 134217728,
            "avg_busbw_gbyte_s": 18.4247,
            "min_size_bytes": 1024,
            "max_size_bytes": 8589934592,
            "wrong_total": 0,
            "out_of_bounds_ok": True,
            "nccl_version": "2.30.3",
            "nccl_tests_version": "2.18.3",
            "gpu_names": ["NVIDIA RTX 6000D"],
            "hosts": ["R6KD-CX8aaS-GPU-11", "R6KD-CX8aaS-GPU-12"],
            "gpus_per_process": 1,
        },
    ),
    (
        # "nGpus 8" and one Pid (37300) for all 8 ranks: one process drives 8 MI300X. The row
        # "8388608 2097152 float sum -1 91.10 92.08 161.14 0 94.94 88.36 154.63 0": busbw/algbw
        # = 161.14/92.08 = 1.75 = 2*(8-1)/8, all_reduce.
        "nccl_tests/hpc-ai-envs-pr30-rccl-tests-mi300x-version-line-inside-header-one-row.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "collective_inferred": True,
            "ranks": 8,
            "gpus_per_process": 8,
            "row_count": 1,
            "peak_busbw_gbyte_s": 161.14,
            "avg_busbw_gbyte_s": None,
            "gpu_names": ["AMD Instinct MI300X"],
            "hosts": ["g100n126"],
        },
    ),
    (
        # One rank: busbw 0.00 both ways; the in-place algbw 619657.10 is not a bus figure. The
        # excerpt ends inside "# Avg bus bandwi".
        "nccl_tests/nixpkgs-pr251856-nccl-tests-2.13.6-rtx4090-1rank-allgather-step-bytes-in-place-619657-cut-in-avg.txt",
        "nccl_tests",
        {
            "collective": "all_gather",
            "ranks": 1,
            "row_count": 1,
            "peak_busbw_gbyte_s": 0.0,
            "max_size_bytes": 33554432,
            "avg_busbw_gbyte_s": None,
            "out_of_bounds_ok": True,
            "gpu_names": ["NVIDIA GeForce RTX 4090"],
        },
    ),
    (
        # The quoted "Avg bus bandwidth    : 92.3405" above the table is the PR's own run, not
        # this one, whose table stops at a cut "64  16" row after 8, 16 and 32 B (busbw 0.00).
        "nccl_tests/aws-k8s-tester-pr503-p5-quoted-tag-output-lines-then-wide-padded-header-cut-at-64b.txt",
        "nccl_tests",
        {
            "row_count": 3,
            "peak_busbw_gbyte_s": 0.0,
            "min_size_bytes": 8,
            "max_size_bytes": 32,
            "avg_busbw_gbyte_s": None,
            "out_of_bounds_ok": None,
            "ranks": None,
        },
    ),
    (
        # mlx5_0 and mlx5_1 "Rate: 400", "Link layer: InfiniBand"; mlx5_2 cut after "Physical
        # state: LinkUp": Active, rate unknown.
        "ibstat/deepep-issue303-h20-ibstat-cx7-mt4129-ndr400-ib-hash-prompt-cut-in-third-port.txt",
        "ibstat",
        {
            "format": "ibstat",
            "ca_count": 3,
            "port_count": 3,
            "active_port_count": 3,
            "down_port_count": 0,
            "ca_types": ["MT4129"],
            "firmware_versions": ["28.43.2026"],
            "link_layers": ["InfiniBand"],
            "active_rates_gbit_s": [400.0],
            "max_active_rate_gbit_s": 400.0,
        },
    ),
    (
        # "rate: 200 Gb/sec (4X HDR)" on mlx5_0, "400 Gb/sec (4X NDR)" on mlx5_1 and mlx5_2, and
        # mlx5_3's "400 Gb/sec (4X" cut before its speed name and link layer.
        "ibstat/deepep-issue17-h20-bf3-ibstatus-roce-200-hdr-and-400-ndr-cut-in-fourth-rate.txt",
        "ibstat",
        {
            "format": "ibstatus",
            "port_count": 4,
            "active_port_count": 4,
            "link_layers": ["Ethernet"],
            "active_rates_gbit_s": [200.0, 400.0],
            "max_active_rate_gbit_s": 400.0,
        },
    ),
    (
        "ibstat/deepep-issue38-ibv-devinfo-cx7-4129-ib-port-down-lid-65535-container-prompt-cut.txt",
        "ibstat",
        {
            "format": "ibv_devinfo",
            "ca_count": 2,
            "port_count": 1,
            "active_port_count": 0,
            "down_port_count": 1,
            "ca_types": ["MT4129"],
            "firmware_versions": ["28.39.2048"],
            "link_layers": ["InfiniBand"],
            "max_active_rate_gbit_s": None,
        },
    ),
    (
        # "| pcie | Fail |" and every "GPUn: Pass" under it: the test failed, no GPU did.
        "dcgm_diag/dcgm-issue253-comment-4.4.1-r2-8x-b200-2901-slurm-srun-pcie-fail-child-output-unparsed.txt",
        "dcgm_diag",
        {
            "overall": "fail",
            "failed_tests": ["pcie"],
            "passed_tests": ["software", "memory"],
            "failed_gpus": [],
            "dcgm_version": "4.4.1",
            "driver_version": "570.172.08",
            "gpu_device_ids": ["2901"] * 8,
        },
    ),
    (
        # "READ: bw=51.1MiB/s (53.6MB/s)" and "WRITE: bw=18.9MiB/s (19.9MB/s)" in group 0, "READ:
        # bw=71.7MiB/s (75.2MB/s), 71" in the cut group 1: the best read is 75.2 MB/s.
        "fio/avocado-pr1675-debug-stdout-prefix-job-tail-run-status-two-groups-cut.txt",
        "fio",
        {
            "format": "normal",
            "read_bw_mbyte_s": 75.2,
            "write_bw_mbyte_s": 19.9,
            "groups": [
                {
                    "groupid": 0,
                    "jobs": 0,
                    "read_bw_mbyte_s": 53.6,
                    "read_iops": None,
                    "write_bw_mbyte_s": 19.9,
                    "write_iops": None,
                },
                {
                    "groupid": 1,
                    "jobs": 0,
                    "read_bw_mbyte_s": 75.2,
                    "read_iops": None,
                    "write_bw_mbyte_s": None,
                    "write_iops": None,
                },
            ],
        },
    ),
    (
        # "| N/A 40C P0 43W / 400W | 249MiB / 40960MiB |" and "On" in the ECC cell of a MIG GPU.
        "nvidia_smi/kr-mig-notes-a100-driver580-mig-table-shared-memory-usage-jpg-column-4-devices.txt",
        "nvidia_smi",
        {
            "driver_version": "580.126.09",
            "cuda_version": "13.0",
            "gpu_count": 1,
            "gpu_names": ["NVIDIA A100-SXM4-40GB"],
            "memory_used_mib": [249],
            "memory_total_mib": [40960],
            "mig_mode": ["Enabled"],
            "ecc_volatile_uncorrected": [None],
            "bus_ids": ["00000000:10:1C.0"],
            "power_cap_w": [400.0],
        },
    ),
    (
        "nvidia_smi/deepep-issue38-h100-driver560-persistence-off-fenced-cut-in-gpu1.txt",
        "nvidia_smi",
        {
            "driver_version": "560.35.05",
            "cuda_version": "12.6",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "persistence_mode": ["Off", "Off"],
            "power_cap_w": [700.0, 700.0],
            "memory_total_mib": [81559, 81559],
            "ecc_volatile_uncorrected": [0, 0],
            "mig_mode": ["Disabled", None],
            "bus_ids": ["00000000:18:00.0", "00000000:2A:00.0"],
        },
    ),
    (
        "nvidia_smi_list/kr-mig-notes-a100-8gpu-L-gpu0-4g-two-1c.2g-compute-instances-1g.txt",
        "nvidia_smi_list",
        {
            "gpu_count": 8,
            "mig_count": 4,
            "mig_profiles": ["4g.20gb", "1c.2g.10gb", "1g.5gb"],
            "mig_enabled": True,
        },
    ),
    (
        # "|   0      3       MIG 1c.2g.10gb       0         1          1:1     |": GPU instance 3
        # holds compute instances 0 (at 0:1) and 1 (at 1:1).
        "nvidia_smi_mig/kr-mig-notes-a100-lgi-three-gis-then-lci-four-cis-1c.2g.txt",
        "nvidia_smi_mig",
        {
            "gpu_instance_count": 3,
            "compute_instance_count": 4,
            "gpu_instance_profiles": ["1g.5gb", "2g.10gb", "4g.20gb"],
            "compute_instances": [
                {
                    "gpu": 0,
                    "gpu_instance_id": 9,
                    "profile": "1g.5gb",
                    "profile_id": 0,
                    "instance_id": 0,
                    "placement_start": 0,
                    "placement_size": 1,
                },
                {
                    "gpu": 0,
                    "gpu_instance_id": 3,
                    "profile": "1c.2g.10gb",
                    "profile_id": 0,
                    "instance_id": 0,
                    "placement_start": 0,
                    "placement_size": 1,
                },
                {
                    "gpu": 0,
                    "gpu_instance_id": 3,
                    "profile": "1c.2g.10gb",
                    "profile_id": 0,
                    "instance_id": 1,
                    "placement_start": 1,
                    "placement_size": 1,
                },
                {
                    "gpu": 0,
                    "gpu_instance_id": 2,
                    "profile": "4g.20gb",
                    "profile_id": 3,
                    "instance_id": 0,
                    "placement_start": 0,
                    "placement_size": 4,
                },
            ],
            "tables": ["lgi", "lci"],
        },
    ),
    (
        # The second listing, after "-cci" created compute instance 0 with the default
        # profile: "1c.4g.20gb 0 0/4 14", "2c.4g.20gb 1 0/2 28", "4g.20gb 3* 0/1 56".
        "nvidia_smi_mig/kr-mig-notes-a100-lcip-gi2-star-default-profile-cci-then-lcip-again.txt",
        "nvidia_smi_mig",
        {
            "compute_instance_profiles": [
                {
                    "gpu": 0,
                    "gpu_instance_id": 2,
                    "profile": "1c.4g.20gb",
                    "profile_id": 0,
                    "default": False,
                    "free": 0,
                    "total": 4,
                    "sm": 14,
                },
                {
                    "gpu": 0,
                    "gpu_instance_id": 2,
                    "profile": "2c.4g.20gb",
                    "profile_id": 1,
                    "default": False,
                    "free": 0,
                    "total": 2,
                    "sm": 28,
                },
                {
                    "gpu": 0,
                    "gpu_instance_id": 2,
                    "profile": "4g.20gb",
                    "profile_id": 3,
                    "default": True,
                    "free": 0,
                    "total": 1,
                    "sm": 56,
                },
            ],
            "compute_instance_profile_count": 3,
            "gpu_instance_count": 0,
            "gpus": [0],
            "tables": ["lcip", "lcip"],
        },
    ),
    (
        # GPU0's row: PIX under NIC4 and NIC13; GPU1: NIC6, NIC14; GPU2: NIC7, NIC15; GPU3: NIC8,
        # NIC16; the NIC legend maps NICn to mlx5_n. "NV8" between every pair of the 4 GPUs.
        "nvidia_smi_topo/verl-notes-sglang-check-env-4x-h800-nv8-17nic-empty-affinity-gpu-numa-na.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 4,
            "nic_count": 17,
            "nvlink_pairs": 6,
            "full_nvlink_mesh": True,
            "nvlink_min_links": 8,
            "gpu_nic_affinity": {
                "GPU0": {"link": "PIX", "nics": ["mlx5_4", "mlx5_13"]},
                "GPU1": {"link": "PIX", "nics": ["mlx5_6", "mlx5_14"]},
                "GPU2": {"link": "PIX", "nics": ["mlx5_7", "mlx5_15"]},
                "GPU3": {"link": "PIX", "nics": ["mlx5_8", "mlx5_16"]},
            },
            "gpus_with_local_nic": 4,
            "numa_nodes": [],
        },
    ),
    (
        # "Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None)" then "  to
        # 0x2 (Node Reboot Required)" on the next line.
        "kernel_log/vllm-notes-journalctl-k-xid79-then-xid154-node-reboot-required-wrapped.txt",
        "kernel_log",
        {
            "xid_count": 2,
            "xid_codes": [79, 154],
            "xid_gpus": ["0000:01:00"],
            "gpu_fallen_off_bus": True,
            "gpu_recovery_actions": {"0000:01:00": "Node Reboot Required"},
        },
    ),
    (
        # One -vv block, no command line and no bridge: nothing says the listing is the whole
        # machine, so the absence of a ConnectX function proves nothing.
        "lspci/hwloc-issue653-a100-sxm4-40gb-lspci-vvnn-numa-node-cut-in-express-cap.txt",
        "lspci",
        {
            "nvidia_gpu_count": 1,
            "gpu_models": ["A100 SXM4 40GB"],
            "device_count": 1,
            "mellanox_functions": None,
            "virtual": None,
        },
    ),
    (
        "lspci/tt-smi-issue67-tenstorrent-blackhole-lspci-vvv-d-1e52-no-nvidia-cut-in-devcap.txt",
        "lspci",
        {"nvidia_gpu_count": 0, "device_count": 1, "mellanox_functions": None, "gpu_models": []},
    ),
    (
        # The 2 B row heads a latency sweep: "2  100000  1.55  7.16  1.60  1.60  0.07  1.62
        # 3.49"; the last row before the author's "..." is 16384 B.
        "perftest/azure-hb120rs-v3-ib_send_lat-all-100000-iters-server-sweep-elided.txt",
        "perftest",
        {
            "test_type": "latency",
            "test": "ib_send_lat",
            "device": "mlx5_ib0",
            "link_type": "IB",
            "max_size_bytes": 16384,
            "lat_size_bytes": 2,
            "lat_min_us": 1.55,
            "lat_max_us": 7.16,
            "lat_typical_us": 1.6,
            "lat_avg_us": 1.6,
            "lat_p99_us": 1.62,
            "lat_p999_us": 3.49,
            "bw_avg_gbit_s": None,
        },
    ),
    (
        # "16384  100000  0.00  23547.97  1.507070" in MiB/sec: 23547.97 x 1048576 x 8 / 1e9 =
        # 197.53469 Gb/s; every peak is 0.00 after "BW peak won't be measured in this run".
        "perftest/azure-hb120rs-v3-ib_send_bw-all-client-peak-not-measured-mib-elided.txt",
        "perftest",
        {
            "test": "ib_send_bw",
            "report_unit": "MiB/sec",
            "bw_avg_gbit_s": 197.53469,
            "bw_peak_gbit_s": None,
            "peak_measured": False,
            "max_size_bytes": 16384,
            "msg_rate_mpps": 1.50707,
        },
    ),
    (
        # Seven CSV rows under watch(1)'s "Every 5.0s: ..." banner, without a name column.
        "nvidia_smi_query/xe9780-watch-5s-query-gpu-csv-7x-b300-util-temp-power-header-line.txt",
        "nvidia_smi_query",
        {"format": "csv", "gpu_count": 7, "product_names": [None] * 7},
    ),
]


@pytest.mark.parametrize(("path", "kind", "figures"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_output_figures(sample: Sample, path: str, kind: str, figures: dict[str, Any]) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    metrics = PARSERS[kind].parse(text).metrics
    assert {key: metrics[key] for key in figures} == figures


def test_a_v07_bidirectional_test_is_its_three_matrices_each_named_by_its_sum(
    sample: Sample,
) -> None:
    # "Running device_to_device_bidirectional_memcpy_read_ce." prints the Read1, Read2 and
    # Total matrices; each SUM line names one. The Read1 matrix once stayed under the Running
    # name without a SUM, and "..._read1" got the SUM without a matrix.
    text = sample(
        "nvbandwidth/xe9780-7x-b300-v0.10.0-coefficient-of-variation-read1-read2-total-matrices.txt"
    )
    result = nvbandwidth.parse(text)
    cases = result.metrics["testcases"]
    assert "device_to_device_bidirectional_memcpy_read_ce" not in cases
    read1 = cases["device_to_device_bidirectional_memcpy_read_ce_read1"]
    # Read1: min 759.23 (row 1 column 6), max 761.79 (row 4 column 6).
    assert (read1["sum_gbyte_s"], read1["cells"]) == (31945.78, 42)
    assert (read1["min_gbyte_s"], read1["max_gbyte_s"]) == (759.23, 761.79)
    assert "Read1" in read1["title"]
    total = cases["device_to_device_bidirectional_memcpy_read_ce_total"]
    # Total: min 1517.86 (rows 1/6), max 1522.36 (rows 0/2).
    assert (total["sum_gbyte_s"], total["min_gbyte_s"], total["max_gbyte_s"]) == (
        63869.9,
        1517.86,
        1522.36,
    )
    write2 = cases["device_to_device_bidirectional_memcpy_write_ce_write2"]
    assert (write2["sum_gbyte_s"], write2["min_gbyte_s"], write2["max_gbyte_s"]) == (
        32333.92,
        769.36,
        770.19,
    )
    assert not any("no SUM line" in w or "no matrix" in w for w in result.warnings)


def test_the_coefficient_of_variation_of_v010_is_kept_per_test(sample: Sample) -> None:
    text = sample(
        "nvbandwidth/xe9780-7x-b300-v0.10.0-coefficient-of-variation-read1-read2-total-matrices.txt"
    )
    cases = nvbandwidth.parse(text).metrics["testcases"]
    # "COEFFICIENT_OF_VARIATION device_to_host_bidirectional_memcpy_ce 0.01"; the parts of a
    # bidirectional test have none, its total does ("..._read_ce_total 0.00").
    assert cases["device_to_host_bidirectional_memcpy_ce"]["coefficient_of_variation"] == 0.01
    assert cases["device_to_device_memcpy_read_ce"]["coefficient_of_variation"] == 0.0
    assert (
        cases["device_to_device_bidirectional_memcpy_read_ce_read1"]["coefficient_of_variation"]
        is None
    )
    assert (
        cases["device_to_device_bidirectional_memcpy_read_ce_total"]["coefficient_of_variation"]
        == 0.0
    )


def test_sum_lines_alone_keep_their_figures_and_latency_stays_in_nanoseconds(
    sample: Sample,
) -> None:
    text = sample("nvbandwidth/oci-gb200-guide-grep-sum-only-43-lines-latency-and-local-copy.txt")
    result = nvbandwidth.parse(text)
    cases = result.metrics["testcases"]
    assert len(result.metrics["testcase_names"]) == 43
    assert cases["device_to_device_memcpy_read_ce"]["sum_gbyte_s"] == 9216.17
    assert cases["device_to_device_bidirectional_memcpy_write_sm_total"]["sum_gbyte_s"] == 16948.66
    # "SUM host_device_latency_sm 2343.55": nanoseconds, never GB/s.
    latency = cases["host_device_latency_sm"]
    assert (latency["sum_ns"], latency["sum_gbyte_s"], latency["unit"]) == (2343.55, None, "ns")
    assert cases["device_local_copy"]["sum_gbyte_s"] == 13094.41
    # One warning says the matrices are missing, not 43.
    assert sum("no matrix" in w for w in result.warnings) == 1


def test_an_old_bidirectional_test_closed_by_its_own_sum_keeps_its_name() -> None:
    # Before v0.7 a bidirectional test printed one matrix and one SUM under its own name.
    text = (
        "Running device_to_device_bidirectional_memcpy_read_ce.\n"
        "memcpy CE GPU(row) <-> GPU(column) bandwidth (GB/s)\n"
        "          0         1\n"
        "0       N/A    100.00\n"
        "1     90.00       N/A\n"
        "\n"
        "SUM device_to_device_bidirectional_memcpy_read_ce 190.00\n"
    )
    cases = nvbandwidth.parse(text).metrics["testcases"]
    assert list(cases) == ["device_to_device_bidirectional_memcpy_read_ce"]
    assert cases["device_to_device_bidirectional_memcpy_read_ce"]["sum_gbyte_s"] == 190.0


@pytest.mark.parametrize(
    ("version_lines", "runtime", "driver"),
    [
        ("CUDA Runtime Version: 12040\nCUDA Driver Version: 12040\n", "12040", "12040"),
        (
            "CUDA Runtime Version: 13.3 (13030)\nCUDA Driver Version (API): 13.3 (13030)\n",
            "13.3",
            "13.3",
        ),
    ],
)
def test_the_cuda_versions_are_read_in_both_layouts(
    version_lines: str, runtime: str, driver: str
) -> None:
    text = f"nvbandwidth Version: v0.10.0\n\n{version_lines}\nSUM host_to_device_memcpy_ce 55.0\n"
    metrics = nvbandwidth.parse(text).metrics
    assert (metrics["cuda_runtime_version"], metrics["cuda_driver_version"]) == (runtime, driver)


def test_a_compute_instance_profile_listing_is_read_and_its_last_listing_is_the_state() -> None:
    # The layout of the Korean MIG notes' listings, its blanks shortened to fit this file.
    table = (
        "+----------------------------------------------------------------+\n"
        "| Compute instance profiles:                                     |\n"
        "| GPU  GPU     Name           Profile  Instances  Exclusive  Shared |\n"
        "|      Instance                 ID     Free/Total   SM   DEC  ENC  OFA |\n"
        "|        ID                                          CE   JPEG      |\n"
        "|================================================================|\n"
        "|   0    3     MIG 1c.2g.10gb     0      {free}/2      14    1    0    0 |\n"
        "|                                                     2    0         |\n"
        "+----------------------------------------------------------------+\n"
    )
    once = nvidia_smi_mig.parse(table.format(free=2)).metrics
    assert once["compute_instance_profiles"] == [
        {"gpu": 0, "gpu_instance_id": 3, "profile": "1c.2g.10gb", "profile_id": 0,
         "default": False, "free": 2, "total": 2, "sm": 14}
    ]  # fmt: skip
    twice = nvidia_smi_mig.parse(table.format(free=2) + table.format(free=1)).metrics
    assert [p["free"] for p in twice["compute_instance_profiles"]] == [1]
    assert twice["compute_instance_profile_count"] == 1


@pytest.mark.parametrize(
    ("lines", "actions"),
    [
        (
            # One line, as journald keeps it.
            "Aug 10 15:36:05 node kernel: NVRM: Xid (PCI:0000:55:00): 154, GPU recovery action "
            "changed from 0x0 (None) to 0x4 (Drain and Reset)\n",
            {"0000:55:00": "Drain and Reset"},
        ),
        (
            # Wrapped by the driver: the second line is an NVRM line of its own.
            "[  81.1] NVRM: Xid (PCI:0000:17:00): 154, GPU recovery action changed from 0x0 "
            "(None)\n[  81.1] NVRM: to 0x1 (GPU Reset Required)\n",
            {"0000:17:00": "GPU Reset Required"},
        ),
        (
            # Cut after "(None)": the action asked for is unknown.
            "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None)\n"
            "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n",
            {},
        ),
        (
            # The last change of a GPU is its state.
            "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to "
            "0x1 (GPU Reset Required)\nNVRM: Xid (PCI:0000:01:00): 154, GPU recovery action "
            "changed from 0x1 (GPU Reset Required) to 0x0 (None)\n",
            {"0000:01:00": "None"},
        ),
    ],
)
def test_xid_154_names_the_recovery_action_each_gpu_needs(
    lines: str, actions: dict[str, str]
) -> None:
    assert kernel_log.parse(lines).metrics["gpu_recovery_actions"] == actions


_A100 = (
    "da:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 40GB] [10de:20b0] (rev a1)"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # No command line and no bridge: a selection (grep, -s), not the machine.
        (f"{_A100}\n", None),
        (f"$ lspci -vvv -s da:00.0\n{_A100}\n", None),
        # The root of the tree is listed: the whole machine, with no ConnectX function in it.
        (
            "00:00.0 Host bridge [0600]: Intel Corporation Sky Lake-E DMI3 Registers [8086:2020]"
            f" (rev 04)\n{_A100}\n",
            0,
        ),
        (
            "00:01.0 PCI bridge [0604]: Intel Corporation Sky Lake-E PCI Express Root Port A "
            f"[8086:2030] (rev 04)\n{_A100}\n",
            0,
        ),
        # A -tv tree is drawn from its root bus: the whole machine, bridges named or not.
        (
            "-[0000:00]-+-00.0  Intel Corporation 440FX - 82441FX PMC [Natoma]\n"
            "           \\-04.0  NVIDIA Corporation GH100 [H100 SXM5 80GB]\n",
            0,
        ),
    ],
)
def test_a_listing_without_the_root_of_its_tree_cannot_count_mellanox_functions(
    text: str, expected: int | None
) -> None:
    assert lspci.parse(text).metrics["mellanox_functions"] == expected


def test_every_new_sample_has_a_provenance_line() -> None:
    listed = (SAMPLES / "PROVENANCE.tsv").read_text(encoding="utf-8")
    for path, _kind, _figures in EXPECTED:
        assert f"\n{path}\t" in listed, path
