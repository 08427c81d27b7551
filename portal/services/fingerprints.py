"""Reads on evidence integrity: the node fingerprint of a candidate and the same hardware seen
under another candidate or vendor (replayed or borrowed evidence, or one golden node shown
twice). Nothing here writes."""

from collections import defaultdict

from django.db.models import CharField, Count, Exists, OuterRef, Value
from django.utils.translation import gettext_lazy as _

from scoring.fingerprint import KINDS

from ..models import (
    Candidate,
    EvidenceUpload,
    HardwareIdentifier,
    Measurement,
    Membership,
    UploadStatus,
)

# The kind under which an upload with the same content (sha256) is listed as reuse.
SAME_CONTENT = "sha256"

KIND_LABELS = {
    "gpu_uuid": _("GPU UUID"),
    "gpu_serial": _("GPU serial"),
    "board_serial": _("board serial"),
    "system_serial": _("system serial"),
    "hca_guid": _("HCA GUID"),
    "mac": _("MAC address"),
    "nccl_host": _("nccl-tests host"),
    "nccl_run": _("nccl-tests run"),
    SAME_CONTENT: _("identical upload (SHA-256)"),
}
# The evidence kinds whose output differs from one run to the next (timings, bandwidths,
# clocks): the same bytes twice are one run shown twice. A static listing (topo -m, lspci) or
# a healthy DCGM diagnostic (a table of "Pass") prints the same bytes on every server of one
# board design and software stack, so its hash is left out.
RUN_KINDS = ("nccl_tests", "perftest", "fio", "nvbandwidth", "rtt", "kernel_log")


def candidate_identifiers(candidate: Candidate) -> set[tuple[str, str]]:
    """The (kind, value) pairs seen in the candidate's imported uploads, each once: the import
    writes one HardwareIdentifier row per upload, so a node uploaded again and again repeats
    its identifiers, and DISTINCT keeps the rows read flat in the number of uploads."""
    return set(
        HardwareIdentifier.objects.filter(candidate=candidate)
        .values_list("kind", "value")
        .distinct()
    )


# The identifiers of one physical part: the same value under two node names of a candidate is
# one node shown under two names (nccl-tests hosts and runs name a run, not a part).
PART_KINDS = ("gpu_uuid", "gpu_serial", "board_serial", "system_serial", "hca_guid", "mac")


def node_name_reuse(candidate: Candidate) -> list[dict]:
    """The hardware the candidate's evidence shows under more than one node name, and the
    same output of a run (kind ``sha256``: a timing or bandwidth log, byte for byte) sent for
    more than one: [{kind, label, value, nodes}], by kind then value. One node's files sent
    again under other names are not more nodes (the fleet figures are bounded by the node
    count for that reason); this names them so that the evidence can be put right. Identical
    static listings (topo -m, lscpu) are each node's own and are not named. One query,
    grouped in the database."""
    hardware = (
        HardwareIdentifier.objects.filter(candidate=candidate, kind__in=PART_KINDS)
        .exclude(upload__node_name="")
        .values_list("kind", "value", "upload__node_name")
    )
    # A plain file is an upload of each node it is sent for (EvidenceUpload.content_node); a
    # run's output is never the same twice, so the same bytes for two nodes are one run. Only
    # the repeated ones are read: the rows stay flat in the number of uploads.
    ran = Measurement.objects.filter(upload=OuterRef("pk"), kind__in=RUN_KINDS)
    runs = (
        EvidenceUpload.objects.filter(candidate=candidate, status=UploadStatus.DONE)
        .exclude(node_name="")
        .filter(Exists(ran))
        .order_by()
    )
    repeated = (
        runs.values("sha256")
        .annotate(nodes=Count("node_name", distinct=True))
        .filter(nodes__gt=1)
        .values("sha256")
    )
    same_run = (
        runs.filter(sha256__in=repeated)
        .annotate(same=Value(SAME_CONTENT, output_field=CharField()))
        .values_list("same", "sha256", "node_name")
    )
    nodes: dict[tuple[str, str], set[str]] = defaultdict(set)
    # One statement; UNION keeps each (kind, value, node) once.
    for kind, value, node in hardware.union(same_run):
        nodes[kind, value].add(node)
    order = {kind: n for n, kind in enumerate((SAME_CONTENT, *PART_KINDS))}
    return [
        {
            "kind": kind,
            "label": str(KIND_LABELS.get(kind, kind)),
            "value": value,
            "nodes": sorted(names),
        }
        for (kind, value), names in sorted(
            nodes.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])
        )
        if len(names) > 1
    ]


