"""Key figures of the real outputs added in the ninth corpus batch, read by hand from each file.

The shapes: nvidia-smi on 2x H20 (driver 580, confidential-computing guest) and 2x A800 PCIe cut
inside the table; nvidia-smi -q -d MEMORY,PERFORMANCE (580, "CUDA Version : Not Found") cut in its
first of 4 GPU blocks, and a grep -E of -q naming an H200; MIG profile rows of an H200 pasted
without their heading; nvlink -s of A100 printing integer rates ("25 GB/s") under a tab and a
blank, elided after GPU 2's first link, and nvlink -R of an HGX H100 (18 links to 4 NVSwitches) cut
inside a remote device; -x -q XML of driver 535 (v12), 430 (v10, 4 GPUs attached, tabs, behind its
prompt) and 390 (v9, no cuda_version, a masked UUID), each cut inside its first <gpu>; lspci -d
10de: of 4 H200 and NVSwitch bridges ending inside a name, a ConnectX-6 Dx -vv block cut before its
LnkSta, and the -tv tree of an Azure NC24rs_v3 VM; ibv_devinfo with udev-renamed devices
(rdmaP.../ibP...) cut in the second device, and -v of MLNX_OFED (exp flags, tabs) cut before its
port; vLLM's collect_env with a 256-CPU lscpu missing CPU 128 cut in its model name; dmidecode 3.1
of an OpenStack Compute VM, and 3.2 of a Nutanix AHV guest after systemd-detect-virt and virt-what
named the wrong hypervisor; a dmesg of an L40S the 570 driver does not support, its message over
indented NVRM lines, no Xid; nvbandwidth device_local_copy on 8x H20-3e with its host name line and
a NOTE cut.
"""

from __future__ import annotations

import pytest

from scoring.evidence import PARSERS, cpu_info, ibstat, lspci, nvidia_smi_mig
from tests.scoring.evidence.real_outputs import Figures, Refusal, Sample, figures_test, refused_test

