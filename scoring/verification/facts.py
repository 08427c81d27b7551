"""Measured facts: what a candidate's verified evidence showed, in scoring's terms.

Pure functions over ``NodeEvidence`` and a ``VerificationReport`` (no database): the portal maps
its upload rows to ``NodeEvidence`` with :func:`evidence_from_report` and stores
:func:`verification_summary` on the candidate; :func:`measured_from_summary` reads it back.

Every figure is read from the same verdict verification reached, so scoring and the checklist
never disagree: the NVLink topology is the worst node's (degraded when that node's links are
down), the bus bandwidth comes from the run the busbw check judged (never a foreign or
implausible run, and for a candidate of two or more nodes only a run spanning two), NVMe
bandwidth from sequential large-block fio jobs only, on the worst node, fabric ports from the
compute rails, Xid/SXid on the worst node.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from decimal import Decimal
from typing import Any

from ..reference import host_link, match_gpu
from ..types import MeasuredFacts
from ._util import as_float, as_int, as_list
from .bare_metal import delivery_form_seen
from .gpu import worse_topology
from .gpu_nodes import gpu_nodes
from .health import (
    MEMORY_FAILURE_METRICS,
    MEMORY_PENDING_METRICS,
    XID_NODE_AFFECTED,
    dcgm_stress_tested,
    memory_flag,
    node_gpu_errors,
    node_npu_errors,
)
from .model import NodeEvidence, VerificationReport
from .network import ALL_GATHER, ALLTOALL, rail_layers
from .storage import worst_node_bandwidth

DCGM_SEVERITY = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}
# The two memory facts and the nvidia-smi -q flags each counts (a file counts once when any
# says Yes): Blackwell's channel/TPC repair and unrepairable-memory flags, and the SRAM RMA
# threshold, fold into the row-remapping facts; health.py gives NVIDIA's wording for why.
_MEMORY_FACTS = {
    "remapped_rows_pending": MEMORY_PENDING_METRICS,
    "remapped_rows_failure": MEMORY_FAILURE_METRICS,
}
KERNEL_LOG = "kernel_log"
# The nvidia-smi outputs that report GPU memory health, named alike by their parsers: -q and
# -q -x report ECC counts and remapped rows; the plain table's "Volatile Uncorr. ECC" column
# reports the ECC count alone.
MEMORY_KINDS = ("nvidia_smi_query", "nvidia_smi_xml")
# npu-smi -t ecc (Huawei Ascend) names its current double-bit count alike: the same
# uncorrectable errors, read only for a candidate declared with an Ascend part (npu_nodes).
NPU_SMI = "npu_smi"
ECC_KINDS = (*MEMORY_KINDS, "nvidia_smi", NPU_SMI)


def evidence_from_report(
    report: Iterable[Mapping[str, Any]], *, node_name: str, upload_id: int | str | None
) -> list[NodeEvidence]:
    """The parsed files of one upload (its report: one entry per file, with ``ok``, ``kind``,
    ``metrics`` and ``file``), as verification reads them; failed files are left out."""
    evidence = []
    for item in report:
        if not isinstance(item, Mapping) or not item.get("ok") or not item.get("kind"):
            continue
        metrics = item.get("metrics")
        evidence.append(
            NodeEvidence(
                node_name=node_name,
                upload_id=upload_id,
                kind=str(item["kind"]),
                metrics=metrics if isinstance(metrics, Mapping) else {},
                source=str(item.get("file") or ""),
            )
        )
    return evidence


def _of(evidence: Iterable[NodeEvidence], kind: str) -> list[NodeEvidence]:
    return [e for e in evidence if e.kind == kind]


def _ref(e: NodeEvidence) -> str:
    return f"upload {e.upload_id} · {e.node_name} · {e.kind} {e.source}".strip()


def _sum_ints(values: Iterable[Any]) -> int | None:
    numbers = [n for v in values for n in (as_int(x) for x in as_list(v)) if n is not None]
    return sum(numbers) if numbers else None


def _of_kinds(evidence: Iterable[NodeEvidence], kinds: tuple[str, ...]) -> list[NodeEvidence]:
    return [e for e in evidence if e.kind in kinds]


def _node_worst_sum(evidence: Iterable[NodeEvidence], weigh: Callable[[NodeEvidence], Any]):
    """Σ over nodes of the largest figure any of the node's files gives (None when no file
    gives one): two tools on one node report the same GPUs' counters, never added up."""
    worst: dict[str, int] = {}
    for e in evidence:
        value = weigh(e)
        if value is not None and value > worst.get(e.node_name, -1):
            worst[e.node_name] = value
    return sum(worst.values()) if worst else None


