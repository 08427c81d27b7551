"""What a GPU's datasheet rules out: the NVLink topologies and the form factor a claim about
that GPU cannot have."""

from __future__ import annotations

from functools import lru_cache

from .gpus import GPU_SPECS, GpuSpec, match_gpu
from .names import match_declared_gpu

# --- what a GPU's datasheet rules out ----------------------------------------------------------

# PCIe cards are joined by NVLink bridges of two cards ("NVLink bridge" in each datasheet of
# _DS_A100, _DS_H100, _DS_AMPERE_DC, _DS_PRO); the H200 NVL's bridges join two or four (NVIDIA
# H200 NVL product brief: "2- or 4-way NVIDIA NVLink bridge"). No bridge joins a node's eight.
_BRIDGE_GPUS = {"H200-NVL-141GB": 4}
_TOPOLOGY_EN = {"full_mesh": "all-to-all (full mesh)", "grouped": "grouped"}
_TOPOLOGY_ZH = {"full_mesh": "全互联", "grouped": "分组互联"}
_FORM_EN = {"sxm": "SXM", "pcie": "PCIe", "other": "other (superchip)"}
_FORM_ZH = {"sxm": "SXM", "pcie": "PCIe", "other": "其他（超级芯片）"}


def nvlink_bridge_gpus(spec: GpuSpec) -> int:
    """The most PCIe cards of ``spec`` one NVLink bridge joins (2; the H200 NVL 4)."""
    return _BRIDGE_GPUS.get(spec.key, 2)


def possible_nvlink_topology(spec: GpuSpec | None, gpus_per_node: int, declared: str) -> str:
    """The NVLink topology a node of ``gpus_per_node`` ``spec`` GPUs can have, at most the
    ``declared`` one: "none" for a GPU without NVLink, "grouped" for a full mesh of PCIe cards
    more than one bridge joins; the declaration itself otherwise (and for an unknown GPU)."""
    if spec is None or declared not in ("full_mesh", "grouped"):
        return declared
    if spec.nvlink_bidi_gbyte_s <= 0:
        return "none"
    bridged = declared == "full_mesh" and spec.form_factor == "pcie"
    if bridged and gpus_per_node > nvlink_bridge_gpus(spec):
        return "grouped"
    return declared


@lru_cache(maxsize=512)
def nvlink_topology_ruled_out(
    gpu_model: str | None,
    gpus_per_node: int,
    topology: str,
    form_factor: str | None = None,
    memory_gib: float | None = None,
) -> tuple[str, str] | None:
    """Why the GPU's datasheet rules out an NVLink ``topology`` declared for a node of
    ``gpus_per_node`` ``gpu_model`` GPUs, as (en, zh) naming the datasheet line, or None when
    it does not (or the GPU is not in the table): NVLink on a GPU without it, or a full mesh
    of more PCIe cards than one NVLink bridge joins. The GPU is the declared ``form_factor``'s
    row where its name states none (match_declared_gpu)."""
    spec = match_declared_gpu(gpu_model, form_factor, memory_gib)
    possible = possible_nvlink_topology(spec, gpus_per_node, topology)
    if spec is None or possible == topology:
        return None
    name, en, zh = spec.display_name, _TOPOLOGY_EN[topology], _TOPOLOGY_ZH[topology]
    if possible == "none":
        return (
            f"the {name} has no NVLink, so its NVLink topology cannot be {en} "
            f"(datasheet: {spec.source})",
            f"{name} 没有 NVLink，不可能为{zh} NVLink 拓扑（数据手册：{spec.source}）",
        )
    bridge = nvlink_bridge_gpus(spec)
    return (
        f"the {name} is a PCIe card whose NVLink bridges join {bridge} cards, so "
        f"{gpus_per_node} GPUs per node cannot be {en}: at best grouped "
        f"(datasheet: {spec.source})",
        f"{name} 为 PCIe 卡，NVLink 桥只连接 {bridge} 块卡，每节点 {gpus_per_node} 块 GPU "
        f"不可能{zh}，至多为分组互联（数据手册：{spec.source}）",
    )


@lru_cache(maxsize=512)
def form_factor_ruled_out(gpu_model: str | None, form_factor: str) -> tuple[str, str] | None:
    """Why the GPU's datasheet rules out a declared ``form_factor`` (SXM, PCIe or "other", a
    superchip), as (en, zh) naming the datasheet line, or None when it does not: the table
    lists no version of the GPU's family in that form factor (an L40S is made only as a PCIe
    card, an H100 is no superchip, a GB200 no SXM board). A GPU not in the table (another
    maker's module, declared "other") is never ruled out."""
    if form_factor not in _FORM_EN:
        return None
    spec = match_gpu(gpu_model)
    if spec is None:
        return None
    family = [s for s in GPU_SPECS if s.family == spec.family]
    made = list(dict.fromkeys(s.form_factor for s in family))
    if form_factor in made:
        return None
    made_en = " or ".join(_FORM_EN[f] for f in made)
    made_zh = "或".join(_FORM_ZH[f] for f in made)
    sources = "; ".join(dict.fromkeys(s.source for s in family))
    return (
        f"the {spec.family} is made only as {made_en}, not {_FORM_EN[form_factor]} "
        f"(datasheet: {sources})",
        f"{spec.family} 只有 {made_zh} 版本，没有 {_FORM_ZH[form_factor]} 版本"
        f"（数据手册：{sources}）",
    )
