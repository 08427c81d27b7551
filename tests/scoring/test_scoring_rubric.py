"""The rubric is data: the packaged v1 fixture, its validation and the generic rule kinds."""

from __future__ import annotations

import copy
import json
import math
import re

import pytest

from scoring.rubric import (
    LinearTable,
    StepTable,
    load_rubric,
    parse_rubric,
    rubric_text,
)
from scoring.types import DIMENSIONS, WORKLOAD_PROFILES, RubricError

CJK = re.compile(r"[\u4e00-\u9fff]")
RAW = json.loads(rubric_text("1"))


def _with(mutate) -> dict:
    data = copy.deepcopy(RAW)
    mutate(data)
    return data


def _rule(data: dict, rule_id: str) -> dict:
    return next(r for r in data["rules"] if r["id"] == rule_id)


def test_v1_loads_with_rules_for_every_dimension():
    rubric = load_rubric("1")
    assert rubric.version == "1"
    assert set(rubric.by_dimension) == set(DIMENSIONS)
    for dimension in DIMENSIONS:
        assert rubric.by_dimension[dimension], dimension


def test_every_rule_has_a_stable_id_both_labels_inputs_and_a_source():
    rubric = load_rubric()
    ids = [rule.id for rule in rubric.rules]
    assert len(ids) == len(set(ids))
    for rule in rubric.rules:
        assert re.fullmatch(r"[a-z]+\.[a-z0-9_]+\.[a-z0-9_]+", rule.id), rule.id
        assert rule.id.startswith(rule.dimension + ".")
        assert rule.label_en.strip() and CJK.search(rule.label_zh), rule.id
        assert rule.inputs and rule.source.strip()
        assert rule.max_points > 0, rule.id


def test_each_dimension_reads_what_the_issue_lists():
    inputs = {d: set() for d in DIMENSIONS}
    for rule in load_rubric().rules:
        inputs[rule.dimension].update(rule.inputs)
    assert {
        "offering.sla_availability_pct",
        "offering.hardware_replacement_hours",
        "offering.monitors_pcie_errors",
        "offering.monitors_ecc",
        "offering.monitors_thermal",
        "measured.ecc_uncorrected",
        "measured.remapped_rows_pending",
        "measured.remapped_rows_failure",
        "measured.xid_errors",
        "measured.dcgm_overall",
    } <= inputs["stability"]
    assert {
        "offering.fabric",
        "offering.fabric_rate_gbit_s",
        "offering.nics_per_node",
        "offering.oversubscription_ratio",
        "offering.cross_rack_latency_us",
        "offering.nvlink_topology",
        "measured.busbw_fraction",
        "derived.scale_efficiency",
        "offering.nccl_tuning_control",
    } <= inputs["network"]
    assert {
        "offering.nvme_capacity_tib",
        "measured.nvme_read_gbyte_s",
        "derived.has_distributed_fs",
        "offering.distributed_fs_bandwidth_gbyte_s",
        "offering.data_preloading",
    } <= inputs["storage"]
    assert {
        "offering.encryption_at_rest",
        "offering.encryption_in_transit",
        "offering.mfa",
        "offering.audit_logs",
        "offering.network_isolation",
        "offering.data_wipe_policy",
        "vendor.mlps_level",
        "vendor.xinchuang",
    } <= inputs["security"]
    assert {"derived.budget_ratio", "derived.effective_price_ratio"} <= inputs["cost"]
    assert {
        "offering.sla_response_time_min",
        "offering.support_24x7",
        "offering.support_tier",
        "offering.poc_window_days",
    } <= inputs["support"]


def test_presets_give_weights_and_a_source_per_profile():
    rubric = load_rubric()
    for profile in WORKLOAD_PROFILES:
        preset = rubric.presets[profile]
        assert math.isclose(sum(preset.weights.values()), 100)
        assert preset.source.strip()
    assert rubric.preset_weights("pretraining")["network"] == 30
    with pytest.raises(RubricError, match="no preset for workload profile 'gaming'"):
        rubric.preset_weights("gaming")


