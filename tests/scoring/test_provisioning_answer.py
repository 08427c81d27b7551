"""Expert review F7: a provisioning time of 0 minutes (capacity available now) is an answer;
only None is unanswered."""

from __future__ import annotations

import pytest

from scoring.api import score_candidates
from scoring.dimensions.engine import evaluate_rule
from scoring.dimensions.facts import FactContext
from scoring.rubric import load_rubric
from scoring.types import ScoringInputError

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
RULE = next(rule for rule in V2.rules if rule.inputs == ("derived.elasticity_fit",))


def _fit(minutes, workload="inference"):
    item = candidate(offering=offering(delivery_form="container", provisioning_time_min=minutes))
    ctx = FactContext(item, evaluation(workload_profile=workload), V2, None)
    return evaluate_rule(RULE, ctx), evaluate_rule(RULE, ctx, general=True)


def test_zero_minutes_is_the_best_answer_and_none_is_unanswered():
    assert V2.v2.elasticity_fit("inference", "container", None) == 0.0
    assert V2.v2.elasticity_fit("inference", "container", 0) == 1.0
    assert V2.v2.elasticity_fit("inference", "container", 0) >= V2.v2.elasticity_fit(
        "inference", "container", 5
    )
    now, now_reference = _fit(0)
    unanswered, unanswered_reference = _fit(None)
    assert now == now_reference and unanswered == unanswered_reference
    assert now.points > 0 and unanswered.points == 0
    assert now.inputs["derived.elasticity_fit"] == 1.0


def test_capacity_available_now_scores_support_above_an_unanswered_time():
    spec = evaluation(workload_profile="inference", required_total_gpus=8)
    minutes = (0, None, 240)
    for copies in (1, 30):  # 90 candidates go through the numpy kernel
        pool = [
            candidate(i, node_count=1, offering=offering(provisioning_time_min=minutes[i % 3]))
            for i in range(3 * copies)
        ]
        ranking = score_candidates(pool, spec, rubric_version="2")
        support = {minutes[r.candidate_id % 3]: r.score("support") for r in ranking.results}
        assert support[0] > support[240] >= support[None]


def test_a_negative_time_is_refused_and_the_default_is_unanswered():
    assert offering().provisioning_time_min is None
    with pytest.raises(ScoringInputError):
        offering(provisioning_time_min=-1)


def test_an_unstated_provisioning_time_reads_as_missing_not_as_a_claimed_fit():
    # Honesty (GPU expert review): the 0.0 fit of an unanswered time was shown as a claimed
    # fit of 0.0, hiding that nothing was stated; the points are the same (0).
    unanswered, unanswered_reference = _fit(None)
    assert unanswered == unanswered_reference
    assert unanswered.basis == "missing"
    assert unanswered.inputs["derived.elasticity_fit"] is None
    assert unanswered.points == 0
    # A workload whose fit does not read the time (dedicated capacity by form) is unaffected.
    training, _ = _fit(None, workload="pretraining")
    assert training.basis != "missing"
