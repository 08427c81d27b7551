"""A superchip (GH200, GB200: the form the reference table calls "other") scores as an SXM
board on the form-factor rule, not below a PCIe card, and the datasheet check judges "other"
too, so no GPU the table lists without a superchip version can use it (GPU expert review of
stop 33: a GB200 NVL72 scored 0/6 and network 55.26, an HGX B200 6/6 and 60.53)."""

from __future__ import annotations

import pytest

from scoring.ranking import score_candidate
from scoring.reference import form_factor_ruled_out
from scoring.rubric import load_rubric
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
RULE = "network.gpu.form_factor"


def _row(model: str, form: str, memory: int, status: str = "verified"):
    c = candidate(
        offering=offering(gpu_model=model, gpu_form_factor=form, gpu_memory_gib=memory),
        answers={"gpu_match": status},
    )
    result = score_candidate(c, evaluation(), V2)
    return next(x for d in result.dimensions for x in d.contributions if x.rule_id == RULE)


@pytest.mark.parametrize(
    ("model", "memory"), [("NVIDIA GB200 186GB", 186), ("NVIDIA GH200 144GB HBM3e", 144)]
)
def test_a_superchip_scores_as_an_sxm_board(model, memory):
    superchip = _row(model, "other", memory)
    sxm = _row("NVIDIA B200 180GB", "sxm", 180)
    pcie = _row("NVIDIA H100 PCIe 80GB", "pcie", 80)
    assert superchip.inputs.get("answer.gpu_form_factor_datasheet") != "contradicted"
    assert superchip.points == sxm.points == 6 > pcie.points


@pytest.mark.parametrize(("model", "memory"), [("NVIDIA H100 SXM5 80GB", 80), ("NVIDIA L40S", 48)])
def test_other_on_a_gpu_made_with_no_superchip_version_is_contradicted(model, memory):
    assert form_factor_ruled_out(model, "other") is not None
    row = _row(model, "other", memory)
    assert row.inputs["answer.gpu_form_factor_datasheet"] == "contradicted"
    assert row.points < 0
    assert "superchip" in row.evidence_ref


def test_another_makers_module_is_not_judged():
    assert form_factor_ruled_out("Huawei Ascend 910B", "other") is None
    assert form_factor_ruled_out("NVIDIA GB200 186GB", "sxm") is not None
