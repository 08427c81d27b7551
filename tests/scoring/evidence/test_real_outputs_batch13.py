"""Key figures of the real outputs added in the thirteenth corpus batch, read by hand.

The shapes: nvidia-smi -q -x of a GB200 compute tray (driver 580, <c2c_mode>Enabled</c2c_mode>,
PCIe Gen5 x16 beside the C2C link) and nvidia-smi -a of an x86 H100 SXM5 whose 545 driver prints
"GPU C2C Mode : Disabled" for a GPU that has no C2C link; kernel logs of guests naming their
hypervisor ("Hypervisor detected: KVM" on EC2 Nitro and Vagrant, "VMware", "Microsoft Hyper-V"
in a journal), a Qubes dom0 on a physical laptop that prints "Xen PV" all the same, and a
physical desktop running KVM itself ("kvm_amd:" lines, no such line).
"""

from __future__ import annotations

import pytest

from scoring.evidence import kernel_log, registry
from scoring.verification.bare_metal import verify_bare_metal
from scoring.verification.model import Claims, NodeEvidence
from tests.scoring.evidence.real_outputs import Figures, Sample, figures_test

GB200_X = (
    "nvidia_smi_xml/k8s-test-infra-qx-gb200-driver580-c2c-mode-enabled-fabric-healthy-x16-gen5-"
    "gpu0-only.xml.txt"
)
H100_DISABLED = (
    "nvidia_smi_query/princeton-pli-notes-della-h100-sxm5-driver545-a-gpu-c2c-mode-disabled-x86-"
    "prompt.txt"
)
GH200_Q = "nvidia_smi_query/nvsim-gh200-480gb-driver550-a-c2c-enabled-pcie-gen4-x1-passthrough.txt"
EC2_KVM = (
    "kernel_log/aws-notes-ec2-t3-micro-nitro-dmesg-egrep-dmi-hypervisor-detected-kvm-prompt.txt"
)
VAGRANT_KVM = (
    "kernel_log/devops-homework-vagrant-dmesg-grep-kvm-hypervisor-detected-kvm-clock-unpadded-"
    "timestamps.txt"
)
VMWARE = (
    "kernel_log/ubuntu-guest-dmesg-grep-vmware-hypervisor-detected-vmware-pvscsi-vmmouse-prompt.txt"
)
HYPERV_JOURNAL = (
    "kernel_log/journal-hyperv-gen2-guest-efi-dmi-virtual-machine-hypervisor-detected-microsoft-"
    "hyper-v-excerpt.txt"
)
XEN_DOM0 = (
    "kernel_log/qubes-xen-devel-dom0-dell-latitude-e6420-hypervisor-detected-xen-pv-quoted-"
    "printable-excerpt.txt"
)
KVM_HOST = (
    "kernel_log/linux-ide-list-asus-b550-physical-dmesg-6.8-nvidia-drm-then-kvm-amd-host-lines-no-"
    "hypervisor-detected.txt"
)

