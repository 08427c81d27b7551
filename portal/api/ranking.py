"""The live ranking and its robustness as plain JSON-ready data (the API's computed endpoints).

The ranking is computed from the stored facts, never from stored totals. Computing it for 50
candidates costs far more than serving it, so the result is kept in the cache under a
fingerprint of every input the computation reads: the evaluation's fields, each candidate's
row (its ``scored_at`` moves whenever verification or scores were refreshed, its
``offering_version_id`` when it adopts a new version of its offering)
with its offering's ``updated_at`` and its vendor's facts, and checksums of its list
prices and of its answers' statuses with their last change. Any change to an input changes the
fingerprint, so a cached ranking is the one a fresh computation would give (the checklist and
the rubric are fixed per release); the fingerprint costs one light query.
"""

from __future__ import annotations

import hashlib
from operator import itemgetter
from typing import Any

from django.db import connection
from django.db.models import (
    Case,
    Count,
    F,
    Max,
    OuterRef,
    Subquery,
    Sum,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast

from .. import selectors
from ..models import (
    Answer,
    BillingModel,
    Candidate,
    Evaluation,
    OfferingPrice,
    Vendor,
    VerificationStatus,
)

RUBRIC_VERSION = "1"
CACHE_SECONDS = 600


def _money(value) -> str | None:
    return None if value is None else str(value)


def _tco_summary(tco) -> dict[str, Any] | None:
    if tco is None:
        return None
    return {
        "currency": tco.currency,
        "gpu_count": tco.gpu_count,
        "duration_days": tco.duration_days,
        "used_days": tco.used_days,
        "cheapest_billing_model": tco.cheapest,
        "total": _money(tco.cheapest_total),
        "monthly": _money(tco.best.monthly),
        "cost_per_effective_gpu_hour": _money(tco.cost_per_effective_gpu_hour),
        "break_even_used_days": _money(tco.break_even_used_days),
        # Rubric v2 (issue #10 §3): the recommended billing model apart from the cheapest, with
        # its reason, and the minimum-commitment component of the recommended model.
        "recommended_billing_model": tco.recommended,
        "recommended_total": _money(tco.recommended_total),
        "recommended_reason_en": tco.recommended_reason[0],
        "recommended_reason_zh": tco.recommended_reason[1],
        "commitment": _money(dict(tco.model(tco.recommended).components).get("commitment")),
        # What the effective GPU-hour was computed with, and on what basis: availability
        # "stated" / "verified" / "unanswered" / "contradicted" (v1: "sla" / "assumed"),
        # efficiency "measured" / "assumed" / "scale_rule".
        "availability": str(tco.availability),
        "availability_basis": tco.availability_basis,
        "efficiency": str(tco.efficiency),
        "efficiency_basis": tco.efficiency_basis,
        # The GPUs whose hours the effective cost divides by (rubric v2: at most the required
        # ones) and what it assumed rather than read (surplus GPUs, a fallback reference
        # price), each line in English and Chinese.
        "gpu_equivalents": str(tco.gpu_equivalents),
        "useful_gpu_equivalents": str(tco.useful_gpu_equivalents),
        "assumptions": [{"code": c, "en": en, "zh": zh} for c, en, zh in tco.assumptions()],
    }


def ranking_payload(ranking, candidates, evaluation: Evaluation) -> dict[str, Any]:
    results = []
    for position, result in enumerate(ranking.results, start=1):
        candidate = candidates[result.candidate_id]
        results.append(
            {
                "position": position,
                "candidate": result.candidate_id,
                "label": result.label,
                "offering": candidate.offering_id,
                "vendor_name": candidate.offering.vendor.name,
                "total": result.total,
                "disqualified": result.disqualified,
                "scores": result.scores,
                "knockouts": [k.as_dict() for k in result.knockouts],
                "tco": _tco_summary(result.tco),
            }
        )
    leader = ranking.leader
    return {
        "evaluation": evaluation.pk,
        "rubric_version": ranking.rubric_version,
        "workload_profile": ranking.workload_profile,
        "weights": dict(ranking.weights),
        "leader": leader.candidate_id if leader is not None else None,
        "results": results,
    }


def _aggregate(queryset, expression):
    """One aggregate of a correlated subquery per candidate (portable: SQLite and PostgreSQL)."""
    return Subquery(
        queryset.filter(candidate=OuterRef("pk"))
        .order_by()
        .values("candidate")
        .annotate(value=expression)
        .values("value")[:1]
    )


def _price_aggregate(expression):
    return Subquery(
        OfferingPrice.objects.filter(offering=OuterRef("offering_id"))
        .order_by()
        .values("offering")
        .annotate(value=expression)
        .values("value")[:1]
    )


# Small distinct weights make a swap of two statuses or two prices change the checksums.
STATUS_CODES = {status: index + 1 for index, status in enumerate(VerificationStatus.values)}
BILLING_CODES = {model: index + 1 for index, model in enumerate(BillingModel.values)}


# Every vendor fact (the catalogue-change notice compares them all, not only the scored ones).
_VENDOR_COLUMNS = tuple(f"offering__vendor__{f.attname}" for f in Vendor._meta.concrete_fields)
FINGERPRINT_COLUMNS = (
    "pk",
    "offering_id",
    "offering_version_id",
    "catalogue_kept",
    "node_count",
    "quoted_billing_model",
    "quoted_price_per_gpu",
    "scored",
    "offering__name",
    "offering_changed",
    *_VENDOR_COLUMNS,
    "answer_count",
    "answer_changed",
    "answer_sum",
    "price_count",
    "price_sum",
)
# What the catalogue-change notice is a function of: the version each candidate pinned (written
# once), whether its member kept it, and the live offering, vendor and list prices.
_CATALOGUE_COLUMNS = (
    "pk",
    "offering_id",
    "offering_version_id",
    "catalogue_kept",
    "offering_changed",
    *_VENDOR_COLUMNS,
    "price_count",
    "price_sum",
)
_catalogue_columns = itemgetter(*(FINGERPRINT_COLUMNS.index(c) for c in _CATALOGUE_COLUMNS))


def _fingerprint_queryset(evaluation_id: int):
    answer_code = Case(
        *[When(status=s, then=Value(code)) for s, code in STATUS_CODES.items()],
        default=Value(0),
    )
    price_code = Case(
        *[When(billing_model=m, then=Value(code)) for m, code in BILLING_CODES.items()],
        default=Value(0),
    )
    answers = Answer.objects.all()
    return (
        Candidate.objects.filter(evaluation_id=evaluation_id)
        .order_by("pk")
        .annotate(
            # Times as text: parsing and repr() of 600 datetimes were most of the CPU time of
            # the fingerprint at 200 candidates, and the text names the instant all the same.
            scored=Cast("scored_at", TextField()),
            offering_changed=Cast("offering__updated_at", TextField()),
            answer_count=_aggregate(answers, Count("pk")),
            answer_changed=Cast(_aggregate(answers, Max("updated_at")), TextField()),
            answer_sum=_aggregate(answers, Sum(F("item_id") * 16 + answer_code)),
            price_count=_price_aggregate(Count("pk")),
            price_sum=_price_aggregate(Sum(F("price_per_gpu") * price_code)),
        )
        .values_list(*FINGERPRINT_COLUMNS)
    )


# Building that query costs more than running it; it is compiled once per database backend,
# with a placeholder id that each call replaces by the evaluation's.
_PLACEHOLDER_ID = -7_301_959_123
_compiled: dict[str, tuple[str, list]] = {}


def _fingerprint_rows(evaluation_id: int) -> list[tuple]:
    if connection.vendor not in _compiled:
        sql, params = _fingerprint_queryset(_PLACEHOLDER_ID).query.sql_with_params()
        if list(params).count(_PLACEHOLDER_ID) != 1:
            raise RuntimeError("the placeholder id must appear exactly once in the query")
        _compiled[connection.vendor] = (sql, list(params))
    sql, params = _compiled[connection.vendor]
    params = [evaluation_id if p == _PLACEHOLDER_ID else p for p in params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def ranking_fingerprint(evaluation: Evaluation) -> str:
    """A digest of every stored fact the ranking of ``evaluation`` is computed from (one query).

    Per candidate: its row, its offering's name and ``updated_at``, its vendor's scored facts,
    and checksums of its answers (count, last change, item x status) and of its offering's
    list prices (count, billing model x price). ``scored_at`` moves with every verification and
    rescore, ``updated_at`` with every save of an offering or answer; the checksums also catch
    rows changed without either.
    """
    return fingerprints(evaluation)[0]


def fingerprints(evaluation: Evaluation) -> tuple[str, str]:
    """``ranking_fingerprint(evaluation)`` and the fingerprint of its catalogue-change notice
    (what each candidate pinned and kept against the live catalogue, and the evaluation's
    status), from the same query."""
    rows = _fingerprint_rows(evaluation.pk)
    own = [getattr(evaluation, f.attname) for f in Evaluation._meta.concrete_fields]
    ranking = hashlib.sha256(repr((RUBRIC_VERSION, own, rows)).encode()).hexdigest()
    catalogue_rows = [_catalogue_columns(row) for row in rows]
    catalogue = repr((evaluation.pk, evaluation.status, catalogue_rows))
    return ranking, hashlib.sha256(catalogue.encode()).hexdigest()


def evaluation_ranking_data(evaluation: Evaluation, *, use_cache: bool = True) -> dict[str, Any]:
    """The ranking of ``evaluation`` as a fresh computation from its stored facts gives it."""
    if not use_cache:
        ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
        return ranking_payload(ranking, candidates, evaluation)
    key = selectors.results_key(evaluation, "api-ranking-payload")
    cached = selectors.cache_get(key)
    if cached is not None:
        return cached
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    payload = ranking_payload(ranking, candidates, evaluation)
    selectors.cache_set(key, payload)
    return payload


def evaluation_robustness_data(
    evaluation: Evaluation, *, draws: int, perturbation_pct: float, seed: int
) -> dict[str, Any]:
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    result = selectors.evaluation_robustness(
        evaluation=evaluation,
        ranking=ranking,
        draws=draws,
        perturbation_pct=perturbation_pct,
        seed=seed,
    ).as_dict()
    return {"evaluation": evaluation.pk, **result}
