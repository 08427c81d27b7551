"""Key figures of the real outputs added in the eleventh corpus batch, read by hand from each file.

The shapes: nvidia-smi -q -x of a pre-release Rubin tray on driver 615 (<kmd_version> beside the
deprecated <driver_version>, "NVIDIA Graphics Device", unrepairable memory "Yes", a link trained
at x2 of x16); nvidia-smi 570 with an RTX 5090 and an RTX 4090 in one host; topo -m inside
vLLM's collect_env (8 H800, NV8, 8 NICs) and sglang's check_env (8 H100, no NIC), both cut in a
GPU row; ibstat of an H20-3e node cut inside a port's state ("State: Acti") and of a ConnectX-6
/ ConnectX-4 Lx host cut before a rate; ib_send_bw over RoCEv1 on a ConnectX-3 whose rule lines
a paste turned blank, and ib_send_lat over a RoCE bond whose only row is cut after t_typical;
nccl-tests all_reduce whose first header line is cut to "in-place", a pre-2020 table of an H20
2-node NVLSTree run whose every algbw is below 1 GB/s, a reduce_scatter of sizes 0 .. 256 B,
and rccl-tests' broadcast tail ending in "Collective test concluded"; lspci -vvvv of an RTX 4090
that an old pci.ids calls "Device 2684", and two pastes of -vv detail lines without their
device line; fio 3.36 JSON with its io_u error lines before it, cut by head; fio 3.33 json+ and
terse runs made here with one job failing on /dev/full (error 28); AMD's rocm-smi and rocminfo,
ucx_perftest, OSU's put bandwidth and NVSentinel's dcgm-diag log: none is evidence.
"""

from __future__ import annotations

import pytest

from scoring.evidence import PARSERS, fio, ibstat, lspci, nccl, nvidia_smi_xml, perftest, registry
from scoring.evidence.base import EvidenceParseError, placeholder_gpu_name_warning
from tests.scoring.evidence.real_outputs import (
    Figures,
    OtherTool,
    Refusal,
    Sample,
    figures_test,
    other_tools_test,
    refused_test,
)

RUBIN = (
    "nvidia_smi_xml/k8s-test-infra-qx-vrnvl72-rubin-driver615-kmd-version-graphics-device-"
    "unrepairable-yes-x2-of-x16-gpu0-only.xml.txt"
)
H20_IBSTAT = (
    "ibstat/sglang-issue6823-h20-3e-cx6dx-mt4125-two-down-disabled-rate40-then-cx7-cut-in-state.txt"
)
SEND_LAT = (
    "perftest/ucx-issue6242-ib_send_lat-bond-roce-mtu1024-cpufreq-lines-row-cut-after-typical.txt"
)
RING_CUT_LABELS = (
    "nccl_tests/nccl-tests-issue252-ring-first-header-line-cut-to-in-place-5-rows-512m-8g-avg-"
    "95.3.txt"
)
H20_ROUGH = (
    "nccl_tests/nccl-issue1244-h20-2node-16gpu-nvlstree-nccl2.21.5-old-error-column-4e-07-header-"
    "hash-lost-cut-at-1024.txt"
)
REDUCE_SCATTER_SMALL = (
    "nccl_tests/nccl-tests-issue128-2node-4gpu-reduce-scatter-five-size-0-rows-cut-in-512-row.txt"
)
RTX4090_UNNAMED = (
    "lspci/geerlingguy-rpi-issue504-vvvv-rtx4090-device-2684-unnamed-disabled-bars-cut-in-"
    "devctl.txt"
)
TERSE_BANNERS = "fio/fio333-dev-terse-v3-two-jobs-full-write-error-28-job-banners-name-rw-bs.txt"
GRACE_RCHITECTURE = (
    "cpu_info/archspec-issue159-grace-lscpu-first-letter-lost-rchitecture-neoverse-v2-excerpt-"
    "mark-archspec-after.txt"
)
ALTRA_CPUINFO_CUT = (
    "cpu_info/archspec-json-issue41-ampere-altra-proc-cpuinfo-neoverse-n1-features-cut-in-"
    "processor5.txt"
)
Q_CUT_AT_MULT = (
    "nvidia_smi_query/hami-issue347-q-v100-pcie-driver535-hami-core-message-in-header-cut-at-"
    "mult.txt"
)

