"""A form the NVIDIA driver names refutes a more favourable claim, as it verifies an equal one.

Noted in the stop-29 review: a node whose driver reported vGPU mode verified a vGPU claim
however unsure the hypervisor verdict was, yet left a passthrough or bare-metal claim
"claimed" at the same verdict. Trusting the driver only where it favours the vendor is not
honest: the claim is now scored as the form the driver names, "contradicted", and a
bare-metal must-have says the driver reported it.
"""

from __future__ import annotations

import pytest

from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.types import MeasuredFacts
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
UNSURE = 0.65  # a virtualised verdict below the rubric's confidence
ISOLATION_POINTS = {
    "stability.isolation.delivery_form": {"passthrough_vm": 8, "vgpu": 4},
    "security.isolation.delivery_form": {"passthrough_vm": 10, "vgpu": 5},
}


def _unsure(seen: str) -> MeasuredFacts:
    return MeasuredFacts(
        bare_metal_verdict="virtualised",
        bare_metal_confidence=UNSURE,
        delivery_form_seen=seen,
        evidence_refs={
            "bare_metal_verdict": "upload 3 · nvidia-smi -q line 14",
            "delivery_form_seen": "upload 3 · nvidia-smi -q line 14",
        },
    )


def test_the_confidence_used_here_is_below_the_rubrics():
    assert V2.bare_metal_min_confidence > UNSURE


@pytest.mark.parametrize(
    ("claimed", "seen"),
    [("bare_metal", "passthrough_vm"), ("bare_metal", "vgpu"), ("passthrough_vm", "vgpu")],
)
def test_a_named_form_less_favourable_than_the_claim_contradicts_it(claimed, seen):
    assert V2.delivery_form_check(claimed, "virtualised", UNSURE, seen) == (seen, "contradicted")
    assert V2.observed_delivery_form(claimed, "virtualised", UNSURE, seen) == (seen, "measured")
    # The same as a confident verdict gives.
    assert V2.delivery_form_check(claimed, "virtualised", 0.99, seen) == (seen, "contradicted")


@pytest.mark.parametrize(
    ("claimed", "seen"),
    [
        ("vgpu", "passthrough_vm"),  # a more favourable form than claimed refutes nothing
        ("container", "vgpu"),
        ("mig", "vgpu"),  # MIG-backed vGPU: a MIG claim is about the GPU
        ("passthrough_vm", "virtualised"),  # only a hypervisor: the form under it is unknown
        ("bare_metal", "virtualised"),  # that needs the verdict's confidence
    ],
)
def test_other_unsure_evidence_leaves_the_claim_claimed(claimed, seen):
    assert V2.delivery_form_check(claimed, "virtualised", UNSURE, seen) == (claimed, "claimed")


def _rows(measured: MeasuredFacts) -> dict:
    c = candidate(offering=offering(delivery_form="passthrough_vm"), measured=measured)
    return {
        row.rule_id: row
        for dimension in score_candidate(c, evaluation(), V2).dimensions
        for row in dimension.contributions
    }


@pytest.mark.parametrize("rule_id", sorted(ISOLATION_POINTS))
def test_the_refuted_claim_scores_as_the_named_form(rule_id):
    row = _rows(_unsure("vgpu"))[rule_id]
    assert row.inputs["derived.delivery_form"] == "vgpu"
    assert row.inputs["answer.delivery_form"] == "contradicted"
    # The contradicted factor of the rule's maximum, whichever form was named.
    assert row.points == row.max_points * V2.status_factors["contradicted"] < 0


def test_unsure_and_confident_verdicts_score_a_named_form_alike():
    confident = _rows(
        MeasuredFacts(
            bare_metal_verdict="virtualised",
            bare_metal_confidence=0.99,
            delivery_form_seen="vgpu",
            evidence_refs=_unsure("vgpu").evidence_refs,
        )
    )
    unsure = _rows(_unsure("vgpu"))
    assert unsure["security.trust.delivery_form_refuted"].points < 0
    for rule_id, row in confident.items():
        if "delivery" in rule_id:
            assert (unsure[rule_id].points, unsure[rule_id].basis) == (row.points, row.basis)


def test_a_bare_metal_must_have_names_the_drivers_mode():
    c = candidate(
        offering=offering(delivery_form="bare_metal"),
        node_count=16,
        measured=_unsure("passthrough_vm"),
    )
    result = score_candidate(c, evaluation(required_total_gpus=128), V2)
    (knockout,) = [k for k in result.knockouts if k.code == "delivery_form"]
    assert "the NVIDIA driver on a node reports Pass-Through mode" in knockout.reason_en
    assert "NVIDIA 驱动报告为直通（Pass-Through）模式" in knockout.reason_zh
    assert "confidence" not in knockout.reason_en
    assert knockout.evidence_ref == "upload 3 · nvidia-smi -q line 14"


def test_a_confident_verdict_without_a_named_form_keeps_its_confidence_in_the_reason():
    measured = MeasuredFacts(
        bare_metal_verdict="virtualised",
        bare_metal_confidence=0.93,
        delivery_form_seen="virtualised",
    )
    c = candidate(offering=offering(delivery_form="bare_metal"), node_count=16, measured=measured)
    result = score_candidate(c, evaluation(required_total_gpus=128), V2)
    (knockout,) = [k for k in result.knockouts if k.code == "delivery_form"]
    assert "virtualised host (confidence 0.93)" in knockout.reason_en
    assert "置信度 0.93" in knockout.reason_zh