def _nodes_flagged(evidence: Iterable[NodeEvidence], metrics: Sequence[str]) -> int | None:
    """The nodes where a file says Yes to any of ``metrics`` (memory_flag); None when no file
    reports them."""
    flagged: dict[str, bool] = {}
    for e in evidence:
        flag = memory_flag(e.metrics, metrics)
        if flag is not None:
            flagged[e.node_name] = flagged.get(e.node_name, False) or flag
    return sum(flagged.values()) if flagged else None


def _ecc_count(e: NodeEvidence) -> int | None:
    return _sum_ints([e.metrics.get("ecc_volatile_uncorrected")])


def _count_true(values: Iterable[Any]) -> int | None:
    seen = [v for v in values if v is not None]
    if not seen:
        return None
    return sum(1 for v in seen if v is True or (isinstance(v, int | float) and v > 0))


def _nvlink_topology(report: VerificationReport) -> str | None:
    """The worst node's delivered topology, as the nvlink_topology verdict judged it."""
    item = report.items.get("nvlink_topology")
    nodes = (item.details or {}).get("nodes") if item is not None else None
    worst = None
    for node in (nodes or {}).values():
        topology = node.get("effective_topology") if isinstance(node, Mapping) else None
        if topology in ("full_mesh", "grouped", "none"):
            worst = topology if worst is None else worse_topology(worst, topology)
    return worst


def _kernel_log(evidence: list[NodeEvidence], refs: dict[str, str]) -> tuple[int | None, ...]:
    """(Xid count, SXid count) summed over the nodes' kernel logs; None when none was read."""
    xid = sxid = None
    for e in _of(evidence, KERNEL_LOG):
        count = as_int(e.metrics.get("xid_count"))
        if count is None:
            # Only the codes listed: each listed code is one event.
            codes = [c for c in (as_int(x) for x in as_list(e.metrics.get("xid_codes"))) if c]
            count = len(codes) if "xid_codes" in e.metrics else None
        if count is not None and count >= 0:
            xid = (xid or 0) + count
            if count and "xid_errors" not in refs:
                refs["xid_errors"] = _ref(e)
        s_count = as_int(e.metrics.get("sxid_count"))
        if s_count is not None and s_count >= 0:
            sxid = (sxid or 0) + s_count
            if s_count and "sxid_errors" not in refs:
                refs["sxid_errors"] = _ref(e)
    if xid == 0:
        refs.setdefault("xid_errors", _ref(_of(evidence, KERNEL_LOG)[0]))
    return xid, sxid


def _gpu_errors_by_node(
    evidence: list[NodeEvidence], refs: dict[str, str], node_count: int | None = None
) -> tuple[float | None, int | None, float | None]:
    """(worst node's weighted Xid/SXid severity, nodes with hardware-class errors, their share
    of the nodes whose kernel log (or, on an Ascend node, npu-smi health) was read); all None
    without either. The
    share is of at most the candidate's ``node_count`` nodes (at most 1): kernel logs under
    more node names than the candidate has nodes are not more nodes (clean copies of a good
    node's log sent under other names must not dilute a bad node's errors).

    Each node is judged on its own log (several logs of one node, e.g. dmesg and journalctl,
    repeat the same events: the heavier counts); the worst node is named in the reference."""
    per_node: dict[str, tuple[float, NodeEvidence, str]] = {}
    for e in evidence:
        # An Ascend node's npu-smi health is its devices' own fault report (node_npu_errors).
        errors = node_gpu_errors(e) if e.kind == KERNEL_LOG else node_npu_errors(e)
        if errors is None:
            continue
        found = per_node.get(e.node_name)
        if found is None or errors.severity > found[0]:
            per_node[e.node_name] = (errors.severity, e, errors.worst)
    if not per_node:
        return None, None, None
    worst_node = max(sorted(per_node), key=lambda node: per_node[node][0])
    severity, source, worst = per_node[worst_node]
    # The reference names the worst node (in _ref) and its heaviest code.
    refs["xid_severity"] = _ref(source) + (f" · {worst}" if worst else "")
    affected = sum(1 for value, _, _ in per_node.values() if value >= XID_NODE_AFFECTED)
    if affected:
        refs["xid_nodes"] = refs["xid_node_share"] = refs["xid_severity"]
    read = len(per_node) if node_count is None else min(len(per_node), node_count)
    return severity, affected, round(min(affected / read, 1.0), 3)


def _port_label(port: Mapping[str, Any]) -> str:
    """A port's label as the fabric check names its rails (network.fabric: the card, and the
    port number beyond the first)."""
    ca, number = str(port.get("ca") or "?"), as_int(port.get("port"))
    return ca if number in (None, 1) else f"{ca} port {number}"


