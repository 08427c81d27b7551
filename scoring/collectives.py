"""The TCO's efficiency in rubric v2: what a job's collectives cost its throughput.

The cost per effective GPU-hour divides by an efficiency. Rubric v2 builds it from three parts:
- the delivery form's efficiency at the scale (the scale rule: virtualisation overhead and lost
  fabric control, relative to bare metal; DESIGN §2);
- c, the share of a step the job spends in collectives it cannot hide, by workload and the
  job's GPUs (rubric scale_rules.collective_share_pct: 15 % for pre-training across nodes,
  5 % inside one node, nothing on one GPU);
- a, the bandwidth those collectives get as a share of a cluster on the GPU generation's
  reference fabric (one NIC per GPU at the rate of NVIDIA's DGX systems,
  reference.REFERENCE_FABRIC_GBIT_S_PER_GPU).

Efficiency = scale x 1 / ((1 - c) + c / a): the collectives take 1/a as long, the rest of the
step does not change (a at or above 1 costs nothing). a is read, best evidence first:
- a job spanning nodes with an all-reduce measured across nodes: the measured peak bus bandwidth
  over what the reference fabric should reach on the same nodes (an absolute figure: it does not
  depend on what the vendor declared). The peak counts at most the ring's limit of the declared
  system on those nodes (its fabric, NICs x rate per node, and NVLink: the verification's
  expected value, else reference.expected_busbw_gbyte_s of the declared fabric): on 2 nodes
  NCCL's default tree/NVLS-tree "can indeed go beyond the network bottleneck" (sjeaugey,
  NVIDIA/nccl-tests#196), a gain that fades at scale, so 8 x 200 Gb/s Ethernet measured at
  338.8 GB/s that way no longer costs like 8 x 400 Gb/s NDR;
- a job whose full GPUs fit in one declared NVLink domain larger than a node (GB200 NVL72,
  offering.nvlink_domain_gpus; MIG slices never use NVLink): the all-reduce fraction alone, as
  inside one node (a run inside the domain is judged against NVLink, never against the tray
  fabric's reference). This assumes the scheduler places the job within one domain, and says
  so; the network dimension keeps scoring the tray fabric (its rules are deliberately
  conservative about domains). A job spanning several domains is priced by the fabric;
- otherwise, across nodes: the all-reduce fraction of the declared system (measured on one node,
  or the form's assumed fraction) times the declared fabric's share of the reference. Both
  fabrics are counted as what a ring reaches over them on the GPU, bounded inside the node by
  NVLink (reference.expected_busbw_gbyte_s): on H800 (a ring's 160 GB/s) 4 x 400 Gb/s carries
  all a ring uses, as 8 x 400 does. The share is a claim until checklist item 3 ("fabric") is
  verified, and ibstat's slower rate and down ports replace the claim where they are worse
  (scoring.fabric_share counts it);
- across nodes on an accelerator without NVIDIA's reference figures (Huawei Ascend, AMD
  Instinct: reference.other_accelerator): the form's assumed fraction (an HCCL or RCCL run has
  no expectation to be judged against, so a stored fraction is not read) times the declared
  fabric's share of a stand-in reference, the most demanding the table holds
  (reference.STAND_IN_FABRIC_GBIT_S_PER_GPU, one NIC per GPU, no NVLink bound), which the
  TCO states as an assumption. Its fabric used to go unpriced (health alone): an Ascend on one
  25 Gb/s Ethernet port per node kept 0.9524 where an unmeasured H20 on the same port got
  0.0255, so being unmeasurable paid. Against the most demanding reference it never gets more
  than an unmeasured NVIDIA GPU declaring the same fabric (an NVIDIA GPU's share is at least
  its fabric over its own, smaller or equal, reference, and NVLink's bound only raises it);
- inside one node: the all-reduce fraction alone (NVLink is the fabric).

Before (expert review finding 1) the efficiency was the all-reduce fraction of the declared
system, counted in full as if a step were all communication, and the fabric's size did not
count: two 200 Gb/s ports at 95 % of their small expectation cost less per effective GPU-hour
than eight 400 Gb/s ports at 82 % of a far larger one. Every TCO states its collective line
(Tco.assumptions, code "collectives"). Monotone: more ports, a faster rate, a better measured
fraction, a verified claim or a smaller share never lower the efficiency.

A later expert review (collectives) found the three defects the ring limit, the NVLink domain
and the NVLink-bounded share above fix: a 2-node tree taken as fabric capacity, an NVL72 job
priced by its tray fabric, and an H800's 4 x 400 Gb/s counted as half of 8 x 400.

scoring/ stays free of Django: this module reads the scoring inputs and the rubric only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .fabric_share import NO_FABRIC_GBIT_S, Fabric, declared_fabric
from .reference import (
    NET_RDMA_EFFICIENCY,
    STAND_IN_FABRIC_FAMILY,
    STAND_IN_FABRIC_GBIT_S_PER_GPU,
    STAND_IN_FABRIC_SOURCE,
    GpuSpec,
    expected_busbw_gbyte_s,
    gpu_family_of,
    nvlink_domain_size,
    other_accelerator,
    reference_fabric,
)
from .rubric import Rubric
from .types import CandidateInput, EvaluationSpec, OfferingFacts, ScoringInputError

_WORKLOADS = {
    "pretraining": ("pre-training", "预训练"),
    "finetuning": ("fine-tuning", "微调"),
    "inference": ("inference", "推理"),
    "development": ("development", "开发"),
}


def scale_gpus(gpu_count: int, evaluation: EvaluationSpec, rubric: Rubric) -> int:
    """The GPUs the scale rule judges a delivery form at: rubric v2, the GPUs the job runs on
    (the requirement, at most the ``gpu_count`` delivered: surplus GPUs carry no traffic;
    expert review F6); rubric v1, every delivered GPU (kept for replay)."""
    if rubric.v2 is None:
        return gpu_count
    return min(gpu_count, evaluation.required_total_gpus)


def gpus_per_node_equivalent(offering: OfferingFacts, rubric: Rubric) -> float:
    """A node's GPUs in full-GPU equivalents (rubric v2 counts MIG slices by their fraction)."""
    if offering.mig_profile and rubric.v2 is not None:
        try:
            return offering.gpus_per_node * rubric.gpu_fraction(
                offering.gpu_model, offering.mig_profile
            )
        except ScoringInputError:
            pass  # disqualified by the mig_profile knockout; counted as whole GPUs
    return float(offering.gpus_per_node)


