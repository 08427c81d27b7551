"""Human labels, in the reader's language, for the names the evidence parsers give their figures
(``peak_busbw_gbyte_s``) and for the inputs the rubric's rules read (``measured.busbw_fraction``).

One definition for every page and export; the code stays available to engineers beside the
label (a title attribute). tests/portal/test_evidence_messages.py fails when a parser emits a
metric that has no label here. Units are not part of a label: pages show them in their own
column (or the value carries them).
"""

from __future__ import annotations

from django.core.exceptions import FieldDoesNotExist
from django.utils.functional import Promise
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from .models import ChecklistItem, Offering, Vendor

METRIC_LABELS: dict[str, Promise] = {
    # nccl-tests
    "peak_busbw_gbyte_s": gettext_lazy("Peak bus bandwidth"),
    "avg_busbw_gbyte_s": gettext_lazy("Average bus bandwidth"),
    "busbw_gbyte_s": gettext_lazy("Bus bandwidth"),
    "busbw_curve_gbyte_s": gettext_lazy("Bus bandwidth curve (peak)"),
    "peak_size_bytes": gettext_lazy("Message size at the peak"),
    "min_size_bytes": gettext_lazy("Smallest message size"),
    "max_size_bytes": gettext_lazy("Largest message size"),
    "ranks": gettext_lazy("Ranks"),
    "ranks_inferred": gettext_lazy("Ranks (inferred)"),
    "gpus_per_process": gettext_lazy("GPUs per process"),
    "bus_ids_shown": gettext_lazy("Ranks showing their GPU's PCI bus"),
    "devices_listed": gettext_lazy("Ranks named in the device list"),
    "root_bus_ranks": gettext_lazy("Ranks with their GPU on PCI bus 00"),
    "row_count": gettext_lazy("Result rows"),
    "wrong_total": gettext_lazy("Wrong results"),
    "wrong_unchecked": gettext_lazy("Rows with unchecked results"),
    "out_of_bounds": gettext_lazy("Out-of-bounds values"),
    "max_error": gettext_lazy("Largest error"),
    "wrong_line": gettext_lazy("Line of the first wrong result"),
    "json_version": gettext_lazy("nccl-tests JSON report version"),
    # perftest
    "bw_avg_gbit_s": gettext_lazy("Average bandwidth"),
    "bw_avg_gbit_s_at_max_size": gettext_lazy("Average bandwidth at the largest message"),
    "bw_peak_gbit_s": gettext_lazy("Peak bandwidth"),
    "perftest_bw_avg_gbit_s": gettext_lazy("RDMA average bandwidth"),
    "perftest_lat_typical_us": gettext_lazy("RDMA typical latency"),
    "lat_typical_us": gettext_lazy("Typical latency"),
    "lat_avg_us": gettext_lazy("Average latency"),
    "lat_min_us": gettext_lazy("Minimum latency"),
    "lat_max_us": gettext_lazy("Maximum latency"),
    "lat_p99_us": gettext_lazy("99th percentile latency"),
    "lat_p999_us": gettext_lazy("99.9th percentile latency"),
    "lat_stdev_us": gettext_lazy("Latency standard deviation"),
    "lat_size_bytes": gettext_lazy("Latency message size"),
    "msg_rate_mpps": gettext_lazy("Message rate"),
    "mtu_bytes": gettext_lazy("Maximum transfer unit (MTU)"),
    "qps": gettext_lazy("Queue pairs"),
    "gid_index": gettext_lazy("GID index"),
    "rdma_cm": gettext_lazy("Connected through rdma_cm"),
    "tos": gettext_lazy("Traffic class (ToS)"),
    "cpu_freq_warnings": gettext_lazy("CPU frequency warnings"),
    # ibstat
    "port_rate_gbit_s": gettext_lazy("Port rate"),
    "max_active_rate_gbit_s": gettext_lazy("Highest active port rate"),
    "ca_count": gettext_lazy("Host channel adapters"),
    "port_count": gettext_lazy("Ports"),
    "active_port_count": gettext_lazy("Active ports"),
    "down_port_count": gettext_lazy("Ports down"),
    # nvidia-smi topo / nvlink
    "gpu_count": gettext_lazy("GPUs"),
    "nic_count": gettext_lazy("Network adapters"),
    "nvlink_pairs": gettext_lazy("GPU pairs joined by NVLink"),
    "nvlink_min_links": gettext_lazy("Fewest NVLinks between two GPUs"),
    "nvlink_max_links": gettext_lazy("Most NVLinks between two GPUs"),
    "gpus_with_local_nic": gettext_lazy("GPUs with a local network adapter"),
    "links_per_gpu": gettext_lazy("NVLinks per GPU"),
    "link_gbyte_s": gettext_lazy("NVLink speed per link"),
    "link_gbyte_s_min": gettext_lazy("Slowest NVLink speed"),
    "nvlink_active_links": gettext_lazy("Active NVLinks"),
    "inactive_links": gettext_lazy("Inactive NVLinks"),
    "p2p_supported_links": gettext_lazy("Links with P2P support"),
    "nvlink_replay_errors": gettext_lazy("NVLink replay errors"),
    "nvlink_recovery_errors": gettext_lazy("NVLink recovery errors"),
    "nvlink_crc_errors": gettext_lazy("NVLink CRC errors"),
    "replay_errors_total": gettext_lazy("Replay errors (total)"),
    "recovery_errors_total": gettext_lazy("Recovery errors (total)"),
    "crc_errors_total": gettext_lazy("CRC errors (total)"),
    # nvidia-smi, -q, -x, -L, mig
    "gpu_memory_total_mib": gettext_lazy("GPU memory"),
    "attached_gpus": gettext_lazy("Attached GPUs"),
    "gpus_shown": gettext_lazy("GPUs listed"),
    "ecc_volatile_uncorrected_total": gettext_lazy("Uncorrected ECC errors since boot (total)"),
    "ecc_volatile_corrected": gettext_lazy("Corrected ECC errors since boot"),
    "ecc_volatile_uncorrected": gettext_lazy("Uncorrected ECC errors since boot"),
    "ecc_aggregate_corrected": gettext_lazy("Corrected ECC errors (lifetime)"),
    "ecc_aggregate_uncorrected": gettext_lazy("Uncorrected ECC errors (lifetime)"),
    "remapped_rows_correctable": gettext_lazy("Rows remapped (correctable)"),
    "remapped_rows_uncorrectable": gettext_lazy("Rows remapped (uncorrectable)"),
    "remapped_rows_pending": gettext_lazy("Row remapping pending"),
    "remapped_rows_failure": gettext_lazy("Row remapping failed"),
    "memory_unrepairable": gettext_lazy("Unrepairable GPU memory"),
    # npu-smi (Huawei Ascend)
    "npu_count": gettext_lazy("Ascend NPUs"),
    "chip_count": gettext_lazy("Ascend NPU chips"),
    "ecc_aggregate_uncorrected_total": gettext_lazy("Uncorrected ECC errors (lifetime, total)"),
    "memory_repair_pending": gettext_lazy("GPU memory repair pending (channel or TPC)"),
    "channel_repair_pending": gettext_lazy("HBM channel repair pending"),
    "tpc_repair_pending": gettext_lazy("TPC repair pending"),
    "sram_threshold_exceeded": gettext_lazy("SRAM error threshold exceeded"),
    "retired_pages": gettext_lazy("Retired memory pages"),
    "retired_pages_pending": gettext_lazy("Memory page retirement pending"),
    "pcie_link_width_max": gettext_lazy("Widest PCIe link the GPU and the system allow"),
    "pcie_link_width_current": gettext_lazy("Current PCIe link width"),
    "c2c_enabled_gpus": gettext_lazy("GPUs with NVLink-C2C to the CPU enabled"),
    "hypervisor_detected": gettext_lazy("Kernel log: hypervisor detected"),
    "mig_count": gettext_lazy("MIG devices"),
    "gpu_instance_count": gettext_lazy("GPU instances"),
    "compute_instance_count": gettext_lazy("Compute instances"),
    "mig_gpu_instance_count": gettext_lazy("MIG GPU instances"),
    "mig_compute_instance_count": gettext_lazy("MIG compute instances"),
    "profile_count": gettext_lazy("MIG profiles"),
    "compute_instance_profile_count": gettext_lazy("MIG compute instance profiles"),
    # nvbandwidth
    "nvbandwidth_sum_gbyte_s": gettext_lazy("Copy bandwidth (sum of a test)"),
    "h2d_gbyte_s": gettext_lazy("Host-to-device bandwidth"),
    "d2h_gbyte_s": gettext_lazy("Device-to-host bandwidth"),
    "d2d_min_gbyte_s": gettext_lazy("Slowest device-to-device bandwidth"),
    "d2d_mean_gbyte_s": gettext_lazy("Mean device-to-device bandwidth"),
    "device_count": gettext_lazy("Devices"),
    "waived": gettext_lazy("Tests waived"),
    # lspci, lscpu, dmidecode, systemd-detect-virt
    "nvidia_gpu_count": gettext_lazy("NVIDIA GPUs on the PCI bus"),
    "nvswitch_count": gettext_lazy("NVSwitches"),
    "mellanox_functions": gettext_lazy("Mellanox PCI functions"),
    "ascend_functions": gettext_lazy("Huawei Ascend NPU PCI functions"),
    "logical_cpus": gettext_lazy("Logical CPUs"),
    "sockets": gettext_lazy("CPU sockets"),
    "cores_per_socket": gettext_lazy("Cores per socket"),
    "threads_per_core": gettext_lazy("Threads per core"),
    "numa_nodes": gettext_lazy("NUMA nodes"),
    "dmi_virtual": gettext_lazy("Virtual machine per DMI"),
    "memory_total_gib": gettext_lazy("System memory"),
    "record_count": gettext_lazy("DMI records"),
    "system_count": gettext_lazy("System records"),
    "virtual": gettext_lazy("Virtualised"),
    # fio
    "read_bw_mbyte_s": gettext_lazy("Read bandwidth"),
    "write_bw_mbyte_s": gettext_lazy("Write bandwidth"),
    "read_iops": gettext_lazy("Read IOPS"),
    "write_iops": gettext_lazy("Write IOPS"),
    "read_clat_mean_us": gettext_lazy("Mean read completion latency"),
    "write_clat_mean_us": gettext_lazy("Mean write completion latency"),
    "job_count": gettext_lazy("fio jobs"),
    # kernel log
    "xid": gettext_lazy("Xid error (code)"),
    "sxid": gettext_lazy("SXid error (code)"),
    "xid_count": gettext_lazy("Xid errors"),
    "sxid_count": gettext_lazy("SXid errors"),
    "sxid_fatal_count": gettext_lazy("Fatal SXid errors"),
    "kernel_lines": gettext_lazy("Kernel log lines"),
    "line_count": gettext_lazy("Lines read"),
    "nvidia_driver_lines": gettext_lazy("Lines from the NVIDIA driver"),
    "gpu_init_failed_line": gettext_lazy("Line where the driver could not bring a GPU up"),
    "hypervisor_detected_line": gettext_lazy("Line where the kernel names its hypervisor"),
    # ping / TCP connect
    "rtt_avg_ms": gettext_lazy("Average round-trip time"),
    "rtt_min_ms": gettext_lazy("Minimum round-trip time"),
    "rtt_max_ms": gettext_lazy("Maximum round-trip time"),
    "rtt_mdev_ms": gettext_lazy("Round-trip time deviation"),
    "loss_pct": gettext_lazy("Packet loss"),
    "transmitted": gettext_lazy("Probes sent"),
    "received": gettext_lazy("Replies received"),
    "reply_count": gettext_lazy("Replies read"),
    "target_count": gettext_lazy("Targets"),
    # dcgmi diag
    "dcgm_failed_tests": gettext_lazy("DCGM tests failed"),
    "dcgm_failed_gpus": gettext_lazy("GPUs failing DCGM tests"),
    "level": gettext_lazy("DCGM run level"),
}