def _fabric(
    report: VerificationReport, evidence: list[NodeEvidence], refs: dict[str, str]
) -> tuple[int | None, float | None]:
    """(ports not Active, slowest active compute rail's rate) from ibstat.

    With a fabric claimed, the ports down are the compute-rail ports the fabric check found
    down (a management NIC unplugged beside the rails is not a fabric fault); without one,
    every port that is not Active.
    """
    active_rates: list[float] = []
    ports_down = None
    fabric = report.items.get("fabric")
    claimed = (fabric.details or {}).get("claimed_fabric") if fabric is not None else None
    judged = (fabric.details or {}).get("nodes") if fabric is not None else None
    claimed_nics = as_int((fabric.details or {}).get("claimed_nics_per_node")) if fabric else None
    for e in _of(evidence, "ibstat"):
        ports = [p for p in as_list(e.metrics.get("ports")) if isinstance(p, Mapping)]
        # The ports the fabric check took for this node's compute rails: a front-end card of
        # the rails' own link layer (a BlueField-3 200 GbE bond beside ConnectX-7 400G RoCE
        # rails) is left out there, and its rate must not become the slowest rail's here (the
        # explanation said 400 Gb/s per GPU while the network rule read 200).
        node = judged.get(e.node_name) if isinstance(judged, Mapping) else None
        rail_labels = node.get("rail_ports") if isinstance(node, Mapping) else None
        # Only ports of the rails' link layer are compute rails: the Ethernet bond of an
        # InfiniBand node is another network (the fabric item names the ports left out).
        # A node with no active port of the claimed fabric at all (an InfiniBand claim on a
        # RoCE node, which the fabric item contradicts) is read on the fabric it has.
        layers = rail_layers(ports, str(claimed or "none"))
        if layers is not None and not any(
            p.get("state") == "Active" and str(p.get("link_layer") or "").lower() in layers
            for p in ports
        ):
            layers = rail_layers(ports, "none")
            rail_labels = None  # the fabric check judged rails of a fabric the node lacks
        node_rates: list[float] = []
        for port in ports:
            ports_down = ports_down or 0
            rate = as_float(port.get("rate_gbit_s"))
            rail = layers is None or str(port.get("link_layer") or "").lower() in layers
            if rail and isinstance(rail_labels, list):
                rail = _port_label(port) in rail_labels
            if port.get("state") == "Active" and rate:
                if rail:
                    node_rates.append(rate)
            elif port.get("state") != "Active":
                ports_down += 1
                refs.setdefault("ib_ports_down", _ref(e))
        # The claimed NICs are the rails (as _rails counts them): of more ports at the rails'
        # rate or above, the fastest; a spare slower port is no slower rail.
        if claimed_nics and len(node_rates) > claimed_nics:
            node_rates = sorted(node_rates, reverse=True)[:claimed_nics]
        active_rates.extend(node_rates)
    if ports_down is not None and claimed not in (None, "none"):
        down = [f for f in report.faults if f.kind == "port_down"]
        ports_down = len(down)
        refs.pop("ib_ports_down", None)
        if down and down[0].evidence_ref:
            refs["ib_ports_down"] = down[0].evidence_ref
    # Slow management NICs of the same link layer beside the compute rails would read as a
    # slow fabric: only ports at least half as fast as the fastest active rail count. A rail the
    # fabric check found running below the claimed rate (a 400G card at 100) still counts.
    rails = [r for r in active_rates if r >= max(active_rates, default=0) / 2]
    rails += [
        rate
        for f in report.faults
        if f.kind == "port_rate_low" and (rate := as_float(f.details.get("rate_gbit_s")))
    ]
    if rails and "ib_rate_gbit_s_min" not in refs:
        slow = [f for f in report.faults if f.kind == "port_rate_low" and f.evidence_ref]
        if slow:
            refs["ib_rate_gbit_s_min"] = slow[0].evidence_ref or ""
    return ports_down, (min(rails) if rails else None)


def _rails(
    report: VerificationReport, evidence: list[NodeEvidence], refs: dict[str, str]
) -> int | None:
    """The fewest compute rails Active on any node whose ibstat the fabric check judged (the
    claimed NICs at most: a port the vendor did not offer as a rail is not one), None where
    it judged no ibstat; the reference names that node's ibstat. A node whose listing was cut
    short (fabric's listing_cut_at) shows a lower bound only, and is not counted: its rails
    seen so far are not the rails it has."""
    item = report.items.get("fabric")
    nodes = (item.details or {}).get("nodes") if item is not None else None
    claimed = as_int((item.details or {}).get("claimed_nics_per_node")) if item else None
    counts = {
        name: count
        for name, node in (nodes or {}).items()
        if isinstance(node, Mapping)
        and not node.get("listing_cut_at")
        and (count := as_int(node.get("active_rail_ports"))) is not None
    }
    if not counts:
        return None
    worst = min(sorted(counts), key=counts.__getitem__)
    source = next((e for e in _of(evidence, "ibstat") if e.node_name == worst), None)
    if source is not None:
        refs["ib_rails_min"] = _ref(source)
    rails = counts[worst]
    return min(rails, claimed) if claimed else rails


