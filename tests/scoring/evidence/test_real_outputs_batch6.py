"""Key figures of the real outputs added in the sixth corpus batch, read by hand from each file.

The shapes: nccl-tests runs that printed no row (a pre-2.11 banner then "Test NCCL failure", a
multi-host log of failure lines alone, NCCL WARN lines after a banner whose '#' were lost),
rows of two reduction operators, a one-rank alltoall; perftest's ``--out_json`` report; fio
runs that failed with I/O errors; an old driver's "GPU at ... has fallen off the bus" without
an Xid; the middle of a DCGM 3.3 table; lscpu and /proc/cpuinfo cut by their excerpt; an
ibstat port stuck in Polling.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scoring.evidence import PARSERS, nvbandwidth, registry
from scoring.evidence.base import EvidenceParseError
from tests.scoring.evidence.conftest import SAMPLES

Sample = Callable[[str], str]

EXPECTED: list[tuple[str, str, dict[str, Any]]] = [
    (
        # "max" rows 199680..204800 B then "min" rows from 196608 B; busbw/algbw = 2.98/1.59 =
        # 1.875 = 2*(16-1)/16; the largest busbw is the 204800 B in-place 3.08.
        "nccl_tests/nccl-tests-issue167-rows-only-redop-max-then-min-cut.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "collective_inferred": True,
            "ranks_inferred": 16,
            "row_count": 11,
            "peak_busbw_gbyte_s": 3.08,
            "max_size_bytes": 204800,
            "min_size_bytes": 196608,
            "avg_busbw_gbyte_s": None,
            "wrong_total": 0,
        },
    ),
    (
        # The table's rows have no redop column, a per-rank count and busbw = algbw (all_gather
        # of 2 ranks); the "./broadcast_perf" after its summary starts the next run and does
        # not name this one.
        "nccl_tests/nccl-issue340-2x2080ti-oldformat-allgather-tail-then-broadcast-banner.txt",
        "nccl_tests",
        {
            "collective": None,
            "collective_candidates": ["all_gather", "alltoall"],
            "ranks_inferred": 2,
            "row_count": 12,
            "peak_busbw_gbyte_s": 21.86,
            "avg_busbw_gbyte_s": 6.6972,
            "out_of_bounds_ok": True,
        },
    ),
    (
        # One GPU: "33554432 8388608 float none -1 19.56 1715.44 0.00 0 0.78 43046.10 0.00 N/A".
        "nccl_tests/nccl-tests-issue287-rtx5090-1rank-alltoall-inplace-NA-sudo-prompt.txt",
        "nccl_tests",
        {
            "collective": "alltoall",
            "ranks": 1,
            "row_count": 1,
            "peak_busbw_gbyte_s": 0.0,
            "avg_busbw_gbyte_s": 0.0,
            "out_of_bounds_ok": True,
            "wrong_unchecked": 1,
            "gpu_names": ["NVIDIA GeForce RTX 5090"],
            "hosts": ["GENOA-01"],
        },
    ),
    (
        # Every line behind "> "; "134217728 ... 7380.5  18.19  27.28  0" is the peak.
        "nccl_tests/nccl-tests-issue287-md-quoted-reply-4x-rtx5090-allreduce-g4.txt",
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks": 4,
            "row_count": 25,
            "peak_busbw_gbyte_s": 27.28,
            "avg_busbw_gbyte_s": 9.09703,
            "max_size_bytes": 134217728,
            "out_of_bounds_ok": True,
            "gpus_per_process": 4,
        },
    ),
    (
        # "MsgSize: 128, n_iterations: 5000, t_min: 2.37, t_max: 5.39, t_typical: 2.42, t_avg:
        # 2.42, t_stdev: 0.05, percentile_99: 2.47, percentile_99.9: 4.03".
        "perftest/perftest-issue216-out-json-write-lat-rxe-unquoted-keys-jq-error.txt",
        "perftest",
        {
            "test_type": "latency",
            "test": "ib_write_lat",
            "device": "rxe0",
            "link_type": "Ethernet",
            "mtu_bytes": 1024,
            "gid_index": 1,
            "rdma_cm": False,
            "bw_avg_gbit_s": None,
            "lat_size_bytes": 128,
            "lat_min_us": 2.37,
            "lat_max_us": 5.39,
            "lat_typical_us": 2.42,
            "lat_avg_us": 2.42,
            "lat_stdev_us": 0.05,
            "lat_p99_us": 2.47,
            "lat_p999_us": 4.03,
        },
    ),
    (
        # Every line behind "> "; "8  5000  0.17  0.17  2.641399" is the best row, the cut
        # "16  5000  0.34" is left out.
        "perftest/perftest-issue132-md-quoted-ib_write_bw-a-report-gbits-6-decimals-cut-row.txt",
        "perftest",
        {
            "test": "ib_write_bw",
            "value_unit": "Gb/sec",
            "bw_avg_gbit_s": 0.17,
            "bw_peak_gbit_s": 0.17,
            "max_size_bytes": 8,
            "sweep": [
                {
                    "size_bytes": 2,
                    "iterations": 5000,
                    "bw_peak_gbit_s": 0.04235,
                    "bw_avg_gbit_s": 0.042185,
                    "msg_rate_mpps": 2.636533,
                },
                {
                    "size_bytes": 4,
                    "iterations": 5000,
                    "bw_peak_gbit_s": 0.084507,
                    "bw_avg_gbit_s": 0.084457,
                    "msg_rate_mpps": 2.639276,
                },
                {
                    "size_bytes": 8,
                    "iterations": 5000,
                    "bw_peak_gbit_s": 0.17,
                    "bw_avg_gbit_s": 0.17,
                    "msg_rate_mpps": 2.641399,
                },
            ],
        },
    ),
    (
        # "65536  403504  0.00  42.31  0.080701", then a row cut after its peak.
        "perftest/perftest-pr342-25x-banner-lock-free-ddp-rdma-cm-repeated-65536-cut-row.txt",
        "perftest",
        {
            "test": "ib_write_bw",
            "link_type": "Ethernet",
            "rdma_cm": True,
            "gid_index": 0,
            "bw_avg_gbit_s": 42.31,
            "bw_peak_gbit_s": None,
            "msg_rate_mpps": 0.080701,
        },
    ),
    (
        "kernel_log/md-sxid-notes-blockquoted-dmesg-xid79-sxid20034-nvswitch-links.txt",
        "kernel_log",
        {
            "xid_count": 1,
            "xid_codes": [79],
            "xid_gpus": ["0000:91:00"],
            "sxid_count": 8,
            "sxid_codes": [20034],
            "sxid_fatal_count": 4,
            "gpu_fallen_off_bus": True,
        },
    ),
    (
        "kernel_log/blog-940mx-dmesg-grep-indented-no-timestamps-xid79-pid-unknown.txt",
        "kernel_log",
        {
            "xid_count": 1,
            "xid_codes": [79],
            "xid_gpus": ["0000:01:00"],
            "sxid_count": 0,
            "gpu_fallen_off_bus": True,
        },
    ),
    (
        # Bare kmsg lines of NVLink Xids on PCI domains 0018/0019 and on bus 00 of domain 0.
        "kernel_log/gpud-pr1174-kmsg-xid149-145-nvlink-netir-rlw-domains-0018-0019-xid94.txt",
        "kernel_log",
        {
            "xid_count": 4,
            "xid_codes": [94, 145, 149],
            "xid_by_code": {"94": 1, "145": 1, "149": 2},
            "xid_gpus": ["0019:01:00", "0000:00:00", "0018:01:00", "0000:9b:00"],
            "gpu_fallen_off_bus": False,
        },
    ),
    (
        "kernel_log/bumblebee-issue554-dmesg-gpu-at-fallen-off-bus-no-xid.txt",
        "kernel_log",
        {"xid_count": 0, "xid_codes": [], "gpu_fallen_off_bus": True},
    ),
    (
        # "| GPU Memory | Pass - GPU: 1 |" then "| | Fail - GPU: 0 |".
        "dcgm_diag/go-dcgm-issue52-dcgm3.3.1-mid-table-gpu-memory-fail-gpu0-pass-gpu1.txt",
        "dcgm_diag",
        {"overall": "fail", "failed_tests": ["GPU Memory"], "failed_gpus": [0]},
    ),
    (
        "cpu_info/xcat-issue4182-proc-cpuinfo-qemu-virtual-cpu-cut-in-cpu1.txt",
        "cpu_info",
        {
            "format": "proc_cpuinfo",
            "logical_cpus": 2,
            "hypervisor": True,
            "model_name": "QEMU Virtual CPU version 1.5.3",
        },
    ),
    (
        "cpu_info/opennfs-pr17-azure-ci-vm-lscpu-hypervisor-microsoft-flags-cut.txt",
        "cpu_info",
        {
            "logical_cpus": 2,
            "hypervisor": True,
            "hypervisor_vendor": "Microsoft",
            "virtualization_type": "full",
        },
    ),
    (
        "cpu_info/core-to-core-issue128-lscpu-2x-xeon6326-new-layout-flags-cut.txt",
        "cpu_info",
        {
            "logical_cpus": 64,
            "sockets": 2,
            "cores_per_socket": 16,
            "threads_per_core": 2,
            "hypervisor": False,
        },
    ),
    (
        # No "Hypervisor" line and no Flags (cut before them): the verdict stays open.
        "cpu_info/cloud-hypervisor-issue1769-lscpu-i5-6260u-host-vulnerability-lines-cut.txt",
        "cpu_info",
        {"logical_cpus": 4, "hypervisor": None, "cpu_virtualization": "VT-x"},
    ),
    (
        # ibstatus after a topo legend; the third port is cut before its state: unknown, not
        # down and not active.
        "ibstat/nccl-issue1866-topo-legend-then-ibstatus-roce-100-4x-edr-cut-in-third.txt",
        "ibstat",
        {
            "format": "ibstatus",
            "port_count": 3,
            "active_port_count": 2,
            "down_port_count": 0,
            "link_layers": ["Ethernet"],
            "max_active_rate_gbit_s": 100.0,
        },
    ),
    (
        "ibstat/pplx-garden-issue2-ibstat-mlx5-bond-mt41692-roce-200-cut-in-third-ca.txt",
        "ibstat",
        {
            "ca_count": 3,
            "port_count": 2,
            "active_port_count": 2,
            "ca_types": ["MT41692"],
            "active_rates_gbit_s": [200.0],
        },
    ),
    (
        "ibstat/gpud-pr482-ibstat-cx7-mt4129-down-polling-redacted-guids.txt",
        "ibstat",
        {
            "ports": [
                {
                    "ca": "mlx5_10",
                    "port": 1,
                    "state": "Down",
                    "physical_state": "Polling",
                    "rate_gbit_s": 10.0,
                    "link_layer": "InfiniBand",
                    "ca_type": "MT4129",
                    "firmware": "28.39.1002",
                }
            ],
            "active_port_count": 0,
            "down_port_count": 1,
        },
    ),
]


@pytest.mark.parametrize(("path", "kind", "figures"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_output_figures(sample: Sample, path: str, kind: str, figures: dict[str, Any]) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    metrics = PARSERS[kind].parse(text).metrics
    assert {key: metrics[key] for key in figures} == figures


FAILED_RUNS = [
    (
        "nccl_tests/nccl-issue473-4x2080ti-oldformat-test-nccl-failure-after-device-list.txt",
        "nccl_tests",
        "nccl.test_failed",
        8,
        "fastmoe: Test NCCL failure common.cu:777 'unhandled system error'",
    ),
    (
        # The reason is on the "Test NCCL failure" line, not the " .. <host> pid" line above it.
        "nccl_tests/nccl-tests-issue322-multihost-test-nccl-failure-lines-mpirun-trailer-only.txt",
        "nccl_tests",
        "nccl.test_failed",
        2,
        "HCA-14: Test NCCL failure common.cu:1204 'unhandled cuda error "
        "(run with NCCL_DEBUG=INFO for details) / '",
    ),
    (
        "nccl_tests/nccl-tests-issue208-rtx4090-hashes-lost-nccl-warn-cuda-failure-no-rows.txt",
        "nccl_tests",
        "nccl.test_failed",
        14,
        "noodle-4090-0:1896106:1896121 [1] enqueue.cc:47 NCCL WARN Cuda failure "
        "'named symbol not found'",
    ),
    (
        "perftest/perftest-pr228-ib_write_bw-couldnt-connect-socket-init-only.txt",
        "perftest",
        "perftest.tool_failed",
        2,
        "Couldn't connect to 192.168.125.211:18515",
    ),
    (
        "perftest/pib-issue3-ib_read_bw-soft-ib-header-then-read-keys-failure.txt",
        "perftest",
        "perftest.tool_failed",
        21,
        "Couldn't read remote address",
    ),
    (
        # MIG on the GPU: dcgmi refuses to run and prints no table, which is no pass.
        "dcgm_diag/dcgm-issue94-r3-mig-a100-incompatible-twice-no-table.txt",
        "dcgm_diag",
        "dcgm.tool_error",
        2,
        "GPU 0's MIG configuration is incompatible with the diagnostic because it prevents "
        "access to the entire GPU.",
    ),
    (
        "dcgm_diag/dcgm-issue70-3.1.3-r1-i0-other-gpu-mig-incompatible-trailing-blanks.txt",
        "dcgm_diag",
        "dcgm.tool_error",
        2,
        "GPU 2's MIG configuration is incompatible with the diagnostic because it prevents "
        "access to the entire GPU.",
    ),
    (
        "fio/fio-issue1829-io-u-error-lines-only-no-job-report.txt",
        "fio",
        "fio.failed",
        3,
        "fio: pid=12737, err=5/file:io_u.c:1896, func=io_u error, error=Input/output error",
    ),
    (
        # The error lines fio wrote into its --output file say why; the cut JSON cannot.
        "fio/fio-issue731-fio312-err5-lines-then-json-cut-in-jobs.txt",
        "fio",
        "fio.failed",
        1,
        "fio: pid=4896, err=5/file:ioengines.c:351, func=td_io_queue, error=Input/output error",
    ),
    (
        "fio/fio-issue877-fio299-fsync-err5-job-line-results-elided.txt",
        "fio",
        "fio.failed",
        7,
        "fio: pid=0, err=5/file:filesetup.c:239, func=fsync, error=Input/output error",
    ),
    (
        "fio/cubefs-issue3972-fio37-randwrite-io-u-errors-cut.txt",
        "fio",
        "fio.failed",
        16,
        "fio: pid=5059, err=5/file:io_u.c:1747, func=io_u error, error=Input/output error",
    ),
]


@pytest.mark.parametrize(
    ("path", "kind", "code", "line", "message"), FAILED_RUNS, ids=[f[0] for f in FAILED_RUNS]
)
def test_a_run_that_failed_before_any_result_is_an_error_quoting_why(
    sample: Sample, path: str, kind: str, code: str, line: int, message: str
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS[kind].parse(text)
    assert (caught.value.kind, caught.value.code, caught.value.line) == (kind, code, line)
    assert caught.value.params == {"message": message}


def test_an_nccl_warn_that_reports_no_error_does_not_make_a_cut_log_a_failure() -> None:
    # A log cut after NCCL's setup lines: its WARN about the ring search is a notice, so
    # nothing says the run failed.
    text = (
        "# nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n"
        "#  Rank  0 Group  0 Pid   8756 on     node1 device  0 [0x01] NVIDIA GeForce GTX 1050 Ti\n"
        "node1:8756:8772 [1] graph/search.cc:890 NCCL WARN Could not find a path for pattern 4, "
        "falling back to simple order\n"
    )
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["nccl_tests"].parse(text)
    assert caught.value.code == "nccl.nothing"


_BW_JSON = """{
"test_info": {
"test": "Send_Bidirectional_BW_Test",
"Dual_port": "OFF",
"Device": "mlx5_0",
"Number_of_qps": 1,
"Transport_type": "IB",
"Connection_type": "RC",
"Link_type": "IB",
"rdma_cm_QPs": "OFF",
},
"results": {
"MsgSize": 8388608,
"n_iterations": 1000,
"BW_peak": 385.12,
"BW_average": 384.97,
"MsgRate": 0.005736,
},
}
"""


def test_a_perftest_json_bandwidth_is_read_in_the_unit_its_figures_show() -> None:
    # The JSON never states its unit (MB/sec without --report_gbits, 119x apart), but its
    # figures do: 384.97 / (0.005736 * 8388608) = 0.0080 is Gb/sec, with or without the command.
    assert registry.detect_kind(_BW_JSON) == "perftest"
    command = "$ ib_send_bw -d mlx5_0 --bidirectional --report_gbits --out_json 10.0.0.2\n"
    for text in (_BW_JSON, command + _BW_JSON):
        metrics = PARSERS["perftest"].parse(text).metrics
        assert (metrics["test"], metrics["bidirectional"], metrics["qps"]) == (
            "ib_send_bw",
            True,
            1,
        )
        assert (metrics["bw_avg_gbit_s"], metrics["bw_peak_gbit_s"]) == (384.97, 385.12)
        assert (metrics["max_size_bytes"], metrics["value_unit"]) == (8388608, "Gb/sec")


def test_a_perftest_json_result_that_is_not_a_number_is_refused() -> None:
    text = _BW_JSON.replace('"BW_average": 384.97', '"BW_average": "-nan"')
    with pytest.raises(EvidenceParseError) as caught:
        PARSERS["perftest"].parse("ib_send_bw --report_gbits --out_json\n" + text)
    assert (caught.value.code, caught.value.line) == ("perftest.not_finite", 17)


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _outcome(text: str) -> tuple[str, object]:
    try:
        return registry.detect_kind(text), registry.parse_text(text).metrics
    except EvidenceParseError as exc:
        return registry.detect_kind(text), (exc.code, exc.line)


def test_every_sample_quoted_in_markdown_reads_as_the_sample_itself() -> None:
    # A reply that quotes a pasted output puts "> " before each line (nccl-tests#287,
    # perftest#132): the upload reads as the output it quotes, whatever its kind.
    paths = sorted(p for p in SAMPLES.glob("*/*") if p.name != "PROVENANCE.tsv")
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert _outcome(_quoted(text)) == _outcome(text), path.name


def test_matrices_pasted_without_their_running_lines_each_keep_a_name(sample: Sample) -> None:
    # Quoting a quote ("> > Running ...") hid both "Running" lines of this sample: two
    # matrices without a name once made the parser fail with a KeyError.
    text = sample("nvbandwidth/nvbw-issue24-h100-h2d-d2h-sm-no-indent.txt")
    unnamed = text.replace("> Running host_to_device_memcpy_sm.", "").replace(
        "> Running device_to_host_memcpy_sm.", ""
    )
    metrics = nvbandwidth.parse(unnamed).metrics
    assert metrics["testcase_names"] == ["unnamed", "unnamed_2"]
    assert metrics["testcases"]["unnamed"]["mean_gbyte_s"] == 35.224
    assert metrics["testcases"]["unnamed_2"]["max_gbyte_s"] == 52.78


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (
            # The error code's "_" kept "error" from being a word: nothing named the failure.
            "nvbandwidth/nvbw-issue47-v0.8-rtx3080-hostname-line-cuda-error-invalid-context.txt",
            "line 12: [CUDA_ERROR_INVALID_CONTEXT] invalid device context in expression",
        ),
        (
            "nvbandwidth/nvbw-issue19-v0.4-8x-l40s-one-to-all-read-sm-pattern-aborted.txt",
            "line 22: Invalid value when checking the pattern at <0x7fac6200e480>",
        ),
    ],
)
def test_an_nvbandwidth_run_stopped_by_an_error_names_it(
    sample: Sample, path: str, reason: str
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "nvbandwidth"
    with pytest.raises(EvidenceParseError) as caught:
        nvbandwidth.parse(text)
    assert caught.value.code == "nvbandwidth.failed"
    assert caught.value.params["error"].startswith(reason)