@dataclass(frozen=True)
class Collectives:
    """The parts of one candidate's efficiency (see the module docstring).

    ``source`` says where ``bandwidth`` (a) came from: "across_nodes" (the measured peak, at
    most ``ring_limit_gbyte_s``, over the reference's expected: ``peak_gbyte_s`` /
    ``reference_gbyte_s`` on ``nodes``), "declared" (``health`` x the counted fabric share,
    ``fabric``), "one_node" (``health``), "nvlink_domain" (``health``: the job fits in one
    NVLink domain of ``domain_gpus`` GPUs across nodes), "no_collective" (one GPU: c is 0),
    "stand_in" (an accelerator without NVIDIA's reference figures, across nodes: ``health``, the
    form's assumption, x the counted fabric share against the stand-in reference) or
    "unreferenced" (an NVIDIA or unknown GPU with no reference fabric: ``health`` alone, across
    nodes).
    ``basis`` is the health fraction's: "measured" or "assumed". ``ring_limit_gbyte_s`` is
    set where it capped the measured peak (a tree on few nodes beyond the ring's bound)."""

    efficiency: float
    basis: str
    scale: float
    health: float
    comm_share: float
    bandwidth: float
    throughput: float
    source: str
    job_gpus: int
    workload: str
    gpu_family: str
    reference_gbit_s: int | None = None
    reference_source: str = ""
    fabric: Fabric | None = None
    peak_gbyte_s: float | None = None
    reference_gbyte_s: float | None = None
    nodes: int | None = None
    ring_limit_gbyte_s: float | None = None
    domain_gpus: int | None = None

    def assumption(self) -> tuple[str, str, str] | None:
        """The line Tco.assumptions() shows (code "collectives"): (code, English, Chinese),
        or None when the collectives cost nothing and nothing was assumed about them."""
        workload_en, workload_zh = _WORKLOADS.get(self.workload, (self.workload,) * 2)
        if self.source == "no_collective":
            return None
        health_en = f"{self.health:.0%} of the expected all-reduce"
        health_zh = f"预期 all-reduce 的 {self.health:.0%}"
        if self.source == "stand_in":
            health_en += (
                f" (assumed: {self.gpu_family} has no nccl-tests reference, so no all-reduce "
                "run can be judged)"
            )
            health_zh += (
                f"（假定：{self.gpu_family} 没有 nccl-tests 参考值，无法评判 all-reduce 实测）"
            )
        elif self.basis == "assumed":
            health_en += " (assumed: no all-reduce was measured)"
            health_zh += "（假定：未测量 all-reduce）"
        else:
            health_en += " (measured)"
            health_zh += "（实测）"
        if self.source == "across_nodes":
            capped_en = capped_zh = ""
            limit = self.ring_limit_gbyte_s
            if limit is not None:
                capped_en = (
                    f"; counted at the declared system's ring limit of {limit:.1f} GB/s (its "
                    f"fabric and NVLink): a tree all-reduce on {self.nodes} nodes exceeds what a "
                    "ring reaches at scale"
                )
                capped_zh = (
                    f"，按所声明系统（网络与 NVLink）的环形上限 {limit:.1f} GB/s 计：{self.nodes} "
                    "个节点上的树形 all-reduce 会超出环形算法在大规模下所能达到的带宽"
                )
            how_en = (
                f"the all-reduce measured {self.peak_gbyte_s:.1f} GB/s on {self.nodes} nodes "
                f"against {self.reference_gbyte_s:.1f} GB/s the reference fabric (one "
                f"{self.reference_gbit_s} Gb/s NIC per GPU) should reach there{capped_en}"
            )
            how_zh = (
                f"all-reduce 在 {self.nodes} 个节点上实测 {self.peak_gbyte_s:.1f} GB/s，参考网络"
                f"（每块 GPU 一块 {self.reference_gbit_s} Gb/s 网卡）在同样节点上应达 "
                f"{self.reference_gbyte_s:.1f} GB/s{capped_zh}"
            )
        elif self.source == "nvlink_domain":
            if self.basis == "measured":
                health_en = health_en.replace("(measured)", "(measured against NVLink's bound)")
                health_zh = health_zh.replace("（实测）", "（实测，对照 NVLink 上限）")
            how_en = (
                f"{health_en}, inside one NVLink domain of {self.domain_gpus} GPUs (NVLink is the "
                "fabric): assumes the scheduler places the job within one domain; the network "
                "dimension still scores the fabric between the trays"
            )
            how_zh = (
                f"{health_zh}，位于一个 {self.domain_gpus} GPU 的 NVLink 域内（NVLink 即网络）："
                "假定调度器将任务放在同一个域内；网络维度仍对托盘之间的网络评分"
            )
        elif self.source in ("declared", "stand_in") and self.fabric is not None:
            how_en, how_zh = self._declared(health_en, health_zh)
        elif self.source == "unreferenced":
            how_en = (
                f"{health_en}; the rubric has no reference fabric for {self.gpu_family}, so the "
                "size of the fabric is not priced (the network dimension still scores it)"
            )
            how_zh = (
                f"{health_zh}；评分细则没有 {self.gpu_family} 的参考网络，未计入网络规模"
                "（网络维度仍对其评分）"
            )
        else:
            how_en, how_zh = f"{health_en}, inside one node", f"{health_zh}（单节点内）"
        return (
            "collectives",
            f"an assumed {self.comm_share:.1%} of {workload_en} step time at {self.job_gpus} "
            f"GPUs goes to collectives, which get {self.bandwidth:.1%} of the bandwidth of a "
            f"cluster on the reference fabric ({how_en}): throughput {self.throughput:.3f} "
            f"x the delivery form's {self.scale:.3f} = efficiency {self.efficiency:.4f}",
            f"假定 {self.job_gpus} 块 GPU 的{workload_zh}每步有 {self.comm_share:.1%} 的时间"
            f"用于集合通信，其带宽为参考网络集群的 {self.bandwidth:.1%}（{how_zh}）：吞吐 "
            f"{self.throughput:.3f} × 交付形态系数 {self.scale:.3f} = 效率 {self.efficiency:.4f}",
        )

    def _declared(self, health_en: str, health_zh: str) -> tuple[str, str]:
        """The fabric clause: against the GPU's reference, or ("stand_in") against the
        stand-in reference, said to be an assumption."""
        fabric = self.fabric
        assert fabric is not None  # noqa: S101 - only called with a fabric
        what_en, what_zh = fabric.described()
        if self.source != "stand_in":
            return (
                f"{health_en} x the declared fabric's {fabric.share:.1%} of the reference, one "
                f"{self.reference_gbit_s} Gb/s NIC per GPU ({what_en})",
                f"{health_zh} × 所声明网络达到参考网络（每块 GPU 一块 {self.reference_gbit_s} "
                f"Gb/s 网卡）的 {fabric.share:.1%}（{what_zh}）",
            )
        return (
            f"{health_en} x the declared fabric's {fabric.share:.1%} of a stand-in reference, "
            f"one {self.reference_gbit_s} Gb/s NIC per GPU ({what_en}); an assumption: no "
            f"reference fabric exists for {self.gpu_family}, so its fabric is judged against "
            f"the most demanding reference the rubric holds ({STAND_IN_FABRIC_FAMILY}) and "
            "never counts above an NVIDIA GPU's on the same fabric",
            f"{health_zh} × 所声明网络达到替代参考网络（每块 GPU 一块 {self.reference_gbit_s} "
            f"Gb/s 网卡）的 {fabric.share:.1%}（{what_zh}）；此为假定：{self.gpu_family} 没有"
            f"参考网络，其网络按评分细则中要求最高的参考（{STAND_IN_FABRIC_FAMILY}）评判，"
            "绝不高于同一网络上 NVIDIA GPU 的计入值",
        )


