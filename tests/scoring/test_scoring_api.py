"""The public facade, as the README example uses it, and the no-Django import contract."""

from __future__ import annotations

import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from scoring import api
from scoring.api import (
    CandidateInput,
    EvaluationSpec,
    MeasuredFacts,
    OfferingFacts,
    Price,
    VendorFacts,
    ahp,
    compute_tco,
    robustness,
    score_candidates,
)

ROOT = Path(__file__).resolve().parents[2]


def _readme_example():
    h100 = OfferingFacts(
        delivery_form="bare_metal",
        gpu_model="NVIDIA H100 SXM5 80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        currency="CNY",
        prices=[Price("hourly", Decimal("20.00")), Price("monthly", Decimal("12000.00"))],
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=8,
        sla_availability_pct=Decimal("99.9"),
        support_24x7=True,
        support_tier="dedicated_team",
    )
    vgpu = OfferingFacts(
        delivery_form="vgpu",
        gpu_model="A100-SXM4-80GB",
        gpus_per_node=8,
        gpu_memory_gib=80,
        prices=[Price("hourly", Decimal("11.00"))],
        licence_cost_gpu_month=Decimal("150.00"),
        fabric="roce",
        fabric_rate_gbit_s=200,
        nics_per_node=4,
        sla_availability_pct=Decimal("99.5"),
    )
    candidates = [
        CandidateInput(
            1,
            "Vendor A bare metal",
            VendorFacts("Vendor A", mlps_level=3),
            h100,
            node_count=2,
            answers={"fabric": "verified", "sla": "claimed"},
            measured=MeasuredFacts(
                busbw_fraction=0.91,
                evidence_refs={"busbw_fraction": "upload 12 · all_reduce.txt line 57"},
            ),
        ),
        CandidateInput(
            2, "Vendor B vGPU", VendorFacts("Vendor B", mlps_level=2), vgpu, node_count=2
        ),
    ]
    evaluation = EvaluationSpec(
        workload_profile="pretraining",
        required_total_gpus=16,
        required_gpu_memory_gib=80,
        duration_days=90,
        expected_idle_days=10,
        budget_total=Decimal("900000"),
        min_busbw_fraction=Decimal("0.8"),
    )
    return h100, candidates, evaluation


def test_readme_example_end_to_end():
    h100, candidates, evaluation = _readme_example()
    ranking = score_candidates(candidates, evaluation)
    assert [r.candidate_id for r in ranking.results] == [1, 2]
    assert ranking.leader.label == "Vendor A bare metal"
    assert [k.code for k in ranking.results[1].knockouts] == ["busbw_unmeasured"]
    busbw = next(
        c
        for c in ranking.results[0].dimensions[1].contributions
        if c.rule_id == "network.measured.busbw_fraction"
    )
    assert busbw.evidence_ref == "upload 12 · all_reduce.txt line 57"
    assert busbw.inputs == {"measured.busbw_fraction": 0.91}

    tco = compute_tco(h100, evaluation, node_count=2)
    assert (tco.cheapest, str(tco.total)) == ("monthly", "576000.00 CNY")
    assert tco.break_even_used_days == Decimal("75.00")

    weights = ahp([[1, 3, 5], [1 / 3, 1, 3], [1 / 5, 1 / 3, 1]])
    assert round(weights.consistency_ratio, 3) == 0.033

    report = robustness(ranking, draws=200, seed=0)
    assert report.leader_id == 1
    assert report.flips == ()  # the only other candidate is disqualified
    assert dict(report.stability.first_share) == {1: 1.0, 2: 0.0}


def test_robustness_needs_weights_with_a_plain_list():
    _, candidates, evaluation = _readme_example()
    results = score_candidates(candidates, evaluation).results
    with pytest.raises(TypeError, match="pass weights"):
        robustness(list(results))
    assert robustness(list(results), {"cost": 1}).leader_id == 1


def test_presets_and_rules_as_data():
    assert api.preset_weights("development")["cost"] == 40
    rules = api.rubric_rules()
    assert {"id", "label_en", "label_zh", "inputs", "max_points", "source"} <= set(rules[0])
    assert len({r["id"] for r in rules}) == len(rules)


def test_scoring_core_imports_no_framework():
    # numpy is allowed (issue #15: the numeric kernels); frameworks and the portal are not.
    code = (
        "import sys\n"
        "import scoring.api, scoring.ranking, scoring.robustness, scoring.weights\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('django', 'rest_framework', 'celery', 'plotly', 'portal'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