EXPECTED: list[Figures] = [
    (
        # Two "NVIDIA H20" blocks, "74W /  500W" and "75W /  500W", "0MiB /  97871MiB", MIG
        # "N/A"; the file ends at a lone "|" after GPU1's memory line: cut, 2 is a lower bound.
        "nvidia_smi/nvtrust-issue128-h20-driver580-cc-guest-date-line-cut-in-gpu1-after-memory-line.txt",
        "nvidia_smi",
        {
            "driver_version": "580.95.05",
            "cuda_version": "13.0",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "gpu_names": ["NVIDIA H20", "NVIDIA H20"],
            "memory_total_mib": [97871, 97871],
            "power_cap_w": [500.0, 500.0],
            "bus_ids": ["00000000:01:00.0", "00000000:02:00.0"],
            "persistence_mode": ["On", "On"],
            "mig_mode": [None, None],
            "ecc_volatile_uncorrected": [0, 0],
        },
    ),
    (
        # "NVIDIA A800 80GB PCIe" at 01:00.0 and 81:00.0, "0MiB /  81920MiB", 300W caps, MIG
        # Disabled; the closing border is cut after "+-----------------".
        "nvidia_smi/hami-issue1903-2x-a800-80gb-pcie-driver580-mig-disabled-command-line-cut-in-border.txt",
        "nvidia_smi",
        {
            "driver_version": "580.119.02",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "gpu_names": ["NVIDIA A800 80GB PCIe", "NVIDIA A800 80GB PCIe"],
            "memory_total_mib": [81920, 81920],
            "power_cap_w": [300.0, 300.0],
            "mig_mode": ["Disabled", "Disabled"],
        },
    ),
    (
        # "Attached GPUs : 4", one block "GPU 00000000:42:00.0" (P8) cut at "    Spars";
        # "CUDA Version : Not Found" is no version. -d MEMORY never reached its memory lines.
        "nvidia_smi_query/cubecos-issue312-q-d-memory-performance-driver580-cuda-not-found-4-attached-cut-in-first-gpu.txt",
        "nvidia_smi_query",
        {
            "format": "q",
            "gpu_count": 4,
            "gpus_shown": 1,
            "driver_version": "580.105.06",
            "cuda_version": None,
            "bus_ids": ["00000000:42:00.0"],
            "memory_total_mib": [None],
        },
    ),
    (
        # A grep of -q: "Product Name : NVIDIA H200", "Device Id : 0x233510DE"; no GPU header,
        # no total.
        "nvidia_smi_query/mig-parted-issue120-q-grep-e-product-name-architecture-part-numbers-device-id-h200-prompt.txt",
        "nvidia_smi_query",
        {"gpu_count": None, "gpus_shown": 1, "product_names": ["NVIDIA H200"]},
    ),
    (
        # GPU 6 profiles: 1g.18gb (ID 19, 7/7, 16.00 GiB, 16 SM), 1g.18gb+me (20, 1/1),
        # 1g.35gb (15, 4/4, 32.25, 26 SM), 2g.35gb (14, 3/3, 32.25, 32 SM), 3g.71gb (9, 2/2,
        # 69.50, 60 SM), 4g.71gb (5, 1/1, 69.50, 64 SM); the 7g row is beyond the cut.
        "nvidia_smi_mig/mig-parted-issue120-h200-lgip-rows-without-header-gpu6-1g18gb-to-4g71gb-cut-in-border.txt",
        "nvidia_smi_mig",
        {
            "tables": ["lgip"],
            "gpus": [6],
            "profile_count": 6,
            "profiles": [
                {
                    "gpu": 6,
                    "profile": p,
                    "profile_id": i,
                    "free": f,
                    "total": f,
                    "memory_gib": m,
                    "p2p": False,
                    "sm": sm,
                }
                for p, i, f, m, sm in (
                    ("1g.18gb", 19, 7, 16.0, 16),
                    ("1g.18gb+me", 20, 1, 16.0, 16),
                    ("1g.35gb", 15, 4, 32.25, 26),
                    ("2g.35gb", 14, 3, 32.25, 32),
                    ("3g.71gb", 9, 2, 69.5, 60),
                    ("4g.71gb", 5, 1, 69.5, 64),
                )
            ],
            "gpu_instance_count": 0,
        },
    ),
    (
        # GPU 0 and GPU 1: Link 0..11 at "25 GB/s" each; GPU 2 shows Link 0, then "......".
        "nvidia_smi_nvlink/nccl-tests-issue228-a100-sxm4-80gb-12x25-integer-rate-tab-space-indent-gpu2-elided.txt",
        "nvidia_smi_nvlink",
        {
            "gpu_count": 3,
            "links_per_gpu": 12,
            "link_gbyte_s": 25.0,
            "link_gbyte_s_min": 25.0,
            "inactive_links": 0,
        },
    ),
    (
        # GPU 0: Links 0-17 to 00000000:05..08:00.0 (four NVSwitches, 4+5+5+4 links); GPU 1: Link
        # 0 and 1 to 08:00.0, then "Link 2: Remote Device 00": cut, so GPU 1's count is unknown.
        "nvidia_smi_nvlink/nccl-issue1182-hgx-h100-nvlink-R-18-links-to-4-nvswitches-prompt-cut-in-gpu1.txt",
        "nvidia_smi_nvlink",
        {
            "gpu_count": 2,
            "links_per_gpu": 18,
            "link_gbyte_s": None,
            "remote_devices": {
                "0": [f"00000000:0{b}:00.0" for b in (5, 6, 7, 8)],
                "1": ["00000000:08:00.0"],
            },
        },
    ),
    (
        # v12 DTD, driver 535.86.05, CUDA 12.2, "attached_gpus 1"; the <gpu> of the RTX 4090
        # stops inside <driver_model>: no complete GPU element.
        "nvidia_smi_xml/netdata-issue15755-rtx4090-driver535-v12-one-gpu-cut-in-driver-model.xml.txt",
        "nvidia_smi_xml",
        {
            "driver_version": "535.86.05",
            "cuda_version": "12.2",
            "attached_gpus": 1,
            "dtd": "nvsmi_device_v12.dtd",
            "gpu_count": 0,
        },
    ),
    (
        # "attached_gpus 4", the first <gpu> (GTX 1080) cut at "<virtualization_mode>".
        "nvidia_smi_xml/a0s-exporter-issue1-q-x-prompt-4-attached-gtx1080-driver430-v10-tabs-cut-in-first-gpu.xml.txt",
        "nvidia_smi_xml",
        {
            "driver_version": "430.26",
            "cuda_version": "10.2",
            "attached_gpus": 4,
            "dtd": "nvsmi_device_v10.dtd",
            "gpu_count": 0,
        },
    ),
    (
        # Driver 390.157 prints no <cuda_version>; the GeForce 410M's <gpu> stops at "<infor".
        "nvidia_smi_xml/1panel-issue9504-geforce-410m-driver390-v9-no-cuda-version-uuid-masked-cut-in-inforom.xml.txt",
        "nvidia_smi_xml",
        {
            "driver_version": "390.157",
            "cuda_version": None,
            "attached_gpus": 1,
            "dtd": "nvsmi_device_v9.dtd",
            "gpu_count": 0,
        },
    ),
    (
        # 19, 3b, 4c, 5d: "GH100 [H200 SXM 141GB]"; 83..86 NVSwitch bridges, 86's name cut at
        # "[H100 N": the other H200 (buses after 86) are missing, 4 is a lower bound.
        "lspci/gpu-admin-tools-issue8-lspci-d-10de-4x-h200-sxm-then-nvswitch-bridges-cut-in-fourth.txt",
        "lspci",
        {
            "nvidia_gpu_count": 4,
            "gpu_count_partial": "cut_line",
            "gpu_models": ["H200 SXM 141GB"],
            "device_count": 8,
            "nvswitch_count": 4,
            "virtual": False,
            "physical_signals": ["NVSwitch bridge"],
        },
    ),
    (
        # The -tv tree: four "Tesla V100 PCIe 16GB", each the only device (00.0) of domains e532,
        # cac4, 2113 and 075d; a ConnectX-3 VF with no PF; 440BX host bridge; Hyper-V VGA.
        "lspci/nccl-tests-issue36-azure-nc24rs-v3-lspci-tv-4x-v100-vpci-domains-cx3-vf-440bx.txt",
        "lspci",
        {
            "nvidia_gpu_count": 4,
            "gpu_models": ["Tesla V100 PCIe 16GB"],
            "device_count": 10,
            "virtual": True,
            "vpci_domains": ["e532", "cac4", "2113", "075d"],
            "mellanox_functions": 1,
            "physical_signals": [],
        },
    ),
    (
        # One ConnectX-6 Dx function (b3:00.0, "Mellanox Technologies MT2892 Family"), no GPU.
        "lspci/l2fwd-nv-issue6-cx6dx-lspci-vv-space-indented-lnkcap-16gt-x16-cut-before-lnksta.txt",
        "lspci",
        {
            "nvidia_gpu_count": 0,
            "device_count": 1,
            "mellanox_functions": 1,
            "virtual": False,
            "physical_signals": ["Mellanox ConnectX physical function"],
        },
    ),
    (
        # rdmaP23800p0s2: vendor_part_id 4118, fw 14.25.8102, PORT_ACTIVE, Ethernet; the second
        # device ibP57247p0s2 (4120) is cut at "board_id:", before its port.
        "ibstat/azhpc-images-pr44-ibv-devinfo-prompt-udev-renamed-rdmaP-ibP-cx4lx-ethernet-mtu1024-cut-in-board-id.txt",
        "ibstat",
        {
            "format": "ibv_devinfo",
            "ca_count": 2,
            "port_count": 1,
            "active_port_count": 1,
            "ca_types": ["MT4118"],
            "firmware_versions": ["14.25.8102"],
            "link_layers": ["Ethernet"],
            "max_active_rate_gbit_s": None,
        },
    ),
    (
        # "CPU(s): 256", "On-line CPU(s) list: 0-127,129-255", "Vendor ID: AuthenticAMD",
        # "Model name: AMD EPY" (cut); no Flags, no Socket(s) line before the cut.
        "cpu_info/vllm-issue8665-collect-env-4x-h100-lscpu-256-cpus-one-offline-cut-in-model-name.txt",
        "cpu_info",
        {
            "format": "lscpu",
            "logical_cpus": 256,
            "vendor_id": "AuthenticAMD",
            "architecture": "x86_64",
            "hypervisor": None,
            "sockets": None,
        },
    ),
    (
        # "Manufacturer: Red Hat", "Product Name: OpenStack Compute": an OpenStack (KVM) guest.
        "dmi/ignition-dracut-pr8-dmidecode3.1-t-system-sysfs-red-hat-openstack-compute-vm.txt",
        "dmi",
        {
            "products": ["OpenStack Compute"],
            "manufacturers": ["Red Hat"],
            "virtual": True,
            "system_count": 1,
            "dmidecode_version": "3.1",
            "smbios_version": "2.8",
        },
    ),
    (
        # systemd-detect-virt "microsoft" and virt-what "hyperv" come first, then dmidecode:
        # "Vendor: SeaBIOS", "Manufacturer: Nutanix", "Product Name: AHV", chassis "Version: RHEL
        # 7.3.0 PC (i440FX + PIIX, 1996)": a KVM guest whatever the two tools said.
        "dmi/uyuni-issue2112-nutanix-ahv-vm-detect-virt-microsoft-virt-what-hyperv-then-dmidecode3.2-cut-in-chassis.txt",
        "dmi",
        {
            "products": ["AHV"],
            "manufacturers": ["Nutanix"],
            "bios_vendors": ["SeaBIOS"],
            "chassis_types": ["Other"],
            "virtual": True,
            "record_count": 3,
            "dmidecode_version": "3.2",
        },
    ),
    (
        # "The NVIDIA GPU 0000:05:00.0 (PCI ID: 10de:26b9)" and five indented "NVRM:" lines (not
        # supported by the 570.86.15 release), "probe routine failed", "None of the NVIDIA
        # devices were initialized": 3 prefixed lines of 8, all the driver's; no Xid.
        "kernel_log/gpu-operator-issue1371-dmesg-l40s-26b9-not-supported-by-570-probe-failed-none-initialized.txt",
        "kernel_log",
        {
            "xid_count": 0,
            "xid_codes": [],
            "gpu_fallen_off_bus": False,
            "format": "dmesg",
            "kernel_lines": 3,
            "line_count": 8,
            "nvidia_driver_lines": 8,
        },
    ),
    (
        # Eight "NVIDIA H20-3e"; one row of 8 cells, 1115.72..1117.17 GB/s; "SUM
        # device_local_copy 8930.99" = 1116.30 x 3 + 1116.16 x 2 + 1115.72 + 1116.88 + 1117.17.
        "nvbandwidth/nvbw-issue48-v0.8-8x-h20-3e-device-local-copy-prompt-hostname-line-note-cut.txt",
        "nvbandwidth",
        {
            "nvbandwidth_version": "v0.8",
            "driver_version": "550.127.08",
            "device_count": 8,
            "device_names": ["NVIDIA H20-3e"],
            "testcase_names": ["device_local_copy"],
            "waived": 0,
            "errors": [],
        },
    ),
]


