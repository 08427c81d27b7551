"""Key figures of the real outputs added in the twelfth corpus batch, read by hand from each file.

The batch is about the machines Chinese buyers rent and the locale their tools print in: lscpu in
the partly translated zh_CN catalogue of CentOS 7 (English "CPU(s):" beside "座", "厂商 ID",
"超管理器厂商" ending in the full-width colon) from Alibaba-Cloud-style KVM guests and from a
Hygon C86 7280 bare-metal server, one with a reader's notes after a tab; Xinchuang CPUs on bare
metal (Phytium D2000 / FT-2000/4 lscpu, Phytium and Kunpeng 920 /proc/cpuinfo cut, one Hygon
7285 processor block quoted from a 64-thread host); Alibaba Cloud ECS dmidecode and lspci; DMI
read from /sys/class/dmi/id (Huawei's OpenStack Nova, Alibaba ECS, Parallels, Hyper-V); A800 and
H20 nvidia-smi tables; and Huawei Ascend npu-smi, refused then as another vendor's tool and read
now as its own kind (npu_smi, test_npu_smi).
"""

from __future__ import annotations

import pytest

from scoring.evidence import cpu_info, dmi, registry
from scoring.evidence.base import EvidenceParseError
from scoring.verification.bare_metal import signal_zh, verify_bare_metal
from scoring.verification.model import Claims, NodeEvidence
from tests.scoring.evidence.real_outputs import (
    Figures,
    Sample,
    figures_test,
)

HYGON_LSCPU = (
    "cpu_info/cn-blog-hygon-c86-7280-2s-128cpu-lscpu-zh-cn-partly-translated-virtualization-amd-v-"
    "no-flags.txt"
)
HYGON_EXCERPT = (
    "cpu_info/secretflow-spu-issue158-hygon-c86-7285-proc-cpuinfo-processor48-svm-no-hypervisor-"
    "cut-at-clflush.txt"
)
ANNOTATED = (
    "cpu_info/cn-ops-notes-kvm-vm-xeon-6240r-lscpu-zh-cn-socket-fullwidth-colon-annotations-after-"
    "tab.txt"
)
ECS_DMI = (
    "dmi/cn-linux-notes-aliyun-ecs-dmidecode3.2-t-system-then-t-1-same-host-markdown-indented.txt"
)
NOVA_SYSFS = (
    "dmi/systemd-issue23116-huawei-openstack-nova-arm-vm-cat-sys-class-dmi-product-name-quoted.txt"
)
HUAWEI_ATLAS = (
    "dmi/llm-action-kylin-v10-huawei-atlas-a800i-a2-dmidecode3.2-t-system-oem-placeholders.txt"
)
KUNPENG_CPUINFO = (
    "cpu_info/arm-socs-table-issue86-taishan-2280-kunpeng920-proc-cpuinfo-hisilicon-0x48-d01-cut-"
    "in-processor4.txt"
)
ECS_NODE = (
    ECS_DMI,
    "lspci/freebsd-ask-aliyun-ecs-rocky95-lspci-i440fx-cirrus-virtio-prompt.txt",
    "cpu_info/cn-notes-cloud-vm-xeon-8269cy-4cpu-lscpu-zh-cn-partly-translated-kvm-flags-"
    "english.txt",
)
EC2_BIOS = (
    "dmi/erddap-gold-standard-notes-aws-ec2-dmidecode3.2-t-bios-system-is-a-virtual-machine-"
    "indented.txt"
)
NPU_SMI = [
    "npu_smi/hami-webui-issue47-npu-smi-25.2.0-info-2x-910b4-1-bus-id-masked-bottom-border-"
    "missing.txt",
    "npu_smi/vllm-ascend-issue2534-npu-smi-info-no-banner-a3-ascend910-chip-phy-id-two-chips-per-"
    "npu-cut.txt",
]

