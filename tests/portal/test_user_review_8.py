"""A manager's decision as an auditor reads it, and nothing typed lost on the way (user review
8): a second press of "Record the decision" or "Reopen" (or another manager's stale page) gets
the refusal with the text it carried; the report and the workbook of a later round name the
decision set aside, who reopened it and why; a form posted after the session expired gives
back what it sent instead of dropping it on the way to the login page."""

import html
import io
import re
from importlib import import_module

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from portal import selectors
from portal.models import DecisionRecord, Evaluation

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
DECIDED = "This evaluation is decided; it can no longer be changed."
RATIONALE = "Second manager's rationale, typed at length: " + "fabric verified on two nodes; " * 20
REASON = "Second press of Reopen, with its own reason: " + "the vendor revised the quote; " * 10


def _manager() -> Client:
    client = Client()
    assert client.login(username="manager", password=PASSWORDS["manager"])
    return client


def _leader() -> int:
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    return ranking.qualified[0].candidate_id


def _decide(client: Client, rationale: str):
    url = reverse("evaluation-decision", args=[DEMO_EVALUATION])
    return client.post(url, {"candidate": str(_leader()), "rationale": rationale})


def _text(response) -> str:
    return html.unescape(response.content.decode())


def _readonly_texts(response) -> list[str]:
    return [
        html.unescape(body).strip()
        for body in re.findall(
            r"<textarea[^>]*readonly[^>]*>(.*?)</textarea>", response.content.decode(), re.S
        )
    ]


def test_a_decision_posted_from_a_stale_page_says_decided_and_gives_back_the_rationale(demo):
    first, second = _manager(), _manager()
    second_page = second.get(reverse("evaluation-decision", args=[DEMO_EVALUATION]))
    assert 'name="rationale"' in second_page.content.decode()
    assert _decide(first, "First manager: the leader on every measured figure.").status_code == 302

    response = _decide(second, RATIONALE)

    assert response.status_code == 409
    text = _text(response)
    assert DECIDED in text
    assert RATIONALE.strip() in _readonly_texts(response)
    # Nothing of the second post was recorded: one decision, the first one.
    records = DecisionRecord.objects.filter(evaluation_id=DEMO_EVALUATION)
    assert [r.rationale for r in records] == ["First manager: the leader on every measured figure."]


def test_a_second_reopen_says_why_it_was_refused_and_gives_back_the_reason(demo):
    client = _manager()
    assert _decide(client, "Round 1.").status_code == 302
    url = reverse("evaluation-decision", args=[DEMO_EVALUATION])
    assert client.post(url, {"reopen": "1", "reason": "First reopening."}).status_code == 302

    response = client.post(url, {"reopen": "1", "reason": REASON})

    assert response.status_code == 409
    assert "Only a decided evaluation can be reopened." in _text(response)
    assert REASON.strip() in _readonly_texts(response)
    assert Evaluation.objects.get(pk=DEMO_EVALUATION).reopenings.count() == 1


def _two_rounds() -> Client:
    client = _manager()
    url = reverse("evaluation-decision", args=[DEMO_EVALUATION])
    assert _decide(client, "Round one: the leader.").status_code == 302
    reason = "The vendor's list prices changed; decide again."
    assert client.post(url, {"reopen": "1", "reason": reason}).status_code == 302
    assert _decide(client, "Round two: the leader again, at the new price.").status_code == 302
    return client


def test_the_report_of_a_later_round_names_the_decision_set_aside_and_why(demo):
    client = _two_rounds()
    for language in ("en", "zh-hans"):
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        text = _text(client.get(reverse("evaluation-report", args=[DEMO_EVALUATION])))
        assert "Round two: the leader again, at the new price." in text
        assert "Round one: the leader." in text, language
        assert "The vendor's list prices changed; decide again." in text, language
    assert "Reopened by" not in text  # the Chinese report words it in Chinese


