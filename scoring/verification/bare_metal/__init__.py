"""Is the delivery really bare metal? Signals from the evidence, weighed into a verdict.

Each signal points to "bare_metal" or "virtual" with a weight in 0..1 (how much it alone
would convince). Per side the weights combine like independent evidence (noisy-OR:
``p = 1 - prod(1 - w)``), the same signal repeated on several nodes counting once at its
strongest. Then::

    bare_metal_score = p_bm * (1 - p_virtual)
    virtual_score    = p_virtual * (1 - COUNTER_EVIDENCE_DISCOUNT * p_bm)

so a virtual signal always lowers the bare-metal score, and physical signals only partly
offset a virtual one: a hypervisor can hide its CPUID bit or pass the host's DMI strings
through, but no physical host shows a virtio GPU. A verdict needs its score at or above
VERDICT_THRESHOLD; otherwise it is "uncertain". One weak signal is never enough.

A container (systemd-detect-virt "docker", "podman", "lxc"...) is no hypervisor: an engineer
who runs the collector in Docker on a physical host sees the host's CPU, DMI and PCI devices.
Its signal points to CONTEXT and weighs on neither side, so it can never make a verdict
"virtualised" (issue #10: a physical machine must never be judged virtualised); MIG mode, a
GPU partition physical hosts use too, weighs on neither side either. A container does keep a
"bare metal" verdict at "uncertain": from inside a container nobody can tell whether the
machine is handed over whole, so only a run on the host itself can verify a bare-metal claim.
A container inside a VM is still a VM: when the same evidence names the hypervisor under the
container (``systemd-detect-virt --vm``, or a second run), both signals are kept and the VM
counts against bare metal like any other.

A virtio net or block device is a VM's device, except where a BlueField DPU emulates it for the
bare-metal host it sits in (DOCA virtio-net, SNAP virtio-blk; bare-metal GPU clouds deliver
network and disks this way). When the lspci listing itself ties the device to the DPU, the
parser lists it apart (``dpu_virtio``) and it becomes a CONTEXT signal; without such a link it
still counts as a VM device, and a virtio GPU always does.

``weights``: what each signal weighs (W_*), POINTS_TO_CONTEXT, the thresholds and patterns the
signal readers apply; ``zh``: signal_zh, the parsers' signals worded in Chinese; ``host``: the
signals of cpu_info, dmidecode, systemd-detect-virt (and the "oracle" correction) and the kernel
log's "Hypervisor detected" line; ``pci``:
the signals of the PCI layout (lspci, vm_like_gpu_layout, GPUs on bus 00); ``gpu_network``: the
signals of ibstat, nvidia-smi topo, NCCL and the NVIDIA driver's virtualisation mode;
``verdict``: VERDICT_THRESHOLD, COUNTER_EVIDENCE_DISCOUNT, collect_signals, combine_signals and
verify_bare_metal; ``delivery_form``: FORMS_BY_FAVOUR, SEEN_VIRTUALISED and delivery_form_seen.
"""

from .delivery_form import FORMS_BY_FAVOUR, SEEN_VIRTUALISED, delivery_form_seen
from .pci import vm_like_gpu_layout
from .verdict import (
    COUNTER_EVIDENCE_DISCOUNT,
    VERDICT_THRESHOLD,
    collect_signals,
    combine_signals,
    verify_bare_metal,
)
from .weights import (
    CPU_MATCH_FROM,
    CPU_SLICE_AT_MOST,
    PCI_LAYOUT_MAX_BUS,
    PCI_LAYOUT_MIN_GPUS,
    POINTS_TO_CONTEXT,
    W_CONTAINER,
    W_CPU_MATCH,
    W_CPU_SHORT,
    W_CPU_SLICE,
    W_DETECT_VIRT_NONE,
    W_DETECT_VIRT_ORACLE,
    W_DETECT_VIRT_ORACLE_SERVER,
    W_DETECT_VIRT_VM,
    W_DMI_CLOUD_ALSO_METAL,
    W_DMI_OTHER_PHYSICAL,
    W_DMI_SERVER_VENDOR,
    W_DMI_VIRTUAL,
    W_DPU_VIRTIO,
    W_GPU_ROOT_BUS,
    W_GPU_ROOT_BUS_ONE,
    W_HCA_VF,
    W_HOST_VGPU,
    W_HYPERV_VPCI,
    W_HYPERV_VPCI_ONE,
    W_HYPERVISOR_FLAG,
    W_KERNEL_HYPERVISOR,
    W_KERNEL_HYPERVISOR_XEN,
    W_LSPCI_BMC,
    W_LSPCI_OTHER_PHYSICAL,
    W_LSPCI_VIRTUAL,
    W_MIG,
    W_NCCL_AWS_EFA,
    W_NCCL_GCP_TCPX,
    W_NO_HYPERVISOR_FLAG,
    W_PASSTHROUGH,
    W_PCI_LAYOUT,
    W_SRIOV_VF_ONLY,
    W_TOPO_FLAT,
    W_VGPU,
    W_VIRT_MODE_NONE,
)
from .zh import signal_zh

__all__ = [
    "COUNTER_EVIDENCE_DISCOUNT",
    "CPU_MATCH_FROM",
    "CPU_SLICE_AT_MOST",
    "FORMS_BY_FAVOUR",
    "PCI_LAYOUT_MAX_BUS",
    "PCI_LAYOUT_MIN_GPUS",
    "POINTS_TO_CONTEXT",
    "SEEN_VIRTUALISED",
    "VERDICT_THRESHOLD",
    "W_CONTAINER",
    "W_CPU_MATCH",
    "W_CPU_SHORT",
    "W_CPU_SLICE",
    "W_DETECT_VIRT_NONE",
    "W_DETECT_VIRT_ORACLE",
    "W_DETECT_VIRT_ORACLE_SERVER",
    "W_DETECT_VIRT_VM",
    "W_DMI_CLOUD_ALSO_METAL",
    "W_DMI_OTHER_PHYSICAL",
    "W_DMI_SERVER_VENDOR",
    "W_DMI_VIRTUAL",
    "W_DPU_VIRTIO",
    "W_GPU_ROOT_BUS",
    "W_GPU_ROOT_BUS_ONE",
    "W_HCA_VF",
    "W_HOST_VGPU",
    "W_HYPERVISOR_FLAG",
    "W_HYPERV_VPCI",
    "W_HYPERV_VPCI_ONE",
    "W_KERNEL_HYPERVISOR",
    "W_KERNEL_HYPERVISOR_XEN",
    "W_LSPCI_BMC",
    "W_LSPCI_OTHER_PHYSICAL",
    "W_LSPCI_VIRTUAL",
    "W_MIG",
    "W_NCCL_AWS_EFA",
    "W_NCCL_GCP_TCPX",
    "W_NO_HYPERVISOR_FLAG",
    "W_PASSTHROUGH",
    "W_PCI_LAYOUT",
    "W_SRIOV_VF_ONLY",
    "W_TOPO_FLAT",
    "W_VGPU",
    "W_VIRT_MODE_NONE",
    "collect_signals",
    "combine_signals",
    "delivery_form_seen",
    "signal_zh",
    "verify_bare_metal",
    "vm_like_gpu_layout",
]
