"""Key figures of the real outputs added in the eighth corpus batch, read by hand from each file.

The shapes: nccl-tests tables without banner or header (rows alone, a units line first), a last
row cut after its out-of-place half, a run of two one-GPU nodes under its mpirun line, a device
list of domain-0002 GPUs on bus 00 cut before the table; ib_read_bw in MB/sec with "Outstand
reads" and a cut MsgRate, perftest headers cut before any row (a set -x echo, an rdma_cm server,
a bidirectional test behind a script's INFO lines); nvidia-smi R610 on B200 cut in the border
after a GPU block; Xid lines whose PCI address was redacted, quoted kmsg lines between a
monitor's own "XID 144.0 ..." verdicts, a journal of RmInitAdapter failures without an Xid; fio
3.25 between a script's echo lines, fio 3.32 indented by its author with "Starting 16 threads"
and markdown bold inside the result line, a buffered fio run drowned in guest kernel I/O errors,
a group cut in its percentiles; topo -m of B200 nodes from vLLM's collect_env (tab-separated, a
fused header "NIC11NIC12", rows without their header, a header at column 0, affinity headers set
closer than usual) and a 3-GPU node with one NVLink pair; DCGM 4.4.1 cut inside its metadata.
"""

from __future__ import annotations

import pytest

from scoring.evidence import fio, kernel_log, nccl, topo
from tests.scoring.evidence.real_outputs import Figures, Refusal, Sample, figures_test, refused_test

