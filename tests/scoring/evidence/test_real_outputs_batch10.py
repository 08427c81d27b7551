"""Key figures of the real outputs added in the tenth corpus batch, read by hand from each file.

The shapes: superbench's test logs of an 8x A100-SXM4-40GB VM (all_gather and broadcast of 2020-era
nccl-tests: no redop or no root column, an "error" column of N/A under validation 0, an NCCL INFO
line inside the table), its ib_write_bw loopback holding both sides' reports and its nvbandwidth
v0.6 log of a GH200 (bare "Waived:" lines, a latency matrix in ns); nccl-tests result rows with no
header (the tail of an odd-size sweep, and pre-2020 rows with no root column and deviations in
their error column), a 2019 table cut inside an error cell, a run of two processes built without
MPI cut before its rows, and MSCCL++'s mscclpp-test table that copies nccl-tests'; topo -m of an
8x H100 node with six NICs cut inside GPU7's row, of a 4x L40S host behind a mail gateway and of
an 8-GPU 2018 host (tabs, a NIC named mlx5_0); ibv_devinfo of a ConnectX-6 Dx then a ConnectX-7
cut before its port; ib_write_bw indented as a markdown code block and cut before its table;
--query-gpu CSV of clocks only (B200) and a csv,noheader row (H100 NVL); fio 3.37 randrw with
fsync and 128 files, fio 3.37 kept quoted-printable by a mail archive and a fio 3.27 terse line
of a gtod_reduce run; dcgmi diag -r 3 -v of DCGM 3.3.9 with wrapped Info rows; five nvidia-smi
snapshots of one V100 from watch; four Xid 32 lines with the author's notes after them;
nvbandwidth -l (a test list, no result); an H20-3e alltoall log of a device list and NCCL INFO
lines cut before its table; the head of a journalctl -k whose early-boot systemd lines outnumber
its kernel lines.
"""

from __future__ import annotations

import pytest

from scoring.evidence import PARSERS, fio, kernel_log, nccl, registry, topo
from scoring.evidence.base import decode_quoted_printable
from tests.scoring.evidence.real_outputs import Figures, Refusal, Sample, figures_test, refused_test

SUPERBENCH_ALL_GATHER = (
    "nccl_tests/superbench-a100-sxm4-40gb-8gpu-all-gather-g8-validation0-error-na-nccl-info-line-"
    "in-table.txt"
)
OLD_ROWS = (
    "nccl_tests/nccl-issue527-ec2-nccl299-old-format-no-root-column-error-2e-07-rows-without-"
    "header-cut.txt"
)
MSCCLPP = (
    "nccl_tests/mscclpp-pr117-mscclpp-test-reduce-scatter-1n8p-in-place-first-no-type-redop-"
    "root.txt"
)
TOPO_CUT = (
    "nvidia_smi_topo/nccl-issue1357-8x-h100-nv18-6nic-gpu-numa-id-two-nodes-4-nics-cut-in-gpu7.txt"
)
FIO_QP = "fio/fio337-ppc-g5-mail-quoted-printable-3d-soft-breaks-read-16m-qemu.txt"
CSV_NOHEADER = (
    "nvidia_smi_query/akash-provider-configs-pr91-query-gpu-name-device-id-csv-noheader-"
    "h100-nvl.txt"
)
CSV_CLOCKS = (
    "nvidia_smi_query/pytorch-ao-pr4002-query-gpu-clocks-mem-max-mem-csv-b200-no-name-column.txt"
)
XID_NOTES = (
    "kernel_log/dmesg-grep-xid-four-xid32-hce-physical-launch-dma-no-timestamps-author-hash-"
    "notes.txt"
)

TERSE_GTOD = (
    "fio/fio-issue1555-fio327-terse-v3-randrw-75-gtod-reduce-command-echoed-second-run-cut.txt"
)
JOURNAL_HEAD = (
    "kernel_log/gpud-pr1209-journalctl-k-grep-c20-fallen-head-mlx5-systemd-lines-cut-before-"
    "nvrm.txt"
)
DEVICE_LIST_ONLY = (
    "nccl_tests/nccl-tests-issue321-h20-3e-2x2-vm-alltoall-rank-lines-then-nccl-info-cut-before-"
    "table.txt"
)