def _collective(
    report: VerificationReport, name: str, refs: dict[str, str]
) -> tuple[float | None, float | None]:
    """(peak GB/s, fraction) of an alltoall / all_gather check covering the interconnect."""
    item = report.collectives.get(name)
    if item is None or not (item.details or {}).get("covers_interconnect"):
        return None, None
    details = item.details
    if item.evidence_ref:
        refs[f"{name.replace('_', '')}_busbw_fraction"] = item.evidence_ref
    return as_float(details.get("measured_gbyte_s")), as_float(details.get("fraction"))


def _gpu_name(e: NodeEvidence, evidence: list[NodeEvidence]) -> str | None:
    """The GPU model an nvbandwidth run measured: its own device list, else the name
    nvidia-smi printed on the same node (the table's, -L's and -q -x's ``gpu_names``, -q's
    ``product_names``)."""
    names = as_list(e.metrics.get("device_names"))
    if names:
        return str(names[0])
    for other in evidence:
        if other.node_name == e.node_name and other.kind.startswith("nvidia_smi"):
            m = other.metrics
            found = (
                as_list(m.get("gpu_names"))
                or as_list(m.get("product_names"))
                or [
                    g.get("name") or g.get("product_name")
                    for g in as_list(m.get("gpus"))
                    if isinstance(g, Mapping)
                ]
            )
            if found and found[0]:
                return str(found[0])
    return None


def host_device_fraction(evidence: list[NodeEvidence], refs: dict[str, str]) -> float | None:
    """The worst node's nvbandwidth host<->device copy bandwidth (the lower of the directions
    it measured) over what its GPU's host link carries (reference.host_link): NVLink-C2C
    where the GPU the run names is a Grace superchip's (GH200, GB200), whose copies run at
    six times a PCIe x16 line rate and so read 1.0 against PCIe however degraded their link;
    else the PCIe x16 line rate of its generation, each at its efficiency. None without an
    nvbandwidth copy run on a GPU the reference knows. Rounded to 3 decimals; MeasuredFacts
    caps it at 1.0."""
    worst: tuple[float, NodeEvidence] | None = None
    for e in _of(evidence, "nvbandwidth"):
        copies = [as_float(e.metrics.get(k)) for k in ("h2d_gbyte_s", "d2h_gbyte_s")]
        copies = [c for c in copies if c is not None]
        name = _gpu_name(e, evidence)
        spec = match_gpu(name) if name else None
        if not copies or spec is None:
            continue
        fraction = round(min(copies) / host_link(spec).expected_gbyte_s, 3)
        if worst is None or fraction < worst[0]:
            worst = (fraction, e)
    if worst is None:
        return None
    refs["host_device_fraction"] = _ref(worst[1])
    return worst[0]


def _ref_heaviest(
    refs: dict[str, str],
    name: str,
    evidence: Iterable[NodeEvidence],
    weigh: Callable[[NodeEvidence], float | None],
) -> None:
    """Reference ``name`` (unless referenced already) to the file it was read from: the one
    weighing most (the worst finding: most errors, most ports down), the first of equals;
    files that did not print the figure (``weigh`` None) are not candidates."""
    heaviest: tuple[float, NodeEvidence] | None = None
    for e in evidence:
        weight = weigh(e)
        if weight is not None and (heaviest is None or weight > heaviest[0]):
            heaviest = (weight, e)
    if heaviest is not None:
        refs.setdefault(name, _ref(heaviest[1]))


def _ports_down(e: NodeEvidence) -> int | None:
    ports = [p for p in as_list(e.metrics.get("ports")) if isinstance(p, Mapping)]
    return sum(1 for p in ports if p.get("state") != "Active") if ports else None


def _slowest_rail(e: NodeEvidence, rate: float) -> float | None:
    """1 when ``e`` has an active port at ``rate`` (the slowest compute rail), else None."""
    for port in as_list(e.metrics.get("ports")):
        if (
            isinstance(port, Mapping)
            and port.get("state") == "Active"
            and as_float(port.get("rate_gbit_s")) == rate
        ):
            return 1.0
    return None


