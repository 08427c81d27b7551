"""GPU reference figures and GPU names.

GPU figures come from NVIDIA's product datasheets (cited per row); Huawei Ascend and AMD
Instinct families are named (OTHER_ACCELERATORS, cited per row) without NVIDIA's figures.
Bandwidths are in GB/s (10^9 bytes per second); ``nvlink_bidi_gbyte_s`` is NVIDIA's marketing
figure, which counts both directions, so the per-direction figure nccl-tests compares against is
half of it. A name a vendor or a tool gives is matched to a row (match_gpu) or to a family
(gpu_family_of).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .efficiency import (
    NVLINK_C2C_EFFICIENCY,
    NVLINK_C2C_GB200_EFFICIENCY,
    PCIE_EFFICIENCY,
    PCIE_X16_GBYTE_S,
)

FORM_FACTORS = ("sxm", "pcie", "other")


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model as sold: memory, form factor and interconnect, with its source.

    ``nvlink_bidi_gbyte_s`` is the GPU's total NVLink bandwidth counting both directions (for
    PCIe cards: through their NVLink bridge), 0 without NVLink. ``nvls`` is True where the
    NVSwitch baseboard does NVLink SHARP all-reduce. ``pcie_p2p`` is False for GeForce cards,
    whose driver offers no PCIe peer-to-peer. ``c2c_bidi_gbyte_s`` is the NVLink-C2C bandwidth
    between the GPU and its Grace CPU, both directions, per GPU (superchips: GH200, GB200), 0
    where the GPU reaches its host over PCIe; it is not GPU-to-GPU NVLink. ``c2c_efficiency``
    is the share of that link's per-direction rate a healthy host<->device copy reaches in its
    slower direction (reference.efficiency).
    """

    key: str
    family: str
    display_name: str
    memory_gib: int
    form_factor: str
    architecture: str
    nvlink_bidi_gbyte_s: float
    nvlink_links: int
    nvls: bool
    pcie_gen: int
    pcie_p2p: bool
    source: str
    # Name matching: tokens that must appear, tokens that must not, and the memory figures a
    # name may carry (a GH200 "120GB" names its CPU memory, not the 96 GB of HBM).
    variant_tokens: frozenset[str] = frozenset()
    excluded_tokens: frozenset[str] = frozenset()
    name_memory_gb: tuple[int, ...] = ()
    c2c_bidi_gbyte_s: float = 0.0
    c2c_efficiency: float = 0.0

    @property
    def nvlink_uni_gbyte_s(self) -> float:
        """NVLink bandwidth per GPU in one direction (GB/s), 0 without NVLink."""
        return self.nvlink_bidi_gbyte_s / 2

    @property
    def pcie_uni_gbyte_s(self) -> float:
        """PCIe x16 line rate in one direction (GB/s)."""
        return PCIE_X16_GBYTE_S[self.pcie_gen]

    def accepts_memory_gb(self, memory_gb: int) -> bool:
        return memory_gb in (self.name_memory_gb or (self.memory_gib,))


@dataclass(frozen=True)
class HostLink:
    """The link a GPU reaches host memory over and what an nvbandwidth host<->device copy of a
    healthy one reaches in its slower direction (GB/s), with the arithmetic as (en, zh)."""

    link: str  # "nvlink_c2c" or "pcie"
    line_gbyte_s: float
    expected_gbyte_s: float
    basis: str
    basis_zh: str


