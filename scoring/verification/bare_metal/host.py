"""Signals of the machine's own account of itself: the CPU's hypervisor flag and logical CPU count
(cpu_info), the DMI product (dmidecode), systemd-detect-virt, with the correction of its
"oracle" on an Oracle server, and the kernel log's "Hypervisor detected" line."""

from __future__ import annotations

from collections.abc import Sequence

from .._util import as_bool, as_int, as_list
from ..model import POINTS_TO_BARE_METAL, POINTS_TO_VIRTUAL, Claims, NodeEvidence, Signal
from .weights import (
    _DMI_CLOUD_ALSO_METAL,
    _SERVER_VENDORS,
    CPU_MATCH_FROM,
    CPU_SLICE_AT_MOST,
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
    W_HYPERVISOR_FLAG,
    W_KERNEL_HYPERVISOR,
    W_KERNEL_HYPERVISOR_XEN,
    W_NO_HYPERVISOR_FLAG,
    _sig,
)
from .zh import signal_zh


def _cpu_signals(ev: NodeEvidence, claims: Claims) -> list[Signal]:
    m, node, out = ev.metrics, ev.node_name, []
    hyper = as_bool(m.get("hypervisor"))
    vendor = m.get("hypervisor_vendor")
    if hyper or vendor:
        who = f" ({vendor})" if vendor else ""
        out.append(
            _sig(
                ev,
                "cpu_hypervisor_flag",
                POINTS_TO_VIRTUAL,
                W_HYPERVISOR_FLAG,
                f"The CPU on node {node} reports running under a hypervisor{who}.",
                f"节点 {node} 的 CPU 报告运行于虚拟机监控程序之下"
                f"{f'（{vendor}）' if vendor else ''}。",
            )
        )
    elif hyper is False:
        out.append(
            _sig(
                ev,
                "cpu_hypervisor_flag",
                POINTS_TO_BARE_METAL,
                W_NO_HYPERVISOR_FLAG,
                f"The CPU on node {node} shows no hypervisor flag (a hypervisor can hide it).",
                f"节点 {node} 的 CPU 无 hypervisor 标志（虚拟化层可隐藏该标志）。",
            )
        )
    cpus = as_int(m.get("logical_cpus"))
    claimed = claims.logical_cpus_per_node
    # A /proc/cpuinfo cut short lists fewer processors than the machine has: a floor, which
    # can show every CPU visible but never a slice.
    floor_only = bool(m.get("logical_cpus_partial"))
    if cpus is not None and claimed and not (floor_only and cpus / claimed < CPU_MATCH_FROM):
        share = cpus / claimed
        seen = f"{cpus} logical CPUs on node {node} against {claimed} claimed"
        seen_zh = f"节点 {node} 有 {cpus} 个逻辑 CPU（声明 {claimed} 个）"
        if share <= CPU_SLICE_AT_MOST:
            out.append(
                _sig(
                    ev,
                    "cpu_count",
                    POINTS_TO_VIRTUAL,
                    W_CPU_SLICE,
                    f"{seen}: a slice of the machine, as a VM gets.",
                    f"{seen_zh}：仅为整机的一部分，符合虚拟机特征。",
                )
            )
        elif share < CPU_MATCH_FROM:
            out.append(
                _sig(
                    ev,
                    "cpu_count",
                    POINTS_TO_VIRTUAL,
                    W_CPU_SHORT,
                    f"{seen}: some CPUs are held back, as a hypervisor host does.",
                    f"{seen_zh}：部分 CPU 被保留，类似虚拟化宿主机。",
                )
            )
        else:
            out.append(
                _sig(
                    ev,
                    "cpu_count",
                    POINTS_TO_BARE_METAL,
                    W_CPU_MATCH,
                    f"{seen}: the whole machine's CPUs are visible.",
                    f"{seen_zh}：可见整机全部 CPU。",
                )
            )
    return out


