"""Personas and data for the portal tests: a member per role, an outsider, one evaluation."""

import io
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from portal.models import Evaluation, Membership, Offering, Role, Vendor

PASSWORD = "correct-horse-battery-staple"


@pytest.fixture
def make_user(db):
    def make(username: str, **kwargs):
        return get_user_model().objects.create_user(username=username, password=PASSWORD, **kwargs)

    return make


@pytest.fixture
def evaluation(db) -> Evaluation:
    return Evaluation.objects.create(
        name="Pre-train on 16 GPUs",
        workload_profile="pretraining",
        required_total_gpus=16,
        required_gpu_memory_gib=80,
        duration_days=30,
    )


@pytest.fixture
def members(evaluation, make_user) -> dict[str, object]:
    """One user per role in ``evaluation``, plus an ``outsider`` who belongs to none."""
    users = {}
    for role in Role:
        user = make_user(role.value)
        Membership.objects.create(evaluation=evaluation, user=user, role=role)
        users[role.value] = user
    users["outsider"] = make_user("outsider")
    return users


@pytest.fixture
def vendor(db) -> Vendor:
    return Vendor.objects.create(name="Test Vendor", mlps_level=3)


@pytest.fixture
def offering(vendor) -> Offering:
    return Offering.objects.create(
        vendor=vendor,
        name="8x H100 bare metal",
        delivery_form="bare_metal",
        gpu_model="NVIDIA H100 SXM5 80GB",
        gpu_form_factor="sxm",
        gpus_per_node=8,
        gpu_memory_gib=80,
        nvlink_topology="full_mesh",
        fabric="infiniband",
        fabric_rate_gbit_s=400,
        nics_per_node=8,
        sla_availability_pct=Decimal("99.9"),
    )


@pytest.fixture
def demo(db):
    out = io.StringIO()
    call_command("setup_demo", stdout=out)
    return out.getvalue()