EXPECTED: list[Figures] = [
    (
        # "CPU(s): 128", "座: 2", "每个座" absent: "Core(s) per socket: 32" in English,
        # "厂商 ID: HygonGenuine", "虚拟化: AMD-V"; no Flags line, no "超管理器厂商" line.
        HYGON_LSCPU,
        "cpu_info",
        {
            "logical_cpus": 128,
            "hypervisor": None,
            "hypervisor_vendor": None,
            "cpu_virtualization": "AMD-V",
            "vendor_id": "HygonGenuine",
            "model_name": "Hygon C86 7280 32-core Processor",
            "sockets": 2,
            "cores_per_socket": 32,
            "threads_per_core": 2,
            "numa_nodes": 2,
        },
    ),
    (
        # "虚拟化: AMD-V" offered to guests and "超管理器厂商: KVM", "虚拟化类型: 完全".
        "cpu_info/cn-blog-ecs-epyc-7h12-64cpu-lscpu-zh-cn-partly-translated-amd-v-and-hypervisor-"
        "kvm.txt",
        "cpu_info",
        {
            "logical_cpus": 64,
            "hypervisor": True,
            "hypervisor_vendor": "KVM",
            "virtualization_type": "full",
            "cpu_virtualization": "AMD-V",
            "vendor_id": "AuthenticAMD",
            "sockets": 2,
        },
    ),
    (
        # 4 vCPUs of a Xeon Platinum 8269CY, "超管理器厂商: KVM" and "hypervisor" in Flags.
        "cpu_info/cn-notes-cloud-vm-xeon-8269cy-4cpu-lscpu-zh-cn-partly-translated-kvm-flags-"
        "english.txt",
        "cpu_info",
        {
            "logical_cpus": 4,
            "hypervisor": True,
            "hypervisor_vendor": "KVM",
            "model_name": "Intel(R) Xeon(R) Platinum 8269CY CPU @ 2.50GHz",
            "sockets": 1,
            "cores_per_socket": 2,
        },
    ),
    (
        # "CPU(s): 4\t\t--cpu核心数", "Socket(s): 1\t--cpu个数", the model "...2.40GHz\t --cpu型号".
        ANNOTATED,
        "cpu_info",
        {
            "logical_cpus": 4,
            "hypervisor": True,
            "hypervisor_vendor": "KVM",
            "model_name": "Intel(R) Xeon(R) Gold 6240R CPU @ 2.40GHz",
            "sockets": 1,
            "threads_per_core": 2,
        },
    ),
    (
        # "每个核的线程数: 1" without a blank after the colon; "Socket(s):" in English.
        "cpu_info/cn-code-comment-kvm-vm-core2-t7700-lscpu-zh-cn-mixed-labels-no-space-after-"
        "colon.txt",
        "cpu_info",
        {
            "logical_cpus": 2,
            "hypervisor": True,
            "hypervisor_vendor": "KVM",
            "threads_per_core": 1,
            "cores_per_socket": 2,
            "sockets": 1,
        },
    ),
    (
        # aarch64, "Vendor ID: Phytium", "Model name: FTC663", 8 CPUs, ARM flags.
        "cpu_info/core-to-core-latency-issue103-phytium-d2000-ftc663-lscpu-8cpu-bare-metal.txt",
        "cpu_info",
        {
            "logical_cpus": 8,
            "hypervisor": None,
            "architecture": "aarch64",
            "vendor_id": "Phytium",
            "model_name": "FTC663",
            "sockets": 1,
            "cores_per_socket": 8,
        },
    ),
    (
        # "Vendor ID: 0x70", "Model name: FT-2000/4", flags in 32-bit ARM words.
        "cpu_info/cpufetch-issue125-phytium-ft2000-4-lscpu-old-layout-vendor-0x70-arm32-style-"
        "flags.txt",
        "cpu_info",
        {
            "logical_cpus": 4,
            "hypervisor": None,
            "architecture": "aarch64",
            "vendor_id": "0x70",
            "model_name": "FT-2000/4",
        },
    ),
    (
        # Six "processor" blocks, the sixth cut at "CPU architectur".
        "cpu_info/arm-socs-table-issue24-phytium-d2000-proc-cpuinfo-model-name-phytium-comma-cut-"
        "in-processor5.txt",
        "cpu_info",
        {
            "format": "proc_cpuinfo",
            "logical_cpus": 6,
            "logical_cpus_partial": "cut",
            "hypervisor": None,
            "model_name": "Phytium,D2000/8",
        },
    ),
    (
        # Five blocks, the fifth cut inside Features; no "model name" on this ARM kernel.
        KUNPENG_CPUINFO,
        "cpu_info",
        {
            "format": "proc_cpuinfo",
            "logical_cpus": 5,
            "logical_cpus_partial": "cut",
            "hypervisor": None,
            "model_name": None,
        },
    ),
    (
        # "processor : 48" alone, flags with "svm" and without "hypervisor".
        HYGON_EXCERPT,
        "cpu_info",
        {
            "format": "proc_cpuinfo",
            "logical_cpus": 49,
            "logical_cpus_partial": "numbering",
            "hypervisor": False,
            "vendor_id": "HygonGenuine",
            "model_name": "Hygon C86 7285 32-core Processor",
            "sockets": None,
        },
    ),
    (
        # "535.86.10", "12.2"; "NVIDIA A800-SXM4-80GB" "125W / 400W" "34447MiB / 81920MiB" at
        # 27:00.0 and 2A:00.0; a lone "|" after GPU 1's second row.
        "nvidia_smi/dexbotic-issue41-container-a800-sxm4-80gb-driver535-zsh-prompt-cut-in-gpu1.txt",
        "nvidia_smi",
        {
            "driver_version": "535.86.10",
            "cuda_version": "12.2",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "gpu_names": ["NVIDIA A800-SXM4-80GB", "NVIDIA A800-SXM4-80GB"],
            "memory_total_mib": [81920, 81920],
            "power_cap_w": [400.0, 400.0],
            "bus_ids": ["00000000:27:00.0", "00000000:2A:00.0"],
        },
    ),
    (
        # "550.54.15"; "NVIDIA A800 80GB PCIe" "62W /  300W" "77187MiB /  81920MiB" at 4F and 50.
        "nvidia_smi/vllm-issue41519-a800-80gb-pcie-driver550-two-shown-cut-after-gpu1-name.txt",
        "nvidia_smi",
        {
            "driver_version": "550.54.15",
            "gpu_count": 2,
            "gpu_names": ["NVIDIA A800 80GB PCIe", "NVIDIA A800 80GB PCIe"],
            "memory_total_mib": [81920, 81920],
            "power_cap_w": [300.0, 300.0],
            "bus_ids": ["00000000:4F:00.0", "00000000:50:00.0"],
        },
    ),
    (
        # "580.95.05", "13.0"; "NVIDIA H20" "74W /  500W" "0MiB /  97871MiB" at 01 and 02.
        "nvidia_smi/nvtrust-issue128-sev-snp-guest-h20-driver580-bus-01-02-cut-in-gpu1.txt",
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
        },
    ),
    (
        # Ten devices: 440FX, PIIX3/4, Cirrus GD 5446, four virtio devices; no GPU.
        "lspci/freebsd-ask-aliyun-ecs-rocky95-lspci-i440fx-cirrus-virtio-prompt.txt",
        "lspci",
        {
            "device_count": 10,
            "nvidia_gpu_count": 0,
            "virtual": True,
            "virtual_signals": [
                "emulated Intel 440FX chipset",
                "emulated Cirrus Logic VGA",
                "virtio device (Red Hat, Inc. Virtio console)",
                "virtio device (Red Hat, Inc. Virtio block device)",
                "virtio device (Red Hat, Inc. Virtio network device)",
                "virtio device (Red Hat, Inc. Virtio memory balloon)",
            ],
        },
    ),
    (
        # "Manufacturer: Alibaba Cloud", "Product Name: Alibaba Cloud ECS", "Version:
        # pc-i440fx-2.1", twice (two runs on one host).
        ECS_DMI,
        "dmi",
        {
            "products": ["Alibaba Cloud ECS", "Alibaba Cloud ECS"],
            "manufacturers": ["Alibaba Cloud", "Alibaba Cloud"],
            "virtual": True,
            "virtual_signals": [
                "System Product Name 'Alibaba Cloud ECS' (Alibaba Cloud ECS)",
                "System Version 'pc-i440fx-2.1' (QEMU/KVM i440FX machine type)",
            ],
            "dmidecode_version": "3.2",
            "smbios_version": "2.8",
        },
    ),
    (
        # "cat /sys/class/dmi/id/product_name" then "OpenStack Nova", markdown-quoted.
        NOVA_SYSFS,
        "dmi",
        {
            "products": ["OpenStack Nova"],
            "virtual": True,
            "virtual_signals": ["System Product Name 'OpenStack Nova' (OpenStack)"],
            "system_count": 1,
        },
    ),
    (
        # "/sys/class/dmi/id/product_name: Alibaba Cloud ECS".
        "dmi/systemd-pr43347-aliyun-ecs-arm64-vm-sys-class-dmi-id-product-name-path-colon-value-"
        "excerpt.txt",
        "dmi",
        {
            "products": ["Alibaba Cloud ECS"],
            "manufacturers": [],
            "virtual": True,
        },
    ),
    (
        # Five cat commands, each value on the next line; product_version "None".
        "dmi/systemd-issue23856-parallels-cat-sys-class-dmi-id-five-files-nix-shell-prompts.txt",
        "dmi",
        {
            "products": ["Parallels Virtual Platform"],
            "manufacturers": ["Parallels Software International Inc."],
            "bios_vendors": ["Parallels Software International Inc."],
            "virtual": True,
        },
    ),
    (
        # "已发送 4 个包" and "已接收 4 个包" (full-width comma between), "0% packet loss";
        # "rtt min/avg/max/mdev = 0.533/0.635/0.695/0.063 ms"; four "来自 ... 时间=" replies.
        "rtt/cn-blog-sangfor-lab-ping-zh-cn-iputils-fullwidth-comma-ctrl-c-4-replies-prompt.txt",
        "rtt",
        {
            "target": "172.16.100.254",
            "transmitted": 4,
            "received": 4,
            "loss_pct": 0.0,
            "rtt_min_ms": 0.533,
            "rtt_avg_ms": 0.635,
            "rtt_max_ms": 0.695,
            "reply_count": 4,
            "from_replies": False,
        },
    ),
    (
        # No PING header: the one reply kept is not tied to a target; the summary gives all.
        "rtt/cn-tool-notes-ping-c4-zh-cn-one-reply-line-shown-stats-4-of-4.txt",
        "rtt",
        {
            "target": "1.1.1.1",
            "transmitted": 4,
            "received": 4,
            "rtt_avg_ms": 88.479,
            "rtt_max_ms": 101.094,
            "from_replies": False,
        },
    ),
    (
        # "Manufacturer: Huawei", "Product Name: A800I A2", the rest "To be filled by O.E.M.".
        HUAWEI_ATLAS,
        "dmi",
        {
            "products": ["A800I A2"],
            "manufacturers": ["Huawei"],
            "virtual": False,
            "virtual_signals": [],
            "smbios_version": "3.3.0",
        },
    ),
    (
        # "Vendor: Amazon EC2" and the characteristic "System is a virtual machine"; no System
        # Information record.
        EC2_BIOS,
        "dmi",
        {
            "bios_vendors": ["Amazon EC2"],
            "system_count": 0,
            "virtual": True,
            "virtual_signals": [
                "BIOS Characteristics 'System is a virtual machine' (SMBIOS virtual machine bit)"
            ],
        },
    ),
    (
        # "Manufacturer: OpenStack Foundation", "Product Name: OpenStack Nova" from a grep.
        "dmi/cn-notes-openstack-vm-sudo-dmidecode-grep-i-openstack-manufacturer-product.txt",
        "dmi",
        {
            "products": ["OpenStack Nova"],
            "manufacturers": ["OpenStack Foundation"],
            "virtual": True,
        },
    ),
    (
        # "cat /sys/class/dmi/id/product_name: Virtual Machine" and sys_vendor "Microsoft
        # Corporation" on one line each.
        "dmi/systemd-issue21816-hyperv-debian9-cat-sys-class-dmi-id-colon-values-cut.txt",
        "dmi",
        {
            "products": ["Virtual Machine"],
            "manufacturers": ["Microsoft Corporation"],
            "virtual": True,
            "virtual_signals": ["System Product Name 'Virtual Machine' (Microsoft Hyper-V)"],
        },
    ),
]


