"""Health faults in the evidence: wrong collective results, DCGM failures, ECC, row remaps, the
Blackwell memory repair flags and GPU PCIe links trained narrower than they should."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._util import as_bool, as_int, as_list, by_node, first, per_node
from .model import SEVERITY_ERROR, SEVERITY_WARNING, Fault, NodeEvidence


def _total(value: Any) -> int | None:
    """Sum of an int or a per-GPU list of ints; None when nothing was countable."""
    numbers = [n for n in (as_int(v) for v in as_list(value)) if n is not None]
    return sum(numbers) if numbers else None


def _any_true(value: Any) -> bool:
    return any(as_bool(v) is True for v in as_list(value))


def _nccl_faults(ev: NodeEvidence) -> list[Fault]:
    m = ev.metrics
    wrong = as_int(m.get("wrong_total")) or 0
    if wrong <= 0 and m.get("out_of_bounds_ok") is not False:
        return []
    collective = m.get("collective") or "collective"
    # The parser sums every table of the file and says where the first wrong result is: the
    # reference points there, which may be a later run than the one whose bandwidth is shown.
    line = as_int(m.get("wrong_line"))
    at = ev.at_line(line)
    return [
        Fault(
            "nccl_wrong_results",
            ev.node_name,
            SEVERITY_ERROR,
            at.ref,
            f"nccl-tests {collective} on node {ev.node_name} returned wrong results "
            f"({wrong} wrong value(s)): the GPUs or links corrupt data; its bandwidth is not used.",
            f"节点 {ev.node_name} 的 nccl-tests {collective} 结果错误（{wrong} 个错误值）："
            "GPU 或链路存在数据损坏，该带宽结果不予采用。",
            {
                "wrong_total": wrong,
                "out_of_bounds": m.get("out_of_bounds"),
                "wrong_line": line,
            },
        )
    ]


def _dcgm_faults(ev: NodeEvidence) -> list[Fault]:
    m = ev.metrics
    overall = str(m.get("overall") or "").lower()
    failed = [str(t) for t in as_list(m.get("failed_tests"))]
    if overall == "fail" or failed:
        tests = ", ".join(failed) or "unnamed test"
        return [
            Fault(
                "dcgm_fail",
                ev.node_name,
                SEVERITY_ERROR,
                ev.ref,
                f"dcgmi diag on node {ev.node_name} failed: {tests}.",
                f"节点 {ev.node_name} 的 dcgmi diag 未通过：{tests}。",
                {"overall": m.get("overall"), "failed_tests": failed},
            )
        ]
    if overall == "warn":
        warned = ", ".join(str(t) for t in as_list(m.get("warned_tests"))) or "unnamed test"
        return [
            Fault(
                "dcgm_warn",
                ev.node_name,
                SEVERITY_WARNING,
                ev.ref,
                f"dcgmi diag on node {ev.node_name} passed with warnings: {warned}.",
                f"节点 {ev.node_name} 的 dcgmi diag 通过但有警告：{warned}。",
                {"overall": m.get("overall"), "warned_tests": as_list(m.get("warned_tests"))},
            )
        ]
    return []


# The nvidia-smi -q rows that say a GPU's memory waits for a reset (metric, row as printed),
# and those that say it needs replacing. Blackwell's memory repair extends row remapping
# (NVIDIA GPU Memory Error Management, "RMA Policy": "For Blackwell GPUs, a third remapping
# attempt for an uncorrectable memory error on a bank invokes HBM channel repair if there is a
# spare channel available"; "Supported GPUs": "RAS Repair - GPU Memory" on GB10x), so its flags
# count with the row-remapping ones:
# - a channel or TPC repair pending (NVML nvmlDeviceGetRepairStatus, "the repair status for
#   TPC/Channel repair") is applied at the next reset, like a pending remap ("This flag indicates
#   that row-remapping will happen at the next GPU reset");
# - unrepairable memory (nvmlDeviceGetUnrepairableMemoryFlag_v1) is memory no remap or channel
#   repair can fix any more, like a remapping failure, whose flag is the DRAM RMA criterion;
# - "SRAM Threshold Exceeded" is the SRAM half of the same RMA policy ("GPU L2 Memory RMA
#   Policy ... the RMA criteria is met ... Any of the following events will trigger the SRAM
#   Threshold Exceeded flag"; NVML nvmlEccSramErrorStatus_v1_t.bThresholdExceeded).
# The facts (verification.facts) count a node's evidence once when any row of a group says Yes.
MEMORY_PENDING_METRICS = ("remapped_rows_pending", "memory_repair_pending")
MEMORY_FAILURE_METRICS = ("remapped_rows_failure", "memory_unrepairable", "sram_threshold_exceeded")
_PENDING_ROWS = (
    (
        "remapped_rows_pending",
        (
            "a pending row remap (Remapped Rows, Pending: Yes)",
            "显存行重映射待生效（Remapped Rows, Pending: Yes）",
        ),
    ),
    (
        "retired_pages_pending",
        (
            "a pending page retirement (Retired Pages, Pending: Yes)",
            "显存页退役待生效（Retired Pages, Pending: Yes）",
        ),
    ),
    (
        "memory_repair_pending",
        (
            "a pending memory repair (Channel/TPC Repair Pending: Yes)",
            "显存修复待生效（Channel/TPC Repair Pending: Yes）",
        ),
    ),
)
# The per-GPU rows behind memory_repair_pending, to name the one that said Yes.
_REPAIR_PENDING_GPU_ROWS = (
    (
        "channel_repair_pending",
        (
            "a pending HBM channel repair (Channel Repair Pending: Yes)",
            "HBM 通道修复待生效（Channel Repair Pending: Yes）",
        ),
    ),
    (
        "tpc_repair_pending",
        (
            "a pending TPC repair (TPC Repair Pending: Yes)",
            "TPC 修复待生效（TPC Repair Pending: Yes）",
        ),
    ),
)
_FAILURE_ROWS = (
    (
        "remapped_rows_failure",
        (
            "a row-remapping failure (Remapping Failure Occurred: Yes)",
            "显存行重映射失败（Remapping Failure Occurred: Yes）",
        ),
    ),
    (
        "memory_unrepairable",
        (
            "unrepairable memory (Unrepairable Memory: Yes)",
            "显存无法修复（Unrepairable Memory: Yes）",
        ),
    ),
    (
        "sram_threshold_exceeded",
        (
            "SRAM uncorrectable errors past NVIDIA's threshold (SRAM Threshold Exceeded: Yes)",
            "SRAM 不可纠正错误超过 NVIDIA 阈值（SRAM Threshold Exceeded: Yes）",
        ),
    ),
)


def memory_flag(metrics: Mapping[str, Any], names: Sequence[str]) -> bool | None:
    """True when any of ``names`` says Yes in one file's metrics (a count > 0 counts too, as
    the facts always counted), False when one was read and none says Yes, None when none was."""
    seen = [v for name in names for v in as_list(metrics.get(name)) if v is not None]
    if not seen:
        return None
    return any(v is True or (isinstance(v, int | float) and v > 0) for v in seen)


def _pending_rows(m: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The pending rows that say Yes; a pending memory repair named by its own row (channel or
    TPC) when the per-GPU values are there."""
    rows: list[tuple[str, str]] = []
    gpus = [g for g in as_list(m.get("gpus")) if isinstance(g, Mapping)]
    for key, row in _PENDING_ROWS:
        if not _any_true(m.get(key)):
            continue
        if key == "memory_repair_pending":
            named = [r for k, r in _REPAIR_PENDING_GPU_ROWS if any(g.get(k) is True for g in gpus)]
            rows.extend(named or [row])
        else:
            rows.append(row)
    return rows