def _complete_refs(
    refs: dict[str, str],
    facts: MeasuredFacts,
    report: VerificationReport,
    evidence: list[NodeEvidence],
) -> None:
    """Give every measured figure the reference of the evidence it was read from, the good
    findings too (no error in the log, every port up): a rule that reads a figure names it."""
    memory = _of_kinds(evidence, MEMORY_KINDS)
    if facts.ecc_uncorrected is not None:
        _ref_heaviest(refs, "ecc_uncorrected", _of_kinds(evidence, ECC_KINDS), _ecc_count)
    for name, metrics in _MEMORY_FACTS.items():
        if getattr(facts, name) is not None:
            _ref_heaviest(
                refs,
                name,
                memory,
                lambda e, metrics=metrics: _count_true([memory_flag(e.metrics, metrics)]),
            )
    logs = _of(evidence, KERNEL_LOG)
    if facts.sxid_errors is not None:
        _ref_heaviest(refs, "sxid_errors", logs, lambda e: as_int(e.metrics.get("sxid_count")))
    if facts.xid_severity is not None and "xid_severity" in refs:
        # No node affected: the reference is the worst node's log, as for the severity.
        refs.setdefault("xid_nodes", refs["xid_severity"])
        refs.setdefault("xid_node_share", refs["xid_severity"])
    ibstat = _of(evidence, "ibstat")
    if facts.ib_ports_down is not None:
        _ref_heaviest(refs, "ib_ports_down", ibstat, _ports_down)
    rate = facts.ib_rate_gbit_s_min
    if rate is not None:
        _ref_heaviest(refs, "ib_rate_gbit_s_min", ibstat, lambda e: _slowest_rail(e, rate))
    if facts.dcgm_failed_tests is not None:
        _ref_heaviest(
            refs,
            "dcgm_failed_tests",
            _of(evidence, "dcgm_diag"),
            lambda e: (
                len(as_list(e.metrics.get("failed_tests")))
                if e.metrics.get("overall") in DCGM_SEVERITY
                else None
            ),
        )
    # Figures of the run a verdict judged carry that verdict's reference.
    judged = {
        "busbw_fraction": (
            "peak_busbw_gbyte_s",
            "expected_busbw_gbyte_s",
            "busbw_nodes",
            "busbw_nics_per_node",
            "busbw_rate_gbit_s",
        ),
        "alltoall_busbw_fraction": ("alltoall_busbw_gbyte_s",),
        "allgather_busbw_fraction": ("allgather_busbw_gbyte_s",),
    }
    for verdict, names in judged.items():
        for name in names:
            if getattr(facts, name) is not None and refs.get(verdict):
                refs.setdefault(name, refs[verdict])
    if facts.nvlink_busbw_fraction is not None and report.nvlink_busbw_ref:
        refs.setdefault("nvlink_busbw_fraction", report.nvlink_busbw_ref)
    bare_metal = report.bare_metal
    if facts.bare_metal_verdict is not None:
        # The strongest signal on the verdict's side (any, for an uncertain verdict).
        side = {"bare_metal": "bare_metal", "virtualised": "virtual"}.get(facts.bare_metal_verdict)
        signals = sorted(
            (s for s in bare_metal.signals if s.evidence_ref),
            key=lambda s: (s.points_to != side, -s.weight),
        )
        if signals:
            refs.setdefault("bare_metal_verdict", signals[0].evidence_ref or "")
            refs.setdefault("bare_metal_confidence", signals[0].evidence_ref or "")
    if facts.delivery_form_seen is not None and "bare_metal_verdict" in refs:
        refs.setdefault("delivery_form_seen", refs["bare_metal_verdict"])