def host_link(spec: GpuSpec) -> HostLink:
    """The host link of ``spec``: NVLink-C2C for a Grace superchip's GPU (GH200, GB200; their
    copies run at several times a PCIe x16 line rate, and nvidia-smi shows a GH200's PCIe as a
    vestigial x1 link, a GB200's as a Gen5 x16 beside the C2C link), else its PCIe x16
    generation. Expected = per-direction line rate x the link's
    efficiency (the superchip's c2c_efficiency, PCIE_EFFICIENCY)."""
    card = spec.display_name
    if spec.c2c_bidi_gbyte_s > 0:
        line = spec.c2c_bidi_gbyte_s / 2
        eff = spec.c2c_efficiency
        return HostLink(
            "nvlink_c2c",
            line,
            round(line * eff, 2),
            f"{card}: NVLink-C2C to its Grace CPU {line:g} GB/s per direction x {eff:g} "
            "(the slower, device-to-host, copy)",
            f"{card}：至 Grace CPU 的 NVLink-C2C 单向 {line:g} GB/s × {eff:g}"
            "（较慢的设备到主机方向）",
        )
    line = spec.pcie_uni_gbyte_s
    return HostLink(
        "pcie",
        line,
        round(line * PCIE_EFFICIENCY, 2),
        f"{card}: PCIe Gen{spec.pcie_gen} x16 {line:g} GB/s per direction x {PCIE_EFFICIENCY:g}",
        f"{card}：PCIe Gen{spec.pcie_gen} x16 单向 {line:g} GB/s × {PCIE_EFFICIENCY:g}",
    )


_DS_V100 = "NVIDIA Tesla V100 datasheet: SXM2 NVLink 300 GB/s, PCIe Gen3 32 GB/s bidirectional"
_DS_A100 = "NVIDIA A100 datasheet: SXM4 NVLink 600 GB/s; PCIe with NVLink bridge 600 GB/s, Gen4"
_DS_A800 = "NVIDIA A800 datasheet (China export SKU): NVLink 400 GB/s (SXM and PCIe bridge)"
_DS_H100 = "NVIDIA H100 datasheet: SXM5 NVLink 900 GB/s; PCIe/NVL NVLink bridge 600 GB/s, Gen5"
# The 64 GB SXM5 board (PCI device 10de:2337, "GH100 [H100 SXM5 64GB]" in pci.ids; listed as
# "NVIDIA H100 SXM5 64GB" in NVIDIA's vGPU documentation) is the 80 GB board's GH100 with less
# HBM3: the same SXM5 baseboard, 18 NVLink4 links, 900 GB/s.
_DS_H100_64GB = _DS_H100 + "; H100 SXM5 64GB (10de:2337): 64 GB HBM3, same SXM5 NVLink"
# The 96 GB SXM5 board (PCI device 10de:2338, "H100 SXM5 96GB" in NVIDIA's device lists;
# nvidia-smi prints "NVIDIA H100 SXM5 96GB") is the GH100 with all six HBM3 stacks enabled on
# the same SXM5 baseboard: 18 NVLink4 links, 900 GB/s. Not the H100 NVL's 94 GB (a PCIe card).
_DS_H100_96GB = _DS_H100 + "; H100 SXM5 96GB (10de:2338): 96 GB HBM3, same SXM5 NVLink"
# A workstation card sold worldwide, not the China SXM part: NVIDIA A800 40GB Active datasheet
# (nvidia.com/en-us/design-visualization/a800): 40 GB HBM2 at 1,555 GB/s, PCIe Gen4 x16
# (64 GB/s both ways), NVLink 400 GB/s through a 2-way bridge joining two cards, active fan.
# It is the only 40 GB PCIe A800 (PCI device 10de:20f6, "NVIDIA A800 PCIe 40GB Active" in
# NVIDIA's device lists, "A800 40GB PCIe active cooled" in others): "A800 PCIe 40GB" and
# "A800-PCIE-40GB" name it too, while nvidia-smi prints "NVIDIA A800 40GB Active".
_DS_A800_ACTIVE = (
    "NVIDIA A800 40GB Active datasheet: 40 GB HBM2, PCIe Gen4 x16, "
    "NVLink 400 GB/s via a 2-way bridge (two cards)"
)
_DS_H800 = "NVIDIA H800 datasheet (China export SKU): NVLink 400 GB/s, PCIe Gen5"
_DS_H20 = "NVIDIA HGX H20 product brief: 96 GB HBM3 (H20-3e: 141 GB), NVLink 900 GB/s, Gen5"
_DS_H200 = "NVIDIA H200 datasheet: 141 GB HBM3e, SXM NVLink 900 GB/s; NVL bridge 900 GB/s"
_DS_GH200 = "NVIDIA GH200 datasheet: 96 GB HBM3 or 144 GB HBM3e, NVLink 900 GB/s"
# The GPU's link to its Grace CPU, beside (not part of) its GPU-to-GPU NVLink. NVIDIA GH200
# Grace Hopper Superchip datasheet: NVLink-C2C 900 GB/s CPU-GPU bandwidth, 7x PCIe Gen5; NVIDIA's
# "Grace Hopper Superchip Architecture In-Depth": 900 GB/s total, 450 GB/s per direction. NVIDIA
# GB200 NVL72 datasheet: the GB200 superchip joins one Grace to two Blackwell GPUs over a
# 900 GB/s (bidirectional) NVLink-C2C, so 450 GB/s per GPU; the OCI GB200 nvbandwidth sample
# (about 200 GB/s host to device per GPU, each GPU measured alone) fits that half, not all 900.
_C2C_GH200 = 900.0
_C2C_GB200 = 450.0
_DS_B200 = "NVIDIA DGX B200 datasheet: 1,440 GB for 8 GPUs (180 GB each), NVLink5 1.8 TB/s"
_DS_B300 = "NVIDIA HGX B300 datasheet: 288 GB HBM3e per GPU, NVLink5 1.8 TB/s"
_DS_GB200 = "NVIDIA GB200 NVL72 datasheet: 186 GB HBM3e per GPU, NVLink5 1.8 TB/s"
_DS_ADA_DC = "NVIDIA L40S/L40/L20/L4 datasheets: no NVLink, PCIe Gen4 x16"
_DS_GEFORCE = "NVIDIA GeForce specifications; no PCIe P2P on GeForce drivers"
_DS_PRO = "NVIDIA RTX/Quadro datasheets: NVLink bridge where listed"
_DS_AMPERE_DC = "NVIDIA A10/A10G/A30/A40 datasheets: A30 bridge 200 GB/s, A40 112.5 GB/s, Gen4"