EXPECTED: list[Figures] = [
    (
        # "615.23" in <driver_version> and <kmd_version>; GPU 0 of 4 kept: "NVIDIA Graphics
        # Device", 286524 MiB, "16x" / "2x", <unrepairable_memory>Yes, channel and TPC repair
        # "No", sram_threshold_exceeded "No", remapped rows "No", pending_retirement "N/A".
        RUBIN,
        "nvidia_smi_xml",
        {
            "driver_version": "615.23",
            "cuda_version": "13.4",
            "attached_gpus": 4,
            "dtd": "nvsmi_device_v13.dtd",
            "gpu_count": 1,
            "gpu_names": ["NVIDIA Graphics Device"],
            "bus_ids": ["00000002:81:00.0"],
            "memory_total_mib": [286524],
            "ecc_volatile_uncorrected": 0,
            "remapped_rows_pending": 0,
            "remapped_rows_failure": 0,
            "retired_pages_pending": None,
            "memory_unrepairable": 1,
            "memory_repair_pending": 0,
            "sram_threshold_exceeded": 0,
            "pcie_link_width_max": [16],
            "pcie_link_width_current": [2],
        },
    ),
    (
        # "CPU(s): 72", "Vendor ID: ARM", "Model name: Neoverse-V2", "Socket(s): 1", 72 cores.
        "cpu_info/archspec-json-issue83-gh200-grace-lscpu-neoverse-v2-72cpu-spack-arch-first-"
        "flags-cut.txt",
        "cpu_info",
        {
            "logical_cpus": 72,
            "hypervisor": None,
            "model_name": "Neoverse-V2",
            "vendor_id": "ARM",
            "architecture": "aarch64",
            "sockets": 1,
            "cores_per_socket": 72,
        },
    ),
    (
        # "rchitecture:" lost its "A"; "Vendor ID: ARM" and an ARM flag list ("fp asimd ...").
        GRACE_RCHITECTURE,
        "cpu_info",
        {
            "logical_cpus": 72,
            "hypervisor": None,
            "model_name": "Neoverse-V2",
            "vendor_id": "ARM",
            "architecture": None,
        },
    ),
    (
        # Six "processor" blocks, the sixth cut in its Features: a floor, not the machine.
        ALTRA_CPUINFO_CUT,
        "cpu_info",
        {
            "format": "proc_cpuinfo",
            "logical_cpus": 6,
            "logical_cpus_partial": "cut",
            "hypervisor": None,
            "model_name": None,
        },
    ),
    (
        # MIG Mode "Enabled"; the MIG device's "FB Memory Usage / Total : 71424 MiB" is the
        # slice's, not the GPU's: the GPU's memory is unknown.
        "nvidia_smi_query/hami-issue1422-q-h20-3e-mig-enabled-mig-device-block-fb-71424-mib-cut-"
        "in-used.txt",
        "nvidia_smi_query",
        {
            "format": "q",
            "gpus_shown": 1,
            "product_names": ["NVIDIA H20-3e"],
            "memory_total_mib": [None],
            "mig_mode": ["Enabled"],
            "bus_ids": ["00000000:BA:00.0"],
        },
    ),
    (
        # "535.86.10", "12.2" around a HAMI-core line; "Attached GPUs : 1"; the V100's block
        # stops at "Mult" before its memory.
        Q_CUT_AT_MULT,
        "nvidia_smi_query",
        {
            "gpu_count": 1,
            "driver_version": "535.86.10",
            "cuda_version": "12.2",
            "product_names": ["Tesla V100-PCIE-16GB"],
            "memory_total_mib": [None],
        },
    ),
    (
        # "570.124.04", "12.8"; "NVIDIA GeForce RTX 5090" "40W /  575W" "623MiB /  32607MiB";
        # "NVIDIA GeForce RTX 4090" "28W /  450W" "15MiB /  24564MiB"; a lone "|" after GPU 1.
        "nvidia_smi/wan2gp-issue95-driver570-rtx5090-and-rtx4090-mixed-date-line-cut-in-gpu1.txt",
        "nvidia_smi",
        {
            "driver_version": "570.124.04",
            "cuda_version": "12.8",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "gpu_names": ["NVIDIA GeForce RTX 5090", "NVIDIA GeForce RTX 4090"],
            "memory_total_mib": [32607, 24564],
            "power_cap_w": [575.0, 450.0],
            "bus_ids": ["00000000:2D:00.0", "00000000:2E:00.0"],
            "persistence_mode": ["Off", "Off"],
        },
    ),
    (
        # NV8 in each of the 25 pairs shown (GPU5's row cut after four cells); NIC0..NIC7; PIX
        # for GPU2 (NIC0, NIC1) and GPU4 (NIC4, NIC5), PXB for GPU3; NUMA 0 and 1.
        "nvidia_smi_topo/vllm-issue40755-collect-env-h800-nv8-8-nics-indented-header-cut-in-"
        "gpu5.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 8,
            "nvlink_pairs": 25,
            "full_nvlink_mesh": None,
            "nvlink_min_links": 8,
            "gpu_pair_links": {"NV8": 25},
            "numa_nodes": ["0", "1"],
            "gpus_with_local_nic": 3,
        },
    ),
    (
        # NV18 in each of the 22 pairs shown (GPU4's row cut after four cells); no NIC column.
        "nvidia_smi_topo/sglang-issue12707-check-env-h100-driver550-tabs-no-nic-cut-in-gpu4.txt",
        "nvidia_smi_topo",
        {
            "gpu_count": 8,
            "nic_count": 0,
            "nvlink_pairs": 22,
            "full_nvlink_mesh": None,
            "nvlink_min_links": 18,
            "numa_nodes": ["0"],
        },
    ),
    (
        # mlx5_0, mlx5_1: MT4125, "22.43.2566", Down/Disabled, Rate 40, Ethernet; mlx5_10
        # (MT4129, "28.43.2566") ends at "State: Acti": its state is unknown, not "Acti".
        H20_IBSTAT,
        "ibstat",
        {
            "ca_count": 3,
            "port_count": 3,
            "active_port_count": 0,
            "down_port_count": 2,
            "ca_types": ["MT4125", "MT4129"],
            "link_layers": ["Ethernet"],
            "max_active_rate_gbit_s": None,
        },
    ),
    (
        # mlx5_0 MT4123 Active 200 InfiniBand; mlx5_1 Down/Disabled Rate 10; mlx5_2 MT4117
        # Active/LinkUp, cut before its Rate.
        "ibstat/nccl-tests-issue128-cx6-mt4123-hdr200-active-second-down-rate10-lid65535-then-"
        "cx4lx-mt4117-cut-before-rate.txt",
        "ibstat",
        {
            "ca_count": 3,
            "active_port_count": 2,
            "down_port_count": 1,
            "ca_types": ["MT4117", "MT4123"],
            "firmware_versions": ["14.32.1010", "20.33.1048"],
            "active_rates_gbit_s": [200.0],
            "max_active_rate_gbit_s": 200.0,
        },
    ),
    (
        # rocep33s0f0 MT4117 Down/Disabled Rate 10 Ethernet; ibp129s0f0 MT4123 Active 100
        # InfiniBand; 'rocep129s0f1' cut before its fields.
        "ibstat/ompi-issue9881-udev-renamed-rocep33s0f0-cx4lx-roce-down-ibp129s0f0-cx6-ib-100-"
        "third-ca-cut.txt",
        "ibstat",
        {
            "ca_count": 3,
            "port_count": 2,
            "active_port_count": 1,
            "down_port_count": 1,
            "link_layers": ["Ethernet", "InfiniBand"],
            "max_active_rate_gbit_s": 100.0,
        },
    ),
    (
        # "65536 1000 36.43 36.07 0.068798" under "BW peak[Gb/sec]"; rocep68s0, Ethernet,
        # GID index 1, MTU 1024, rdma_cm QPs ON.
        "perftest/ucx-issue9430-ib_send_bw-cx3-rocev1-rocep68s0-rdma-cm-gbits-rules-lost-one-row-"
        "ucx-info-after.txt",
        "perftest",
        {
            "test": "ib_send_bw",
            "report_unit": "Gb/sec",
            "device": "rocep68s0",
            "link_type": "Ethernet",
            "gid_index": 1,
            "mtu_bytes": 1024,
            "rdma_cm": True,
            "bw_avg_gbit_s": 36.07,
            "bw_peak_gbit_s": 36.43,
            "msg_rate_mpps": 0.068798,
            "max_size_bytes": 65536,
        },
    ),
    (
        # "2 1000 5.43 7.90 5.84" and nothing after: t_min and t_max whole, t_typical maybe cut.
        SEND_LAT,
        "perftest",
        {
            "test": "ib_send_lat",
            "test_type": "latency",
            "device": "mlx5_bond_0",
            "link_type": "Ethernet",
            "cpu_freq_warnings": 2,
            "lat_min_us": 5.43,
            "lat_max_us": 7.9,
            "lat_typical_us": None,
            "lat_avg_us": None,
        },
    ),
    (
        # Out-of-place busbw 93.46 .. 97.37, in-place 97.09 .. 94.80; "97.54" in-place at
        # 1 GiB is the peak; busbw/algbw 1.75 = 2(n-1)/n with n = 8; "Avg bus bandwidth :
        # 95.3009".
        RING_CUT_LABELS,
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks_inferred": 8,
            "row_count": 5,
            "peak_busbw_gbyte_s": 97.54,
            "peak_size_bytes": 1073741824,
            "avg_busbw_gbyte_s": 95.3009,
            "wrong_total": 0,
            "out_of_bounds_ok": True,
        },
    ),
    (
        # Eight rows 4 .. 512 B (the 1024 B one cut), algbw 0.00/0.01, busbw up to 0.02, the
        # largest deviation "4e-07": 16 ranks that two printed decimals cannot tell.
        H20_ROUGH,
        "nccl_tests",
        {
            "collective": "all_reduce",
            "ranks_inferred": None,
            "row_count": 8,
            "peak_busbw_gbyte_s": 0.02,
            "max_size_bytes": 512,
            "max_error": 4e-07,
            "wrong_total": None,
        },
    ),
    (
        # Sizes 0 (five rows), 128 and 256 B; count 4 for 128 B of float: 8 ranks; redop sum.
        REDUCE_SCATTER_SMALL,
        "nccl_tests",
        {
            "collective": "reduce_scatter",
            "ranks_inferred": 8,
            "row_count": 7,
            "min_size_bytes": 0,
            "max_size_bytes": 256,
            "peak_busbw_gbyte_s": 0.01,
        },
    ),
    (
        # "# Collective test concluded: broadcast_perf"; rows 256 KiB .. 128 MiB, root 0;
        # "7.18" in-place at 64 MiB; "Avg bus bandwidth : 3.41227".
        "nccl_tests/rccl-pr2075-strix-halo-broadcast-tail-collective-test-concluded-then-reduce-"
        "scatter-banner-cut.txt",
        "nccl_tests",
        {
            "collective": "broadcast",
            "collective_inferred": False,
            "row_count": 10,
            "peak_busbw_gbyte_s": 7.18,
            "peak_size_bytes": 67108864,
            "avg_busbw_gbyte_s": 3.41227,
            "out_of_bounds_ok": True,
        },
    ),
    (
        # "01:00.0 VGA compatible controller: NVIDIA Corporation Device 2684 (rev a1)".
        RTX4090_UNNAMED,
        "lspci",
        {
            "nvidia_gpu_count": 1,
            "gpu_models": ["Device 2684"],
            "device_count": 1,
            "virtual": None,
        },
    ),
    (
        # seqread: "1290555076" bytes/s, 9846.154 IOPS; full: "error" : 28, its one write
        # ("total_ios" : 1) failed at once: io_bytes 0, runtime 0, no write figure.
        "fio/fio333-dev-json-plus-two-jobs-full-write-error-28-banner-and-err-lines-before-"
        "json.txt",
        "fio",
        {
            "format": "json",
            "fio_version": "fio-3.33",
            "read_bw_mbyte_s": 1290.555,
            "read_iops": 9846.154,
            "write_bw_mbyte_s": None,
            "jobnames": ["seqread", "full"],
            "rw": ["read", "write"],
            "errors": [{"job": "full", "error": 28}],
        },
    ),
    (
        # "3;fio-3.33;seqread;0;0;16384;963764;7529;17;...": 963764 KiB/s = 986.894 MB/s.
        TERSE_BANNERS,
        "fio",
        {
            "format": "terse",
            "fio_version": "fio-3.33",
            "read_bw_mbyte_s": 986.894,
            "read_iops": 7529.0,
            "read_clat_mean_us": 125.672,
            "rw": ["read"],
            "errors": [{"job": "full", "error": 28}],
            "disks": ["vda"],
        },
    ),
]


