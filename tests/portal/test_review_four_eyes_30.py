"""The four-eyes rule on document reviews: the reviewer is never the author of the claim (or of
the documents) under review, whoever edited the answer last; a save that changes nothing is
not an edit."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from portal.models import Answer, AnswerReview, Membership, Role
from portal.services.evaluations import answer_attachment_add
from portal.services.reviews import answer_review

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

SLA = "99.99% SLA, credits of 10% per hour below it"
ANSWER_URL = "/api/v1/evaluations/1/candidates/1/answers/sla/"


@pytest.fixture
def second_buyer(demo):
    user = get_user_model().objects.create_user(username="buyer-b", password="buyer-b-pass-2026")
    Membership.objects.create(evaluation_id=1, user=user, role=Role.PROCUREMENT)
    return user


def _client_for(client_class, username, password):
    client = client_class()
    assert client.login(username=username, password=password)
    return client


def _put(client, **body):
    response = client.put(ANSWER_URL, body, content_type="application/json")
    assert response.status_code == 200, response.content
    return response


def _sla():
    return Answer.objects.select_related("item", "candidate").get(candidate_id=1, item__key="sla")


def _review_as_a(client_a):
    return client_a.post(
        reverse("candidate-review", args=[1, 1]),
        {
            "item": _sla().item.number,
            f"review-{_sla().item.number}-verdict": "verified",
            f"review-{_sla().item.number}-note": "I read it myself.",
        },
    )


def test_a_notes_edit_by_another_member_does_not_let_the_claim_author_review(second_buyer):
    client_a = _client_for(Client, "procurement", PASSWORDS["procurement"])
    client_b = _client_for(Client, "buyer-b", "buyer-b-pass-2026")
    _put(client_a, claim=SLA, notes="per A")
    _put(client_b, claim=SLA, notes="per A, checked by B")
    answer = _sla()
    assert answer.updated_by == second_buyer
    assert answer.claim_by.username == "procurement"

    response = _review_as_a(client_a)
    assert response.status_code != 302
    assert "you wrote this claim" in response.content.decode()
    assert not AnswerReview.objects.filter(answer=answer).exists()
    assert _sla().status != "verified"
    # B only edited the notes: B is a second pair of eyes on A's claim.
    review = answer_review(answer=_sla(), verdict="verified", note="SLA p.2", by=second_buyer)
    assert review.reviewed_by == second_buyer


def test_an_identical_put_changes_nothing_and_the_author_still_cannot_review(second_buyer):
    client_a = _client_for(Client, "procurement", PASSWORDS["procurement"])
    client_b = _client_for(Client, "buyer-b", "buyer-b-pass-2026")
    _put(client_a, claim=SLA, notes="per A")
    before = _sla()
    history = before.history.count()
    _put(client_b, claim=SLA, notes="per A")
    after = _sla()
    assert after.updated_by.username == "procurement"
    assert after.updated_at == before.updated_at
    assert after.history.count() == history

    response = _review_as_a(client_a)
    assert response.status_code != 302
    assert _sla().status != "verified"


def test_the_member_who_attached_the_documents_cannot_review_them(second_buyer):
    procurement = get_user_model().objects.get(username="procurement")
    from portal.services.evaluations import answer_save

    answer = answer_save(
        candidate=_sla().candidate, item=_sla().item, by=second_buyer, claim=SLA, notes=""
    )
    answer_attachment_add(
        answer=answer, uploaded_file=SimpleUploadedFile("sla.pdf", b"%PDF-1.4 sla"), by=procurement
    )
    with pytest.raises(ValidationError) as refused:
        answer_review(answer=_sla(), verdict="verified", note="ok", by=procurement)
    assert "someone else must" in refused.value.messages[0]
    with pytest.raises(ValidationError):
        answer_review(answer=_sla(), verdict="verified", note="ok", by=second_buyer)
    engineer = get_user_model().objects.get(username="engineer")
    assert answer_review(answer=_sla(), verdict="verified", note="ok", by=engineer).pk


def test_the_refusal_is_in_chinese(second_buyer):
    from django.utils import translation

    from portal.services.evaluations import answer_save

    procurement = get_user_model().objects.get(username="procurement")
    answer_save(candidate=_sla().candidate, item=_sla().item, by=procurement, claim=SLA)
    answer_save(candidate=_sla().candidate, item=_sla().item, by=second_buyer, claim=SLA, notes="B")
    with translation.override("zh-hans"), pytest.raises(ValidationError) as refused:
        answer_review(answer=_sla(), verdict="verified", note="ok", by=procurement)
    message = refused.value.messages[0]
    assert "someone else" not in message and "复核" in message


def test_the_migration_names_each_existing_claims_author_from_its_history(second_buyer):
    """Answers written before claim_by existed get it from their history (migration 0040):
    the last member who changed the claim's text or typed value, not a later notes-only
    editor; an answer without history falls back to its last editor."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("portal.migrations.0040_answer_claim_by")
    client_a = _client_for(Client, "procurement", PASSWORDS["procurement"])
    client_b = _client_for(Client, "buyer-b", "buyer-b-pass-2026")
    _put(client_a, claim=SLA, notes="per A")
    _put(client_b, claim=SLA, notes="per A, checked by B")
    sla = _sla()
    other = Answer.objects.filter(candidate_id=1).exclude(pk=sla.pk).first()
    other.history.all().delete()  # an answer saved before its history was kept
    Answer.objects.filter(pk=other.pk).update(updated_by=second_buyer)
    Answer.objects.update(claim_by=None)

    migration.claim_authors(apps, None)

    assert _sla().claim_by.username == "procurement"
    assert _sla().updated_by == second_buyer
    assert Answer.objects.get(pk=other.pk).claim_by == second_buyer
    # Run on a database whose answers are already filled, it finds the same authors.
    migration.claim_authors(apps, None)
    assert _sla().claim_by.username == "procurement"