def _g(
    key: str,
    family: str,
    display_name: str,
    memory_gib: int,
    form_factor: str,
    architecture: str,
    nvlink_bidi_gbyte_s: float,
    nvlink_links: int,
    pcie_gen: int,
    source: str,
    *,
    nvls: bool = False,
    p2p: bool = True,
    needs: tuple[str, ...] = (),
    excludes: tuple[str, ...] = (),
    name_memory_gb: tuple[int, ...] = (),
    c2c: float = 0.0,
    c2c_eff: float = 0.0,
) -> GpuSpec:
    return GpuSpec(
        key=key,
        family=family,
        display_name=display_name,
        memory_gib=memory_gib,
        form_factor=form_factor,
        architecture=architecture,
        nvlink_bidi_gbyte_s=nvlink_bidi_gbyte_s,
        nvlink_links=nvlink_links,
        nvls=nvls,
        pcie_gen=pcie_gen,
        pcie_p2p=p2p,
        source=source,
        variant_tokens=frozenset(needs),
        excluded_tokens=frozenset(excludes),
        name_memory_gb=name_memory_gb,
        c2c_bidi_gbyte_s=c2c,
        c2c_efficiency=c2c_eff,
    )


_PCIE = ("PCIE",)
_SXM_ONLY = ("PCIE", "NVL")
# nvidia-smi names the A800 workstation card "NVIDIA A800 40GB Active", with no "PCIe"; vendors
# call the same card "A800 PCIe 40GB".
_A800_SXM_ONLY = ("PCIE", "ACTIVE")
# The 40 GB PCIe A800 needs neither word: "Active" or "PCIe" with 40 GB names it, and an SXM
# word rules it out (a bare "A800 40GB" stays the SXM4 board, the family's default).
_A800_PCIE_40GB_NOT = ("SXM", "SXM4", "HGX")