test_real_output_figures = figures_test(EXPECTED)


REFUSED: list[Refusal] = [
    # Two -vv detail excerpts without their device line.
    (
        "lspci/geerlingguy-rpi-issue692-vv-rtx-a4000-two-space-indent-lnksta-2.5gt-downgraded-no-"
        "device-line.txt",
        "lspci",
        "lspci.detail_only",
        1,
    ),
    (
        "lspci/jan-issue183-lnkcap-lnksta-two-lines-4090-riser-2.5gt-downgraded-width-ok.txt",
        "lspci",
        "lspci.detail_only",
        1,
    ),
    # A topo -p2p status table (GNS both ways) and its legend: no topology matrix.
    (
        "nvidia_smi_topo/club-3090-issue1124-2x-rtx5090-topo-p2p-read-gns-table-and-legend-"
        "only.txt",
        "nvidia_smi_topo",
        "topo.p2p_only",
        None,
    ),
    # 2018 nccl-tests' first line and a rule after Open MPI's warning, no table.
    (
        "nccl_tests/nccl-tests-issue7-2018-openmpi-gid-prefix-warning-then-untagged-nthread-line-"
        "and-dashes-cut-before-table.txt",
        "nccl_tests",
        "nccl.nothing",
        None,
    ),
    # nvidia-smi's own failure lines, no table: an NVML/driver mismatch.
    (
        "nvidia_smi/tinygrad-ogkm-issue47-nvml-driver-library-version-mismatch-nvml-570.124-no-"
        "table.txt",
        "nvidia_smi",
        "nvidia_smi.tool_error",
        2,
    ),
    (
        "nvidia_smi/truenas-nvidia-drivers-issue19-nvml-mismatch-580.178-then-proc-driver-"
        "version-580.173.02.txt",
        "nvidia_smi",
        "nvidia_smi.tool_error",
        2,
    ),
    (
        "nvidia_smi/intel-llvm-issue17614-ci-banner-nvml-mismatch-550.144-no-table.txt",
        "nvidia_smi",
        "nvidia_smi.tool_error",
        2,
    ),
    # infiniband-diags' panic before any CA was listed.
    (
        "ibstat/rdma-core-pr239-ibpanic-stat-of-ib-device-mlx5-1-failed-invalid-argument-no-ca-"
        "listed.txt",
        "ibstat",
        "ibstat.tool_error",
        1,
    ),
    # perftest could not find the device it was given: its own two lines, mail-quoted.
    (
        "perftest/linux-rdma-list-rxe-netns-ib_send_bw-ib-device-rxe2-not-found-mail-quoted-"
        "author-note.txt",
        "perftest",
        "perftest.tool_failed",
        3,
    ),
    # dcgmi without its nv-hostengine: its two connection errors, nothing tested.
    (
        "dcgm_diag/cn-notes-dcgmi-hostengine-not-running-connection-errors-two-lines.txt",
        "dcgm_diag",
        "dcgm.tool_error",
        1,
    ),
    # The server's header and its rdma_cm wait, cut before any row.
    (
        "perftest/spdk-issue1596-ib_write_bw-bidirectional-all-run-infinitely-mlx4-roce-server-"
        "waiting-rdma-cm-cut.txt",
        "perftest",
        "perftest.no_rows",
        7,
    ),
    # The JSON cut by head after its global options; the err= line says why the run stopped.
    (
        "fio/fio-issue1685-fio336-json-io-u-error-lines-before-head-cut-in-global-options.txt",
        "fio",
        "fio.failed",
        5,
    ),
]