EXPECTED: list[Figures] = [
    (
        # 34 rows 0 B .. 8 GiB; the last "230.07" in-place busbw is the peak; "Avg bus bandwidth
        # : 58.2651"; busbw/algbw 0.875 (223.39 / 255.31) = 7/8: all_gather or alltoall on 8
        # ranks; every error cell N/A (validation 0): 68 unchecked, nothing counted wrong.
        SUPERBENCH_ALL_GATHER,
        "nccl_tests",
        {
            "collective": None,
            "collective_candidates": ["all_gather", "alltoall"],
            "ranks": 8,
            "ranks_inferred": 8,
            "gpus_per_process": 8,
            "row_count": 34,
            "peak_busbw_gbyte_s": 230.07,
            "peak_size_bytes": 8589934592,
            "avg_busbw_gbyte_s": 58.2651,
            "min_size_bytes": 0,
            "wrong_total": None,
            "wrong_unchecked": 68,
            "out_of_bounds_ok": True,
            "gpu_names": ["A100-SXM4-40GB"],
            # "[0x00]" for each of the eight GPUs: bus 00, where a hypervisor puts them.
            "root_bus_ranks": 8,
        },
    ),
    (
        # Root column "0", no redop; busbw = algbw; peak "234.70" in-place at 8 GiB, "Avg bus
        # bandwidth : 64.8653".
        "nccl_tests/superbench-a100-sxm4-40gb-8gpu-broadcast-g8-root-column-no-redop-validation0-"
        "nccl-info-line.txt",
        "nccl_tests",
        {
            "collective": "broadcast",
            "collective_inferred": True,
            "ranks": 8,
            "row_count": 34,
            "peak_busbw_gbyte_s": 234.7,
            "avg_busbw_gbyte_s": 64.8653,
            "wrong_unchecked": 68,
            "out_of_bounds_ok": True,
        },
    ),
    (
        # Six rows 127926280 .. 133169160 B; "96.69" in-place at 132120584 B is the largest;
        # busbw/algbw 1.917 is all_reduce's; "Avg bus bandwidth : 84.8558", "0 OK".
        "nccl_tests/nccl-tests-issue119-tail-rows-without-header-odd-sizes-avg-busbw-84.86.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "collective_inferred": True,
            "row_count": 6,
            "peak_busbw_gbyte_s": 96.69,
            "peak_size_bytes": 132120584,
            "avg_busbw_gbyte_s": 84.8558,
            "wrong_total": 0,
            "out_of_bounds_ok": True,
            "min_size_bytes": 127926280,
            "max_size_bytes": 133169160,
        },
    ),
    (
        # Twelve whole rows 64 .. 131072 B (the thirteenth cut at "413.8    0"); busbw "0.62"
        # out-of-place at 131072 B; error cells 2e-07 .. 7e-07 are deviations, not wrong counts.
        OLD_ROWS,
        "nccl_tests",
        {
            "collective": "all_reduce",
            "row_count": 12,
            "peak_busbw_gbyte_s": 0.62,
            "peak_size_bytes": 131072,
            "max_size_bytes": 131072,
            "max_error": 7e-07,
            "wrong_total": None,
            "wrong_line": None,
        },
    ),
    (
        # Three rows of one group each (6291456 .. 25165824 B), busbw 144.46, 159.12, 162.23;
        # busbw/algbw 1.75 = 2(n-1)/n with n = 8; "Out of bounds values : 0 OK".
        MSCCLPP,
        "nccl_tests",
        {
            "row_count": 3,
            "peak_busbw_gbyte_s": 162.23,
            "peak_size_bytes": 25165824,
            "ranks_inferred": 8,
            "wrong_total": 0,
            "out_of_bounds_ok": True,
        },
    ),
    (
        # Four "Tesla V100-SXM3-32GB" ranks on buses 1a, 1b, 1c, 1e; five rows 8 .. 128 B, all
        # busbw 0.00; the largest deviation "1e-07"; the fifth row's last cell cut at "3e".
        "nccl_tests/nccl-issue258-v100-sxm3-g4-old-format-error-column-1e-07-0e+00-cut-in-fifth-"
        "row.txt",
        "nccl_tests",
        {
            "ranks": 4,
            "devices_listed": 4,
            "gpu_names": ["Tesla V100-SXM3-32GB"],
            "root_bus_ranks": 0,
            "row_count": 5,
            "max_size_bytes": 128,
            "peak_busbw_gbyte_s": 0.0,
            "max_error": 1e-07,
            "wrong_line": None,
        },
    ),
    (
        # NV18 in every GPU pair shown (GPU7's row cut after four cells): 28 pairs, 18 links;
        # six NICs; PIX for GPU0/2/4/6 to NIC0..NIC3; NUMA 0 and 1.
        TOPO_CUT,
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 6,
            "nvlink_pairs": 28,
            "full_nvlink_mesh": True,
            "nvlink_min_links": 18,
            "gpus_with_local_nic": 4,
            "numa_nodes": ["0", "1"],
        },
    ),
    (
        # mlx5_12: vendor_part_id 4125, fw 22.38.1900, PORT_DOWN, Ethernet; mlx5_13 (4129) is
        # cut after "phys_port_cnt: 1": two devices, one port shown.
        "ibstat/deepep-issue60-ibv-devinfo-cx6dx-4125-port-down-ethernet-then-cx7-4129-cut-before-"
        "port.txt",
        "ibstat",
        {
            "format": "ibv_devinfo",
            "ca_count": 2,
            "port_count": 1,
            "active_port_count": 0,
            "down_port_count": 1,
            "ca_types": ["MT4125"],
            "firmware_versions": ["22.38.1900"],
            "link_layers": ["Ethernet"],
            "max_active_rate_gbit_s": None,
        },
    ),
    (
        # One 8 MiB row per report: "24056.72" MB/sec average, "24056.74" peak, 0.003007 Mpps;
        # perftest's MB is 2^20 bytes: 24056.72 x 8 x 1.048576 / 1000 = 201.80 Gb/s.
        "perftest/superbench-ib-loopback-ib_write_bw-8m-mbps-server-and-client-reports-first-rule-"
        "cut.txt",
        "perftest",
        {
            "test": "ib_write_bw",
            "report_unit": "MB/sec",
            "device": "ib0",
            "link_type": "IB",
            "bidirectional": False,
            "bw_avg_gbit_s": 201.802394,
            "bw_peak_gbit_s": 201.802562,
            "max_size_bytes": 8388608,
            "msg_rate_mpps": 0.003007,
        },
    ),
    (
        # One "NVIDIA GH200 480GB"; "Waived:" 17 times; host_to_device_memcpy_ce's six cells
        # sum to 1985.60 (mean 330.933), device_to_host's two to 607.26 (mean 303.63); no
        # device-to-device test.
        "nvbandwidth/superbench-v0.6-gh200-waived-lines-host-device-latency-ns-matrix.txt",
        "nvbandwidth",
        {
            "nvbandwidth_version": "v0.6",
            "driver_version": "550.54.15",
            "device_count": 1,
            "device_names": ["NVIDIA GH200 480GB"],
            "waived": 17,
            "errors": [],
            "h2d_gbyte_s": 330.933,
            "d2h_gbyte_s": 303.63,
            "d2d_min_gbyte_s": None,
        },
    ),
    (
        # "read: IOPS=3703, BW=57.9MiB/s (60.7MB/s)", "write: IOPS=2465, BW=38.5MiB/s
        # (40.4MB/s)"; clat avg 221.09 us and 10700.20 ns.
        "fio/fio337-randrw-sync-128-files-fsync-100-normal-xfs-prompt.txt",
        "fio",
        {
            "format": "normal",
            "fio_version": "fio-3.37",
            "read_bw_mbyte_s": 60.7,
            "read_iops": 3703.0,
            "read_clat_mean_us": 221.09,
            "write_bw_mbyte_s": 40.4,
            "write_iops": 2465.0,
            "write_clat_mean_us": 10.7,
            "job_count": 1,
            "jobnames": ["random-read-write"],
            "rw": ["randrw"],
            "disks": ["sda"],
        },
    ),
    (
        # "read: IOPS=3D6, BW=3D195MiB/s (204MB/s)", clat avg 413.35 msec.
        FIO_QP,
        "fio",
        {
            "format": "normal",
            "fio_version": "fio-3.37",
            "read_bw_mbyte_s": 204.0,
            "read_iops": 6.0,
            "read_clat_mean_us": 413350.0,
            "write_bw_mbyte_s": None,
            "jobnames": ["test"],
            "disks": ["sda"],
        },
    ),
    (
        # DCGM 3.3.9, driver 560.35.03, device 1db4; every row Pass but "EUD Test | Skip - All".
        "dcgm_diag/dcgm3.3.9-r3-v-v100-pcie-1db4-info-rows-wrapped-prompt-after.txt",
        "dcgm_diag",
        {
            "overall": "pass",
            "level": 3,
            "dcgm_version": "3.3.9",
            "driver_version": "560.35.03",
            "gpu_device_ids": ["1db4"],
            "failed_tests": [],
            "failed_gpus": [],
            "skipped_tests": ["EUD Test"],
        },
    ),
    (
        # Five snapshots of GPU 0 "Tesla V100-PCIE-16GB" at 00000000:60:00.0: one GPU, read
        # from the first ("239W /  250W", "14546MiB /  16384MiB").
        "nvidia_smi/watch-nvidia-smi-5-snapshots-v100-pcie-driver560-during-dcgm-diag-last-cut-"
        "in-processes.txt",
        "nvidia_smi",
        {
            "driver_version": "560.35.03",
            "cuda_version": "12.6",
            "gpu_count": 1,
            "gpu_names": ["Tesla V100-PCIE-16GB"],
            "bus_ids": ["00000000:60:00.0"],
            "memory_total_mib": [16384],
            "memory_used_mib": [14546],
            "power_cap_w": [250.0],
            "vgpu": False,
        },
    ),
    (
        # Four "Xid (PCI:0000:01:00): 32" lines.
        XID_NOTES,
        "kernel_log",
        {
            "xid_count": 4,
            "xid_codes": [32],
            "xid_by_code": {"32": 4},
            "xid_gpus": ["0000:01:00"],
            "gpu_fallen_off_bus": False,
            "line_count": 4,
            "nvidia_driver_lines": 4,
        },
    ),
    (
        # Four GPUs, no NV cell: GPU0-GPU1 and GPU2-GPU3 NODE, four SYS pairs; NIC0/NIC1 named
        # mlx5_0/mlx5_1 by the legend; no NIC is PIX or PXB to a GPU.
        "nvidia_smi_topo/warpem-issue106-4x-l40s-no-nvlink-2-nic-legend-masked-prompt-mail-reply-"
        "tail.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 4,
            "nic_count": 2,
            "nvlink_pairs": 0,
            "full_nvlink_mesh": False,
            "gpu_pair_links": {"NODE": 2, "SYS": 4},
            "nic_names": ["mlx5_0", "mlx5_1"],
            "numa_nodes": ["0", "1"],
            "gpus_with_local_nic": 0,
        },
    ),
    (
        # Eight GPUs: PIX 0-1, 2-3, 4-5, 6-7; PXB within each half (8 pairs); SYS across (16);
        # the one NIC column "mlx5_0" is PHB to GPU4..GPU7; no NUMA column.
        "nvidia_smi_topo/quda-issue669-8-gpu-pix-pxb-mlx5_0-column-tabs-2018-cut-in-legend.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 1,
            "nvlink_pairs": 0,
            "gpu_pair_links": {"PIX": 4, "PXB": 8, "SYS": 16},
            "nic_names": ["mlx5_0"],
            "numa_nodes": [],
        },
    ),
    (
        # "118356" KiB/s read (121.197 MB/s) at 29589 IOPS, "39181" KiB/s write (40.121 MB/s) at
        # 9795 IOPS; the latency fields are all 0 under --gtod_reduce=1: not measured; disk sda.
        TERSE_GTOD,
        "fio",
        {
            "format": "terse",
            "fio_version": "fio-3.27",
            "read_bw_mbyte_s": 121.197,
            "read_iops": 29589.0,
            "read_clat_mean_us": None,
            "write_bw_mbyte_s": 40.121,
            "write_iops": 9795.0,
            "write_clat_mean_us": None,
            "jobnames": ["test"],
            "disks": ["sda"],
        },
    ),
    (
        # Five "kernel:" lines (mlx5_core, workqueue, EXT4, bridge) among five "systemd[1]:" lines
        # of early boot; no NVRM line: nothing is said of the GPUs.
        JOURNAL_HEAD,
        "kernel_log",
        {
            "format": "journal",
            "xid_count": 0,
            "gpu_fallen_off_bus": False,
            "kernel_lines": 5,
            "line_count": 11,
            "nvidia_driver_lines": 0,
        },
    ),
    (
        # One row "3996 MHz, 3996 MHz": a GPU, and no figure the parser reads.
        CSV_CLOCKS,
        "nvidia_smi_query",
        {"format": "csv", "gpu_count": 1, "product_names": [None], "memory_total_mib": [None]},
    ),
    (
        # "NVIDIA H100 NVL, 0x232110DE": one GPU, named.
        CSV_NOHEADER,
        "nvidia_smi_query",
        {"format": "csv", "gpu_count": 1, "product_names": ["NVIDIA H100 NVL"]},
    ),
]


