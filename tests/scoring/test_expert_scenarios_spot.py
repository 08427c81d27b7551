"""Expert scenario: a vendor quotes only spot for a long pre-training run.

Rubric v2 (billing section, issue #10 §3) never recommends spot for a long synchronous job.
A candidate whose only price is spot therefore has no price the job can use: its TCO still
shows the spot figure, flagged, but the cost score and the budget check must not reward a
price the rubric itself refuses (before this, a spot-only quote scored the best cost of the
evaluation and passed the budget on a figure the TCO said to replace).
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring import api
from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.tco import FLOAT_MIN_CANDIDATES, compute_tco
from scoring.types import Price
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
SPOT_ONLY = (Price("spot", Decimal("6.00")),)
NO_PRICE = ()


def _cost(c, spec):
    return score_candidate(c, spec, V2).score("cost")


def test_a_refused_spot_only_quote_scores_cost_like_no_price():
    spec = evaluation()  # pre-training, 90 days, 2 nodes: spot is refused
    spot_only = candidate(offering=offering(prices=SPOT_ONLY))
    unpriced = candidate(offering=offering(prices=NO_PRICE))
    monthly = candidate()
    assert _cost(spot_only, spec) == _cost(unpriced, spec)
    assert _cost(spot_only, spec) < _cost(monthly, spec)
    result = score_candidate(spot_only, spec, V2)
    rule = next(
        c
        for d in result.dimensions
        for c in d.contributions
        if c.rule_id == "cost.tco.effective_gpu_hour"
    )
    assert (rule.points, rule.basis) == (0.0, "missing")


def test_the_tco_keeps_the_spot_figure_and_says_what_it_assumed():
    tco = compute_tco(candidate(offering=offering(prices=SPOT_ONLY)), evaluation(), V2)
    assert tco.recommended == "spot" and tco.spot_refused
    assert "ask for another model" in tco.recommended_reason[0]
    codes = {code: (en, zh) for code, en, zh in tco.assumptions()}
    assert "cost score counts no usable price" in codes["spot_refused"][0]
    assert "竞价实例" in codes["spot_refused"][1]
    assert {"code": "spot_refused", "en": codes["spot_refused"][0]}.items() <= next(
        a for a in tco.as_dict()["assumptions"] if a["code"] == "spot_refused"
    ).items()


def test_a_refused_spot_only_quote_cannot_meet_a_budget():
    spec = evaluation(budget_total=Decimal("10000000"))
    result = score_candidate(candidate(offering=offering(prices=SPOT_ONLY)), spec, V2)
    assert result.disqualified
    (knockout,) = result.knockouts
    assert knockout.code == "budget_unknown"
    assert "only spot is priced" in knockout.reason_en
    assert "竞价实例" in knockout.reason_zh


@pytest.mark.parametrize(
    ("workload", "nodes", "days"),
    [
        ("inference", 2, 90),  # requests restart on their own
        ("finetuning", 1, 90),  # one node is not a synchronous multi-node run
        ("pretraining", 2, 3),  # within the checkpoint-free window
    ],
)
def test_spot_that_the_job_can_use_keeps_its_price(workload, nodes, days):
    spec = evaluation(workload_profile=workload, duration_days=days, expected_idle_days=0)
    c = candidate(offering=offering(prices=SPOT_ONLY), node_count=nodes)
    tco = compute_tco(c, spec, V2)
    assert not tco.spot_refused
    assert all(code != "spot_refused" for code, _, _ in tco.assumptions())
    assert _cost(c, spec) > _cost(candidate(offering=offering(prices=NO_PRICE)), spec)


def test_rubric_v1_still_prices_spot_for_a_long_run():
    v1 = load_rubric("1")
    tco = compute_tco(candidate(offering=offering(prices=SPOT_ONLY)), evaluation(), v1)
    assert not tco.spot_refused


@pytest.mark.parametrize("budget", [None, Decimal("10000000")])
def test_a_large_ranking_reads_the_same_figures(budget):
    # From FLOAT_MIN_CANDIDATES candidates the ranking settles figures from float columns.
    spec = evaluation(budget_total=budget)
    count = FLOAT_MIN_CANDIDATES + 4
    group = [
        candidate(
            i,
            offering=offering(prices=SPOT_ONLY if i % 2 else (Price("monthly", Decimal(12000)),)),
        )
        for i in range(1, count + 1)
    ]
    ranking = api.score_candidates(group, spec, rubric_version="2")
    singles = {c.candidate_id: score_candidate(c, spec, V2) for c in group}
    for result in ranking.results:
        alone = singles[result.candidate_id]
        assert result.scores == alone.scores
        assert [k.code for k in result.knockouts] == [k.code for k in alone.knockouts]
        if result.candidate_id % 2:
            assert result.score("cost") == 0.0
            assert result.disqualified == (budget is not None)