# Through the registry, as an upload is read: a markdown-quoted paste is unquoted first.
test_real_outputs_yield_their_figures = figures_test(EXPECTED)


@pytest.mark.parametrize("path", NPU_SMI)
def test_ascend_npu_smi_is_its_own_kind(sample: Sample, path: str) -> None:
    # It was read as a faint nvidia-smi (its borders and "Bus-Id" scored 20), then refused as
    # another vendor's tool; the stability rules now read its devices and their health.
    text = sample(path)
    assert registry.detect_kind(text) == "npu_smi"
    # Named nvidia-smi by the command that made the file, the content still decides.
    assert registry.detect_kind(text, "nvidia_smi") == "npu_smi"
    metrics = registry.parse_text(text).metrics
    assert metrics["npu_count"] == 2 and metrics["worst_health"] == "OK"


def test_an_nvidia_table_is_not_taken_for_npu_smi(sample: Sample) -> None:
    # The check runs only below the confidence a kind needs: an nvidia-smi table that a note
    # compares with npu-smi's "AICore(%)" column stays an nvidia-smi table.
    text = sample(EXPECTED[10][0]) + "\n(npu-smi shows AICore(%) where this shows GPU-Util)\n"
    assert registry.detect_kind(text) == "nvidia_smi"
    assert registry.parse_text(text).metrics["gpu_count"] == 2


