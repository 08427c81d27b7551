"""Reference data on GPUs and NICs, and the all-reduce bus bandwidth a declared system should reach.

GPU figures come from NVIDIA's product datasheets (cited per row); Huawei Ascend and AMD
Instinct families are named (OTHER_ACCELERATORS, cited per row) without NVIDIA's figures.
Bandwidths are in GB/s (10^9 bytes per second); ``nvlink_bidi_gbyte_s`` is NVIDIA's marketing
figure, which counts both directions, so the per-direction figure nccl-tests compares against is
half of it.

How the expected bus bandwidth is derived (see :func:`expected_busbw_gbyte_s`)
-----------------------------------------------------------------------------
nccl-tests reports ``busbw = algbw * 2(n-1)/n`` for all-reduce, chosen so that it can be compared
with the per-rank, one-direction bandwidth of the slowest link a ring crosses ("The bus bandwidth
should reflect the speed of the hardware bottleneck: NVLink, PCI, QPI, or network" —
NVIDIA/nccl-tests doc/PERFORMANCE.md). So the expected busbw is the smaller of two bounds:

* intra-node: the GPU's own link in one direction (NVLink, or PCIe when there is no NVLink)
  times the fraction NCCL's protocol delivers. NVIDIA puts that at ~80 %: "450GB/s is the line
  rate. With the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s"
  (sjeaugey, NVIDIA/nccl-tests#212); the 8 x A100-SXM4-40GB sample measures 232.2 GB/s against
  300 GB/s (0.77).
* inter-node: the node's whole network, ``nics_per_node * rate_gbit_s / 8`` GB/s, not a
  per-GPU share. NCCL runs one ring (channel) per NIC rail and splits the buffer over them, so
  every NIC carries ``2(N-1)/N * S / nics`` and busbw is bounded by the sum of the NICs: "On an
  Nvidia DGX-A100 system we have 8x200Gbit/s IB cards and we measure 192GB/s AllReduce BusBW"
  (AddyLaddy, NVIDIA/nccl#812, quoted in NVIDIA/nccl#1576) — 192 of 8 x 25 = 200 GB/s.

Both are the ring algorithm's bounds: what any healthy system reaches whichever algorithm NCCL
picks or the tester forces (NVIDIA recommends NCCL_ALGO=RING to benchmark two nodes:
NVIDIA/nccl-tests#196, #319). Faster algorithms exceed them, so they are never the expectation
(expert review: judging a ring run against them found healthy hardware wanting): NVLink SHARP
all-reduce in the NVSwitch ("On 8 GPUs, you should reach a peak busBw of ~480GB/s" for H100,
NVIDIA/nccl-tests#212; only from NCCL 2.17, and no gain at 2-4 GPUs, NVIDIA/nccl#1455), and
on few nodes tree/NVLS-tree, which reduces inside the node first so that busbw "can indeed go
beyond the network bottleneck" (sjeaugey, NVIDIA/nccl-tests#196) by up to ``(N-1)n / (N(n-1))``
(1.875 for 2 x 8 GPUs: the OCI 2 x 8 x H100 sample's 464.6 GB/s over a 400 GB/s network).
A run above the expectation counts as 1.0; those algorithms' higher bounds set the
implausibility ceiling instead (scoring.verification.network), above which a run is set aside.

The oversubscription of the fabric is not modelled: a POC's few nodes sit under one leaf switch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# --- efficiency factors (fractions of the line rate that NCCL all-reduce reaches) -------------

# NVIDIA/nccl-tests#212 (sjeaugey): 370 of 450 GB/s effective on NVLink4 -> 0.82; the
# 8 x A100-SXM4-40GB sample (oci-a100-1node) reaches 232.2 of 300 -> 0.77. Rounded to 0.8.
NVLINK_RING_EFFICIENCY = 0.8
# PCIe: 128b/130b encoding and TLP headers leave ~80 % of the line rate for payload, the same
# protocol share NCCL gets on NVLink.
PCIE_EFFICIENCY = 0.8
# GeForce cards have no PCIe peer-to-peer (`nvidia-smi topo -p2p p` prints NS on the
# 2 x RTX 2080 Ti sample), so NCCL stages every transfer through host memory (SHM transport):
# each byte is copied twice. The 4 x RTX 5090 sample (nccl-tests#287) reaches 27.28 GB/s,
# 1.08 x PCIe Gen5's 63 x 0.8 x 0.5; the 2 x RTX 2080 Ti sample, in a rented container, 4.0 GB/s,
# 0.63 x Gen3's 15.75 x 0.8 x 0.5 (neither verified nor refuted): the factor is the copy count,
# not fitted to the slower sample.
NO_P2P_FACTOR = 0.5
# A node whose GPUs span two CPU sockets (SYS between GPUs in nvidia-smi topo -m: a dual-socket
# PCIe server, 8 x L40S) without NVLink: the PCIe ring crosses the sockets twice, and those hops
# are not PCIe peer-to-peer. NCCL uses P2P only up to PXB on Intel CPUs (ncclTopoCheckP2p in
# NVIDIA/nccl src/graph/paths.cc), so it stages them through host memory (SHM: "SHM is
# primarily used when GPUs are on different CPUs"; within a PCIe switch "12GB/s instead of 9
# or 6" over SHM, sjeaugey, NVIDIA/nccl#406); on AMD, P2P across sockets is slower still
# (NVIDIA/nccl-tests#74, A40 on EPYC). The ring then runs at the staged rate, NO_P2P_FACTOR.
SPANS_SOCKETS_FACTOR = NO_P2P_FACTOR
# RDMA (InfiniBand / RoCE): 192 GB/s busbw of 200 GB/s NICs on DGX-A100 (NVIDIA/nccl#812) -> 0.96.
NET_RDMA_EFFICIENCY = 0.95
# Plain Ethernet without RDMA: NCCL's socket transport copies through the kernel; rubric
# estimate (no single authoritative figure), deliberately well below RDMA.
NET_TCP_EFFICIENCY = 0.6

# PCIe x16 one-direction line rate in GB/s (PCI-SIG: 8, 16, 32, 64 GT/s per lane, 128b/130b).
PCIE_X16_GBYTE_S = {3: 15.75, 4: 31.5, 5: 63.0, 6: 121.0}
# NVLink-C2C (the Grace CPU's coherent link to its GPU in GH200 and GB200, in place of PCIe):
# the share of its per-direction line rate an nvbandwidth host<->device copy reaches in the
# slower direction. Device to host is the slower one on GH200: 295.15 GB/s (all_to_host_memcpy_ce
# of the one-GPU GH200 480GB run in tests/scoring/evidence/samples/nvbandwidth, superbench) and
# about 300 ("H2D is approximately 15% faster than D2H" at 346 GB/s H2D, NVIDIA/nvbandwidth#23),
# of 450 GB/s per direction: 0.66, rounded down. The host to device copies of both reach
# 0.77-0.92. A GB200's GPU reaches more of its share (about 0.87: 802.86 GB/s summed over the
# four GPUs of the OCI GB200 sample, each measured alone, of 4 x 225), so it reads above 1.0.
NVLINK_C2C_EFFICIENCY = 0.65

FORM_FACTORS = ("sxm", "pcie", "other")


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model as sold: memory, form factor and interconnect, with its source.

    ``nvlink_bidi_gbyte_s`` is the GPU's total NVLink bandwidth counting both directions (for
    PCIe cards: through their NVLink bridge), 0 without NVLink. ``nvls`` is True where the
    NVSwitch baseboard does NVLink SHARP all-reduce. ``pcie_p2p`` is False for GeForce cards,
    whose driver offers no PCIe peer-to-peer. ``c2c_bidi_gbyte_s`` is the NVLink-C2C bandwidth
    between the GPU and its Grace CPU, both directions, per GPU (superchips: GH200, GB200), 0
    where the GPU reaches its host over PCIe; it is not GPU-to-GPU NVLink.
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
    nvidia-smi shows a vestigial PCIe x1 link and their copies run at several times a PCIe x16
    line rate), else its PCIe x16 generation. Expected = per-direction line rate x the link's
    efficiency (NVLINK_C2C_EFFICIENCY, PCIE_EFFICIENCY)."""
    card = spec.display_name
    if spec.c2c_bidi_gbyte_s > 0:
        line = spec.c2c_bidi_gbyte_s / 2
        eff = NVLINK_C2C_EFFICIENCY
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
       _DS_GH200, name_memory_gb=(96, 120, 480), c2c=_C2C_GH200),
    _g("GH200-144GB", "GH200", "NVIDIA GH200 144GB HBM3e", 144, "other", "Hopper", 900, 18, 5,
       _DS_GH200, name_memory_gb=(141, 144), c2c=_C2C_GH200),
    # Blackwell
    _g("B200", "B200", "NVIDIA B200 180GB", 180, "sxm", "Blackwell", 1800, 18, 5, _DS_B200,
       nvls=True, name_memory_gb=(180, 192)),
    _g("B300", "B300", "NVIDIA B300 288GB", 288, "sxm", "Blackwell", 1800, 18, 6, _DS_B300,
       nvls=True, name_memory_gb=(270, 288)),
    _g("GB200", "GB200", "NVIDIA GB200 186GB", 186, "other", "Blackwell", 1800, 18, 5,
       _DS_GB200, nvls=True, name_memory_gb=(186, 192), c2c=_C2C_GB200),
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
def match_declared_gpu(
    name: str | None, form_factor: str | None = None, memory_gib: float | None = None
) -> GpuSpec | None:
    """The GpuSpec of an offering's GPU: its name read by :func:`match_gpu`, and where the name
    states no form factor ("NVIDIA H100 80GB") the family's row of the declared
    ``form_factor`` ("sxm" or "pcie") holding ``memory_gib`` (or the name's memory), when the
    table has one. match_gpu alone takes the family's first row, the SXM board, so an 8 x
    "H100 80GB" offering declared PCIe was judged against the SXM5's NVLink (360 GB/s
    expected all-reduce instead of PCIe's 50) and an SXM run verified it (GPU expert review).
    A name that states its form factor wins over the field (the datasheet check reports
    the disagreement)."""
    spec = match_gpu(name)
    if spec is None or form_factor not in ("sxm", "pcie") or spec.form_factor == form_factor:
        return spec
    if gpu_name_facts(name).form_factor is not None:
        return spec
    memory = gpu_name_facts(name).memory_gb or memory_gib
    rows = [s for s in GPU_SPECS if s.family == spec.family and s.form_factor == form_factor]
    fitting = [s for s in rows if memory and s.accepts_memory_gb(int(memory))] or rows
    # The table's order within a family: the PCIe card before the NVL board (H100).
    return fitting[0] if fitting else spec


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


