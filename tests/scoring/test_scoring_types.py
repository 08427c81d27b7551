"""Input validation of the scoring dataclasses: malformed inputs raise typed, clear errors."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from decimal import Decimal

import pytest

from scoring.types import (
    CandidateInput,
    EvaluationSpec,
    MeasuredFacts,
    Money,
    Price,
    ScoringInputError,
    VendorFacts,
    money_sum,
    to_decimal,
)

try:
    from scoring_factories import candidate, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, offering


def test_float_money_is_refused_with_a_hint():
    with pytest.raises(ScoringInputError, match=r"not float .*Decimal\('12.5'\)"):
        Price("hourly", 12.5)


def test_money_accepts_int_and_numeric_strings():
    assert Money(3, "CNY").amount == Decimal(3)
    assert Price("monthly", "12000.50").price_per_gpu == Decimal("12000.50")


def test_money_sum_and_quantize_half_even():
    total = money_sum([Money(Decimal("0.125"), "USD"), Money(Decimal("0.01"), "USD")], "USD")
    assert total.quantized() == Money(Decimal("0.14"), "USD")
    assert Money(Decimal("0.125"), "USD").quantized().amount == Decimal("0.12")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "must be a number"),
        ("NaN", "must be finite"),
        (True, "not bool"),
        ([1], "must be a Decimal"),
    ],
)
def test_to_decimal_rejects_garbage(value, message):
    with pytest.raises(ScoringInputError, match=message):
        to_decimal(value, "price")


def test_unknown_currency_and_billing_model():
    with pytest.raises(ScoringInputError, match="currency must be one of CNY, USD"):
        Money(Decimal(1), "EUR")
    with pytest.raises(ScoringInputError, match="billing_model must be one of"):
        Price("weekly", Decimal(1))


def test_duplicate_billing_model_is_refused():
    with pytest.raises(ScoringInputError, match="lists a billing model twice"):
        offering(prices=(Price("hourly", Decimal(1)), Price("hourly", Decimal(2))))


def test_prices_are_kept_in_billing_model_order_and_accept_pairs():
    listed = offering(prices=[("yearly", Decimal(9)), ("hourly", Decimal(1))])
    assert [p.billing_model for p in listed.prices] == ["hourly", "yearly"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"delivery_form": "cloud"}, "delivery_form must be one of"),
        ({"gpus_per_node": 0}, "gpus_per_node must be at least 1"),
        ({"fabric": "omnipath"}, "fabric must be one of"),
        ({"oversubscription_ratio": Decimal("0.5")}, "oversubscription_ratio must be at least 1"),
        ({"sla_availability_pct": Decimal(101)}, r"sla_availability_pct must be in \(0, 100\]"),
        ({"spot_preemption_risk_pct": Decimal(100)}, "must be below 100"),
        ({"storage_cost_month": Decimal(-1)}, "storage_cost_month must be at least 0"),
        ({"setup_fee": 10.0}, "setup_fee must be a Decimal"),
        ({"mfa": "yes"}, "mfa must be True or False"),
        ({"gpu_memory_gib": 80.0}, "gpu_memory_gib must be an integer"),
    ],
)
def test_offering_validation(changes, message):
    with pytest.raises(ScoringInputError, match=message):
        offering(**changes)


def test_candidate_answers_must_use_checklist_keys_and_statuses():
    with pytest.raises(ScoringInputError, match="checklist key must be one of"):
        candidate(answers={"price": "verified"})
    with pytest.raises(ScoringInputError, match="status of fabric must be one of"):
        candidate(answers={"fabric": "maybe"})


def test_candidate_needs_typed_parts_and_a_node():
    with pytest.raises(ScoringInputError, match="node_count must be at least 1"):
        candidate(node_count=0)
    with pytest.raises(ScoringInputError, match="vendor and offering must be"):
        CandidateInput(1, "x", {"name": "v"}, offering())


def test_measured_facts_validation():
    with pytest.raises(ScoringInputError, match="busbw_fraction must be a finite number"):
        MeasuredFacts(busbw_fraction=float("nan"))
    with pytest.raises(ScoringInputError, match="bare_metal_verdict must be one of"):
        MeasuredFacts(bare_metal_verdict="vm")
    with pytest.raises(ScoringInputError, match=r"bare_metal_confidence must be in 0\.\.1"):
        MeasuredFacts(bare_metal_confidence=1.5)
    with pytest.raises(ScoringInputError, match="dcgm_failed_tests must be a list"):
        MeasuredFacts(dcgm_failed_tests="memtest")
    with pytest.raises(ScoringInputError, match="xid_errors must be at least 0"):
        MeasuredFacts(xid_errors=-1)


def test_measured_facts_drop_empty_references_and_freeze_the_mapping():
    facts = MeasuredFacts(evidence_refs={"busbw_fraction": "upload 3 · line 9", "xid_errors": ""})
    assert dict(facts.evidence_refs) == {"busbw_fraction": "upload 3 · line 9"}
    with pytest.raises(TypeError):
        facts.evidence_refs["x"] = "y"  # type: ignore[index]
    assert facts.ref("xid_errors", "busbw_fraction") == "upload 3 · line 9"


def test_evaluation_validation():
    with pytest.raises(ScoringInputError, match="expected_idle_days must be at most 30"):
        EvaluationSpec("pretraining", 8, duration_days=30, expected_idle_days=31)
    with pytest.raises(ScoringInputError, match="workload_profile must be one of"):
        EvaluationSpec("gaming", 8)
    with pytest.raises(ScoringInputError, match="required_mlps_level must be at most 4"):
        EvaluationSpec("pretraining", 8, required_mlps_level=5)


def test_inputs_are_frozen():
    with pytest.raises(FrozenInstanceError):
        candidate().node_count = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        candidate(answers={"sla": "claimed"}).answers["sla"] = "verified"  # type: ignore[index]
    assert VendorFacts("v") == VendorFacts("v")


def test_slotted_results_pickle_as_their_fields_and_read_the_older_state():
    """Contribution and DimensionScore pickle as their slots' values in field order (no
    dataclasses.fields() per object); a state pickled by dataclasses' own __getstate__ (a list
    in field order) still loads."""
    import pickle
    from dataclasses import astuple, fields

    from scoring.types.results import Contribution, DimensionScore

    contribution = Contribution(
        "rule", "Rule", "规则", {"fact": "1.5"}, 2.0, 4.0, "measured", "upload 3 line 7"
    )
    score = DimensionScore("cost", 50.0, (contribution, contribution))
    for value in (contribution, score):
        again = pickle.loads(pickle.dumps(value))  # noqa: S301 - pickled just above
        assert again == value
        assert astuple(again) == astuple(value)
    assert contribution.__getstate__() == tuple(
        getattr(contribution, f.name) for f in fields(Contribution)
    )
    older = Contribution.__new__(Contribution)
    older.__setstate__([getattr(contribution, f.name) for f in fields(Contribution)])
    assert older == contribution
    with pytest.raises(ValueError):
        Contribution.__new__(Contribution).__setstate__(["rule", "Rule"])


def test_facts_kept_as_given_only_when_the_checks_would_keep_them():
    """OfferingFacts and MeasuredFacts leave a plain bool, a finite non-negative Decimal or
    float in place (one pass) and send every other value through the checks as before."""
    plain = offering(storage_cost_month=Decimal("12.50"), rtt_ms=Decimal("0.4"), mfa=True)
    assert plain.storage_cost_month == Decimal("12.50") and plain.mfa is True
    converted = offering(storage_cost_month=12, rtt_ms="3.5")
    assert type(converted.storage_cost_month) is Decimal and converted.storage_cost_month == 12
    assert converted.rtt_ms == Decimal("3.5")
    with pytest.raises(ScoringInputError, match="storage_cost_month must be at least 0"):
        offering(storage_cost_month=Decimal(-1))
    with pytest.raises(ScoringInputError, match="rtt_ms must be finite"):
        offering(rtt_ms=Decimal("NaN"))
    with pytest.raises(ScoringInputError, match="setup_fee must be a Decimal"):
        offering(setup_fee=1.5)
    with pytest.raises(ScoringInputError, match="mfa must be True or False"):
        offering(mfa=1)
    measured = MeasuredFacts(peak_busbw_gbyte_s=200, busbw_fraction=1.2, xid_errors=0)
    assert type(measured.peak_busbw_gbyte_s) is float and measured.busbw_fraction == 1.0
    with pytest.raises(ScoringInputError, match="busbw_fraction must be a finite number"):
        MeasuredFacts(busbw_fraction=float("inf"))
    with pytest.raises(ScoringInputError, match="xid_errors must be at least 0"):
        MeasuredFacts(xid_errors=-1)
    with pytest.raises(ScoringInputError, match="xid_errors must be an integer"):
        MeasuredFacts(xid_errors=True)


def test_unknown_answers_are_refused_as_before():
    """CandidateInput checks its answers' keys and statuses in one pass each, and still names
    the first unknown key or status (an unhashable status too)."""
    base = candidate()
    good = CandidateInput(
        candidate_id=1,
        label="a",
        vendor=base.vendor,
        offering=base.offering,
        answers={"gpu_match": "claimed", "fabric": "verified"},
    )
    assert dict(good.answers) == {"gpu_match": "claimed", "fabric": "verified"}
    for answers, message in (
        ({"gpu_match": "claimed", "nope": "claimed"}, "checklist key must be one of"),
        ({"gpu_match": "maybe"}, "status of gpu_match must be one of"),
        ({"gpu_match": ["claimed"]}, "status of gpu_match must be one of"),
    ):
        with pytest.raises(ScoringInputError, match=message):
            CandidateInput(
                candidate_id=1,
                label="a",
                vendor=base.vendor,
                offering=base.offering,
                answers=answers,
            )