test_real_output_figures = figures_test(EXPECTED)


REFUSED: list[Refusal] = [
    # Both processes' headers, no row: the first header's line.
    (
        "nccl_tests/nccl-tests-issue107-two-processes-without-mpi-each-rank-0-headers-twice-cut-"
        "before-rows.txt",
        "nccl_tests",
        "nccl.no_rows",
        12,
    ),
    # The test header and both addresses, cut inside the rule above the table.
    (
        "perftest/perftest-pr214-ib_write_bw-report-min-bw-four-space-indented-gid-lines-cut-"
        "before-table.txt",
        "perftest",
        "perftest.no_rows",
        2,
    ),
    # nccl-tests' device list and NCCL INFO lines, no table: it was "not a supported tool".
    (DEVICE_LIST_ONLY, "nccl_tests", "nccl.nothing", None),
    # nvbandwidth -l lists the tests and runs none.
    (
        "nvbandwidth/superbench-pr675-nvbandwidth-v0.6-l-testcase-list-no-results-cut.txt",
        "nvbandwidth",
        "nvbandwidth.empty",
        None,
    ),
]


test_real_outputs_without_figures_are_refused = refused_test(REFUSED)


def test_headerless_rows_of_a_pre_2020_table_are_recognised(sample: Sample) -> None:
    # "64  16  float  sum  163.7  0.00 ..." has no root column: the row shape wanted a root
    # ("-1") before the time, so a tail of such rows was no evidence kind at all.
    assert nccl.detect(sample(OLD_ROWS)) >= 40