def test_scale_rules_are_the_source_documents_figures():
    scale = load_rubric().scale
    assert scale.single_node_max_gpus == 8
    assert scale.bare_metal_required_min_gpus == 128
    assert scale.bare_metal_required(128) and not scale.bare_metal_required(127)
    assert scale.virtualisation_overhead_pct(1) == 2.0  # 1-3 % on one card
    assert math.isclose(scale.virtualisation_overhead_pct(1000), 6.5)  # 5-8 % at 1000 cards
    assert scale.virtualisation_overhead_pct(5000) == 6.5
    assert scale.fabric_control_loss_pct(16) == 15.0  # 10-20 % at 16-64 GPUs
    assert scale.fabric_control_loss_pct(8) == 0.0
    assert scale.efficiency("bare_metal", 512) == 1.0
    assert math.isclose(scale.efficiency("vgpu", 32), 0.85)
    for source in scale.sources.values():
        assert "Source documents" in source


def test_reference_price_matches_the_first_pattern_or_the_fallback():
    rubric = load_rubric()
    assert str(rubric.reference_gpu_hour_price("NVIDIA H100 SXM5 80GB", "CNY")) == "20.00"
    assert str(rubric.reference_gpu_hour_price("NVIDIA L40S", "USD")) == "0.90"
    assert str(rubric.reference_gpu_hour_price("Ascend 910B", "CNY")) == "10.00"


@pytest.mark.parametrize("version", ["1", "2"])
def test_a_reference_pattern_names_a_gpu_only_with_no_digit_beside_it(version):
    """A pattern inside a longer model number is another GPU: an RTX A1000 is no A100, an H200
    no H20 (whatever the patterns' order), while suffixes and prefixes in letters still name it."""
    rubric = load_rubric(version)
    price = rubric.reference_gpu_hour_price
    pattern = rubric.reference_gpu_hour_pattern
    assert pattern("NVIDIA RTX A1000 8GB", "CNY") == "*"
    assert pattern("NVIDIA A100-SXM4-80GB", "CNY") == "a100"
    assert pattern("NVIDIA H200 141GB", "USD") == "h200"
    assert pattern("NVIDIA H20", "USD") == "h20"
    assert pattern("GeForce RTX 4090D", "CNY") == "4090"
    assert pattern("NVIDIA L40S", "CNY") == "l40s"
    assert price("NVIDIA RTX A1000 8GB", "CNY") == price("Ascend 910B", "CNY")


def test_step_tables_pick_the_reached_threshold():
    higher = StepTable("higher", (99.0, 99.9, 99.99), (3.0, 12.0, 20.0), 0.0)
    assert [higher.points(v) for v in (98, 99.0, 99.5, 99.9, 100)] == [0, 3, 3, 12, 20]
    lower = StepTable("lower", (4.0, 24.0, 72.0), (10.0, 7.0, 3.0), 0.0)
    assert [lower.points(v) for v in (0, 4, 5, 24, 72, 73)] == [10, 10, 7, 7, 3, 0]


