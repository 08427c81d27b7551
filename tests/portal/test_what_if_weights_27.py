"""What-if weights from the address never fail a page: values the weights page would refuse
(NaN, infinities, 1e400, 5,000 digits, negatives, words, two values at 1e308) leave the saved
weights on the dashboard and its results fragment, with a notice naming what was ignored and
why; values the weights page accepts keep working. Nothing is ever saved."""

import pytest
from django.urls import reverse

from portal.models import Evaluation

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
IGNORED = "The what-if weights in the address were ignored"
IGNORED_ZH = "地址中的假设权重已被忽略"
TYPED_NOTICE = "What-if weights from the address bar"

HOSTILE = [
    {"w_stability": "NaN"},
    {"w_stability": "nan"},
    {"w_stability": "inf"},
    {"w_stability": "-Infinity"},
    {"w_stability": "1e400"},
    {"w_stability": "9" * 5000},
    {"w_stability": "1e308", "w_network": "1e308"},
    {"w_stability": "-5", "w_cost": "50"},
    {"w_stability": "abc", "w_cost": "50"},
    {"w_stability": "100.0001"},
    {"w_cost": "0", "w_stability": "0"},
]


@pytest.fixture
def manager(client, demo):
    assert client.login(username="manager", password="decide-gpus-2026")
    return client


def _weights_row(html: str) -> list[str]:
    """The ranking header's weight under each dimension, as shown."""
    head = html.split('<table class="data ranking">', 1)[1].split("</thead>", 1)[0]
    return [cell.split("</small>", 1)[0] for cell in head.split("<small>")[1:]]


def _stored_weights() -> tuple:
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    return tuple(evaluation.weights.items())


@pytest.mark.parametrize(
    "query", HOSTILE, ids=lambda q: ",".join(f"{k}={v[:12]}" for k, v in q.items())
)
@pytest.mark.parametrize("name", ["evaluation-detail", "evaluation-results"])
def test_weights_the_weights_page_would_refuse_are_ignored_with_a_notice(manager, name, query):
    url = reverse(name, args=[DEMO_EVALUATION])
    before = _stored_weights()
    saved = manager.get(url).content.decode()
    response = manager.get(url, query)
    assert response.status_code == 200, response.content[:300]
    html = response.content.decode()
    assert IGNORED in html
    assert TYPED_NOTICE not in html
    # The saved weights are those shown.
    assert _weights_row(html) == _weights_row(saved)
    assert _stored_weights() == before


def test_the_notice_names_the_dimension_and_the_reason(manager):
    url = reverse("evaluation-results", args=[DEMO_EVALUATION])
    html = manager.get(url, {"w_stability": "1e400", "w_network": "abc"}).content.decode()
    assert "Stability" in html and "less than or equal to 100" in html
    assert "Network" in html and "Enter a number." in html
    zeros = manager.get(url, {"w_cost": "0"}).content.decode()
    assert "At least one weight must be positive" in zeros


def test_the_notice_is_translated(manager):
    manager.cookies.load({"django_language": "zh-hans"})
    url = reverse("evaluation-detail", args=[DEMO_EVALUATION])
    html = manager.get(url, {"w_stability": "NaN"}, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert IGNORED_ZH in html
    assert IGNORED not in html


def test_valid_what_if_weights_still_rank_without_a_notice(manager):
    url = reverse("evaluation-results", args=[DEMO_EVALUATION])
    before = _stored_weights()
    query = {"w_cost": "90", "w_stability": "2", "w_network": "2", "w_storage": "2"}
    query |= {"w_security": "2", "w_support": "2"}
    html = manager.get(url, query).content.decode()
    assert IGNORED not in html
    assert "<small>90 %</small>" in html
    # A blank value counts as 0, as before; the sliders' other fields are not weights.
    blank = manager.get(
        url, {"w_cost": "100", "w_stability": "", "csrfmiddlewaretoken": "x", "scale": "on"}
    ).content.decode()
    assert IGNORED not in blank
    assert "<small>100 %</small>" in blank
    detail = manager.get(reverse("evaluation-detail", args=[DEMO_EVALUATION]), query)
    assert TYPED_NOTICE in detail.content.decode()
    assert _stored_weights() == before


def test_no_weights_in_the_address_means_no_notice(manager):
    html = manager.get(reverse("evaluation-detail", args=[DEMO_EVALUATION])).content.decode()
    assert IGNORED not in html and TYPED_NOTICE not in html