def test_a_deviation_column_is_not_read_as_wrong_results(sample: Sample) -> None:
    # Without a header the last cell of each group was named "#wrong": "2e-07" counted as wrong
    # results and flagged line 1 as corrupt. It is the old "error" column: the largest deviation.
    result = nccl.parse(sample(OLD_ROWS))
    assert result.metrics["wrong_line"] is None
    assert result.metrics["max_error"] == 7e-07
    assert "line 1: nccl-tests reported wrong results (out-of-bounds values)" not in result.warnings


def test_a_headerless_table_of_wrong_counts_still_counts_them() -> None:
    rows = "\n".join(
        f"{size:>12} {size // 4:>13}     float     sum      -1    10.00    1.00    1.75      "
        f"{wrong}    10.00    1.00    1.75      0"
        for size, wrong in ((1024, 0), (2048, 3), (4096, 0))
    )
    metrics = nccl.parse(rows).metrics
    assert (metrics["wrong_total"], metrics["wrong_line"], metrics["max_error"]) == (3, 2, None)


def test_mscclpp_test_output_is_named(sample: Sample) -> None:
    assert nccl.parse(sample(MSCCLPP)).warnings[0] == (
        "line 1: MSCCL++'s mscclpp-test printed this, not nccl-tests: its bus bandwidth is "
        "MSCCL++'s, not NCCL's"
    )


