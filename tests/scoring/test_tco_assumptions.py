"""What a TCO assumed rather than read is said in its assumptions (expert review F5).

The report prints Tco.assumptions() under each cost table. It used to say nothing of an
availability taken at the rubric's floor or discounted as a claim, nor of the operations staff
self-managed bare metal adds: an auditor could not see what the cost per effective GPU-hour
rested on. Each line comes in English and Chinese.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")


def _lines(item, spec=None):
    tco = compute_tco(item, spec or evaluation(), V2)
    return {code: (en, zh) for code, en, zh in tco.assumptions()}, tco


@pytest.mark.parametrize(
    ("sla", "credit", "answers", "code"),
    [
        (None, "0", {}, "availability_unanswered"),
        ("99.9", "10", {"sla": "contradicted"}, "availability_contradicted"),
        ("99.9", "10", {}, "availability_stated"),
        ("99.9", "10", {"sla": "claimed"}, "availability_stated"),
        ("99.99", "0.01", {"sla": "verified"}, "availability_unbacked"),
    ],
)
def test_an_availability_the_sla_does_not_back_is_said(sla, credit, answers, code):
    made = offering(
        sla_availability_pct=None if sla is None else Decimal(sla), sla_credit_pct=Decimal(credit)
    )
    lines, tco = _lines(candidate(offering=made, answers=answers))
    en, zh = lines[code]
    shown = f"{(tco.availability * 100).normalize():f} %"
    assert shown in en and shown in zh
    assert not {c for c in lines if c.startswith("availability_")} - {code}


def test_a_verified_backed_sla_needs_no_line():
    made = offering(sla_availability_pct=Decimal("99.9"), sla_credit_pct=Decimal(10))
    lines, tco = _lines(candidate(offering=made, answers={"sla": "verified"}))
    assert tco.availability_basis == "verified"
    assert not [code for code in lines if code.startswith("availability_")]


def test_the_operations_staff_of_self_managed_bare_metal_is_said():
    spec = evaluation(ops_capacity="none", ops_staff_cost_month=Decimal(40000))
    lines, _tco = _lines(candidate(), spec)
    en, zh = lines["operations_staff"]
    fte = V2.v2.ops_fte["none"]
    rate = f"40000 {spec.budget_currency}"
    assert "no operations team" in en and f"{fte.normalize():f}" in en and rate in en
    assert "无运维团队" in zh and rate in zh
    platform, _ = _lines(candidate(), evaluation(ops_capacity="platform_team"))
    assert "operations_staff" not in platform
