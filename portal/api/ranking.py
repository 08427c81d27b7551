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
from functools import lru_cache
from operator import itemgetter
from typing import Any

from django.db import connection

from scoring import MODEL_REVISION
from scoring.rubric import rubric_sha256, rubric_text

from .. import selectors
from ..models import (
    Answer,
    BillingModel,
    Candidate,
    Evaluation,
    Offering,
    OfferingPrice,
    Vendor,
    VerificationStatus,
)
from ..services.evaluations import ranking_version

RUBRIC_VERSION = "1"
CACHE_SECONDS = 600


@lru_cache(maxsize=8)
def _model_key(rubric_version: str) -> tuple[str, str, str]:
    """What computes a ranking besides the stored facts: the cache format, the scoring code's
    revision and the digest of the evaluation's rubric text (a changed model invalidates the
    stored results of every evaluation it scores)."""
    return RUBRIC_VERSION, MODEL_REVISION, rubric_sha256(rubric_text(rubric_version))


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
        # "stated" / "verified" / "unbacked" (verified, no credit on breach) / "unanswered" /
        # "contradicted" (v1: "sla" / "assumed"),
        # efficiency "measured" / "assumed" (v2), "scale_rule" (v1), or "assumed_scale" (a
        # TCO recorded before scoring.collectives).
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
        # What a decision POST may send back, so that it is recorded on these figures only.
        "ranking_version": ranking_version(ranking),
        "results": results,
    }


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


def _column(model, attname: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(attname).column)


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _fingerprint_sql() -> tuple[str, list]:
    """The fingerprint query (FINGERPRINT_COLUMNS, one row per candidate in id order) with its
    parameters but the evaluation's id (three times, appended by the caller).

    The answers and the list prices are aggregated once each, grouped over the evaluation's
    candidates and their offerings, and joined: correlated subqueries per column read each
    candidate's answers three times and scanned the price table twice per candidate."""
    c, o, v = _table(Candidate), _table(Offering), _table(Vendor)
    a, p = _table(Answer), _table(OfferingPrice)
    params: list = []

    def codes(column: str, mapping: dict[str, int]) -> str:
        whens = []
        for value, code in mapping.items():
            whens.append(f"WHEN {column} = %s THEN {int(code)}")
            params.append(value)
        return f"CASE {' '.join(whens)} ELSE 0 END"

    def col(model, alias: str, attname: str) -> str:
        return f"{alias}.{_column(model, attname)}"

    answer_code = codes(col(Answer, "a", "status"), STATUS_CODES)
    price_code = codes(col(OfferingPrice, "p", "billing_model"), BILLING_CODES)
    vendor_columns = ", ".join(col(Vendor, "v", f.attname) for f in Vendor._meta.concrete_fields)
    # The two aggregates are computed once each (MATERIALIZED on PostgreSQL): as subqueries
    # joined to the candidates, a plan built on an evaluation's first rows (statistics that
    # still say one row per table) ran the whole price aggregate again for every candidate,
    # 3.1 ms of the 3.4 ms the query took at 50 candidates.
    materialized = "MATERIALIZED " if connection.vendor == "postgresql" else ""
    # Identifiers come from the models' metadata (quoted); every value is a parameter.
    sql = f"""
        WITH answers AS {materialized}(
            SELECT {col(Answer, "a", "candidate_id")} AS candidate_id, COUNT(*) AS n,
                MAX({col(Answer, "a", "updated_at")}) AS changed,
                SUM({col(Answer, "a", "item_id")} * 16 + {answer_code}) AS total
            FROM {a} a
            WHERE {col(Answer, "a", "candidate_id")} IN (
                SELECT e.{_column(Candidate, "id")} FROM {c} e
                WHERE e.{_column(Candidate, "evaluation_id")} = %s
            )
            GROUP BY {col(Answer, "a", "candidate_id")}
        ), prices AS {materialized}(
            SELECT {col(OfferingPrice, "p", "offering_id")} AS offering_id, COUNT(*) AS n,
                SUM({col(OfferingPrice, "p", "price_per_gpu")} * {price_code}) AS total
            FROM {p} p
            WHERE {col(OfferingPrice, "p", "offering_id")} IN (
                SELECT e.{_column(Candidate, "offering_id")} FROM {c} e
                WHERE e.{_column(Candidate, "evaluation_id")} = %s
            )
            GROUP BY {col(OfferingPrice, "p", "offering_id")}
        )
        SELECT {col(Candidate, "c", "id")}, {col(Candidate, "c", "offering_id")},
            {col(Candidate, "c", "offering_version_id")}, {col(Candidate, "c", "catalogue_kept")},
            {col(Candidate, "c", "node_count")}, {col(Candidate, "c", "quoted_billing_model")},
            {col(Candidate, "c", "quoted_price_per_gpu")},
            CAST({col(Candidate, "c", "scored_at")} AS TEXT),
            {col(Offering, "o", "name")}, CAST({col(Offering, "o", "updated_at")} AS TEXT),
            {vendor_columns},
            answers.n, CAST(answers.changed AS TEXT), answers.total, prices.n, prices.total
        FROM {c} c
        INNER JOIN {o} o ON {col(Offering, "o", "id")} = {col(Candidate, "c", "offering_id")}
        INNER JOIN {v} v ON {col(Vendor, "v", "id")} = {col(Offering, "o", "vendor_id")}
        LEFT JOIN answers ON answers.candidate_id = {col(Candidate, "c", "id")}
        LEFT JOIN prices ON prices.offering_id = {col(Candidate, "c", "offering_id")}
        WHERE {col(Candidate, "c", "evaluation_id")} = %s
        ORDER BY {col(Candidate, "c", "id")}
    """  # noqa: S608 - quoted identifiers from the models, values as parameters
    # The placeholders in order: the answers' codes, the evaluation (answers), the prices'
    # codes, the evaluation (prices), the evaluation (candidates).
    answer_params = params[: len(STATUS_CODES)]
    price_params = params[len(STATUS_CODES) :]
    return sql, [answer_params, price_params]


