"""The questionnaire is one form that never loses input: legacy free text in typed items is
shown and kept, a note alone keeps the claim, all ten items and their attachments are saved
together (or none of them), and the autosave stores drafts without files."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import Answer, AnswerAttachment

pytestmark = pytest.mark.django_db

# Demo candidate 1 answered all ten items in free text (before items 2, 8, 9, 10 were typed).
CANDIDATE = 1


def _url(candidate=CANDIDATE, number=None):
    if number is None:
        return reverse("candidate-questionnaire", args=[1, candidate])
    return reverse("answer-update", args=[1, candidate, number])


def _answers(candidate=CANDIDATE) -> dict[int, tuple]:
    return {
        a.item.number: (a.claim, a.value, a.notes, a.status)
        for a in Answer.objects.filter(candidate_id=candidate).select_related("item")
    }


def _page_data(client, candidate=CANDIDATE) -> dict[str, str]:
    """What the browser would submit untouched: every input's value as the page shows it."""
    html = client.get(_url(candidate)).content.decode()
    data = {}
    for tag in re.findall(r"<(?:input|textarea|select)[^>]*name=\"item-[^>]*>", html):
        name = re.search(r'name="([^"]+)"', tag).group(1)
        if 'type="file"' in tag:
            continue
        if tag.startswith("<textarea"):
            body = html.split(tag, 1)[1].split("</textarea>", 1)[0]
            data[name] = _unescape(body.lstrip("\n"))
        elif tag.startswith("<select"):
            body = html.split(tag, 1)[1].split("</select>", 1)[0]
            chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
            data[name] = _unescape(chosen.group(1)) if chosen else ""
        else:
            value = re.search(r'value="([^"]*)"', tag)
            data[name] = _unescape(value.group(1)) if value else ""
    return data


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


def test_legacy_free_text_in_typed_items_is_shown_not_blanked(as_role):
    html = as_role("procurement").get(_url()).content.decode()
    stored = _answers()
    # Item 2 is now a choice, item 9 a number: their stored free text is still in the inputs.
    select = html.split('name="item-2-claim"', 1)[1].split("</select>", 1)[0]
    assert re.search(r'<option value="NVSwitch full mesh[^"]*" selected', select)
    assert "As stored: NVSwitch full mesh" in select
    number = re.search(r'<input[^>]*name="item-9-claim"[^>]*>', html).group(0)
    assert f'value="{stored[9][0]}"' in number.replace("&#x27;", "'")
    assert "kept as it is until you replace it" in html
    # Choice codes appear as labels, never as raw codes.
    assert "Full mesh (all-to-all, NVSwitch)" in select
    assert ">full_mesh<" not in select


def test_saving_the_page_untouched_changes_nothing(as_role):
    client = as_role("procurement")
    before = _answers()
    history = sum(a.history.count() for a in Answer.objects.filter(candidate_id=CANDIDATE))
    response = client.post(_url(), _page_data(client))
    assert response.status_code == 302
    assert _answers() == before
    after = sum(a.history.count() for a in Answer.objects.filter(candidate_id=CANDIDATE))
    assert after == history


