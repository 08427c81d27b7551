"""Evidence ages honestly: evidence that passes the evaluation's maximum age with time passing
is dropped by the beat task (the scores and the cached ranking follow), the page says so from
the moment it expires, and a decided evaluation keeps the scores it was decided on."""

from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from portal import selectors
from portal.models import Candidate, EvidenceUpload, OfferingPrice, Score
from portal.services.evaluations import decision_record, evaluation_update
from portal.services.scores import (
    EVIDENCE_OLDEST_KEY,
    evidence_summaries_rebuild,
    usable_uploads,
)
from portal.tasks import evidence_expiry_rescore_task

from .conftest import PASSWORD, sample_bytes
from .test_import_scale import _import, bundle

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]
MAX_AGE_DAYS = 30
NOTICE = "maximum evidence age since it was scored"


def _network(candidate) -> float:
    return Score.objects.get(candidate=candidate, dimension="network").value


def _time_passes(candidate, by: timedelta) -> None:
    """Every stored time of the candidate's evidence moves ``by`` back: the state ``by`` later,
    without waiting (the uploads' times, the kept summaries built from them, and the oldest
    evidence time its last verification recorded)."""
    with transaction.atomic():
        EvidenceUpload.objects.filter(candidate=candidate).update(
            measured_at=F("measured_at") - by, created_at=F("created_at") - by
        )
        evidence_summaries_rebuild(candidate_id=candidate.pk)
        candidate.refresh_from_db()
        oldest = candidate.verification[EVIDENCE_OLDEST_KEY]
        moved = (datetime.fromisoformat(oldest) - by).isoformat()
        candidate.verification[EVIDENCE_OLDEST_KEY] = moved
        Candidate.objects.filter(pk=candidate.pk).update(verification=candidate.verification)


@pytest.fixture
def just_inside(evaluation, candidate, offering, members):
    """A two-node all_reduce run measured an hour inside the evaluation's maximum age."""
    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    evaluation.max_evidence_age_days = MAX_AGE_DAYS
    evaluation_update(evaluation=evaluation, by=members["procurement"])
    without = _network(candidate)
    started = timezone.now() - timedelta(days=MAX_AGE_DAYS) + timedelta(hours=1)
    upload = _import(
        candidate,
        bundle(
            {"nccl.txt": sample_bytes("nccl-h100-2node.txt")},
            hostname="n1",
            started=started.isoformat(),
        ),
    )
    assert upload.status == "done", upload.error
    with_evidence = _network(candidate)
    assert with_evidence > without
    return {"upload": upload, "without": without, "with": with_evidence}


def _results(client, evaluation) -> str:
    response = client.get(reverse("evaluation-detail", args=[evaluation.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _network_cell(html: str, score: float) -> bool:
    """The ranking table's network cell (the only candidate's, rounded as the table shows)."""
    return f'<td class="num">{score:.0f}<' in html


def test_evidence_expiring_with_time_is_dropped_by_the_beat_task_and_the_page_follows(
    just_inside, evaluation, candidate, client
):
    client.login(username="viewer", password=PASSWORD)
    fresh_page = _results(client, evaluation)
    assert _network_cell(fresh_page, just_inside["with"])
    assert NOTICE not in fresh_page
    assert evidence_expiry_rescore_task() == 0  # nothing expired yet

    _time_passes(candidate, timedelta(hours=2))

    # Read after expiry, before the task: not the cached page; it says the scores are stale.
    assert selectors.evidence_expired_candidates(evaluation=evaluation) == [candidate.pk]
    expired_page = _results(client, evaluation)
    assert NOTICE in expired_page and str(candidate) in expired_page

    assert evidence_expiry_rescore_task() == 1

    assert _network(candidate) == just_inside["without"] < just_inside["with"]
    assert usable_uploads(candidate) == []
    rescored_page = _results(client, evaluation)
    assert NOTICE not in rescored_page
    assert _network_cell(rescored_page, just_inside["without"])
    assert not _network_cell(rescored_page, just_inside["with"])
    # Idempotent: the candidate no longer qualifies.
    assert evidence_expiry_rescore_task() == 0


def test_evidence_still_inside_the_limit_is_kept(just_inside, candidate):
    _time_passes(candidate, timedelta(minutes=30))
    assert evidence_expiry_rescore_task() == 0
    assert _network(candidate) == just_inside["with"]


def test_a_decided_evaluation_keeps_its_scores_when_its_evidence_expires(
    just_inside, evaluation, candidate, members
):
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale="Fabric.", by=members["manager"]
    )
    scored_at = Candidate.objects.get(pk=candidate.pk).scored_at
    _time_passes(candidate, timedelta(hours=2))
    evaluation.refresh_from_db()
    assert selectors.evidence_expired_candidates(evaluation=evaluation) == []

    assert evidence_expiry_rescore_task() == 0

    assert _network(candidate) == just_inside["with"]
    assert Candidate.objects.get(pk=candidate.pk).scored_at == scored_at


def test_changing_the_maximum_age_verifies_again(just_inside, evaluation, candidate, members):
    evaluation.max_evidence_age_days = 10
    evaluation_update(evaluation=evaluation, by=members["procurement"])
    assert _network(candidate) == just_inside["without"]
    evaluation.max_evidence_age_days = 0
    evaluation_update(evaluation=evaluation, by=members["procurement"])
    assert _network(candidate) == just_inside["with"]


def test_candidates_verified_before_the_time_was_kept_are_verified_once(just_inside, candidate):
    candidate.refresh_from_db()
    del candidate.verification[EVIDENCE_OLDEST_KEY]
    Candidate.objects.filter(pk=candidate.pk).update(verification=candidate.verification)
    assert selectors.evidence_expired_candidates() == []

    assert evidence_expiry_rescore_task() == 1

    candidate.refresh_from_db()
    assert (
        candidate.verification[EVIDENCE_OLDEST_KEY] == just_inside["upload"].measured_at.isoformat()
    )
    assert evidence_expiry_rescore_task() == 0