# --- what a GPU name states -------------------------------------------------------------------

# Tokens that name a form factor: "SXM4", "SXM5", "PCIE" (also spelled "PCI-E"), "NVL" (the
# NVLink-bridged PCIe card, a product of its own: H100 NVL, H200 NVL).
_SXM_TOKEN = re.compile(r"^SXM\d?$")
# A model token the table may not list ("GB10", "MI210", "A6000", "8000"): letters then digits
# (then at most one letter), or a bare four-digit number. Memory/interface words are not models.
_MODEL_TOKEN = re.compile(r"^(?:[A-Z]{1,3}\d{1,4}[A-Z]?|\d{4})$")
_NOT_MODEL = re.compile(r"^(?:SXM\d?|HBM\d?E?|GDDR\d?X?|PCIE\d?|GEN\d)$")
# Two memory figures are the same card within this share (a name's "80GB" and an offering's
# 80 GiB field; rounding in vendors' spellings).
MEMORY_FIGURE_TOLERANCE = 0.05


@dataclass(frozen=True)
class GpuNameFacts:
    """What one GPU name states, and nothing more: None where the name is silent.

    ``model`` is the model token ("A100", "H800", "GB10"), ``memory_gb`` the memory figure the
    name carries (80 for "A100-SXM4-80GB"), ``form_factor`` "sxm", "pcie" or "nvl"."""

    model: str | None
    memory_gb: int | None
    form_factor: str | None