test_real_outputs_without_figures_are_refused = refused_test(REFUSED)


OTHER_TOOLS: list[OtherTool] = [
    OtherTool(
        "other_tools/rocm-smi-legacy-rocm-build-issue4759-amd-smi-version-rocm-smi-i-mi300x-"
        "device-id-na-cut.txt",
        "file.other_vendor_tool",
        "rocm-smi",
        "AMD",
    ),
    OtherTool(
        "other_tools/rocm-smi-lib-issue77-rocm-smi-a-driver-5.6.19-gpu-0x731f-pcie-clock-level-"
        "cut.txt",
        "file.other_vendor_tool",
        "rocm-smi",
        "AMD",
    ),
    OtherTool(
        "other_tools/rocminfo-amdsmi-issue177-rocminfo-support-rx7800xt-host-cut-in-agent1.txt",
        "file.other_vendor_tool",
        "rocminfo",
        "AMD",
    ),
    OtherTool(
        "other_tools/amd-smi-rocm-systems-pr2987-static-mi350x-gpu0-asic-bus-ifwi-driver-board-"
        "ras-serials-redacted.txt",
        "file.other_vendor_tool",
        "amd-smi",
        "AMD",
    ),
    OtherTool(
        "other_tools/rocminfo-legacy-rocm-build-issue4414-mi300x-gpu-agent-excerpt-no-banner.txt",
        "file.other_vendor_tool",
        "rocminfo",
        "AMD",
    ),
    OtherTool(
        "other_tools/dcgm-issue272-nvvs-debug-log-dcgm4.5-pcie-test-start-not-a-diag-result.txt",
        "file.unknown_kind",
    ),
    OtherTool(
        "other_tools/ucx-perftest-issue8761-table-log-final-rows-not-perftest-cut.txt",
        "file.unknown_kind",
    ),
    OtherTool(
        "other_tools/osu-put-bw-ompi-pr4919-osu-5.3-mpi-put-bandwidth-not-perftest-cut.txt",
        "file.unknown_kind",
    ),
    OtherTool(
        "other_tools/nvsentinel-pr772-preflight-dcgm-diag-jsonl-log-summary-6-passed-cut-in-"
        "health-event.txt",
        "file.unknown_kind",
    ),
]


