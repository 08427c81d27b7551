"""Compute-fabric bandwidth per GPU (expert review: the fabric rate was scored per port).

What a collective between nodes moves is each GPU's injection bandwidth: the node's rails x
their rate, shared by its GPUs. The per-port rule scored 16 x 200G on 8 GPUs (400 Gb/s per
GPU) 4 points below 8 x 400G (the same 400 Gb/s per GPU), and 4 x 400G on 8 GPUs (200 Gb/s
per GPU) 1 point above 8 x 200G (the same 200). Where ibstat ran, the worst node's Active
rails at the slowest rate count, as measured; a refuted claim is the claim at the contradicted
factor, as for the rails.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import api
from scoring.dimensions import score_dimensions_columns, score_dimensions_deferred
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

RULE = "network.fabric.gbit_s_per_gpu"
RAILS_RULE = "network.fabric.rails"
CLAIM = "derived.fabric_gbit_s_per_gpu"
MEASURED = "derived.measured_fabric_gbit_s_per_gpu"
CLAIMED_NICS = "derived.claimed_nics_at_measured_rate_gbit_s_per_gpu"
IBSTAT_REF = "upload 4 · gpu-02 · ibstat ibstat.txt"
RATE_REF = "upload 5 · gpu-01 · ibstat ibstat.txt"
# 64 GPUs: traffic between nodes on 4- and 8-GPU nodes alike, so the fabric rules apply.
FLEET = evaluation(required_total_gpus=64)
RUBRIC = load_rubric("2")


def _rule(result, rule_id=RULE):
    return next(c for d in result.dimensions for c in d.contributions if c.rule_id == rule_id)


def _node(gpus: int, nics: int, rate: int, **changes):
    return candidate(
        node_count=max(1, 64 // gpus),
        offering=offering(gpus_per_node=gpus, nics_per_node=nics, fabric_rate_gbit_s=rate),
        **changes,
    )


def _score(node):
    return api.score_candidate(node, FLEET, rubric_version="2")


@pytest.mark.parametrize(
    ("gpus", "nics", "rate", "per_gpu", "points"),
    [
        (8, 8, 400, 400.0, 14.0),  # NDR, one rail per GPU
        (8, 16, 200, 400.0, 14.0),  # two HDR rails per GPU: the same bandwidth
        (4, 4, 400, 400.0, 14.0),
        (8, 8, 200, 200.0, 10.0),  # HDR
        (8, 4, 400, 200.0, 10.0),  # NDR shared by two GPUs: HDR's bandwidth per GPU
        (8, 8, 100, 100.0, 6.0),
        (8, 2, 100, 25.0, 2.0),
        (8, 7, 400, 350.0, 13.0),  # linear between the anchors: 10 + 4 x 150/200
        (8, 8, 800, 800.0, 14.0),  # flat above 400 Gb/s per GPU
        (8, 0, 400, 0.0, 0.0),
    ],
)
def test_the_claim_is_scored_as_bandwidth_per_gpu(gpus, nics, rate, per_gpu, points):
    c = _rule(_score(_node(gpus, nics, rate, answers={"fabric": "verified"})))
    assert (c.basis, c.max_points) == ("claimed", 14.0)
    assert c.points == pytest.approx(points)
    assert c.inputs[CLAIM] == per_gpu


def test_sixteen_hdr_rails_score_the_network_of_eight_ndr_rails():
    # 8 GPUs: 16 x 200G and 8 x 400G both inject 400 Gb/s per GPU, and both give every GPU
    # at least one rail. The per-port rule scored the first 10 of 14 (total 20 against 24).
    hdr, ndr = (
        _score(_node(8, nics, rate, answers={"fabric": "verified"}))
        for nics, rate in ((16, 200), (8, 400))
    )
    assert _rule(hdr).points == _rule(ndr).points == 14.0
    assert _rule(hdr, RAILS_RULE).points == _rule(ndr, RAILS_RULE).points == 10.0
    assert hdr.score("network") == ndr.score("network")


def test_half_the_rails_at_twice_the_rate_no_longer_outscores_a_rail_per_gpu():
    # 4 x 400G and 8 x 200G on 8 GPUs both give 200 Gb/s per GPU: the same 10 points here,
    # and the rails rule prefers a NIC per GPU (10 against 7). The per-port rule gave 4 x 400G
    # 14 + 7 = 21 against 10 + 10 = 20.
    shared, railed = (
        _score(_node(8, nics, rate, answers={"fabric": "verified"}))
        for nics, rate in ((4, 400), (8, 200))
    )
    assert _rule(shared).points == _rule(railed).points == 10.0
    assert shared.score("network") < railed.score("network")


def _ibstat(rails: int | None, rate: float | None = 400.0, **changes) -> MeasuredFacts:
    refs = {"ib_rails_min": IBSTAT_REF, "ib_rate_gbit_s_min": IBSTAT_REF}
    return MeasuredFacts(
        ib_rate_gbit_s_min=rate,
        ib_rails_min=rails,
        ib_ports_down=None if rails is None else 8 - rails,
        evidence_refs=changes.pop("evidence_refs", refs),
        **changes,
    )


@pytest.mark.parametrize(
    ("rails", "rate", "points"),
    [(8, 400.0, 14.0), (7, 400.0, 13.0), (8, 200.0, 10.0), (4, 400.0, 10.0), (0, 400.0, 0.0)],
)
def test_the_rails_active_at_the_slowest_rate_count_as_measured(rails, rate, points):
    # The claim (8 x 400G, item 3 merely claimed) no longer matters once ibstat showed them.
    c = _rule(
        _score(_node(8, 8, 400, answers={"fabric": "claimed"}, measured=_ibstat(rails, rate)))
    )
    assert (c.basis, c.evidence_ref) == ("measured", IBSTAT_REF)
    assert c.points == pytest.approx(points)
    assert c.inputs == {MEASURED: rails * rate / 8}


def test_rails_and_rate_measured_on_two_nodes_cite_both():
    both = f"{IBSTAT_REF} | {RATE_REF}"
    measured = _ibstat(
        6,
        evidence_refs={
            "ib_rails_min": IBSTAT_REF,
            "ib_rate_gbit_s_min": RATE_REF,
            "ib_gbit_s_per_gpu": both,
        },
    )
    c = _rule(_score(_node(8, 8, 400, measured=measured)))
    assert (c.basis, c.points, c.evidence_ref) == ("measured", 12.0, both)


def test_a_refuted_fabric_claim_is_scored_as_the_claim_at_the_contradicted_factor():
    refuted = _node(8, 8, 400, answers={"fabric": "contradicted"}, measured=_ibstat(7))
    honest = _node(8, 7, 400, answers={"fabric": "verified"}, measured=_ibstat(7))
    refuted_rule, honest_rule = _rule(_score(refuted)), _rule(_score(honest))
    assert refuted_rule.basis == "claimed"
    assert refuted_rule.inputs[CLAIM] == 400.0
    assert refuted_rule.points == pytest.approx(-0.5 * 14)
    assert honest_rule.points == 13.0
    assert refuted_rule.points < honest_rule.points


def test_a_summary_stored_before_the_rails_were_counted_takes_the_claimed_nics_less_the_down():
    # Two nodes, two ports down over them: the worst node lost at least one of its 8 rails.
    old = MeasuredFacts(
        ib_rate_gbit_s_min=200.0,
        ib_ports_down=2,
        evidence_refs={"ib_rate_gbit_s_min": RATE_REF},
    )
    node = candidate(node_count=2, offering=offering(), measured=old)
    result = api.score_candidate(node, evaluation(required_total_gpus=16), rubric_version="2")
    c, rails = _rule(result), _rule(result, RAILS_RULE)
    # The NIC count is the vendor's: the figure is a claim, never "measured".
    assert c.basis == rails.basis == "claimed"
    assert MEASURED not in c.inputs
    assert c.inputs[CLAIMED_NICS] == 175.0  # 7 x 200 / 8
    assert c.inputs["factor"] == rails.inputs["factor"] < 1
    assert c.points == pytest.approx((6 + 4 * 75 / 100) * c.inputs["factor"])


@pytest.mark.parametrize("status", ["claimed", "verified", "unanswered"])
def test_a_rate_without_a_rail_count_scores_the_claimed_nics_at_the_rails_rules_factor(status):
    # expert review: ibstat's rate with no rail count (a summary stored before the rails were
    # counted) scored 14 of 14 as measured with the claimed 8 NICs, while the rails rule
    # scored the same claim at its factor (7 of 10 for a claimed item 3).
    rate_only = MeasuredFacts(
        ib_rate_gbit_s_min=400.0, evidence_refs={"ib_rate_gbit_s_min": RATE_REF}
    )
    counted = _ibstat(8)
    scored = {}
    for name, measured in (("rate only", rate_only), ("counted", counted)):
        result = _score(_node(8, 8, 400, answers={"fabric": status}, measured=measured))
        scored[name] = (_rule(result), _rule(result, RAILS_RULE), result.score("network"))
    per_gpu, rails, network = scored["rate only"]
    factor = rails.inputs.get("factor", 1.0)  # a verified item shows no factor
    assert (per_gpu.basis, per_gpu.inputs.get("factor", 1.0)) == ("claimed", factor)
    assert MEASURED not in per_gpu.inputs
    assert per_gpu.points == pytest.approx(14.0 * factor)
    assert rails.points == pytest.approx(10.0 * factor)
    # Counting the rails (measured) never scores below the claim they back.
    counted_rule, _counted_rails, counted_network = scored["counted"]
    assert counted_rule.basis == "measured" and counted_rule.points == 14.0
    assert counted_network >= network


def test_a_node_without_a_fabric_scores_no_fabric_bandwidth():
    node = candidate(
        node_count=8, offering=offering(fabric="none", nics_per_node=8, fabric_rate_gbit_s=400)
    )
    c = _rule(_score(node))
    assert (c.points, c.max_points) == (0.0, 14.0)


def test_the_batch_kernel_agrees_with_the_per_candidate_engine_on_bandwidth():
    batch = [
        _node(8, 8, 400, candidate_id=1),
        _node(8, 16, 200, candidate_id=2),
        _node(8, 8, 400, candidate_id=3, answers={"fabric": "contradicted"}, measured=_ibstat(7)),
        _node(8, 8, 400, candidate_id=4, measured=_ibstat(5, 200.0)),
        _node(4, 2, 400, candidate_id=5, measured=_ibstat(2)),
        _node(8, 8, 400, candidate_id=6, measured=_ibstat(None, 100.0)),
        _node(
            8,
            8,
            400,
            candidate_id=7,
            answers={"fabric": "claimed"},
            measured=MeasuredFacts(ib_rate_gbit_s_min=400.0, ib_ports_down=3),
        ),
    ]
    tcos = pending_tcos(batch, FLEET, RUBRIC)
    _eager, columns = score_dimensions_columns(batch, FLEET, RUBRIC, tcos)
    _rows, arrays = score_dimensions_deferred(batch, FLEET, RUBRIC, tcos)
    index = DIMENSIONS.index("network")
    assert list(arrays[index]) == list(columns[index])
    assert len(set(arrays[index])) > 3
    for node, row in zip(batch, columns[index], strict=True):
        assert _score(node).score("network") == pytest.approx(row)


@settings(max_examples=80, deadline=None)
@given(
    gpus=st.sampled_from((1, 2, 4, 8)),
    nics=st.integers(0, 16),
    rate=st.sampled_from((0, 25, 50, 100, 200, 400, 800)),
    rails=st.one_of(st.none(), st.integers(0, 16)),
    measured_rate=st.one_of(st.none(), st.sampled_from((25.0, 100.0, 200.0, 400.0))),
    # Not "contradicted": a refuted claim scores at a negative factor, so misstating more
    # rails costs more (by design), and its measurement is not read.
    status=st.sampled_from(("verified", "claimed", "unanswered", "unverifiable")),
)
def test_more_rails_or_a_faster_rate_never_lowers_the_network_score(
    gpus, nics, rate, rails, measured_rate, status
):
    def network(nics: int, rate: int, rails: int | None, measured_rate: float | None) -> float:
        measured = MeasuredFacts(
            ib_rails_min=rails, ib_rate_gbit_s_min=measured_rate, evidence_refs={}
        )
        node = _node(gpus, nics, rate, answers={"fabric": status}, measured=measured)
        return _score(node).score("network")

    base = network(nics, rate, rails, measured_rate)
    assert network(nics + 1, rate, rails, measured_rate) >= base
    assert network(nics, rate * 2, rails, measured_rate) >= base
    if rails is not None:
        assert network(nics, rate, rails + 1, measured_rate) >= base
    if measured_rate is not None:
        assert network(nics, rate, rails, measured_rate * 2) >= base


# --- from ibstat to the bandwidth per GPU ------------------------------------------------------

RAILS_400G = {"fabric": "roce", "fabric_rate_gbit_s": 400, "nics_per_node": 8}
ALL_UP = "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"
# Eight 400G RoCE rails per node, two of them Down, beside four 100G cards that are not rails.
TWO_DOWN = "ibstat/gpud-h100-roce-cx7-some-down-polling.txt"


def test_real_ibstat_of_two_nodes_gives_the_worst_nodes_rails_at_the_slowest_rate():
    evidence = [parsed(ALL_UP, "gpu-01", upload=4), parsed(TWO_DOWN, "gpu-02", upload=5)]
    report = verify_candidate(claims(**RAILS_400G), evidence)
    facts = measured_facts(report, evidence)
    assert (facts.ib_rails_min, facts.ib_rate_gbit_s_min) == (6, 400.0)
    # The worst node (gpu-02) set the rails, gpu-01's output the rate: both are cited.
    cited = facts.ref("ib_gbit_s_per_gpu").split(" | ")
    assert len(cited) == 2
    assert TWO_DOWN in cited[0] and "gpu-02" in cited[0]
    assert ALL_UP in cited[1] and "gpu-01" in cited[1]
    node = candidate(
        node_count=2,
        offering=offering(**RAILS_400G),
        answers={"fabric": report.items["fabric"].status},
        measured=facts,
    )
    c = _rule(api.score_candidate(node, evaluation(required_total_gpus=16), rubric_version="2"))
    assert (c.basis, c.inputs, c.points) == ("measured", {MEASURED: 300.0}, 12.0)
    assert c.evidence_ref == facts.ref("ib_gbit_s_per_gpu")


def test_one_node_sets_rails_and_rate_and_is_cited_once():
    evidence = [parsed(ALL_UP, "gpu-01", upload=4)]
    facts = measured_facts(verify_candidate(claims(**RAILS_400G), evidence), evidence)
    assert facts.ref("ib_gbit_s_per_gpu") is None
    assert facts.ref("ib_rails_min") == facts.ref("ib_rate_gbit_s_min")