@lru_cache(maxsize=512)
def gpu_name_facts(name: str | None) -> GpuNameFacts:
    """Read the model, memory figure and form factor a GPU name states, from its words alone
    (no lookup of variants): "NVIDIA A100-SXM4-40GB" -> (A100, 40, sxm); "NVIDIA H100 80GB
    HBM3" -> (H100, 80, None); "A100" -> (A100, None, None). A name stating two different
    memory figures or form factors states neither."""
    if not name:
        return GpuNameFacts(None, None, None)
    tokens = normalise_gpu_name(name)
    token_set = set(tokens)
    if "PCI" in token_set and "E" in token_set:
        token_set.add("PCIE")
    forms = set()
    if any(_SXM_TOKEN.match(t) for t in token_set):
        forms.add("sxm")
    if "PCIE" in token_set:
        forms.add("pcie")
    if "NVL" in token_set:
        forms.add("nvl")
    memories = {int(m.group(1)) for t in tokens if (m := _MEMORY_TOKEN.match(t))}
    model = gpu_family_of(name)
    if model is None:
        model = next((t for t in tokens if _MODEL_TOKEN.match(t) and not _NOT_MODEL.match(t)), None)
    return GpuNameFacts(
        model=model,
        memory_gb=memories.pop() if len(memories) == 1 else None,
        form_factor=forms.pop() if len(forms) == 1 else None,
    )


