"""What a GPU name states (model, memory, form factor) and how a claimed name and a measured
one differ; the memory a GPU shows with ECC on."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .gpus import _MEMORY_TOKEN, GPU_SPECS, GpuSpec, gpu_family_of, match_gpu, normalise_gpu_name

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