test_real_output_figures = figures_test(EXPECTED)


REFUSED: list[Refusal] = [
    # ibv_devinfo -v's device lines down to "log atomic arg size": no port, nothing to read.
    (
        "ibstat/ompi-pr6184-ibv-devinfo-v-mlnx-ofed-exp-cap-flags-tabs-cut-before-port.txt",
        "ibstat",
        "ibstat.no_ports",
        1,
    ),
]


test_real_outputs_without_figures_are_refused = refused_test(REFUSED)


def test_the_local_copy_matrix_and_its_sum(sample: Sample) -> None:
    metrics = (
        PARSERS["nvbandwidth"]
        .parse(
            sample(
                "nvbandwidth/nvbw-issue48-v0.8-8x-h20-3e-device-local-copy-prompt-hostname-line-note-cut.txt"
            )
        )
        .metrics
    )
    case = metrics["testcases"]["device_local_copy"]
    assert case["matrix"] == [[1116.3, 1116.3, 1115.72, 1116.16, 1116.16, 1116.88, 1117.17, 1116.3]]
    assert (case["sum_gbyte_s"], case["min_gbyte_s"], case["max_gbyte_s"]) == (
        8930.99,
        1115.72,
        1117.17,
    )


def test_collect_env_cpu_heading_does_not_hide_the_cpu_count(sample: Sample) -> None:
    # "CPU:" (collect_env's heading) reads as the zh_CN "CPU(s)" label: it used to take the
    # key and drop "CPU(s): 256" (logical CPUs unknown).
    result = cpu_info.parse(
        sample(
            "cpu_info/vllm-issue8665-collect-env-4x-h100-lscpu-256-cpus-one-offline-cut-in-model-name.txt"
        )
    )
    assert result.metrics["logical_cpus"] == 256
    assert "no 'CPU(s)' line: logical CPU count unknown" not in result.warnings