def _rows_en(rows: Sequence[tuple[str, str]]) -> str:
    return " and ".join(en for en, _ in rows)


def _rows_zh(rows: Sequence[tuple[str, str]]) -> str:
    return "、".join(zh for _, zh in rows)


def _memory_faults(ev: NodeEvidence) -> list[Fault]:
    m: Mapping[str, Any] = ev.metrics
    node = ev.node_name
    faults = []
    uncorrected = _total(
        first(m, "ecc_volatile_uncorrected", "ecc_uncorrected", "ecc_volatile_uncorr")
    )
    aggregate = _total(first(m, "ecc_aggregate_uncorrected", "ecc_aggregate_uncorr"))
    if (uncorrected or 0) > 0 or (aggregate or 0) > 0:
        faults.append(
            Fault(
                "ecc_uncorrected",
                node,
                SEVERITY_ERROR,
                ev.ref,
                f"GPU memory on node {node} reports uncorrectable ECC errors (volatile "
                f"{uncorrected or 0}, aggregate {aggregate or 0}).",
                f"节点 {node} 的 GPU 显存存在不可纠正 ECC 错误（易失 {uncorrected or 0}，"
                f"累计 {aggregate or 0}）。",
                {"volatile": uncorrected, "aggregate": aggregate},
            )
        )
    pending = _pending_rows(m)
    if pending:
        faults.append(
            Fault(
                "remapped_rows_pending",
                node,
                SEVERITY_ERROR,
                ev.ref,
                f"nvidia-smi -q on node {node} shows a GPU with {_rows_en(pending)}: the repair "
                "takes effect at the next GPU reset; the GPU needs a reset before it is reliable.",
                f"节点 {node} 的 nvidia-smi -q 显示有 GPU {_rows_zh(pending)}：修复在下次 GPU "
                "重置时生效；需重置 GPU 后才可靠。",
                {key: m.get(key) for key, _ in _PENDING_ROWS if m.get(key) is not None},
            )
        )
    failed = [row for key, row in _FAILURE_ROWS if _any_true(m.get(key))]
    if failed:
        faults.append(
            Fault(
                "remapped_rows_failure",
                node,
                SEVERITY_ERROR,
                ev.ref,
                f"nvidia-smi -q on node {node} shows a GPU with {_rows_en(failed)}: its memory "
                "can no longer be repaired in the field (NVIDIA's RMA criteria); the GPU should "
                "be replaced.",
                f"节点 {node} 的 nvidia-smi -q 显示有 GPU {_rows_zh(failed)}：显存已无法在现场"
                "修复（符合 NVIDIA 的 RMA 条件）；应更换该 GPU。",
                {key: m.get(key) for key, _ in _FAILURE_ROWS if m.get(key) is not None},
            )
        )
    return faults