def test_a_readers_note_after_a_tab_is_not_part_of_the_value(sample: Sample) -> None:
    # "CPU(s): 4\t\t--cpu核心数" failed the whole file ("unreadable CPU count").
    metrics = cpu_info.parse(sample(ANNOTATED)).metrics
    assert metrics["logical_cpus"] == 4
    # A tab inside a value with no note marker after it is kept as it is.
    assert cpu_info.parse("CPU(s): 4\nModel name: A\tB\n").metrics["model_name"] == "A\tB"


def test_an_excerpt_from_processor_48_is_a_floor_not_a_slice(sample: Sample) -> None:
    # One block of a 64-thread Hygon host ("processor : 48") was counted as 1 logical CPU, and
    # against a claim of 64 made a bare-metal Xinchuang server a "slice of the machine" (VM).
    metrics = cpu_info.parse(sample(HYGON_EXCERPT)).metrics
    evidence = NodeEvidence("hygon-1", 1, "cpu_info", metrics)
    claims = Claims(gpu_model="L20", gpus_per_node=4, gpu_memory_gib=48, logical_cpus_per_node=64)
    names = [(s.name, s.points_to) for s in verify_bare_metal(claims, [evidence]).signals]
    assert ("cpu_count", "virtual") not in names
    assert ("cpu_hypervisor_flag", "bare_metal") in names


