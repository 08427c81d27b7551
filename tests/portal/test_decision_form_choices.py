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


@pytest.mark.parametrize(
    ("language", "notice"),
    [
        ("en", "No evidence has verified any claim of these candidates yet"),
        ("zh-hans", "以下候选方案尚无任何声明得到证据验证"),
    ],
)
def test_the_form_names_choices_whose_claims_no_evidence_verified(client, demo, language, notice):
    # The fine-tuning evaluation's one qualified candidate has answers but no evidence.
    assert client.login(username="manager", password="decide-gpus-2026")
    url = reverse("evaluation-decision", args=[FINE_TUNING])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    box = page.split('class="notice unverified-choices"')[1].split("</div>")[0]
    assert notice in box
    assert "<li>Hanhai Compute (瀚海算力) · HGX H100 bare metal, NDR fat-tree</li>" in box


def test_a_choice_with_verified_claims_is_not_named(client, demo):
    # The pre-training evaluation's leader has claims the evidence verified.
    assert client.login(username="manager", password="decide-gpus-2026")
    page = client.get(reverse("evaluation-decision", args=[1])).content.decode()
    assert "unverified-choices" not in page