test_other_tools_outputs_are_no_evidence = other_tools_test(OTHER_TOOLS)


def test_an_amd_tool_is_named_in_the_refusal(sample: Sample) -> None:
    # It was "not the output of a supported tool": true, but it did not say the node showed AMD
    # GPUs' tools, which is what the reader needs to know.
    text = sample(OTHER_TOOLS[0].path)
    with pytest.raises(EvidenceParseError) as caught:
        registry.parse_text(text)
    assert str(caught.value).startswith("rocm-smi output: AMD accelerators' tool, not NVIDIA GPUs'")


def test_nvidia_text_naming_rocm_is_still_read(sample: Sample) -> None:
    # The banner check runs only when no kind claimed the file: an NVIDIA output that mentions
    # ROCm in a note keeps its kind.
    text = sample(RUBIN) + "\n<!-- compared with ROCm System Management Interface output -->\n"
    assert registry.detect_kind(text) == "nvidia_smi_xml"


def test_unrepairable_memory_in_the_xml_is_read(sample: Sample) -> None:
    # <unrepairable_memory>Yes</unrepairable_memory> was dropped: -q's "Unrepairable Memory: Yes"
    # made the GPU a replacement case, the same report as XML passed as healthy memory.
    result = nvidia_smi_xml.parse(sample(RUBIN))
    gpu = result.metrics["gpus"][0]
    assert (gpu["memory_unrepairable"], gpu["channel_repair_pending"]) == (True, False)
    assert gpu["pci_device_id"] == "307F10DE"
    assert "unrepairable memory reported: the GPU needs replacement" in result.warnings