def _nvlink_faults(ev: NodeEvidence) -> list[Fault]:
    m = ev.metrics
    counters = {
        name: as_int(m.get(f"{name}_errors_total")) or 0 for name in ("replay", "recovery", "crc")
    }
    if not any(counters.values()):
        return []
    links = [str(link) for link in as_list(m.get("links_with_errors"))]
    shown = ", ".join(f"{name} {count}" for name, count in counters.items() if count)
    where = f" on {', '.join(links)}" if links else ""
    return [
        Fault(
            "nvlink_errors",
            ev.node_name,
            SEVERITY_WARNING,
            ev.ref,
            f"NVLink error counters on node {ev.node_name} are not zero ({shown}){where}: "
            "a link may be flaky.",
            f"节点 {ev.node_name} 的 NVLink 错误计数不为零（{shown}）{where}：链路可能不稳定。",
            {**counters, "links_with_errors": links},
        )
    ]


# --- PCIe link width ------------------------------------------------------------------------
#
# A GPU whose PCIe link trained at x8 or x4 where x16 is possible (a bad riser, slot, cable or
# retimer) halves or quarters host-to-device bandwidth and the PCIe paths GPUDirect RDMA and
# NCCL use, without any error counter saying so. nvidia-smi's "Link Width Max" is the widest
# link the GPU and the system allow (NVML nvmlDeviceGetMaxPcieLinkWidth: "for a device with a
# 16x PCIe bus width attached to a 8x PCIe system bus this function will report a max link
# width of 8"), lspci's LnkCap the device's own. The link speed (generation) is never judged:
# GPUs drop to Gen1 when idle to save power, so a low current generation is normal.
# Not judged either: laptop GPUs (the portal buys servers; a laptop's GPU is soldered to as
# many lanes as its maker wired, often eight, with no riser or slot to fix). Judged, with a
# caveat in the text: GPUs in a VM (nvidia-smi's virtualization mode Pass-Through or VGPU, or
# an lspci listing with virtual signs): the width is what the GPU reports through the
# hypervisor, which may be the VM's virtual topology rather than the physical link, so the
# warning asks for a check on the host instead of being dropped; a narrow link there would
# cost the tenant the same bandwidth.
# Not judged by the GPU's own maximum either: a GPU of a multi-GPU board (nvidia-smi's
# "MultiGPU Board: Yes": Tesla K80, M60, M10) sits behind the board's own PCIe switch, so its
# link is the on-board one the board's maker wired, not a slot, riser or retimer; the real Tesla
# M10 report in the samples shows two of its GPUs at x8 of x16 alike. Such a GPU is judged
# against the other GPUs of its board (same board id, same file) instead: narrower than one of
# them is a link that trained narrower; as wide as the widest of them is the board's wiring.
_LINK_SKIPPED_MODELS = ("laptop", "mobile", "max-q")
_VM_MODES = ("pass-through", "vgpu")