# Within a family the first row is the default when a name carries no variant token:
# nvidia-smi prints the SXM H100 as "NVIDIA H100 80GB HBM3" and the PCIe one as "H100 PCIe".
GPU_SPECS: tuple[GpuSpec, ...] = (
    # Volta
    _g("V100-SXM2-32GB", "V100", "NVIDIA Tesla V100 SXM2 32GB", 32, "sxm", "Volta", 300, 6, 3,
       _DS_V100, excludes=_PCIE),
    _g("V100-SXM2-16GB", "V100", "NVIDIA Tesla V100 SXM2 16GB", 16, "sxm", "Volta", 300, 6, 3,
       _DS_V100, excludes=_PCIE),
    _g("V100-PCIE-32GB", "V100", "NVIDIA Tesla V100 PCIe 32GB", 32, "pcie", "Volta", 0, 0, 3,
       _DS_V100, needs=_PCIE),
    _g("V100-PCIE-16GB", "V100", "NVIDIA Tesla V100 PCIe 16GB", 16, "pcie", "Volta", 0, 0, 3,
       _DS_V100, needs=_PCIE),
    _g("V100S-PCIE-32GB", "V100S", "NVIDIA Tesla V100S PCIe 32GB", 32, "pcie", "Volta", 0, 0, 3,
       _DS_V100),
    # Turing
    _g("T4", "T4", "NVIDIA T4 16GB", 16, "pcie", "Turing", 0, 0, 3,
       "NVIDIA T4 datasheet: 16 GB GDDR6, PCIe Gen3, no NVLink"),
    _g("RTX-2080TI", "2080", "NVIDIA GeForce RTX 2080 Ti 11GB", 11, "pcie", "Turing", 100, 2, 3,
       _DS_GEFORCE + "; RTX 2080 Ti NVLink bridge 100 GB/s", p2p=False, needs=("TI",)),
    _g("QUADRO-RTX-8000", "8000", "NVIDIA Quadro RTX 8000 48GB", 48, "pcie", "Turing", 100, 2, 3,
       _DS_PRO + "; Quadro RTX 8000 bridge 100 GB/s", needs=("RTX",)),
    # Ampere
    _g("A100-SXM4-80GB", "A100", "NVIDIA A100 SXM4 80GB", 80, "sxm", "Ampere", 600, 12, 4,
       _DS_A100, excludes=_PCIE),
    _g("A100-SXM4-40GB", "A100", "NVIDIA A100 SXM4 40GB", 40, "sxm", "Ampere", 600, 12, 4,
       _DS_A100, excludes=_PCIE),
    _g("A100-PCIE-80GB", "A100", "NVIDIA A100 PCIe 80GB", 80, "pcie", "Ampere", 600, 12, 4,
       _DS_A100, needs=_PCIE),
    _g("A100-PCIE-40GB", "A100", "NVIDIA A100 PCIe 40GB", 40, "pcie", "Ampere", 600, 12, 4,
       _DS_A100, needs=_PCIE),
    _g("A800-SXM4-80GB", "A800", "NVIDIA A800 SXM4 80GB", 80, "sxm", "Ampere", 400, 8, 4,
       _DS_A800, excludes=_A800_SXM_ONLY),
    _g("A800-SXM4-40GB", "A800", "NVIDIA A800 SXM4 40GB", 40, "sxm", "Ampere", 400, 8, 4,
       _DS_A800, excludes=_A800_SXM_ONLY),
    _g("A800-PCIE-80GB", "A800", "NVIDIA A800 PCIe 80GB", 80, "pcie", "Ampere", 400, 8, 4,
       _DS_A800, needs=_PCIE),
    _g("A800-40GB-ACTIVE", "A800", "NVIDIA A800 40GB Active", 40, "pcie", "Ampere", 400, 8, 4,
       _DS_A800_ACTIVE, excludes=_A800_PCIE_40GB_NOT),
    _g("A30", "A30", "NVIDIA A30 24GB", 24, "pcie", "Ampere", 200, 4, 4, _DS_AMPERE_DC),
    _g("A40", "A40", "NVIDIA A40 48GB", 48, "pcie", "Ampere", 112.5, 4, 4, _DS_AMPERE_DC),
    _g("A10", "A10", "NVIDIA A10 24GB", 24, "pcie", "Ampere", 0, 0, 4, _DS_AMPERE_DC),
    _g("A10G", "A10G", "NVIDIA A10G 24GB", 24, "pcie", "Ampere", 0, 0, 4, _DS_AMPERE_DC),
    _g("RTX-A6000", "A6000", "NVIDIA RTX A6000 48GB", 48, "pcie", "Ampere", 112.5, 4, 4,
       _DS_PRO + "; RTX A6000 bridge 112.5 GB/s", excludes=("ADA",)),
    _g("RTX-3090", "3090", "NVIDIA GeForce RTX 3090 24GB", 24, "pcie", "Ampere", 112.5, 4, 4,
       _DS_GEFORCE + "; RTX 3090 NVLink bridge 112.5 GB/s", p2p=False),
    # Ada Lovelace
    _g("L40S", "L40S", "NVIDIA L40S 48GB", 48, "pcie", "Ada", 0, 0, 4, _DS_ADA_DC),
    _g("L40", "L40", "NVIDIA L40 48GB", 48, "pcie", "Ada", 0, 0, 4, _DS_ADA_DC),
    _g("L20", "L20", "NVIDIA L20 48GB", 48, "pcie", "Ada", 0, 0, 4, _DS_ADA_DC),
    _g("L4", "L4", "NVIDIA L4 24GB", 24, "pcie", "Ada", 0, 0, 4, _DS_ADA_DC),
    _g("RTX-4090D", "4090", "NVIDIA GeForce RTX 4090 D 24GB", 24, "pcie", "Ada", 0, 0, 4,
       _DS_GEFORCE, p2p=False, needs=("D",)),
    _g("RTX-4090", "4090", "NVIDIA GeForce RTX 4090 24GB", 24, "pcie", "Ada", 0, 0, 4,
       _DS_GEFORCE, p2p=False, excludes=("D",)),
    _g("RTX-6000-ADA", "6000", "NVIDIA RTX 6000 Ada Generation 48GB", 48, "pcie", "Ada", 0, 0, 4,
       _DS_PRO, needs=("ADA",)),
    # Hopper
    _g("H100-SXM5-80GB", "H100", "NVIDIA H100 SXM5 80GB", 80, "sxm", "Hopper", 900, 18, 5,
       _DS_H100, nvls=True, excludes=_SXM_ONLY),
    _g("H100-SXM5-94GB", "H100", "NVIDIA H100 SXM5 94GB", 94, "sxm", "Hopper", 900, 18, 5,
       _DS_H100, nvls=True, excludes=_SXM_ONLY),
    _g("H100-SXM5-64GB", "H100", "NVIDIA H100 SXM5 64GB", 64, "sxm", "Hopper", 900, 18, 5,
       _DS_H100_64GB, nvls=True, excludes=_SXM_ONLY),
    _g("H100-SXM5-96GB", "H100", "NVIDIA H100 SXM5 96GB", 96, "sxm", "Hopper", 900, 18, 5,
       _DS_H100_96GB, nvls=True, excludes=_SXM_ONLY),
    _g("H100-PCIE-80GB", "H100", "NVIDIA H100 PCIe 80GB", 80, "pcie", "Hopper", 600, 12, 5,
       _DS_H100, needs=_PCIE),
    _g("H100-NVL-94GB", "H100", "NVIDIA H100 NVL 94GB", 94, "pcie", "Hopper", 600, 12, 5,
       _DS_H100, needs=("NVL",)),
    _g("H800-SXM5-80GB", "H800", "NVIDIA H800 SXM5 80GB", 80, "sxm", "Hopper", 400, 8, 5,
       _DS_H800, nvls=True, excludes=_PCIE),
    _g("H800-PCIE-80GB", "H800", "NVIDIA H800 PCIe 80GB", 80, "pcie", "Hopper", 400, 8, 5,
       _DS_H800, needs=_PCIE),
    _g("H20-96GB", "H20", "NVIDIA H20 96GB", 96, "sxm", "Hopper", 900, 18, 5, _DS_H20,
       nvls=True, excludes=("3E",)),
    _g("H20-3E-141GB", "H20", "NVIDIA H20-3e 141GB", 141, "sxm", "Hopper", 900, 18, 5, _DS_H20,
       nvls=True, needs=("3E",)),
    _g("H200-SXM-141GB", "H200", "NVIDIA H200 SXM 141GB", 141, "sxm", "Hopper", 900, 18, 5,
       _DS_H200, nvls=True, excludes=_SXM_ONLY),
    _g("H200-NVL-141GB", "H200", "NVIDIA H200 NVL 141GB", 141, "pcie", "Hopper", 900, 18, 5,
       _DS_H200, needs=("NVL",)),
    _g("GH200-96GB", "GH200", "NVIDIA GH200 96GB HBM3", 96, "other", "Hopper", 900, 18, 5,
       _DS_GH200, name_memory_gb=(96, 120, 480), c2c=_C2C_GH200,
       c2c_eff=NVLINK_C2C_EFFICIENCY),
    _g("GH200-144GB", "GH200", "NVIDIA GH200 144GB HBM3e", 144, "other", "Hopper", 900, 18, 5,
       _DS_GH200, name_memory_gb=(141, 144), c2c=_C2C_GH200,
       c2c_eff=NVLINK_C2C_EFFICIENCY),
    # Blackwell
    _g("B200", "B200", "NVIDIA B200 180GB", 180, "sxm", "Blackwell", 1800, 18, 5, _DS_B200,
       nvls=True, name_memory_gb=(180, 192)),
    _g("B300", "B300", "NVIDIA B300 288GB", 288, "sxm", "Blackwell", 1800, 18, 6, _DS_B300,
       nvls=True, name_memory_gb=(270, 288)),
    _g("GB200", "GB200", "NVIDIA GB200 186GB", 186, "other", "Blackwell", 1800, 18, 5,
       _DS_GB200, nvls=True, name_memory_gb=(186, 192), c2c=_C2C_GB200,
       c2c_eff=NVLINK_C2C_GB200_EFFICIENCY),
    _g("RTX-5090", "5090", "NVIDIA GeForce RTX 5090 32GB", 32, "pcie", "Blackwell", 0, 0, 5,
       _DS_GEFORCE, p2p=False),
)  # fmt: skip


