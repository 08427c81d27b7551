"""Inputs and outputs of claim verification: claims, per-node evidence, verdicts and faults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from ..reference import (
    FABRICS,
    FORM_FACTORS,
    NVLINK_TOPOLOGIES,
    ExpectedBusbw,
    nvlink_domain_problem,
)

STATUS_VERIFIED = "verified"
STATUS_CONTRADICTED = "contradicted"
STATUS_UNVERIFIABLE = "unverifiable"
STATUSES = (STATUS_VERIFIED, STATUS_CONTRADICTED, STATUS_UNVERIFIABLE)

# The ten checklist items, in questionnaire order (stable keys shared with the portal).
ITEM_KEYS = (
    "gpu_match",
    "nvlink_topology",
    "fabric",
    "local_nvme",
    "distributed_storage",
    "compliance",
    "sla",
    "control",
    "monthly_cost",
    "poc_window",
)

VERDICT_BARE_METAL = "bare_metal"
VERDICT_VIRTUALISED = "virtualised"
VERDICT_UNCERTAIN = "uncertain"
POINTS_TO_BARE_METAL = "bare_metal"
POINTS_TO_VIRTUAL = "virtual"

SEVERITY_ERROR = "error"
SEVERITY_WARNING = "warning"

Number = Decimal | float | int


class VerificationInputError(ValueError):
    """Claims or evidence that cannot be verified as given (a bad count, an unknown choice)."""


@dataclass(frozen=True)
class Claims:
    """What the vendor claims for one candidate: the offering's fields plus the node count.

    Quantities keep the portal's units: GB/s for NVMe and distributed-FS bandwidth (Decimal or
    float; None = not claimed), Gb/s per port for the fabric, GiB per GPU for memory.
    ``nvme_read_iops`` / ``nvme_write_iops`` are random 4 KiB IOPS per node (None = not
    claimed; read from the offering when it has such fields).
    """

    gpu_model: str
    gpus_per_node: int
    gpu_memory_gib: int
    gpu_form_factor: str = "other"
    nvlink_topology: str = "none"
    fabric: str = "none"
    fabric_rate_gbit_s: int = 0
    nics_per_node: int = 0
    node_count: int = 1
    nvme_capacity_tib: Number | None = None
    nvme_read_gbyte_s: Number | None = None
    nvme_write_gbyte_s: Number | None = None
    nvme_read_iops: Number | None = None
    nvme_write_iops: Number | None = None
    distributed_fs: str = ""
    distributed_fs_bandwidth_gbyte_s: Number | None = None
    logical_cpus_per_node: int | None = None
    delivery_form: str = "bare_metal"
    # The GPUs of one NVLink domain (OfferingFacts.nvlink_domain_gpus; 0 or None: the node).
    nvlink_domain_gpus: int | None = 0

    def __post_init__(self) -> None:
        if self.gpus_per_node < 1:
            raise VerificationInputError(
                f"gpus_per_node must be at least 1, got {self.gpus_per_node}"
            )
        if self.nvlink_domain_gpus is None:
            object.__setattr__(self, "nvlink_domain_gpus", 0)
        problem = nvlink_domain_problem(self.nvlink_domain_gpus, self.gpus_per_node)
        if problem is not None:
            raise VerificationInputError(problem[0])
        if self.node_count < 1:
            raise VerificationInputError(f"node_count must be at least 1, got {self.node_count}")
        if self.gpu_memory_gib < 0:
            raise VerificationInputError(
                f"gpu_memory_gib cannot be negative, got {self.gpu_memory_gib}"
            )
        for name, value, allowed in (
            ("gpu_form_factor", self.gpu_form_factor, FORM_FACTORS),
            ("nvlink_topology", self.nvlink_topology, NVLINK_TOPOLOGIES),
            ("fabric", self.fabric, FABRICS),
        ):
            if value not in allowed:
                raise VerificationInputError(
                    f"{name} must be one of {', '.join(allowed)}; got {value!r}"
                )
        if self.fabric_rate_gbit_s < 0 or self.nics_per_node < 0:
            raise VerificationInputError("fabric_rate_gbit_s and nics_per_node cannot be negative")


@dataclass(frozen=True)
class NodeEvidence:
    """The parsed metrics of one evidence file from one node (one upload may hold several).

    ``metrics`` is the parser's metrics dict for ``kind``; ``source`` names the file inside the
    upload and ``line`` the 1-based line the key figure was read from, when known.
    """

    node_name: str
    upload_id: int | str | None
    kind: str
    metrics: Mapping[str, Any]
    source: str = ""
    line: int | None = None
    # When the file was measured (ISO time, from the upload's own timestamps), None when not
    # known: kept beside the reference, never in it, so references stay stable.
    measured_at: str | None = None

    @property
    def ref(self) -> str:
        """A short human-readable pointer: node, file, line and upload."""
        text = f"{self.node_name}: {self.source or self.kind}"
        if self.line is not None:
            text += f" line {self.line}"
        if self.upload_id is not None:
            text += f" (upload {self.upload_id})"
        return text

    def at_line(self, line: int | None) -> NodeEvidence:
        """The same evidence pointing at ``line`` of its file (itself when ``line`` is None):
        for a finding read elsewhere than the key figure, such as a later table's wrong row."""
        return self if line is None else replace(self, line=line)

    @property
    def ref_zh(self) -> str:
        """``ref`` for the Chinese wording: the same pointer, its words in Chinese."""
        text = f"{self.node_name}：{self.source or self.kind}"
        if self.line is not None:
            text += f" 第 {self.line} 行"
        if self.upload_id is not None:
            text += f"（上传 {self.upload_id}）"
        return text