def test_a_topology_row_cut_inside_a_cell_drops_that_cell(sample: Sample) -> None:
    # GPU7's row ends at "NV" (of NV18): read as a code it was "unknown connection code(s): NV"
    # and made GPU4-GPU7 look asymmetric.
    result = topo.parse(sample(TOPO_CUT))
    assert result.warnings[0] == "line 11: row GPU7 has 4 of 14 cells (truncated line?)"
    assert not any("unknown connection code" in w for w in result.warnings)
    assert not any("not symmetric" in w for w in result.warnings)


def test_a_quoted_printable_fio_report_is_decoded(sample: Sample) -> None:
    # Every "=" was "=3D" and long lines ended in a soft break: the job lines did not match and
    # the file was refused as "no read/write results".
    result = fio.parse(sample(FIO_QP))
    assert result.warnings == (
        "the output was quoted-printable (a mail body: '=3D' for '='): decoded; line numbers "
        "are those of the decoded text",
    )


@pytest.mark.parametrize(
    "text",
    [
        "READ: bw=57.9MiB/s (60.7MB/s), io=579MiB\n" * 3,  # bare "=": not quoted-printable
        "a=3D1\nb=3D2\n",  # two escapes only
        "x=3D1 y=3D2 z=3D3 w=1\n",  # one bare "=" among escapes
    ],
)
def test_plain_text_is_not_taken_for_quoted_printable(text: str) -> None:
    assert decode_quoted_printable(text) is None