def _board_width(gpus: Sequence[Mapping[str, Any]], gpu: Mapping[str, Any]) -> int | None:
    """The widest current link of the other GPUs of ``gpu``'s multi-GPU board, or None (not
    on a multi-GPU board, or no other GPU of the board shows its width)."""
    if gpu.get("multigpu_board") is not True:
        return None
    widths = [
        width
        for other in gpus
        if other is not gpu
        and other.get("multigpu_board") is True
        and other.get("board_id") == gpu.get("board_id")
        and (width := as_int(other.get("pcie_link_width_current"))) is not None
    ]
    return max(widths, default=None)


def _slot_key(bus: Any) -> str | None:
    """A bus id the two tools spell alike: "00000000:00:1E.0" and "00:1e.0" -> "0000:00:1e.0"."""
    parts = re.match(
        r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.([0-7])$", str(bus or "")
    )
    if not parts:
        return None
    domain = int(parts.group(1) or "0", 16)
    return f"{domain:04x}:{parts.group(2)}:{parts.group(3)}.{parts.group(4)}".lower()


def _narrowed_en(current: int, widest: int) -> str:
    if current * 2 == widest:
        return "halves"
    if current * 4 == widest:
        return "cuts to a quarter"
    return f"cuts to {current}/{widest}"


def _narrowed_zh(current: int, widest: int) -> str:
    if current * 2 == widest:
        return "减半"
    if current * 4 == widest:
        return "降至四分之一"
    return f"降至 {current}/{widest}"


_LINK_KINDS = ("nvidia_smi_query", "nvidia_smi_xml", "lspci")


def _link_width_faults(ev: NodeEvidence, seen: set[str]) -> list[Fault]:
    """A warning per GPU of one nvidia-smi -q / -q -x / --query-gpu or lspci -vv file whose
    current PCIe link width is below its maximum; ``seen`` holds the bus ids already reported
    for the node (the same GPU in two tools is one fault, from the first file read)."""
    m = ev.metrics
    gpus = [g for g in as_list(m.get("gpus")) if isinstance(g, Mapping)]
    tool = "lspci -vv" if ev.kind == "lspci" else "nvidia-smi"
    # nvidia-smi -q, -q -x and --query-gpu list GPUs in index order; the position is the index
    # only when the file shows every GPU (for -q -x: as many complete <gpu> as attached_gpus,
    # none of them a copy of another).
    if ev.kind == "nvidia_smi_query":
        whole = m.get("gpu_count_partial") is None and as_int(m.get("gpu_count")) == len(gpus)
    elif ev.kind == "nvidia_smi_xml":
        whole = as_int(m.get("attached_gpus")) == len(gpus) and not m.get("duplicate_uuids")
    else:
        whole = False
    faults = []
    for position, gpu in enumerate(gpus):
        current = as_int(gpu.get("pcie_link_width_current"))
        widest = as_int(gpu.get("pcie_link_width_max"))
        if current is None or widest is None or not 0 < current < widest:
            continue
        model = str(gpu.get("product_name") or gpu.get("name") or gpu.get("model") or "")
        if any(word in model.lower() for word in _LINK_SKIPPED_MODELS):
            continue
        if gpu.get("multigpu_board") is True:
            sibling = _board_width(gpus, gpu)
            if sibling is None or current >= sibling:
                continue
            widest = min(widest, sibling)  # what the board's wiring gives its other GPUs
        bus = gpu.get("bus_id") or gpu.get("slot")
        key = _slot_key(bus)
        if key is not None and key in seen:
            continue
        if key is not None:
            seen.add(key)
        index = position if whole else None
        name_en = f"GPU {index} ({bus})" if index is not None else f"the GPU at {bus or '?'}"
        name_zh = f"GPU {index}（{bus}）" if index is not None else f"位于 {bus or '?'} 的 GPU"
        mode = str(gpu.get("virtualization_mode") or "")
        vgpu_mode = mode.lower() in _VM_MODES
        in_vm = vgpu_mode or (ev.kind == "lspci" and m.get("virtual") is True)
        how = f"virtualization mode {mode}" if vgpu_mode else "virtual devices in lspci"
        how_zh = f"虚拟化模式 {mode}" if vgpu_mode else "lspci 中有虚拟设备"
        vm_en = (
            f" The node is a VM ({how}): the width is what the GPU reports through the "
            "hypervisor and may not be the physical link's; confirm it on the host."
            if in_vm
            else ""
        )
        vm_zh = (
            f"该节点为虚拟机（{how_zh}）：此宽度是 GPU 经虚拟化层报告的值，未必是物理链路的宽度；"
            "请在宿主机上确认。"
            if in_vm
            else ""
        )
        line = as_int(gpu.get("pcie_link_width_line"))
        at = ev.at_line(line)
        faults.append(
            Fault(
                "pcie_link_narrow",
                ev.node_name,
                SEVERITY_WARNING,
                at.ref,
                f"{tool} on node {ev.node_name} shows {name_en} with its PCIe link at x{current} "
                f"of x{widest}: the link trained narrower than the GPU and the system allow (most "
                f"often a bad riser, slot or retimer), which {_narrowed_en(current, widest)} "
                "host-to-device bandwidth and the PCIe paths of GPUDirect RDMA and NCCL. The link "
                f"speed is not judged: GPUs lower it when idle.{vm_en}",
                f"节点 {ev.node_name} 的 {tool} 显示{name_zh}的 PCIe 链路为 x{current}"
                f"（最大 x{widest}）：链路协商宽度低于 GPU 与系统所能支持的宽度（多为转接卡、"
                "插槽或重定时器故障），"
                f"主机到设备带宽及 GPUDirect RDMA、NCCL 的 PCIe 路径带宽"
                f"{_narrowed_zh(current, widest)}。不评判链路速率：GPU 空闲时会主动降速。{vm_zh}",
                {
                    "gpu_index": index,
                    "bus_id": bus,
                    "width_current": current,
                    "width_max": widest,
                    "virtualized": in_vm,
                },
            )
        )
    return faults