def memory_figures_agree(model: str | None, a_gb: float, b_gb: float) -> bool:
    """Whether two memory figures can name the same card of ``model``: equal within
    MEMORY_FIGURE_TOLERANCE, or both figures one spec's names carry (a GH200 "120GB" names
    its CPU memory beside the 96 GB of HBM)."""
    if abs(a_gb - b_gb) <= MEMORY_FIGURE_TOLERANCE * max(a_gb, b_gb):
        return True
    return any(
        spec.family == model
        and spec.accepts_memory_gb(int(a_gb))
        and spec.accepts_memory_gb(int(b_gb))
        for spec in GPU_SPECS
    )


def claimed_gpu_facts(
    gpu_model: str, gpu_memory_gib: float | None, gpu_form_factor: str | None
) -> GpuNameFacts:
    """What an offering states about its GPU: the model name's words, and where the name is
    silent, the offering's own memory (GiB per GPU) and SXM/PCIe fields."""
    facts = gpu_name_facts(gpu_model)
    memory = facts.memory_gb or (gpu_memory_gib if gpu_memory_gib and gpu_memory_gib > 0 else None)
    form = facts.form_factor or (
        gpu_form_factor if gpu_form_factor in ("sxm", "pcie", "nvl") else None
    )
    return GpuNameFacts(facts.model, memory, form)


def gpu_name_differences(claimed: GpuNameFacts, measured: GpuNameFacts) -> list[str]:
    """What two GPU names state differently: any of "model", "memory", "form_factor", in that
    order. Only what both state is compared: a name silent on a point differs in nothing."""
    found = []
    if claimed.model and measured.model and claimed.model != measured.model:
        found.append("model")
    if (
        claimed.memory_gb
        and measured.memory_gb
        and not memory_figures_agree(
            claimed.model or measured.model, claimed.memory_gb, measured.memory_gb
        )
    ):
        found.append("memory")
    if claimed.form_factor and measured.form_factor and claimed.form_factor != measured.form_factor:
        found.append("form_factor")
    return found


# --- memory a GPU shows with ECC on ------------------------------------------------------------

# GDDR boards keep their ECC check bits inline, in the frame buffer itself, so with ECC enabled
# (the data-centre default) nvidia-smi shows 15/16 of the memory the datasheet names: "Inline
# ECC ... 1/16th of DRAM is reserved for ECC storage, reducing available memory" (NVIDIA IGX
# user guide, DRAM-ECC). The real outputs agree to within the driver's own reservation: the
# L40S (48 GB GDDR6 with ECC, ECC Mode Enabled) shows 46068 MiB of 48 x 1024 x 15/16 = 46080,
# the T4 (16 GB) 15360 MiB = 16 x 1024 x 15/16, the L4 (24 GB) 23034 MiB of 23040
# (tests/scoring/evidence/samples: thamada-l40s-driver550, gpu-operator-issue510-...-t4,
# go-exporter-2x-l4-driver555). HBM boards (A100, H100...) keep ECC out of band and show
# nearly all of it (81559 MiB on an H100 80GB). The datasheets of these cards list ECC memory
# (_DS_ADA_DC, _DS_AMPERE_DC, _DS_PRO, the T4's); GeForce cards are left out (no ECC).
INLINE_ECC_RESERVED_SHARE = 1 / 16
INLINE_ECC_GPU_KEYS = frozenset(
    {
        "T4",
        "QUADRO-RTX-8000",
        "A10",
        "A10G",
        "A40",
        "RTX-A6000",
        "L40S",
        "L40",
        "L20",
        "L4",
        "RTX-6000-ADA",
    }
)


