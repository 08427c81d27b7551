"""Issue #10, third pass: monotonicity of claims, evidence and POC runs under rubric v2.

Hypothesis properties over random candidates (tests/scoring/scoring_factories.py):
- verifying a claim never lowers the total;
- a contradicted claim never scores above the same claim unanswered;
- a failed or missing POC run never raises a score (scoring/poc/findings.py shortfalls);
- adding evidence that confirms the claim never lowers the total.
"""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import poc
from scoring.ranking import score_candidate
from scoring.rubric import load_rubric
from scoring.types import CHECKLIST_KEYS
from tests.scoring.scoring_factories import candidates, evaluations

RUBRIC = load_rubric("2")
PROPERTY = settings(max_examples=80, deadline=None)
EPS = 1e-9


def _result(c, spec):
    return score_candidate(c, spec, RUBRIC)


def _no_worse(better, worse) -> bool:
    """``better`` ranks at least as well: not knocked out when ``worse`` is not, total >=."""
    if better.disqualified and not worse.disqualified:
        return False
    return better.total >= worse.total - EPS


def _with_answer(c, key, status):
    answers = dict(c.answers)
    if status == "unanswered":
        answers.pop(key, None)
    else:
        answers[key] = status
    return replace(c, answers=answers)


keys = st.sampled_from(CHECKLIST_KEYS)


@PROPERTY
@given(c=candidates(candidate_id=1), spec=evaluations, key=keys)
def test_verifying_a_claim_never_lowers_the_total(c, spec, key):
    verified = _result(_with_answer(c, key, "verified"), spec)
    for other in ("claimed", "unanswered", "unverifiable", "contradicted"):
        assert _no_worse(verified, _result(_with_answer(c, key, other), spec)), (key, other)


@PROPERTY
@given(c=candidates(candidate_id=1), spec=evaluations, key=keys)
def test_a_contradicted_claim_never_scores_above_the_same_claim_unanswered(c, spec, key):
    contradicted = _result(_with_answer(c, key, "contradicted"), spec)
    unanswered = _result(_with_answer(c, key, "unanswered"), spec)
    assert _no_worse(unanswered, contradicted), key


shortfall_lists = st.lists(
    st.builds(
        poc.PocShortfall,
        run_key=st.sampled_from(("r1", "r2@gpu01", "r3@gpu01~gpu02")),
        kind=st.sampled_from(sorted(poc.RUN_LABELS)),
        reason=st.sampled_from(poc.REASONS),
    ),
    min_size=1,
    max_size=4,
)


@PROPERTY
@given(c=candidates(candidate_id=1), spec=evaluations, found=shortfall_lists)
def test_a_failed_or_missing_poc_run_never_raises_a_score(c, spec, found):
    before = _result(c, spec)
    after = _result(poc.candidate_with_poc(c, found), spec)
    assert _no_worse(before, after)
    for dimension, value in after.scores.items():
        assert value <= before.scores[dimension] + EPS, dimension


def _confirming(c):
    """MeasuredFacts that confirm what the offering claims: its delivery form (a bare-metal
    verdict for bare metal, the form a node names for passthrough or vGPU), its NVLink
    topology, its fabric rate and its NVMe bandwidth."""
    o = c.offering
    changes = {"nvlink_topology": o.nvlink_topology}
    if o.delivery_form == "bare_metal":
        changes.update(
            bare_metal_verdict="bare_metal",
            bare_metal_confidence=0.95,
            delivery_form_seen="bare_metal",
        )
    elif o.delivery_form in ("passthrough_vm", "vgpu"):
        changes.update(
            bare_metal_verdict="virtualised",
            bare_metal_confidence=0.95,
            delivery_form_seen=o.delivery_form,
        )
    if o.fabric_rate_gbit_s:
        # The claimed NICs Active at the claimed rate: the rate alone confirms nothing of the
        # NIC count (hypothesis found a candidate whose evidence already showed one rail of
        # eight; adding the claimed rate then rightly scored the one rail measured).
        changes["ib_rate_gbit_s_min"] = float(o.fabric_rate_gbit_s)
        changes["ib_rails_min"] = o.nics_per_node
        changes["ib_ports_down"] = 0
    if o.nvme_read_gbyte_s:
        changes["nvme_read_mbyte_s"] = float(o.nvme_read_gbyte_s) * 1000
    if o.nvme_write_gbyte_s:
        changes["nvme_write_mbyte_s"] = float(o.nvme_write_gbyte_s) * 1000
    return changes


@PROPERTY
@given(
    c=candidates(candidate_id=1),
    spec=evaluations,
    which=st.sets(
        st.sampled_from(
            (
                "nvlink_topology",
                "delivery",
                "ib_rate_gbit_s_min",
                "nvme_read_mbyte_s",
                "nvme_write_mbyte_s",
            )
        ),
        min_size=1,
    ),
)
def test_adding_evidence_that_confirms_the_claim_never_lowers_the_total(c, spec, which):
    # Start from a candidate that measured none of what is added.
    confirm = _confirming(c)
    delivery = ("bare_metal_verdict", "bare_metal_confidence", "delivery_form_seen")
    blank = {k: None for k in confirm}
    base = replace(c, measured=replace(c.measured, **blank))
    chosen = {
        k: v
        for k, v in confirm.items()
        if k in which
        or (k in delivery and "delivery" in which)
        or (k in ("ib_ports_down", "ib_rails_min") and "ib_rate_gbit_s_min" in which)
    }
    confirmed = replace(base, measured=replace(base.measured, **chosen))
    assert _no_worse(_result(confirmed, spec), _result(base, spec)), chosen