def _dmi_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    products = [str(p) for p in as_list(m.get("products")) if p]
    makers = [str(p) for p in as_list(m.get("manufacturers")) if p]
    shown = ", ".join(products or makers) or "unnamed product"
    shown_zh = ", ".join(products or makers) or "未命名产品"
    virtual = as_bool(m.get("virtual"))
    if virtual:
        found = [str(v) for v in as_list(m.get("virtual_signals")) if v]
        shown = "; ".join(found) or shown
        shown_zh = "；".join(signal_zh(v) for v in found) or shown_zh
        also_metal = bool(found) and all(_DMI_CLOUD_ALSO_METAL.search(v) for v in found)
        if also_metal:
            return [
                _sig(
                    ev,
                    "dmi_product",
                    POINTS_TO_VIRTUAL,
                    W_DMI_CLOUD_ALSO_METAL,
                    f"DMI on node {node} names a cloud machine: {shown}. The cloud's bare-metal "
                    "machines print the same product, so it is mostly, not surely, a VM.",
                    f"节点 {node} 的 DMI 信息为云主机：{shown_zh}。该云的裸金属机器也显示相同的"
                    "产品名，因此多半是虚拟机，但不能确定。",
                )
            ]
        return [
            _sig(
                ev,
                "dmi_product",
                POINTS_TO_VIRTUAL,
                W_DMI_VIRTUAL,
                f"DMI on node {node} names a virtual machine: {shown}.",
                f"节点 {node} 的 DMI 信息为虚拟机：{shown_zh}。",
            )
        ]
    if virtual is False:
        if any(_SERVER_VENDORS.search(text) for text in products + makers):
            return [
                _sig(
                    ev,
                    "dmi_product",
                    POINTS_TO_BARE_METAL,
                    W_DMI_SERVER_VENDOR,
                    f"DMI on node {node} names a physical GPU server: {shown}.",
                    f"节点 {node} 的 DMI 信息为物理 GPU 服务器：{shown_zh}。",
                )
            ]
        return [
            _sig(
                ev,
                "dmi_product",
                POINTS_TO_BARE_METAL,
                W_DMI_OTHER_PHYSICAL,
                f"DMI on node {node} names no hypervisor: {shown}.",
                f"节点 {node} 的 DMI 信息未显示虚拟化：{shown_zh}。",
            )
        ]
    return []


def _virt_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    word = str(m.get("virt") or "").strip()
    virtual = as_bool(m.get("virtual"))
    if as_bool(m.get("container")):
        out = [
            _sig(
                ev,
                "container",
                POINTS_TO_CONTEXT,
                W_CONTAINER,
                f"systemd-detect-virt on node {node} reports a container ({word}): the "
                "collector ran in a container, which is no hypervisor; whether the host is "
                "handed over whole cannot be seen from inside it.",
                f"节点 {node} 的 systemd-detect-virt 报告运行于容器（{word}）：采集器在容器中"
                "运行，容器不是虚拟机监控程序；从容器内部无法判断整机是否独占交付。",
            )
        ]
        if virtual:
            # A container inside a VM is still a VM (`systemd-detect-virt --vm`, or a second
            # run, named the hypervisor under the container): the VM counts against bare metal.
            vm_word = str(m.get("vm_virt") or "").strip()
            out.append(_detect_virt_vm_signal(ev, vm_word, under_container=True))
        return out
    if virtual or (word and word.lower() != "none" and virtual is None):
        # "virt" shows a container's word when one run printed it, even when another plain run
        # contradicts it with a hypervisor; "vm_virt" names the hypervisor itself.
        vm_word = str(m.get("vm_virt") or word).strip()
        return [_detect_virt_vm_signal(ev, vm_word, under_container=False)]
    if word.lower() == "none" or virtual is False:
        return [
            _sig(
                ev,
                "systemd_detect_virt",
                POINTS_TO_BARE_METAL,
                W_DETECT_VIRT_NONE,
                f"systemd-detect-virt on node {node} detects no virtualisation.",
                f"节点 {node} 的 systemd-detect-virt 未检测到虚拟化。",
            )
        ]
    return []


