"""Document items are reviewed by a second member: verified or contradicted with a note, kept
through re-verification until the answer changes, refused when decided; item 9 is compared with
the computed TCO."""

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from portal.models import Answer, AnswerReview, DecisionRecord
from portal.services.answers import AnswerDraft, answers_save
from portal.services.errors import EvaluationDecided
from portal.services.reviews import answer_review, monthly_cost_check
from portal.services.scores import candidate_refresh

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db


def _user(name):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def _answer(key, candidate=1):
    return Answer.objects.select_related("item", "candidate").get(
        candidate_id=candidate, item__key=key
    )


def _edit(answer, by, claim):
    answers_save(
        candidate=answer.candidate,
        drafts=[AnswerDraft(item=answer.item, claim=claim, value=answer.value, notes=answer.notes)],
        by=by,
    )
    return _answer(answer.item.key, answer.candidate_id)


def test_second_member_verifies_and_the_status_survives_refresh(demo):
    answer = _edit(_answer("compliance"), _user("procurement"), "MLPS level 3, cert 2025-117")
    assert answer.status == "claimed"
    review = answer_review(
        answer=answer,
        verdict="verified",
        note="Certificate p.1, valid to 2027",
        by=_user("engineer"),
    )
    answer.refresh_from_db()
    assert answer.status == "verified"
    assert answer.verification_note == "Certificate p.1, valid to 2027"
    # Re-verification from evidence keeps the review while the answer is unchanged.
    candidate_refresh(candidate_id=answer.candidate_id)
    answer.refresh_from_db()
    assert answer.status == "verified"
    # Audited: the review has a history row by the reviewer.
    assert review.history.first().history_user == _user("engineer")
    from portal.audit import evaluation_history

    entries = evaluation_history(answer.candidate.evaluation, kinds=["review"])
    assert len(entries) == 1 and entries[0].user == "engineer"
    assert "Certificate p.1" in str([c.after for c in entries[0].changes])
    # The answer changes: the review no longer applies, the item is claimed again.
    answer = _edit(answer, _user("procurement"), "MLPS level 2 only")
    assert answer.status == "claimed"


def test_contradicted_needs_a_note_and_a_second_member(demo):
    answer = _edit(_answer("sla"), _user("procurement"), "99.95 %, 10x credit")
    with pytest.raises(ValidationError):
        answer_review(answer=answer, verdict="verified", note="ok", by=_user("procurement"))
    with pytest.raises(ValidationError):
        answer_review(answer=answer, verdict="contradicted", note="  ", by=_user("manager"))
    with pytest.raises(ValidationError):
        answer_review(answer=answer, verdict="maybe", note="x", by=_user("manager"))
    with pytest.raises(PermissionDenied):
        answer_review(answer=answer, verdict="verified", note="x", by=_user("viewer"))
    assert not AnswerReview.objects.filter(answer=answer).exists()
    answer_review(
        answer=answer, verdict="contradicted", note="Contract §4 says 99.5 %", by=_user("manager")
    )
    answer.refresh_from_db()
    assert answer.status == "contradicted"


def test_measured_items_are_not_reviewed_by_hand(demo):
    answer = _answer("gpu_match")
    with pytest.raises(ValidationError):
        answer_review(answer=answer, verdict="verified", note="x", by=_user("manager"))


def test_review_refused_when_decided(demo):
    answer = _edit(_answer("compliance"), _user("procurement"), "MLPS 3")
    from portal.models import Evaluation

    evaluation = Evaluation.objects.get(pk=1)
    evaluation.status = "decided"
    evaluation.save(update_fields=["status"])
    with pytest.raises(EvaluationDecided):
        answer_review(answer=answer, verdict="verified", note="x", by=_user("engineer"))
    assert not AnswerReview.objects.exists()
    assert DecisionRecord.objects.count() >= 0