EXPECTED: list[Figures] = [
    (
        # Five rows 2097152..33554432 B; busbw = algbw on every row (2 ranks of all_reduce);
        # the best is the in-place 41.52 of 33554432 B (out-of-place 41.31). The binary named
        # on the mpirun line is all_reduce_perf; no device list, no summary; "    671088" is cut.
        "nccl_tests/nccl-tests-issue232-2node-1xh100-each-tree-mpirun-command-blank-hash-header-cut-in-64m-row.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "row_count": 5,
            "peak_busbw_gbyte_s": 41.52,
            "peak_size_bytes": 33554432,
            "min_size_bytes": 2097152,
            "max_size_bytes": 33554432,
            "avg_busbw_gbyte_s": None,
            "wrong_total": 0,
            "out_of_bounds_ok": None,
            "ranks": None,
            "devices_listed": 0,
        },
    ),
    (
        # Eight rows 8..1024 B, busbw = algbw: all_reduce over 2 ranks or sendrecv, nothing
        # tells them apart. Largest busbw: 1024 B in-place 0.12 (out-of-place 0.11).
        "nccl_tests/gardenlinux-issue4556-header-and-rows-no-banner-8b-to-1k-cut-at-2048.txt",
        "nccl_tests",
        {
            "collective": None,
            "collective_candidates": ["all_reduce", "sendrecv"],
            "row_count": 8,
            "peak_busbw_gbyte_s": 0.12,
            "peak_size_bytes": 1024,
            "min_size_bytes": 8,
            "max_size_bytes": 1024,
            "avg_busbw_gbyte_s": None,
        },
    ),
    (
        # Rows alone, 32768..33554432 B (11 rows); 33554432 B: algbw 171.73, busbw 300.52
        # in-place = 1.75 = 2(8-1)/8, and count 8388608 = size/4: all_reduce over 8 ranks.
        "nccl_tests/mooncake-pr3484-rows-only-allreduce-32k-to-32m-busbw-1.75x-cut-in-64m-row.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "collective_inferred": True,
            "ranks_inferred": 8,
            "row_count": 11,
            "peak_busbw_gbyte_s": 300.52,
            "peak_size_bytes": 33554432,
            "min_size_bytes": 32768,
            "max_size_bytes": 33554432,
        },
    ),
    (
        # Five rows of size 0, then 128..2048 B: ten whole rows. 128 B has count 4: 128/4/4 =
        # 8 ranks; busbw/algbw about 7/8 and redop "none": all_gather or alltoall. The 4096 B
        # row stops after its out-of-place "0": the best whole row is 2048 B in-place, 0.17.
        "nccl_tests/deepep-issue303-units-line-redop-none-five-size-0-rows-cut-in-4096-in-place.txt",
        "nccl_tests",
        {
            "collective": None,
            "collective_candidates": ["all_gather", "alltoall"],
            "ranks_inferred": 8,
            "row_count": 10,
            "peak_busbw_gbyte_s": 0.17,
            "peak_size_bytes": 2048,
            "min_size_bytes": 0,
            "max_size_bytes": 2048,
        },
    ),
    (
        # "16  1000  38.98  38.95  2.5525" in MB/sec, perftest's MB being 2^20 bytes:
        # 38.95 x 1048576 x 8 / 1e9 = 0.326736 Gb/s, the peak 38.98 -> 0.326988.
        "perftest/ucx-issue8851-ib_read_bw-a-mbps-outstand-reads-prompt-cut-in-16b-msgrate.txt",
        "perftest",
        {
            "test": "ib_read_bw",
            "test_type": "bandwidth",
            "report_unit": "MB/sec",
            "device": "mlx5_1",
            "link_type": "IB",
            "mtu_bytes": 4096,
            "rdma_cm": False,
            "bidirectional": False,
            "max_size_bytes": 16,
            "bw_avg_gbit_s": 0.326736,
            "bw_peak_gbit_s": 0.326988,
        },
    ),
    (
        # "Xid (PCI:...): 145" and "Xid (PCI:...): 137": two Xids, neither GPU named.
        "kernel_log/nccl-issue2241-journal-k-xid145-xid137-pci-address-redacted-gb100-vf-line.txt",
        "kernel_log",
        {
            "xid_count": 2,
            "xid_codes": [137, 145],
            "xid_by_code": {"137": 1, "145": 1},
            "xid_gpus": [],
            "gpu_fallen_off_bus": False,
            "format": "journal",
            "nvidia_driver_lines": 3,
        },
    ),
    (
        # Three "> NVRM: Xid" lines (144 on 0000:01:00, 149 twice on 0000:00:00); gpud's
        # "- XID 144.0 (err status ...) ... detected on GPU PCI:0000:01:00" lines are not Xids.
        "kernel_log/gpud-pr1160-quoted-kmsg-xid144-149-149-each-followed-by-gpud-xid-verdict-lines.txt",
        "kernel_log",
        {
            "xid_count": 3,
            "xid_codes": [144, 149],
            "xid_by_code": {"144": 1, "149": 2},
            "xid_gpus": ["0000:01:00", "0000:00:00"],
            "nvidia_driver_lines": 3,
        },
    ),
    (
        # Nine journal lines of the driver failing to attach the GPU; no Xid among them.
        "kernel_log/ogkm-issue1151-journal-rtx5080-rm-init-adapter-failed-repeated-no-xid-cut-at-start.txt",
        "kernel_log",
        {
            "xid_count": 0,
            "xid_codes": [],
            "gpu_fallen_off_bus": False,
            "format": "journal",
            "kernel_lines": 9,
            "nvidia_driver_lines": 9,
        },
    ),
    (
        # "read: IOPS=332k, BW=1299MiB/s (1362MB/s)", "READ: bw=1299MiB/s (1362MB/s)"; the
        # header: rw=randread, bs 4096B, ioengine=libaio, iodepth=64; "nvme0n1: ios=...".
        "fio/cloud-hypervisor-issue4387-fio325-echo-lines-randread-332k-iops-then-write-job-header-cut.txt",
        "fio",
        {
            "format": "normal",
            "fio_version": "fio-3.25",
            "read_bw_mbyte_s": 1362.0,
            "read_iops": 332000.0,
            "write_bw_mbyte_s": None,
            "write_iops": None,
            "jobnames": ["read_iops"],
            "disks": ["nvme0n1"],
        },
    ),
    (
        # "write: **IOPS=111k**, BW=433MiB/s (454MB/s)", "clat (usec): ... avg=993.97"; the
        # header: rw=randwrite, bs 4096B, iodepth=8; "(groupid=0, jobs=16)".
        "fio/fio-issue1575-fio332-16-threads-randwrite-markdown-bold-iops-screen-output-banner-cut-in-lat.txt",
        "fio",
        {
            "format": "normal",
            "fio_version": "fio-3.32",
            "write_bw_mbyte_s": 454.0,
            "write_iops": 111000.0,
            "write_clat_mean_us": 993.97,
            "read_bw_mbyte_s": None,
            "rw": ["randwrite"],
        },
    ),
    (
        # "read: IOPS=13.1k, BW=51.3MiB/s (53.8MB/s)(3079MiB/60001msec)", "clat (nsec): ...
        # avg=9438805.04" = 9438.805 us; "(groupid=0, jobs=4)".
        "fio/zfs-issue16993-progress-line-randread-4-jobs-group-13.1k-iops-cut-in-clat-percentiles.txt",
        "fio",
        {
            "format": "normal",
            "read_bw_mbyte_s": 53.8,
            "read_iops": 13100.0,
            "read_clat_mean_us": 9438.805,
            "write_bw_mbyte_s": None,
            "fio_version": None,
        },
    ),
    (
        # GPU0 <-> GPU1 NV18; GPU0 PXB NIC4, GPU1 PXB NIC7; 16 NIC columns; no NIC legend.
        "nvidia_smi_topo/vllm-issue24139-collect-env-2x-b200-visible-tabs-16nic-empty-nic-affinity-cut-in-nic6.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 2,
            "nic_count": 16,
            "nvlink_pairs": 1,
            "full_nvlink_mesh": True,
            "nvlink_min_links": 18,
            "gpu_nic_affinity": {
                "GPU0": {"link": "PXB", "nics": ["NIC4"]},
                "GPU1": {"link": "PXB", "nics": ["NIC7"]},
            },
            "numa_nodes": ["0"],
        },
    ),
    (
        # Header "... NIC10   NIC11NIC12": 13 NICs. GPU0's row ends "NODE    PIX  NODE": PIX
        # under NIC11; GPU1 PIX NIC10, GPU2 NIC9, GPU3 NIC8; GPU4 "... NODE    PIX     SYS"
        # with PIX under NIC7. Rows GPU5..GPU7 are cut.
        "nvidia_smi_topo/vllm-issue31594-collect-env-8x-b200-header-nic11nic12-fused-13nic-cut-in-gpu4.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 13,
            "full_nvlink_mesh": None,
            "nvlink_min_links": 18,
            "gpu_nic_affinity": {
                "GPU0": {"link": "PIX", "nics": ["NIC11"]},
                "GPU1": {"link": "PIX", "nics": ["NIC10"]},
                "GPU2": {"link": "PIX", "nics": ["NIC9"]},
                "GPU3": {"link": "PIX", "nics": ["NIC8"]},
                "GPU4": {"link": "PIX", "nics": ["NIC7"]},
                "GPU5": {"link": None, "nics": []},
                "GPU6": {"link": None, "nics": []},
                "GPU7": {"link": None, "nics": []},
            },
            "gpus_with_local_nic": 5,
        },
    ),
    (
        # GPU0-GPU1 NV4, GPU2 NODE to both and PHB to both NICs (mlx5_0, mlx5_1).
        "nvidia_smi_topo/nccl-tests-issue320-3gpu-nv4-pair-third-gpu-phb-2nic-legend-prompt.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 3,
            "nic_count": 2,
            "nvlink_pairs": 1,
            "full_nvlink_mesh": False,
            "gpu_nvlink_links": {"GPU0": 4, "GPU1": 4, "GPU2": 0},
            "nic_names": ["mlx5_0", "mlx5_1"],
            "gpus_with_local_nic": 0,
            "numa_nodes": ["1"],
        },
    ),
    (
        # "CPU Affinity  NUMA Affinity    GPU NUMA ID"; GPUn PIX NICn for n = 0..4; "0-27  0",
        # "28-55  1", "56-83  2"; GPU5 cut after five cells.
        "nvidia_smi_topo/unsloth-issue3872-collect-env-8x-b200-9nic-narrow-affinity-headers-cut-in-gpu5.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 9,
            "full_nvlink_mesh": None,
            "numa_nodes": ["0", "1", "2"],
            "gpus_with_local_nic": 5,
        },
    ),
    (
        # Two "NVIDIA B200" blocks, 1000W caps, 183359MiB, then "+----": the table was cut
        # in the border after GPU1, so 2 is a lower bound.
        "nvidia_smi/sglang-issue27487-2x-b200-driver610-kmd-umd-date-line-cut-in-border-after-gpu1.txt",
        "nvidia_smi",
        {
            "driver_version": "610.43.02",
            "cuda_version": "13.3",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "gpu_names": ["NVIDIA B200", "NVIDIA B200"],
            "memory_total_mib": [183359, 183359],
            "power_cap_w": [1000.0, 1000.0],
            "bus_ids": ["00000000:63:00.0", "00000000:68:00.0"],
            "mig_mode": ["Disabled", "Disabled"],
            "ecc_volatile_uncorrected": [0, 0],
        },
    ),
    (
        # A header from column 0: 8 GPUs, NIC0..NIC4. GPU1 PIX NIC1, GPU3 PIX NIC2.
        "nvidia_smi_topo/vllm-issue5001-h20-header-at-column-0-5nic-cut-in-gpu4.txt",
        "nvidia_smi_topo",
        {"gpu_count": 8, "nic_count": 5, "nvlink_min_links": 18, "full_nvlink_mesh": None},
    ),
]