def test_the_kmd_version_stands_for_a_missing_driver_version(sample: Sample) -> None:
    # Driver 615 marks <driver_version> deprecated ("use kmd_version instead", to go in CUDA 14).
    text = sample(RUBIN).replace("\t<driver_version>615.23</driver_version>\n", "")
    text = text.replace("\t<cuda_version>13.4</cuda_version>\n", "")
    metrics = nvidia_smi_xml.parse(text).metrics
    assert (metrics["driver_version"], metrics["cuda_version"]) == ("615.23", "13.4")


def test_a_not_applicable_flag_is_no_answer_in_the_xml() -> None:
    # "N/A" read as "No": a GPU with row remapping (no page retirement) counted as a GPU that
    # reported no pending retirement.
    gpu = (
        '<nvidia_smi_log><driver_version>570.1</driver_version><gpu id="00000000:01:00.0">'
        "<product_name>NVIDIA A100-SXM4-40GB</product_name><retired_pages>"
        "<pending_retirement>N/A</pending_retirement></retired_pages><remapped_rows>"
        "<remapped_row_pending>No</remapped_row_pending></remapped_rows></gpu></nvidia_smi_log>"
    )
    metrics = nvidia_smi_xml.parse(gpu).metrics
    assert (metrics["retired_pages_pending"], metrics["remapped_rows_pending"]) == (None, 0)


@pytest.mark.parametrize(
    ("names", "warned"),
    [
        (["NVIDIA Graphics Device"], True),
        (["NVIDIA Graphics De..."], True),  # nvidia-smi cuts long names so
        (["NVIDIA GeForce RTX 4090"], False),
        (["NVIDIA Graph..."], False),  # too little left to tell
        ([None, "NVIDIA H100 80GB HBM3"], False),
    ],
)
def test_the_drivers_placeholder_name_is_flagged(names: list[str | None], warned: bool) -> None:
    assert (placeholder_gpu_name_warning(names) is not None) == warned


def test_nccl_tests_gpus_named_by_the_placeholder_are_flagged(sample: Sample) -> None:
    result = nccl.parse(
        sample("nccl_tests/coreweave-pr43-gb200-nvl72-72rank-rank71-only-graphics-device.txt")
    )
    assert any("driver's placeholder" in w for w in result.warnings)


def test_a_state_cut_on_the_last_line_is_not_a_state(sample: Sample) -> None:
    # "State: Acti" was reported as a port in state "Acti" ("mlx5_10 port 1 is Acti").
    result = ibstat.parse(sample(H20_IBSTAT))
    assert result.metrics["ports"][2]["state"] is None
    assert result.warnings[0] == (
        "line 43: the output ends inside mlx5_10 port 1's state ('Acti'): cut, not read"
    )
    assert not any(w.endswith("is Acti") for w in result.warnings)


def test_a_whole_state_word_on_the_last_line_stands() -> None:
    text = "CA 'mlx5_0'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Active\n"
    assert ibstat.parse(text).metrics["ports"][0]["state"] == "Active"


def test_the_only_latency_row_cut_short_loses_its_last_figure(sample: Sample) -> None:
    # "5.84" may be the start of a longer figure: it was read as the typical latency.
    result = perftest.parse(sample(SEND_LAT))
    assert result.metrics["sweep"] == [
        {"size_bytes": 2, "iterations": 1000, "t_min_us": 5.43, "t_max_us": 7.9}
    ]
    assert (
        "line 19: the only result row is cut short after its t_typical figure, which may itself "
        "be cut; left out"
    ) in result.warnings