def ecc_reserved_share(spec: GpuSpec | None) -> float:
    """The share of a GPU's datasheet memory that ECC takes from what nvidia-smi shows when it
    is enabled: 1/16 on GDDR boards with inline ECC (INLINE_ECC_GPU_KEYS), else 0 (HBM keeps
    its ECC out of band; an unknown GPU is assumed to be such a board)."""
    return (
        INLINE_ECC_RESERVED_SHARE if spec is not None and spec.key in INLINE_ECC_GPU_KEYS else 0.0
    )


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


# --- NICs: ibstat prints the PCI device id in decimal as "CA type: MT4129" --------------------

NIC_MAX_RATE_GBIT_S: dict[str, int] = {
    # Linux pci.ids (Mellanox vendor 15b3) device ids and the fastest port speed of each card.
    "MT4099": 56,  # 0x1003 ConnectX-3, FDR
    "MT4103": 56,  # 0x1007 ConnectX-3 Pro, FDR
    "MT4115": 100,  # 0x1013 ConnectX-4, EDR / 100GbE
    "MT4117": 50,  # 0x1015 ConnectX-4 Lx
    "MT4119": 100,  # 0x1017 ConnectX-5, EDR / 100GbE
    "MT4121": 100,  # 0x1019 ConnectX-5 Ex
    "MT4123": 200,  # 0x101b ConnectX-6, HDR
    "MT4125": 200,  # 0x101d ConnectX-6 Dx, 2x100 / 1x200 GbE
    "MT4127": 50,  # 0x101f ConnectX-6 Lx
    "MT4129": 400,  # 0x1021 ConnectX-7, NDR / 400GbE
    "MT4131": 800,  # 0x1023 ConnectX-8, XDR / 800GbE
    "MT41686": 200,  # 0xa2d6 BlueField-2
    "MT41692": 400,  # 0xa2dc BlueField-3
}
NIC_NAMES: dict[str, str] = {
    "MT4099": "ConnectX-3",
    "MT4103": "ConnectX-3 Pro",
    "MT4115": "ConnectX-4",
    "MT4117": "ConnectX-4 Lx",
    "MT4119": "ConnectX-5",
    "MT4121": "ConnectX-5 Ex",
    "MT4123": "ConnectX-6",
    "MT4125": "ConnectX-6 Dx",
    "MT4127": "ConnectX-6 Lx",
    "MT4129": "ConnectX-7",
    "MT4131": "ConnectX-8",
    "MT41686": "BlueField-2",
    "MT41692": "BlueField-3",
}


def nic_max_rate_gbit_s(ca_type: str | None) -> int | None:
    """The fastest port rate (Gb/s) of a Mellanox/NVIDIA card from ibstat's "CA type", or None."""
    if not ca_type:
        return None
    return NIC_MAX_RATE_GBIT_S.get(ca_type.strip().upper())


# --- the reference compute fabric of a GPU generation -----------------------------------------

# The east-west (compute) fabric NVIDIA builds its DGX systems of each generation with: one NIC
# rail per GPU at the generation's port rate, in Gb/s per GPU. A multi-node training job on a
# thinner fabric waits longer in its collectives (scoring/collectives.py prices that in the TCO).
# Families without a DGX/HGX multi-node system (PCIe inference and workstation cards) have no
# reference: their fabric's size is then not priced, and the TCO says so.
_DGX1 = "NVIDIA DGX-1 with V100 datasheet: 4 x 100 Gb/s EDR InfiniBand for 8 GPUs (50 per GPU)"
_DGXA100 = "NVIDIA DGX A100 datasheet: 8 x single-port ConnectX-6 200 Gb/s HDR, one per GPU"
_DGXH100 = "NVIDIA DGX H100/H200 datasheets: 8 x ConnectX-7 400 Gb/s NDR, one per GPU"
_DGXB200 = "NVIDIA DGX B200 datasheet: 8 x single-port ConnectX-7 400 Gb/s, one per GPU"
_DGXB300 = "NVIDIA DGX B300 datasheet: 8 x ConnectX-8 SuperNIC 800 Gb/s, one per GPU"
REFERENCE_FABRIC_GBIT_S_PER_GPU: dict[str, tuple[int, str]] = {
    "V100": (50, _DGX1),
    "A100": (200, _DGXA100),
    "A800": (200, _DGXA100 + " (A800: the same HGX board, China export SKU)"),
    "H100": (400, _DGXH100),
    "H800": (400, _DGXH100 + " (H800: the same HGX board, China export SKU)"),
    "H20": (400, _DGXH100 + " (HGX H20: the same HGX board, China export SKU)"),
    "H200": (400, _DGXH100),
    "GH200": (400, "NVIDIA DGX GH200: one ConnectX-7 400 Gb/s per superchip"),
    "B200": (400, _DGXB200),
    "GB200": (400, "NVIDIA GB200 NVL72 compute tray: one ConnectX-7 400 Gb/s per GPU"),
    "B300": (800, _DGXB300),
}