def test_the_workbook_lists_every_round_with_its_reopening(demo):
    import openpyxl

    client = _two_rounds()
    headers = {
        "en": ("Reopened by", "Reopened at (UTC)", "Reason for reopening"),
        "zh-hans": ("重新开放人", "重新开放时间（UTC）", "重新开放原因"),
    }
    for language, reopening_header in headers.items():
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        response = client.get(reverse("evaluation-export", args=[DEMO_EVALUATION, "xlsx"]))
        workbook = openpyxl.load_workbook(io.BytesIO(response.content))
        sheet = workbook.worksheets[-1]
        rows = list(sheet.iter_rows(values_only=True))
        header, first, second = rows[0], rows[1], rows[2]
        assert len(rows) == 3
        assert header[5:] == reopening_header
        assert (first[0], first[4]) == (1, "Round one: the leader.")
        assert first[7] == "The vendor's list prices changed; decide again."
        assert first[6] is not None and first[5]
        assert (second[0], second[4]) == (2, "Round two: the leader again, at the new price.")
        assert second[5:] == (None, None, None)


def test_a_form_posted_after_the_session_expired_gives_back_what_it_sent(demo):
    client = Client()
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    before = Evaluation.objects.get(pk=DEMO_EVALUATION).description
    store = import_module(settings.SESSION_ENGINE).SessionStore
    store(client.cookies[settings.SESSION_COOKIE_NAME].value).delete()  # the session expired
    typed = "A description typed over an hour: " + "the budget covers two POC rounds; " * 15

    response = client.post(
        reverse("evaluation-edit", args=[DEMO_EVALUATION]),
        {"name": "Renamed", "description": typed},
    )

    assert response.status_code == 401
    text = _text(response)
    assert "Your session ended" in text and "Sign in again" in text
    assert typed.strip() in _readonly_texts(response)
    assert Evaluation.objects.get(pk=DEMO_EVALUATION).description == before
    # A page's own fetch still gets its JSON 401, and a GET still goes to the login page.
    fetched = client.post(
        reverse("evaluation-edit", args=[DEMO_EVALUATION]),
        {"description": typed},
        HTTP_ACCEPT="application/json",
    )
    assert fetched.status_code == 401 and fetched.json()["code"] == "session_ended"
    assert client.get(reverse("evaluation-edit", args=[DEMO_EVALUATION])).status_code == 302


def test_the_history_names_a_reopened_decision_as_it_was_recorded(demo):
    from django.contrib.auth import get_user_model

    from portal.audit import evaluation_history
    from portal.services.catalogue import vendor_save

    client = _manager()
    assert _decide(client, "Round 1.").status_code == 302
    record = DecisionRecord.objects.get(evaluation_id=DEMO_EVALUATION)
    recorded = record.chosen_label
    vendor = record.candidate.offering.vendor
    vendor.name = "Renamed after the decision"
    vendor_save(vendor=vendor, by=get_user_model().objects.get(username="procurement"))
    url = reverse("evaluation-decision", args=[DEMO_EVALUATION])
    assert client.post(url, {"reopen": "1", "reason": "Re-check."}).status_code == 302

    entries = evaluation_history(Evaluation.objects.get(pk=DEMO_EVALUATION), kinds=["decision"])
    actions = {e.action: e for e in entries if e.object_id == record.pk}
    assert set(actions) == {"decided", "reopened"}
    assert actions["reopened"].object_label == actions["decided"].object_label == recorded
    assert "Renamed after the decision" not in recorded
    assert actions["reopened"].candidate_id == record.candidate_id


def _result(candidate_id: int, total: float):
    from types import SimpleNamespace

    return SimpleNamespace(
        candidate_id=candidate_id, label=f"Candidate {candidate_id}", total=total
    )


def _flip(other_id: int, dimension: str, change_pp):
    from types import SimpleNamespace

    return SimpleNamespace(leader_id=1, other_id=other_id, dimension=dimension, change_pp=change_pp)


def test_two_candidates_a_fraction_of_a_point_apart_are_called_a_near_tie():
    from types import SimpleNamespace

    from portal.views.dashboard import _lead_margin

    ranking = SimpleNamespace(qualified=[_result(1, 65.52), _result(2, 65.08), _result(3, 40.0)])
    robustness = SimpleNamespace(
        flips=[
            _flip(2, "security", 2.9),
            _flip(2, "cost", -2.4),
            _flip(2, "storage", None),
            _flip(3, "cost", -0.1),  # another candidate's threshold is not the runner-up's
        ]
    )
    margin = _lead_margin(ranking, robustness)
    assert margin["near_tie"] is True
    assert (margin["leader"], margin["runner"], margin["gap"]) == (
        "Candidate 1",
        "Candidate 2",
        "0.44",
    )
    assert (str(margin["dimension"]), margin["change"]) == ("Cost", "-2.4")
    ranking.qualified[1] = _result(2, 55.0)
    assert _lead_margin(ranking, robustness)["near_tie"] is False
    assert _lead_margin(SimpleNamespace(qualified=[_result(1, 50.0)]), robustness) is None