def test_a_note_alone_keeps_a_legacy_claim_in_the_whole_form(as_role):
    client = as_role("procurement")
    before = _answers()
    data = _page_data(client)
    data["item-2-notes"] = "Checked against the topology diagram."
    response = client.post(_url(), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["saved"] is True and body["answered"] == 10 and body["total"] == 10
    claim, value, notes, status = _answers()[2]
    assert (claim, value, status) == (before[2][0], None, before[2][3])
    assert notes == "Checked against the topology diagram."


def test_a_note_alone_keeps_the_claim_on_the_single_item_endpoint(as_role):
    client = as_role("procurement")
    before = _answers()
    response = client.post(_url(number=9), {"item-9-notes": "Excluding storage."})
    assert response.status_code == 200
    claim, value, notes, status = _answers()[9]
    assert (claim, value, status) == (*before[9][:2], before[9][3])
    assert notes == "Excluding storage."


def test_a_legacy_claim_can_be_replaced_by_a_typed_value(as_role):
    client = as_role("procurement")
    data = _page_data(client)
    data["item-2-claim"] = "full_mesh"
    data["item-9-claim"] = "890000"
    assert client.post(_url(), data).status_code == 302
    answers = _answers()
    assert answers[2][:2] == ("full_mesh", "full_mesh")
    assert answers[9][:2] == ("890000", "890000")
    # The page now shows the typed values, with the choice's label.
    html = client.get(_url()).content.decode()
    assert re.search(r'<option value="full_mesh" selected>Full mesh', html)
    assert re.search(r'<input type="text" name="item-9-claim" value="890000', html)


def test_all_ten_items_and_an_attachment_are_saved_together(as_role, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    client = as_role("procurement")
    candidate = 4  # demo candidate 4 has item 10 unanswered
    data = _page_data(client, candidate)
    data.update(
        {
            "item-1-claim": "MIG 3g.40gb slices",
            "item-2-claim": "none",
            "item-7-notes": "SLA attached.",
            "item-8-claim": "none",
            "item-9-claim": "150000",
            "item-10-claim": "14",
            "item-7-attachment": SimpleUploadedFile("sla.pdf", b"%PDF-1.7 SLA"),
        }
    )
    response = client.post(_url(candidate), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    assert response.json()["answered"] == 10
    answers = _answers(candidate)
    assert answers[1][0] == "MIG 3g.40gb slices"
    assert answers[2][1] == "none" and answers[8][1] == "none"
    assert answers[9][1] == "150000" and answers[10][1] == "14"
    assert answers[7][2] == "SLA attached."
    attachment = AnswerAttachment.objects.get(answer__candidate_id=candidate)
    assert attachment.answer.item.number == 7 and attachment.original_name == "sla.pdf"
    page = client.get(_url(candidate)).content.decode()
    assert "sla.pdf" in page and "10/10 answered" in page and "All answers saved." in page


def test_one_bad_item_saves_nothing_and_says_where(as_role, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    client = as_role("procurement")
    before = _answers()
    data = _page_data(client)
    data.update(
        {
            "item-1-claim": "Changed",
            "item-9-claim": "-5",
            "item-7-attachment": SimpleUploadedFile("sla.pdf", b"%PDF-1.7 SLA"),
        }
    )
    response = client.post(_url(), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    body = response.json()
    assert body["saved"] is False
    assert list(body["errors"]) == ["item-9-claim"]
    assert "greater than or equal to 0" in body["errors"]["item-9-claim"][0]
    assert _answers() == before
    assert not AnswerAttachment.objects.exists()
    # Without JavaScript the page comes back with every typed value and the message in place.
    response = client.post(_url(), {**data, "item-7-attachment": ""})
    assert response.status_code == 422
    html = response.content.decode()
    assert "Nothing was saved" in html and 'class="field-error"' in html
    assert re.search(r">\s*Changed</textarea>", html)


def test_a_refused_attachment_saves_nothing(as_role, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    client = as_role("procurement")
    before = _answers()
    data = _page_data(client)
    data["item-1-claim"] = "Changed"
    data["item-6-attachment"] = SimpleUploadedFile("empty.pdf", b"")
    response = client.post(_url(), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 422
    assert _answers() == before
    assert not AnswerAttachment.objects.exists()
    assert not list(tmp_path.rglob("*.pdf"))


def test_the_autosave_stores_drafts_and_reports_progress(as_role):
    client = as_role("procurement")
    candidate = 4
    data = _page_data(client, candidate)
    data["item-10-claim"] = "7"
    data["autosave"] = "1"
    response = client.post(_url(candidate), data, HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    body = response.json()
    assert (body["saved"], body["answered"], body["total"], body["errors"]) == (True, 10, 10, {})
    assert _answers(candidate)[10][:2] == ("7", "7")
    answer = Answer.objects.get(candidate_id=candidate, item__number=10)
    assert answer.history.latest().history_user.username == "procurement"
    # An autosave is not announced as "All answers saved" on the next page.
    assert "All answers saved." not in client.get(_url(candidate)).content.decode()


@pytest.mark.parametrize("role", ["manager", "viewer", "engineer"])
def test_read_only_roles_cannot_save_and_see_no_form(as_role, role):
    client = as_role(role)
    before = _answers()
    response = client.post(_url(), {"item-1-claim": "x"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 403
    assert _answers() == before
    html = client.get(_url()).content.decode()
    assert 'id="questionnaire"' not in html and "Save all" not in html


def test_the_js_catalogue_is_served(client):
    response = client.get(reverse("javascript-catalog"))
    assert response.status_code == 200
    assert b"gettext" in response.content


def test_the_page_loads_the_catalogue_before_its_script(as_role):
    html = as_role("procurement").get(_url()).content.decode()
    assert html.index("jsi18n/") < html.index("questionnaire.js")


def _claim_label(html: str, number: int) -> str:
    label = re.search(rf'<label for="id_item-{number}-claim">([^<]*)</label>', html)
    return _unescape(label.group(1)) if label else ""


@pytest.mark.parametrize(
    ("language", "days", "monthly"),
    [("en", "Claim (days)", "Claim (CNY/month)"), ("zh-hans", "声明（天）", "声明（CNY/月）")],
)
def test_number_items_name_their_unit(as_role, language, days, monthly):
    """Item 10's number is days and item 9's the offering's currency a month, as the portal's
    other number inputs name their unit; the other items keep the plain label."""
    client = as_role("procurement")
    # Candidate 9 (evaluation 2) has neither answered: the plain number inputs.
    url = reverse("candidate-questionnaire", args=[2, 9])
    html = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert _claim_label(html, 10) == days
    assert _claim_label(html, 9) == monthly
    assert _claim_label(html, 1) == ("Claim" if language == "en" else "声明")
    for number in (9, 10):
        assert re.search(rf'<input type="text" name="item-{number}-claim"', html), number
    # Shown to a reader too, beside the value.
    viewer = as_role("viewer")
    html = viewer.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert _claim_label(html, 10) == days


def test_the_guidance_of_number_items_matches_what_the_number_holds(as_role):
    url = reverse("candidate-questionnaire", args=[2, 9])
    html = _unescape(as_role("procurement").get(url).content.decode())
    guidance = {
        number: re.search(rf'id="id_item-{number}-claim_helptext">([^<]*)<', html).group(1)
        for number in (9, 10)
    }
    assert guidance[10].startswith("Days of free POC access. In the notes: whether benchmark")
    assert "in the offering's currency" in guidance[9]
    assert "In the notes: the billing terms" in guidance[9]


def test_the_monthly_cost_is_in_the_currency_of_the_offering(client, members, evaluation, vendor):
    from django.core.management import call_command

    from portal.models import Candidate
    from portal.services.catalogue import offering_save

    from .conftest import small_offering

    call_command("loaddata", "checklist", verbosity=0)
    offering = small_offering(vendor, "USD offer")
    offering.currency = "USD"
    offering_save(offering=offering, by=members["procurement"])
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=1)
    client.force_login(members["procurement"])
    url = reverse("candidate-questionnaire", args=[evaluation.pk, candidate.pk])
    html = client.get(url).content.decode()
    assert _claim_label(html, 9) == "Claim (USD/month)"
    # The single-item save answers with the same label.
    saved = client.post(
        reverse("answer-update", args=[evaluation.pk, candidate.pk, 9]),
        {"item-9-claim": "410000", "item-9-notes": "Spot capacity preempted under 5 %."},
        HTTP_HX_REQUEST="true",
    )
    assert saved.status_code == 200
    assert _claim_label(saved.content.decode(), 9) == "Claim (USD/month)"
    assert Answer.objects.get(candidate=candidate, item__number=9).value == "410000"


def test_a_loaded_checklist_gets_the_new_guidance_unless_it_was_edited(db):
    """Migration 0033 on a database whose checklist was loaded before: the old guidance of
    items 9 and 10 becomes the fixture's new one; a text edited since is left alone."""
    import importlib

    from django.apps import apps
    from django.core.management import call_command

    from portal.models import ChecklistItem

    migration = importlib.import_module("portal.migrations.0033_checklist_claim_units_guidance")
    call_command("loaddata", "checklist", verbosity=0)
    new = {i.key: (i.help_en, i.help_zh) for i in ChecklistItem.objects.all()}
    for key, (old, _new) in migration.GUIDANCE.items():
        ChecklistItem.objects.filter(key=key).update(help_en=old[0], help_zh=old[1])
    ChecklistItem.objects.filter(key="poc_window").update(help_zh="我们自己的说明")

    migration.forwards(apps, None)

    stored = {i.key: (i.help_en, i.help_zh) for i in ChecklistItem.objects.all()}
    assert stored["monthly_cost"] == new["monthly_cost"]
    assert stored["poc_window"] == (new["poc_window"][0], "我们自己的说明")
    migration.backwards(apps, None)
    assert (
        ChecklistItem.objects.get(key="monthly_cost").help_en
        == (migration.GUIDANCE["monthly_cost"][0][0])
    )


@pytest.mark.parametrize("typed", ["1,5", "1e309", "about 5k"])
def test_a_number_the_field_cannot_read_is_shown_back_and_nothing_is_overwritten(as_role, typed):
    """Number inputs are text boxes (inputmode decimal): a browser's number box submitted
    nothing for text it could not read, so "Save all" overwrote a stored 890000 with an empty
    claim and no message (found by a trust review in Chromium). Now the server sees what was
    typed, refuses the save with a message by the field, and the page shows the text back."""
    client = as_role("procurement")
    data = _page_data(client)
    data["item-9-claim"] = "890000"
    assert client.post(_url(), data).status_code == 302
    before = _answers()
    data = _page_data(client)
    assert 'inputmode="decimal"' in client.get(_url()).content.decode()
    data["item-9-claim"] = typed
    response = client.post(_url(), data)
    assert response.status_code == 422
    html = response.content.decode()
    assert re.search(rf'name="item-9-claim" value="{re.escape(typed)}"', html)
    assert 'class="field-error"' in html or "errorlist" in html
    if typed == "1e309":
        assert "This number is too large" in html  # not "no more than 14 digits"
    assert _answers() == before