def test_the_maker_alibaba_cloud_alone_is_no_vm_sign(sample: Sample) -> None:
    # Alibaba Cloud's bare-metal instances print "Alibaba Cloud" as their System Manufacturer as
    # well (systemd/systemd#43347 tells its VMs apart by the product alone): the maker made any
    # such machine a VM at full weight. The ECS record without its product and QEMU machine-type
    # lines keeps only the maker, and shows no VM sign.
    text = sample(ECS_DMI)
    maker_only = "\n".join(
        line
        for line in text.splitlines()
        if "Product Name:" not in line and "pc-i440fx" not in line
    )
    metrics = dmi.parse(maker_only).metrics
    assert metrics["manufacturers"] == ["Alibaba Cloud", "Alibaba Cloud"]
    assert (metrics["virtual"], metrics["virtual_signals"]) == (False, [])


def test_the_qemu_machine_type_is_worded_in_chinese() -> None:
    signal = "System Version 'pc-i440fx-2.1' (QEMU/KVM i440FX machine type)"
    assert signal_zh(signal) == "系统版本 'pc-i440fx-2.1'（QEMU/KVM i440FX 机器类型）"


def test_a_listing_of_the_dmi_directory_is_not_read_as_its_values() -> None:
    # `ls -al /sys/class/dmi/id/` names the directory and lists file names: no value in it.
    listing = (
        "ls -al /sys/class/dmi/id/\n\n"
        "-r--r--r-- 1 root root 4096 Aug  5 11:17 bios_date\n"
        "-r--r--r-- 1 root root 4096 May 23 15:00 product_name\n"
    )
    assert dmi.detect(listing) < 50
    with pytest.raises(EvidenceParseError):
        dmi.parse(listing)