def reference_fabric(
    gpu_model: str | None, form_factor: str | None = None, memory_gib: float | None = None
) -> tuple[GpuSpec, int, str] | None:
    """(the GPU, its generation's reference Gb/s per GPU, the source) or None without one; the
    GPU is the declared ``form_factor``'s card where the name states none
    (match_declared_gpu: an "H100 80GB" declared PCIe is the PCIe card, bounded by PCIe)."""
    spec = match_declared_gpu(gpu_model, form_factor, memory_gib)
    if spec is None:
        return None
    found = REFERENCE_FABRIC_GBIT_S_PER_GPU.get(spec.family)
    return None if found is None else (spec, *found)


# --- NVLink domains larger than one node ------------------------------------------------------

# A rack-scale system joins the GPUs of several nodes (trays) in one NVLink domain through its
# NVSwitch trays: GB200 NVL72 (72 GPUs, 18 trays of 4), GH200 NVL32 (32 superchips, one per
# node). NCCL then runs a collective among GPUs of one domain over NVLink (multi-node NVLink,
# NCCL 2.19+), at NVLink's bandwidth rather than the compute fabric's.


def nvlink_domain_size(declared: int | None, gpus_per_node: int) -> int:
    """The GPUs of one NVLink domain: ``declared`` where the offering states one (a multiple
    of ``gpus_per_node``, at least it), else (None or 0) the node's GPUs."""
    return declared if declared else gpus_per_node


def nvlink_domain_problem(
    declared: int | None, gpus_per_node: int, nvlink_topology: str | None = None
) -> tuple[str, str] | None:
    """Why ``declared`` GPUs cannot be an NVLink domain of ``gpus_per_node``-GPU nodes, as
    (en, zh), or None when it can (None or 0: the node itself). A domain joins whole nodes, so
    it is a multiple of the node's GPUs and at least one node; one larger than a node needs
    NVLink (``nvlink_topology`` not "none", where given)."""
    if not declared:
        return None
    if isinstance(declared, bool) or not isinstance(declared, int) or declared < 0:
        return (
            f"the NVLink domain must be a whole number of GPUs, got {declared!r}",
            f"NVLink 域必须是整数个 GPU，收到 {declared!r}",
        )
    if declared < gpus_per_node or declared % gpus_per_node:
        return (
            f"the NVLink domain ({declared} GPUs) must be a multiple of the {gpus_per_node} GPUs "
            "per node, at least one node",
            f"NVLink 域（{declared} 块 GPU）必须是每节点 {gpus_per_node} 块 GPU 的整数倍，"
            "且至少为一个节点",
        )
    if declared > gpus_per_node and nvlink_topology == "none":
        return (
            f"an NVLink domain of {declared} GPUs across nodes needs an NVLink topology, not none",
            f"跨节点的 {declared} GPU NVLink 域需要 NVLink 拓扑，不能为“无”",
        )
    return None


def run_in_nvlink_domain(gpus_per_node: int, node_count: int, domain_gpus: int | None) -> bool:
    """Whether a run on ``node_count`` nodes of ``gpus_per_node`` GPUs spans more than one node
    yet fits in one NVLink domain of ``domain_gpus`` (nvlink_domain_size), so that NCCL can
    keep its traffic on NVLink."""
    domain = nvlink_domain_size(domain_gpus, gpus_per_node)
    return node_count >= 2 and gpus_per_node * node_count <= domain


# --- expected all-reduce bus bandwidth ---------------------------------------------------------

NVLINK_TOPOLOGIES = ("full_mesh", "grouped", "none")
FABRICS = ("infiniband", "roce", "ethernet", "none")


