"""The TCO's efficiency in rubric v2 (scoring/collectives.py): what a job's collectives cost.

Expert review finding 1: the efficiency was the all-reduce fraction of the declared system,
counted in full as if a step were all communication, and the fabric's size did not count, so two
200 Gb/s ports per node measured at 95 % of their small expectation out-scored eight 400 Gb/s
ports at 82 % on cost. Now the efficiency is the form's scale rule times 1 / ((1 - c) + c / a):
c the workload's share of step time in collectives, a their bandwidth as a share of a cluster on
the GPU generation's reference fabric (measured across nodes, or the declared fabric counted at
its claim factor). It says so in the TCO's assumptions and never falls as the fabric or the
measurement improves; the cost row cites the all-reduce its efficiency read.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.collectives import NO_FABRIC_GBIT_S, collectives
from scoring.ranking import rank, score_candidate
from scoring.rubric import load_rubric
from scoring.tco import compute_tco, effective_price_ratio
from scoring.types import ITEM_STATUSES, MeasuredFacts
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
V1 = load_rubric("1")
SPEC = evaluation()  # pre-training, 16 GPUs: two 8-GPU nodes
REF = "upload 4 · node-2 · all_reduce_perf line 41"
VERIFIED = {"fabric": "verified"}


def _node(nics=8, rate=400, fabric="infiniband", fraction=0.82, answers=None, **measured):
    refs = {"busbw_fraction": REF} if fraction is not None else {}
    return candidate(
        offering=offering(fabric=fabric, fabric_rate_gbit_s=rate, nics_per_node=nics),
        node_count=2,
        measured=MeasuredFacts(busbw_fraction=fraction, evidence_refs=refs, **measured),
        answers=dict(VERIFIED if answers is None else answers),
    )


def _found(item, spec=SPEC):
    return collectives(item, spec, V2, item.offering.delivery_form)


def test_a_verified_reference_fabric_loses_only_its_measured_shortfall():
    found = _found(_node())
    assert (found.source, found.basis, found.comm_share) == ("declared", "measured", 0.15)
    assert found.fabric.share == found.fabric.counted == 1.0
    assert found.bandwidth == pytest.approx(0.82)
    assert found.throughput == pytest.approx(1 / (0.85 + 0.15 / 0.82))
    assert compute_tco(_node(), SPEC, V2).efficiency == Decimal(repr(found.efficiency)).quantize(
        Decimal("0.0001")
    )


def test_the_thin_fabric_no_longer_wins_on_cost():
    thick = replace(_node(fraction=0.82), candidate_id=1, label="eight_ndr")
    thin = replace(_node(nics=2, rate=200, fraction=0.95), candidate_id=2, label="two_hdr")
    ranking = rank([thin, thick], SPEC, V2)
    assert [r.label for r in ranking.results] == ["eight_ndr", "two_hdr"]
    assert ranking.result(1).scores["cost"] > ranking.result(2).scores["cost"]
    lines = {code: (en, zh) for code, en, zh in ranking.result(2).tco.assumptions()}
    en, zh = lines["collectives"]
    assert "2 x 200 Gb/s per node (InfiniBand)" in en and "12.5% of the reference" in en
    assert "每节点 2 × 200 Gb/s（InfiniBand）" in zh and "12.5%" in zh
    # Inside one node nothing crosses the fabric: the better-measured one is cheaper again.
    one_node = evaluation(required_total_gpus=8)
    assert _found(thin, one_node).source == "one_node"
    alone = rank([thin, thick], one_node, V2)
    assert alone.result(2).scores["cost"] > alone.result(1).scores["cost"]


def test_an_all_reduce_measured_across_nodes_is_judged_in_absolute_terms():
    # The same 300 GB/s on two nodes, whatever fabric each vendor declared: the same efficiency.
    modest = _node(nics=4, rate=400, fraction=0.9, busbw_nodes=2, peak_busbw_gbyte_s=300.0)
    bold = _node(nics=8, rate=400, fraction=0.63, busbw_nodes=2, peak_busbw_gbyte_s=300.0)
    a, b = _found(modest), _found(bold)
    assert a.source == b.source == "across_nodes"
    assert a.efficiency == b.efficiency and a.bandwidth == pytest.approx(300.0 / 360.0)
    en = compute_tco(modest, SPEC, V2).collectives.assumption()[1]
    assert "measured 300.0 GB/s on 2 nodes against 360.0 GB/s" in en


def test_rubric_v1_is_unchanged():
    thin = _node(nics=2, rate=200, fraction=0.95)
    tco = compute_tco(thin, SPEC, V1)
    assert tco.collectives is None and tco.efficiency == Decimal("0.9500")


def test_an_unverified_fabric_counts_at_its_claim_factor():
    shares = {}
    for status in ITEM_STATUSES:
        found = _found(_node(fraction=None, answers={"fabric": status}))
        shares[status] = found.fabric.counted
    none = NO_FABRIC_GBIT_S * 0.6 / (8 * 400 * 0.95)
    assert shares["verified"] == 1.0 and shares["contradicted"] == pytest.approx(none)
    assert shares["claimed"] == pytest.approx(none + 0.7 * (1 - none))
    assert shares["unanswered"] == shares["unverifiable"] == pytest.approx(none + 0.5 * (1 - none))
    en = compute_tco(_node(answers={}), SPEC, V2).collectives.assumption()[1]
    assert "while item 3 is unanswered" in en


def test_ibstat_down_ports_and_slow_rates_count_against_the_claim_and_never_for_it():
    claimed = _found(_node()).fabric
    slow = _found(_node(ib_rate_gbit_s_min=200.0)).fabric
    fast = _found(_node(rate=200, ib_rate_gbit_s_min=400.0)).fabric
    down = _found(_node(ib_ports_down=3)).fabric  # over 2 nodes: the worst lost at least 2
    assert claimed.share == 1.0 and not claimed.measured_rate
    assert slow.measured_rate and slow.rate_gbit_s == 200.0 and slow.share == 0.5
    assert not fast.measured_rate and fast.rate_gbit_s == 200.0
    assert (down.nics, down.ports_down, down.share) == (6, 2, 0.75)
    tco = compute_tco(_node(ib_ports_down=3), SPEC, V2)
    assert "as ibstat showed it" in tco.collectives.assumption()[1]


def test_no_fabric_is_a_front_end_port_not_a_free_pass():
    bare = _node(nics=0, rate=0, fabric="none", fraction=None)
    found = _found(bare)
    assert found.fabric.nics == 0 and found.throughput < 0.1
    tco = compute_tco(bare, SPEC, V2)
    assert tco.cost_per_effective_gpu_hour is not None and tco.efficiency > 0
    en = dict((code, en) for code, en, _ in tco.assumptions())["collectives"]
    assert f"one {NO_FABRIC_GBIT_S} Gb/s Ethernet port assumed" in en


def test_a_gpu_without_a_reference_fabric_says_its_fabric_was_not_priced():
    l40s = replace(
        _node(nics=1, rate=100),
        offering=offering(
            gpu_model="NVIDIA L40S", gpu_form_factor="pcie", nics_per_node=1, fabric_rate_gbit_s=100
        ),
    )
    spec = evaluation(required_gpu_memory_gib=48)
    found = _found(l40s, spec)
    assert found.source == "unreferenced" and found.bandwidth == pytest.approx(0.82)
    en = compute_tco(l40s, spec, V2).collectives.assumption()[1]
    assert "no reference fabric for L40S" in en


def test_one_gpu_runs_no_collective():
    single = candidate(node_count=1, offering=offering(gpus_per_node=1))
    spec = evaluation(required_total_gpus=1)
    found = _found(single, spec)
    assert (found.source, found.comm_share, found.throughput) == ("no_collective", 0.0, 1.0)
    assert "collectives" not in {code for code, _, _ in compute_tco(single, spec, V2).assumptions()}


FABRICS = st.sampled_from(("infiniband", "roce", "ethernet", "none"))
RATES = st.sampled_from((0, 25, 100, 200, 400, 800))
BETTER_STATUS = {"contradicted": 0, "unanswered": 1, "unverifiable": 1, "claimed": 2, "verified": 3}


@settings(max_examples=200, deadline=None)
@given(
    fabric=FABRICS,
    nics=st.integers(0, 8),
    more_nics=st.integers(0, 4),
    rate=RATES,
    faster=RATES,
    fraction=st.none() | st.floats(0.3, 1.1),
    gain=st.floats(0.0, 0.3),
    status=st.sampled_from(ITEM_STATUSES),
    better=st.sampled_from(ITEM_STATUSES),
    workload=st.sampled_from(("pretraining", "finetuning", "inference", "development")),
    gpus=st.sampled_from((8, 16, 32, 64, 256)),
)
def test_a_better_fabric_measurement_or_claim_never_costs_more(
    fabric, nics, more_nics, rate, faster, fraction, gain, status, better, workload, gpus
):
    if BETTER_STATUS[better] < BETTER_STATUS[status]:
        status, better = better, status
    spec = evaluation(workload_profile=workload, required_total_gpus=gpus)
    nodes = max(1, gpus // 8)
    low = replace(
        _node(nics=nics, rate=rate, fabric=fabric, fraction=fraction, answers={"fabric": status}),
        node_count=nodes,
    )
    improved = None if fraction is None else fraction + gain
    high = replace(
        _node(
            nics=nics + more_nics,
            rate=max(rate, faster),
            fabric="infiniband" if fabric in ("none", "ethernet") else fabric,
            fraction=improved,
            answers={"fabric": better},
        ),
        node_count=nodes,
    )
    low_tco, high_tco = compute_tco(low, spec, V2), compute_tco(high, spec, V2)
    assert high_tco.efficiency >= low_tco.efficiency
    assert high_tco.cost_per_effective_gpu_hour <= low_tco.cost_per_effective_gpu_hour


def test_the_batch_path_gives_the_exact_figures():
    # The ranking's float columns (pending_tcos) run the same kernel as compute_tco; a MIG
    # offering and a GPU without a reference price take the exact path inside the same batch.
    spec = evaluation(required_total_gpus=32)
    group = []
    shapes = [
        (n, r, f, ib, down, status, peak)
        for n in (0, 2, 8)
        for r in (200, 400)
        for f in ("infiniband", "ethernet", "none")
        for ib, down in ((None, None), (100.0, 1))
        for status, peak in (("verified", None), ("unanswered", 250.0))
    ]
    for i, (n, r, f, ib, down, status, peak) in enumerate(shapes, start=1):
        item = _node(
            nics=n,
            rate=r,
            fabric=f,
            fraction=0.55 + 0.05 * (i % 9),
            answers={"fabric": status},
            ib_rate_gbit_s_min=ib,
            ib_ports_down=down,
            busbw_nodes=None if peak is None else 2,
            peak_busbw_gbyte_s=peak,
        )
        group.append(replace(item, candidate_id=i, label=f"c{i}", node_count=4))
    group.append(
        replace(
            group[0],
            candidate_id=len(group) + 1,
            label="mig",
            offering=offering(
                gpu_model="NVIDIA A100-SXM4-80GB",
                delivery_form="mig",
                mig_profile="3g.40gb",
                gpus_per_node=16,
            ),
        )
    )
    group.append(
        replace(
            group[1],
            candidate_id=len(group) + 1,
            label="unpriced",
            offering=offering(gpu_model="NVIDIA T4", gpu_form_factor="pcie"),
        )
    )
    assert len(group) >= 64  # the numpy kernel and the float TCO columns
    ranking = rank(group, spec, V2)
    for result, item in zip(
        sorted(ranking.results, key=lambda r: r.candidate_id), group, strict=True
    ):
        exact = compute_tco(item, spec, V2)
        assert result.tco.efficiency == exact.efficiency, item.label
        model = item.offering.gpu_model
        assert effective_price_ratio(result.tco, model, V2) == effective_price_ratio(
            exact, model, V2
        )
        assert result.scores == score_candidate(item, spec, V2).scores


@pytest.mark.parametrize("explain", [True, False])
def test_the_cost_row_cites_the_all_reduce_its_efficiency_read(explain):
    measured = _node()
    unmeasured = replace(_node(fraction=None), candidate_id=2, label="unmeasured")
    ranking = rank([measured, unmeasured], SPEC, V2, explain=explain)
    rows = {
        r.label: {c.rule_id: c for d in r.dimensions for c in d.contributions}
        for r in ranking.results
    }
    assert rows[measured.label]["cost.tco.effective_gpu_hour"].evidence_ref == REF
    assert rows["unmeasured"]["cost.tco.effective_gpu_hour"].evidence_ref is None