def candidate_fingerprint(
    candidate: Candidate, identifiers: set[tuple[str, str]] | None = None
) -> list[dict]:
    """[{kind, label, values}] over the candidate's imported uploads, in KINDS order.

    Read from the HardwareIdentifier rows the import writes for each imported upload's
    fingerprint (distinct kind and value; ``identifiers`` when the caller has read them),
    not from every upload's fingerprint JSON, so the candidate page stays flat in the number
    of uploads."""
    values: dict[str, set[str]] = defaultdict(set)
    for kind, value in candidate_identifiers(candidate) if identifiers is None else identifiers:
        values[kind].add(value)
    return [
        {"kind": kind, "label": KIND_LABELS[kind], "values": sorted(values[kind])}
        for kind in KINDS
        if values.get(kind)
    ]


def _same_content(candidate: Candidate) -> list[tuple[int, str]]:
    """(other candidate id, sha256) of the imported uploads of other candidates whose bytes
    are those of one of this candidate's imported uploads holding a run's measurements (one
    query): the same output uploaded again, the strongest sign of a replay."""
    ran = Measurement.objects.filter(upload=OuterRef("pk"), kind__in=RUN_KINDS)
    own = EvidenceUpload.objects.filter(candidate=candidate, status=UploadStatus.DONE).values(
        "sha256"
    )
    return list(
        EvidenceUpload.objects.filter(status=UploadStatus.DONE, sha256__in=own)
        .filter(Exists(ran))
        .exclude(candidate=candidate)
        .values_list("candidate_id", "sha256")
        .order_by()  # the model's ordering would add created_at to the DISTINCT
        .distinct()
    )


def hardware_reuse(
    candidate: Candidate, identifiers: set[tuple[str, str]] | None = None, *, viewer
) -> list[dict]:
    """The same hardware or the same output under another candidate (of any evaluation and
    vendor), and what is shared: hardware identifiers, nccl-tests hosts and runs, and uploads
    of the same bytes (kind ``sha256``). ``identifiers``: the candidate's, when the caller has
    read them.

    One entry per other candidate of an evaluation ``viewer`` is a member of, naming it and
    its evaluation (``visible`` True). Other evaluations are not the viewer's to see: their
    candidates are told only by vendor (the catalogue every user reads), one entry per vendor
    with no candidate, evaluation or id (``visible`` False), so that the reuse is still
    flagged (the same node under another vendor is the fraud to catch) without telling who
    else is evaluating what."""
    own = candidate_identifiers(candidate) if identifiers is None else identifiers
    by_candidate: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for other_id, digest in _same_content(candidate):
        by_candidate[other_id].add((SAME_CONTENT, digest))
    if own:
        # Each (other candidate, kind, value) once, however many uploads repeat it.
        shared = (
            HardwareIdentifier.objects.filter(
                kind__in={kind for kind, _value in own},
                value__in={value for _kind, value in own},
            )
            .exclude(candidate=candidate)
            .values_list("candidate_id", "kind", "value")
            .distinct()
        )
        for candidate_id, kind, value in shared:
            if (kind, value) in own:
                by_candidate[candidate_id].add((kind, value))
    if not by_candidate:
        return []
    others = Candidate.objects.select_related("evaluation", "offering__vendor").in_bulk(
        list(by_candidate)
    )
    order = {kind: n for n, kind in enumerate((SAME_CONTENT, *KINDS))}

    def shared_list(found: set[tuple[str, str]]) -> list[dict]:
        return [
            {"kind": kind, "label": str(KIND_LABELS.get(kind, kind)), "value": value}
            for kind, value in sorted(found, key=lambda kv: (order.get(kv[0], 99), kv[1]))
        ]

    member_of = set(
        Membership.objects.filter(user_id=getattr(viewer, "pk", None)).values_list(
            "evaluation_id", flat=True
        )
    )
    visible, hidden = [], defaultdict(set)
    for other_id, found in sorted(by_candidate.items()):
        other = others.get(other_id)
        if other is None:
            continue
        if other.evaluation_id not in member_of:
            hidden[other.offering.vendor.name] |= found
            continue
        visible.append(
            {
                "visible": True,
                "candidate_id": other_id,
                "candidate": str(other),
                "evaluation_id": other.evaluation_id,
                "evaluation": other.evaluation.name,
                "vendor": other.offering.vendor.name,
                "same_evaluation": other.evaluation_id == candidate.evaluation_id,
                "identifiers": shared_list(found),
            }
        )
    return visible + [
        {
            "visible": False,
            "candidate_id": None,
            "candidate": "",
            "evaluation_id": None,
            "evaluation": "",
            "vendor": vendor,
            "same_evaluation": False,
            "identifiers": shared_list(found),
        }
        for vendor, found in sorted(hidden.items())
    ]