def test_the_ranking_says_by_how_much_the_leader_leads_in_both_languages(as_role):
    client = as_role("manager")
    url = reverse("evaluation-detail", args=[16])
    text = _text(client.get(url))
    assert re.search(r"leads .+ by \d+\.\d\d points\.", text)
    assert "Near tie:" not in text
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    chinese = _text(client.get(url))
    assert re.search(r"领先 .+ \d+\.\d\d 分。", chinese)
    assert " leads " not in chinese
    assert (
        "单独改变任何一个权重都不会使两者交换名次。" in chinese
        or "个百分点即会使两者交换名次" in chinese
    )


def test_the_weights_page_fills_in_a_workload_preset_without_saving_it(as_role):
    from scoring.api import preset_weights

    client = as_role("procurement")
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    saved = evaluation.weights
    url = reverse("evaluation-weights", args=[DEMO_EVALUATION])
    page = client.get(url).content.decode()
    assert 'href="?preset=inference"' in page
    response = client.get(url + "?preset=inference")
    text = _text(response)
    assert "The preset weights of Inference are filled in below" in text
    preset = preset_weights("inference", rubric_version=evaluation.rubric_version)
    for dimension, weight in preset.items():
        assert re.search(rf'name="w_{dimension}"[^>]*value="{float(weight):.1f}"', text), dimension
    assert Evaluation.objects.get(pk=DEMO_EVALUATION).weights == saved  # nothing saved
    # Saved as any typed weights are, with the version the page was loaded at.
    version = re.search(r'name="loaded_version" value="([^"]+)"', text).group(1)
    data = {f"w_{d}": f"{float(w):.1f}" for d, w in preset.items()}
    response = client.post(url, {**data, "loaded_version": version, "direct": ""})
    assert response.status_code == 302
    assert {d: float(w) for d, w in Evaluation.objects.get(pk=DEMO_EVALUATION).weights.items()} == {
        d: float(w) for d, w in preset.items()
    }
    # An unknown preset fills nothing in.
    assert "preset-filled" not in client.get(url + "?preset=bogus").content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    chinese = _text(client.get(url + "?preset=inference"))
    assert "filled in below" not in chinese and "Start from" not in chinese


def test_a_preset_filled_in_for_a_reader_who_cannot_save_does_not_point_to_a_save_button(
    as_role,
):
    # A viewer (and anyone on a decided evaluation) has no Save weights button to press.
    client = as_role("viewer")
    url = reverse("evaluation-weights", args=[DEMO_EVALUATION])
    text = _text(client.get(url + "?preset=inference"))
    assert "The preset weights of Inference are filled in below" in text
    assert "ranked as a what-if; nothing is saved." in text
    assert "until you press Save weights" not in text
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    chinese = _text(client.get(url + "?preset=inference"))
    assert "nothing is saved" not in chinese and "不会保存任何内容" in chinese


def test_a_decision_is_recorded_on_the_ranking_its_page_showed_or_refused_with_the_input(demo):
    from django.contrib.auth import get_user_model

    from portal.services.evaluations import evaluation_weights_set

    client = _manager()
    url = reverse("evaluation-decision", args=[DEMO_EVALUATION])
    page = client.get(url).content.decode()
    version = re.search(r'name="loaded_version" value="([^"]+)"', page).group(1)
    # Procurement moves the ranking while the manager writes the rationale.
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    evaluation_weights_set(
        evaluation=evaluation,
        weights={
            "stability": 10,
            "network": 10,
            "storage": 10,
            "security": 10,
            "cost": 50,
            "support": 10,
        },
        by=get_user_model().objects.get(username="procurement"),
    )
    data = {"candidate": str(_leader()), "rationale": RATIONALE, "loaded_version": version}

    response = client.post(url, data)

    assert response.status_code == 422
    text = _text(response)
    assert "The ranking changed since you opened this page" in text
    assert RATIONALE.strip() in text  # kept in the form
    assert not DecisionRecord.objects.filter(evaluation_id=DEMO_EVALUATION).exists()
    # The page now carries the ranking as it is: recording again is a choice made on it.
    current = re.search(r'name="loaded_version" value="([^"]+)"', response.content.decode())
    assert current.group(1) != version
    again = client.post(url, {**data, "loaded_version": current.group(1)})
    assert again.status_code == 302
    assert DecisionRecord.objects.filter(evaluation_id=DEMO_EVALUATION).count() == 1


