"""Reads on evidence integrity: the node fingerprint of a candidate and the same hardware seen
under another candidate or vendor (replayed or borrowed evidence, or one golden node shown
twice). Nothing here writes."""

from collections import defaultdict

from django.utils.translation import gettext_lazy as _

from scoring.fingerprint import KINDS

from ..models import Candidate, HardwareIdentifier

KIND_LABELS = {
    "gpu_uuid": _("GPU UUID"),
    "gpu_serial": _("GPU serial"),
    "board_serial": _("board serial"),
    "system_serial": _("system serial"),
    "hca_guid": _("HCA GUID"),
    "mac": _("MAC address"),
}


def candidate_fingerprint(candidate: Candidate) -> list[dict]:
    """[{kind, label, values}] over the candidate's imported uploads, in KINDS order.

    Read from the HardwareIdentifier rows the import writes for each imported upload's
    fingerprint (one row per upload, kind and value), not from every upload's fingerprint JSON,
    so the candidate page stays flat in the number of uploads."""
    values: dict[str, set[str]] = defaultdict(set)
    for kind, value in (
        HardwareIdentifier.objects.filter(candidate=candidate)
        .values_list("kind", "value")
        .distinct()
    ):
        values[kind].add(value)
    return [
        {"kind": kind, "label": KIND_LABELS[kind], "values": sorted(values[kind])}
        for kind in KINDS
        if values.get(kind)
    ]


def hardware_reuse(candidate: Candidate) -> list[dict]:
    """The same hardware under another candidate (of any evaluation and vendor): one entry
    per other candidate, naming it, its evaluation and vendor, and the shared identifiers."""
    mine = HardwareIdentifier.objects.filter(candidate=candidate)
    shared = (
        HardwareIdentifier.objects.filter(
            kind__in=mine.values("kind"), value__in=mine.values("value")
        )
        .exclude(candidate=candidate)
        .only("candidate_id", "kind", "value")
        .order_by("candidate_id", "kind", "value")
    )
    own = set(mine.values_list("kind", "value"))
    by_candidate: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for row in shared:
        if (row.kind, row.value) in own:
            by_candidate[row.candidate_id].add((row.kind, row.value))
    if not by_candidate:
        return []
    others = Candidate.objects.select_related("evaluation", "offering__vendor").in_bulk(
        list(by_candidate)
    )
    return [
        {
            "candidate_id": other_id,
            "candidate": str(others[other_id]),
            "evaluation_id": others[other_id].evaluation_id,
            "evaluation": others[other_id].evaluation.name,
            "vendor": others[other_id].offering.vendor.name,
            "same_evaluation": others[other_id].evaluation_id == candidate.evaluation_id,
            "identifiers": [
                {"kind": kind, "label": str(KIND_LABELS.get(kind, kind)), "value": value}
                for kind, value in sorted(found)
            ],
        }
        for other_id, found in sorted(by_candidate.items())
        if other_id in others
    ]
