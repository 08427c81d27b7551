"""One mistyped figure no longer holds back the drafts of the other items: the autosave saved
the whole questionnaire or nothing, so a claim typed as "7,500 per month" in item 9 kept every
other item typed that hour out of the portal (in this browser's local copy only, unseen by
colleagues and lost with the browser). The autosave now saves the items that pass and names the
others; "Save all" stays all or nothing."""

import pytest
from django.urls import reverse

from portal.models import Answer

from .test_userday_questionnaire import _page_data

pytestmark = pytest.mark.django_db

URL = reverse("candidate-questionnaire", args=[1, 4])


def _claim(number: int) -> str:
    answer = Answer.objects.filter(candidate_id=4, item__number=number).first()
    return answer.claim if answer else ""


def test_the_autosave_keeps_the_items_that_pass_and_names_the_others(as_role):
    client = as_role("procurement")
    data = _page_data(client, 4)
    before_9 = _claim(9)
    data.update(
        {
            "item-3-claim": "IB NDR 400, 8 rails, 1:1",
            "item-9-claim": "7,500 per GPU-month",
            "item-10-claim": "14",
            "autosave": "1",
        }
    )
    response = client.post(URL, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    body = response.json()
    assert body["partial"] is True and body["saved"] is False
    assert list(body["errors"]) == ["item-9-claim"]
    assert (_claim(3), _claim(10), _claim(9)) == ("IB NDR 400, 8 rails, 1:1", "14", before_9)
    # The saved items' versions, for the page's next save; none for the refused one.
    assert {"item-3", "item-10"} <= set(body["versions"]) and "item-9" not in body["versions"]

    # The next autosave with the page's new versions: the saved items are no conflict.
    data.update({f"{prefix}-version": v for prefix, v in body["versions"].items()})
    data["item-9-claim"] = "7500"
    response = client.post(URL, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 200, response.json()
    assert response.json()["conflicts"] == {}
    assert (_claim(3), _claim(9), _claim(10)) == ("IB NDR 400, 8 rails, 1:1", "7500", "14")


def test_save_all_stays_all_or_nothing(as_role):
    client = as_role("procurement")
    data = _page_data(client, 4)
    before = list(Answer.objects.filter(candidate_id=4).values())
    data.update({"item-3-claim": "IB NDR 400", "item-9-claim": "7,500 per GPU-month"})
    response = client.post(URL, data)
    assert response.status_code == 422
    assert list(Answer.objects.filter(candidate_id=4).values()) == before


def test_an_autosave_refused_in_every_item_saves_nothing(as_role):
    client = as_role("procurement")
    data = _page_data(client, 4)
    before = list(Answer.objects.filter(candidate_id=4).values())
    data.update({"item-9-claim": "seven", "item-10-claim": "fourteen", "autosave": "1"})
    response = client.post(URL, data, HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    # Items 1-8 pass their checks unchanged, so they are "saved" as they were: nothing moves.
    assert list(Answer.objects.filter(candidate_id=4).values()) == before
    assert set(response.json()["errors"]) == {"item-9-claim", "item-10-claim"}