def test_linear_table_interpolates_and_is_flat_outside():
    table = LinearTable((0.5, 0.7, 0.85, 0.95), (0.0, 8.0, 15.0, 20.0))
    assert table.points(0.2) == 0.0
    assert math.isclose(table.points(0.6), 4.0)
    assert math.isclose(table.points(0.9), 17.5)
    assert table.points(1.2) == 20.0


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: _rule(d, "network.fabric.type").update(kind="regex"),
            "unknown rule kind 'regex'",
        ),
        (lambda d: _rule(d, "network.fabric.type").pop("label_zh"), "missing or empty 'label_zh'"),
        (lambda d: _rule(d, "network.fabric.type").update(label_zh="Fabric"), "must be Chinese"),
        (lambda d: _rule(d, "network.fabric.type").update(label_en=" "), "'label_en'"),
        (
            lambda d: _rule(d, "network.fabric.type").update(inputs=["offering.colour"]),
            "unknown input fact 'offering.colour'",
        ),
        (
            lambda d: _rule(d, "network.fabric.type").update(claim_item="price"),
            "claim_item must be a checklist key",
        ),
        (
            lambda d: _rule(d, "stability.sla.availability").update(steps=[[99, 10], [99.9, 5]]),
            "points must not fall as thresholds rise",
        ),
        (
            lambda d: _rule(d, "network.measured.busbw_fraction").update(
                anchors=[[0.5, 0], [0.7, 20], [0.9, 5]]
            ),
            "must be monotone",
        ),
        (
            lambda d: _rule(d, "network.measured.busbw_fraction").update(
                anchors=[[0.7, 0], [0.5, 1]]
            ),
            "strictly ascending",
        ),
        (lambda d: _rule(d, "network.fabric.type").update(dimension="price"), "dimension must be"),
        (lambda d: _rule(d, "network.fabric.type").update(id="stability.x.y"), "must start with"),
        (lambda d: d["rules"].append(copy.deepcopy(d["rules"][0])), "duplicate rule id"),
        (lambda d: d["status_factors"].pop("contradicted"), "missing factor for 'contradicted'"),
        (
            lambda d: d["status_factors"].update(contradicted=0.2),
            "contradicted < 0 <= unanswered <= claimed",
        ),
        (lambda d: d["presets"]["inference"]["weights"].update(cost=50), "sum to 100"),
        (lambda d: d["presets"].pop("development"), "presets.development: missing preset"),
        (lambda d: d["reference_gpu_hour_prices"]["CNY"].pop(), "must be the '\\*' fallback"),
        (lambda d: d["reference_gpu_hour_prices"]["USD"][0].__setitem__(1, 3.0), "are strings"),
        (lambda d: d.update(version=1), "'version' string"),
        (
            lambda d: d.update(rules=[r for r in d["rules"] if r["dimension"] != "support"]),
            "dimension 'support' needs at least one rule",
        ),
    ],
)
def test_malformed_rubric_data_raises_rubric_error(mutate, message):
    with pytest.raises(RubricError, match=message):
        parse_rubric(_with(mutate))


def test_unknown_version_and_non_object_data():
    with pytest.raises(RubricError, match="no rubric version '9' is packaged"):
        load_rubric("9")
    with pytest.raises(RubricError, match="short alphanumeric name"):
        rubric_text("../x")
    with pytest.raises(RubricError, match="must be a JSON object"):
        parse_rubric([1, 2])


def test_a_rubric_loads_from_its_recorded_text_and_scores_as_that_text_says():
    """A recorded decision keeps its rubric's exact text: loading it gives the packaged rubric
    while the file is unchanged, and a revised text scores as revised (here the H100 reference
    GPU-hour price, which the rubric says is revised per procurement round)."""
    from decimal import Decimal

    from scoring_factories import candidate, evaluation

    from scoring.api import score_candidates
    from scoring.rubric import load_rubric_text, rubric_sha256

    text = rubric_text("2")
    assert load_rubric_text(text).rules == load_rubric("2").rules
    assert re.fullmatch(r"[0-9a-f]{64}", rubric_sha256(text))
    data = json.loads(text)
    for row in data["reference_gpu_hour_prices"]["CNY"]:
        if row[0] == "h100":
            row[1] = "26.00"
    revised = json.dumps(data)
    assert rubric_sha256(revised) != rubric_sha256(text)
    h100 = "NVIDIA H100 SXM5 80GB"
    assert load_rubric_text(revised).reference_gpu_hour_price(h100, "CNY") == Decimal("26.00")
    spec = evaluation()
    packaged = score_candidates([candidate()], spec, rubric_version="2").results[0]
    pinned = score_candidates(
        [candidate()], spec, rubric_version="2", rubric=load_rubric_text(text)
    ).results[0]
    dearer = score_candidates(
        [candidate()], spec, rubric_version="2", rubric=load_rubric_text(revised)
    ).results[0]
    assert pinned.total == packaged.total
    # A higher reference price makes the same quote look cheaper: the cost score rises.
    assert dearer.score("cost") > packaged.score("cost")


def test_a_recorded_text_that_no_longer_reads_is_a_rubric_error():
    from scoring.rubric import load_rubric_text

    with pytest.raises(RubricError, match="recorded rubric is not valid JSON"):
        load_rubric_text("{")
    with pytest.raises(RubricError, match="non-empty 'rules' list"):
        load_rubric_text('{"version": "2", "rules": []}')
    with pytest.raises(RubricError, match="is a string"):
        load_rubric_text(None)