@dataclass(frozen=True)
class ExpectedBusbw:
    """The all-reduce busbw (GB/s) a declared system should reach, and why.

    ``bound`` names the bottleneck ("intra_node", "inter_node", or "nvlink_domain" for a run
    across nodes of one NVLink domain, bounded by NVLink); the two component bounds are
    kept (None where not applicable) so that a page can show the arithmetic.
    """

    value_gbyte_s: float
    basis: str
    basis_zh: str
    bound: str
    intra_node_gbyte_s: float | None
    inter_node_gbyte_s: float | None


def _intra_node_bound(
    gpu: GpuSpec, gpus_per_node: int, nvlink_topology: str, spans_sockets: bool = False
) -> tuple[float, str, str]:
    uni = gpu.nvlink_uni_gbyte_s
    pcie = gpu.pcie_uni_gbyte_s * PCIE_EFFICIENCY
    # The reference row is named: a name without a variant word reads as the family's first
    # row or the declared form factor's (match_declared_gpu), an assumption the reader sees.
    card = gpu.display_name
    pcie_en = (
        f"{card}: PCIe Gen{gpu.pcie_gen} x16 {gpu.pcie_uni_gbyte_s:g} GB/s x {PCIE_EFFICIENCY:g}"
    )
    pcie_zh = (
        f"{card}：PCIe Gen{gpu.pcie_gen} x16 {gpu.pcie_uni_gbyte_s:g} GB/s × {PCIE_EFFICIENCY:g}"
    )
    if not gpu.pcie_p2p:
        pcie *= NO_P2P_FACTOR
        pcie_en += f" x {NO_P2P_FACTOR:g} (no PCIe peer-to-peer, staged through host memory)"
        pcie_zh += f" × {NO_P2P_FACTOR:g}（无 PCIe P2P，经主机内存中转）"
    elif spans_sockets and gpus_per_node >= 2:
        pcie *= SPANS_SOCKETS_FACTOR
        pcie_en += (
            f" x {SPANS_SOCKETS_FACTOR:g} (nvidia-smi topo -m shows the GPUs on two CPU sockets, "
            "SYS: the ring's hops between the sockets are staged through host memory)"
        )
        pcie_zh += (
            f" × {SPANS_SOCKETS_FACTOR:g}（nvidia-smi topo -m 显示 GPU 分属两个 CPU 插槽（SYS）："
            "环在插槽之间的传输经主机内存中转）"
        )
    nvlink_usable = uni > 0 and nvlink_topology in ("full_mesh", "grouped")
    # PCIe cards joined in bridged pairs: with more than two GPUs the ring must cross PCIe.
    bridged_beyond_pair = gpu.form_factor == "pcie" and gpus_per_node > 2
    if nvlink_usable and not (nvlink_topology == "grouped" and bridged_beyond_pair):
        # The ring's bound, NVLink SHARP or not (see the module docstring).
        value = uni * NVLINK_RING_EFFICIENCY
        return (
            value,
            f"{card}: NVLink {uni:g} GB/s per direction x {NVLINK_RING_EFFICIENCY:g} "
            "(NCCL protocol share)",
            f"{card}：NVLink 单向 {uni:g} GB/s × {NVLINK_RING_EFFICIENCY:g}（NCCL 协议效率）",
        )
    return pcie, pcie_en, pcie_zh


