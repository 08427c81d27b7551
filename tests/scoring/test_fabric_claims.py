"""Fabric and NVLink claims against what the evidence can show (expert review: fabric claims).

ibstat reads the port type, rate and state of one node: it verifies checklist item 3's ports,
never the switch tree's oversubscription or cross-rack latency, which only a document review
verifies (the derived claim item "fabric_topology"). An oversubscription nobody stated is
missing, not non-blocking. A full NVLink mesh claimed over a grouped board costs what any
refuted claim costs.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from scoring import api
from scoring.dimensions import score_dimensions_columns, score_dimensions_deferred
from scoring.dimensions.engine import evaluate_rule
from scoring.dimensions.facts import FactContext, review_only_status
from scoring.rubric import load_rubric
from scoring.tco import TcoPlan, compute_tco
from scoring.types import ITEM_STATUSES, MeasuredFacts, OfferingFacts, ScoringInputError

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

TOPOLOGY_RULES = ("network.fabric.oversubscription", "network.fabric.cross_rack_latency")
IBSTAT_REF = "upload 3 · node-01 ibstat line 12"
TOPO_REF = "node-01: nvidia-smi-topo.txt (upload 11)"
# 128 GPUs on 16 nodes: traffic between nodes, so the fabric rules apply.
FLEET = evaluation(required_total_gpus=128)


def _ibstat(**changes):
    return MeasuredFacts(
        ib_rate_gbit_s_min=400.0,
        ib_ports_down=0,
        evidence_refs={"ib_rate_gbit_s_min": IBSTAT_REF, "fabric": IBSTAT_REF},
        **changes,
    )


def _fleet(ratio="1", answers=None, reviews=None, measured=None):
    return candidate(
        node_count=16,
        offering=offering(oversubscription_ratio=None if ratio is None else Decimal(ratio)),
        answers=answers or {},
        reviews=reviews or {},
        measured=measured if measured is not None else _ibstat(),
    )


def _rule(result, rule_id):
    return next(c for d in result.dimensions for c in d.contributions if c.rule_id == rule_id)


def test_ibstat_verifying_the_ports_leaves_the_topology_a_claim_citing_no_evidence():
    result = api.score_candidate(_fleet(answers={"fabric": "verified"}), FLEET, rubric_version="2")
    port = _rule(result, "network.fabric.gbit_s_per_gpu")
    # ibstat's rate without a rail count: the claimed NICs at the rate, a claim that the
    # verified item 3 counts in full, citing the ibstat that verified it.
    assert (port.basis, port.points, port.evidence_ref) == ("claimed", 14.0, IBSTAT_REF)
    for rule_id in TOPOLOGY_RULES:
        c = _rule(result, rule_id)
        # 1:1 (8 points) and 1.5 µs (5 points) at the claimed factor, 70 %: never in full.
        assert c.basis == "claimed"
        assert c.inputs["answer.fabric_topology"] == "claimed"
        assert c.inputs["factor"] == 0.7
        assert c.points == pytest.approx(0.7 * c.max_points)
        assert c.evidence_ref is None


@pytest.mark.parametrize(("verdict", "factor"), [("verified", 1.0), ("contradicted", -0.5)])
def test_only_the_document_review_of_item_3_settles_the_topology(verdict, factor):
    # The review counts whatever ibstat says about the ports: verified, contradicted or silent.
    for answers in ({"fabric": "verified"}, {"fabric": "contradicted"}, {"fabric": "claimed"}):
        result = api.score_candidate(
            _fleet(answers=answers, reviews={"fabric": verdict}), FLEET, rubric_version="2"
        )
        for rule_id in TOPOLOGY_RULES:
            c = _rule(result, rule_id)
            assert c.inputs["answer.fabric_topology"] == verdict
            assert c.points == pytest.approx(factor * c.max_points)
            assert c.evidence_ref is None


def test_review_only_status_never_takes_verified_from_the_evidence():
    assert [review_only_status(s, None) for s in ITEM_STATUSES] == [
        "unanswered" if s == "unanswered" else "claimed" if s == "verified" else s
        for s in ITEM_STATUSES
    ]
    assert review_only_status("contradicted", "verified") == "verified"
    assert review_only_status("verified", "contradicted") == "contradicted"


@pytest.mark.parametrize("status", ["unanswered", "claimed", "unverifiable"])
@pytest.mark.parametrize("ratio", ["1", "2", None])
def test_confirming_fabric_evidence_never_lowers_the_total(status, ratio):
    silent = api.score_candidate(
        _fleet(ratio, answers={"fabric": status}, measured=MeasuredFacts()),
        FLEET,
        rubric_version="2",
    )
    confirmed = api.score_candidate(
        _fleet(ratio, answers={"fabric": "verified"}), FLEET, rubric_version="2"
    )
    assert confirmed.total >= silent.total
    assert confirmed.score("network") >= silent.score("network")


@pytest.mark.parametrize("status", ["verified", "claimed", "unanswered"])
def test_a_strictly_better_fabric_never_scores_lower(status):
    ratios = ["4", "2", "1.5", "1"]
    totals = [
        api.score_candidate(
            _fleet(ratio, answers={"fabric": status}, reviews={"fabric": "verified"}),
            FLEET,
            rubric_version="2",
        ).total
        for ratio in ratios
    ]
    assert totals == sorted(totals)
    assert totals[0] < totals[-1]


def test_an_unstated_oversubscription_is_missing_not_non_blocking():
    assert OfferingFacts.__dataclass_fields__["oversubscription_ratio"].default is None
    for answers, reviews in (
        ({"fabric": "verified"}, {}),
        ({"fabric": "verified"}, {"fabric": "verified"}),
        ({}, {}),
    ):
        silent = api.score_candidate(_fleet(None, answers, reviews), FLEET, rubric_version="2")
        honest = api.score_candidate(_fleet("2", answers, reviews), FLEET, rubric_version="2")
        c = _rule(silent, "network.fabric.oversubscription")
        assert (c.basis, c.points, c.max_points) == ("missing", 0.0, 8.0)
        assert silent.score("network") < honest.score("network")
        assert silent.total < honest.total


def test_oversubscription_below_one_is_still_refused():
    with pytest.raises(ScoringInputError, match="at least 1"):
        offering(oversubscription_ratio=Decimal("0.5"))


def test_reviews_must_name_checklist_items_and_verdicts():
    with pytest.raises(ScoringInputError):
        candidate(reviews={"fabric": "claimed"})
    with pytest.raises(ScoringInputError):
        candidate(reviews={"fabric_topology": "verified"})
    assert dict(candidate(reviews={"fabric": "verified"}).reviews) == {"fabric": "verified"}


# --- NVLink: a refuted claim ------------------------------------------------------------------

ONE_NODE = evaluation(workload_profile="finetuning", required_total_gpus=8)


def _nvlink(claim, seen, status):
    refs = {"nvlink_topology": TOPO_REF} if seen else {}
    c = candidate(
        node_count=1,
        offering=offering(nvlink_topology=claim),
        answers={"nvlink_topology": status} if status else {},
        measured=MeasuredFacts(nvlink_topology=seen, evidence_refs=refs),
    )
    return api.score_candidate(c, ONE_NODE, rubric_version="2")


def test_a_full_mesh_claim_over_a_grouped_board_costs_like_any_refuted_claim():
    refuted = _nvlink("full_mesh", "grouped", "contradicted")
    c = _rule(refuted, "network.nvlink.topology")
    # The claim (12 points) at the contradicted factor (-50 %), citing the topo -m output.
    assert c.basis == "claimed"
    assert c.points == -6.0
    assert c.inputs["derived.nvlink_topology"] == "full_mesh"
    # Checklist item 2's status, checked against the GPU's datasheet first.
    assert c.inputs["answer.nvlink_topology_datasheet"] == "contradicted"
    assert c.evidence_ref == TOPO_REF
    honest_verified = _nvlink("grouped", "grouped", "verified")
    honest_claimed = _nvlink("grouped", None, "claimed")
    assert refuted.score("network") < honest_claimed.score("network")
    assert refuted.score("network") < honest_verified.score("network")
    assert refuted.total < honest_verified.total
    # Before: the refuted claim scored the grouped board's 6 points, exactly the honest score.
    assert _rule(honest_verified, "network.nvlink.topology").points == 6.0


def test_confirming_nvlink_evidence_never_lowers_the_total():
    for claim in ("full_mesh", "grouped", "none"):
        for status in ("unanswered", "claimed", "unverifiable"):
            silent = _nvlink(claim, None, status)
            confirmed = _nvlink(claim, claim, "verified")
            assert confirmed.total >= silent.total
    # Better than claimed verifies, and scores what the board is.
    better = _nvlink("grouped", "full_mesh", "verified")
    assert _rule(better, "network.nvlink.topology").points == 12.0


def test_the_batch_kernel_agrees_on_the_new_paths():
    rubric = load_rubric("2")
    pool = []
    for index in range(80):
        status = ("verified", "claimed", "contradicted", "unanswered", "unverifiable")[index % 5]
        review = ({}, {"fabric": "verified"}, {"fabric": "contradicted"})[index % 3]
        ratio = (None, Decimal(1), Decimal(2), Decimal("1.5"))[index % 4]
        seen = (None, "grouped", "full_mesh", "none")[(index // 4) % 4]
        refs = {"fabric": IBSTAT_REF} if index % 2 else {"nvlink_topology": TOPO_REF}
        pool.append(
            candidate(
                candidate_id=index + 1,
                node_count=16,
                offering=offering(
                    oversubscription_ratio=ratio,
                    nvlink_topology=("full_mesh", "grouped")[index % 2],
                ),
                answers={"fabric": status, "nvlink_topology": status},
                reviews=review,
                measured=MeasuredFacts(nvlink_topology=seen, evidence_refs=refs),
            )
        )
    plan = TcoPlan(FLEET)
    tcos = [compute_tco(c, FLEET, rubric, plan) for c in pool]
    eager, columns = score_dimensions_columns(pool, FLEET, rubric, tcos)
    deferred, arrays = score_dimensions_deferred(pool, FLEET, rubric, tcos)
    assert [[repr(x) for x in c] for c in columns] == [
        [repr(x) for x in a.tolist()] for a in arrays
    ]
    for old_row, new_row in zip(eager, deferred, strict=True):
        for old, new in zip(old_row, new_row, strict=True):
            assert new.contributions == old.contributions
    # And each agrees with the rule applied straight from its definition.
    network = [r for r in rubric.rules if r.dimension == "network"]
    for c, tco in zip(pool, tcos, strict=True):
        ctx = FactContext(c, FLEET, rubric, tco)
        for rule in network:
            assert evaluate_rule(rule, ctx) == evaluate_rule(rule, ctx, general=True)
