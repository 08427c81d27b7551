"""Expert scenario: a vendor claims bare metal and the POC nodes show a hypervisor.

The auditor's question is "which evidence line cost this vendor these points?". Every row the
refuted claim moves must quote the node output that refuted it: the isolation rows (the form
the nodes show), the misrepresentation deduction and the efficiency rule gated by the delivery
form check. Before, only the isolation rows did; the -15 deduction and the contradicted
efficiency row came without an evidence line.
"""

from __future__ import annotations

import pytest

from scoring import api
from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.types import MeasuredFacts
from tests.scoring.scoring_factories import candidate, evaluation

V2 = load_rubric("2")
REF = "upload 7 · node-1 lscpu line 3"
FORM_ROWS = (
    "stability.isolation.delivery_form",
    "security.isolation.delivery_form",
    "security.trust.delivery_form_refuted",
    "network.scale.delivery_efficiency",
)


def _rows(result):
    return {c.rule_id: c for d in result.dimensions for c in d.contributions}


def _seen(verdict, seen, key="delivery_form_seen"):
    return MeasuredFacts(
        bare_metal_verdict=verdict,
        bare_metal_confidence=0.95,
        delivery_form_seen=seen,
        evidence_refs={key: REF},
    )


@pytest.mark.parametrize("key", ["delivery_form_seen", "bare_metal_verdict"])
def test_every_row_a_refuted_form_moves_cites_the_evidence(key):
    result = score_candidate(
        candidate(measured=_seen("virtualised", "virtualised", key)), evaluation(), V2
    )
    rows = _rows(result)
    assert rows["security.trust.delivery_form_refuted"].points < 0
    assert rows["network.scale.delivery_efficiency"].inputs["answer.delivery_form"] == (
        "contradicted"
    )
    for rule_id in FORM_ROWS:
        assert rows[rule_id].evidence_ref == REF, rule_id


def test_a_verified_form_cites_the_evidence_that_verified_it():
    rows = _rows(
        score_candidate(candidate(measured=_seen("bare_metal", "bare_metal")), evaluation(), V2)
    )
    assert rows["network.scale.delivery_efficiency"].basis == "measured"
    assert rows["security.trust.delivery_form_refuted"].points == 0
    for rule_id in FORM_ROWS:
        assert rows[rule_id].evidence_ref == REF, rule_id


def test_an_unmeasured_form_cites_nothing():
    rows = _rows(score_candidate(candidate(), evaluation(), V2))
    for rule_id in FORM_ROWS:
        assert rows[rule_id].evidence_ref is None, rule_id


def test_a_large_ranking_quotes_the_same_lines():
    spec = evaluation()
    group = [
        candidate(
            i, measured=_seen("virtualised", "virtualised") if i % 3 == 0 else MeasuredFacts()
        )
        for i in range(1, 61)
    ]
    ranking = api.score_candidates(group, spec, rubric_version="2", explain=True)
    for result, c in zip(sorted(ranking.results, key=lambda r: r.candidate_id), group, strict=True):
        alone = _rows(score_candidate(c, spec, V2))
        rows = _rows(result)
        for rule_id in FORM_ROWS:
            assert rows[rule_id].evidence_ref == alone[rule_id].evidence_ref
            assert rows[rule_id].evidence_ref == (REF if c.candidate_id % 3 == 0 else None)
