"""Bare-metal verdicts on real evidence samples (issue #13, section 3).

TABLE below writes down, for each real sample (parsed by the real parsers), the verdict the
portal must give on that evidence alone and why. The rule the table enforces first: a physical
machine is never judged "virtualised" (at worst "uncertain" when its evidence says little).
The new signals whose real outputs are not in the corpus (ConnectX VF CA types, a VM's flat
topo matrix, NCCL cloud plugins in a complete nccl-tests log) are checked on metrics written
from the tools' documented formats, each marked as such.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scoring.evidence import registry
from scoring.evidence.nccl.net import _net_plugins
from scoring.verification.bare_metal import (
    COUNTER_EVIDENCE_DISCOUNT,
    signal_zh,
    verify_bare_metal,
    vm_like_gpu_layout,
)
from scoring.verification.model import Claims, NodeEvidence

SAMPLES = Path(__file__).parent / "evidence" / "samples"
CLAIMS = Claims(gpu_model="H100 SXM5 80GB", gpus_per_node=8, gpu_memory_gib=80)

PHYSICAL, VM = "physical", "virtual machine"

# (samples on one node, what the machine really is, expected verdict, reasoning)
TABLE: list[tuple[tuple[str, ...], str, str, str]] = [
    (
        ("lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",),
        PHYSICAL,
        "uncertain",
        "ASPEED BMC VGA and NVSwitch bridges point to a server (0.4), GPUs on buses 1b..df are "
        "spread over root complexes (no layout signal); one soft signal is not a verdict",
    ),
    (
        ("dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",),
        PHYSICAL,
        "uncertain",
        "DMI names DGX A100 / PowerEdge (0.5): a hypervisor can copy host DMI, so alone it stays "
        "below the 0.6 needed",
    ),
    (
        (
            "dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",
            "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
            "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
        ),
        PHYSICAL,
        "bare_metal",
        "server DMI (0.5) + BMC VGA (0.4) + no hypervisor CPU flag (0.3) combine to 0.79 with "
        "nothing against",
    ),
    (
        ("dmi/insights-hp-proliant-old-dmidecode2.2-format.txt",),
        PHYSICAL,
        "uncertain",
        "HP ProLiant in DMI (0.5) alone",
    ),
    (
        ("cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",),
        PHYSICAL,
        "uncertain",
        "no hypervisor flag (0.3): a hypervisor can hide it",
    ),
    (
        ("nvidia_smi_topo/issue37-dgx1-v100-nv1-nv2.txt",),
        PHYSICAL,
        "uncertain",
        "DGX-1: 8 GPUs and no NIC column, but the old matrix has no NUMA column, so the flat "
        "NUMA signal cannot fire; no signal at all",
    ),
    (
        ("nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt",),
        PHYSICAL,
        "uncertain",
        "two NUMA nodes and four NICs: nothing VM-like, and topo alone proves nothing physical",
    ),
    (
        ("virt/systemd-issue21100-oracle-x3-2l-physical-says-oracle.txt",),
        PHYSICAL,
        "uncertain",
        "systemd-detect-virt says 'oracle' on a physical Oracle X3-2L (systemd's own mistake): "
        "the word counts 0.5 alone, below a verdict",
    ),
    (
        ("lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt",),
        VM,
        "virtualised",
        "virtio GPU (0.85) and 4 GPUs on buses 09-0c behind QEMU root ports (0.35)",
    ),
    (
        ("lspci/vmware-vm-4x2080ti-passthrough-grep-vga.txt",),
        VM,
        "virtualised",
        "VMware SVGA II (0.85) and 4 GPUs on VMware's bridge buses 04, 0b, 13, 1b (0.35)",
    ),
    (
        ("lspci/devmachine-kvm-lspci-nn.txt",),
        VM,
        "virtualised",
        "virtio balloon/block/net devices (0.85)",
    ),
    (("dmi/insights-kvm-rhev-dmidecode3.0.txt",), VM, "virtualised", "RHEV Hypervisor DMI (0.9)"),
    (("dmi/insights-vmware-dmidecode2.12.txt",), VM, "virtualised", "VMware Virtual Platform DMI"),
    (("dmi/insights-aws-xen-hvm-domu.txt",), VM, "virtualised", "Xen HVM domU DMI (AWS)"),
    (
        ("cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt",),
        VM,
        "virtualised",
        "CPU hypervisor flag, vendor KVM (0.9)",
    ),
    (
        ("virt/devmachine-systemd-detect-virt-vm-kvm.txt",),
        VM,
        "virtualised",
        "systemd-detect-virt: kvm (0.9)",
    ),
    (
        ("virt/systemd-pr1117-parallels-kvm-with-version.txt",),
        VM,
        "virtualised",
        "Parallels VM seen as kvm (0.9)",
    ),
    (
        ("virt/systemd-issue23116-openstack-nova-arm-none-quoted.txt",),
        VM,
        "uncertain",
        "OpenStack ARM VM that systemd-detect-virt misses ('none', 0.35 towards bare metal): too "
        "weak for a bare-metal verdict, so the miss does not turn into a false 'bare metal'",
    ),
    (
        ("nvidia_smi/arbutus-grid-v100d-8c-vgpu-driver550.txt",),
        VM,
        "virtualised",
        "GRID V100D-8C vGPU profile (0.95)",
    ),
    (
        ("nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt",),
        VM,
        "virtualised",
        "driver reports Virtualization Mode: Pass-Through (0.95)",
    ),
    (
        ("nvidia_smi_query/hyperstack-rtx-a4000-vm-q-grep-virtualization.txt",),
        VM,
        "virtualised",
        "driver reports Pass-Through (0.95)",
    ),
]


def _evidence(paths: tuple[str, ...], node: str = "node-1") -> list[NodeEvidence]:
    out = []
    for index, path in enumerate(paths, start=1):
        text = (SAMPLES / path).read_text(encoding="utf-8")
        kind = registry.detect_kind(text)
        result = registry.parse_text(text, kind)
        out.append(NodeEvidence(node, index, kind, result.metrics, path, 1))
    return out


@pytest.mark.parametrize(
    ("paths", "truth", "expected", "reason"), TABLE, ids=[t[0][0].split("/")[1][:40] for t in TABLE]
)
def test_verdict_table(paths: tuple[str, ...], truth: str, expected: str, reason: str) -> None:
    verdict = verify_bare_metal(CLAIMS, _evidence(paths))
    assert verdict.verdict == expected, (reason, verdict.explanation_en)
    if truth == PHYSICAL:
        assert verdict.verdict != "virtualised"
    for signal in verdict.signals:
        assert 0 < signal.weight <= 1
        assert signal.explanation_en and signal.explanation_zh


def test_physical_evidence_plus_each_weak_signal_is_never_virtualised() -> None:
    physical = _evidence(TABLE[2][0])
    weak = [
        NodeEvidence(
            "node-1", 9, "nvidia_smi_topo", {"gpu_count": 8, "nic_count": 0, "numa_nodes": ["0"]}
        ),
        NodeEvidence(
            "node-1",
            10,
            "lspci",
            {"gpus": [{"slot": f"0000:0{b}:00.0", "virtual_function": False} for b in range(3, 7)]},
        ),
        NodeEvidence("node-1", 11, "nccl_tests", {"net_plugins": ["AWS EFA"]}),
    ]
    verdict = verify_bare_metal(CLAIMS, physical + weak)
    assert verdict.verdict != "virtualised", verdict.explanation_en
    assert COUNTER_EVIDENCE_DISCOUNT < 1


@pytest.mark.parametrize(
    ("slots", "vm_like"),
    [
        (["0000:09:00.0", "0000:0a:00.0", "0000:0b:00.0", "0000:0c:00.0"], True),  # QEMU
        (["04:00.0", "0b:00.0", "13:00.0", "1b:00.0"], True),  # VMware bridges
        (["00:05.0", "00:06.0", "00:07.0", "00:08.0"], True),  # i440FX: all on bus 0
        # HGX H100 host of the rhelai sample: spread over root complexes.
        (
            [
                "1b:00.0",
                "43:00.0",
                "52:00.0",
                "61:00.0",
                "9d:00.0",
                "c3:00.0",
                "d1:00.0",
                "df:00.0",
            ],
            False,
        ),
        (["01:00.0", "02:00.0"], False),  # two GPUs: never enough
        (["01:00.0", "21:00.0", "41:00.0", "61:00.0"], False),  # workstation, far apart
    ],
)
def test_vm_like_gpu_layout(slots: list[str], vm_like: bool) -> None:
    assert (vm_like_gpu_layout(slots) is not None) is vm_like


def test_passed_through_nvswitches_do_not_count_as_physical_behind_a_vm_layout() -> None:
    # The case: a KVM guest with the GPUs and NVSwitches passed through.
    metrics = {
        "virtual": False,
        "virtual_signals": [],
        "physical_signals": ["NVSwitch bridge"],
        "gpus": [{"slot": f"0000:{b:02x}:00.0", "virtual_function": False} for b in range(1, 9)],
    }
    verdict = verify_bare_metal(CLAIMS, [NodeEvidence("vm", 1, "lspci", metrics)])
    assert {s.name for s in verdict.signals} == {"pci_layout"}
    assert verdict.bare_metal_score == 0


def test_sriov_vf_without_pf_is_its_own_signal(tmp_path: Path) -> None:
    # lspci's own wording for a ConnectX VF listed without its PF.
    metrics = {
        "virtual": True,
        "virtual_signals": [
            "SR-IOV virtual function without its physical function (Mellanox Technologies "
            "MT28908 Family [ConnectX-6 Virtual Function])"
        ],
        "physical_signals": [],
        "gpus": [],
    }
    verdict = verify_bare_metal(CLAIMS, [NodeEvidence("vm", 1, "lspci", metrics)])
    assert [s.name for s in verdict.signals] == ["sriov_virtual_function"]
    assert verdict.verdict == "virtualised"


def test_hca_virtual_functions_in_ibstat() -> None:
    # ibstat "CA type: MT4124" is ConnectX-6 VF (PCI 15b3:101c); MT4123 is its PF.
    vf = NodeEvidence("vm", 1, "ibstat", {"ca_types": ["MT4124", "MT4124"]})
    assert verify_bare_metal(CLAIMS, [vf]).verdict == "virtualised"
    mixed = NodeEvidence("host", 1, "ibstat", {"ca_types": ["MT4123", "MT4124"]})
    assert verify_bare_metal(CLAIMS, [mixed]).signals == ()
    # Real ibstat samples are physical functions: no signal.
    real = _evidence(("ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt",))
    assert verify_bare_metal(CLAIMS, real).signals == ()


def test_nccl_cloud_plugins_from_real_log_lines() -> None:
    # Lines quoted from public AWS (Kubeflow MPI operator) and SkyPilot GCP TCPX write-ups.
    efa = (
        "nccl-tests-efa-worker-0:26:26 [0] NCCL INFO NET/OFI Selected Provider is efa\n"
        "nccl-tests-efa-worker-0:26:26 [0] NCCL INFO Using network AWS Libfabric\n"
    )
    tcpx = (
        "NCCL INFO NET/GPUDirectTCPX ver. 3.1.8.\n"
        "NCCL INFO NET/GPUDirectTCPX : GPUDirectTCPX enable: 1\n"
    )
    slingshot = (
        "NCCL INFO NET/OFI Selected Provider is cxi\nNCCL INFO Using network AWS Libfabric\n"
    )
    assert _net_plugins(efa) == ["AWS EFA", "libfabric (OFI)"]
    assert _net_plugins(tcpx) == ["GCP GPUDirect-TCPX"]
    assert _net_plugins(slingshot) == ["libfabric (OFI)"]
    verdicts = {
        name: verify_bare_metal(
            CLAIMS, [NodeEvidence("n", 1, "nccl_tests", {"net_plugins": _net_plugins(text)})]
        )
        for name, text in (("efa", efa), ("tcpx", tcpx), ("slingshot", slingshot))
    }
    assert verdicts["tcpx"].verdict == "virtualised"
    assert verdicts["efa"].verdict == "uncertain"  # .metal instances have EFA too
    assert verdicts["slingshot"].signals == ()  # HPE Slingshot is bare-metal HPC


def test_oracle_word_on_an_oracle_server_counts_little() -> None:
    virt = _evidence(("virt/systemd-issue21100-oracle-x3-2l-physical-says-oracle.txt",), "x3")
    # DMI of the server as the issue describes it (Oracle X3-2L), not VirtualBox.
    dmi = NodeEvidence(
        "x3",
        9,
        "dmi",
        {
            "products": ["SUN FIRE X4270 M3"],
            "manufacturers": ["Oracle Corporation"],
            "virtual": False,
        },
    )
    verdict = verify_bare_metal(CLAIMS, [*virt, dmi])
    signal = next(s for s in verdict.signals if s.name == "systemd_detect_virt")
    assert signal.weight == 0.15
    assert "misread" in signal.explanation_en
    assert verdict.verdict != "virtualised"


def test_flat_topology_signal() -> None:
    flat = {"gpu_count": 8, "nic_count": 0, "numa_nodes": ["0"]}
    verdict = verify_bare_metal(CLAIMS, [NodeEvidence("vm", 1, "nvidia_smi_topo", flat)])
    assert [s.name for s in verdict.signals] == ["topo_flat_numa"]
    assert verdict.verdict == "uncertain"  # weak alone: single-socket 8-GPU servers exist


def test_every_signal_explains_itself_in_both_languages() -> None:
    evidence = [
        NodeEvidence(
            "vm", 1, "nvidia_smi_topo", {"gpu_count": 8, "nic_count": 0, "numa_nodes": ["0"]}
        ),
        NodeEvidence("vm", 2, "ibstat", {"ca_types": ["MT4126"]}),
        NodeEvidence("vm", 3, "nccl_tests", {"net_plugins": ["GCP GPUDirect-TCPXO"]}),
        *_evidence(("lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt",), "vm"),
    ]
    verdict = verify_bare_metal(CLAIMS, evidence)
    names = {s.name for s in verdict.signals}
    assert {"topo_flat_numa", "hca_virtual_function", "nccl_cloud_plugin", "pci_layout"} <= names
    for signal in verdict.signals:
        assert any("\u4e00" <= ch <= "\u9fff" for ch in signal.explanation_zh)


@pytest.mark.parametrize(
    ("signal", "chinese"),
    [
        (
            "BIOS Vendor 'SeaBIOS' (SeaBIOS firmware (QEMU/KVM))",
            "BIOS 厂商 'SeaBIOS'（SeaBIOS 固件（QEMU/KVM））",
        ),
        (
            "Chassis Version 'RHEL 7.2.0 PC (i440FX + PIIX, 1996)' (QEMU/KVM i440FX machine)",
            "机箱版本 'RHEL 7.2.0 PC (i440FX + PIIX, 1996)'（QEMU/KVM i440FX 机型）",
        ),
        (
            "System Product Name 'RHEV Hypervisor' (Red Hat Virtualization)",
            "系统产品名称 'RHEV Hypervisor'（Red Hat Virtualization）",
        ),
        (
            "virtio device 1af4:1050 (Red Hat, Inc. Virtio 1.0 GPU)",
            "virtio 设备 1af4:1050（Red Hat, Inc. Virtio 1.0 GPU）",
        ),
        ("emulated Intel 440FX chipset", "模拟的 Intel 440FX 芯片组"),
        ("NVSwitch bridge", "NVSwitch 桥接器"),
        ("ASPEED BMC VGA", "ASPEED BMC VGA"),
        (
            "SR-IOV virtual function without its physical function (Intel X710 VF)",
            "缺少物理功能的 SR-IOV 虚拟功能（Intel X710 VF）",
        ),
        (
            "virtio device 1af4:1041 (Virtio network device) at af:00.2 emulated by a BlueField "
            "DPU: a function of the BlueField device at af:00.0",
            "virtio 设备 1af4:1041（Virtio network device），位于 af:00.2，由 BlueField DPU 模拟："
            "为 af:00.0 处 BlueField 设备的一个功能",
        ),
    ],
)
def test_a_parsers_signal_is_worded_in_chinese(signal: str, chinese: str) -> None:
    """The parsers name what they found in English; the Chinese explanation names the field and
    the kind of device in Chinese and keeps the values and product names as read."""
    assert signal_zh(signal) == chinese


@pytest.mark.parametrize(
    "paths", [t[0] for t in TABLE], ids=[t[0][0].split("/")[1][:40] for t in TABLE]
)
def test_the_chinese_explanations_keep_no_parser_english(paths: tuple[str, ...]) -> None:
    verdict = verify_bare_metal(CLAIMS, _evidence(paths))
    for signal in verdict.signals:
        if signal.name in ("dmi_product", "lspci_devices", "dpu_virtio"):
            words = re.findall(
                r"\b(device|machine|firmware|function|emulated|bridge|unnamed|chipset)\b",
                re.sub(r"'[^']*'|（[^（）]*）", "", signal.explanation_zh),
            )
            assert words == [], signal.explanation_zh


@pytest.mark.parametrize(
    ("shown", "partial", "signal"),
    [
        (6, "cut", None),  # a cut /proc/cpuinfo: 6 of 80 is a floor, not a VM's slice
        (80, "cut", "cpu_count"),  # a floor at the claim still shows every CPU
        (6, None, "cpu_count"),  # a whole listing of 6 is a slice
    ],
)
def test_a_cut_cpu_listing_is_never_read_as_a_slice(
    shown: int, partial: str | None, signal: str | None
) -> None:
    claims = Claims(
        gpu_model="H100 SXM5 80GB", gpus_per_node=8, gpu_memory_gib=80, logical_cpus_per_node=80
    )
    metrics = {"logical_cpus": shown, "logical_cpus_partial": partial, "hypervisor": None}
    verdict = verify_bare_metal(claims, [NodeEvidence("n", 1, "cpu_info", metrics)])
    names = {s.name for s in verdict.signals}
    assert ("cpu_count" in names) == (signal is not None)