def measured_facts(report: VerificationReport, evidence: list[NodeEvidence]) -> MeasuredFacts:
    """What the evidence showed, in scoring's terms; fields stay None when nothing measured.
    The nodes the report set aside (they show no NVIDIA GPU) are left out here too, except for
    the npu-smi outputs of a candidate declared with an Ascend part (report.npu_nodes): the
    ECC and Xid facts read its NPUs' double-bit counts and health as they read nvidia-smi's
    and the kernel log's."""
    # npu-smi speaks for a candidate declared with an Ascend part only, on the nodes that show
    # its NPUs, even where they were set aside for showing no NVIDIA GPU (report.npu_nodes).
    npu = [e for e in evidence if e.kind == NPU_SMI and e.node_name in report.npu_nodes]
    evidence = [e for e in evidence if e.kind != NPU_SMI]
    if report.set_aside_nodes:
        evidence = [e for e in evidence if e.node_name not in report.set_aside_nodes]
    # A kernel log is GPU evidence only on a node that shows a GPU (its own Xid, SXid or
    # driver lines count): a clean log from a machine without the NVIDIA driver (a container
    # or jump host the collector ran on) is silent about GPUs, never "no Xid error".
    if any(e.kind == KERNEL_LOG for e in evidence):
        shown = gpu_nodes(evidence)
        evidence = [e for e in evidence if e.kind != KERNEL_LOG or e.node_name in shown]
    evidence = [*evidence, *npu]
    refs: dict[str, str] = {}
    memory = _of_kinds(evidence, MEMORY_KINDS)

    dcgm_overall = None
    failed: list[str] = []
    depths: list[bool | None] = []
    for e in _of(evidence, "dcgm_diag"):
        overall = e.metrics.get("overall")
        if overall in DCGM_SEVERITY and (
            dcgm_overall is None or DCGM_SEVERITY[overall] > DCGM_SEVERITY[dcgm_overall]
        ):
            dcgm_overall = overall
            refs["dcgm_overall"] = _ref(e)
        if overall in ("pass", "warn"):
            depth = dcgm_stress_tested(e.metrics)
            # Cited by the output that settles it: the first that loaded the GPUs, else the
            # first quick run.
            first_deep = depth is True and True not in depths
            if first_deep or (depth is False and "dcgm_stress_tested" not in refs):
                refs["dcgm_stress_tested"] = _ref(e)
            depths.append(depth)
        failed.extend(str(t) for t in as_list(e.metrics.get("failed_tests")))
    # A pass counts as a stress test when any output that passed or warned loaded the GPUs
    # (the deepest run settles it); a quick run only where every such output was one.
    stressed = True if True in depths else (False if depths and None not in depths else None)
    if stressed is None:
        refs.pop("dcgm_stress_tested", None)

    nvme: dict[str, float | None] = {"read": None, "write": None}
    nvme_item = report.items.get("local_nvme")
    nvme_details = (nvme_item.details or {}) if nvme_item is not None else {}
    for direction in nvme:
        # Judged on the worst node (the 5th percentile of many), never the best: a candidate is
        # as fast as the node a job lands on. The reference names that node. Only the runs the
        # verdict could read count: one meeting the claim, or one fit to judge the drive.
        claimed = as_float(nvme_details.get(f"claimed_{direction}_gbyte_s"))
        worst = worst_node_bandwidth(
            evidence, direction, None if claimed is None else claimed * 1000, report.node_count
        )
        if worst is not None:
            value, source = worst
            nvme[direction] = value
            refs[f"nvme_{direction}_mbyte_s"] = _ref(source)

    ports_down, rate_min = _fabric(report, evidence, refs)
    rails_min = _rails(report, evidence, refs)
    xid, sxid = _kernel_log(evidence, refs)
    xid_severity, xid_nodes, xid_node_share = _gpu_errors_by_node(evidence, refs, report.node_count)
    alltoall = _collective(report, ALLTOALL, refs)
    allgather = _collective(report, ALL_GATHER, refs)

    topology = _nvlink_topology(report)
    for key, item in report.items.items():
        if item.evidence_ref:
            refs.setdefault(key, item.evidence_ref)
    if topology is not None and report.items["nvlink_topology"].evidence_ref:
        refs["nvlink_topology"] = report.items["nvlink_topology"].evidence_ref
    busbw = report.busbw.details or {}
    covers = report.busbw_fraction is not None
    if report.busbw.evidence_ref:
        refs["busbw_fraction"] = report.busbw.evidence_ref
    bare_metal = report.bare_metal
    seen = delivery_form_seen(bare_metal, evidence) if bare_metal.signals else None
    if seen is not None:
        # The strongest signal on the verdict's side names where the form was seen.
        side = "bare_metal" if seen == "bare_metal" else "virtual"
        strongest = next((s for s in bare_metal.signals if s.points_to == side), None)
        if strongest is not None and strongest.evidence_ref:
            refs["delivery_form_seen"] = strongest.evidence_ref
    facts = MeasuredFacts(
        busbw_fraction=report.busbw_fraction,
        peak_busbw_gbyte_s=as_float(busbw.get("measured_gbyte_s")) if covers else None,
        expected_busbw_gbyte_s=(
            report.expected_busbw.value_gbyte_s if covers and report.expected_busbw else None
        ),
        busbw_nodes=as_int(busbw.get("tested_nodes")) if covers else None,
        busbw_nics_per_node=as_int(busbw.get("expected_nics_per_node")) if covers else None,
        busbw_rate_gbit_s=as_float(busbw.get("expected_rate_gbit_s")) if covers else None,
        busbw_runs_set_aside=(
            None
            if covers
            else (
                len(as_list(busbw.get("foreign_runs")))
                + len(as_list(busbw.get("implausible_runs")))
            )
            or None
        ),
        nvlink_busbw_fraction=report.nvlink_busbw_fraction,
        alltoall_busbw_gbyte_s=alltoall[0],
        alltoall_busbw_fraction=alltoall[1],
        allgather_busbw_gbyte_s=allgather[0],
        allgather_busbw_fraction=allgather[1],
        ecc_uncorrected=_node_worst_sum(_of_kinds(evidence, ECC_KINDS), _ecc_count),
        remapped_rows_pending=_nodes_flagged(memory, MEMORY_PENDING_METRICS),
        remapped_rows_failure=_nodes_flagged(memory, MEMORY_FAILURE_METRICS),
        xid_errors=xid,
        sxid_errors=sxid,
        xid_severity=xid_severity,
        xid_nodes=xid_nodes,
        xid_node_share=xid_node_share,
        host_device_fraction=host_device_fraction(evidence, refs),
        dcgm_overall=dcgm_overall,
        dcgm_failed_tests=tuple(failed) if dcgm_overall else None,
        dcgm_stress_tested=stressed,
        nvme_read_mbyte_s=nvme["read"],
        nvme_write_mbyte_s=nvme["write"],
        ib_ports_down=ports_down,
        ib_rate_gbit_s_min=rate_min,
        ib_rails_min=rails_min,
        nvlink_topology=topology,
        bare_metal_verdict=bare_metal.verdict if bare_metal.signals else None,
        bare_metal_confidence=bare_metal.confidence if bare_metal.signals else None,
        delivery_form_seen=seen,
        evidence_refs=refs,
    )
    _complete_refs(refs, facts, report, evidence)
    # The bandwidth per GPU multiplies the worst node's rails by the slowest rate: it cites
    # both outputs where they differ (the worst node and the slowest port may be two nodes).
    cited = [refs.get("ib_rails_min"), refs.get("ib_rate_gbit_s_min")]
    if all(cited) and cited[0] != cited[1]:
        refs["ib_gbit_s_per_gpu"] = " | ".join(cited)  # type: ignore[arg-type]
    return replace(facts, evidence_refs=refs)