def test_a_csv_noheader_row_naming_a_gpu_is_recognised(sample: Sample) -> None:
    result = PARSERS["nvidia_smi_query"].parse(sample(CSV_NOHEADER))
    assert result.warnings == (
        "no CSV header and no --query-gpu command: columns unknown; only GPU count and "
        "recognisable product names are read",
    )


@pytest.mark.parametrize(
    "text",
    [
        "hello, world\n",
        "NVIDIA, Tesla\nnot a row\n",
        "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n",
    ],
)
def test_other_comma_text_is_not_a_csv_noheader_listing(text: str) -> None:
    assert registry.detect_kind(text) != "nvidia_smi_query"


def test_a_query_of_fields_the_parser_does_not_read_says_so(sample: Sample) -> None:
    result = PARSERS["nvidia_smi_query"].parse(sample(CSV_CLOCKS))
    assert result.warnings == (
        "none of the queried fields (clocks.current.memory, clocks.max.memory) is one read here: "
        "only the GPU count is known",
    )


def test_an_authors_note_after_an_xid_is_not_the_drivers_text(sample: Sample) -> None:
    events = kernel_log.parse(sample(XID_NOTES)).metrics["events"]
    assert [e["detail"].endswith("HCE_DBG1 0000118e") for e in events] == [True] * 4


def test_a_device_list_alone_is_recognised_as_nccl_tests(sample: Sample) -> None:
    # Four "Rank N Group 0 Pid ... on vm-host40 device N [0x33]" lines then NCCL INFO: no
    # header, no row, and the last line is no device entry: nothing scored it before.
    assert nccl.detect(sample(DEVICE_LIST_ONLY)) >= 40


def test_latencies_fio_did_not_time_are_unknown_not_zero(sample: Sample) -> None:
    # --gtod_reduce=1 leaves every clat field 0: the mean was read as a 0 us latency.
    metrics = fio.parse(sample(TERSE_GTOD)).metrics
    assert (metrics["read_clat_mean_us"], metrics["write_clat_mean_us"]) == (None, None)


def test_a_terse_line_names_its_disks(sample: Sample) -> None:
    # The disk block after the job's fields ("sda;14914;4958;...;83.03%") was not read.
    assert fio.parse(sample(TERSE_GTOD)).metrics["disks"] == ["sda"]


def test_early_boot_lines_of_journalctl_k_count_as_the_kernel_log(sample: Sample) -> None:
    # Half the lines are "host systemd[1]: ..." (kept in the kernel log before journald starts):
    # only the "kernel:" ones counted, too few for a kernel log, and the file was no kind at all.
    assert registry.detect_kind(sample(JOURNAL_HEAD)) == "kernel_log"


def test_a_syslog_without_kernel_lines_is_not_a_kernel_log() -> None:
    text = "".join(
        f"Feb 14 05:03:4{i} host systemd[1]: Started unit {i}.service - Unit {i}.\n"
        for i in range(6)
    )
    assert kernel_log.detect(text) == 0