# The two DeepEP listings are earlier batches' samples: cut the same way, flagged since batch 9.
@pytest.mark.parametrize(
    ("path", "warning"),
    [
        (
            "ibstat/azhpc-images-pr44-ibv-devinfo-prompt-udev-renamed-rdmaP-ibP-cx4lx-ethernet-mtu1024-cut-in-board-id.txt",
            "CA ibP57247p0s2 shows no port (truncated output?)",
        ),
        (
            "ibstat/deepep-issue38-ibv-devinfo-cx7-4129-ib-port-down-lid-65535-container-prompt-cut.txt",
            "CA mlx5_1 shows no port (truncated output?)",
        ),
        (
            "ibstat/deepep-issue17-h20-bf3-ibstatus-roce-200-hdr-and-400-ndr-cut-in-fourth-rate.txt",
            "mlx5_3 port 1: no link layer line (truncated output?)",
        ),
    ],
)
def test_an_infiniband_listing_cut_in_its_last_device_says_so(
    sample: Sample, path: str, warning: str
) -> None:
    assert warning in ibstat.parse(sample(path)).warnings


def test_a_lspci_listing_cut_inside_a_name_is_a_lower_bound(sample: Sample) -> None:
    result = lspci.parse(
        sample(
            "lspci/gpu-admin-tools-issue8-lspci-d-10de-4x-h200-sxm-then-nvswitch-bridges-cut-in-fourth.txt"
        )
    )
    assert result.warnings == (
        "line 9: the listing ends inside a device's name: it was cut there, and the devices "
        "after it are missing",
    )