def test_a_cat_whose_value_is_another_prompt_takes_no_value(sample: Sample) -> None:
    # `cat` of a file the user may not read prints nothing: the next prompt is not its value.
    text = "$ cat /sys/class/dmi/id/product_name\n$ cat /sys/class/dmi/id/sys_vendor\nQEMU\n"
    metrics = dmi.parse(text).metrics
    assert (metrics["products"], metrics["manufacturers"]) == ([], ["QEMU"])
    assert metrics["virtual"] is True


def test_the_smbios_vm_bit_is_a_vm_sign_and_its_absence_is_none(sample: Sample) -> None:
    # "System is a virtual machine" under BIOS Characteristics was skipped: `dmidecode -t bios`
    # of an EC2 VM gave no verdict at all ("no System Information record").
    text = sample(EC2_BIOS)
    assert dmi.parse(text).metrics["virtual"] is True
    cleared = text.replace("System is a virtual machine", "UEFI is supported")
    assert dmi.parse(cleared).metrics["virtual"] is None
    zh = signal_zh(dmi.parse(text).metrics["virtual_signals"][0])
    assert zh == "BIOS 特性 'System is a virtual machine'（SMBIOS 虚拟机标志位）"


def _node(sample: Sample, paths: tuple[str, ...]) -> list[NodeEvidence]:
    evidence = []
    for path in paths:
        text = sample(path)
        kind = registry.detect_kind(text)
        evidence.append(NodeEvidence("n1", 1, kind, registry.parse_text(text).metrics, path))
    return evidence


@pytest.mark.parametrize(
    ("paths", "verdict"),
    [
        # Alibaba ECS: DMI product and QEMU machine type, 440FX/virtio lspci, KVM in lscpu.
        (ECS_NODE, "virtualised"),
        # Huawei's OpenStack Nova read from /sys/class/dmi/id: was no kind, no verdict.
        ((NOVA_SYSFS,), "virtualised"),
        # A Huawei Atlas server and a Kunpeng 920 /proc/cpuinfo: server DMI, no VM sign.
        ((HUAWEI_ATLAS, KUNPENG_CPUINFO), "uncertain"),
        # A Hygon bare-metal lscpu without flags: nothing either way, never a VM.
        ((HYGON_LSCPU,), "uncertain"),
    ],
)
def test_chinese_cloud_and_xinchuang_verdicts(
    sample: Sample, paths: tuple[str, ...], verdict: str
) -> None:
    claims = Claims(gpu_model="H20", gpus_per_node=8, gpu_memory_gib=96)
    assert verify_bare_metal(claims, _node(sample, paths)).verdict == verdict