def json_safe(value: Any) -> Any:
    """Dataclasses, mappings (read-only ones too) and Decimals as plain JSON values."""
    # By the value's exact type, decided once per type: the stored verification of a candidate
    # with many nodes is a quarter of a million values, and the generic checks (is_dataclass,
    # the Mapping ABC) for each were a tenth of an import's re-verification.
    convert = _JSON_SAFE.get(type(value))
    if convert is None:
        convert = _JSON_SAFE[type(value)] = _json_safe_for(type(value))
    return convert(value)


def _unchanged(value: Any) -> Any:
    return value


def _json_safe_mapping(value: Mapping) -> dict[str, Any]:
    return {str(k): json_safe(v) for k, v in value.items()}


def _json_safe_sequence(value: list | tuple) -> list[Any]:
    return [json_safe(v) for v in value]


def _json_safe_for(kind: type) -> Callable[[Any], Any]:
    if is_dataclass(kind):
        names = tuple(f.name for f in fields(kind))
        return lambda value: {name: json_safe(getattr(value, name)) for name in names}
    if issubclass(kind, Decimal):
        return str
    if issubclass(kind, Mapping):
        return _json_safe_mapping
    if issubclass(kind, list | tuple):
        return _json_safe_sequence
    return _unchanged


_JSON_SAFE: dict[type, Callable[[Any], Any]] = {
    kind: _unchanged for kind in (str, int, float, bool, type(None))
}


def best_busbw_curve(
    evidence: list[NodeEvidence], report: VerificationReport | None = None
) -> list[dict[str, Any]]:
    """The size sweep of the all_reduce run the busbw check judged; without a report (or when
    it judged none), of the usable run with the highest peak ([] if none)."""
    runs = [
        e
        for e in _of(evidence, "nccl_tests")
        if e.metrics.get("curve") and e.metrics.get("collective") in (None, "all_reduce")
    ]
    if report is not None:
        judged = report.busbw.evidence_ref
        runs = [e for e in runs if e.ref == judged] if judged else []
    if not runs:
        return []
    best = max(runs, key=lambda e: as_float(e.metrics.get("peak_busbw_gbyte_s")) or 0)
    return [
        {"size_bytes": p.get("size_bytes"), "busbw_gbyte_s": p.get("busbw_gbyte_s")}
        for p in best.metrics["curve"]
        if isinstance(p, Mapping)
    ]


def verification_summary(
    report: VerificationReport, measured: MeasuredFacts, evidence: list[NodeEvidence]
) -> dict[str, Any]:
    """The JSON stored on the candidate: enough to rescore, explain and chart without re-parsing."""
    return json_safe(
        {
            "busbw_curve": best_busbw_curve(evidence, report),
            "measured": measured,
            "items": report.items,
            "busbw": report.busbw,
            "collectives": report.collectives,
            "bare_metal": report.bare_metal,
            "faults": report.faults,
        }
    )


_MEASURED_FIELDS = frozenset(f.name for f in fields(MeasuredFacts))