def test_review_page_records_and_compares_monthly_cost(client, demo):
    _edit(_answer("compliance"), _user("procurement"), "MLPS level 3")
    assert client.login(username="engineer", password=PASSWORDS["engineer"])
    url = reverse("candidate-review", args=[1, 1])
    page = client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert "Document review" in body
    assert "computed TCO" in body  # item 9 compared with the TCO (demo candidate 1)
    assert "cost-check" in body, body.split("monthly")[-1][:600]
    number = _answer("compliance").item.number
    field = f"review-{number}-"
    bad = client.post(url, {"item": number, field + "verdict": "verified", field + "note": ""})
    assert bad.status_code == 422
    assert _answer("compliance").status == "claimed"
    ok = client.post(
        url, {"item": number, field + "verdict": "verified", field + "note": "Cert seen"}
    )
    assert ok.status_code == 302
    assert _answer("compliance").status == "verified"
    # A viewer sees the page but cannot post.
    client.logout()
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    assert "Record the review" not in client.get(url).content.decode()
    viewer_post = {"item": number, field + "verdict": "verified", field + "note": "x"}
    assert client.post(url, viewer_post).status_code == 403


def test_monthly_cost_check_tolerance(demo):
    from portal import selectors
    from portal.models import Evaluation

    ranking, _c = selectors.evaluation_ranking(evaluation=Evaluation.objects.get(pk=1))
    result = next(r for r in ranking.results if r.tco is not None)
    model = next(m for m in result.tco.models if m.billing_model == result.tco.recommended)
    answer = _answer("monthly_cost", result.candidate_id)
    answer.value, answer.claim = float(model.monthly) * 1.05, ""
    check = monthly_cost_check(candidate=answer.candidate, answer=answer, tco=result.tco)
    assert check.within_tolerance and abs(float(check.difference_pct) - 5.0) < 0.2
    answer.value = float(model.monthly) * 1.5
    check = monthly_cost_check(candidate=answer.candidate, answer=answer, tco=result.tco)
    assert not check.within_tolerance
    answer.value, answer.claim = None, "ask sales"
    assert monthly_cost_check(candidate=answer.candidate, answer=answer, tco=result.tco) is None


def test_each_review_form_has_its_own_ids_and_labels(client, demo):
    """Four review forms on one page: no id twice, and each label points at an input of its
    own item's form (clicking item 9's "Note" focuses item 9's note)."""
    import re
    from collections import Counter

    assert client.login(username="engineer", password=PASSWORDS["engineer"])
    page = client.get(reverse("candidate-review", args=[1, 1])).content.decode()
    ids = Counter(re.findall(r'\sid="([^"]+)"', page))
    assert [i for i, n in ids.items() if n > 1] == []
    sections = re.findall(
        r'<section class="card review-item" id="item-(\d+)">(.*?)</section>', page, re.S
    )
    forms = {int(number): body for number, body in sections if "review-form" in body}
    assert set(forms) == {3, 6, 7, 9}
    for number, body in forms.items():
        labels = re.findall(r'<label for="([^"]+)"', body)
        assert f"id_review-{number}-note" in labels
        for target in labels:
            assert target.startswith(f"id_review-{number}-"), (number, target)
            assert f'id="{target}"' in body, (number, target)


def test_a_review_posted_for_item_9_records_item_9_only(client, demo):
    assert client.login(username="engineer", password=PASSWORDS["engineer"])
    url = reverse("candidate-review", args=[1, 1])
    monthly = _answer("monthly_cost")
    response = client.post(
        url,
        {
            "item": 9,
            "review-9-verdict": "contradicted",
            "review-9-note": "The quote says 410,000 a month.",
            # Another item's fields in the same post are not item 9's.
            "review-3-verdict": "verified",
            "review-3-note": "Not this one.",
        },
    )
    assert response.status_code == 302
    review = AnswerReview.objects.get()
    assert review.answer == monthly
    assert (review.verdict, review.note) == ("contradicted", "The quote says 410,000 a month.")
    # A post with the fields of another item's form than the one it names is refused whole.
    refused = client.post(
        url, {"item": 3, "review-9-verdict": "verified", "review-9-note": "Mismatched."}
    )
    assert refused.status_code == 422
    assert AnswerReview.objects.count() == 1
