"""The one place where ORM rows become ``scoring`` dataclasses and scoring results become rows.

Everything here is a pure mapping: no queries of its own beyond the relations the caller
prefetched (``CANDIDATE_PREFETCH``), no business rules (those live in ``scoring``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields, is_dataclass
from decimal import Decimal
from typing import Any

from django.db.models import Prefetch

from scoring.types import (
    CandidateInput,
    EvaluationSpec,
    MeasuredFacts,
    OfferingFacts,
    Price,
    VendorFacts,
)
from scoring.verification import Claims, NodeEvidence, VerificationReport

from .models import Answer, Candidate, Evaluation, EvidenceUpload, Offering, UploadStatus, Vendor

# What a page or service must prefetch on Candidate querysets before calling these functions.
CANDIDATE_SELECT = ("offering", "offering__vendor", "evaluation")
CANDIDATE_PREFETCH = (
    "offering__prices",
    Prefetch("answers", queryset=Answer.objects.select_related("item")),
)

OFFERING_FIELDS = tuple(
    name for name in OfferingFacts.__dataclass_fields__ if name not in ("prices",)
)
CLAIM_FIELDS = tuple(name for name in Claims.__dataclass_fields__ if name not in ("node_count",))
DCGM_SEVERITY = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}


def vendor_facts(vendor: Vendor) -> VendorFacts:
    return VendorFacts(
        name=vendor.name,
        mlps_level=vendor.mlps_level,
        xinchuang=vendor.xinchuang,
        iso27001=vendor.iso27001,
    )


def offering_facts(
    offering: Offering, *, prices: Iterable[tuple[str, Any]] | None = None
) -> OfferingFacts:
    """``prices`` ((billing model, price per GPU) pairs) stands in for ``offering.prices``
    when the caller read them as values (selectors.candidates_for_scoring)."""
    values = {name: getattr(offering, name) for name in OFFERING_FIELDS if hasattr(offering, name)}
    if prices is None:
        prices = ((p.billing_model, p.price_per_gpu) for p in offering.prices.all())
    values["prices"] = tuple(Price(billing_model, price) for billing_model, price in prices)
    return OfferingFacts(**values)


def evaluation_spec(
    evaluation: Evaluation, *, weights: Mapping[str, Any] | None = None
) -> EvaluationSpec:
    """The evaluation as scoring sees it; ``weights`` overrides the saved ones (what-if)."""
    return EvaluationSpec(
        workload_profile=evaluation.workload_profile,
        required_total_gpus=evaluation.required_total_gpus,
        required_gpu_memory_gib=evaluation.required_gpu_memory_gib,
        duration_days=evaluation.duration_days,
        expected_idle_days=evaluation.expected_idle_days,
        budget_total=evaluation.budget_total,
        budget_currency=evaluation.budget_currency,
        required_mlps_level=evaluation.required_mlps_level,
        require_xinchuang=evaluation.require_xinchuang,
        min_busbw_fraction=evaluation.min_busbw_fraction,
        weights=dict(weights if weights is not None else evaluation.weights),
    )


def claims(candidate: Candidate) -> Claims:
    offering = candidate.offering
    values = {name: getattr(offering, name) for name in CLAIM_FIELDS if hasattr(offering, name)}
    return Claims(node_count=candidate.node_count, **values)


def node_evidence(uploads: Iterable[EvidenceUpload]) -> list[NodeEvidence]:
    """The parsed files of the candidate's finished uploads, as verification reads them."""
    evidence = []
    for upload in uploads:
        if upload.status != UploadStatus.DONE:
            continue
        manifest_host = upload.node_name or f"upload {upload.pk}"
        for item in upload.report:
            if not item.get("ok"):
                continue
            evidence.append(
                NodeEvidence(
                    node_name=manifest_host,
                    upload_id=upload.pk,
                    kind=item["kind"],
                    metrics=item.get("metrics") or {},
                    source=item.get("file", ""),
                )
            )
    return evidence


def _metrics(evidence: list[NodeEvidence], kind: str) -> list[NodeEvidence]:
    return [e for e in evidence if e.kind == kind]