# --- Xid / SXid severity -----------------------------------------------------------------
#
# NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors, "Analyzing Xid Errors with the Xid
# Catalog") gives each code a resolution bucket: restart the application, reset the GPU, reboot
# the node, or contact support (RMA). Codes whose fix is a GPU reset, a reboot or a replacement
# say the hardware is unhealthy and weigh 1.0; codes the driver recovered from but that ask for
# a reset soon (a row remap pending, contained ECC, a high single-bit rate) 0.5; codes that are
# usually the application's own fault (an illegal address, an engine exception, a channel the
# driver reset) 0.1. A code the catalogue lists that is not named here weighs 0.5: unknown is
# neither clean nor proven fatal.
XID_HARDWARE = 1.0
XID_ATTENTION = 0.5
XID_APPLICATION = 0.1
XID_DEFAULT = XID_ATTENTION
XID_SEVERITY: Mapping[int, float] = {
    48: XID_HARDWARE,  # double-bit ECC error (DBE)
    61: XID_HARDWARE,  # internal micro-controller breakpoint/warning
    62: XID_HARDWARE,  # internal micro-controller halt
    64: XID_HARDWARE,  # ECC page retirement / row remapping failure
    74: XID_HARDWARE,  # NVLink error
    79: XID_HARDWARE,  # GPU has fallen off the bus
    95: XID_HARDWARE,  # uncontained ECC error
    119: XID_HARDWARE,  # GSP RPC timeout
    120: XID_HARDWARE,  # GSP error
    140: XID_HARDWARE,  # unrecovered ECC error
    63: XID_ATTENTION,  # ECC page retired / row remapping pending: reset to activate
    92: XID_ATTENTION,  # high single-bit ECC error rate
    94: XID_ATTENTION,  # contained ECC error: the application was stopped, the GPU goes on
    154: XID_ATTENTION,  # GPU recovery action changed (reset or reboot requested)
    13: XID_APPLICATION,  # graphics engine exception (usually the application)
    31: XID_APPLICATION,  # GPU memory page fault (an illegal address in the application)
    43: XID_APPLICATION,  # GPU stopped processing (the driver reset the channel)
    45: XID_APPLICATION,  # preemptive cleanup after an earlier error
    69: XID_APPLICATION,  # graphics engine class error
}
# NVSwitch SXid lines say "Fatal" or "Non-fatal" themselves (NVIDIA Fabric Manager user guide,
# "NVSwitch errors"): a fatal SXid takes the switch's GPUs out until the fabric is reset.
SXID_FATAL = 1.0
SXID_NON_FATAL = 0.25
# A GPU the driver could not bring up (a failed probe, RmInitAdapter, a board the driver does
# not support) logs no Xid, yet serves no work at all: it weighs as a GPU fallen off the bus
# (Xid 79), as does the driver's own "has fallen off the bus" sentence logged without an
# Xid 79 line (older drivers, bumblebee#554).
GPU_INIT_FAILED = XID_HARDWARE
GPU_INIT_FAILED_NAME = "GPU not brought up"
GPU_FALLEN_NAME = "GPU fallen off the bus"
_FALLEN_XID = 79
# A node whose weighted errors reach this is a node with hardware trouble (not only faults the
# application usually causes itself).
XID_NODE_AFFECTED = XID_ATTENTION