def throughput_kernel(
    health: np.ndarray,
    across: np.ndarray,
    peak: np.ndarray,
    reference: np.ndarray,
    share: np.ndarray,
    comm: np.ndarray,
    scale: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(efficiency, a, throughput) per candidate, elementwise: the one arithmetic both the
    exact TCO (one candidate) and the ranking's columns run, so their figures are equal."""
    # A zero bandwidth divides by zero and an extreme measurement overflows; both are settled
    # by the np.where below (no bandwidth: no throughput; a share above 1: no slowdown).
    with np.errstate(all="ignore"):
        bandwidth = np.where(across, np.minimum(peak / reference, 1.0), health * share)
        slowed = 1.0 / ((1.0 - comm) + comm / bandwidth)
    throughput = np.where(
        (comm <= 0.0) | (bandwidth >= 1.0), 1.0, np.where(bandwidth > 0.0, slowed, 0.0)
    )
    return scale * throughput, bandwidth, throughput


@dataclass(frozen=True)
class Shape:
    """What a job's collectives read of an offering's node shape (its GPU model, GPUs per node,
    MIG profile and NVLink domain): shared by every candidate of that shape in a batch."""

    per_node: float  # GPUs per node in full-GPU equivalents
    spans_nodes: bool  # the job's GPUs do not fit in one node
    gpu_family: str
    spec: GpuSpec | None  # None: no reference fabric for the GPU
    reference_gbit_s: int | None  # the stand-in's where ``stand_in``
    reference_source: str
    # The NVLink domain (GPUs, larger than a node) the job's full GPUs fit in, else 0.
    domain_gpus: int = 0
    # A ring's bound inside a node on the GPU (reference.expected_busbw_gbyte_s, GB/s), None
    # where no NVLink or PCIe ring bounds it (one GPU per node, MIG slices, no reference).
    nvlink_gbyte_s: float | None = None
    # An accelerator without NVIDIA's reference figures (reference.other_accelerator): its
    # fabric is judged against the stand-in reference, its stored all-reduce fraction unread.
    stand_in: bool = False

    @property
    def in_domain(self) -> bool:
        """Whether the job spans nodes yet fits in one NVLink domain (NVLink is its fabric)."""
        return self.spans_nodes and self.domain_gpus > 0

    @property
    def declared(self) -> bool:
        """Whether the job's collectives cross a fabric the rubric prices against a reference
        (the GPU's, or the stand-in for an accelerator without one)."""
        return self.spans_nodes and not self.in_domain and (self.spec is not None or self.stand_in)

    @property
    def reference(self) -> float:
        """The reference fabric's bandwidth per node, in Gb/s at RDMA's share."""
        assert self.reference_gbit_s is not None  # noqa: S101 - a referenced shape only
        return self.per_node * self.reference_gbit_s * NET_RDMA_EFFICIENCY


def node_shape(offering: OfferingFacts, evaluation: EvaluationSpec, rubric: Rubric) -> Shape:
    """The offering's Shape for ``evaluation``'s job."""
    per_node = gpus_per_node_equivalent(offering, rubric)
    spans = evaluation.required_total_gpus > per_node
    domain = 0
    if spans and not offering.mig_profile:
        # MIG slices never use NVLink, so only full GPUs share a domain.
        size = nvlink_domain_size(offering.nvlink_domain_gpus, offering.gpus_per_node)
        if size > offering.gpus_per_node and evaluation.required_total_gpus <= size:
            domain = size
    found = reference_fabric(offering.gpu_model, offering.gpu_form_factor, offering.gpu_memory_gib)
    if found is None:
        family = gpu_family_of(offering.gpu_model) or offering.gpu_model
        if other_accelerator(offering.gpu_model) is not None:
            return Shape(
                per_node,
                spans,
                family,
                None,
                STAND_IN_FABRIC_GBIT_S_PER_GPU,
                STAND_IN_FABRIC_SOURCE,
                domain,
                stand_in=True,
            )
        return Shape(per_node, spans, family, None, None, "", domain)
    spec, per_gpu, source = found
    nvlink = None
    if not offering.mig_profile:
        ranks = max(1, round(per_node))
        inside = expected_busbw_gbyte_s(spec, ranks, 1, _reference_topology(spec), "none", 0, 0)
        nvlink = None if inside is None else inside.value_gbyte_s
    return Shape(per_node, spans, spec.family, spec, per_gpu, source, domain, nvlink)


def _reference_topology(spec: GpuSpec) -> str:
    """The NVLink topology the reference system of ``spec`` has (an SXM board: full mesh)."""
    return "full_mesh" if spec.nvlink_links and spec.form_factor != "pcie" else "none"


def across_reference(shape: Shape, nodes: int) -> float | None:
    """The all-reduce busbw (GB/s) the reference fabric should reach on ``nodes`` nodes of
    ``shape``, or None (no reference, or no bound applies)."""
    spec, per_gpu = shape.spec, shape.reference_gbit_s
    if spec is None or per_gpu is None or nodes < 2:
        return None
    ranks = max(1, round(shape.per_node))
    topology = _reference_topology(spec)
    expected = expected_busbw_gbyte_s(spec, ranks, nodes, topology, "infiniband", per_gpu, ranks)
    if expected is None or expected.value_gbyte_s <= 0:
        return None
    return expected.value_gbyte_s


def ring_limit(candidate: CandidateInput, shape: Shape, nodes: int) -> float:
    """The all-reduce busbw (GB/s) a ring should reach on ``nodes`` (>= 2) nodes of the
    declared system (its fabric, NICs x rate per node, and NVLink): the verification's expected
    value where known, else reference.expected_busbw_gbyte_s of the offering's declared
    fabric, never below the front-end port every node has. A measured peak counts at most
    this: on few nodes a tree (or NVLS-tree) all-reduce goes beyond the network's bound
    (sjeaugey, NVIDIA/nccl-tests#196), a gain that fades at scale. ``shape`` must have a
    GPU spec (Shape.declared)."""
    known = candidate.measured.expected_busbw_gbyte_s
    if known:
        return known
    offering, spec = candidate.offering, shape.spec
    assert spec is not None  # noqa: S101 - a referenced shape only
    ranks, topology = offering.gpus_per_node, offering.nvlink_topology
    bounds = (
        expected_busbw_gbyte_s(
            spec,
            ranks,
            nodes,
            topology,
            offering.fabric,
            offering.fabric_rate_gbit_s,
            offering.nics_per_node,
        ),
        expected_busbw_gbyte_s(spec, ranks, nodes, topology, "ethernet", NO_FABRIC_GBIT_S, 1),
    )
    return max(bound.value_gbyte_s for bound in bounds if bound is not None)


def measured_across(candidate: CandidateInput) -> int | None:
    """The nodes an all-reduce measured across (two or more, with its peak), or None."""
    measured = candidate.measured
    nodes = measured.busbw_nodes
    if nodes is None or nodes < 2 or measured.peak_busbw_gbyte_s is None:
        return None
    return nodes


def comm_share(evaluation: EvaluationSpec, rubric: Rubric) -> float:
    """c: the share of a step the evaluation's job spends in collectives (rubric v2)."""
    return rubric.scale.collective_share(
        evaluation.required_total_gpus, evaluation.workload_profile
    )


def health_of(
    candidate: CandidateInput, assumed: float, referenced: bool = True
) -> tuple[float, str]:
    """The all-reduce fraction of the declared system and its basis: measured (capped at 1),
    a one-GPU candidate's host<->device fraction where it reaches the assumption, or the
    form's ``assumed`` fraction. Not ``referenced`` (Shape.stand_in: no nccl-tests
    expectation exists for the part), a stored all-reduce fraction is not read, as the
    network dimension does not read it (rubric measurable_if)."""
    measured = candidate.measured
    fraction = measured.busbw_fraction if referenced else None
    if fraction is not None:
        return min(fraction, 1.0), "measured"
    host = measured.host_device_fraction
    if candidate.gpu_count == 1 and host is not None and host >= assumed:
        # No collective runs on one GPU: its measured path is the host<->device copy against
        # its PCIe generation; counted only where it reaches the assumption.
        return host, "measured"
    return assumed, "assumed"


def scale_and_assumed(
    candidate: CandidateInput, evaluation: EvaluationSpec, rubric: Rubric, form: str
) -> tuple[float, float]:
    """The delivery form's scale-rule efficiency at the job's GPUs and its assumed all-reduce
    fraction (what an unmeasured candidate is taken to reach)."""
    policy = rubric.v2
    assert policy is not None  # noqa: S101 - rubric v2 only
    gpus = scale_gpus(candidate.gpu_count, evaluation, rubric)
    scale = rubric.scale.efficiency(form, gpus, evaluation.workload_profile)
    return scale, policy.form(form).assumed_busbw_fraction


def collectives(
    candidate: CandidateInput, evaluation: EvaluationSpec, rubric: Rubric, form: str
) -> Collectives:
    """The candidate's efficiency and what it rests on (rubric v2; see the module docstring);
    ``form`` is the delivery form the TCO prices (tco.priced_form). The ranking's columns
    (tco.batch._efficiency_caps) compose the same parts, each once per what it reads."""
    scale, assumed = scale_and_assumed(candidate, evaluation, rubric, form)
    comm = comm_share(evaluation, rubric)
    shape = node_shape(candidate.offering, evaluation, rubric)
    health, basis = health_of(candidate, assumed, not shape.stand_in)
    nodes = reference_gbyte_s = fabric = limit = None
    if shape.declared:
        nodes = measured_across(candidate)
        reference_gbyte_s = None if nodes is None else across_reference(shape, nodes)
        fabric = declared_fabric(candidate, rubric, shape.reference, shape.nvlink_gbyte_s)
    across = reference_gbyte_s is not None
    peak = candidate.measured.peak_busbw_gbyte_s if across else 0.0
    counted_peak = peak
    if across and nodes is not None:
        limit = ring_limit(candidate, shape, nodes)
        counted_peak = min(peak, limit)
    share = 1.0 if fabric is None else fabric.counted
    efficiency, bandwidth, throughput = (
        float(value[0])
        for value in throughput_kernel(
            *_arrays(health, across, counted_peak, reference_gbyte_s or 1.0, share, comm, scale)
        )
    )
    if comm <= 0.0:
        source = "no_collective"
    elif across:
        source = "across_nodes"
    elif shape.declared:
        source = "stand_in" if shape.stand_in else "declared"
    elif shape.in_domain:
        source = "nvlink_domain"
    elif shape.spans_nodes:
        source = "unreferenced"
    else:
        source = "one_node"
    return Collectives(
        efficiency,
        basis,
        scale,
        health,
        comm,
        bandwidth,
        throughput,
        source,
        evaluation.required_total_gpus,
        evaluation.workload_profile,
        shape.gpu_family,
        shape.reference_gbit_s if shape.declared else None,
        shape.reference_source if shape.declared else "",
        fabric,
        peak if across else None,
        reference_gbyte_s,
        nodes if across else None,
        limit if limit is not None and peak > limit else None,
        shape.domain_gpus if shape.in_domain else None,
    )


def _arrays(*values: Any) -> list[np.ndarray]:
    return [
        np.array([value], dtype=float if not isinstance(value, bool) else bool) for value in values
    ]