def test_headless_mig_profile_rows_warn_that_rows_above_may_be_missing(sample: Sample) -> None:
    result = nvidia_smi_mig.parse(
        sample(
            "nvidia_smi_mig/mig-parted-issue120-h200-lgip-rows-without-header-gpu6-1g18gb-to-4g71gb-cut-in-border.txt"
        )
    )
    assert result.warnings == (
        "line 1: rows without their table heading (the listing was cut above them): read as "
        "-lgip rows by their shape; rows before may be missing",
    )


@pytest.mark.parametrize(
    ("path", "warning"),
    [
        (
            "nvidia_smi_xml/a0s-exporter-issue1-q-x-prompt-4-attached-gtx1080-driver430-v10-tabs-cut-in-first-gpu.xml.txt",
            "attached_gpus says 4 but 0 complete <gpu> elements",
        ),
        (
            "nvidia_smi_query/cubecos-issue312-q-d-memory-performance-driver580-cuda-not-found-4-attached-cut-in-first-gpu.txt",
            "1 of 4 attached GPUs shown (excerpt or -i filter)",
        ),
        (
            "nvidia_smi_nvlink/nccl-tests-issue228-a100-sxm4-80gb-12x25-integer-rate-tab-space-indent-gpu2-elided.txt",
            "GPU 2: its link list is cut by an excerpt marker; its active links are unknown",
        ),
        (
            "nvidia_smi_nvlink/nccl-issue1182-hgx-h100-nvlink-R-18-links-to-4-nvswitches-prompt-cut-in-gpu1.txt",
            "GPU 1: its link list ends in a cut line (24); its active links are unknown",
        ),
        (
            "kernel_log/gpu-operator-issue1371-dmesg-l40s-26b9-not-supported-by-570-probe-failed-none-initialized.txt",
            "line 2: the NVIDIA driver could not bring a GPU up: that GPU logs no Xid, so their "
            "absence does not mean healthy GPUs",
        ),
    ],
)
def test_partial_real_outputs_are_flagged(sample: Sample, path: str, warning: str) -> None:
    kind = path.split("/")[0]
    assert warning in PARSERS[kind].parse(sample(path)).warnings
