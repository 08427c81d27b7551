"""Two writers on one candidate's questionnaire: an item changed since a writer loaded it is
never overwritten silently. The writer's other items are saved; that item is refused with the
newer answer reported (the service, the autosave's JSON and the page without JavaScript)."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import Answer, AnswerAttachment, ChecklistItem
from portal.services.answers import AnswerDraft, answer_version, answers_save

from .conftest import PASSWORDS
from .test_userday_questionnaire import _page_data

pytestmark = pytest.mark.django_db

CANDIDATE = 4  # demo candidate 4: items 1-9 answered, item 10 open


@pytest.fixture
def users(demo):
    return {name: get_user_model().objects.get(username=name) for name in ("procurement",)}


def _answer(number: int) -> Answer | None:
    return Answer.objects.filter(candidate_id=CANDIDATE, item__number=number).first()


def _draft(number: int, claim: str, *, base: str | None, notes: str | None = None, **extra):
    answer = _answer(number)
    item = ChecklistItem.objects.get(number=number)
    return AnswerDraft(
        item=item,
        claim=claim,
        value=None,
        notes=(answer.notes if answer else "") if notes is None else notes,
        base_version=base,
        **extra,
    )


def _candidate():
    from portal.models import Candidate

    return Candidate.objects.get(pk=CANDIDATE)


def test_the_version_follows_what_people_typed_not_the_verification(users):
    answer = _answer(1)
    before = answer_version(answer)
    answer.status = "contradicted"
    answer.verification_note = "evidence says otherwise"
    answer.save()
    assert answer_version(_answer(1)) == before
    answer.notes = "one more word"
    answer.save()
    assert answer_version(_answer(1)) != before
    assert answer_version(None) == answer_version(Answer(claim="  ", notes=""))


def test_a_save_over_a_newer_item_is_refused_for_that_item_and_the_rest_is_saved(users):
    by = users["procurement"]
    candidate = _candidate()
    loaded = {n: answer_version(_answer(n)) for n in (1, 5)}
    # The other tab saves item 1 first.
    answers_save(candidate=candidate, drafts=[_draft(1, "Theirs", base=loaded[1])], by=by)
    assert _answer(1).claim == "Theirs"

    result = answers_save(
        candidate=candidate,
        drafts=[_draft(1, "Mine", base=loaded[1]), _draft(5, "Lustre, 200 GB/s", base=loaded[5])],
        by=by,
    )
    assert _answer(1).claim == "Theirs"  # never overwritten silently
    assert _answer(5).claim == "Lustre, 200 GB/s"  # the rest is saved
    [conflict] = result.conflicts
    assert conflict.draft.claim == "Mine" and conflict.current.claim == "Theirs"
    assert conflict.version == answer_version(_answer(1))
    assert [a.item.number for a in result.changed] == [5]
    item1 = ChecklistItem.objects.get(number=1).pk
    assert item1 not in result.versions or result.versions[item1] == conflict.version

    # The writer saw both and keeps theirs: saved on the version now stored.
    result = answers_save(
        candidate=candidate, drafts=[_draft(1, "Mine", base=conflict.version)], by=by
    )
    assert result.conflicts == [] and _answer(1).claim == "Mine"


def test_an_item_left_as_loaded_keeps_the_newer_answer(users):
    by = users["procurement"]
    candidate = _candidate()
    original = _answer(3)
    loaded = answer_version(original)
    answers_save(candidate=candidate, drafts=[_draft(3, "NDR 400, 1:1", base=loaded)], by=by)
    # A stale page sends item 3 as it loaded it: not a conflict, and nothing is reverted.
    result = answers_save(
        candidate=candidate, drafts=[_draft(3, original.claim, base=loaded)], by=by
    )
    assert result.conflicts == [] and result.changed == []
    assert result.refreshed == [original.item_id]
    assert _answer(3).claim == "NDR 400, 1:1"


def test_the_same_change_from_both_sides_is_no_conflict(users):
    by = users["procurement"]
    candidate = _candidate()
    loaded = answer_version(_answer(10))
    answers_save(candidate=candidate, drafts=[_draft(10, "14", base=loaded)], by=by)
    result = answers_save(candidate=candidate, drafts=[_draft(10, "14", base=loaded)], by=by)
    assert result.conflicts == [] and _answer(10).claim == "14"


def test_a_conflict_keeps_no_attachment_of_that_save(users, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    by = users["procurement"]
    candidate = _candidate()
    loaded = {n: answer_version(_answer(n)) for n in (1, 7)}
    answers_save(candidate=candidate, drafts=[_draft(1, "Theirs", base=loaded[1])], by=by)
    pdf = SimpleUploadedFile("sla.pdf", b"%PDF-1.7 SLA")
    result = answers_save(
        candidate=candidate,
        drafts=[
            _draft(1, "Mine", base=loaded[1]),
            _draft(7, "99.9 %", base=loaded[7], attachment=pdf),
        ],
        by=by,
    )
    assert len(result.conflicts) == 1
    assert _answer(7).claim == "99.9 %"
    # Sent again with the resolved save: kept once, not twice.
    assert not AnswerAttachment.objects.exists() and not list(tmp_path.rglob("*.pdf"))


# The page: two tabs of the same questionnaire.


@pytest.fixture
def tab(client, demo):
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    return client


def _url():
    return reverse("candidate-questionnaire", args=[1, CANDIDATE])


def test_the_page_carries_each_items_version(tab):
    data = _page_data(tab, CANDIDATE)
    for number in range(1, 11):
        assert data[f"item-{number}-version"] == answer_version(_answer(number))


def test_the_autosave_of_a_stale_tab_reports_the_conflict_with_both_sides(tab):
    first = _page_data(tab, CANDIDATE)
    second = dict(first)
    first.update({"item-1-claim": "Theirs", "autosave": "1"})
    assert tab.post(_url(), first, HTTP_ACCEPT="application/json").status_code == 200

    second.update({"item-1-claim": "Mine", "item-6-claim": "MLPS 3", "autosave": "1"})
    response = tab.post(_url(), second, HTTP_ACCEPT="application/json")
    assert response.status_code == 409
    body = response.json()
    assert body["saved"] is False
    conflict = body["conflicts"]["item-1"]
    assert conflict["claim"] == "Theirs"
    assert conflict["inputs"]["item-1-claim"] == "Theirs"
    assert conflict["version"] == answer_version(_answer(1))
    # Named as every page names a person (audit 29): full name with the username.
    assert "Pat Procurement (procurement) changed this item" in conflict["message"]
    assert "item-1" not in body["versions"]
    assert body["versions"]["item-6"] == answer_version(_answer(6))
    assert _answer(1).claim == "Theirs" and _answer(6).claim == "MLPS 3"


def test_a_stale_tab_that_did_not_touch_an_item_is_told_the_newer_inputs(tab):
    first = _page_data(tab, CANDIDATE)
    second = dict(first)
    first.update({"item-3-claim": "NDR 400, 1:1", "autosave": "1"})
    assert tab.post(_url(), first, HTTP_ACCEPT="application/json").status_code == 200
    second.update({"item-6-claim": "MLPS 3", "autosave": "1"})
    body = tab.post(_url(), second, HTTP_ACCEPT="application/json").json()
    assert body["saved"] is True and body["conflicts"] == {}
    assert body["refreshed"]["item-3"]["item-3-claim"] == "NDR 400, 1:1"
    assert body["versions"]["item-3"] == answer_version(_answer(3))
    assert _answer(3).claim == "NDR 400, 1:1"


def test_without_javascript_the_page_shows_both_and_saving_again_is_a_choice(tab):
    first = _page_data(tab, CANDIDATE)
    second = dict(first)
    first["item-1-claim"] = "Theirs"
    assert tab.post(_url(), first).status_code == 302
    second["item-1-claim"] = "Mine"
    response = tab.post(_url(), second)
    assert response.status_code == 409
    html = response.content.decode()
    assert "Someone changed this item" in html and "Theirs" in html
    assert re.search(r">\s*Mine</textarea>", html)
    assert _answer(1).claim == "Theirs"
    # The form now carries the stored version: saving again replaces theirs, knowingly.
    version = re.search(r'name="item-1-version" value="([^"]+)"', html).group(1)
    assert version == answer_version(_answer(1))
    assert tab.post(_url(), {**second, "item-1-version": version}).status_code == 302
    assert _answer(1).claim == "Mine"