test_real_output_figures = figures_test(EXPECTED)


REFUSED: list[Refusal] = [
    # Ranks 0..12 and no table: no figure of this run can be read.
    (
        "nccl_tests/nccl-tests-issue294-2node-h100-padded-hostnames-domain-0002-bus-00-device-list-cut-at-rank12.txt",
        "nccl_tests",
        "nccl.nothing",
        None,
    ),
    # Send BW Test's header (line 5), cut inside the local address: no row.
    (
        "perftest/perftest-issue82-ib_send_bw-date-line-set-x-taskset-report-gbits-rdma-cm-exchange-cut-at-local-address.txt",
        "perftest",
        "perftest.no_rows",
        5,
    ),
    # The rdma_cm server waiting for its client (RDMA_Write BW Test on line 6): no row.
    (
        "perftest/tensorflow-issue22077-ib_write_bw-R-report-gbits-server-waiting-rdma-cm-roce-v1-mtu1024-cut-after-gids.txt",
        "perftest",
        "perftest.no_rows",
        6,
    ),
    # The bidirectional test's header (line 9), cut inside "Mtu": no row.
    (
        "perftest/ngc-multinode-perf-issue108-info-lines-bidir-2qp-peak-not-measured-header-cut-in-mtu.txt",
        "perftest",
        "perftest.no_rows",
        9,
    ),
    # fio started 3 processes, then the guest kernel's I/O errors; fio reported nothing.
    (
        "fio/fio-issue862-fio312-buffered-rw-write-3-jobs-guest-kernel-io-errors-interleaved-no-report-cut.txt",
        "fio",
        "fio.nothing",
        None,
    ),
    # Matrix rows without their header line: the columns cannot be named.
    (
        "nvidia_smi_topo/vllm-issue16336-b200-rows-without-header-gpu2-no-nvlink-node-to-all-cut-in-gpu6.txt",
        "nvidia_smi_topo",
        "topo.nothing",
        None,
    ),
    # DCGM's metadata only, cut inside "GPU Device IDs Detected": no test ran as far as it says.
    (
        "dcgm_diag/dcgm-issue282-4.4.1-r1-7x-3182-driver580-cut-in-device-ids.txt",
        "dcgm_diag",
        "dcgm.nothing",
        None,
    ),
]