def test_a_stale_candidate_form_does_not_overwrite_a_quote_saved_meanwhile(as_role):
    from portal.models import Candidate

    client = as_role("procurement")
    other = Client()
    assert other.login(username="procurement", password=PASSWORDS["procurement"])
    candidate = Candidate.objects.get(pk=1)
    url = reverse("candidate-edit", args=[DEMO_EVALUATION, candidate.pk])
    page = client.get(url).content.decode()
    version = re.search(r'name="loaded_version" value="([^"]+)"', page).group(1)
    base = {
        "offering": str(candidate.offering_id),
        "node_count": str(candidate.node_count),
        "quoted_billing_model": "monthly",
    }
    # A colleague saves the quote just negotiated.
    theirs = {**base, "quoted_price_per_gpu": "7777", "notes": "Negotiated on the phone."}
    saved = other.post(url, {**theirs, "loaded_version": version})
    assert saved.status_code == 302
    # The stale page is saved with other values: refused, input kept, theirs named.
    mine = {**base, "quoted_price_per_gpu": "9999", "notes": "My note.", "loaded_version": version}
    response = client.post(url, mine)
    assert response.status_code == 422
    text = _text(response)
    assert "Someone saved this form after you opened it" in text
    assert "Negotiated on the phone." in text and "7777" in text
    assert re.search(r">\s*My note\.</textarea>", text)
    stored = Candidate.objects.get(pk=1)
    assert (str(stored.quoted_price_per_gpu), stored.notes) == (
        "7777.0000",
        "Negotiated on the phone.",
    )
    # Saving again from the refused page is a choice made with both in view.
    current = re.search(r'name="loaded_version" value="([^"]+)"', response.content.decode())
    again = client.post(url, {**mine, "loaded_version": current.group(1)})
    assert again.status_code == 302
    assert Candidate.objects.get(pk=1).notes == "My note."


def _posted_form(page: str) -> dict[str, str]:
    """What the browser sends for the page's form untouched (inputs, selects, textareas)."""
    data = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        if not name or name.group(1) in ("csrfmiddlewaretoken", "next"):
            continue
        if 'type="checkbox"' in tag:
            if "checked" in tag:
                data[name.group(1)] = "on"
            continue
        value = re.search(r'value="([^"]*)"', tag)
        data[name.group(1)] = html.unescape(value.group(1)) if value else ""
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
        data[name] = html.unescape(chosen.group(1)) if chosen else ""
    for name, body in re.findall(r'<textarea name="([^"]+)"[^>]*>(.*?)</textarea>', page, re.S):
        data[name] = html.unescape(body.lstrip("\n"))
    data.pop("language", None)
    return data


def test_a_stale_offering_form_does_not_put_back_prices_saved_meanwhile(as_role):
    from portal.models import Offering

    client = as_role("procurement")  # the demo's procurement login holds the catalogue role
    other = Client()
    assert other.login(username="procurement", password=PASSWORDS["procurement"])
    offering = Offering.objects.get(pk=2)
    url = reverse("offering-edit", args=[offering.pk])
    mine = _posted_form(client.get(url).content.decode())
    assert mine["loaded_version"]
    theirs = _posted_form(other.get(url).content.decode())
    monthly = next(k for k, v in theirs.items() if k.endswith("billing_model") and v == "monthly")
    theirs[monthly.replace("billing_model", "price_per_gpu")] = "5555"
    assert other.post(url, theirs).status_code == 302

    mine["name"] = "A100 80GB bare metal (renamed on a stale page)"
    response = client.post(url, mine)

    assert response.status_code == 422
    assert "Someone saved this form after you opened it" in _text(response)
    assert "renamed on a stale page" in _text(response)  # the input is kept
    stored = Offering.objects.get(pk=2)
    assert stored.prices.get(billing_model="monthly").price_per_gpu == 5555
    assert "stale page" not in stored.name


