"""A contradicted checklist item costs the same whatever was claimed under it (rubric v2's
``contradicted_scales``: the factor of each rule's maximum), so a better term under a
contradicted item never lowers a score (expert and auditor review of stop 33).

With the factor scaling each claimed value's points instead, checklist item 7 (SLA terms)
contradicted turned every better term under it into a larger deduction: adding 24x7 support,
a dedicated team, a 15-minute response, 4-hour replacement and monitoring lowered support from
7.14 to 0 and the total from 17.449 to 16.735."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from scoring.ranking import score_candidate
from scoring.rubric import load_rubric, load_rubric_text
from scoring.rubric.loader import rubric_text
from scoring.types import RubricError
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
BARE = {
    "support_24x7": False,
    "support_tier": "ticket_queue",
    "sla_response_time_min": 240,
    "hardware_replacement_hours": 72,
    "monitors_pcie_errors": False,
    "monitors_ecc": False,
    "monitors_thermal": False,
    "sla_availability_pct": Decimal("99.0"),
    "sla_credit_pct": Decimal(0),
}
RICH = {
    "support_24x7": True,
    "support_tier": "dedicated_team",
    "sla_response_time_min": 15,
    "hardware_replacement_hours": 4,
    "monitors_pcie_errors": True,
    "monitors_ecc": True,
    "monitors_thermal": True,
    "sla_availability_pct": Decimal("99.99"),
    "sla_credit_pct": Decimal(25),
}
SLA_RULES = (
    "stability.sla.availability",
    "stability.sla.hardware_replacement",
    "stability.sla.credit",
    "stability.monitoring.pcie_errors",
    "stability.monitoring.ecc_alerts",
    "stability.monitoring.thermal",
    "support.response.fault_response",
    "support.response.24x7",
    "support.team.tier",
)


def _result(terms: dict, status: str):
    c = candidate(offering=offering(**terms), answers={"sla": status})
    return score_candidate(c, evaluation(), V2)


def _rows(result) -> dict:
    return {c.rule_id: c for d in result.dimensions for c in d.contributions}


@pytest.mark.parametrize("status", ["contradicted", "unanswered", "claimed", "verified"])
def test_better_terms_under_the_sla_item_never_score_lower(status):
    bare, rich = _result(BARE, status), _result(RICH, status)
    for dimension in ("stability", "support"):
        assert rich.score(dimension) >= bare.score(dimension), (status, dimension)
    assert rich.total >= bare.total
    if status != "contradicted":
        assert rich.total > bare.total  # the better terms count where the item stands


def test_a_contradicted_item_costs_half_of_each_of_its_rules_maximum():
    rows = _rows(_result(RICH, "contradicted"))
    for rule_id in SLA_RULES:
        row = rows[rule_id]
        if row.basis != "claimed":
            continue
        assert row.points == round(row.max_points * V2.status_factors["contradicted"], 4)
        assert row.inputs["contradicted.max_points"] == row.max_points
    # The refutation still costs: below the item left unanswered, for the rich and the bare.
    for terms in (RICH, BARE):
        assert _result(terms, "contradicted").total < _result(terms, "unanswered").total


def test_a_rubric_that_scales_the_claimed_points_keeps_its_reading():
    # A decided evaluation keeps the rubric text it was decided with: a text without
    # contradicted_scales reads the factor as it always did (of the claimed value's points).
    data = json.loads(rubric_text("2"))
    del data["contradicted_scales"]
    older = load_rubric_text(json.dumps(data))
    assert not any(rule.contradicted_on_max for rule in older.rules)
    c = candidate(offering=offering(**RICH), answers={"sla": "contradicted"})
    row = _rows(score_candidate(c, evaluation(), older))["support.team.tier"]
    assert "contradicted.max_points" not in row.inputs
    claimed_points = older.rule("support.team.tier").table.points("dedicated_team")
    assert row.points == round(claimed_points * older.status_factors["contradicted"], 4)


def test_an_unknown_reading_is_refused():
    data = json.loads(rubric_text("2"))
    data["contradicted_scales"] = "claimed_points"
    with pytest.raises(RubricError, match="contradicted_scales"):
        load_rubric_text(json.dumps(data))