test_real_outputs_without_figures_are_refused = refused_test(REFUSED)


def test_the_row_cut_after_its_out_of_place_half_is_left_out_not_read_as_in_place(
    sample: Sample,
) -> None:
    # "4096  128  float  none  -1  11.13  0.37  0.32  0" ends the file: its numbers are the
    # out-of-place group's. They were read as the in-place group's and made the 0.32 peak.
    result = nccl.parse(
        sample(
            "nccl_tests/deepep-issue303-units-line-redop-none-five-size-0-rows-cut-in-4096-in-place.txt"
        )
    )
    assert 4096 not in [point["size_bytes"] for point in result.metrics["curve"]]
    assert "line 12: unreadable or incomplete result row skipped (the output seems truncated)" in (
        result.warnings
    )


_HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
)


@pytest.mark.parametrize(
    ("tail", "sizes"),
    [
        # The short row is the last line: a cut paste.
        ("", [1024]),
        # A line follows it: the row was printed so (blank cells), and is kept as before.
        ("# Avg bus bandwidth    : 0.5\n", [1024, 2048]),
    ],
)
def test_a_short_last_row_is_dropped_only_at_the_end(tail: str, sizes: list[int]) -> None:
    text = (
        _HEADER + "        1024           256     float     sum      -1    9.09    0.11    0.11"
        "      0     8.82    0.12    0.12      0\n"
        "        2048           512     float     sum      -1    9.10    0.23    0.23      0\n"
        + tail
    )
    metrics = nccl.parse(text).metrics
    assert [point["size_bytes"] for point in metrics["curve"]] == sizes


