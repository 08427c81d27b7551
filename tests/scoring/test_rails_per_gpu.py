"""Compute rails per GPU (expert review: the rails rule counted NICs per node).

A rail-optimised node gives each GPU its own NIC: 8 NICs for 8 GPUs, 4 for 4. The rule scores
rails per GPU, so a 4-GPU node with 4 NICs is as rail-optimised as an 8-GPU node with 8. Where
ibstat ran, the rails it shows Active on the worst node count (at most the NICs claimed), as
measured: a port down costs its rail in the network score and in the fabric share the cost
reads. A claim the evidence refuted is scored as the claim, at the contradicted factor.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import api
from scoring.dimensions import score_dimensions_columns, score_dimensions_deferred
from scoring.fabric_share import declared_fabric
from scoring.rubric import load_rubric
from scoring.tco import pending_tcos
from scoring.types import DIMENSIONS, MeasuredFacts
from scoring.verification import measured_facts, verify_candidate

try:
    from scoring_factories import candidate, evaluation, offering
    from test_verification_fact_refs import claims, parsed
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering
    from .test_verification_fact_refs import claims, parsed

RULE = "network.fabric.rails"
IBSTAT_REF = "upload 4 · gpu-02 · ibstat ibstat.txt"
# 64 GPUs: traffic between nodes on 4- and 8-GPU nodes alike, so the fabric rules apply.
FLEET = evaluation(required_total_gpus=64)
RUBRIC = load_rubric("2")


def _rails(result):
    return next(c for d in result.dimensions for c in d.contributions if c.rule_id == RULE)


def _node(gpus: int, nics: int, **changes):
    return candidate(
        node_count=max(1, 64 // gpus),
        offering=offering(gpus_per_node=gpus, nics_per_node=nics),
        **changes,
    )


@pytest.mark.parametrize(
    ("gpus", "nics", "points"),
    [(8, 8, 10.0), (4, 4, 10.0), (8, 4, 7.0), (4, 2, 7.0), (8, 2, 4.0), (4, 1, 4.0), (8, 1, 2.0)],
)
def test_rails_are_scored_per_gpu_whatever_the_node_size(gpus, nics, points):
    result = api.score_candidate(
        _node(gpus, nics, answers={"fabric": "verified"}), FLEET, rubric_version="2"
    )
    c = _rails(result)
    assert (c.basis, c.points, c.max_points) == ("claimed", points, 10.0)
    assert c.inputs["derived.rails_per_gpu"] == round(nics / gpus, 3)


def test_a_rail_per_gpu_scores_the_same_on_four_and_eight_gpu_nodes():
    four, eight = (
        api.score_candidate(_node(gpus, gpus), FLEET, rubric_version="2") for gpus in (4, 8)
    )
    assert _rails(four).points == _rails(eight).points == pytest.approx(0.5 * 10)  # unanswered


def _ibstat(rails: int, **changes) -> MeasuredFacts:
    return MeasuredFacts(
        ib_rate_gbit_s_min=400.0,
        ib_rails_min=rails,
        ib_ports_down=8 - rails,
        evidence_refs={"ib_rails_min": IBSTAT_REF, "ib_rate_gbit_s_min": IBSTAT_REF},
        **changes,
    )


@pytest.mark.parametrize(("rails", "points"), [(8, 10.0), (7, 9.25), (4, 7.0), (3, 5.5)])
def test_the_rails_ibstat_shows_active_count_as_measured(rails, points):
    # The claim (8 NICs, item 3 merely claimed) no longer matters once ibstat showed the rails.
    measured = _node(8, 8, answers={"fabric": "claimed"}, measured=_ibstat(rails))
    c = _rails(api.score_candidate(measured, FLEET, rubric_version="2"))
    assert (c.basis, c.points, c.evidence_ref) == ("measured", points, IBSTAT_REF)
    assert c.inputs["derived.measured_rails_per_gpu"] == round(rails / 8, 3)


def test_a_refuted_fabric_claim_is_scored_as_the_claim_at_the_contradicted_factor():
    refuted = _node(8, 8, answers={"fabric": "contradicted"}, measured=_ibstat(7))
    honest = _node(8, 7, answers={"fabric": "verified"}, measured=_ibstat(7))
    refuted_rule = _rails(api.score_candidate(refuted, FLEET, rubric_version="2"))
    honest_rule = _rails(api.score_candidate(honest, FLEET, rubric_version="2"))
    assert refuted_rule.basis == "claimed"
    assert refuted_rule.points == pytest.approx(-0.5 * 10)
    assert honest_rule.points == 9.25
    assert refuted_rule.points < honest_rule.points


def test_the_fabric_share_the_cost_reads_counts_the_worst_nodes_rails():
    shape_reference = 8 * 400.0  # the reference fabric's Gb/s per node (one NIC per GPU)
    full = declared_fabric(_node(8, 8, measured=_ibstat(8)), RUBRIC, shape_reference)
    one_down = declared_fabric(_node(8, 8, measured=_ibstat(7)), RUBRIC, shape_reference)
    assert (full.nics, full.ports_down) == (8, 0)
    assert (one_down.nics, one_down.ports_down) == (7, 1)
    assert one_down.share < full.share


def test_no_claimed_rail_active_says_so_rather_than_no_fabric_claimed():
    # manager review (stop 34): an InfiniBand claim on nodes whose ibstat shows RoCE ports
    # (no InfiniBand rail Active) read "no compute fabric", as if the vendor had claimed none.
    refuted = _node(8, 8, answers={"fabric": "contradicted"}, measured=_ibstat(0))
    fabric = declared_fabric(refuted, RUBRIC, 8 * 400.0)
    assert (fabric.nics, fabric.ports_down) == (0, 8)
    en, zh = fabric.described()
    assert en.startswith("none of the 8 claimed InfiniBand rails Active on ibstat's worst node")
    assert "one 25 Gb/s Ethernet port assumed" in en
    assert zh.startswith("ibstat 显示最差节点上所声明的 8 条 InfiniBand 链路均未激活")
    # A node with no fabric claimed keeps its plain wording.
    bare = candidate(
        node_count=8,
        offering=offering(gpus_per_node=8, fabric="none", nics_per_node=0, fabric_rate_gbit_s=0),
    )
    assert (
        declared_fabric(bare, RUBRIC, 8 * 400.0)
        .described()[0]
        .startswith("no compute fabric: one 25 Gb/s Ethernet port assumed")
    )


def test_the_batch_kernel_agrees_with_the_per_candidate_engine_on_rails():
    batch = [
        _node(8, 8, candidate_id=1),
        _node(4, 4, candidate_id=2),
        _node(8, 8, candidate_id=3, answers={"fabric": "contradicted"}, measured=_ibstat(7)),
        _node(8, 8, candidate_id=4, measured=_ibstat(5)),
        _node(4, 2, candidate_id=5, measured=_ibstat(2)),
    ]
    tcos = pending_tcos(batch, FLEET, RUBRIC)
    _eager, columns = score_dimensions_columns(batch, FLEET, RUBRIC, tcos)
    _rows, arrays = score_dimensions_deferred(batch, FLEET, RUBRIC, tcos)
    index = DIMENSIONS.index("network")
    assert list(arrays[index]) == list(columns[index])
    assert len(set(arrays[index])) > 2  # the five candidates do not all score alike


@settings(max_examples=60, deadline=None)
@given(
    gpus=st.sampled_from((1, 2, 4, 8)),
    nics=st.integers(0, 16),
    rails=st.one_of(st.none(), st.integers(0, 16)),
    status=st.sampled_from(("verified", "claimed", "unanswered", "unverifiable")),
)
def test_one_more_rail_never_lowers_the_network_score(gpus, nics, rails, status):
    def network(nics: int, rails: int | None) -> float:
        measured = MeasuredFacts() if rails is None else _ibstat(min(rails, 8))
        result = api.score_candidate(
            _node(gpus, nics, answers={"fabric": status}, measured=measured),
            FLEET,
            rubric_version="2",
        )
        return result.score("network")

    assert network(nics + 1, rails) >= network(nics, rails)
    if rails is not None:
        assert network(nics, rails + 1) >= network(nics, rails)


# --- from ibstat to the measured rails ---------------------------------------------------------


# Eight 400G RoCE rails per node claimed (the samples' cards).
RAILS_400G = {"fabric": "roce", "fabric_rate_gbit_s": 400, "nics_per_node": 8}
ALL_UP = "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"
# Eight 400G RoCE rails, two of them Down, beside four 100G cards that are not rails.
TWO_DOWN = "ibstat/gpud-h100-roce-cx7-some-down-polling.txt"


def test_the_worst_node_sets_the_measured_rails_and_is_cited():
    evidence = [parsed(ALL_UP, "gpu-01"), parsed(TWO_DOWN, "gpu-02")]
    report = verify_candidate(claims(**RAILS_400G), evidence)
    nodes = report.items["fabric"].details["nodes"]
    assert {name: node["active_rail_ports"] for name, node in nodes.items()} == {
        "gpu-01": 8,
        "gpu-02": 6,
    }
    facts = measured_facts(report, evidence)
    assert facts.ib_rails_min == 6
    assert "gpu-02" in facts.ref("ib_rails_min") and TWO_DOWN in facts.ref("ib_rails_min")


def test_the_measured_rails_never_exceed_the_nics_claimed():
    evidence = [parsed(ALL_UP, "gpu-01")]
    everything = measured_facts(verify_candidate(claims(**RAILS_400G), evidence), evidence)
    fewer = measured_facts(
        verify_candidate(claims(**{**RAILS_400G, "nics_per_node": 2}), evidence), evidence
    )
    assert everything.ib_rails_min >= 2
    assert fewer.ib_rails_min == 2


def test_no_ibstat_leaves_the_rails_unmeasured():
    facts = measured_facts(verify_candidate(claims(**RAILS_400G), []), [])
    assert facts.ib_rails_min is None


def test_a_faster_measured_rate_never_costs_more_even_from_zero():
    # Found by the property search: a rail measured at 0 Gb/s left the 25 Gb/s claim standing,
    # while one measured at 1.56 Gb/s replaced it, so the faster measurement cost more. Both
    # now replace the claim, and no fabric counts below the front-end port every node has.
    def share(rate: float) -> float:
        measured = MeasuredFacts(ib_rate_gbit_s_min=rate)
        node = candidate(
            node_count=1,
            offering=offering(gpus_per_node=1, nics_per_node=1, fabric_rate_gbit_s=25),
            measured=measured,
        )
        return declared_fabric(node, RUBRIC, 400.0).counted

    shares = [share(rate) for rate in (0.0, 1.5625, 10.0, 25.0)]
    assert shares == sorted(shares)
    assert shares[0] == shares[1]  # both below the front-end port: its share
