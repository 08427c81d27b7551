"""The one place where ORM rows become ``scoring`` dataclasses and scoring results become rows.

Everything here is a pure mapping: no queries of its own beyond the relations the caller
prefetched (``CANDIDATE_PREFETCH``), no business rules (those live in ``scoring``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Prefetch

from scoring import poc as poc_rules
from scoring.types import (
    CandidateInput,
    EvaluationSpec,
    OfferingFacts,
    Price,
    VendorFacts,
)
from scoring.verification import Claims, NodeEvidence, facts

from .models import Answer, Candidate, Evaluation, EvidenceUpload, Offering, UploadStatus, Vendor
from .models.evaluations import accepted_gpu_families

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
    # Field values straight from the instance's dict (getattr and hasattr of 60 model fields
    # cost about 10 ms at 200 candidates); anything else (a property, a deferred field) by
    # getattr, as before.
    held = offering.__dict__
    values = {
        name: held[name] if name in held else getattr(offering, name)
        for name in OFFERING_FIELDS
        if name in held or hasattr(offering, name)
    }
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
        data_residency=evaluation.data_residency,
        ops_capacity=evaluation.ops_capacity,
        ops_staff_cost_month=evaluation.ops_staff_cost_month,
        accepted_gpu_families=accepted_gpu_families(evaluation.accepted_gpu_models),
    )


def claims(candidate: Candidate) -> Claims:
    offering = candidate.offering
    values = {name: getattr(offering, name) for name in CLAIM_FIELDS if hasattr(offering, name)}
    return Claims(node_count=candidate.node_count, **values)


def node_evidence(uploads: Iterable[EvidenceUpload]) -> list[NodeEvidence]:
    """The parsed files of the candidate's finished uploads, as verification reads them."""
    evidence: list[NodeEvidence] = []
    for upload in uploads:
        if upload.status != UploadStatus.DONE:
            continue
        evidence.extend(
            facts.evidence_from_report(
                upload.report or (),
                node_name=upload.node_name or f"upload {upload.pk}",
                upload_id=upload.pk,
            )
        )
    return evidence


# The measured-facts logic lives in scoring (tested without a database); these names stay for
# the services that call them.
measured_facts = facts.measured_facts
best_busbw_curve = facts.best_busbw_curve
verification_summary = facts.verification_summary
measured_from_summary = facts.measured_from_summary


# The key of a candidate's stored verification holding {checklist key: verdict} of the document
# reviews that still apply (services.scores._verify): CandidateInput.reviews.
REVIEWS_KEY = "reviews"


def candidate_input(
    candidate: Candidate,
    *,
    answers: Mapping[str, str] | None = None,
    prices: Iterable[tuple[str, Any]] | None = None,
    summary: Mapping[str, Any] | None = None,
) -> CandidateInput:
    """A candidate with prefetched offering, vendor, prices and answers, as scoring takes it.

    ``answers`` ({checklist item key: status}) and ``prices`` ((billing model, price per GPU)
    pairs) stand in for the candidate's Answer rows and its offering's OfferingPrice rows when
    the caller read them as values (selectors.candidates_for_scoring); otherwise they come
    from ``candidate.answers`` and ``offering.prices`` (``CANDIDATE_PREFETCH``). ``summary``
    stands in for ``candidate.verification`` when the caller read only the parts scoring
    uses (its "measured" facts, its "poc" coverage and its applying document "reviews"), so
    the deferred field stays unread.
    """
    offering = candidate.offering
    quoted = ()
    if candidate.quoted_billing_model and candidate.quoted_price_per_gpu is not None:
        quoted = (Price(candidate.quoted_billing_model, candidate.quoted_price_per_gpu),)
    if answers is None:
        answers = {answer.item.key: answer.status for answer in candidate.answers.all()}
    stored = (candidate.verification or {}) if summary is None else summary
    reviews = stored.get(REVIEWS_KEY)
    scored = CandidateInput(
        candidate_id=candidate.pk,
        label=str(candidate),
        vendor=vendor_facts(offering.vendor),
        offering=offering_facts(offering, prices=prices),
        node_count=candidate.node_count,
        quoted_prices=quoted,
        answers=dict(answers),
        measured=measured_from_summary(stored),
        reviews=reviews if isinstance(reviews, Mapping) else {},
    )
    return with_poc(scored, stored)


def with_poc(scored: CandidateInput, verification: Mapping[str, Any]) -> CandidateInput:
    """The POC hook (issue #13, section 4): the failed or missing required runs recorded in the
    stored verification's coverage (``verification["poc"]``, kept by every refresh and by the
    deadline sweep) turn the claims they would have verified contradicted or unverifiable and
    feed the must-haves. No plan, or nothing failed: the candidate as it is."""
    return poc_rules.candidate_with_poc(scored, poc_rules.shortfalls(verification.get("poc")))