def _detect_virt_vm_signal(ev: NodeEvidence, word: str, *, under_container: bool) -> Signal:
    """systemd-detect-virt's hypervisor ``word`` ("" when only known to be some VM), seen
    directly or under the container the collector ran in."""
    node = ev.node_name
    if not under_container:
        en = f"systemd-detect-virt on node {node} reports the hypervisor {word!r}."
        zh = f"节点 {node} 的 systemd-detect-virt 报告虚拟化类型 {word!r}。"
    elif word:
        en = (
            f"systemd-detect-virt on node {node} reports the hypervisor {word!r} under the "
            "container: the container runs in a virtual machine."
        )
        zh = (
            f"节点 {node} 的 systemd-detect-virt 报告容器之下的虚拟化类型 {word!r}："
            "容器运行于虚拟机中。"
        )
    else:
        en = (
            f"systemd-detect-virt on node {node} reports a hypervisor under the container: the "
            "container runs in a virtual machine."
        )
        zh = (
            f"节点 {node} 的 systemd-detect-virt 报告容器之下存在虚拟机监控程序："
            "容器运行于虚拟机中。"
        )
    weight = W_DETECT_VIRT_ORACLE if word.lower() == "oracle" else W_DETECT_VIRT_VM
    return _sig(ev, "systemd_detect_virt", POINTS_TO_VIRTUAL, weight, en, zh)


def _oracle_server_correction(signal: Signal, evidence: Sequence[NodeEvidence]) -> Signal:
    """systemd-detect-virt's "oracle" on a node whose DMI names an Oracle server, not VirtualBox."""
    if signal.name != "systemd_detect_virt" or signal.points_to != POINTS_TO_VIRTUAL:
        return signal
    if "'oracle'" not in signal.explanation_en:
        return signal
    for ev in evidence:
        if ev.node_name != signal.node_name or ev.kind != "dmi":
            continue
        texts = [
            str(t) for key in ("products", "manufacturers") for t in as_list(ev.metrics.get(key))
        ]
        joined = " ".join(texts).lower()
        if (
            "oracle" in joined
            and "virtualbox" not in joined
            and not as_bool(ev.metrics.get("virtual"))
        ):
            node = signal.node_name
            return Signal(
                signal.name,
                signal.points_to,
                W_DETECT_VIRT_ORACLE_SERVER,
                signal.evidence_ref,
                f"systemd-detect-virt on node {node} says 'oracle' (VirtualBox), but DMI names "
                "an Oracle server: systemd is known to misread Oracle hardware this way.",
                f"节点 {node} 的 systemd-detect-virt 报告 'oracle'（VirtualBox），但 DMI 显示为 "
                "Oracle 服务器：systemd 已知会如此误判 Oracle 硬件。",
                node,
            )
    return signal


def _kernel_log_signals(ev: NodeEvidence) -> list[Signal]:
    """The kernel's "Hypervisor detected: NAME" line: a guest's, weaker for Xen, whose host
    dom0 prints it too. A log without the line says nothing (an excerpt, or arm64, whose kernel
    prints no such line)."""
    name = str(ev.metrics.get("hypervisor_detected") or "").strip()
    if not name:
        return []
    node = ev.node_name
    if name.lower().startswith("xen"):
        return [
            _sig(
                ev,
                "kernel_hypervisor",
                POINTS_TO_VIRTUAL,
                W_KERNEL_HYPERVISOR_XEN,
                f"The kernel log of node {node} says it runs under {name}; a Xen host's own "
                "dom0 prints the same line, so it does not prove a VM alone.",
                f"节点 {node} 的内核日志显示其运行于 {name} 之下；Xen 宿主机自身的 dom0 也会打印"
                "同样的行，仅凭此行不能证明是虚拟机。",
            )
        ]
    return [
        _sig(
            ev,
            "kernel_hypervisor",
            POINTS_TO_VIRTUAL,
            W_KERNEL_HYPERVISOR,
            f"The kernel log of node {node} says it runs under a hypervisor ({name}).",
            f"节点 {node} 的内核日志显示其运行于虚拟机监控程序之下（{name}）。",
        )
    ]
