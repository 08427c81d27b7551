"""The offering's MIG profile is checked against the GPU model when it is saved (issue #10,
second review): the GPU is recognised by the reference table and the instances per GPU must fit."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from portal.models import Offering


def _clean(gpu_model: str, profile: str) -> Offering:
    offering = Offering(delivery_form="mig", gpu_model=gpu_model, mig_profile=profile)
    Offering._meta.get_field("mig_profile").run_validators(profile)
    offering.clean()
    return offering


def test_a_profile_with_instances_per_gpu_is_accepted_and_normalised():
    assert _clean("NVIDIA A100-SXM4-80GB", "2 × 3g.40gb").mig_profile == "2x3g.40gb"
    assert _clean("NVIDIA H100 PCIe", "7x1g.10gb").mig_profile == "7x1g.10gb"


@pytest.mark.parametrize(
    ("gpu_model", "profile", "message"),
    [
        ("NVIDIA A10", "1g.6gb", "Ampere-or-newer"),
        ("NVIDIA A100-SXM4-80GB", "2x4g.40gb", "need 8 slices"),
        ("NVIDIA A100-SXM4-80GB", "8x1g.10gb", "at most 7 MIG instances"),
        ("NVIDIA A30", "3g.12gb", "1, 2, 4 compute slices"),
    ],
)
def test_a_layout_the_gpu_cannot_hold_is_a_form_error(gpu_model, profile, message):
    with pytest.raises(ValidationError) as raised:
        _clean(gpu_model, profile)
    (text,) = raised.value.message_dict["mig_profile"]
    assert message in text
