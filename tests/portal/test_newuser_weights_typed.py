"""A refused save of the weights gives back exactly what was typed (the boxes came back rounded
to one decimal when only the sum was refused: "30.125" as "30.1"), and the page's sum is the sum
of the weights the field reads: none when one is refused (Decimal alone summed full-width digits
as a number)."""

import html
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

DIMENSIONS = ("stability", "network", "storage", "security", "cost", "support")


@pytest.fixture
def procurement(client, members):
    client.force_login(members["procurement"])
    return client


def _box(page: str, dimension: str) -> str:
    box = re.search(rf'<input type="text"[^>]*name="w_{dimension}"[^>]*>', page)
    assert box, dimension
    return box.group(0)


def _sum(page: str) -> str:
    match = re.search(r'id="weights-sum-value">([^<]*)<', page)
    assert match
    return match.group(1)


def test_weights_refused_for_their_sum_come_back_as_typed(procurement, evaluation):
    typed = dict(zip(DIMENSIONS, ["30.125", "30", "20", "10", "20", "10.250"], strict=True))
    url = reverse("evaluation-weights", args=[evaluation.pk])
    response = procurement.post(url, {**{f"w_{d}": v for d, v in typed.items()}, "direct": "1"})
    assert response.status_code == 422
    page = response.content.decode()
    assert "add up to 120.375 %" in html.unescape(page)
    for dimension, value in typed.items():
        assert f'value="{value}"' in _box(page, dimension)
    assert _sum(page) == "120.4"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("３０", "Type the number with half-width digits 0-9, for example 30."),
        ("30，5", "Type the number with half-width digits 0-9, for example 30.5."),
        ("30,5", "Use a point as the decimal separator, for example 30.5."),
        ("1_0", "Enter a number."),
    ],
)
def test_a_weight_the_field_refuses_leaves_no_sum_and_says_what_to_type(
    procurement, evaluation, typed, said
):
    weights = {f"w_{d}": "14" for d in DIMENSIONS}
    url = reverse("evaluation-weights", args=[evaluation.pk])
    response = procurement.post(url, {**weights, "w_stability": typed, "direct": "1"})
    assert response.status_code == 422
    page = response.content.decode()
    assert said in html.unescape(page)
    assert f'value="{typed}"' in _box(page, "stability")
    assert _sum(page) == "—"
