"""The questionnaire's progress counts what procurement has still to do: an item the evidence
or a document review contradicted is not done (counted apart, to take up with the vendor), an
item without a claim is not answered whatever verdict its row carries, and changing a
review-contradicted answer puts it back among the answered."""

import pytest
from django.contrib.auth import get_user_model

from portal.models import Answer, VerificationStatus
from portal.services.reviews import answer_review

from .test_userday_questionnaire import _page_data, _url

pytestmark = pytest.mark.django_db

# Demo candidate 5 (A800 passthrough): the evidence contradicts item 1 (GPU match); all ten
# items hold a claim.
REFUTED = 5


def _progress(html: str) -> str:
    return html.split('id="progress"', 1)[1].split(">", 1)[1].split("</p>", 1)[0]


def _autosave(client, candidate, **changes):
    data = _page_data(client, candidate)
    data.update(changes)
    data["autosave"] = "1"
    response = client.post(_url(candidate), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_contradicted_claim_is_not_counted_as_answered(as_role):
    answer = Answer.objects.get(candidate_id=REFUTED, item__number=1)
    assert answer.claim and answer.status == VerificationStatus.CONTRADICTED
    page = as_role("procurement").get(_url(REFUTED)).content.decode()
    assert _progress(page) == (
        '9/10 answered · <span class="progress-contradicted">1 contradicted by the evidence '
        "or a review: take it up with the vendor</span>"
    )
    assert 'id="entry-1" data-item="1" data-status="contradicted"' in page


def test_the_autosave_reports_contradicted_items_and_each_status(as_role):
    body = _autosave(
        as_role("procurement"), REFUTED, **{"item-3-notes": "Asked for the switch map."}
    )
    assert (body["answered"], body["contradicted"], body["total"]) == (9, 1, 10)
    assert body["statuses"]["item-1"] == {"status": "contradicted", "label": "Contradicted"}
    assert body["statuses"]["item-3"]["status"] == VerificationStatus.CLAIMED


def test_a_note_without_a_claim_is_not_an_answer_whatever_the_evidence_says(as_role):
    # Demo candidate 1: the evidence verifies the offering's GPU (item 1). The verdict stays
    # when the questionnaire's claim is emptied, but the item is no longer answered.
    client = as_role("procurement")
    body = _autosave(client, 1, **{"item-1-claim": "", "item-1-notes": "Waiting for the quote."})
    answer = Answer.objects.get(candidate_id=1, item__number=1)
    assert answer.claim == "" and answer.status == VerificationStatus.VERIFIED
    assert (body["answered"], body["contradicted"]) == (9, 0)
    assert _progress(client.get(_url(1)).content.decode()) == "9/10 answered"


def test_changing_a_review_contradicted_answer_makes_it_answered_again(as_role):
    client = as_role("procurement")
    answer = Answer.objects.get(candidate_id=4, item__number=7)  # demo: 9 of 10 answered
    engineer = get_user_model().objects.get(username="engineer")
    answer_review(answer=answer, verdict="contradicted", note="No penalty clause.", by=engineer)
    page = client.get(_url(4)).content.decode()
    assert _progress(page).startswith("8/10 answered · ")
    assert "1 contradicted" in _progress(page)

    body = _autosave(client, 4, **{"item-7-claim": "99.9 %, 10 % credit per hour down"})
    assert body["statuses"]["item-7"] == {"status": "claimed", "label": "Claimed"}
    assert (body["answered"], body["contradicted"]) == (9, 0)


def test_the_single_item_save_shows_the_same_count(as_role):
    client = as_role("procurement")
    response = client.post(_url(REFUTED, 3), {"item-3-notes": "Asked again."})
    assert response.status_code == 200
    html = response.content.decode()
    assert "9/10 answered · " in html and "1 contradicted" in html


def test_the_count_is_in_chinese_with_a_full_width_colon(as_role):
    client = as_role("procurement")
    page = client.get(_url(REFUTED), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "已回答 9/10" in _progress(page)
    assert "：" in _progress(page).split("progress-contradicted", 1)[1]
