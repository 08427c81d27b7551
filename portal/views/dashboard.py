"""The manager's dashboard: live ranking, charts, verification matrix; what-if weights."""

from decimal import Decimal, InvalidOperation

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from scoring.api import robustness as robustness_of

from .. import charts, selectors
from ..models import ChecklistItem, Dimension, VerificationStatus
from ..permissions import CAN_DECIDE, CAN_EDIT, CAN_UPLOAD
from .common import member_evaluation

DIMENSIONS = tuple(d.value for d in Dimension)
ROBUSTNESS_DRAWS = 1000
ROBUSTNESS_PERTURBATION_PCT = 20.0
# Charts show the best-ranked candidates only: fifty lines or radar shapes cannot be read (the
# table above them lists everyone).
CHART_CANDIDATES = 10
RADAR_CANDIDATES = 6


def weights_from_query(request: HttpRequest) -> dict[str, Decimal] | None:
    """What-if weights from ?w_<dimension>=…; None when absent or unusable (saved weights)."""
    raw = {d: request.GET.get(f"w_{d}") for d in DIMENSIONS}
    if not any(raw.values()):
        return None
    try:
        weights = {d: Decimal(v or "0") for d, v in raw.items()}
    except InvalidOperation:
        return None
    if any(w < 0 for w in weights.values()) or not any(w > 0 for w in weights.values()):
        return None
    return weights


def _curves(candidates, results) -> dict[str, list[dict]]:
    """Bus bandwidth against message size: the best all_reduce sweep kept by verification."""
    curves = {}
    for r in results:
        curve = (candidates[r.candidate_id].verification or {}).get("busbw_curve")
        if curve:
            curves[r.label] = curve
    return curves


def results_context(evaluation, *, weights=None) -> dict:
    """Everything the ranking, charts and matrix need, from a fixed number of queries."""
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, weights=weights)
    results = list(ranking.results)
    lang = get_language()
    robustness = robustness_of(
        ranking,
        draws=ROBUSTNESS_DRAWS,
        perturbation_pct=ROBUSTNESS_PERTURBATION_PCT,
        seed=evaluation.pk,
    )
    labels = {r.candidate_id: r.label for r in results}
    # Unpriced candidates go in with no cost, so that the chart names them instead of hiding.
    points = [
        (
            r.label,
            None
            if r.tco is None or r.tco.cost_per_effective_gpu_hour is None
            else float(r.tco.cost_per_effective_gpu_hour),
            r.total,
            r.disqualified,
        )
        for r in results[:CHART_CANDIDATES]
    ]
    currency = next((r.tco.currency for r in results if r.tco is not None), None)
    items = list(ChecklistItem.objects.order_by("number"))
    # Built here rather than with {% url %} per cell: the matrix has items x candidates cells.
    base_urls = {
        r.candidate_id: reverse("candidate-detail", args=[evaluation.pk, r.candidate_id])
        for r in results
    }
    statuses = dict(VerificationStatus.choices)
    answers = {
        (a.candidate_id, a.item_id): a.status for c in candidates.values() for a in c.answers.all()
    }
    matrix = []
    for item in items:
        row = []
        for r in results:
            status = answers.get((r.candidate_id, item.pk))
            row.append(
                {
                    "url": f"{base_urls[r.candidate_id]}#item-{item.key}",
                    "status": status or "unanswered",
                    "label": statuses[status] if status else _("Missing"),
                }
            )
        matrix.append({"item": item, "cells": row})
    rows = [
        {
            "rank": index,
            "result": r,
            "candidate": candidates[r.candidate_id],
            "scores": [r.score(d) for d in DIMENSIONS],
            "first_share": robustness.stability.first_share.get(r.candidate_id),
            "answered": sum(
                1 for a in candidates[r.candidate_id].answers.all() if a.status != "unanswered"
            ),
        }
        for index, r in enumerate(results, start=1)
    ]
    by_other: dict[int, dict[str, float | None]] = {}
    for flip in robustness.flips:
        by_other.setdefault(flip.other_id, {})[flip.dimension] = flip.change_pp
    flips_table = [
        {"label": labels[other], "cells": [changes.get(d) for d in DIMENSIONS]}
        for other, changes in by_other.items()
    ]
    figures = {
        "radar": charts.radar(results[:RADAR_CANDIDATES], lang=lang),
        "contributions": charts.contributions_bars(
            results[:CHART_CANDIDATES], ranking.weights, lang=lang
        ),
        "tco": charts.tco_bars(results[:CHART_CANDIDATES], lang=lang),
        "busbw": charts.busbw_curves(_curves(candidates, results[:CHART_CANDIDATES]), lang=lang),
        "value": charts.value_for_money(points, currency=currency, lang=lang),
        "robustness": charts.robustness_bars(robustness, labels, lang=lang),
    }
    return {
        "ranking": ranking,
        "rows": rows,
        "dimensions": [Dimension(d) for d in DIMENSIONS],
        "weights": ranking.weights,
        "robustness": robustness,
        "labels": labels,
        "flips_table": flips_table,
        "matrix": matrix,
        "checklist_size": len(items),
        "matrix_candidates": [candidates[r.candidate_id] for r in results],
        "figures": figures,
        "what_if": weights is not None,
    }


@login_required
def evaluation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "can_edit": membership.role in CAN_EDIT,
        "can_upload": membership.role in CAN_UPLOAD,
        "can_decide": membership.role in CAN_DECIDE,
        **results_context(evaluation, weights=weights_from_query(request)),
    }
    return render(request, "portal/evaluation_detail.html", context)


@login_required
def evaluation_results(request: HttpRequest, pk: int) -> HttpResponse:
    """The ranking and charts alone (htmx), for what-if weights without a full reload."""
    evaluation, membership = member_evaluation(request, pk)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        **results_context(evaluation, weights=weights_from_query(request)),
    }
    return render(request, "portal/_evaluation_results.html", context)