def test_a_label_line_cut_to_in_place_keeps_out_of_place_first(sample: Sample) -> None:
    # "     in-place" named the first column group in-place: 93.46 (out-of-place) was read as the
    # in-place busbw and the out-of-place one was lost.
    first = nccl.parse(sample(RING_CUT_LABELS)).metrics["curve"][0]
    assert (first["out_of_place_busbw_gbyte_s"], first["in_place_busbw_gbyte_s"]) == (93.46, 97.09)


def test_rough_ratios_name_no_rank_count(sample: Sample) -> None:
    # 0.01 / 0.01 and 0.02 / 0.01 gave a median of 1.5 = 2(n-1)/n, "n = 4", for 16 ranks.
    result = nccl.parse(sample(H20_ROUGH))
    assert result.metrics["ranks_inferred"] is None
    assert result.warnings[-1] == (
        "the output does not name the collective: busbw/algbw = 1.500 (rough: every algbw is "
        "below 1 GB/s) = 2(n-1)/n (all_reduce)"
    )


def test_rough_ratios_make_no_claim_about_old_nccl_tests(sample: Sample) -> None:
    # busbw = algbw at 0.01 GB/s was taken for pre-2020 nccl-tests' busbw = algbw.
    result = nccl.parse(sample(REDUCE_SCATTER_SMALL))
    assert not any("old nccl-tests" in w for w in result.warnings)


def test_an_unnamed_nvidia_device_keeps_its_pci_id(sample: Sample) -> None:
    result = lspci.parse(sample(RTX4090_UNNAMED))
    assert result.metrics["gpus"][0]["pci_id"] == "10de:2684"
    assert result.warnings[-1] == (
        "line 2: GPU 01:00.0 is 'Device 2684': lspci's list of PCI ids is older than the card and "
        "names no model"
    )


@pytest.mark.parametrize(
    "text",
    [
        "    Capabilities: [78] Express (v2) Endpoint, MSI 00\n",  # one line is no listing
        "LnkSta: Speed 8GT/s, Width x16\nLnkCap: Port #0, Speed 8GT/s\n",  # not indented
        "    DevCap maxpayload\n    Capabilities of the board\n",
    ],
)
def test_other_text_is_not_an_lspci_detail_excerpt(text: str) -> None:
    assert lspci.detect(text) == 0


def test_a_terse_job_takes_its_options_from_its_header_line(sample: Sample) -> None:
    # The terse line has no rw or block size; fio's "seqread: (g=0): rw=read, bs=(R)
    # 128KiB-128KiB, ..., ioengine=psync, iodepth=1" above it on the same stdout has.
    jobs = {job["name"]: job for job in fio.parse(sample(TERSE_BANNERS)).metrics["jobs"]}
    seq = jobs["seqread"]
    assert (seq["rw"], seq["bs_bytes"], seq["ioengine"], seq["iodepth"]) == (
        "read",
        131072,
        "psync",
        1,
    )
    assert (jobs["full"]["rw"], jobs["full"]["error"]) == (None, 28)


def test_a_q_report_ending_inside_a_line_says_it_was_cut(sample: Sample) -> None:
    # "    Mult" (of "MultiGPU Board") ends the file: the memory and ECC values after it are
    # missing, and nothing said so.
    result = PARSERS["nvidia_smi_query"].parse(sample(Q_CUT_AT_MULT))
    assert result.warnings == (
        "line 29: the output ends at 'Mult' inside GPU 00000000:AF:00.0's block: cut there, the "
        "values after it are missing",
    )


def test_a_q_report_closed_by_a_fence_is_not_cut() -> None:
    text = (
        "GPU 00000000:01:00.0\n    Product Name : NVIDIA H100 80GB HBM3\n    FB Memory Usage\n"
        "        Total : 81559 MiB\n```\n"
    )
    assert PARSERS["nvidia_smi_query"].parse(text).warnings == ()


def test_an_arm_flag_list_without_its_architecture_line_proves_no_bare_metal(
    sample: Sample,
) -> None:
    # The paste lost the "A" of "Architecture": the ARM flag list was read as an x86 one with
    # no hypervisor flag, hypervisor False, a bare-metal sign no ARM guest could disprove.
    result = PARSERS["cpu_info"].parse(sample(GRACE_RCHITECTURE))
    assert result.metrics["hypervisor"] is None
    assert result.warnings == (
        "ARM (no Architecture line) CPU: its flag list has no hypervisor flag in a VM either, "
        "so it cannot show bare metal",
    )