@dataclass(frozen=True)
class ItemVerification:
    """The verdict on one checklist item, with the evidence, tolerance and bilingual reasons."""

    item_key: str
    status: str
    explanation_en: str
    explanation_zh: str
    evidence_ref: str | None = None
    tolerance: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    tolerance_zh: str | None = None  # the tolerance clause in Chinese


@dataclass(frozen=True)
class Signal:
    """One observation that points towards bare metal or virtualisation, with its weight 0..1."""

    name: str
    points_to: str
    weight: float
    evidence_ref: str | None
    explanation_en: str
    explanation_zh: str
    node_name: str | None = None


@dataclass(frozen=True)
class BareMetalVerdict:
    """Is the delivery really bare metal? A verdict with a confidence, never a bare boolean.

    ``confidence`` (0..1) is the strength of the evidence for ``verdict``; for "uncertain" it
    is the stronger of the two scores, which stayed below the decision threshold.
    ``bare_metal_score`` only falls when a virtual signal is added.
    """

    verdict: str
    confidence: float
    signals: tuple[Signal, ...]
    bare_metal_score: float
    virtual_score: float
    explanation_en: str
    explanation_zh: str


@dataclass(frozen=True)
class Fault:
    """A defect the evidence shows (a port down, wrong results, ECC errors...)."""

    kind: str
    node_name: str
    severity: str
    evidence_ref: str | None
    explanation_en: str
    explanation_zh: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VerificationReport:
    """Everything verification concluded for one candidate.

    ``items`` holds all ten checklist keys. ``busbw`` judges the measured all-reduce bus
    bandwidth against ``expected_busbw``; ``busbw_fraction`` is measured / expected (None
    without a usable nccl-tests all_reduce run, or when the candidate has two or more nodes
    and no usable run spans two: a one-node run measures NVLink only, and its fraction is
    ``nvlink_busbw_fraction``). ``collectives`` holds the same check for the alltoall and
    all_gather runs present ({"alltoall": ..., "all_gather": ...}; details carry
    measured_gbyte_s, expected_gbyte_s, fraction and covers_interconnect).
    """

    items: Mapping[str, ItemVerification]
    busbw: ItemVerification
    busbw_fraction: float | None
    expected_busbw: ExpectedBusbw | None
    bare_metal: BareMetalVerdict
    faults: tuple[Fault, ...]
    nvlink_busbw_fraction: float | None = None
    collectives: Mapping[str, ItemVerification] = field(default_factory=dict)
    # The one-node run ``nvlink_busbw_fraction`` was read from.
    nvlink_busbw_ref: str | None = None
    # Nodes whose evidence shows no NVIDIA GPU (nor an NPU of a candidate declared with an
    # Ascend part), left out of every verdict (gpu_nodes.py).
    set_aside_nodes: tuple[str, ...] = ()
    # Nodes whose npu-smi or lspci shows an Ascend NPU, for a candidate declared with a Huawei
    # Ascend part: its accelerator nodes, never set aside, judged as GPU nodes are, and the
    # stability facts read their NPUs' health and ECC counts (facts.py). Empty for any other
    # GPU: npu-smi from a machine with Ascend NPUs says nothing of an NVIDIA offering.
    npu_nodes: tuple[str, ...] = ()
    # The nodes the candidate has (Claims.node_count): fleet figures read over node names are
    # judged on their worst node when the evidence names more nodes than that (facts.py).
    node_count: int | None = None