def _sum_ints(values: Iterable[Any]) -> int | None:
    numbers = [int(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    return sum(numbers) if numbers else None


def _any_true(values: Iterable[Any]) -> int | None:
    seen = [v for v in values if v is not None]
    if not seen:
        return None
    return sum(1 for v in seen if v is True or (isinstance(v, int | float) and v > 0))


def _ref(e: NodeEvidence) -> str:
    return f"upload {e.upload_id} · {e.node_name} · {e.kind} {e.source}".strip()


def measured_facts(report: VerificationReport, evidence: list[NodeEvidence]) -> MeasuredFacts:
    """What the evidence showed, in scoring's terms; fields stay None when nothing measured."""
    refs: dict[str, str] = {}
    query = _metrics(evidence, "nvidia_smi_query")
    dcgm = _metrics(evidence, "dcgm_diag")
    fio = _metrics(evidence, "fio")
    ib = _metrics(evidence, "ibstat")
    topo = _metrics(evidence, "nvidia_smi_topo")

    dcgm_overall = None
    failed: list[str] = []
    for e in dcgm:
        overall = e.metrics.get("overall")
        if overall in DCGM_SEVERITY and (
            dcgm_overall is None or DCGM_SEVERITY[overall] > DCGM_SEVERITY[dcgm_overall]
        ):
            dcgm_overall = overall
            refs["dcgm_overall"] = _ref(e)
        failed.extend(str(t) for t in e.metrics.get("failed_tests") or ())

    def best(items: list[NodeEvidence], key: str) -> float | None:
        values = [
            (float(e.metrics[key]), e) for e in items if isinstance(e.metrics.get(key), int | float)
        ]
        if not values:
            return None
        value, source = max(values, key=lambda pair: pair[0])
        refs[key.replace("read_bw", "nvme_read").replace("write_bw", "nvme_write")] = _ref(source)
        return value

    active_rates: list[float] = []
    ports_down = None
    for e in ib:
        for port in e.metrics.get("ports") or ():
            ports_down = ports_down or 0
            if port.get("state") == "Active" and port.get("rate_gbit_s"):
                active_rates.append(float(port["rate_gbit_s"]))
            elif port.get("state") != "Active":
                ports_down += 1
                refs.setdefault("ib_ports_down", _ref(e))
    # Slow management NICs beside the compute rails would read as a slow fabric: only ports
    # at least half as fast as the fastest active port count as compute rails.
    rails = [r for r in active_rates if active_rates and r >= max(active_rates) / 2]

    measured_topology = None
    for e in topo:
        if (e.metrics.get("gpu_count") or 0) < 2:
            continue
        if e.metrics.get("full_nvlink_mesh"):
            measured_topology = "full_mesh"
        elif e.metrics.get("nvlink_pairs"):
            measured_topology = measured_topology or "grouped"
        else:
            measured_topology = measured_topology or "none"
        refs.setdefault("nvlink_topology", _ref(e))

    bare_metal = report.bare_metal
    for key, item in report.items.items():
        if item.evidence_ref:
            refs.setdefault(key, item.evidence_ref)
    if report.busbw.evidence_ref:
        refs["busbw_fraction"] = report.busbw.evidence_ref
    return MeasuredFacts(
        busbw_fraction=report.busbw_fraction,
        peak_busbw_gbyte_s=(report.busbw.details or {}).get("measured_gbyte_s"),
        expected_busbw_gbyte_s=(
            report.expected_busbw.value_gbyte_s if report.expected_busbw else None
        ),
        ecc_uncorrected=_sum_ints(e.metrics.get("ecc_volatile_uncorrected") for e in query),
        remapped_rows_pending=_any_true(e.metrics.get("remapped_rows_pending") for e in query),
        remapped_rows_failure=_any_true(e.metrics.get("remapped_rows_failure") for e in query),
        dcgm_overall=dcgm_overall,
        dcgm_failed_tests=tuple(failed) if dcgm_overall else None,
        nvme_read_mbyte_s=best(fio, "read_bw_mbyte_s"),
        nvme_write_mbyte_s=best(fio, "write_bw_mbyte_s"),
        ib_ports_down=ports_down,
        ib_rate_gbit_s_min=min(rails) if rails else None,
        nvlink_topology=measured_topology,
        bare_metal_verdict=bare_metal.verdict if bare_metal.signals else None,
        bare_metal_confidence=bare_metal.confidence if bare_metal.signals else None,
        evidence_refs=refs,
    )


def _json_safe(value: Any) -> Any:
    """Dataclasses, mappings (read-only ones too) and Decimals as plain JSON values."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _json_safe(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def best_busbw_curve(evidence: list[NodeEvidence]) -> list[dict[str, Any]]:
    """The size sweep of the all_reduce run with the highest peak bus bandwidth ([] if none)."""
    runs = [
        e.metrics
        for e in _metrics(evidence, "nccl_tests")
        if e.metrics.get("curve") and e.metrics.get("collective") in (None, "all_reduce")
    ]
    if not runs:
        return []
    best = max(runs, key=lambda m: m.get("peak_busbw_gbyte_s") or 0)
    return [
        {"size_bytes": p.get("size_bytes"), "busbw_gbyte_s": p.get("busbw_gbyte_s")}
        for p in best["curve"]
    ]


def verification_summary(
    report: VerificationReport, measured: MeasuredFacts, evidence: list[NodeEvidence]
) -> dict[str, Any]:
    """The JSON stored on the candidate: enough to rescore, explain and chart without re-parsing."""
    return _json_safe(
        {
            "busbw_curve": best_busbw_curve(evidence),
            "measured": measured,
            "items": report.items,
            "busbw": report.busbw,
            "bare_metal": report.bare_metal,
            "faults": report.faults,
        }
    )


def measured_from_summary(summary: Mapping[str, Any]) -> MeasuredFacts:
    data = dict(summary.get("measured") or {})
    if data.get("dcgm_failed_tests") is not None:
        data["dcgm_failed_tests"] = tuple(data["dcgm_failed_tests"])
    return MeasuredFacts(**data)


def candidate_input(
    candidate: Candidate,
    *,
    answers: Mapping[str, str] | None = None,
    prices: Iterable[tuple[str, Any]] | None = None,
) -> CandidateInput:
    """A candidate with prefetched offering, vendor, prices and answers, as scoring takes it.

    ``answers`` ({checklist item key: status}) and ``prices`` ((billing model, price per GPU)
    pairs) stand in for the candidate's Answer rows and its offering's OfferingPrice rows when
    the caller read them as values (selectors.candidates_for_scoring); otherwise they come
    from ``candidate.answers`` and ``offering.prices`` (``CANDIDATE_PREFETCH``).
    """
    offering = candidate.offering
    quoted = ()
    if candidate.quoted_billing_model and candidate.quoted_price_per_gpu is not None:
        quoted = (Price(candidate.quoted_billing_model, candidate.quoted_price_per_gpu),)
    if answers is None:
        answers = {answer.item.key: answer.status for answer in candidate.answers.all()}
    return CandidateInput(
        candidate_id=candidate.pk,
        label=str(candidate),
        vendor=vendor_facts(offering.vendor),
        offering=offering_facts(offering, prices=prices),
        node_count=candidate.node_count,
        quoted_prices=quoted,
        answers=dict(answers),
        measured=measured_from_summary(candidate.verification or {}),
    )
