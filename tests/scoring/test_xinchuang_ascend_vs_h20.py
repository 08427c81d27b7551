"""A Xinchuang / MLPS-3 buyer (finance, government) choosing between a domestic accelerator
(Huawei Ascend 910B, which has no NVIDIA reference figures) and an NVIDIA H20 (expert review).

1. The measured collective rules (all-reduce, alltoall, all_gather bus bandwidth against the
   expectation) counted as missing for an Ascend: 0 of 38 network points for good, since the
   reference table holds no nccl-tests expectation for it. They were then left out of the
   maximum (not applicable), which let an unmeasurable Ascend outscore an NVIDIA offering that
   simply had not been measured yet (honesty review). They now count as an unmeasured
   candidate's, 0 of their maximum, and say that no reference exists for the part
   (test_unreferenced_accelerators_honesty).
2. A minimum bus-bandwidth must-have told an Ascend offering to "run nccl-tests
   all_reduce_perf in the POC", which cannot settle it: it now says the rubric has no
   expectation for that part.
3. An NVIDIA (or AMD) GPU offered by a Xinchuang-certified vendor passed a Xinchuang
   must-have: the vendor's certificate was read as covering an imported accelerator.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from scoring.ranking import rank, score_candidate
from scoring.rubric import load_rubric
from scoring.types import VendorFacts
from tests.scoring.scoring_factories import candidate, evaluation, offering

V1, V2 = load_rubric("1"), load_rubric("2")
CJK = re.compile(r"[\u4e00-\u9fff]")
DOMESTIC = VendorFacts(name="Vendor D", mlps_level=3, xinchuang=True, iso27001=True)
MEASURED_RULES = (
    "network.measured.busbw_fraction",
    "network.measured.alltoall_fraction",
    "network.measured.allgather_fraction",
)
# A finance buyer's inference on one node of 8 cards with 64 GiB each.
FINANCE = evaluation(
    workload_profile="inference",
    required_total_gpus=8,
    required_gpu_memory_gib=64,
    required_mlps_level=3,
)


def _ascend(candidate_id: int = 1, **changes):
    return candidate(
        candidate_id,
        label="ascend",
        vendor=DOMESTIC,
        node_count=1,
        offering=offering(
            gpu_model="Huawei Ascend 910B",
            gpu_memory_gib=64,
            gpu_form_factor="other",
            nvlink_topology="none",
            **changes,
        ),
    )


def _nvidia(candidate_id: int = 2, model: str = "NVIDIA H20", memory: int = 96):
    return candidate(
        candidate_id,
        label=model,
        vendor=DOMESTIC,
        node_count=1,
        offering=offering(gpu_model=model, gpu_memory_gib=memory),
    )


def _network(result):
    (network,) = [d for d in result.dimensions if d.dimension == "network"]
    return {c.rule_id: c for c in network.contributions}


def test_collective_figures_the_rubric_cannot_compute_count_as_unmeasured():
    ranking = rank([_ascend(1), _nvidia(2)], FINANCE, V2)
    by_id = {r.candidate_id: r for r in ranking.results}
    ascend, h20 = _network(by_id[1]), _network(by_id[2])
    for rule_id in MEASURED_RULES:
        found = ascend[rule_id]
        assert (found.basis, found.points) == ("missing", 0)
        assert found.max_points == h20[rule_id].max_points > 0
        assert dict(found.inputs)["derived.nvlink_reference"] is False
        assert found.evidence_ref.startswith("no nccl-tests reference for Huawei Ascend 910B")
        # The H20 can measure it: unmeasured, it is missing too (0 of the rule's maximum).
        assert h20[rule_id].basis == "missing" and h20[rule_id].evidence_ref is None
    assert sum(c.max_points for c in ascend.values()) == sum(c.max_points for c in h20.values())
    # Left out of the maximum, the Ascend (no NVLink declared) scored 28.3 on 15 points and
    # more than the H20 (26.1, full mesh declared and unmeasured); now it scores below it.
    assert by_id[1].score("network") < by_id[2].score("network")


def test_the_batch_kernel_agrees_for_an_ascend():
    pool = [_ascend(i) if i % 2 else _nvidia(i) for i in range(1, 70)]
    kernel = {r.candidate_id: r.score("network") for r in rank(pool, FINANCE, V2).results}
    for item in pool[:6]:
        assert score_candidate(item, FINANCE, V2).score("network") == kernel[item.candidate_id]


def test_a_bus_bandwidth_must_have_on_an_ascend_says_no_expectation_exists():
    spec = evaluation(
        workload_profile="inference",
        required_total_gpus=8,
        required_gpu_memory_gib=64,
        min_busbw_fraction=Decimal("0.8"),
    )
    ascend = {k.code: k for k in score_candidate(_ascend(), spec, V2).knockouts}
    h20 = {k.code: k for k in score_candidate(_nvidia(), spec, V2).knockouts}
    assert set(ascend) == {"busbw_unreferenced"}
    found = ascend["busbw_unreferenced"]
    assert "no expected bus bandwidth for Huawei Ascend 910B" in found.reason_en
    assert "nccl-tests" not in found.reason_en and "HCCL" in found.reason_en
    assert "Huawei Ascend 910B 的期望总线带宽" in found.reason_zh and CJK.search(found.reason_zh)
    # An NVIDIA GPU is still asked for the nccl-tests run that can settle it.
    assert "nccl-tests all_reduce_perf" in h20["busbw_unmeasured"].reason_en


@pytest.mark.parametrize(
    ("model", "memory", "maker"),
    [
        ("NVIDIA H20", 96, "NVIDIA"),
        ("NVIDIA L20", 48, "NVIDIA"),
        ("RTX 4090", 24, "NVIDIA"),
        ("AMD Instinct MI300X", 192, "AMD"),
    ],
)
def test_an_imported_gpu_fails_a_xinchuang_must_have_whatever_the_vendors_status(
    model, memory, maker
):
    spec = evaluation(
        workload_profile="inference",
        required_total_gpus=8,
        required_gpu_memory_gib=24,
        require_xinchuang=True,
    )
    found = {k.code: k for k in score_candidate(_nvidia(2, model, memory), spec, V2).knockouts}
    assert set(found) == {"xinchuang_gpu"}  # the vendor itself is Xinchuang-certified
    knockout = found["xinchuang_gpu"]
    assert knockout.reason_en.startswith(f"{model} is made by {maker}, not a domestic")
    assert knockout.reason_zh.startswith(f"{model} 由 {maker} 生产，并非国产加速卡")
    assert knockout.evidence_ref == f"offering: gpu_model = {model}"


def test_the_domestic_accelerator_and_an_unknown_name_pass_and_v1_replays_as_recorded():
    spec = evaluation(
        workload_profile="inference",
        required_total_gpus=8,
        required_gpu_memory_gib=64,
        require_xinchuang=True,
    )
    assert score_candidate(_ascend(), spec, V2).knockouts == ()
    # A name the reference table does not know is judged on the vendor's word, as before.
    unknown = candidate(1, vendor=DOMESTIC, node_count=1, offering=offering(gpu_model="X-1"))
    assert score_candidate(unknown, spec, V2).knockouts == ()
    # Rubric v1 decisions replay as they were recorded.
    assert score_candidate(_nvidia(), spec, V1).knockouts == ()
    # Not required: an NVIDIA GPU is not knocked out for it.
    plain = evaluation(workload_profile="inference", required_total_gpus=8)
    assert score_candidate(_nvidia(), plain, V2).knockouts == ()
