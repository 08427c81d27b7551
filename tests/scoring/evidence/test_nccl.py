"""nccl-tests parser: real outputs of every header generation, noise, truncation, fuzzing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from scoring.evidence import nccl
from scoring.evidence.base import EvidenceParseError


def test_new_format_single_node_eight_ranks(sample):
    result = nccl.parse(sample("nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt"))
    m = result.metrics
    assert result.kind == "nccl_tests"
    assert m["collective"] == "all_reduce"
    assert m["ranks"] == 8
    assert m["peak_busbw_gbyte_s"] == 232.20
    assert m["avg_busbw_gbyte_s"] == 232.167
    assert m["wrong_total"] == 0
    assert m["max_size_bytes"] == 10737418240
    assert m["gpu_names"] == ["NVIDIA A100-SXM4-40GB"]
    assert m["hosts"] == ["inst-lscuv-ao-ub24"]
    assert m["out_of_bounds_ok"] is True
    assert m["curve"] == [
        {
            "size_bytes": 10737418240,
            "count": 2684354560,
            "type": "float",
            "redop": "sum",
            "root": -1,
            "time_us": 80922.0,
            "algbw_gbyte_s": 132.69,
            "busbw_gbyte_s": 232.20,
            "out_of_place_busbw_gbyte_s": 232.20,
            "in_place_busbw_gbyte_s": 232.13,
        }
    ]
    row = [f for f in result.facts if f.metric == "busbw_gbyte_s"]
    assert [(f.value, f.unit, f.line) for f in row] == [(232.20, "GB/s", 18)]
    avg = [f for f in result.facts if f.metric == "avg_busbw_gbyte_s"]
    assert [(f.value, f.line) for f in avg] == [(232.167, 20)]
    assert result.warnings == ()


def test_two_nodes_sixteen_ranks_over_roce(sample):
    m = nccl.parse(sample("nccl_tests/oci-h100-2node-roce-nccl2215.txt")).metrics
    assert m["ranks"] == 16
    assert m["hosts"] == ["inst-xxxxx-h100-ol89", "inst-yyyyy-h100-ol89"]
    assert m["row_count"] == 5
    assert m["min_size_bytes"] == 1073741824
    assert m["max_size_bytes"] == 17179869184
    # The peak is the in-place busbw of the last row (464.79 > 464.57 out-of-place).
    assert m["peak_busbw_gbyte_s"] == 464.79
    assert m["peak_size_bytes"] == 17179869184
    assert m["avg_busbw_gbyte_s"] == 458.452
    assert m["gpus_per_process"] == 1


def test_several_gpus_per_process_and_a_dip_in_the_curve(sample):
    m = nccl.parse(sample("nccl_tests/h100-2node-4gpu-each-g4.txt")).metrics
    assert m["ranks"] == 8
    assert m["gpus_per_process"] == 4
    assert m["peak_busbw_gbyte_s"] == 235.51
    assert m["row_count"] == 32
    assert m["min_size_bytes"] == 8
    point = next(p for p in m["curve"] if p["size_bytes"] == 2097152)
    assert (point["out_of_place_busbw_gbyte_s"], point["in_place_busbw_gbyte_s"]) == (5.70, 7.67)
    assert point["busbw_gbyte_s"] == 7.67


def test_newest_banner_gives_versions(sample):
    m = nccl.parse(sample("nccl_tests/cscs-gh200-2node-sarus-v2.18.2.txt")).metrics
    assert m["nccl_tests_version"] == "2.18.2"
    assert m["nccl_version"] == "2.30.7"  # nccl-library=23007: major*10000 + minor*100 + patch
    assert m["collective"] == "all_reduce"
    assert m["ranks"] == 2
    assert m["hosts"] == ["nid007106", "nid007109"]
    assert m["gpu_names"] == ["NVIDIA GH200 120GB"]
    assert m["avg_busbw_gbyte_s"] == 14.9966
    assert m["peak_busbw_gbyte_s"] == 22.88


def test_pcie_consumer_gpus(sample):
    m = nccl.parse(sample("nccl_tests/autodl-2x2080ti-pcie-container.txt")).metrics
    assert (m["ranks"], m["gpus_per_process"]) == (2, 2)
    assert m["peak_busbw_gbyte_s"] == 4.00
    assert m["avg_busbw_gbyte_s"] == 2.05774
    assert m["row_count"] == 28


def test_old_format_without_hash_redop_root_and_failed_check(sample):
    result = nccl.parse(sample("nccl_tests/issue37-dgx1-v100-allgather-oldformat-FAILED.txt"))
    m = result.metrics
    assert m["collective"] == "all_gather"
    assert m["ranks"] is None
    assert m["out_of_bounds"] == 2
    assert m["out_of_bounds_ok"] is False
    assert m["wrong_total"] == 2  # old "error" column: the tool's out-of-bounds count
    assert m["max_error"] == 1.0
    assert m["avg_busbw_gbyte_s"] == 128.942
    assert m["curve"][0]["redop"] is None
    assert m["curve"][0]["busbw_gbyte_s"] == 129.05
    assert any("wrong results" in w for w in result.warnings)


def test_old_alltoall_with_blank_redop_cells(sample):
    m = nccl.parse(
        sample("nccl_tests/issue78-v100-8node-alltoall-blank-redop-error-col.txt")
    ).metrics
    assert m["collective"] is None  # the pasted block never names the binary
    assert m["row_count"] == 2
    assert [p["time_us"] for p in m["curve"]] == [520935.0, 1041974.0]
    assert {p["redop"] for p in m["curve"]} == {None}
    assert {p["type"] for p in m["curve"]} == {"float"}
    assert m["peak_busbw_gbyte_s"] == 0.51
    assert m["wrong_total"] == 0
    assert m["max_error"] == 1.0


def test_unchecked_results_and_a_truncated_last_row(sample):
    result = nccl.parse(sample("nccl_tests/issue78-v100-256gpu-allreduce-nccl284-NA-truncated.txt"))
    m = result.metrics
    assert m["nccl_version"] == "2.8.4"
    assert m["row_count"] == 6
    assert m["wrong_total"] is None
    assert m["wrong_unchecked"] == 12
    assert m["peak_busbw_gbyte_s"] == 74.36
    assert m["avg_busbw_gbyte_s"] is None
    assert "line 14: unreadable or incomplete result row skipped (the output seems truncated)" in (
        result.warnings
    )


def test_sendrecv_in_place_not_checked(sample):
    result = nccl.parse(sample("nccl_tests/a100-8gpu-nvlink-sendrecv-g8-NA-inplace.txt"))
    m = result.metrics
    assert m["collective"] == "sendrecv"
    assert m["wrong_total"] == 0
    assert m["wrong_unchecked"] == 4
    assert m["peak_busbw_gbyte_s"] == 195.56
    assert m["avg_busbw_gbyte_s"] is None
    assert "no 'Avg bus bandwidth' line (output truncated?)" in result.warnings


def test_alltoall_newest_format_cut_inside_the_last_cell(sample):
    result = nccl.parse(sample("nccl_tests/nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt"))
    m = result.metrics
    assert m["collective"] == "alltoall"
    assert m["nccl_tests_version"] == "2.17.8"
    assert m["ranks"] == 4
    assert m["curve"][0]["redop"] == "none"
    assert m["curve"][0]["root"] == -1
    assert m["peak_busbw_gbyte_s"] == 337.99
    assert "line 16: unreadable #wrong/error value (truncated?)" in result.warnings


def test_counts_in_g_notation_break_alignment_but_not_the_parse():
    text = (
        "# Collective test starting: reduce_scatter_perf\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        " 1.07374e+09 3.35544e+07 float sum -1 4511.2 238.02 223.14 0 4520.9 237.50 222.66 0\n"
        "# Avg bus bandwidth    : 222.9\n"
    )
    m = nccl.parse(text).metrics
    assert m["collective"] == "reduce_scatter"
    assert m["curve"][0]["size_bytes"] == 1073741824
    assert m["curve"][0]["count"] == 33554432
    assert m["peak_busbw_gbyte_s"] == 223.14


def test_nccl1_header_names_and_missing_hash():
    text = (
        "       bytes             N    type      op     time  algbw  busbw      res     time  algbw"
        "  busbw      res\n"
        "     1048576        262144   float     sum    95.52  10.98  19.21    0e+00    95.21"
        "  11.01  19.27    0e+00\n"
    )
    m = nccl.parse(text).metrics
    assert m["curve"][0]["redop"] == "sum"
    assert m["peak_busbw_gbyte_s"] == 19.27
    assert m["max_error"] == 0.0
    assert m["wrong_total"] is None  # no "Out of bounds values" line to count from


def test_mpi_tags_and_interleaved_noise_change_nothing(sample):
    text = sample("nccl_tests/oci-h100-2node-roce-nccl2215.txt")
    lines = text.splitlines()
    noisy = [f"[1,0]<stdout>:{line}" for line in lines[:24]]
    noisy += [
        "inst-xxxxx-h100-ol89:1274:1274 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE",
        "--------------------------------------------------------------------------",
        "WARNING: There are more than one active ports on host 'inst-xxxxx', but the",
        "[1700000000.1] [inst:1274:0] ucp_context.c:1951 UCX  WARN  UCP API version is old",
    ]
    noisy += lines[24:]
    noisy_metrics = dict(nccl.parse("\n".join(noisy)).metrics)
    # The NCCL INFO noise names the IB transport: that is read, the rest is unchanged.
    assert noisy_metrics.pop("net_plugins") == ["InfiniBand"]
    clean = dict(nccl.parse(text).metrics)
    assert clean.pop("net_plugins") == []
    assert noisy_metrics == clean


def test_several_tables_are_listed_and_the_first_gives_the_bandwidth(sample):
    first = sample("nccl_tests/autodl-2x2080ti-pcie-container.txt")
    second = sample("nccl_tests/issue37-dgx1-v100-allgather-oldformat-FAILED.txt")
    result = nccl.parse(first + second)
    m = result.metrics
    assert m["collectives"] == ["all_reduce", "all_gather"]
    assert m["collective"] == "all_reduce"
    assert m["peak_busbw_gbyte_s"] == 4.00
    assert [run["collective"] for run in m["runs"]] == ["all_reduce", "all_gather"]
    assert m["runs"][1]["peak_busbw_gbyte_s"] == 129.05
    # The old all_gather table's "error" column is a deviation: its FAILED count is the figure.
    assert (m["wrong_total"], m["out_of_bounds"], m["out_of_bounds_ok"]) == (2, 2, False)
    assert m["max_error"] == m["runs"][1]["max_error"] is not None
    assert m["wrong_line"] == 41 + 6  # the "Out of bounds values : 2 FAILED" line
    assert (
        "2 result tables; the bandwidth figures describe the first one, "
        "the correctness figures every table"
    ) in result.warnings
    assert "line 47: nccl-tests reported wrong results (out-of-bounds values)" in result.warnings


def _clean_then_wrong(sample) -> str:
    """Two real logs one after the other, as a script running nccl-tests twice appends them:
    a clean all_reduce (2x RTX 2080 Ti, "Out of bounds values : 0 OK", 41 lines) then a run
    whose every row counts wrong values ("108 FAILED", its first row on line 11)."""
    return sample("nccl_tests/autodl-2x2080ti-pcie-container.txt") + sample(
        "nccl_tests/rtx3090-2node-inc-wrong-results-g-format-108-failed.txt"
    )


def test_wrong_results_in_a_later_table_are_not_hidden_by_a_clean_first_one(sample):
    text = _clean_then_wrong(sample)
    for result in (nccl.parse(text), nccl.parse_lines(text.splitlines())):
        m = result.metrics
        first, second = m["runs"]
        assert (first["wrong_total"], first["out_of_bounds_ok"], first["wrong_line"]) == (
            0,
            True,
            None,
        )
        assert (second["out_of_bounds"], second["out_of_bounds_ok"]) == (108, False)
        assert second["wrong_line"] == 41 + 11
        # The correctness figures are the worst over both tables...
        assert m["wrong_total"] == first["wrong_total"] + second["wrong_total"] > 2 * 268435000
        assert (m["out_of_bounds"], m["out_of_bounds_ok"]) == (108, False)
        assert m["wrong_unchecked"] == 0
        assert m["wrong_line"] == 52
        assert "line 52: nccl-tests reported wrong results (out-of-bounds values)" in (
            result.warnings
        )
        # ...the bandwidth figures stay the first table's.
        assert (m["peak_busbw_gbyte_s"], m["avg_busbw_gbyte_s"], m["row_count"]) == (
            4.00,
            2.05774,
            28,
        )


def test_a_clean_table_after_a_wrong_one_does_not_clear_it(sample):
    wrong = sample("nccl_tests/rtx3090-2node-inc-wrong-results-g-format-108-failed.txt")
    clean = sample("nccl_tests/autodl-2x2080ti-pcie-container.txt")
    m = nccl.parse(wrong + clean).metrics
    assert (m["out_of_bounds"], m["out_of_bounds_ok"], m["wrong_line"]) == (108, False, 11)
    assert m["wrong_total"] == m["runs"][0]["wrong_total"]


def test_tables_without_a_check_column_leave_wrong_total_unknown(sample):
    # -c 0: every #wrong cell N/A, so no table has a count.
    text = sample("nccl_tests/gcp-a3mega-tcpxo-allreduce-c0-all-NA.txt")
    m = nccl.parse(text + text).metrics
    assert len(m["runs"]) == 2
    assert m["wrong_total"] is None and m["wrong_line"] is None
    assert m["wrong_unchecked"] == 2 * m["runs"][0]["wrong_unchecked"] > 0


def test_ranks_printed_by_separate_processes_are_flagged():
    text = (
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#   Rank  0 Pid   1320 on ip-172-31-20-228 device  0 [0x00] Tesla V100-SXM2-16GB\n"
        "#   Rank  0 Pid   2066 on ip-172-31-22-230 device  0 [0x00] Tesla V100-SXM2-16GB\n"
        "#       size         count      type   redop     time   algbw   busbw  error     time"
        "   algbw   busbw  error\n"
        "           8             2     float     sum     5.12    0.00    0.00  0e+00     5.01"
        "    0.00    0.00  0e+00\n"
    )
    result = nccl.parse(text)
    assert result.metrics["ranks"] == 1
    assert result.metrics["hosts"] == ["ip-172-31-20-228"]
    assert any("listed by several processes" in w for w in result.warnings)


def test_a_test_that_failed_before_any_row_is_an_error_with_its_line():
    text = (
        "#  Rank 0 Group 0 Pid 3590 on c2211f46f318 device 0 [0x16] NVIDIA GeForce RTX 4090\n"
        "c2211f46f318: Test NCCL failure common.cu:1005 'unhandled CUDA error'\n"
        " .. c2211f46f318 pid 3288: Test failure common.cu:891\n"
    )
    with pytest.raises(EvidenceParseError) as caught:
        nccl.parse(text)
    assert caught.value.line == 2
    assert "the test failed" in caught.value.reason
    assert "unhandled CUDA error" in caught.value.reason


def test_header_without_rows_is_an_error_at_the_header(sample):
    text = "\n".join(sample("nccl_tests/autodl-2x2080ti-pcie-container.txt").splitlines()[:10])
    with pytest.raises(EvidenceParseError) as caught:
        nccl.parse(text)
    assert caught.value.line == 9
    assert "no readable result rows" in caught.value.reason


def test_big_log_parses_in_linear_time():
    row = "   1048576  262144  float  sum  -1  339.61  3.09  3.09  0  335.85  3.12  3.12  0\n"
    header = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
    started = time.perf_counter()
    result = nccl.parse(header + row * 20000 + "# Avg bus bandwidth : 3.1\n")
    assert result.metrics["row_count"] == 20000
    assert time.perf_counter() - started < 10


def test_a3_mega_two_vms_sixteen_ranks(sample):
    result = nccl.parse(sample("nccl_tests/gcp-a3mega-2node-16rank-allreduce-npernode8.txt"))
    m = result.metrics
    assert (m["collective"], m["ranks"], m["gpus_per_process"]) == ("all_reduce", 16, 1)
    assert m["hosts"] == ["ztan-mig-235z", "ztan-mig-gq73"]
    assert m["gpu_names"] == ["NVIDIA H100 80GB HBM3"]
    assert (m["peak_busbw_gbyte_s"], m["peak_size_bytes"]) == (338.82, 8589934592)
    assert m["avg_busbw_gbyte_s"] == 70.742
    assert (m["wrong_total"], m["out_of_bounds"], m["out_of_bounds_ok"]) == (0, 0, True)
    assert (m["min_size_bytes"], m["row_count"]) == (8, 31)
    assert result.warnings == ()


def test_a3_mega_tcpxo_run_without_validation(sample):
    result = nccl.parse(sample("nccl_tests/gcp-a3mega-tcpxo-allreduce-c0-all-NA.txt"))
    m = result.metrics
    assert m["collective"] == "all_reduce"  # from the 'benchmark: all_reduce_perf' line
    assert m["ranks"] is None  # no device list, no nranks
    assert (m["wrong_total"], m["wrong_unchecked"]) == (None, 28)
    assert (m["peak_busbw_gbyte_s"], m["avg_busbw_gbyte_s"]) == (90.05, 49.6371)
    assert (m["min_size_bytes"], m["max_size_bytes"]) == (1048576, 8589934592)
    assert any("not checked for correctness" in w for w in result.warnings)


def test_efa_log_tagged_by_mpirun_names_its_transport(sample):
    result = nccl.parse(sample("nccl_tests/aws-eks-efa-2node-t4-tag-output-ofi150.txt"))
    m = result.metrics
    assert m["net_plugins"] == ["AWS EFA", "libfabric (OFI)"]
    assert (m["ranks"], m["nccl_version"]) == (2, "2.12.7")
    assert m["hosts"] == ["test-nccl-efa-worker-0", "test-nccl-efa-worker-1"]
    assert m["collective"] is None
    assert m["collective_candidates"] == ["all_reduce", "sendrecv"]
    assert (m["row_count"], m["min_size_bytes"], m["max_size_bytes"]) == (31, 0, 1073741824)
    assert (m["peak_busbw_gbyte_s"], m["peak_size_bytes"]) == (3.15, 134217728)
    assert m["avg_busbw_gbyte_s"] == 1.15327
    assert m["wrong_total"] == 0


def test_lines_relayed_by_ray_before_the_mpirun_tag(sample):
    # SkyPilot runs mpirun under Ray: "(head, rank=0, pid=3808) [1,0]<stdout>:# ..." lines.
    result = nccl.parse(sample("nccl_tests/skypilot-a3ultra-h200-2node-allgather-ray-prefixed.txt"))
    m = result.metrics
    assert (m["ranks"], m["ranks_inferred"]) == (16, 16)
    assert m["hosts"] == ["nc-d87e1263-head", "nc-d87e1263-worker1"]
    assert m["gpu_names"] == ["NVIDIA H200"]
    assert m["collective_candidates"] == ["all_gather", "alltoall"]
    assert (m["row_count"], m["min_size_bytes"], m["max_size_bytes"]) == (24, 1024, 8589934592)
    assert (m["peak_busbw_gbyte_s"], m["avg_busbw_gbyte_s"]) == (332.58, 122.073)
    assert m["wrong_total"] == 0


def test_a_ray_or_kubectl_prefix_alone_is_stripped():
    row = "        1024            16     float    none      -1    28.39    0.04    0.03      0"
    table = (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
        f"{row}\n"
    )
    for prefix in ("(worker1, rank=1, pid=2769, ip=10.100.10.12) ", "[pod/nccl-0/test] "):
        tagged = "".join(prefix + line + "\n" for line in table.splitlines())
        m = nccl.parse(tagged).metrics
        assert (m["row_count"], m["peak_busbw_gbyte_s"]) == (1, 0.03)


def test_per_node_log_counts_ranks_from_the_highest_rank(sample):
    text = sample(
        "nccl_tests/go-fixture-h200-2node-bf16-per-node-log-info-between-header-and-rows.txt"
    )
    result = nccl.parse(text)
    m = result.metrics
    # Only ranks 7 and 15 are listed: the run had at least 16, as busbw/algbw = 1.875 says.
    assert (m["ranks"], m["ranks_inferred"]) == (16, 16)
    assert (m["collective"], m["collective_inferred"]) == ("all_reduce", True)
    assert m["gpus_per_process"] == 1  # "nGpus(perProc) 1"
    assert m["nccl_version"] == "2.27.7"
    assert m["hosts"] == ["cetus-g88-094", "cetus-g88-061"]
    assert {point["type"] for point in m["curve"]} == {"bfloat16"}
    assert (m["row_count"], m["min_size_bytes"], m["max_size_bytes"]) == (31, 0, 1073741824)
    assert (m["peak_busbw_gbyte_s"], m["peak_size_bytes"]) == (121.29, 536870912)
    assert m["avg_busbw_gbyte_s"] == 15.9501
    assert "the device list shows 2 of at least 16 ranks (a per-node or filtered log)" in (
        result.warnings
    )


def test_nranks_from_nccl_info_lines_raise_a_short_device_list():
    text = (
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  Rank  0 Group  0 Pid   1 on node-a device  0 [0x07] NVIDIA H100 80GB HBM3\n"
        "node-a:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 8 cudaDev 0 busId 7000 - Init COMPLETE\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "           8             2     float     sum      -1    20.00    0.00    0.00      0\n"
    )
    assert nccl.parse(text).metrics["ranks"] == 8


def test_every_result_wrong_with_counts_in_g_format(sample):
    result = nccl.parse(
        sample("nccl_tests/rtx3090-2node-inc-wrong-results-g-format-108-failed.txt")
    )
    m = result.metrics
    assert (m["out_of_bounds"], m["out_of_bounds_ok"]) == (108, False)
    assert m["wrong_unchecked"] == 0
    # The #wrong cells hold the element count of every row: 4 at 8 B ... 2.68435e+08 at 512 MiB.
    first, last = m["curve"][0], m["curve"][-1]
    assert (first["size_bytes"], last["size_bytes"]) == (8, 536870912)
    assert m["wrong_total"] > 2 * 268435000
    assert (m["ranks"], m["hosts"]) == (2, ["worker1", "worker2"])
    assert m["gpu_names"] == ["NVIDIA GeForce RTX 3090"]
    assert (m["row_count"], m["peak_busbw_gbyte_s"], m["avg_busbw_gbyte_s"]) == (27, 7.64, 3.02663)
    assert "line 11: nccl-tests reported wrong results (out-of-bounds values)" in result.warnings
    facts = {f.metric for f in result.facts}
    assert "peak_busbw_gbyte_s" in facts


def test_device_list_bus_numbers_counted_and_root_bus_ranks(sample):
    # An Azure H200 VM: every GPU of the device list printed at "[0x00]" (bus 00).
    m = nccl.parse(sample("nccl_tests/azure-nhc-h200-vm-8gpu-bus00-16g-allreduce.txt")).metrics
    assert m["ranks"] == 8
    assert m["gpu_names"] == ["NVIDIA H200"]
    assert m["peak_busbw_gbyte_s"] == 480.26
    assert m["avg_busbw_gbyte_s"] == 480.11
    assert (m["bus_ids_shown"], m["root_bus_ranks"]) == (8, 8)
    # A physical OCI H100 pair: buses shown, none on bus 00.
    m = nccl.parse(sample("nccl_tests/oci-h100-2node-roce-nccl2215.txt")).metrics
    assert (m["bus_ids_shown"], m["root_bus_ranks"]) == (16, 0)


def test_device_bus_in_domain_bus_device_form():
    # Newer builds print "[domain:bus:device]"; only the bus decides.
    lines = [
        "#  Rank  0 Group  0 Pid  11 on h device  0 [0002:00:01] NVIDIA H100 80GB HBM3",
        "#  Rank  1 Group  0 Pid  12 on h device  1 [000f:01:00] NVIDIA GB10",
        "#  Rank  2 Group  0 Pid  13 on h device  2 [garbage] NVIDIA H100 80GB HBM3",
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong",
        "        8192          2048     float     sum      -1    35.15    0.23    0.35       0"
        "    30.33    0.27    0.40       0",
    ]
    m = nccl.parse("\n".join(lines)).metrics
    assert (m["bus_ids_shown"], m["root_bus_ranks"]) == (2, 1)


def test_version_banner_with_git_revision_and_domain_bus_device(sample):
    # nccl-tests 2.20 prints the git revision between the version and the NCCL codes, and the
    # device's PCI address as domain:bus:device; two GB10 hosts, cut after four rows.
    result = nccl.parse(sample("nccl_tests/dgx-spark-2x-gb10-v2.20.0-git-rev-banner-cut.txt"))
    m = result.metrics
    assert m["nccl_tests_version"] == "2.20.0"
    assert m["nccl_version"] == "2.31.2"  # nccl-library=23102
    assert m["collective"] == "all_reduce"
    assert (m["ranks"], m["hosts"]) == (2, ["spark-d708", "spark-dbf4"])
    assert m["gpu_names"] == ["NVIDIA GB10"]
    assert (m["bus_ids_shown"], m["root_bus_ranks"]) == (2, 0)
    assert m["peak_busbw_gbyte_s"] == 1.01
    assert m["max_size_bytes"] == 65536


_NCCL_SAMPLES = sorted(
    p.name for p in (Path(__file__).parent / "samples" / "nccl_tests").iterdir() if p.is_file()
)


@pytest.mark.parametrize("name", _NCCL_SAMPLES)
def test_log_pasted_indented_reads_the_same(sample, name):
    # Logs quoted in a list item or a YAML block keep blanks before mpirun's "[1,0]<stdout>:"
    # tag (seen in driver-release notes); every real sample indented reads the same figures.
    text = sample(f"nccl_tests/{name}")
    indented = "\n".join("        " + line for line in text.splitlines())
    try:
        plain = nccl.parse(text).metrics
    except EvidenceParseError as failed:  # an error case fails the same way indented
        with pytest.raises(EvidenceParseError) as caught:
            nccl.parse(indented)
        assert caught.value.code == failed.code
        return
    shifted = nccl.parse(indented).metrics
    for key in ("peak_busbw_gbyte_s", "ranks", "row_count", "collective", "hosts"):
        assert shifted[key] == plain[key], key


def test_old_alltoall_with_validation_off(sample):
    m = nccl.parse(
        sample("nccl_tests/superbench-a100-8gpu-alltoall-oldformat-validation0-NA.txt")
    ).metrics
    assert m["peak_busbw_gbyte_s"] == 226.16
    assert m["peak_size_bytes"] == 8589934592
    assert m["avg_busbw_gbyte_s"] == 58.6481
    assert m["ranks"] == 8 and m["gpus_per_process"] == 8
    assert m["gpu_names"] == ["A100-SXM4-40GB"]
    # Validation was off: every error cell is N/A, so nothing was checked.
    assert m["wrong_total"] is None and m["wrong_unchecked"] == 68
    assert m["out_of_bounds"] == 0 and m["out_of_bounds_ok"] is True
    assert m["row_count"] == 34 and m["min_size_bytes"] == 0


def test_cuda_failure_before_any_row_is_quoted(sample):
    text = sample("nccl_tests/issue264-h100-cuda-system-not-yet-initialized.txt")
    with pytest.raises(EvidenceParseError, match="system not yet initialized") as caught:
        nccl.parse(text)
    assert caught.value.kind == "nccl_tests"


def test_repeated_size_rows_without_wrong_columns(sample):
    path = "nccl_tests/blog-h200-4node-nccl2223-8g-repeated-rows-no-wrong-cols.txt"
    m = nccl.parse(sample(path)).metrics
    assert m["nccl_version"] == "2.22.3"
    assert m["collective"] == "all_reduce" and m["collective_inferred"] is True
    assert m["row_count"] == 7
    assert m["peak_busbw_gbyte_s"] == 389.27
    assert (m["min_size_bytes"], m["max_size_bytes"]) == (8589934592, 8589934592)
    assert m["wrong_total"] is None


def test_two_ranks_on_one_gpu_are_flagged(sample):
    path = "nccl_tests/ebpf-tuner-report-rtx5090-2ranks-one-gpu-reduce-scatter-v2.18.0.txt"
    result = nccl.parse(sample(path))
    m = result.metrics
    assert (m["collective"], m["ranks"]) == ("reduce_scatter", 2)
    assert (m["nccl_tests_version"], m["nccl_version"]) == ("2.18.0", "2.29.7")
    assert m["peak_busbw_gbyte_s"] == 2.73
    assert m["avg_busbw_gbyte_s"] == 1.73537  # "1.73537 GB/s": the unit is not part of it
    assert m["hosts"] == ["lab"]
    # Both processes print device 0 at [0000:02:00]: one GPU, no link between GPUs measured.
    assert m["shared_gpu_ranks"] == [0, 1]
    assert any("share a GPU" in w for w in result.warnings)


def test_eight_gpus_of_one_process_share_nothing(sample):
    m = nccl.parse(sample("nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt")).metrics
    assert m["shared_gpu_ranks"] == []


def test_one_row_of_a_16_rank_run_with_nccl_info_lines_of_another_rank(sample):
    result = nccl.parse(
        sample("nccl_tests/eks-p5-2node-16rank-nvls-single-size-mpi-tags-excerpt.txt")
    )
    m = result.metrics
    assert m["peak_busbw_gbyte_s"] == 439.28
    assert m["row_count"] == 1 and m["max_size_bytes"] == 2147483648
    assert m["avg_busbw_gbyte_s"] == 53.2202
    # No device list and no collective name: both come from busbw/algbw = 2(n-1)/n.
    assert (m["collective"], m["collective_inferred"], m["ranks_inferred"]) == (
        "all_reduce",
        True,
        16,
    )
    assert m["ranks"] is None


_NAMED_HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
)


@pytest.mark.parametrize(
    ("binary", "row", "ranks"),
    [
        # 33554432 B: busbw/algbw = 300.52/171.73 = 1.75 = 2(n-1)/n: 8 ranks.
        (
            "all_reduce_perf",
            "    33554432       8388608     float     sum      -1   195.4  171.73  300.52"
            "      0   195.1  171.99  300.98      0",
            8,
        ),
        # busbw = algbw: 2(n-1)/n = 1 holds for 2 ranks only.
        (
            "all_reduce_perf",
            "    33554432       8388608     float     sum      -1   808.2   41.52   41.52"
            "      0   812.3   41.31   41.31      0",
            2,
        ),
        # count 1048576 of 4-byte floats in 33554432 B: the buffer is split over 8 ranks.
        (
            "all_gather_perf",
            "    33554432       1048576     float    none      -1   250.1  134.16  117.39"
            "      0   249.8  134.33  117.54      0",
            8,
        ),
        # A broadcast prints busbw = algbw whatever the rank count.
        (
            "broadcast_perf",
            "    33554432       8388608     float    none       0   300.0  111.85  111.85"
            "      0   299.0  112.22  112.22      0",
            None,
        ),
    ],
)
def test_a_named_collective_still_infers_its_rank_count_from_the_table(
    binary: str, row: str, ranks: int | None
) -> None:
    text = f"$ ./build/{binary} -b 32M -e 32M\n{_NAMED_HEADER}{row}\n"
    metrics = nccl.parse(text).metrics
    assert (metrics["collective"], metrics["collective_inferred"]) == (
        binary.removesuffix("_perf"),
        False,
    )
    assert metrics["ranks_inferred"] == ranks


def test_the_named_two_node_all_reduce_of_batch8_infers_its_two_ranks(sample) -> None:
    # "-np 2 ./all_reduce_perf ... -g 1" on the mpirun line; every row prints busbw = algbw.
    metrics = nccl.parse(
        sample(
            "nccl_tests/nccl-tests-issue232-2node-1xh100-each-tree-mpirun-command-blank-hash-header-cut-in-64m-row.txt"
        )
    ).metrics
    assert (metrics["collective"], metrics["ranks"], metrics["ranks_inferred"]) == (
        "all_reduce",
        None,
        2,
    )