# Facts once stored under a name of their own beside the metric they repeat (the same value: once
# as a "count" with its line, once without a unit), both labelled alike, so that the candidate
# page listed "CPU sockets" twice. Named as their metric since PARSER_VERSION 1.20.0; uploads
# imported before keep both rows until re-imported (a decided evaluation's for good): the
# measurement lists read such a row by its new name and leave out the copy. (kind, old) -> new.
RETIRED_FACTS: dict[tuple[str, str], str] = {
    ("cpu_info", "cpu_sockets"): "sockets",
    ("npu_smi", "npu_chip_count"): "chip_count",
}

# The rubric's inputs that are not a catalogue field (offering./vendor. inputs are labelled by
# their model field): what was measured, derived or answered.
INPUT_LABELS: dict[str, Promise] = {
    "answer.gpu_match": gettext_lazy("GPU model as answered matches the offering"),
    "answer.monthly_cost": gettext_lazy("Monthly cost as answered"),
    "answer.delivery_form": gettext_lazy("Delivery form as the evidence settled it"),
    "answer.nvlink_topology_datasheet": gettext_lazy(
        "NVLink topology claim (item 2), checked against the GPU's datasheet first"
    ),
    "answer.gpu_form_factor_datasheet": gettext_lazy(
        "SXM/PCIe form factor claim (item 1), checked against the GPU's datasheet first"
    ),
    "answer.fabric_topology": gettext_lazy(
        "Switch topology (item 3) as only a document review can verify it: ibstat reads one "
        "node's ports and cannot show oversubscription or cross-rack latency"
    ),
    "answer.nvme_capacity": gettext_lazy(
        "Local NVMe capacity (item 4) as only a document review can verify it: fio measures "
        "bandwidth, never a drive's size, so the capacity stays claimed"
    ),
    "derived.budget_ratio": gettext_lazy("Cost as a share of the budget"),
    "derived.dcgm_failed_count": gettext_lazy("DCGM tests failed"),
    "derived.dcgm_result": gettext_lazy("DCGM diagnostic result, by how deep the run went"),
    "derived.delivery_form": gettext_lazy("Delivery form"),
    "derived.delivery_form_status": gettext_lazy("Delivery-form claim against the evidence"),
    "derived.effective_price_ratio": gettext_lazy("Effective price against the reference"),
    "derived.elasticity_fit": gettext_lazy("Elasticity fit to the workload"),
    "derived.nvlink_topology": gettext_lazy(
        "NVLink topology: as measured; the claim at its status where no node shows it or "
        "the evidence contradicted it"
    ),
    "derived.has_distributed_fs": gettext_lazy("Has a distributed file system"),
    "derived.inter_node_traffic": gettext_lazy(
        "Traffic between nodes needed (the required GPUs exceed one node)"
    ),
    "derived.gpu_to_gpu_traffic": gettext_lazy(
        "Traffic between GPUs needed (more than one GPU required)"
    ),
    "derived.nvlink_reference": gettext_lazy(
        "NVIDIA's reference figures apply to the GPU (no: Huawei Ascend, AMD Instinct; its "
        "collective bus bandwidth then counts as unmeasured and its interconnect as declared)"
    ),
    "derived.scale_efficiency": gettext_lazy("Expected scaling efficiency"),
    "derived.rails_per_gpu": gettext_lazy("Compute rails (NICs) per GPU, as claimed"),
    "derived.measured_rails_per_gpu": gettext_lazy(
        "Compute rails Active per GPU on the worst node (ibstat)"
    ),
    "derived.fabric_gbit_s_per_gpu": gettext_lazy(
        "Compute-fabric bandwidth per GPU, as claimed (NICs x rate / GPUs per node, Gb/s)"
    ),
    "derived.nvme_capacity_tib_per_gpu": gettext_lazy(
        "Local NVMe capacity per GPU, as claimed (a node's TiB / GPUs per node)"
    ),
    "derived.nvme_read_gbyte_s_per_gpu": gettext_lazy(
        "NVMe read bandwidth per GPU, as claimed (a node's GB/s / GPUs per node)"
    ),
    "derived.nvme_write_gbyte_s_per_gpu": gettext_lazy(
        "NVMe write bandwidth per GPU, as claimed (a node's GB/s / GPUs per node)"
    ),
    "derived.measured_nvme_read_gbyte_s_per_gpu": gettext_lazy(
        "Measured NVMe read bandwidth per GPU: the worst node's GB/s / GPUs per node (fio)"
    ),
    "derived.measured_nvme_write_gbyte_s_per_gpu": gettext_lazy(
        "Measured NVMe write bandwidth per GPU: the worst node's GB/s / GPUs per node (fio)"
    ),
    "derived.dfs_gbyte_s_per_gpu": gettext_lazy(
        "Distributed storage bandwidth per GPU, as claimed (the aggregate GB/s / the GPUs the "
        "job runs on)"
    ),
    "derived.measured_fabric_gbit_s_per_gpu": gettext_lazy(
        "Compute-fabric bandwidth per GPU measured: rails Active on the worst node x the "
        "slowest rate / GPUs per node, Gb/s (ibstat)"
    ),
    "derived.claimed_nics_at_measured_rate_gbit_s_per_gpu": gettext_lazy(
        "Compute-fabric bandwidth per GPU: the claimed NICs less the ports down x the slowest "
        "rate ibstat showed / GPUs per node, Gb/s (the NIC count is a claim: ibstat counted "
        "no rails)"
    ),
    "measured.allgather_busbw_fraction": gettext_lazy(
        "Measured all_gather bus bandwidth against the expected"
    ),
    "measured.alltoall_busbw_fraction": gettext_lazy(
        "Measured alltoall bus bandwidth against the expected"
    ),
    "measured.busbw_fraction": gettext_lazy("Measured bus bandwidth against the expected"),
    "measured.dcgm_overall": gettext_lazy("DCGM diagnostic result"),
    "measured.dcgm_stress_tested": gettext_lazy("DCGM diagnostic loaded the GPUs (run level 3+)"),
    "measured.ecc_uncorrected": gettext_lazy("Uncorrected ECC errors"),
    "measured.ib_ports_down": gettext_lazy("InfiniBand ports down"),
    "measured.ib_rate_gbit_s_min": gettext_lazy("Slowest active compute-fabric port rate (ibstat)"),
    "measured.ib_rails_min": gettext_lazy("Fewest compute rails Active on a node (ibstat)"),
    "measured.nvlink_topology": gettext_lazy("Measured NVLink topology"),
    "measured.nvme_read_gbyte_s": gettext_lazy("Measured NVMe read bandwidth"),
    "measured.nvme_write_gbyte_s": gettext_lazy("Measured NVMe write bandwidth"),
    "measured.remapped_rows_failure": gettext_lazy(
        "GPU memory failures needing replacement (row remapping failed, unrepairable memory, "
        "SRAM threshold exceeded)"
    ),
    "measured.remapped_rows_pending": gettext_lazy(
        "GPU memory repairs waiting for a reset (row remap, channel or TPC repair pending)"
    ),
    "measured.xid_errors": gettext_lazy("Xid errors"),
    "measured.xid_severity": gettext_lazy("Worst node's Xid/SXid severity"),
    "measured.xid_node_share": gettext_lazy("Share of nodes with Xid/SXid errors"),
    "factor": gettext_lazy("Credit for a claim not yet verified"),
    # A contradicted item's factor scaled the rule's maximum (scoring.dimensions.runners):
    # the value is that maximum.
    "contradicted.max_points": gettext_lazy(
        "Contradicted: the factor is taken of the rule's maximum points"
    ),
    # A rule's backed_by that backs nothing (scoring.dimensions.runners): the value is the
    # status the claim counts at most as.
    "unbacked.offering.sla_credit_pct": gettext_lazy(
        "No compensation on SLA breach, so the SLA counts at most as"
    ),
}

