"""One vocabulary: the portal's choices, the checklist fixture and the offering fields agree
with the scoring core and the rubric; a copy that drifts fails here."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from portal import adapters
from portal.models import ChecklistItem, Offering
from portal.models.choices import (
    BillingModel,
    Currency,
    DeliveryForm,
    Dimension,
    Fabric,
    FormFactor,
    NvlinkTopology,
    VerificationStatus,
    WorkloadProfile,
)
from scoring.rubric import CURRENT_RUBRIC_VERSION, RUBRIC_VERSIONS, load_rubric
from scoring.types import (
    BILLING_MODELS,
    CHECKLIST_KEYS,
    CURRENCIES,
    DELIVERY_FORMS,
    DIMENSIONS,
    FABRICS,
    GPU_FORM_FACTORS,
    ITEM_STATUSES,
    NVLINK_TOPOLOGIES,
    WORKLOAD_PROFILES,
    OfferingFacts,
)

ROOT = Path(__file__).resolve().parents[2]
CHECKLIST = [
    row["fields"]
    for row in json.loads((ROOT / "fixtures" / "checklist.json").read_text(encoding="utf-8"))
    if row["model"] == "portal.checklistitem"
]


@pytest.mark.parametrize(
    ("portal_choices", "core"),
    [
        (Dimension, DIMENSIONS),
        (DeliveryForm, DELIVERY_FORMS),
        (WorkloadProfile, WORKLOAD_PROFILES),
        (BillingModel, BILLING_MODELS),
        (Currency, CURRENCIES),
        (Fabric, FABRICS),
        (FormFactor, GPU_FORM_FACTORS),
        (NvlinkTopology, NVLINK_TOPOLOGIES),
        (VerificationStatus, ITEM_STATUSES),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_portal_choices_are_the_scoring_core_values(portal_choices, core):
    assert set(portal_choices.values) == set(core)


def test_checklist_keys_are_the_scoring_core_keys():
    assert [item["key"] for item in CHECKLIST] == list(CHECKLIST_KEYS)


def test_dimensions_fed_by_each_checklist_item_are_derived_from_the_rubric():
    derived = load_rubric(CURRENT_RUBRIC_VERSION).checklist_dimensions()
    for item in CHECKLIST:
        assert set(item["dimensions"]) == set(derived[item["key"]]), item["key"]


def test_every_offering_fact_is_an_offering_field():
    model_fields = {f.name for f in Offering._meta.get_fields()}
    facts = {f.name for f in fields(OfferingFacts)} - {"prices"}
    assert facts <= model_fields, facts - model_fields
    assert set(adapters.OFFERING_FIELDS) == facts


@pytest.mark.parametrize("version", RUBRIC_VERSIONS)
def test_every_offering_input_of_a_rubric_is_an_offering_field(version):
    model_fields = {f.name for f in Offering._meta.get_fields()}
    for rule in load_rubric(version).rules:
        for name in rule.inputs:
            if name.startswith("offering."):
                assert name.removeprefix("offering.") in model_fields, (rule.id, name)


def test_the_checklist_model_refuses_an_unknown_dimension():
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        ChecklistItem(number=99, key="x", dimensions=["speed"]).clean()
