"""The live ranking and its robustness as plain JSON-ready data (the API's computed endpoints)."""

from __future__ import annotations

from typing import Any

from scoring.api import robustness as scoring_robustness

from .. import selectors
from ..models import Evaluation


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


def evaluation_ranking_data(evaluation: Evaluation) -> dict[str, Any]:
    """The ranking of ``evaluation`` computed now from its stored facts."""
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    return ranking_payload(ranking, candidates, evaluation)


def evaluation_robustness_data(
    evaluation: Evaluation, *, draws: int, perturbation_pct: float, seed: int
) -> dict[str, Any]:
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    result = scoring_robustness(
        ranking, draws=draws, perturbation_pct=perturbation_pct, seed=seed
    ).as_dict()
    return {"evaluation": evaluation.pk, **result}