# The bare-metal detection's signals (scoring.verification.bare_metal) by what they look at.
SIGNAL_LABELS: dict[str, Promise] = {
    "container": gettext_lazy("Container runtime"),
    "cpu_count": gettext_lazy("Logical CPUs against the claim"),
    "cpu_hypervisor_flag": gettext_lazy("CPU hypervisor flag"),
    "dpu_virtio": gettext_lazy("Virtio devices emulated by a BlueField DPU"),
    "dmi_product": gettext_lazy("DMI system product"),
    "gpu_root_bus": gettext_lazy("GPUs on the root PCI bus"),
    "gpu_virtualization_mode": gettext_lazy("GPU virtualisation mode (nvidia-smi)"),
    "hca_virtual_function": gettext_lazy("InfiniBand adapter is a virtual function"),
    "hyperv_vpci": gettext_lazy("Hyper-V virtual PCI bus"),
    "kernel_hypervisor": gettext_lazy("Hypervisor named by the kernel log"),
    "lspci_devices": gettext_lazy("PCI devices (lspci)"),
    "mig_mode": gettext_lazy("MIG mode"),
    "nccl_cloud_plugin": gettext_lazy("NCCL cloud network plugin"),
    "nvidia_vgpu": gettext_lazy("NVIDIA vGPU"),
    "pci_layout": gettext_lazy("PCI bus layout of the GPUs"),
    "sriov_virtual_function": gettext_lazy("SR-IOV virtual function"),
    "systemd_detect_virt": gettext_lazy("systemd-detect-virt"),
    "topo_flat_numa": gettext_lazy("Flat NUMA topology (nvidia-smi topo -m)"),
}

