"""The decision form lists qualified candidates only, and says so: a manager who sees one name
in the list learns that the others were disqualified and where the reasons are."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

# The demo's fine-tuning evaluation: four candidates, three of them disqualified.
FINE_TUNING = 2


@pytest.mark.parametrize(
    ("language", "hint"),
    [
        ("en", "3 disqualified candidates are not in the list: a disqualified candidate cannot"),
        ("zh-hans", "有 3 个已淘汰的候选方案不在列表中：已淘汰的候选方案不能被选定。"),
    ],
)
def test_the_form_says_how_many_disqualified_candidates_it_leaves_out(client, demo, language, hint):
    assert client.login(username="manager", password="decide-gpus-2026")
    url = reverse("evaluation-decision", args=[FINE_TUNING])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    options = page.split('id="id_candidate"')[1].split("</select>")[0].count("<option")
    assert options == 1  # the one qualified candidate
    assert hint in " ".join(page.split())