_compiled: dict[str, tuple[str, list]] = {}


def _fingerprint_rows(evaluation_id: int) -> list[tuple]:
    if connection.vendor not in _compiled:
        _compiled[connection.vendor] = _fingerprint_sql()
    sql, (answer_params, price_params) = _compiled[connection.vendor]
    params = [*answer_params, evaluation_id, *price_params, evaluation_id, evaluation_id]
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
    # Evidence passing the maximum age changes no row: the candidates whose evidence expired
    # since they were scored (a query only when the evaluation sets an age) key the results.
    expired = selectors.evidence_expired_candidates(evaluation=evaluation)
    model = _model_key(evaluation.rubric_version)
    ranking = hashlib.sha256(repr((model, own, rows, expired)).encode()).hexdigest()
    catalogue_rows = [_catalogue_columns(row) for row in rows]
    catalogue = repr((evaluation.pk, evaluation.status, catalogue_rows))
    return ranking, hashlib.sha256(catalogue.encode()).hexdigest()


def evaluation_ranking_data(
    evaluation: Evaluation, *, use_cache: bool = True, fingerprint: str | None = None
) -> dict[str, Any]:
    """The ranking of ``evaluation`` as a fresh computation from its stored facts gives it.
    ``fingerprint``: selectors.results_fingerprint(evaluation), when the caller has it."""
    if not use_cache:
        ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
        return ranking_payload(ranking, candidates, evaluation)
    if fingerprint is None:
        fingerprint = selectors.results_fingerprint(evaluation)
    key = selectors.results_key(evaluation, "api-ranking-payload", fingerprint=fingerprint)
    cached = selectors.cache_get(key)
    if cached is not None:
        return cached
    ranking, candidates = selectors.evaluation_ranking(
        evaluation=evaluation, fingerprint=fingerprint
    )
    payload = ranking_payload(ranking, candidates, evaluation)
    selectors.cache_set(key, payload)
    return payload


def evaluation_robustness_data(
    evaluation: Evaluation, *, draws: int, perturbation_pct: float, seed: int
) -> dict[str, Any]:
    ranking, _none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    result = selectors.evaluation_robustness(
        evaluation=evaluation,
        ranking=ranking,
        draws=draws,
        perturbation_pct=perturbation_pct,
        seed=seed,
        # A client's own parameters: kept in the Django cache alone, never in the table.
        durable=False,
    ).as_dict()
    return {"evaluation": evaluation.pk, **result}