def measured_from_summary(summary: Mapping[str, Any]) -> MeasuredFacts:
    """The MeasuredFacts stored by :func:`verification_summary` (keys it does not know, from
    another version, are ignored; fractions above 1.0 read as 1.0)."""
    data = {k: v for k, v in dict(summary.get("measured") or {}).items() if k in _MEASURED_FIELDS}
    if data.get("dcgm_failed_tests") is not None:
        data["dcgm_failed_tests"] = tuple(data["dcgm_failed_tests"])
    return MeasuredFacts(**data)


# --- Summaries kept per node and per kind -------------------------------------------------
#
# Verification reads, for each node, kind and source file, the file from the newest usable
# upload (a node measured again next month is judged on the new run, not on both). The
# portal keeps these as one summary per (node, kind), updated in each import's transaction,
# so that an import reads a handful of summaries instead of every earlier report.
# ``summary_entries`` defines the rule over a whole history (the full re-verification);
# ``summary_merge`` applies one more upload to a summary; both reach the same entries.


def _entry(item: Mapping[str, Any], upload_id: int, when: str | None) -> dict[str, Any]:
    metrics = item.get("metrics")
    return {
        "upload_id": upload_id,
        "source": str(item.get("file") or ""),
        "metrics": dict(metrics) if isinstance(metrics, Mapping) else {},
        "when": when,
    }


def report_by_kind(
    report: Iterable[Mapping[str, Any]], *, upload_id: int, when: str | None
) -> dict[str, list[dict[str, Any]]]:
    """The parsed files of one upload's report grouped by kind, as summary entries."""
    kinds: dict[str, list[dict[str, Any]]] = {}
    for item in report:
        if not isinstance(item, Mapping) or not item.get("ok") or not item.get("kind"):
            continue
        kinds.setdefault(str(item["kind"]), []).append(_entry(item, upload_id, when))
    return kinds


def summary_merge(
    summary: Mapping[str, Any] | None, entries: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """``summary`` ({"entries": [...]}) with ``entries`` of one upload applied: an entry
    replaces the one of the same source file from an upload no newer than its own."""
    by_source = {e["source"]: e for e in (summary or {}).get("entries") or ()}
    for entry in entries:
        old = by_source.get(entry["source"])
        if old is None or int(old["upload_id"]) <= int(entry["upload_id"]):
            by_source[entry["source"]] = dict(entry)
    return {"entries": [by_source[s] for s in sorted(by_source)]}


def summary_entries(
    uploads: Iterable[tuple[int, str, Iterable[Mapping[str, Any]], str | None]],
) -> dict[tuple[str, str], dict[str, Any]]:
    """Summaries per (node, kind) from a whole history of usable uploads, given as
    (upload id, node name, report, when) in any order."""
    summaries: dict[tuple[str, str], dict[str, Any]] = {}
    for upload_id, node, report, when in sorted(uploads, key=lambda u: u[0]):
        for kind, entries in report_by_kind(report, upload_id=upload_id, when=when).items():
            summaries[(node, kind)] = summary_merge(summaries.get((node, kind)), entries)
    return summaries


def evidence_from_summaries(
    summaries: Iterable[tuple[str, str, Mapping[str, Any]]], *, fresh_after: str | None = None
) -> list[NodeEvidence]:
    """NodeEvidence from (node, kind, summary) triples; with ``fresh_after`` (an ISO time),
    entries measured before it are stale and left out."""
    from datetime import datetime

    limit = datetime.fromisoformat(fresh_after) if fresh_after else None
    evidence = []
    for node, kind, summary in summaries:
        for entry in (summary or {}).get("entries") or ():
            when = entry.get("when")
            if limit is not None and when and datetime.fromisoformat(when) < limit:
                continue
            evidence.append(
                NodeEvidence(
                    node_name=node,
                    upload_id=entry["upload_id"],
                    kind=kind,
                    metrics=entry.get("metrics") or {},
                    source=entry.get("source") or "",
                    measured_at=when or None,
                )
            )
    return evidence


def oldest_used(
    summaries: Iterable[tuple[str, str, Mapping[str, Any]]], *, fresh_after: str | None = None
) -> str | None:
    """The measurement time (ISO) of the oldest entry :func:`evidence_from_summaries` keeps
    from the same arguments; None when none is kept or none is dated. Once it is older than an
    evaluation's maximum evidence age, the evidence verified at that time has expired."""
    from datetime import datetime

    limit = datetime.fromisoformat(fresh_after) if fresh_after else None
    oldest: tuple[datetime, str] | None = None
    for _node, _kind, summary in summaries:
        for entry in (summary or {}).get("entries") or ():
            when = entry.get("when")
            if not when:
                continue
            moment = datetime.fromisoformat(when)
            if limit is not None and moment < limit:
                continue
            if oldest is None or moment < oldest[0]:
                oldest = (moment, when)
    return oldest[1] if oldest else None