def test_an_xid_with_a_redacted_address_is_counted_and_its_gpu_unknown(sample: Sample) -> None:
    result = kernel_log.parse(
        sample(
            "kernel_log/nccl-issue2241-journal-k-xid145-xid137-pci-address-redacted-gb100-vf-line.txt"
        )
    )
    assert [(e["code"], e["pci"]) for e in result.metrics["events"]] == [(145, None), (137, None)]
    assert any("without a readable GPU address" in w for w in result.warnings)
    assert "no Xid or SXid line in this log" not in result.warnings


def test_a_redacted_xid_154_names_no_recovery_action() -> None:
    text = (
        "NVRM: Xid (PCI:0000:xx:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 "
        "(Node Reboot Required)\n"
    )
    metrics = kernel_log.parse(text).metrics
    assert (metrics["xid_codes"], metrics["xid_gpus"], metrics["gpu_recovery_actions"]) == (
        [154],
        [],
        {},
    )


def test_fio_started_with_threads_and_indented_by_its_paste_is_read() -> None:
    lines = [
        "t: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B, "
        "ioengine=psync, iodepth=1",
        "fio-3.35",
        "Starting 2 threads",
        "",
        "t: (groupid=0, jobs=2): err= 0: pid=7: Mon Jan  1 00:00:00 2024",
        "  read: IOPS=1000, BW=4000KiB/s (4096kB/s)(40.0MiB/10000msec)",
    ]
    text = "\n".join("    " + line if line else "" for line in lines) + "\n"
    assert fio.detect(text) > 0
    metrics = fio.parse(text).metrics
    assert (metrics["read_iops"], metrics["read_bw_mbyte_s"]) == (1000.0, 4.096)


def test_topo_header_names_fused_into_one_token_are_split() -> None:
    text = (
        "        GPU0    GPU1    mlx5_0  mlx5_1mlx5_2  CPU Affinity\n"
        "GPU0     X      NV4     PIX     SYS  SYS     0-7\n"
        "GPU1    NV4      X      SYS     PIX  SYS     0-7\n"
    )
    metrics = topo.parse(text).metrics
    assert (metrics["gpu_count"], metrics["nic_count"]) == (2, 3)
    assert metrics["gpu_nic_affinity"]["GPU1"] == {"link": "PIX", "nics": ["mlx5_1"]}