# The parsers' units that are words, not symbols (GB/s, µs and the like read the same in every
# language).
UNIT_LABELS: dict[str, Promise] = {
    "bool": gettext_lazy("yes = 1, no = 0"),
    "count": gettext_lazy("count"),
    "B": gettext_lazy("bytes"),
}


# Each evidence kind by the tool that prints it (a command name reads the same in every language).
KIND_LABELS: dict[str, str] = {
    "nccl_tests": "nccl-tests",
    "nvidia_smi_topo": "nvidia-smi topo -m",
    "nvidia_smi_nvlink": "nvidia-smi nvlink",
    "nvidia_smi": "nvidia-smi",
    "nvidia_smi_query": "nvidia-smi -q",
    "nvidia_smi_xml": "nvidia-smi -q -x",
    "nvidia_smi_list": "nvidia-smi -L",
    "nvidia_smi_mig": "nvidia-smi mig",
    "ibstat": "ibstat",
    "lspci": "lspci",
    "cpu_info": "lscpu",
    "dmi": "dmidecode",
    "virt": "systemd-detect-virt",
    "fio": "fio",
    "perftest": "perftest (ib_*_bw / ib_*_lat)",
    "dcgm_diag": "dcgmi diag",
    "kernel_log": "dmesg / journalctl -k",
    "rtt": "ping",
    "nvbandwidth": "nvbandwidth",
    "npu_smi": "npu-smi",
}


