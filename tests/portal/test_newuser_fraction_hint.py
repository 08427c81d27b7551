"""The minimum bus-bandwidth fraction is typed as a share of 1 (0.80; the dashboard shows it as
80 %). "80%" was refused with "enter the number without the % sign, for example 80", and 80,
typed as told, with "ensure this value is less than or equal to 1": each refusal now names
the fraction to type, and keeps what was typed."""

import pytest
from django.urls import reverse

from portal.models import Evaluation

from .test_newuser_sent_once import FIELDS as NEW_EVALUATION

pytestmark = pytest.mark.django_db

FIELDS = {**NEW_EVALUATION, "name": "Fraction typed"}
HINT = "Enter the share as a fraction of 1, not a percentage: 0.8 for 80 %."


@pytest.mark.parametrize("typed", ["80%", "80 %", "80", "80.0", "80％"])
def test_a_percentage_is_refused_naming_the_fraction(client, members, typed):
    client.force_login(members["procurement"])
    response = client.post(reverse("evaluation-create"), {**FIELDS, "min_busbw_fraction": typed})
    assert response.status_code == 422
    assert HINT in response.text, typed
    assert "less than or equal to 1" not in response.text
    assert f'value="{typed}"' in response.text
    assert not Evaluation.objects.filter(name="Fraction typed").exists()


def test_the_fraction_hint_reads_in_chinese(client, members):
    client.force_login(members["procurement"])
    client.cookies["django_language"] = "zh-hans"
    response = client.post(reverse("evaluation-create"), {**FIELDS, "min_busbw_fraction": "75%"})
    assert "请填写 0 到 1 之间的比例，而不是百分数：75 % 填 0.75。" in response.text


@pytest.mark.parametrize(("typed", "stored"), [("0.8", "0.80"), ("1", "1.00"), ("", None)])
def test_a_fraction_is_saved(client, members, typed, stored):
    client.force_login(members["procurement"])
    response = client.post(reverse("evaluation-create"), {**FIELDS, "min_busbw_fraction": typed})
    assert response.status_code == 302
    saved = Evaluation.objects.get(name="Fraction typed").min_busbw_fraction
    assert (None if saved is None else str(saved)) == stored


@pytest.mark.parametrize("typed", ["150", "-0.5", "0.805"])
def test_other_numbers_keep_their_own_refusal(client, members, typed):
    client.force_login(members["procurement"])
    response = client.post(reverse("evaluation-create"), {**FIELDS, "min_busbw_fraction": typed})
    assert response.status_code == 422
    assert "fraction of 1" not in response.text