EXPECTED: list[Figures] = [
    (
        # "<attached_gpus>4", GPU 0 only (trimmed): "NVIDIA GB200", "189471 MiB", "<c2c_mode>
        # Enabled", "Pass-Through", link width 16x of 16x.
        GB200_X,
        "nvidia_smi_xml",
        {
            "driver_version": "580.173.02",
            "cuda_version": "13.0",
            "attached_gpus": 4,
            "gpu_count": 1,
            "gpu_names": ["NVIDIA GB200"],
            "memory_total_mib": [189471],
            "virtualization_mode": ["Pass-Through"],
            "c2c_mode": ["Enabled"],
            "c2c_enabled_gpus": 1,
            "pcie_link_width_max": [16],
            "pcie_link_width_current": [16],
        },
    ),
    (
        # "Product Name : NVIDIA H100 80GB HBM3", "GPU C2C Mode : Disabled", "81559 MiB", 16x.
        H100_DISABLED,
        "nvidia_smi_query",
        {
            "format": "q",
            "driver_version": "545.23.08",
            "cuda_version": "12.3",
            "gpu_count": 1,
            "product_names": ["NVIDIA H100 80GB HBM3"],
            "memory_total_mib": [81559],
            "c2c_mode": ["Disabled"],
            "c2c_enabled_gpus": 0,
            "virtualized": False,
            "pcie_link_width_current": [16],
            "ecc_volatile_uncorrected": 0,
        },
    ),
    (
        # An earlier batch's GH200 sample: "GPU C2C Mode : Enabled" beside its PCIe Gen4 x1.
        GH200_Q,
        "nvidia_smi_query",
        {"c2c_mode": ["Enabled"], "c2c_enabled_gpus": 1, "pcie_link_width_current": [1]},
    ),
    (
        # "[    0.000000] Hypervisor detected: KVM" on line 3, under the egrep prompt.
        EC2_KVM,
        "kernel_log",
        {"hypervisor_detected": "KVM", "hypervisor_detected_line": 3, "format": "dmesg"},
    ),
    (
        # "[0.000000] Hypervisor detected: KVM" (no padding) first after the prompt; 7 lines.
        VAGRANT_KVM,
        "kernel_log",
        {
            "hypervisor_detected": "KVM",
            "hypervisor_detected_line": 2,
            "kernel_lines": 7,
            "xid_count": 0,
        },
    ),
    (
        # DMI "VMware, Inc. VMware Virtual Platform" then "Hypervisor detected: VMware"; 11 lines.
        VMWARE,
        "kernel_log",
        {"hypervisor_detected": "VMware", "hypervisor_detected_line": 3, "kernel_lines": 11},
    ),
    (
        # "May 30 05:04:29 hyperv kernel: Hypervisor detected: Microsoft Hyper-V", sixth line.
        HYPERV_JOURNAL,
        "kernel_log",
        {
            "hypervisor_detected": "Microsoft Hyper-V",
            "hypervisor_detected_line": 6,
            "format": "journal",
            "kernel_lines": 11,
        },
    ),
    (
        # "DMI: Dell Inc. Latitude E6420" then "Hypervisor detected: Xen PV" on line 25.
        XEN_DOM0,
        "kernel_log",
        {"hypervisor_detected": "Xen PV", "hypervisor_detected_line": 25, "xid_count": 0},
    ),
    (
        # "[drm] [nvidia-drm] ... Loading driver" and eight "kvm_amd:" lines: a host running KVM.
        KVM_HOST,
        "kernel_log",
        {
            "hypervisor_detected": None,
            "hypervisor_detected_line": None,
            "nvidia_driver_lines": 1,
            "xid_count": 0,
        },
    ),
    (
        # Driver 535 on an A100 prints no <c2c_mode>: no mode, no count.
        "nvidia_smi_xml/telegraf-a100-sxm4-80gb-mig-driver535-v12.xml.txt",
        "nvidia_smi_xml",
        {"c2c_mode": [None], "c2c_enabled_gpus": None},
    ),
]

test_real_output_figures = figures_test(EXPECTED)


@pytest.mark.parametrize(("path", "count"), [(GB200_X, 1.0), (H100_DISABLED, 0.0), (GH200_Q, 1.0)])
def test_the_c2c_mode_is_a_stored_fact(sample: Sample, path: str, count: float) -> None:
    facts = {f.metric: f.value for f in registry.parse_text(sample(path)).facts}
    assert facts["c2c_enabled_gpus"] == count