@dataclass(frozen=True)
class OtherAccelerator:
    """An accelerator family the table names but holds none of NVIDIA's reference figures for.

    Its NVLink bandwidth, reference fabric (one NIC per GPU of a DGX) and expected nccl-tests
    bus bandwidth do not apply: :func:`match_gpu` returns None for it, so every reading of
    those figures takes the "no reference for the GPU" path (collectives "unreferenced",
    verification "unverifiable"), while :func:`gpu_family_of` names its family so that an
    evaluation can require it (checklist item 1). ``memory_gib`` lists the memory per device
    its ``source`` states (empty where no datasheet was found); nothing in scoring reads it.
    ``variants`` are the names of the family's variants (Ascend 910B1-B4), read as the family.
    """

    family: str
    vendor: str
    display_name: str
    memory_gib: tuple[int, ...]
    source: str
    variants: frozenset[str] = frozenset()


_DS_ROCM = (
    "AMD ROCm documentation, GPU specifications (ROCm/rocm-docs reference/gpu-specs.rst): "
    "VRAM (GiB)"
)
OTHER_ACCELERATORS: tuple[OtherAccelerator, ...] = (
    # The search found no Huawei datasheet stating each variant's memory: the 910B's 64 GB is
    # a cloud provider's product page; the variants' (910B1-B4) and the 910C's memory are left
    # out rather than guessed.
    OtherAccelerator(
        "910B", "Huawei", "Huawei Ascend 910B", (64,),
        "Gitee AI compute docs, Ascend 910B (ai.gitee.com/docs/compute/clusters_gpu/"
        "ascend_gpu): 64 GB HBM2e; HCCS, 8 NPUs all-to-all per node; variants' memory unsourced",
        variants=frozenset({"910B1", "910B2", "910B3", "910B4"}),
    ),
    OtherAccelerator(
        "910C", "Huawei", "Huawei Ascend 910C", (),
        "UDN report of HUAWEI CONNECT 2025 (udn.com/news/story/7333/9013285): Ascend 910C, "
        "two 910B dies in one package, launched Q1 2025; no memory figure sourced",
    ),
    OtherAccelerator("MI250X", "AMD", "AMD Instinct MI250X", (128,), _DS_ROCM + ": MI250X 128"),
    OtherAccelerator("MI300X", "AMD", "AMD Instinct MI300X", (192,), _DS_ROCM + ": MI300X 192"),
    OtherAccelerator("MI325X", "AMD", "AMD Instinct MI325X", (256,), _DS_ROCM + ": MI325X 256"),
)  # fmt: skip
_OTHER_BY_FAMILY = {acc.family: acc for acc in OTHER_ACCELERATORS}
_FAMILY_ALIASES = {variant: acc.family for acc in OTHER_ACCELERATORS for variant in acc.variants}