def expected_busbw_gbyte_s(
    gpu: GpuSpec,
    gpus_per_node: int,
    node_count: int,
    nvlink_topology: str,
    fabric: str,
    fabric_rate_gbit_s: float,
    nics_per_node: int,
    nvlink_domain_gpus: int | None = None,
    gpus_span_sockets: bool = False,
) -> ExpectedBusbw | None:
    """The all-reduce busbw (GB/s) the declared system should reach at its best message size.

    ``gpus_per_node`` >= 1 and ``node_count`` >= 1 describe the run being judged (the nodes the
    POC tested), ``nvlink_topology`` and ``fabric`` are the claimed values, ``fabric_rate_gbit_s``
    the claimed rate per port and ``nics_per_node`` the compute rails. ``nvlink_domain_gpus``
    is the claimed NVLink domain (None or 0: the node): a multi-node run whose GPUs fit in one
    domain is bounded by NVLink, as inside a node (bound "nvlink_domain"), not by the fabric.
    ``gpus_span_sockets``: the evidence shows a node's GPUs on two CPU sockets (SYS between
    GPUs in nvidia-smi topo -m), so a ring over PCIe runs at the staged rate
    (SPANS_SOCKETS_FACTOR); without it every GPU is taken to reach the others by PCIe P2P.
    Returns None when no bound applies (one GPU on one node) or a multi-node run outside one
    NVLink domain has no declared network to bound it (fabric "none" or rate/NIC count 0). See
    the module docstring for the derivation; a healthy system measures 0.8-1.05 of the value.
    """
    if gpus_per_node < 1 or node_count < 1:
        raise ValueError("gpus_per_node and node_count must be at least 1")
    if nvlink_topology not in NVLINK_TOPOLOGIES:
        raise ValueError(f"unknown nvlink_topology {nvlink_topology!r}")
    if fabric not in FABRICS:
        raise ValueError(f"unknown fabric {fabric!r}")
    # A topology the datasheet rules out sets no expectation: what the GPU can have does.
    nvlink_topology = possible_nvlink_topology(gpu, gpus_per_node, nvlink_topology)
    intra: float | None = None
    intra_en = intra_zh = ""
    if gpus_per_node >= 2:
        intra, intra_en, intra_zh = _intra_node_bound(
            gpu, gpus_per_node, nvlink_topology, gpus_span_sockets
        )
    if run_in_nvlink_domain(gpus_per_node, node_count, nvlink_domain_gpus):
        intra, intra_en, intra_zh = _intra_node_bound(
            gpu, gpus_per_node, nvlink_topology, gpus_span_sockets
        )
        ranks = gpus_per_node * node_count
        domain = nvlink_domain_size(nvlink_domain_gpus, gpus_per_node)
        return ExpectedBusbw(
            value_gbyte_s=round(intra, 2),
            basis=(
                f"{intra:.1f} GB/s bounded by NVLink: the run's {ranks} GPUs on {node_count} "
                f"nodes fit in one {domain}-GPU NVLink domain: {intra_en}"
            ),
            basis_zh=(
                f"{intra:.1f} GB/s，受 NVLink 限制：该测试 {node_count} 个节点共 {ranks} 块 GPU"
                f"位于同一个 {domain} GPU 的 NVLink 域内：{intra_zh}"
            ),
            bound="nvlink_domain",
            intra_node_gbyte_s=round(intra, 2),
            inter_node_gbyte_s=None,
        )
    inter: float | None = None
    inter_en = inter_zh = ""
    if node_count >= 2:
        if fabric == "none" or fabric_rate_gbit_s <= 0 or nics_per_node <= 0:
            return None
        node_gbyte_s = nics_per_node * fabric_rate_gbit_s / 8
        eff = NET_TCP_EFFICIENCY if fabric == "ethernet" else NET_RDMA_EFFICIENCY
        # The ring's bound over the node's rails (see the module docstring): a tree on few
        # nodes may exceed it, which the implausibility ceiling allows for.
        inter = node_gbyte_s * eff
        inter_en = (
            f"network {nics_per_node} x {fabric_rate_gbit_s:g} Gb/s = {node_gbyte_s:g} GB/s per "
            f"node x {eff:g} (ring all-reduce over {node_count} nodes; a tree may exceed it)"
        )
        inter_zh = (
            f"网络 {nics_per_node} × {fabric_rate_gbit_s:g} Gb/s = 每节点 {node_gbyte_s:g} GB/s"
            f" × {eff:g}（{node_count} 节点环形 all-reduce；树形算法可能超出）"
        )
    if intra is not None and (inter is None or intra <= inter):
        return ExpectedBusbw(
            value_gbyte_s=round(intra, 2),
            basis=f"{intra:.1f} GB/s bounded inside the node: {intra_en}",
            basis_zh=f"{intra:.1f} GB/s，受节点内互联限制：{intra_zh}",
            bound="intra_node",
            intra_node_gbyte_s=round(intra, 2),
            inter_node_gbyte_s=None if inter is None else round(inter, 2),
        )
    if inter is None:
        return None
    return ExpectedBusbw(
        value_gbyte_s=round(inter, 2),
        basis=f"{inter:.1f} GB/s bounded by the network: {inter_en}",
        basis_zh=f"{inter:.1f} GB/s，受节点间网络限制：{inter_zh}",
        bound="inter_node",
        intra_node_gbyte_s=None if intra is None else round(intra, 2),
        inter_node_gbyte_s=round(inter, 2),
    )
