"""Key figures of the real outputs added in the fifth corpus batch, read by hand from each file.

Each row: the sample, its kind as detected from the content, and the figures the parser must
return (checked against the tool's own text, not against a previous parser run). The shapes:
nccl-tests 2.17 banners with an elided device list, a log tail with no header at all, an H200
VM on the hypervisor's bus 00; a B300 node (driver 610, ConnectX-8 ports down) and an Azure
ND H200 v5 VM (vPCI domains, ibv_devinfo of its IB VFs); DCGM 3.1, 3.3 and 4.4 tables; RoCE
perftest with 4 QPs over rdma_cm; fio 3.35 / 3.37 reports; a multinode nvbandwidth run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scoring.evidence import PARSERS, nvbandwidth, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]

B300 = "NVIDIA B300 SXM6 AC"
UNREACHABLE_GPU1 = (
    "nvidia_smi/dell-7960-4x-rtxpro6000-driver610-gpu1-unreachable-unknown-error-before-table.txt"
)

B200_VM_TWO_RUNS = "nvidia_smi/cn-notes-qemu-vm-b200-driver580-two-runs-pm-1-between-last-cut.txt"
DCGM_COMMENTED = (
    "dcgm_diag/ramble-gcp-8xh200-2335-dcgm3.3.9-driver570-all-pass-eud-skip-hash-commented.txt"
)
DELLA_TOPO = "nvidia_smi_topo/della-8gpu-nv18-6nic-cpu-affinity-blank-for-gpu0-3-prompt-legend.txt"
DRA_MIG = "nvidia_smi_list/openshift-dra-dynamic-mig-h200-two-containers-same-gpu-1g18gb-2g35gb.txt"

EXPECTED: list[tuple[str, str, dict[str, Any]]] = [
    (
        # Rank lines 0, 7, 8 and 15 only; "# nccl-tests version 2.17.9 ...", "NCCL version
        # 2.29.3+cuda13.1"; the 4 GiB row "... 42721.7  100.53  188.50  0  42920.8 ... 187.63".
        "nccl_tests/oci-oke-slurm-b4-a100-2node-16rank-v2.17.9-nccl2.29.3-four-rank-lines.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 16,
            "peak_busbw_gbyte_s": 188.5,
            "avg_busbw_gbyte_s": 185.594,
            "max_size_bytes": 4294967296,
            "wrong_total": 0,
            "nccl_version": "2.29.3",
            "nccl_tests_version": "2.17.9",
            "hosts": ["inst-qfvws-oke-rdma", "inst-wm4sq-oke-rdma"],
        },
    ),
    (
        # "(B)    (elt)" units, no '#' on the header lines, one row: busbw 23.05 / 23.06.
        "nccl_tests/dgx-spark-3node-ring-allgather-elt-units-header-without-hashes-one-row.txt",
        "nccl_tests",
        {
            "collective": "all_gather",
            "peak_busbw_gbyte_s": 23.06,
            "avg_busbw_gbyte_s": 23.0522,
            "max_size_bytes": 17179869168,
            "row_count": 1,
            "wrong_total": 0,
        },
    ),
    (
        # Eight "[0x00] NVIDIA H200" device lines; "8589934592 ... 476.96 0 31516 272.56 476.98".
        "nccl_tests/azure-nd-h200-v5-debian-8gpu-bus00-8g-one-row-mpirun-command.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 8,
            "peak_busbw_gbyte_s": 476.98,
            "avg_busbw_gbyte_s": 476.967,
            "root_bus_ranks": 8,
            "nccl_version": "2.19.3",
            "hosts": ["test-h200-deb"],
        },
    ),
    (
        # No header: 33 rows from 8 B to 32 GiB; the last "... 70956  484.24  847.42  0";
        # busbw/algbw = 847.42/484.24 = 1.75 = 2(n-1)/n for n = 8, and "nranks 8" lines.
        "nccl_tests/oke-gb200-mpijob-kubectl-logs-tail-rows-without-header-nranks-info.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 8,
            "row_count": 33,
            "peak_busbw_gbyte_s": 847.42,
            "peak_size_bytes": 34359738368,
            "avg_busbw_gbyte_s": 260.778,
            "min_size_bytes": 8,
            "wrong_total": 0,
        },
    ),
    (
        # One Pid drives 8 GPUs ("nGpus 8"); the 8 GiB row "... 31322  274.24  479.93  0
        # 31322  274.25  479.93  0"; busbw/algbw = 1.75 = 2(n-1)/n for n = 8.
        "nccl_tests/gcp-a3-gke-8xh100-one-process-g8-nccl2.22.3-no-banner.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 8,
            "gpus_per_process": 8,
            "row_count": 31,
            "peak_busbw_gbyte_s": 479.93,
            "avg_busbw_gbyte_s": 145.47,
            "nccl_version": "2.22.3",
            "root_bus_ranks": 0,
        },
    ),
    (
        # "[0]     33554432       8388608     float     sum      -1[0]    2180.1   15.39   29.50
        # 0[0]    2285.2   14.68   28.14      0": the largest busbw of the ten complete rows;
        # busbw/algbw = 29.50/15.39 = 1.917 = 2(n-1)/n for n = 24 (all_reduce).
        "nccl_tests/nccl-issue1453-24xh100-hydra-rank-tags-inside-rows-cut-both-ends.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "collective_inferred": True,
            "row_count": 10,
            "peak_busbw_gbyte_s": 29.5,
            "peak_size_bytes": 33554432,
            "min_size_bytes": 1048576,
            "max_size_bytes": 536870912,
            "wrong_total": 0,
            "avg_busbw_gbyte_s": None,
        },
    ),
    (
        # Two processes, 8 GPUs each ("nGpus 8", ranks 0..15); the 16 GiB row "... 66326.9
        # 259.02  485.66  0  66345.5  258.95  485.52  0".
        "nccl_tests/spectrum-x-openshift-2x-dell-h200-g8-per-pod-v2.18.3-nccl2.30.4-ucx-warn-lines.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 16,
            "gpus_per_process": 8,
            "row_count": 25,
            "peak_busbw_gbyte_s": 485.66,
            "avg_busbw_gbyte_s": 178.222,
            "nccl_version": "2.30.4",
            "nccl_tests_version": "2.18.3",
            "wrong_total": 0,
        },
    ),
    (
        # 12 data types x 3 sizes; the largest busbw is the 40 GiB float row's in-place 488.19
        # ("... 165340  259.77  487.06  0   164958  260.37  488.19  0").
        "nccl_tests/spectrum-x-openshift-2x-dell-h200-datatype-all-12-types-f8e4m3-reducing-maxbytes.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 16,
            "row_count": 36,
            "peak_busbw_gbyte_s": 488.19,
            "peak_size_bytes": 42949672960,
            "min_size_bytes": 10737418240,
            "avg_busbw_gbyte_s": 433.477,
            "wrong_total": 0,
        },
    ),
    (
        # Never named: redop "none" and busbw = algbw * (2-1)/2 fit all_gather and alltoall
        # alike (count 128 for 1024 B of float over 2 ranks), so the collective stays open.
        "nccl_tests/gke-a3ultra-h200-gib-2rank-unnamed-allgather-or-alltoall-ssh-preface.txt",
        "nccl_tests",
        {
            "collective": None,
            "collective_candidates": ["all_gather", "alltoall"],
            "ranks": 2,
            "ranks_inferred": 2,
            "row_count": 24,
            "peak_busbw_gbyte_s": 33.32,
            "avg_busbw_gbyte_s": 15.0709,
            "nccl_version": "2.25.1",
        },
    ),
    (
        "nvidia_smi/xe9780-7x-b300-driver610-kmd-umd-seven-of-eight-gpus.txt",
        "nvidia_smi",
        {
            "driver_version": "610.57.04",
            "cuda_version": "13.3",
            "gpu_count": 7,
            "gpu_names": [B300] * 7,
            "memory_total_mib": [275040] * 7,
            "bus_ids": [
                "00000000:1A:00.0",
                "00000000:69:00.0",
                "00000000:DB:00.0",
                "00000001:1A:00.0",
                "00000001:69:00.0",
                "00000001:B5:00.0",
                "00000001:DB:00.0",
            ],
        },
    ),
    (
        "nvidia_smi/azure-nd-h200-v5-vm-driver550-vpci-domains-bus00.txt",
        "nvidia_smi",
        {
            "driver_version": "550.127.08",
            "cuda_version": "12.4",
            "gpu_count": 8,
            "memory_total_mib": [143771] * 8,
            "persistence_mode": ["Off"] * 8,
            "bus_ids": [
                "00000001:00:00.0",
                "00000002:00:00.0",
                "00000003:00:00.0",
                "00000008:00:00.0",
                "00000009:00:00.0",
                "0000000A:00:00.0",
                "0000000B:00:00.0",
                "0000000C:00:00.0",
            ],
        },
    ),
    (
        # "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error", then
        # GPUs 0, 2 and 3: the table is complete for the GPUs that work, GPU 1 is broken.
        "nvidia_smi/dell-7960-4x-rtxpro6000-driver610-gpu1-unreachable-unknown-error-before-table.txt",
        "nvidia_smi",
        {
            "driver_version": "610.57.04",
            "gpu_count": 3,
            "gpu_count_partial": None,
            "unreachable_gpus": [{"index": 1, "bus_id": "0000:34:00.0", "error": "Unknown Error"}],
            "bus_ids": ["00000000:16:00.0", "00000000:AC:00.0", "00000000:CA:00.0"],
            "memory_used_mib": [88450, 88450, 10],
        },
    ),
    (
        "nvidia_smi/euler-rtx2080ti-driver570-nvcc-path-line-before-table.txt",
        "nvidia_smi",
        {
            "driver_version": "570.172.08",
            "cuda_version": "12.8",
            "gpu_count": 1,
            "gpu_names": ["NVIDIA GeForce RTX 2080 Ti"],
            "memory_total_mib": [11264],
        },
    ),
    (
        "nvidia_smi/openshift-gb200-4gpu-driver580-rsh-driver-pod.txt",
        "nvidia_smi",
        {
            "driver_version": "580.126.09",
            "cuda_version": "13.0",
            "gpu_count": 4,
            "gpu_names": ["NVIDIA GB200"] * 4,
            "memory_total_mib": [189471] * 4,
            "bus_ids": [
                "00000008:01:00.0",
                "00000009:01:00.0",
                "00000018:01:00.0",
                "00000019:01:00.0",
            ],
        },
    ),
    (
        # Every GPU-NIC cell is SYS: no GPU has a NIC behind its own PCIe switch.
        "nvidia_smi_topo/openshift-gb200-4gpu-nv18-8nic-all-sys-numa-ranges.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 4,
            "nic_count": 8,
            "nvlink_pairs": 6,
            "full_nvlink_mesh": True,
            "gpus_with_local_nic": 0,
            "numa_nodes": ["0,2-17", "1,18-33"],
            "nic_names": [f"mlx5_{i}" for i in range(8)],
        },
    ),
    (
        "nvidia_smi_topo/xe9780-7x-b300-nv18-two-numa-no-nic-prompt.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 7,
            "nic_count": 0,
            "nvlink_pairs": 21,
            "full_nvlink_mesh": True,
            "nvlink_min_links": 18,
            "numa_nodes": ["0", "1"],
        },
    ),
    (
        "nvidia_smi_nvlink/xe9780-7x-b300-nvlink-status-18x53.125-prompt.txt",
        "nvidia_smi_nvlink",
        {"gpu_count": 7, "links_per_gpu": 18, "link_gbyte_s": 53.125, "inactive_links": 0},
    ),
    (
        "nvidia_smi_nvlink/aws-p4de-a100-nvlink-s-gpu0-only-12x25-two-space-indent.txt",
        "nvidia_smi_nvlink",
        {"gpu_count": 1, "links_per_gpu": 12, "link_gbyte_s": 25.0, "inactive_links": 0},
    ),
    (
        "nvidia_smi_query/xe9780-7x-b300-query-gpu-csv-driver-name-compute-cap.txt",
        "nvidia_smi_query",
        {
            "format": "csv",
            "gpu_count": 7,
            "driver_version": "610.57.04",
            "product_names": [B300] * 7,
        },
    ),
    (
        # mlx5_2..5: MT4129 Active Rate 100; mlx5_0, 1, 6..10: MT4131 Down/Disabled Rate 10.
        "ibstat/xe9780-cx7-ib-100-four-up-cx8-mt4131-seven-down-rate10.txt",
        "ibstat",
        {
            "format": "ibstat",
            "port_count": 11,
            "active_port_count": 4,
            "down_port_count": 7,
            "max_active_rate_gbit_s": 100.0,
            "ca_types": ["MT4129", "MT4131"],
            "link_layers": ["InfiniBand"],
        },
    ),
    (
        # mlx5_ib0..7 "link_layer: InfiniBand", mlx5_an0 "link_layer: Ethernet", all
        # PORT_ACTIVE; ibv_devinfo without -v prints no rate.
        "ibstat/azure-nd-h200-v5-ibv-devinfo-8-ib-vf-4126-plus-an0-ethernet.txt",
        "ibstat",
        {
            "format": "ibv_devinfo",
            "port_count": 9,
            "active_port_count": 9,
            "link_layers": ["Ethernet", "InfiniBand"],
            "max_active_rate_gbit_s": None,
            "firmware_versions": ["16.30.5000", "28.40.1702"],
        },
    ),
    (
        "ibstat/mlx4-cx3-2port-qdr40-tmux-pane.txt",  # the same paste (once kept twice)
        "ibstat",
        {
            "port_count": 2,
            "active_port_count": 1,
            "max_active_rate_gbit_s": 40.0,
            "link_layers": ["Ethernet", "InfiniBand"],
        },
    ),
    (
        "kernel_log/kr-blog-journal-k-grep-xid48-171-63-154-drain-and-reset-rtxpro6000.txt",
        "kernel_log",
        {
            "format": "journal",
            "xid_count": 5,
            "xid_codes": [48, 63, 154, 171],
            "xid_by_code": {"48": 2, "63": 1, "154": 1, "171": 1},
            "xid_gpus": ["0000:55:00"],
            "gpu_fallen_off_bus": False,
        },
    ),
    (
        "nvidia_smi_query/kr-blog-q-d-row-remapper-one-gpu-pending-yes-histogram.txt",
        "nvidia_smi_query",
        {
            "format": "q",
            "gpu_count": 1,
            "bus_ids": ["00000000:55:00.0"],
            "remapped_rows_uncorrectable": 1,
            "remapped_rows_correctable": 0,
            "remapped_rows_pending": True,
            "remapped_rows_failure": False,
        },
    ),
    (
        # c2:00.0 "(rev ff)" does not answer: three GPUs counted, the fourth named.
        "lspci/cn-blog-4x-rtx4090-grep-nvidia-one-gpu-rev-ff.txt",
        "lspci",
        {
            "nvidia_gpu_count": 3,
            "gpus_not_responding": ["c2:00.0"],
            "gpu_models": ["Device 2684"],
            "device_count": 8,
        },
    ),
    (
        # One event printed twice (journal and dmesg copies in the bug report): two lines.
        "kernel_log/cn-blog-bug-report-grep-journal-cn-month-and-dmesg-xid79-same-event.txt",
        "kernel_log",
        {
            "xid_count": 2,
            "xid_codes": [79],
            "xid_gpus": ["0000:c2:00"],
            "gpu_fallen_off_bus": True,
        },
    ),
    (
        "dcgm_diag/dcgm-issue254-4.4.1-r2-v100-pcie-fail-trailing-spaces-elided.txt",
        "dcgm_diag",
        {
            "overall": "fail",
            "failed_tests": ["pcie"],
            "dcgm_version": "4.4.1",
            "driver_version": "580.65.06",
            "gpu_device_ids": ["1db1"] * 4,
        },
    ),
    (
        "dcgm_diag/azure-nd-h200-v5-dcgm3.1.8-r1-persistence-fail-wrapped-error.txt",
        "dcgm_diag",
        {
            "overall": "fail",
            "failed_tests": ["Persistence Mode"],
            "dcgm_version": "3.1.8",
            "driver_version": "550.127.08",
            "gpu_device_ids": ["2335"] * 8,
        },
    ),
    (
        "dcgm_diag/aws-p4de-dcgm3.3.3-r2-8x-20b2-all-pass-nvlinks-expected-param.txt",
        "dcgm_diag",
        {
            "overall": "pass",
            "failed_tests": [],
            "dcgm_version": "3.3.3",
            "driver_version": "535.104.12",
            "gpu_device_ids": ["20b2"] * 8,
        },
    ),
    (
        # "Persistence Mode | Pass" followed by an Info row: information, not a warning.
        "dcgm_diag/gcp-a3-gke-dcgm3.3.8-r2-1gpu-2330-pass-persistence-info.txt",
        "dcgm_diag",
        {
            "overall": "pass",
            "failed_tests": [],
            "warned_tests": [],
            "dcgm_version": "3.3.8",
            "gpu_device_ids": ["2330"],
        },
    ),
    (
        # " 65536      20000            98.01              98.01  \t\t   0.186932"
        "perftest/oke-roce-ib_write_bw-4qp-rdma-cm-tos41-report-gbits-client-prompts.txt",
        "perftest",
        {
            "test": "ib_write_bw",
            "report_unit": "Gb/sec",
            "qps": 4,
            "rdma_cm": True,
            "tos": 41,
            "link_type": "Ethernet",
            "bw_avg_gbit_s": 98.01,
            "bw_peak_gbit_s": 98.01,
            "max_size_bytes": 65536,
        },
    ),
    (
        # " 2       1000          453.06         37330.73     692.41            928.05
        # 2465.901216.65                 37330.73": t_stdev 2465.90 ran into the 99%
        # percentile 1216.65 (two decimals each).
        "perftest/rxe-lab-ib_send_lat-server-stdev-and-p99-fused-2465.901216.65.txt",
        "perftest",
        {
            "test": "ib_send_lat",
            "test_type": "latency",
            "lat_min_us": 453.06,
            "lat_max_us": 37330.73,
            "lat_typical_us": 692.41,
            "lat_avg_us": 928.05,
            "lat_stdev_us": 2465.9,
            "lat_p99_us": 1216.65,
            "lat_p999_us": 37330.73,
        },
    ),
    (
        # Best average 3662.97 MB/sec (2 MiB row), perftest's MB = 2^20 bytes:
        # 3662.97 * 1048576 * 8 / 1e9 = 30.727 Gb/s; BW peak 0.00 on every row.
        "perftest/docker-mlx4-ib_write_bw-a-iter50000-peak-zero-mbps-prompt.txt",
        "perftest",
        {
            "report_unit": "MB/sec",
            "bw_avg_gbit_s": 30.727219,
            "bw_peak_gbit_s": None,
            "peak_measured": False,
            "max_size_bytes": 8388608,
        },
    ),
    (
        # "write: IOPS=11.7k, BW=1462MiB/s (1533MB/s)"
        "fio/f2fs-fio337-io-uring-128k-write-sectors-disk-stats-prompt.txt",
        "fio",
        {
            "fio_version": "fio-3.37-1-g4eef",
            "write_bw_mbyte_s": 1533.0,
            "write_iops": 11700.0,
            "read_bw_mbyte_s": None,
            "rw": ["write"],
            "disks": ["nvme0n1"],
        },
    ),
    (
        # "read: IOPS=8962, BW=35.0MiB/s (36.7MB/s)" in group 0, "write: IOPS=2423,
        # BW=9696KiB/s (9929kB/s)" in group 1.
        "fio/rawstor-two-groups-randread-randwrite-no-job-header-leading-blank.txt",
        "fio",
        {
            "read_bw_mbyte_s": 36.7,
            "read_iops": 8962.0,
            "write_bw_mbyte_s": 9.929,
            "write_iops": 2423.0,
            "jobnames": ["randread", "randwrite"],
            "fio_version": None,
        },
    ),
    (
        # "write: IOPS=65.5k, BW=512MiB/s (537MB/s)"
        "fio/multipath-fio335-numjobs4-group-reporting-write-dots-line.txt",
        "fio",
        {
            "fio_version": "fio-3.35",
            "write_bw_mbyte_s": 537.0,
            "write_iops": 65500.0,
            "read_bw_mbyte_s": None,
            "rw": ["write"],
        },
    ),
    (
        # "bw_bytes" : 348743777 (read) and 348450387 (write), in MB/s of 10^6 bytes.
        "fio/superbench-fio316-json-randrw-4k-qd64-numjobs4-group-reporting-nvme.txt",
        "fio",
        {
            "format": "json",
            "fio_version": "fio-3.16",
            "read_bw_mbyte_s": 348.744,
            "read_iops": 85138.891,
            "write_bw_mbyte_s": 348.45,
            "write_iops": 85066.129,
            "rw": ["randrw"],
            "disks": ["nvme0n1"],
        },
    ),
    (
        # Eight "Process N (host): device K: HGX GB200 (bus)" lines; the smallest cell is
        # row 2, column 7: 797.65.
        "nvbandwidth/oke-gb200-multinode-v0.7-d2d-read-ce-8-processes-2-hosts.txt",
        "nvbandwidth",
        {
            "nvbandwidth_version": "v0.7",
            "driver_version": "570.124.06",
            "device_count": 8,
            "device_names": ["HGX GB200"],
            "testcase_names": ["multinode_device_to_device_memcpy_read_ce"],
            "d2d_min_gbyte_s": 797.65,
        },
    ),
    (
        # Banner and GPU table only; eight B200 at 183359MiB, 1000W cap.
        "nvidia_smi/modal-glossary-8xb200-driver575-table-no-processes.txt",
        "nvidia_smi",
        {
            "driver_version": "575.57.08",
            "cuda_version": "12.9",
            "gpu_count": 8,
            "gpu_count_partial": None,
            "gpu_names": ["NVIDIA B200"] * 8,
            "memory_total_mib": [183359] * 8,
            "power_cap_w": [1000.0] * 8,
            "bus_ids": [
                f"00000000:{b}:00.0" for b in ("51", "52", "62", "63", "75", "76", "86", "87")
            ],
        },
    ),
    (
        # The same VM GPU in two runs around 'nvidia-smi -pm 1': counted once, first run kept.
        B200_VM_TWO_RUNS,
        "nvidia_smi",
        {
            "driver_version": "580.126.09",
            "cuda_version": "13.0",
            "gpu_count": 1,
            "bus_ids": ["00000000:00:15.0"],
            "persistence_mode": ["Off"],
            "memory_total_mib": [183359],
        },
    ),
    (
        # Every line behind "  # " (a Python comment); 15 tests pass, EUD skipped.
        DCGM_COMMENTED,
        "dcgm_diag",
        {
            "overall": "pass",
            "dcgm_version": "3.3.9",
            "driver_version": "570.133.20",
            "gpu_device_ids": ["2335"] * 8,
            "skipped_tests": ["EUD Test"],
            "failed_tests": [],
            "failed_gpus": [],
        },
    ),
    (
        # DCGM 4.4 on one GPU: three tests, each with its "GPU0: Pass" line.
        "dcgm_diag/dcgm-issue124-4.4.2-r2-i0-a10g-2237-pass-after-injected-pcie-replay.txt",
        "dcgm_diag",
        {
            "overall": "pass",
            "level": 2,
            "dcgm_version": "4.4.2",
            "driver_version": "580.105.08",
            "gpu_device_ids": ["2237"],
            "passed_tests": ["software", "memory", "pcie"],
        },
    ),
    (
        # Device ids separated by ", "; seven tests, four GPUs each.
        "dcgm_diag/dcgm-user-guide-4.0.0-r3-4x-25b6-comma-space-ids-indented.txt",
        "dcgm_diag",
        {
            "overall": "pass",
            "dcgm_version": "4.0.0",
            "driver_version": "550.90.07",
            "gpu_device_ids": ["25b6"] * 4,
            "passed_tests": [
                "software",
                "memory",
                "diagnostic",
                "pcie",
                "memory_bandwidth",
                "targeted_stress",
                "targeted_power",
            ],
            "failed_gpus": [],
        },
    ),
    (
        # -a sweep pasted up to 16384 B: "16384      8000             194.36             194.33".
        "perftest/cn-notes-roce-ib_send_bw-bidir-8qp-report-gbits-a-sweep-cut-at-16k-short-rule.txt",
        "perftest",
        {
            "test": "ib_send_bw",
            "bidirectional": True,
            "qps": 8,
            "link_type": "Ethernet",
            "gid_index": 3,
            "report_unit": "Gb/sec",
            "bw_avg_gbit_s": 194.33,
            "bw_peak_gbit_s": 194.36,
            "max_size_bytes": 16384,
        },
    ),
    (
        # "1314 packets transmitted, 1311 received, 0.22831% packet loss"; no reply lines.
        "rtt/linux-usb-list-imx6-ping-flood-fractional-loss-ipg-ewma-wrapped-elided.txt",
        "rtt",
        {
            "transmitted": 1314,
            "received": 1311,
            "loss_pct": 0.22831,
            "rtt_min_ms": 0.729,
            "rtt_avg_ms": 131.71,
            "rtt_max_ms": 548.971,
            "reply_count": 0,
        },
    ),
    (
        # Two targets, each 5/5; averages 15.409 and 12.451 ms.
        "rtt/arista-eos-lab-two-pings-72-100-bytes-pipe-3-ipg-ewma-split-by-blanks.txt",
        "rtt",
        {
            "target_count": 2,
            "rtt_avg_ms": 15.409,
            "loss_pct": 0.0,
            "reply_count": 5,
        },
    ),
    (
        # "Attached GPUs : 4" and one GPU block; every ECC counter 0; "SRAM Threshold Exceeded",
        # "Channel Repair Pending", "TPC Repair Pending", "Unrepairable Memory" all "No"; -d ECC
        # prints no Remapped Rows section.
        "nvidia_smi_query/kr-blog-q-d-ecc-driver595-rtxpro6000-1-of-4-shown-author-note.txt",
        "nvidia_smi_query",
        {
            "format": "q",
            "gpu_count": 4,
            "gpus_shown": 1,
            "driver_version": "595.58.03",
            "cuda_version": "13.2",
            "bus_ids": ["00000000:54:00.0"],
            "ecc_volatile_uncorrected": 0,
            "ecc_aggregate_uncorrected": 0,
            "ecc_aggregate_corrected": 0,
            "memory_unrepairable": False,
            "memory_repair_pending": False,
            "sram_threshold_exceeded": False,
            "remapped_rows_pending": None,
            "remapped_rows_failure": None,
        },
    ),
    (
        # A health agent's relay of kernel Xids: 14 x Xid 13 then one Xid 43, all on c5:00.
        "kernel_log/modal-b200-gpu-health-relay-xid13x14-xid43-benchmark-tail.txt",
        "kernel_log",
        {
            "xid_count": 15,
            "xid_by_code": {"13": 14, "43": 1},
            "xid_gpus": ["0000:c5:00"],
            "gpu_fallen_off_bus": False,
        },
    ),
    (
        # GPU0..3: "NODE<tab><tab>0<tab><tab>N/A" (CPU Affinity blank, NUMA 0); GPU4..7: 1, 1.
        DELLA_TOPO,
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 6,
            "full_nvlink_mesh": True,
            "nvlink_min_links": 18,
            "numa_nodes": ["0", "1"],
            "gpus_with_local_nic": 4,
        },
    ),
    (
        # AER fatal Surprise Down on the root port, then the Xid 79 of the GPU behind it.
        "kernel_log/gpu-burn-issue1-dmesg-aer-surprise-down-then-xid79.txt",
        "kernel_log",
        {
            "format": "dmesg",
            "xid_count": 1,
            "xid_codes": [79],
            "xid_gpus": ["0000:02:00"],
            "gpu_fallen_off_bus": True,
        },
    ),
    (
        # Two containers sharing one H200: its GPU line twice (one UUID), one MIG device each.
        DRA_MIG,
        "nvidia_smi_list",
        {
            "gpu_count": 1,
            "gpu_uuids": ["GPU-cf2e642c-2bff-e1de-7e84-8e5c619156f2"],
            "mig_count": 2,
            "mig_profiles": ["1g.18gb", "2g.35gb"],
        },
    ),
    (
        # The smallest cell is row 0, column 6: 370.26.
        "nvbandwidth/azure-nhc-h100-v0.4-d2d-read-ce-driver570-unindented-rows.txt",
        "nvbandwidth",
        {
            "nvbandwidth_version": "v0.4",
            "driver_version": "570.133.20",
            "device_count": 8,
            "testcase_names": ["device_to_device_memcpy_read_ce"],
            "d2d_min_gbyte_s": 370.26,
        },
    ),
]


@pytest.mark.parametrize(("path", "kind", "figures"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_output_figures(sample: Sample, path: str, kind: str, figures: dict[str, Any]) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    metrics = PARSERS[kind].parse(text).metrics
    assert {key: metrics[key] for key in figures} == figures


def test_a_multinode_nvbandwidth_run_lists_each_process_gpu_with_its_host(sample: Sample) -> None:
    text = sample("nvbandwidth/oke-gb200-multinode-v0.7-d2d-read-ce-8-processes-2-hosts.txt")
    metrics = nvbandwidth.parse(text).metrics
    assert metrics["devices"][4] == {
        "index": 4,
        "name": "HGX GB200",
        "bus_id": "00000008:01:00",
        "host": "nvbandwidth-test-worker-1",
        "local_index": 0,
    }
    assert [d["host"] for d in metrics["devices"]].count("nvbandwidth-test-worker-0") == 4
    case = metrics["testcases"]["multinode_device_to_device_memcpy_read_ce"]
    # A multinode test has the direction of the single-node test it extends.
    assert case["direction"] == "d2d"
    assert case["sum_gbyte_s"] == 44685.29
    assert case["cells"] == 56


def test_a_dcgmi_run_that_cannot_load_its_plugins_is_a_tool_error(sample: Sample) -> None:
    # DCGM 4 looks for the CUDA 13 plugins; without them no test runs and no table is printed.
    text = sample("dcgm_diag/gcp-a3-gke-dcgm4.4.0-r3-cannot-load-plugins-cuda13-cmd-header.txt")
    assert registry.detect_kind(text) == "dcgm_diag"
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["dcgm_diag"].parse(text)
    assert caught.value.kind == "dcgm_diag"
    assert caught.value.line == 2
    assert "Unable to complete diagnostic" in str(caught.value)


def test_hydra_rank_tags_before_every_line_are_read_like_the_untagged_output(
    sample: Sample,
) -> None:
    # MPICH / Intel MPI "-l" (or "-prepend-rank") print "[<rank>] " before every line rank 0
    # relays, header and device list included.
    path = "nccl_tests/azure-nd-h200-v5-debian-8gpu-bus00-8g-one-row-mpirun-command.txt"
    plain = sample(path)
    tagged = "\n".join(f"[0] {line}" if line else line for line in plain.split("\n"))
    assert registry.detect_kind(tagged) == "nccl_tests"
    keys = ("collective", "ranks", "peak_busbw_gbyte_s", "avg_busbw_gbyte_s", "root_bus_ranks")
    expected = PARSERS["nccl_tests"].parse(plain).metrics
    got = PARSERS["nccl_tests"].parse(tagged).metrics
    assert {k: got[k] for k in keys} == {k: expected[k] for k in keys}
    assert got["peak_busbw_gbyte_s"] == 476.98


def test_a_run_that_fails_in_its_first_row_is_an_error_naming_the_failure(sample: Sample) -> None:
    text = sample(
        "nccl_tests/nccl-tests-issue355-v2.17.6-16xh800-alltoall-device-api-illegal-memory-access.txt"
    )
    assert registry.detect_kind(text) == "nccl_tests"
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["nccl_tests"].parse(text)
    assert caught.value.kind == "nccl_tests"
    assert caught.value.line == 27
    assert "an illegal memory access was encountered" in str(caught.value)


@pytest.mark.parametrize(
    "line",
    [
        "Unable to determine the device handle for GPU0000:08:00.0: Unknown Error",
        "Unable to determine the device handle for GPU0: 0000:01:00.0: Unknown Error",
    ],
)
def test_nvidia_smi_that_reaches_no_gpu_is_a_tool_error(line: str) -> None:
    # Older drivers print the line alone and no table when a GPU cannot be reached.
    text = f"$ nvidia-smi\n{line}\n"
    assert registry.detect_kind(text) == "nvidia_smi"
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["nvidia_smi"].parse(text)
    assert caught.value.code == "nvidia_smi.tool_error"
    assert caught.value.params == {"message": line}


def test_a_hidden_row_without_an_unreachable_gpu_stays_an_index_gap(sample: Sample) -> None:
    text = sample(UNREACHABLE_GPU1).replace(
        "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error\n", ""
    )
    metrics = PARSERS["nvidia_smi"].parse(text).metrics
    assert metrics["gpu_count_partial"] == "index_gap"
    assert metrics["unreachable_gpus"] == []


@pytest.mark.parametrize(
    ("path", "line", "message"),
    [
        (
            "nvidia_smi/cn-blog-4x-rtx4090-driver550-only-unable-to-determine-device-handle.txt",
            1,
            "Unable to determine the device handle for GPU0000:C2:00.0: Unknown Error",
        ),
        (
            "nvidia_smi/xxd3vin-issue19-prompt-unable-to-determine-gpu-space-bus-id.txt",
            2,
            "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error",
        ),
    ],
)
def test_nvidia_smi_printing_only_the_unreachable_gpu_line_is_its_error(
    sample: Sample, path: str, line: int, message: str
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "nvidia_smi"
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["nvidia_smi"].parse(text)
    assert caught.value.code == "nvidia_smi.tool_error"
    assert caught.value.line == line
    assert caught.value.params == {"message": message}


def test_one_gpu_listed_by_two_containers_is_counted_once(sample: Sample) -> None:
    result = PARSERS["nvidia_smi_list"].parse(sample(DRA_MIG))
    assert result.metrics["gpus"] == [
        {
            "index": 0,
            "name": "NVIDIA H200",
            "uuid": "GPU-cf2e642c-2bff-e1de-7e84-8e5c619156f2",
            "mig_count": 2,
        }
    ]
    assert [f.value for f in result.facts] == [1.0, 2.0]
    assert any("listed 2 times" in w for w in result.warnings)


def test_two_runs_of_nvidia_smi_on_one_gpu_keep_the_first_and_say_so(sample: Sample) -> None:
    result = PARSERS["nvidia_smi"].parse(sample(B200_VM_TWO_RUNS))
    assert result.warnings == (
        "line 34: GPU 0 listed again (several nvidia-smi runs?); the first listing is kept",
    )


def test_a_dcgmi_table_behind_a_comment_prefix_reads_like_the_bare_table(sample: Sample) -> None:
    text = sample(DCGM_COMMENTED)
    bare = "\n".join(line.removeprefix("  # ") for line in text.splitlines())
    prefixed = PARSERS["dcgm_diag"].parse(text)
    assert prefixed.metrics == PARSERS["dcgm_diag"].parse(bare).metrics
    assert len(prefixed.metrics["passed_tests"]) == 15


def test_a_blank_cpu_affinity_cell_does_not_shift_the_numa_affinity(sample: Sample) -> None:
    result = PARSERS["nvidia_smi_topo"].parse(sample(DELLA_TOPO))
    affinity = result.metrics["gpu_affinity"]
    assert affinity["GPU0"] == {"cpu_affinity": None, "numa_affinity": "0", "gpu_numa_id": None}
    assert affinity["GPU7"] == {"cpu_affinity": "1", "numa_affinity": "1", "gpu_numa_id": None}
    assert result.warnings == ("CPU Affinity cell blank for GPU0, GPU1, GPU2, GPU3",)