@pytest.mark.parametrize(
    ("printed", "mode"),
    [("Enabled", "Enabled"), ("Disabled", "Disabled"), ("N/A", None), ("[Unknown Error]", None)],
)
def test_only_enabled_and_disabled_are_a_c2c_mode(printed: str, mode: str | None) -> None:
    q = (
        "Attached GPUs : 1\nGPU 00000000:01:00.0\n    Product Name : NVIDIA GH200 480GB\n"
        f"    GPU C2C Mode : {printed}\n"
    )
    x = (
        '<nvidia_smi_log><attached_gpus>1</attached_gpus><gpu id="00000000:01:00.0">'
        f"<product_name>NVIDIA GB200</product_name><c2c_mode>{printed}</c2c_mode></gpu>"
        "</nvidia_smi_log>"
    )
    for text in (q, x):
        metrics = registry.parse_text(text).metrics
        assert metrics["c2c_mode"] == [mode]
        assert metrics["c2c_enabled_gpus"] == (None if mode is None else int(mode == "Enabled"))


def _verdict(sample: Sample, *paths: str) -> tuple[str, list[tuple[str, str, float]]]:
    evidence = []
    for path in paths:
        text = sample(path)
        kind = registry.detect_kind(text)
        evidence.append(NodeEvidence("n1", 1, kind, registry.parse_text(text).metrics, path))
    claims = Claims(gpu_model="H100", gpus_per_node=8, gpu_memory_gib=80)
    report = verify_bare_metal(claims, evidence)
    signals = [(s.name, s.points_to, s.weight) for s in report.signals]
    return report.verdict, signals


@pytest.mark.parametrize("path", [EC2_KVM, VAGRANT_KVM, VMWARE, HYPERV_JOURNAL])
def test_a_guest_kernel_naming_its_hypervisor_is_a_vm(sample: Sample, path: str) -> None:
    verdict, signals = _verdict(sample, path)
    assert (verdict, signals) == ("virtualised", [("kernel_hypervisor", "virtual", 0.9)])


def test_a_xen_dom0_on_a_physical_laptop_is_no_vm_by_that_line_alone(sample: Sample) -> None:
    # The Qubes dom0 prints "Hypervisor detected: Xen PV" on the Dell Latitude it owns.
    verdict, signals = _verdict(sample, XEN_DOM0)
    assert (verdict, signals) == ("uncertain", [("kernel_hypervisor", "virtual", 0.5)])


def test_a_host_running_kvm_gives_no_hypervisor_sign(sample: Sample) -> None:
    verdict, signals = _verdict(sample, KVM_HOST)
    assert (verdict, signals) == ("uncertain", [])


@pytest.mark.parametrize(
    "line",
    [
        # A KVM host's own lines.
        "[    4.387645] kvm_amd: TSC scaling supported",
        "[    0.951117] kvm: Nested Virtualization enabled",
        "[   10.201648] kvm_intel: VMX not supported by CPU 3",
        # A guest's clock source, no hypervisor name.
        "[    0.000000] kvm-clock: Using msrs 4b564d01 and 4b564d00",
        # Prose and code quoting the line are not the kernel's line.
        "[    0.1] we expect Hypervisor detected: KVM in a guest",
        "    'Hypervisor detected: VMware',",
    ],
)
def test_only_the_kernels_own_hypervisor_line_counts(line: str) -> None:
    text = "[    0.000000] Linux version 6.8.0\n[    0.000000] DMI: ASUS\n" + line + "\n"
    assert kernel_log.parse(text).metrics["hypervisor_detected"] is None


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("[    0.000000] kernel: Hypervisor detected: VMware", "VMware"),
        ("Jan  5 10:00:00 gpu01 kernel: [    0.000000] Hypervisor detected: KVM", "KVM"),
        ("Hypervisor detected: Xen HVM", "Xen HVM"),
    ],
)
def test_the_hypervisor_line_is_read_behind_any_kernel_prefix(line: str, name: str) -> None:
    text = "[    0.000000] Linux version 6.8.0\n[    0.000000] DMI: QEMU\n" + line + "\n"
    result = kernel_log.parse(text)
    assert (result.metrics["hypervisor_detected"], result.metrics["hypervisor_detected_line"]) == (
        name,
        3,
    )
    fact = next(f for f in result.facts if f.metric == "hypervisor_detected")
    assert (fact.value, fact.line, fact.details) == (1.0, 3, {"hypervisor": name})