def test_an_x86_flag_list_without_architecture_or_vendor_still_counts() -> None:
    text = "CPU(s): 4\nModel name: Intel(R) Xeon(R) Gold 6326\nFlags: fpu vme de pse tsc msr\n"
    assert PARSERS["cpu_info"].parse(text).metrics["hypervisor"] is False


def test_a_cut_proc_cpuinfo_gives_a_floor_and_no_count_fact(sample: Sample) -> None:
    result = PARSERS["cpu_info"].parse(sample(ALTRA_CPUINFO_CUT))
    assert (
        "the output ends inside processor 5's block: 6 processors shown, the machine may have more"
    ) in result.warnings
    assert [f.metric for f in result.facts] == []


def test_processor_lines_alone_are_a_whole_count() -> None:
    # grep processor /proc/cpuinfo: every block is one line, none is cut.
    text = "".join(f"processor\t: {i}\n" for i in range(4))
    metrics = PARSERS["cpu_info"].parse(text).metrics
    assert (metrics["logical_cpus"], metrics["logical_cpus_partial"]) == (4, None)


def test_a_write_that_failed_at_once_is_no_figure_in_json_or_terse(sample: Sample) -> None:
    # The JSON's failed job reads "io_bytes" : 0, "runtime" : 0, "total_ios" : 1: it gave a
    # write headline of 0.0 MB/s where the terse report of the same run gives none.
    json_run = fio.parse(
        sample(
            "fio/fio333-dev-json-plus-two-jobs-full-write-error-28-banner-and-err-lines-before-"
            "json.txt"
        )
    ).metrics
    terse_run = fio.parse(sample(TERSE_BANNERS)).metrics
    assert (json_run["write_bw_mbyte_s"], terse_run["write_bw_mbyte_s"]) == (None, None)
    assert json_run["groups"][0]["write_iops"] is None


_IBSTAT_TWO_PORTS = (
    "CA 'mlx5_0'\n\tCA type: MT4129\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
    "\t\tRate: 400\n\t\tLink layer: InfiniBand\nCA 'mlx5_1'\n\tCA type: MT4129\n\tPort 1:\n"
    "\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 4\n"
)


def test_a_bare_rate_ending_a_cut_port_block_is_not_read() -> None:
    # Built, not captured: ibstat prints Base lid .. Link layer after the rate, and the first
    # port shows them; "Rate: 4" ending the paste may be "400" cut.
    result = ibstat.parse(_IBSTAT_TWO_PORTS)
    assert [p["rate_gbit_s"] for p in result.metrics["ports"]] == [400.0, None]
    assert result.metrics["active_rates_gbit_s"] == [400.0]


def test_a_rate_with_its_unit_ending_the_paste_stands(sample: Sample) -> None:
    # ibstatus' "400 Gb/sec (4X" is cut after the whole number.
    path = "ibstat/deepep-issue17-h20-bf3-ibstatus-roce-200-hdr-and-400-ndr-cut-in-fourth-rate.txt"
    rates = [p["rate_gbit_s"] for p in ibstat.parse(sample(path)).metrics["ports"]]
    assert rates[-1] == 400.0


def test_an_nvml_failure_names_itself(sample: Sample) -> None:
    # "Failed to initialize NVML: ..." alone was no kind at all ("not the output of a supported
    # tool"): it is nvidia-smi saying the driver and its library do not match.
    text = sample(
        "nvidia_smi/tinygrad-ogkm-issue47-nvml-driver-library-version-mismatch-nvml-570.124-no-"
        "table.txt"
    )
    with pytest.raises(EvidenceParseError) as caught:
        registry.parse_text(text)
    assert caught.value.params == {
        "message": "Failed to initialize NVML: Driver/library version mismatch"
    }


def test_no_devices_found_is_nvidia_smis() -> None:
    assert registry.detect_kind("$ nvidia-smi\nNo devices were found\n") == "nvidia_smi"


@pytest.mark.parametrize(
    "text",
    [
        "dcgm: the check 'No devices were found on the bus' passed\n",  # not at a line's start
        "error: Failed to initialize NVML in the container\n",  # no colon after NVML
    ],
)
def test_prose_about_nvml_is_not_nvidia_smi(text: str) -> None:
    assert registry.detect_kind(text) != "nvidia_smi"


def test_an_ibpanic_alone_is_ibstats_error() -> None:
    # Built from libibmad's IBPANIC format: was "not the output of a supported tool".
    text = "$ ibstat\nibpanic: [1323906] main: stat of IB device 'mlx5_8' failed: No such file\n"
    assert registry.detect_kind(text) == "ibstat"
    with pytest.raises(EvidenceParseError) as caught:
        ibstat.parse(text)
    assert (caught.value.code, caught.value.line) == ("ibstat.tool_error", 2)