# Words that say nothing about the model; dropped before matching.
_NOISE_WORDS = frozenset(
    {"NVIDIA", "CORPORATION", "TESLA", "GEFORCE", "QUADRO", "GENERATION", "GRAPHICS", "REV"}
)
_MEMORY_TOKEN = re.compile(r"^(\d{1,3})G(?:B|IB)?$")
# Chip code names lspci prints before the bracketed marketing name ("GH100 [H100 SXM5 80GB]").
# GH200/GB200 are products, not chips, so the pattern spares them.
_CHIP_TOKEN = re.compile(r"^(?:GV1\d\d|TU1\d\d|GA1\d\d|GH100|AD1\d\d|GB1\d\d|GB20[1-9])(?:GL|BM)?$")
_FAMILIES = frozenset(spec.family for spec in GPU_SPECS) | frozenset(_OTHER_BY_FAMILY)


# Pure and asked for the same few names at every refresh (every run of every node): cached,
# like match_gpu. The results are immutable (tuples, frozen dataclasses).
@lru_cache(maxsize=512)
def normalise_gpu_name(name: str) -> tuple[str, ...]:
    """Split a GPU name as nvidia-smi, lspci or a vendor writes it into upper-case tokens.

    "NVIDIA A100-SXM4-80GB" -> ("A100", "SXM4", "80GB"); "GeForce RTX 2080Ti" ->
    ("RTX", "2080", "TI"). Chip code names (GH100, AD102GL) and filler words are dropped.
    """
    text = name.upper().replace("GEFORCE", " ")
    text = re.sub(r"\[[0-9A-F]{4}:[0-9A-F]{4}\]", " ", text)  # lspci -nn vendor:device ids
    # "2080Ti", "4090D": the suffix is a separate word in other spellings.
    text = re.sub(r"\b(\d{4})(TI|D)\b", r"\1 \2", text)
    # "Ascend910B": Huawei's device names ("Ascend910-0") and Chinese text ("昇腾910B") run
    # the brand and the model together.
    text = re.sub(r"ASCEND(?=\d)", "ASCEND ", text)
    tokens = re.split(r"[^A-Z0-9.]+", text)
    return tuple(
        t
        for t in (tok.strip(".") for tok in tokens)
        if t and t not in _NOISE_WORDS and not _CHIP_TOKEN.match(t)
    )


