"""The decision scenarios of rubric v2 (scoring/rubrics/scenarios-v2.json), run as tests.

Each scenario cites the passage of DESIGN §2 or issue #10 it comes from and states the
expected ordering or verdict; the README renders the same data as "What the model believes".
"""

from __future__ import annotations

import json
import re
from dataclasses import fields, replace
from decimal import Decimal
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from scoring.poc import PocShortfall, candidate_with_poc
from scoring.ranking import rank
from scoring.rubric import load_rubric
from scoring.tco import compute_tco
from scoring.types import MeasuredFacts, OfferingFacts, Price, ScoringInputError, VendorFacts
from tests.scoring.scoring_factories import candidate, evaluation, offering

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS_PATH = ROOT / "scoring" / "rubrics" / "scenarios-v2.json"
SCENARIOS = json.loads(SCENARIOS_PATH.read_text(encoding="utf-8"))["scenarios"]
RUBRIC = load_rubric("2")
DECIMAL_FIELDS = {f.name for f in fields(OfferingFacts) if "Decimal" in str(f.type)}
README_START = "<!-- scenarios-v2:start -->"
README_END = "<!-- scenarios-v2:end -->"


def _offering(changes: dict[str, Any]) -> OfferingFacts:
    values: dict[str, Any] = {}
    for name, value in changes.items():
        if name == "prices":
            value = tuple(Price(m, Decimal(p)) for m, p in value.items())
        elif name in DECIMAL_FIELDS and value is not None:
            value = Decimal(value)
        values[name] = value
    return offering(**values)


def _candidates(scenario: dict[str, Any]) -> list:
    built = []
    for i, spec in enumerate(scenario["candidates"], start=1):
        one = candidate(
            i,
            label=spec["label"],
            offering=_offering(spec.get("offering", {})),
            node_count=spec.get("node_count", 2),
            measured=MeasuredFacts(**spec.get("measured", {})),
            answers=spec.get("answers", {}),
        )
        if "vendor" in spec:
            one = replace(one, vendor=VendorFacts(**{"name": "Vendor A", **spec["vendor"]}))
        # POC runs failed or missing at the deadline: [run kind, reason] pairs
        found = [PocShortfall(kind, kind, reason) for kind, reason in spec.get("poc", [])]
        built.append(candidate_with_poc(one, found))
    return built


def _spec(scenario: dict[str, Any]):
    return evaluation(**scenario.get("evaluation", {}))


def _value(result, dimension: str) -> float:
    return result.total if dimension == "total" else result.scores[dimension]


def _check_candidates(scenario: dict[str, Any]) -> None:
    expect = scenario["expect"]
    spec = _spec(scenario)
    if expect.get("input_error"):
        with pytest.raises(ScoringInputError):
            rank(_candidates(scenario), spec, RUBRIC)
        return
    candidates = _candidates(scenario)
    ranking = rank(candidates, spec, RUBRIC)
    by_label = {r.label: r for r in ranking.results}
    inputs = {c.label: c for c in candidates}
    for key, wanted in expect.items():
        if key == "knockout":
            for label, code in wanted.items():
                codes = [k.code for k in by_label[label].knockouts]
                assert (code in codes) if code else not codes, (label, codes)
        elif key in ("recommended", "cheapest"):
            for label, model in wanted.items():
                assert getattr(by_label[label].tco, key) == model
        elif key == "availability_basis":
            for label, basis in wanted.items():
                assert by_label[label].tco.availability_basis == basis
        elif key == "efficiency_basis":
            for label, basis in wanted.items():
                assert by_label[label].tco.efficiency_basis == basis
        elif key == "spot_hours_factor_above":
            for label, factor in wanted.items():
                tco = by_label[label].tco
                assert tco.model("spot").billed_units > tco.model("hourly").billed_units * Decimal(
                    repr(factor)
                )
        elif key == "hourly_idle_paid":
            for label, paid in wanted.items():
                busy = compute_tco(inputs[label], replace(spec, expected_idle_days=0), RUBRIC)
                idle = by_label[label].tco
                same = idle.model("hourly").component("gpu") == busy.model("hourly").component(
                    "gpu"
                )
                assert same is paid
        elif key == "commitment":
            for label, (model, amount) in wanted.items():
                assert by_label[label].tco.model(model).component("commitment") == Decimal(amount)
        elif key == "equal":
            values = [_value(by_label[label], wanted["dimension"]) for label in wanted["labels"]]
            assert len(set(values)) == 1, values
        elif key.startswith("order"):
            values = [_value(by_label[label], wanted["dimension"]) for label in wanted["labels"]]
            strict = key != "order_at_least"
            for a, b in pairwise(values):
                assert (a > b) if strict else (a >= b), (wanted, values)
        else:
            raise AssertionError(f"unknown expectation {key!r}")


def _efficiency(form: str, gpus: int, workload: str) -> float:
    return RUBRIC.scale.efficiency(form, gpus, workload)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_scenario(scenario):
    check = scenario["check"]
    if check == "efficiency_order":
        values = [_efficiency(*point) for point in scenario["points"]]
        assert all(a > b for a, b in pairwise(values)), values
    elif check == "efficiency_nonincreasing":
        values = [_efficiency(scenario["form"], g, scenario["workload"]) for g in scenario["gpus"]]
        assert all(a >= b for a, b in pairwise(values)), values
    elif check == "efficiency_between":
        value = _efficiency(scenario["form"], scenario["gpu_count"], scenario["workload"])
        assert scenario["min"] <= value <= scenario["max"], value
    elif check == "candidates":
        _check_candidates(scenario)
    else:
        raise AssertionError(f"unknown check {check!r}")


def test_at_least_25_scenarios_each_citing_its_source():
    assert len(SCENARIOS) >= 25
    assert len({s["id"] for s in SCENARIOS}) == len(SCENARIOS)
    for scenario in SCENARIOS:
        assert re.search(r"DESIGN §2|Issue #10 §\d", scenario["source"]), scenario["id"]
        assert scenario["claim"].strip() and scenario["expected"].strip()


def readme_table() -> str:
    """The README's "What the model believes" table, generated from the scenarios."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    rows = [
        "| # | The model believes | Expected | Source |",
        "|---|---|---|---|",
    ]
    for number, s in enumerate(SCENARIOS, start=1):
        rows.append(
            f"| {number} | {cell(s['claim'])} | {cell(s['expected'])} | {cell(s['source'])} |"
        )
    return "\n".join(rows)


def test_readme_renders_the_scenarios():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = text.index(README_START), text.index(README_END)
    assert text[start + len(README_START) : end].strip() == readme_table(), (
        "README's 'What the model believes' table is out of date: regenerate it with "
        "python -c 'from tests.scoring.test_scoring_v2_scenarios import readme_table; "
        "print(readme_table())'"
    )