def xid_weight(code: int) -> float:
    """The severity weight 0..1 of one Xid code (XID_SEVERITY, XID_DEFAULT when unlisted)."""
    return XID_SEVERITY.get(code, XID_DEFAULT)


@dataclass(frozen=True)
class NodeGpuErrors:
    """One node's kernel-log errors weighed by severity.

    ``severity`` sums the weight of each distinct (Xid code, GPU) and (SXid code, switch) pair:
    a line repeated for the same fault counts once, the same fault on two GPUs twice.
    ``worst`` names the heaviest code seen ("Xid 79", "SXid 12028 fatal") or is empty."""

    node: str
    severity: float
    xid_count: int
    sxid_count: int
    sxid_fatal: int
    worst: str
    ref: str


def _event_pairs(m: Mapping[str, Any], kind: str) -> list[tuple[int, str, bool]]:
    """Distinct (code, device, fatal) of a log's Xid or SXid events; without an event list
    (older parses) one per distinct code."""
    pairs: dict[tuple[int, str], bool] = {}
    events = [e for e in as_list(m.get("events")) if isinstance(e, Mapping)]
    for event in events:
        code = as_int(event.get("code"))
        if event.get("type") != kind or code is None:
            continue
        key = (code, str(event.get("pci") or ""))
        pairs[key] = pairs.get(key, False) or bool(event.get("fatal"))
    codes_key = "xid_codes" if kind == "xid" else "sxid_codes"
    listed = [c for c in (as_int(x) for x in as_list(m.get(codes_key))) if c is not None]
    seen = {code for code, _ in pairs}
    # Codes beyond the parser's event limit, or a log summarised without events.
    fatal_left = (as_int(m.get("sxid_fatal_count")) or 0) > 0 and kind == "sxid" and not events
    for code in listed:
        if code not in seen:
            pairs[(code, "")] = fatal_left
    return [(code, device, fatal) for (code, device), fatal in sorted(pairs.items())]


# npu-smi's health states (Huawei Ascend), weighed as the Xid buckets above: a device's own
# fault report, by the fix it asks for. npu-smi's source calls Warning, Alarm and Critical
# unhealthy; Huawei's alarm levels are minor, major and critical: a major or critical alarm
# takes the NPU out of service until it is handled (hardware, 1.0), a minor one asks for
# attention (0.5). Each device (NPU and chip) counts once, at its worst state, as a distinct
# Xid code on one GPU does; OK weighs nothing, so a node whose NPUs are all OK reads as a clean
# kernel log does.
NPU_HEALTH_SEVERITY: Mapping[str, float] = {
    "OK": 0.0,
    "Warning": XID_ATTENTION,
    "Alarm": XID_HARDWARE,
    "Critical": XID_HARDWARE,
}


def node_npu_errors(ev: NodeEvidence) -> NodeGpuErrors | None:
    """One node's npu-smi health weighed like its Xid errors (NPU_HEALTH_SEVERITY); None when
    it is no npu-smi output or read no health state. ``worst`` names the worst device."""
    if ev.kind != "npu_smi":
        return None
    devices = [
        d
        for d in as_list(ev.metrics.get("health_by_device"))
        if isinstance(d, Mapping) and d.get("health") in NPU_HEALTH_SEVERITY
    ]
    if not devices:
        return None
    severity, worst, worst_weight, faults = 0.0, "", 0.0, 0
    for device in devices:
        weight = NPU_HEALTH_SEVERITY[str(device["health"])]
        severity += weight
        faults += weight > 0
        if weight > worst_weight:
            npu, chip = device.get("npu"), device.get("chip")
            where = "NPU" if npu is None else f"NPU {npu}"
            where += "" if chip is None else f" chip {chip}"
            worst, worst_weight = f"{where} {device['health']}", weight
    return NodeGpuErrors(ev.node_name, round(severity, 2), faults, 0, 0, worst, ev.ref)