# Verification asks for every GPU of every node at each refresh; fleets repeat a few names.
@lru_cache(maxsize=512)
def match_gpu(name: str | None) -> GpuSpec | None:
    """Return the GpuSpec a GPU name refers to, or None when it names no GPU in the table.

    Tolerant of case, an "NVIDIA"/"Tesla"/"GeForce" prefix, dashes, spaces and lspci brackets.
    A memory figure in the name must fit the spec; variant words (PCIe, NVL, Ti, 3e) pick the
    variant; without them the family's first row (the SXM board) is taken. NVSwitch bridges
    and other non-GPU devices return None.
    """
    if not name:
        return None
    tokens = normalise_gpu_name(name)
    token_set = set(tokens)
    if "NVSWITCH" in token_set or "BRIDGE" in token_set:
        return None
    memories = {int(m.group(1)) for t in tokens if (m := _MEMORY_TOKEN.match(t))}
    # "SXM5"/"SXM4" are spelled with the generation; "PCIE" also appears as "PCI-E".
    if "PCI" in token_set and "E" in token_set:
        token_set.add("PCIE")
    best: tuple[int, int, GpuSpec] | None = None
    for order, spec in enumerate(GPU_SPECS):
        if spec.family not in token_set:
            continue
        if not spec.variant_tokens <= token_set or spec.excluded_tokens & token_set:
            continue
        if memories and not any(spec.accepts_memory_gb(m) for m in memories):
            continue
        score = len(spec.variant_tokens) + (2 if memories else 0)
        # Higher score wins; among equals the earlier row (stable table order).
        if best is None or score > best[0]:
            best = (score, order, spec)
    return best[2] if best else None


