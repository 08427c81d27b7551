"""Signals of the GPU and network tools: ibstat's ConnectX virtual functions, nvidia-smi topo's
flat NUMA layout, NCCL's cloud network plugins, and the NVIDIA driver's virtualisation mode,
vGPU and MIG (nvidia-smi)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._util import as_bool, as_int, as_list, first
from ..model import POINTS_TO_BARE_METAL, POINTS_TO_VIRTUAL, NodeEvidence, Signal
from .weights import (
    _HCA_VF_TYPES,
    _VGPU_NAME,
    POINTS_TO_CONTEXT,
    W_HCA_VF,
    W_HOST_VGPU,
    W_MIG,
    W_NCCL_AWS_EFA,
    W_NCCL_GCP_TCPX,
    W_PASSTHROUGH,
    W_TOPO_FLAT,
    W_VGPU,
    W_VIRT_MODE_NONE,
    _sig,
)


def _ibstat_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    types = [str(t).upper() for t in as_list(m.get("ca_types")) if t]
    if types and all(t in _HCA_VF_TYPES for t in types):
        shown = ", ".join(dict.fromkeys(types))
        return [
            _sig(
                ev,
                "hca_virtual_function",
                POINTS_TO_VIRTUAL,
                W_HCA_VF,
                f"Every InfiniBand/RoCE adapter on node {node} is a ConnectX virtual function "
                f"({shown}): a VM given SR-IOV slices of the HCAs.",
                f"节点 {node} 的所有 InfiniBand/RoCE 适配器均为 ConnectX 虚拟功能（{shown}）："
                "这是分到 HCA SR-IOV 切片的虚拟机。",
            )
        ]
    return []


def _topo_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    gpus, nics = as_int(m.get("gpu_count")), as_int(m.get("nic_count"))
    numa = [str(n) for n in as_list(m.get("numa_nodes")) if n not in (None, "", "N/A")]
    if gpus is not None and gpus >= 8 and nics == 0 and len(numa) == 1:
        return [
            _sig(
                ev,
                "topo_flat_numa",
                POINTS_TO_VIRTUAL,
                W_TOPO_FLAT,
                f"nvidia-smi topo -m on node {node} shows {gpus} GPUs all on NUMA node "
                f"{numa[0]} and no NIC: the flat layout of a VM (a physical 8-GPU server "
                "usually has two NUMA nodes and its NICs in the matrix).",
                f"节点 {node} 的 nvidia-smi topo -m 显示 {gpus} 块 GPU 全在 NUMA 节点 "
                f"{numa[0]} 且无网卡：符合虚拟机的扁平布局（物理 8 卡服务器通常有两个 NUMA "
                "节点，且网卡出现在拓扑中）。",
            )
        ]
    return []


def _nccl_signals(ev: NodeEvidence) -> list[Signal]:
    m, node = ev.metrics, ev.node_name
    plugins = [str(p) for p in as_list(m.get("net_plugins")) if p]
    gcp = [p for p in plugins if p.startswith("GCP ")]
    if gcp:
        return [
            _sig(
                ev,
                "nccl_cloud_plugin",
                POINTS_TO_VIRTUAL,
                W_NCCL_GCP_TCPX,
                f"NCCL on node {node} used {gcp[0]}, a network plugin that exists only in "
                "Google Cloud A3 virtual machines.",
                f"节点 {node} 的 NCCL 使用了 {gcp[0]}，该网络插件仅存在于 Google Cloud A3 "
                "虚拟机中。",
            )
        ]
    if "AWS EFA" in plugins:
        return [
            _sig(
                ev,
                "nccl_cloud_plugin",
                POINTS_TO_VIRTUAL,
                W_NCCL_AWS_EFA,
                f"NCCL on node {node} used AWS EFA (aws-ofi-nccl), found mostly on AWS virtual "
                "instances (EFA also exists on .metal instances).",
                f"节点 {node} 的 NCCL 使用了 AWS EFA（aws-ofi-nccl），多见于 AWS 虚拟实例"
                "（.metal 裸金属实例也可能有 EFA）。",
            )
        ]
    return []


def _gpu_names(m: Mapping[str, Any]) -> list[str]:
    """The GPUs' names an nvidia-smi or nccl-tests output shows."""
    return [str(n) for n in as_list(first(m, "gpu_names", "product_names")) if n]


def _virtualization_modes(m: Mapping[str, Any]) -> set[str]:
    """The NVIDIA driver's virtualisation modes, lower case without "-" or spaces ("passthrough",
    "vgpu", "hostvgpu", "none")."""
    return {
        str(v).strip().lower().replace("-", "").replace(" ", "")
        for v in as_list(m.get("virtualization_mode"))
        if v
    }


def _gpu_mode_signals(ev: NodeEvidence) -> list[Signal]:
    m, node, out = ev.metrics, ev.node_name, []
    names = _gpu_names(m)
    vgpu_names = [n for n in names if _VGPU_NAME.search(n)]
    if as_bool(m.get("vgpu")) or vgpu_names:
        shown = ", ".join(dict.fromkeys(vgpu_names)) or "a vGPU"
        shown_zh = ", ".join(dict.fromkeys(vgpu_names)) or "vGPU"
        out.append(
            _sig(
                ev,
                "nvidia_vgpu",
                POINTS_TO_VIRTUAL,
                W_VGPU,
                f"nvidia-smi on node {node} shows a virtual GPU ({shown}).",
                f"节点 {node} 的 nvidia-smi 显示虚拟 GPU（{shown_zh}）。",
            )
        )
    modes = _virtualization_modes(m)
    if "passthrough" in modes:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_VIRTUAL,
                W_PASSTHROUGH,
                f"The NVIDIA driver on node {node} reports its GPUs passed through to a VM.",
                f"节点 {node} 的 NVIDIA 驱动报告 GPU 以直通方式分配给虚拟机。",
            )
        )
    elif "vgpu" in modes:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_VIRTUAL,
                W_VGPU,
                f"The NVIDIA driver on node {node} reports vGPU mode.",
                f"节点 {node} 的 NVIDIA 驱动报告 vGPU 模式。",
            )
        )
    elif "hostvgpu" in modes:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_VIRTUAL,
                W_HOST_VGPU,
                f"The GPUs on node {node} are set up as a vGPU host, to be shared out to VMs.",
                f"节点 {node} 的 GPU 配置为 vGPU 宿主，用于分配给虚拟机共享。",
            )
        )
    elif modes == {"none"}:
        out.append(
            _sig(
                ev,
                "gpu_virtualization_mode",
                POINTS_TO_BARE_METAL,
                W_VIRT_MODE_NONE,
                f"The NVIDIA driver on node {node} reports no GPU virtualisation.",
                f"节点 {node} 的 NVIDIA 驱动报告 GPU 未虚拟化。",
            )
        )
    if any(as_bool(v) is True for v in as_list(m.get("mig_mode"))):
        out.append(
            _sig(
                ev,
                "mig_mode",
                POINTS_TO_CONTEXT,
                W_MIG,
                f"MIG is enabled on node {node}: the GPUs are partitioned into instances (a "
                "GPU feature physical hosts use too, no sign of a hypervisor).",
                f"节点 {node} 已启用 MIG：GPU 被划分为多个实例（物理主机同样可用的 GPU 功能，"
                "并非虚拟化迹象）。",
            )
        )
    return out