def node_gpu_errors(ev: NodeEvidence) -> NodeGpuErrors | None:
    """The weighted Xid/SXid errors of one kernel log; None when it is no kernel log or its
    counts cannot be read."""
    if ev.kind != "kernel_log":
        return None
    m = ev.metrics
    xid = as_int(m.get("xid_count"))
    if xid is None and "xid_codes" in m:
        xid = len([c for c in as_list(m.get("xid_codes")) if as_int(c)])
    if xid is None or xid < 0:
        return None
    sxid = max(as_int(m.get("sxid_count")) or 0, 0)
    severity, worst, worst_weight = 0.0, "", 0.0
    for code, _, _ in _event_pairs(m, "xid") if xid else ():
        weight = xid_weight(code)
        severity += weight
        if weight > worst_weight:
            worst, worst_weight = f"Xid {code}", weight
    fatal = 0
    for code, _, is_fatal in _event_pairs(m, "sxid") if sxid else ():
        weight = SXID_FATAL if is_fatal else SXID_NON_FATAL
        fatal += is_fatal
        severity += weight
        if weight > worst_weight:
            worst, worst_weight = f"SXid {code} {'fatal' if is_fatal else 'non-fatal'}", weight
    if sxid and fatal == 0:
        fatal = min(as_int(m.get("sxid_fatal_count")) or 0, sxid)
    for name in _driver_events(m, xid):
        severity += GPU_INIT_FAILED
        if worst_weight < GPU_INIT_FAILED:
            worst, worst_weight = name, GPU_INIT_FAILED
    return NodeGpuErrors(ev.node_name, round(severity, 2), xid, sxid, fatal, worst, ev.ref)


def _driver_events(m: Mapping[str, Any], xid: int) -> list[str]:
    """The GPU failures a kernel log shows without an Xid line to weigh them: a GPU the driver
    could not bring up, and the driver's "fallen off the bus" sentence with no Xid 79."""
    found = []
    if as_int(m.get("gpu_init_failed_line")) is not None:
        found.append(GPU_INIT_FAILED_NAME)
    if m.get("gpu_fallen_off_bus") is True and not (
        xid and any(code == _FALLEN_XID for code, _, _ in _event_pairs(m, "xid"))
    ):
        found.append(GPU_FALLEN_NAME)
    return found


def _driver_faults(ev: NodeEvidence) -> list[Fault]:
    """Errors for the failures _driver_events finds: that GPU logs no Xid, and the log would
    otherwise read as a clean one."""
    m = ev.metrics
    events = _driver_events(m, as_int(m.get("xid_count")) or 0)
    faults = []
    if GPU_INIT_FAILED_NAME in events:
        line = as_int(m.get("gpu_init_failed_line"))
        faults.append(
            Fault(
                "gpu_init_failed",
                ev.node_name,
                SEVERITY_ERROR,
                ev.ref,
                f"The kernel log of node {ev.node_name} shows, at line {line}, that the NVIDIA "
                "driver could not bring a GPU up (a failed probe, RmInitAdapter, or a board "
                "this driver does not support): that GPU serves no work and logs no Xid, so it "
                "weighs as a GPU fallen off the bus.",
                f"节点 {ev.node_name} 的内核日志第 {line} 行显示 NVIDIA 驱动未能启用某块 GPU"
                "（探测失败、RmInitAdapter 失败，或该驱动不支持此板卡）：该 GPU 无法工作，也不会"
                "记录 Xid，因此按 GPU 掉卡计。",
                {"line": line},
            )
        )
    if GPU_FALLEN_NAME in events:
        faults.append(
            Fault(
                "gpu_fallen_off_bus",
                ev.node_name,
                SEVERITY_ERROR,
                ev.ref,
                f"The kernel log of node {ev.node_name} says a GPU has fallen off the bus, with "
                "no Xid 79 line: it weighs as Xid 79 (the GPU must be reset or the node "
                "rebooted).",
                f"节点 {ev.node_name} 的内核日志显示有 GPU 掉卡（fallen off the bus），但没有 "
                "Xid 79 记录：按 Xid 79 计（需重置 GPU 或重启节点）。",
                {},
            )
        )
    return faults