@lru_cache(maxsize=512)
def gpu_family_of(name: str | None) -> str | None:
    """The family token ("H100", "A100", "4090", "910B", "MI300X") a name mentions, even when
    no variant fits; an Ascend variant ("910B3") is read as its family ("910B")."""
    if not name:
        return None
    for token in normalise_gpu_name(name):
        token = _FAMILY_ALIASES.get(token, token)
        if token in _FAMILIES:
            return token
    return None


def other_accelerator(name: str | None) -> OtherAccelerator | None:
    """The OtherAccelerator a name refers to (an Ascend or Instinct part: no NVIDIA reference
    figures apply to it), or None (an NVIDIA GPU of the table, or a name it does not know)."""
    family = gpu_family_of(name)
    return None if family is None else _OTHER_BY_FAMILY.get(family)


# What an accelerator without NVIDIA's reference figures is scored as, where a rule needs them.
# English only here: the portal shows each line in the reader's language by its pattern
# (portal.views.display.evidence_ref), as it does the TCO's billing reference.
NO_COLLECTIVE_REFERENCE = (
    "no nccl-tests reference for {gpu}: its collective bus bandwidth has no expected value "
    "to be judged against, so the rule counts as unmeasured"
)
NO_INTERCONNECT_REFERENCE = (
    "no NVLink reference for {gpu}: its own interconnect is scored as declared, an "
    "assumption only a document review can verify"
)


@lru_cache(maxsize=64)
def collective_reference_gap(name: str | None) -> str | None:
    """The evidence line of a collective bus-bandwidth rule for an accelerator the table holds
    no nccl-tests expectation for (an Ascend or Instinct part: other_accelerator), None for
    any other name: its measured fraction can never be computed, so the rule counts as an
    unmeasured candidate's (0 of its maximum) and says why."""
    other = other_accelerator(name)
    return None if other is None else NO_COLLECTIVE_REFERENCE.format(gpu=other.display_name)


@lru_cache(maxsize=64)
def interconnect_reference_gap(name: str | None) -> str | None:
    """The evidence line of the NVLink and SXM/PCIe claims of an accelerator the table holds
    no NVLink figures for (HCCS, Infinity Fabric), None for any other name: the declared
    topology and form factor are scored as an NVIDIA part's would be, an assumption no node
    output checks (its claims count at most as claimed until a document review)."""
    other = other_accelerator(name)
    return None if other is None else NO_INTERCONNECT_REFERENCE.format(gpu=other.display_name)


def known_gpu_families() -> tuple[str, ...]:
    """Every family of the table, NVIDIA's first (in table order), then the other vendors'."""
    nvidia = dict.fromkeys(spec.family for spec in GPU_SPECS)
    return (*nvidia, *_OTHER_BY_FAMILY)


_FAMILY_LIST = re.compile(r"\s*[,;，；、]\s*")


def parse_gpu_families(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The GPU families a list names ("H100, H200" or "NVIDIA H100 SXM、B200": separated by
    commas, semicolons or the Chinese list marks), each once in the order given, and the
    items that name no family in the table (to be reported)."""
    families: list[str] = []
    unknown: list[str] = []
    for item in _FAMILY_LIST.split(text or ""):
        if not item.strip():
            continue
        family = gpu_family_of(item)
        if family is None:
            unknown.append(item.strip())
        elif family not in families:
            families.append(family)
    return tuple(families), tuple(unknown)


def is_gpu_family(token: str) -> bool:
    """Whether ``token`` is a family of the table ("H100", "4090")."""
    return token in _FAMILIES