def kind_label(kind: str) -> str:
    """The tool behind an evidence kind; the kind itself when unknown."""
    return KIND_LABELS.get(kind, kind)


def signal_label(name: str) -> str:
    """The label of a bare-metal detection signal; the name itself when it has none."""
    label = SIGNAL_LABELS.get(name)
    return str(label) if label is not None else name


def unit_label(unit: str) -> str:
    """A measurement's unit in the reader's language; symbols stay as they are."""
    label = UNIT_LABELS.get(unit)
    return str(label) if label is not None else unit


_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")

# Byte counts a page shows in binary units, as nccl-tests and perftest sweep powers of two; the
# MTU stays in bytes, as ip, ibv_devinfo and perftest print it (4096, not 4 KiB).
_SIZES_IN_BYTES = frozenset({"mtu_bytes"})


def size_label(size_bytes: float) -> str:
    """1048576 -> "1 MiB", 1536 -> "1.5 KiB", 8 -> "8 B": binary units, at most two decimals."""
    value, unit = float(size_bytes), 0
    while abs(value) >= 1024 and unit < len(_BINARY_UNITS) - 1:
        value, unit = value / 1024, unit + 1
    shown = f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{'0' if shown == '-0' else shown} {_BINARY_UNITS[unit]}"


def size_with_bytes(size_bytes: int) -> str:
    """A byte count for a message about a limit: "256 MiB (268,435,456 bytes)", so that a size
    just over a limit is told apart from the limit by its exact count."""
    return _("%(size)s (%(bytes)s bytes)") % {
        "size": size_label(size_bytes),
        "bytes": f"{size_bytes:,}",
    }