def _kernel_log_faults(ev: NodeEvidence) -> list[Fault]:
    """GPU Xid and NVSwitch SXid events in a node's kernel log (kind ``kernel_log``), weighed
    by severity: hardware-class codes are errors, application-class ones warnings."""
    m = ev.metrics
    xid = as_int(m.get("xid_count")) or 0
    sxid = as_int(m.get("sxid_count")) or 0
    faults = _driver_faults(ev)
    if xid <= 0 and sxid <= 0:
        return faults
    codes = sorted({c for c in (as_int(x) for x in as_list(m.get("xid_codes"))) if c is not None})
    shown = f" (codes {', '.join(str(c) for c in codes)})" if codes else ""
    errors = node_gpu_errors(ev)
    severity = errors.severity if errors is not None else 0.0
    worst = errors.worst if errors is not None else ""
    hardware = severity >= XID_NODE_AFFECTED
    judged_en = (
        f"weighted severity {severity:g}, worst {worst}: the GPUs or their links need attention"
        if hardware
        else f"weighted severity {severity:g}: codes usually caused by the application itself"
    )
    judged_zh = (
        f"加权严重度 {severity:g}，最严重为 {worst}：GPU 或其链路需要处理"
        if hardware
        else f"加权严重度 {severity:g}：多为应用程序自身引起的错误码"
    )
    return [
        *faults,
        Fault(
            "xid_errors",
            ev.node_name,
            SEVERITY_ERROR if hardware else SEVERITY_WARNING,
            ev.ref,
            f"The kernel log of node {ev.node_name} shows {xid} GPU Xid and {sxid} NVSwitch "
            f"SXid event(s){shown}; {judged_en}.",
            f"节点 {ev.node_name} 的内核日志记录了 {xid} 次 GPU Xid 与 {sxid} 次 NVSwitch SXid "
            f"事件{shown}；{judged_zh}。",
            {
                "xid_count": xid,
                "sxid_count": sxid,
                "xid_codes": codes,
                "severity": severity,
                "worst": worst,
                "sxid_fatal": errors.sxid_fatal if errors is not None else 0,
            },
        ),
    ]


def health_faults(evidence: Sequence[NodeEvidence]) -> list[Fault]:
    """Faults from nccl-tests, dcgmi diag, nvidia-smi (ECC and remapped rows from -q, -q -x and
    the plain table; PCIe link width from -q, -q -x and --query-gpu), lspci -vv (PCIe link
    width), NVLink error counters and kernel-log Xid events, in a stable order."""
    # Node by node (by_node's order is evidence_sort_key's, which starts with the node).
    faults: list[Fault] = []
    for node, evs in by_node(evidence).items():
        faults.extend(per_node("health", node, None, lambda e=evs: _node_faults(e)))
    return faults


def _node_faults(evs: Sequence[NodeEvidence]) -> tuple[Fault, ...]:
    """The faults of one node's evidence (sorted by evidence_sort_key)."""
    faults: list[Fault] = []
    links_seen: set[str] = set()
    for ev in evs:
        if ev.kind in _LINK_KINDS:
            faults.extend(_link_width_faults(ev, links_seen))
        if ev.kind == "nccl_tests":
            faults.extend(_nccl_faults(ev))
        elif ev.kind == "dcgm_diag":
            faults.extend(_dcgm_faults(ev))
        elif ev.kind in ("nvidia_smi_query", "nvidia_smi_xml", "nvidia_smi"):
            faults.extend(_memory_faults(ev))
        elif ev.kind == "nvidia_smi_nvlink":
            faults.extend(_nvlink_faults(ev))
        elif ev.kind == "kernel_log":
            faults.extend(_kernel_log_faults(ev))
    return tuple(faults)


# The tests that load the GPUs, from run level 3 up (NVIDIA DCGM diagnostics guide, run
# levels: 1 "quick" runs the deployment/software checks, 2 "medium" adds PCIe and a short
# memory test, 3 "long" adds the Diagnostic, Targeted Stress, Targeted Power and Memory
# Bandwidth plugins, 4 the Pulse test and Memtest; SM Stress and EUD are run-level-3-and-up
# plugins too). Names as the table and the JSON spell them, compared without case, spaces or
# underscores.
_STRESS_TESTS = frozenset(
    (
        "diagnostic",
        "targetedstress",
        "targetedpower",
        "memorybandwidth",
        "smstress",
        "pulsetest",
        "pulse",
        "eud",
        "eudtest",
        "memtest",
    )
)
_RAN = frozenset(("pass", "warn", "fail"))


def dcgm_stress_tested(metrics: Mapping[str, Any]) -> bool | None:
    """Whether a parsed dcgmi diag ran a test that loads the GPUs (run level 3 and up) on at
    least one GPU: True, False when it lists its tests and none of them did (a quick run,
    level 1 or 2, or every stress test skipped), None when it lists no tests.

    Read from the tests themselves, not from ``level`` (the -r of the command line, often not
    pasted): a level-3 run whose stress tests were all skipped stressed nothing."""
    tests = metrics.get("tests")
    if not isinstance(tests, list) or not tests:
        return None
    for test in tests:
        if not isinstance(test, dict) or test.get("status") not in _RAN:
            continue
        name = re.sub(r"[\s_]+", "", str(test.get("name") or "")).lower()
        if name in _STRESS_TESTS or str(test.get("category") or "").lower() == "stress":
            return True
    return False