def test_a_stale_vendor_form_does_not_put_back_facts_saved_meanwhile(as_role):
    from portal.models import Vendor

    client = as_role("procurement")
    other = Client()
    assert other.login(username="procurement", password=PASSWORDS["procurement"])
    vendor = Vendor.objects.order_by("pk").first()
    url = reverse("vendor-edit", args=[vendor.pk])
    mine = _posted_form(client.get(url).content.decode())
    assert mine["loaded_version"]
    theirs = _posted_form(other.get(url).content.decode())
    theirs["contact_email"] = "new-account-manager@example.com"
    assert other.post(url, theirs).status_code == 302

    mine["name"] = vendor.name + " (stale page)"
    response = client.post(url, mine)

    assert response.status_code == 422
    text = _text(response)
    assert "Someone saved this form after you opened it" in text
    assert "Vendor “" not in text  # no "saved" message for a refused save
    stored = Vendor.objects.get(pk=vendor.pk)
    assert stored.contact_email == "new-account-manager@example.com"
    assert "(stale page)" not in stored.name


def test_a_stale_poc_plan_form_does_not_move_a_deadline_saved_meanwhile(as_role):
    from portal.models import PocPlan

    client = as_role("procurement")
    other = Client()
    assert other.login(username="procurement", password=PASSWORDS["procurement"])
    url = reverse("evaluation-poc", args=[DEMO_EVALUATION])
    mine = _posted_form(client.get(url).content.decode())
    theirs = _posted_form(other.get(url).content.decode())
    assert mine["loaded_version"]
    theirs.update({"deadline": "2027-03-01T12:00", "all_nodes_max": "2", "sample_size": "2"})
    assert other.post(url, theirs).status_code == 302

    mine.update({"deadline": "2027-01-15T09:00", "all_nodes_max": "2", "sample_size": "2"})
    response = client.post(url, mine)

    assert response.status_code == 422
    assert "Someone saved this form after you opened it" in _text(response)
    assert 'value="2027-01-15T09:00"' in response.content.decode()  # the input is kept
    deadline = PocPlan.objects.get(evaluation_id=DEMO_EVALUATION).deadline
    assert (deadline.year, deadline.month) == (2027, 3)


def test_a_refused_questionnaire_names_the_files_to_choose_again(as_role):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from portal.models import AnswerAttachment

    client = as_role("procurement")
    url = reverse("candidate-questionnaire", args=[DEMO_EVALUATION, 1])
    data = {
        "item-6-claim": "MLPS level 3, certificate attached",
        "item-6-attachment": SimpleUploadedFile("mlps3-certificate.pdf", b"%PDF-1.4 cert"),
        "item-9-claim": "about 1.2 million",  # not a number: the whole form is refused
    }
    response = client.post(url, data)
    assert response.status_code == 422
    text = _text(response)
    assert "Not attached, choose again: item 6: mlps3-certificate.pdf." in text
    assert not AnswerAttachment.objects.filter(original_name="mlps3-certificate.pdf").exists()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    data["item-6-attachment"] = SimpleUploadedFile("mlps3-certificate.pdf", b"%PDF-1.4 cert")
    chinese = _text(client.post(url, data))
    assert "以下附件未上传，请重新选择：检查项 6：mlps3-certificate.pdf。" in chinese


def test_a_decision_for_the_runner_up_says_so_on_the_decision_page_and_in_the_report(demo):
    evaluation = Evaluation.objects.get(pk=16)
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    leader, runner = ranking.qualified[0], ranking.qualified[1]
    client = _manager()
    url = reverse("evaluation-decision", args=[16])
    response = client.post(
        url, {"candidate": str(runner.candidate_id), "rationale": "Region and data residency."}
    )
    assert response.status_code == 302
    gap = f"{round(leader.total, 2) - round(runner.total, 2):,.2f}"
    expected = (
        f"The chosen candidate was not the leader: it ranked 2 of {len(ranking.qualified)} "
        f"qualified candidates in the recorded ranking, {gap} points behind {leader.label}."
    )
    for page in (url, reverse("evaluation-report", args=[16])):
        assert expected in " ".join(_text(client.get(page)).split()), page
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    chinese = _text(client.get(url))
    assert "The chosen candidate was not the leader" not in chinese
    assert "选定的候选方案并非领先者" in chinese