def measurement_size(metric: str, unit: str, low: float, high: float) -> str:
    """A measurement's value, or the range of its values, as a byte size in binary units
    ("16 MiB", or "1 KiB" to "8 GiB" joined by a dash); "" when the measurement is not a message
    or buffer size and is shown as its number and unit instead."""
    if unit != "B" or metric in _SIZES_IN_BYTES or low is None or high is None:
        return ""
    if high == low:
        return size_label(low)
    return f"{size_label(low)} – {size_label(high)}"


def metric_label(name: str) -> str:
    """The label of a parser's metric; the name itself when it has none."""
    label = METRIC_LABELS.get(name)
    return str(label) if label is not None else name


def input_label(key: str) -> str:
    """The label of a rule's input ("offering.fabric", "measured.busbw_fraction"); catalogue
    fields by their model field's verbose name; the key itself when unknown."""
    if key in INPUT_LABELS:
        return str(INPUT_LABELS[key])
    source, _dot, name = key.partition(".")
    if source == "answer":
        titles = _item_titles(name)
        if titles is None:
            return key
        title = titles[1] if (get_language() or "").startswith("zh") and titles[1] else titles[0]
        return _("Answer: %(item)s") % {"item": title}
    model = {"offering": Offering, "vendor": Vendor}.get(source)
    if model is None:
        return key
    try:
        return str(model._meta.get_field(name).verbose_name)
    except FieldDoesNotExist:
        return key


# Checklist item titles by key, (English, Chinese): reference data loaded with the fixtures, read
# once per process and again only when a key is not known yet.
_ITEM_TITLES: dict[str, tuple[str, str]] = {}


def _item_titles(key: str) -> tuple[str, str] | None:
    if key not in _ITEM_TITLES:
        rows = ChecklistItem.objects.values_list("key", "title_en", "title_zh")
        _ITEM_TITLES.update({k: (en, zh) for k, en, zh in rows})
    return _ITEM_TITLES.get(key)
