"""Storage scored per GPU, local NVMe capacity in TiB and counted as claimed (expert review).

1. The capacity field is in TiB, but the steps (3/7/15/30) matched decimal TB drive totals: a
   DGX H100 (8 x 3.84 TB = 30.72 TB = 27.94 TiB) entered honestly scored 12 of 15, its TB
   figure typed into the TiB field 15. The steps are now the DGX drive ladder in TiB.
2. fio verifies checklist item 4's bandwidth, never a drive's size, yet a verified item 4
   counted the capacity claim in full. The capacity now counts at the review-only status
   "nvme_capacity": claimed whatever fio says, unless a document review verified it.
3. A 1-GPU node got the capacity and NVMe points of an 8-GPU node on the same drives, and a
   distributed file system's aggregate scored alike for 8 GPUs or 64. Capacity and NVMe
   bandwidth are now per GPU of a node, the file system's bandwidth per GPU of the job.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import api
from scoring.dimensions import (
    FactContext,
    evaluate_rule,
    score_dimensions_columns,
    score_dimensions_deferred,
)
from scoring.rubric import load_rubric
from scoring.tco import pending_tcos
from scoring.types import DIMENSIONS, MeasuredFacts

try:
    from scoring_factories import candidate, evaluation, offering
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation, offering

RUBRIC = load_rubric("2")
CAPACITY = "storage.nvme.capacity"
READ = "storage.nvme.read_bandwidth"
WRITE = "storage.nvme.write_bandwidth"
DFS = "storage.dfs.bandwidth"
CAPACITY_FACT = "derived.nvme_capacity_tib_per_gpu"
# The expert's reproductions: fine-tuning on 8 GPUs.
EIGHT = evaluation(workload_profile="finetuning", required_total_gpus=8)


def _node(gpus: int, capacity: str, **changes):
    """8 GPUs in nodes of ``gpus`` with ``capacity`` TiB of local NVMe each."""
    offering_changes = changes.pop("offering_changes", {})
    return candidate(
        node_count=max(1, 8 // gpus),
        offering=offering(
            gpus_per_node=gpus, nvme_capacity_tib=Decimal(capacity), **offering_changes
        ),
        **changes,
    )


def _rule(cand, rule_id, spec=EIGHT):
    result = api.score_candidate(cand, spec, rubric_version="2")
    return next(c for d in result.dimensions for c in d.contributions if c.rule_id == rule_id)


def _storage(cand, spec=EIGHT):
    return api.score_candidate(cand, spec, rubric_version="2").score("storage")


# 1. The unit: the steps are the DGX drive ladder per GPU, in TiB.


@pytest.mark.parametrize(
    ("gpus", "capacity", "per_gpu", "points"),
    [
        (8, "27.94", 3.493, 15.0),  # DGX H100: 8 x 3.84 TB = 27.94 TiB, 3.84 TB per GPU
        (8, "30.72", 3.84, 15.0),  # its TB figure in the TiB field: no more than the honest one
        (8, "13.97", 1.746, 12.0),  # 4 x 3.84 TB = 15.36 TB
        (8, "6.98", 0.873, 8.0),  # 2 x 3.84 TB = 7.68 TB
        (8, "3.49", 0.436, 5.0),  # 1 x 3.84 TB
        (8, "0.87", 0.109, 2.0),  # 1 x 0.96 TB
        (8, "0.50", 0.062, 0.0),
        (1, "3.49", 3.49, 15.0),  # one 3.84 TB drive for one GPU: a DGX GPU's share
        (2, "6.98", 3.49, 15.0),
        (4, "6.98", 1.745, 12.0),
    ],
)
def test_capacity_steps_are_the_dgx_drive_ladder_per_gpu_in_tib(gpus, capacity, per_gpu, points):
    # A document review verified item 4: the factor is 1.0, so the points are the step's.
    c = _rule(_node(gpus, capacity, reviews={"local_nvme": "verified"}), CAPACITY)
    assert c.inputs[CAPACITY_FACT] == per_gpu
    assert c.inputs["answer.nvme_capacity"] == "verified"
    assert (c.points, c.max_points) == (points, 15.0)


def test_a_capacity_left_at_zero_is_not_stated_not_a_claim_of_zero():
    # The column holds 0 when the vendor stated no capacity: the explanation showed
    # "0.0 TiB per GPU" at the claim's status as if the vendor had claimed no drives. Now
    # the input is unknown and says so; the points stay 0, as 0 TiB scored.
    for answers in ({"local_nvme": "verified"}, {"local_nvme": "claimed"}, {}):
        c = _rule(_node(8, "0", answers=answers), CAPACITY)
        assert dict(c.inputs) == {CAPACITY_FACT: None}
        assert (c.points, c.max_points, c.basis) == (0.0, 15.0, "missing")
    # Any stated capacity, however small, is a claim read as stated.
    small = _rule(_node(8, "0.01", answers={"local_nvme": "claimed"}), CAPACITY)
    assert small.inputs[CAPACITY_FACT] == 0.001 and small.basis == "claimed"


def test_a_dgx_h100_entered_in_tib_scores_what_its_tb_figure_scored():
    # Before: 27.94 TiB (honest) 12 of 15, 30.72 (TB in the TiB field) 15 of 15.
    claimed = {"local_nvme": "claimed"}
    honest = _rule(_node(8, "27.94", answers=claimed), CAPACITY)
    mistyped = _rule(_node(8, "30.72", answers=claimed), CAPACITY)
    assert honest.points == mistyped.points == pytest.approx(15 * 0.7)


# 2. The capacity is a claim whatever fio says.


def test_fio_verifying_item_4_leaves_the_capacity_claimed():
    # p14: item 4 verified by fio counted the capacity at factor 1.0 (12 of 15).
    cand = candidate(node_count=1, answers={"local_nvme": "verified"})
    c = _rule(cand, CAPACITY, evaluation(workload_profile="finetuning", required_total_gpus=8))
    assert c.basis == "claimed"
    assert c.inputs == {CAPACITY_FACT: 1.92, "answer.nvme_capacity": "claimed", "factor": 0.7}
    assert c.points == pytest.approx(12 * 0.7)
    assert c.evidence_ref is None  # no evidence file shows a drive's size
    assert "claimed" in c.label_en and "声明" in c.label_zh


def test_the_bandwidth_fio_verified_still_counts_in_full():
    c = _rule(_node(8, "27.94", answers={"local_nvme": "verified"}), READ)
    assert c.inputs["answer.local_nvme"] == "verified"
    assert "factor" not in c.inputs


@pytest.mark.parametrize(
    ("status", "review", "shown", "factor"),
    [
        ("verified", None, "claimed", 0.7),
        ("claimed", None, "claimed", 0.7),
        ("unverifiable", None, "unverifiable", 0.5),
        ("contradicted", None, "contradicted", -0.5),
        (None, None, "unanswered", 0.5),
        ("verified", "verified", "verified", 1.0),
        ("claimed", "contradicted", "contradicted", -0.5),
    ],
)
def test_the_capacity_counts_at_the_review_only_status_of_item_4(status, review, shown, factor):
    answers = {} if status is None else {"local_nvme": status}
    reviews = {} if review is None else {"local_nvme": review}
    c = _rule(_node(8, "27.94", answers=answers, reviews=reviews), CAPACITY)
    assert c.inputs["answer.nvme_capacity"] == shown
    assert c.points == pytest.approx(15 * factor)


@pytest.mark.parametrize(
    ("status", "cited"),
    [
        ("verified", None),
        ("contradicted", "upload 7 · gpu-01 · fio"),
        ("unverifiable", "upload 7 · gpu-01 · fio"),
    ],
)
def test_the_capacity_cites_item_4s_evidence_only_while_it_carries_its_status(status, cited):
    # fio verified the bandwidth: the capacity stays claimed and fio is no proof of it. A
    # refutation or a run missing at the deadline is why the capacity has that status.
    measured = MeasuredFacts(evidence_refs={"local_nvme": "upload 7 · gpu-01 · fio"})
    node = _node(8, "27.94", answers={"local_nvme": status}, measured=measured)
    capacity, read = _rule(node, CAPACITY), _rule(node, READ)
    assert capacity.evidence_ref == cited
    assert read.evidence_ref == "upload 7 · gpu-01 · fio"


def test_confirming_fio_evidence_never_lowers_the_capacity():
    claimed = _rule(_node(8, "13.97", answers={"local_nvme": "claimed"}), CAPACITY)
    verified = _rule(_node(8, "13.97", answers={"local_nvme": "verified"}), CAPACITY)
    assert verified.points == claimed.points


# 3. Per GPU.


def test_a_one_gpu_node_on_the_same_drives_gets_more_capacity_per_gpu():
    # p7: the same drives (one 3.84 TB = 3.49 TiB) on 8 GPUs and on 1 scored alike.
    eight = _rule(_node(8, "3.49", reviews={"local_nvme": "verified"}), CAPACITY)
    one = _rule(_node(1, "3.49", reviews={"local_nvme": "verified"}), CAPACITY)
    assert (eight.points, one.points) == (5.0, 15.0)


@pytest.mark.parametrize(
    ("gpus", "claimed_read", "read_points", "claimed_write", "write_points"),
    [
        (8, "12", 15.0, "4", 7.0),  # 1.5 and 0.5 GB/s per GPU: as the per-node rule scored
        (8, "6", 12.0, "3", 6.0),
        (1, "6", 15.0, "3", 10.0),  # the same drives for one GPU
        (4, "3", 12.0, "1.5", 6.0),
        (8, "0", 0.0, "0", 0.0),
    ],
)
def test_claimed_nvme_bandwidth_is_scored_per_gpu(
    gpus, claimed_read, read_points, claimed_write, write_points
):
    changes = {
        "nvme_read_gbyte_s": Decimal(claimed_read),
        "nvme_write_gbyte_s": Decimal(claimed_write),
    }
    node = _node(gpus, "27.94", answers={"local_nvme": "verified"}, offering_changes=changes)
    read, write = _rule(node, READ), _rule(node, WRITE)
    assert read.inputs["derived.nvme_read_gbyte_s_per_gpu"] == float(claimed_read) / gpus
    assert (read.basis, read.points, read.max_points) == ("claimed", read_points, 15.0)
    assert (write.basis, write.points, write.max_points) == ("claimed", write_points, 10.0)


def test_measured_nvme_bandwidth_is_the_worst_nodes_per_gpu_and_cites_fio():
    # p7's measurement: fio read 12,000 MB/s on a node.
    measured = MeasuredFacts(
        nvme_read_mbyte_s=12000.0, evidence_refs={"nvme_read_mbyte_s": "upload 2 · gpu-01 · fio"}
    )
    eight = _rule(_node(8, "27.94", measured=measured), READ)
    one = _rule(_node(1, "27.94", measured=measured), READ)
    assert eight.inputs == {"derived.measured_nvme_read_gbyte_s_per_gpu": 1.5}
    assert (eight.basis, eight.points, eight.evidence_ref) == (
        "measured",
        15.0,
        "upload 2 · gpu-01 · fio",
    )
    assert one.inputs == {"derived.measured_nvme_read_gbyte_s_per_gpu": 12.0}
    slower = _rule(_node(8, "27.94", measured=MeasuredFacts(nvme_read_mbyte_s=3000.0)), READ)
    assert slower.inputs == {"derived.measured_nvme_read_gbyte_s_per_gpu": 0.375}
    assert slower.points == 8.0


@pytest.mark.parametrize(
    ("required", "node_count", "per_gpu", "points"),
    [
        (8, 1, 2.5, 12.0),  # 20 GB/s for 8 GPUs: as the aggregate rule scored it
        (8, 4, 2.5, 12.0),  # surplus nodes read nothing: the job's 8 GPUs share it
        (64, 8, 0.312, 2.496),  # 20 GB/s for 64 GPUs: 0.312 of 0.625 GB/s x 5
        (2, 1, 10.0, 15.0),
    ],
)
def test_distributed_storage_bandwidth_is_per_gpu_of_the_job(required, node_count, per_gpu, points):
    spec = evaluation(workload_profile="finetuning", required_total_gpus=required)
    node = candidate(
        node_count=node_count, offering=offering(distributed_fs_bandwidth_gbyte_s=Decimal(20))
    )
    c = _rule(node, DFS, spec)
    assert c.inputs["derived.dfs_gbyte_s_per_gpu"] == per_gpu
    # Item 5 unanswered: the claim at 0.5.
    assert c.points == pytest.approx(points * 0.5)


def test_the_node_shape_does_not_change_the_file_systems_share_per_gpu():
    eight = _rule(_node(8, "27.94"), DFS)
    one = _rule(_node(1, "27.94"), DFS)
    assert eight.inputs == one.inputs and eight.points == one.points


def test_no_distributed_file_system_is_not_applicable():
    c = _rule(_node(8, "27.94", offering_changes={"distributed_fs": ""}), DFS)
    assert c.basis == "not_applicable"


@settings(max_examples=60, deadline=None)
@given(
    gpus=st.sampled_from((1, 2, 4, 8)),
    capacity=st.decimals(0, 80, places=2),
    extra=st.decimals(0, 20, places=2),
    read=st.decimals(0, 30, places=2),
    faster=st.decimals(0, 10, places=2),
    dfs=st.decimals(0, 500, places=2),
    status=st.sampled_from(("verified", "claimed", "unverifiable", "contradicted")),
)
def test_more_storage_never_lowers_and_more_gpus_on_it_never_raise_the_score(
    gpus, capacity, extra, read, faster, dfs, status
):
    def node(gpus_per_node, capacity_tib, read_gbyte_s, dfs_gbyte_s):
        return candidate(
            node_count=max(1, 8 // gpus_per_node),
            answers={"local_nvme": status, "distributed_storage": status},
            offering=offering(
                gpus_per_node=gpus_per_node,
                nvme_capacity_tib=capacity_tib,
                nvme_read_gbyte_s=read_gbyte_s,
                distributed_fs_bandwidth_gbyte_s=dfs_gbyte_s,
            ),
        )

    base = _storage(node(gpus, capacity, read, dfs))
    more = _storage(node(gpus, capacity + extra, read + faster, dfs + extra))
    if status == "contradicted":  # a refuted claim costs points: more of it costs more
        assert more <= base
    else:
        assert more >= base
    if gpus < 8 and status != "contradicted":
        assert _storage(node(gpus * 2, capacity, read, dfs)) <= base


def test_the_batch_kernel_agrees_with_the_per_candidate_engine_on_storage():
    fio = MeasuredFacts(
        nvme_read_mbyte_s=5400.0,
        nvme_write_mbyte_s=2100.0,
        evidence_refs={"nvme_read_mbyte_s": "upload 3 · gpu-02 · fio"},
    )
    refs = MeasuredFacts(evidence_refs={"local_nvme": "upload 9 · gpu-03 · fio"})
    batch = [
        _node(8, "27.94", candidate_id=1, answers={"local_nvme": "verified"}),
        _node(8, "30.72", candidate_id=2),
        _node(1, "3.49", candidate_id=3, answers={"local_nvme": "verified"}, measured=fio),
        _node(4, "6.98", candidate_id=4, reviews={"local_nvme": "verified"}, measured=fio),
        _node(2, "0.87", candidate_id=5, answers={"local_nvme": "contradicted"}, measured=refs),
        _node(8, "0.87", candidate_id=8, answers={"local_nvme": "verified"}, measured=refs),
        _node(8, "13.97", candidate_id=6, offering_changes={"distributed_fs": ""}),
        _node(
            8,
            "13.97",
            candidate_id=7,
            offering_changes={"nvme_read_gbyte_s": None, "distributed_fs_bandwidth_gbyte_s": None},
        ),
    ]
    spec = evaluation(workload_profile="finetuning", required_total_gpus=8)
    tcos = pending_tcos(batch, spec, RUBRIC)
    eager, columns = score_dimensions_columns(batch, spec, RUBRIC, tcos)
    rows, arrays = score_dimensions_deferred(batch, spec, RUBRIC, tcos)
    index = DIMENSIONS.index("storage")
    assert list(arrays[index]) == list(columns[index])
    assert len(set(arrays[index])) > 4
    for cand, dims, deferred, tco in zip(batch, eager, rows, tcos, strict=True):
        assert dims[index].as_dict() == deferred[index].as_dict()
        ctx = FactContext(cand, spec, RUBRIC, tco)
        for rule in RUBRIC.by_dimension["storage"]:
            assert evaluate_rule(rule, ctx) == evaluate_rule(rule, ctx, general=True)
