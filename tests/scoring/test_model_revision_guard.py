"""A change of figures comes with a new scoring.MODEL_REVISION.

The portal keys its stored results by MODEL_REVISION (and decisions record it), so a change of
scoring code that moves a figure without bumping it would serve results of the old model as
current and leave two different rankings under one name. This test ranks a fixed, varied set
of candidates (bench/scoring.py's realistic generator, seeded) under every rubric and several
evaluations, and keeps a digest of the figures: ranks, totals, dimension scores, knockouts
and TCOs, rounded where floating-point noise could reach them. When the digest changes:

- on purpose (the model changed): bump MODEL_REVISION in scoring/__init__.py and record the
  new revision and digest in RECORDED below (the failure message prints the digest);
- by surprise: a refactoring changed figures, which is a bug.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import scoring
from scoring.ranking import rank
from scoring.rubric import load_rubric
from scoring.types import DIMENSIONS, EvaluationSpec

# (MODEL_REVISION, digest of the figures it gives): updated together, never one alone.
RECORDED = (
    "2026-12-06i.ascend-nodes-are-accelerator-nodes",
    "6e91eba4602a919461303ded5bbc04ecd3d6d1d6903586112d8a24e8ea8f6d7a",
)

EVALUATIONS = (
    EvaluationSpec(
        workload_profile="pretraining",
        required_total_gpus=8,
        required_gpu_memory_gib=48,
        duration_days=90,
        expected_idle_days=10,
        budget_total=Decimal(5_000_000),
    ),
    EvaluationSpec(
        workload_profile="inference",
        required_total_gpus=4,
        required_gpu_memory_gib=80,
        duration_days=400,
        expected_idle_days=0,
    ),
    EvaluationSpec(
        workload_profile="finetuning",
        required_total_gpus=64,
        required_gpu_memory_gib=24,
        duration_days=21,
        expected_idle_days=3,
        budget_total=Decimal(300_000),
    ),
)


# Parts the bench's generator does not offer, each judged by rules of its own: accelerators
# without NVIDIA's reference figures (scored as unmeasured, their fabric priced against a
# stand-in) and Grace superchips (host copies over NVLink-C2C). Every fifth candidate is
# offered with one of them instead (model, memory, form factor).
OTHER_PARTS = (
    ("Huawei Ascend 910B", 64, "other"),
    ("AMD Instinct MI300X", 192, "other"),
    ("NVIDIA GH200 480GB", 96, "sxm"),
    ("NVIDIA GB200", 186, "sxm"),
)


def _candidates(count: int = 150):
    path = Path(__file__).resolve().parents[2] / "bench" / "scoring.py"
    spec = importlib.util.spec_from_file_location("bench_scoring_guard", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = random.Random(20261206)  # noqa: S311 - test data
    candidates = [module.make_candidate(rng, i) for i in range(1, count + 1)]
    for index in range(0, count, 5):
        model, memory, form_factor = OTHER_PARTS[(index // 5) % len(OTHER_PARTS)]
        offering = replace(
            candidates[index].offering,
            gpu_model=model,
            gpu_memory_gib=memory,
            gpu_form_factor=form_factor,
        )
        candidates[index] = replace(candidates[index], offering=offering)
    return candidates


def _money(value) -> str | None:
    return None if value is None else f"{Decimal(value):.2f}"


def _figures() -> list:
    candidates = _candidates()
    figures = []
    for version in ("1", "2"):
        rubric = load_rubric(version)
        for evaluation in EVALUATIONS:
            ranking = rank(candidates, evaluation, rubric)
            for position, result in enumerate(ranking.results, start=1):
                tco = result.tco
                figures.append(
                    [
                        version,
                        evaluation.workload_profile,
                        position,
                        result.candidate_id,
                        round(result.total, 3),
                        [round(result.score(d), 3) for d in DIMENSIONS],
                        sorted(k.code for k in result.knockouts),
                        None if tco is None else [tco.cheapest, _money(tco.cheapest_total)],
                    ]
                )
    return figures


def test_the_figures_are_those_recorded_for_this_model_revision():
    digest = hashlib.sha256(json.dumps(_figures(), sort_keys=True).encode()).hexdigest()
    revision, recorded = RECORDED
    assert (scoring.MODEL_REVISION, digest) == (revision, recorded), (
        "The scoring figures changed. If on purpose, bump MODEL_REVISION in scoring/__init__.py"
        f" and set RECORDED here to ({scoring.MODEL_REVISION!r}, {digest!r}) — with the new"
        " revision; if not, a change moved figures it should not have."
    )


def test_the_revision_reads_as_a_name_in_every_language():
    # Decision pages show it in Chinese too, where a status word in it reads as an
    # untranslated code (the browser walks flag them).
    import re

    words = r"\b(claimed|verified|contradicted|unverifiable|unanswered|not_applicable)\b"
    assert not re.search(words, scoring.MODEL_REVISION)
