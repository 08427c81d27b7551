"""Two writers who loaded the same version: the second waits for the first's row lock inside the
service, then is refused (StaleCopy) with nothing of it written; and a save writes only the
fields its service owns, so a concurrent edit of the others stays."""

import threading
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from portal.models import Answer, AnswerReview, Candidate, ChecklistItem, Evaluation
from portal.services.errors import StaleCopy
from portal.services.evaluations import (
    evaluation_update,
    evaluation_weights_from_ahp,
    evaluation_weights_set,
    requirements_version,
    weights_version,
)
from portal.services.portfolio import evaluation_portfolio_settings_set, portfolio_settings_version
from portal.services.reviews import answer_review, review_version

DIMENSIONS = ("stability", "network", "storage", "security", "cost", "support")


def _race(lock, second, first) -> dict:
    """Hold ``lock`` (a select_for_update) in this thread's transaction, start ``second`` in a
    thread, check it waits, run ``first`` in the same transaction and commit; then return what
    ``second`` got (``refused`` with the version it was given, or ``saved``)."""
    outcome: dict = {}

    def run():
        try:
            second()
            outcome["result"] = "saved"
        except StaleCopy as exc:
            outcome["result"] = "refused"
            outcome["version"] = exc.version
        finally:
            connection.close()

    racer = threading.Thread(target=run)
    with transaction.atomic():
        lock()
        racer.start()
        racer.join(timeout=1.0)
        assert racer.is_alive(), "the second writer did not wait for the first one's lock"
        first()
    racer.join(timeout=20)
    assert not racer.is_alive()
    return outcome


def _weights(**overrides) -> dict[str, Decimal]:
    """Percent weights making 100: the overridden ones as given, the rest sharing what is left."""
    rest = (100 - sum(overrides.values())) / Decimal(len(DIMENSIONS) - len(overrides))
    return {d: Decimal(overrides.get(d, rest)) for d in DIMENSIONS}


@pytest.mark.django_db(transaction=True)
def test_two_weights_saves_from_the_same_copy_the_second_waits_and_is_refused(evaluation, members):
    loaded = Evaluation.objects.get(pk=evaluation.pk)
    version = weights_version(loaded)

    def second():
        evaluation_weights_set(
            evaluation=loaded,
            weights=_weights(cost=9),
            by=members["manager"],
            expected_version=version,
        )

    def first():
        evaluation_weights_set(
            evaluation=loaded,
            weights=_weights(security=5),
            by=members["procurement"],
            expected_version=version,
        )

    outcome = _race(
        lambda: Evaluation.objects.select_for_update().get(pk=evaluation.pk), second, first
    )
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert outcome == {"result": "refused", "version": weights_version(stored)}
    assert stored.weights == _weights(security=5)
    assert stored.history.count() == 2  # created, then the first save: none of the second's


@pytest.mark.django_db(transaction=True)
def test_two_ahp_saves_from_the_same_copy_the_second_waits_and_is_refused(evaluation, members):
    loaded = Evaluation.objects.get(pk=evaluation.pk)
    version = weights_version(loaded)
    even = [[1.0] * 6 for _ in range(6)]

    def second():
        evaluation_weights_from_ahp(
            evaluation=loaded, matrix=even, by=members["manager"], expected_version=version
        )

    def first():
        evaluation_weights_set(
            evaluation=loaded,
            weights=_weights(network=4),
            by=members["procurement"],
            expected_version=version,
        )

    outcome = _race(
        lambda: Evaluation.objects.select_for_update().get(pk=evaluation.pk), second, first
    )
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert outcome["result"] == "refused"
    assert stored.weights == _weights(network=4) and stored.ahp_matrix is None


@pytest.mark.django_db(transaction=True)
def test_two_requirements_saves_from_the_same_copy_the_second_waits_and_is_refused(
    evaluation, members
):
    mine = Evaluation.objects.get(pk=evaluation.pk)
    theirs = Evaluation.objects.get(pk=evaluation.pk)
    version = requirements_version(mine)
    mine.name = "Mine"
    theirs.required_total_gpus = 64

    def second():
        evaluation_update(evaluation=mine, by=members["manager"], expected_version=version)

    def first():
        evaluation_update(evaluation=theirs, by=members["procurement"], expected_version=version)

    outcome = _race(
        lambda: Evaluation.objects.select_for_update().get(pk=evaluation.pk), second, first
    )
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert outcome == {"result": "refused", "version": requirements_version(stored)}
    assert (stored.name, stored.required_total_gpus) == (evaluation.name, 64)


@pytest.mark.django_db(transaction=True)
def test_two_portfolio_settings_saves_from_the_same_copy_the_second_waits_and_is_refused(
    evaluation, members
):
    version = portfolio_settings_version(Evaluation.objects.get(pk=evaluation.pk))

    def second():
        evaluation_portfolio_settings_set(
            evaluation=evaluation,
            by=members["manager"],
            expected_version=version,
            prefer_fewer_vendors_pct=Decimal(3),
            home_country="DE",
        )

    def first():
        evaluation_portfolio_settings_set(
            evaluation=evaluation,
            by=members["procurement"],
            expected_version=version,
            prefer_fewer_vendors_pct=Decimal(7),
        )

    outcome = _race(
        lambda: Evaluation.objects.select_for_update().get(pk=evaluation.pk), second, first
    )
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert outcome == {"result": "refused", "version": portfolio_settings_version(stored)}
    assert (stored.prefer_fewer_vendors_pct, stored.home_country) == (Decimal(7), "")


@pytest.mark.django_db(transaction=True)
def test_two_reviews_from_the_same_copy_the_second_waits_and_is_refused(candidate, members):
    call_command("loaddata", "checklist", verbosity=0)
    answer = Answer.objects.create(
        candidate=candidate,
        item=ChecklistItem.objects.get(key="compliance"),
        claim="MLPS level 3, certificate 2025-117",
        status="claimed",
        updated_by=members["procurement"],
    )
    version = review_version(answer, None)

    def second():
        answer_review(
            answer=answer,
            verdict="contradicted",
            note="The certificate expired",
            by=members["manager"],
            expected_version=version,
        )

    def first():
        answer_review(
            answer=answer,
            verdict="verified",
            note="Certificate p.1, valid to 2027",
            by=members["engineer"],
            expected_version=version,
        )

    outcome = _race(
        lambda: Candidate.objects.select_for_update().get(pk=candidate.pk), second, first
    )
    review = AnswerReview.objects.get(answer=answer)
    assert outcome == {"result": "refused", "version": review_version(answer, review)}
    assert (review.verdict, review.note, review.reviewed_by) == (
        "verified",
        "Certificate p.1, valid to 2027",
        members["engineer"],
    )
    assert review.history.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_review_waits_for_an_answer_being_saved_and_is_refused_over_the_new_claim(
    candidate, members
):
    """The claim recorded as reviewed is the one stored: an answer saved while the review waits
    for the candidate's lock makes the reviewer's copy stale."""
    from portal.services.evaluations import answer_save

    call_command("loaddata", "checklist", verbosity=0)
    item = ChecklistItem.objects.get(key="compliance")
    answer = Answer.objects.create(
        candidate=candidate,
        item=item,
        claim="MLPS level 3",
        status="claimed",
        updated_by=members["procurement"],
    )
    version = review_version(answer, None)

    def second():
        answer_review(
            answer=answer,
            verdict="verified",
            note="Certificate p.1",
            by=members["engineer"],
            expected_version=version,
        )

    def first():
        answer_save(
            candidate=candidate, item=item, claim="MLPS level 2 only", by=members["procurement"]
        )

    outcome = _race(
        lambda: Candidate.objects.select_for_update().get(pk=candidate.pk), second, first
    )
    assert outcome["result"] == "refused"
    assert not AnswerReview.objects.exists()


@pytest.mark.django_db
def test_a_script_that_sends_no_version_is_not_checked(evaluation, members):
    stale = Evaluation.objects.get(pk=evaluation.pk)
    evaluation_weights_set(evaluation=stale, weights=_weights(cost=3), by=members["manager"])
    saved = evaluation_weights_set(
        evaluation=stale, weights=_weights(cost=5), by=members["procurement"]
    )
    assert saved.weights == _weights(cost=5)
    with pytest.raises(StaleCopy):
        evaluation_weights_set(
            evaluation=stale,
            weights=_weights(cost=7),
            by=members["procurement"],
            expected_version=weights_version(stale),
        )
    assert Evaluation.objects.get(pk=evaluation.pk).weights == _weights(cost=5)


@pytest.mark.django_db
def test_a_weights_save_leaves_a_requirements_edit_made_meanwhile_intact(evaluation, members):
    """The weights page loaded the evaluation; the requirements were edited and saved since;
    saving the weights writes the weights only, not the loaded copy's old requirements."""
    loaded = Evaluation.objects.get(pk=evaluation.pk)
    version = weights_version(loaded)
    edited = Evaluation.objects.get(pk=evaluation.pk)
    edited.name = "Pre-train on 64 GPUs"
    edited.required_total_gpus = 64
    evaluation_update(evaluation=edited, by=members["procurement"])
    saved = evaluation_weights_set(
        evaluation=loaded,
        weights=_weights(cost=4),
        by=members["manager"],
        expected_version=version,
    )
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert (stored.name, stored.required_total_gpus) == ("Pre-train on 64 GPUs", 64)
    assert stored.weights == saved.weights == _weights(cost=4)
    # The audit trail's row of the weights save holds the requirements as stored, too.
    assert stored.history.first().name == "Pre-train on 64 GPUs"


@pytest.mark.django_db
def test_a_requirements_save_leaves_weights_and_settings_saved_meanwhile_intact(
    evaluation, members
):
    loaded = Evaluation.objects.get(pk=evaluation.pk)
    version = requirements_version(loaded)
    evaluation_weights_set(
        evaluation=evaluation, weights=_weights(support=6), by=members["manager"]
    )
    evaluation_portfolio_settings_set(
        evaluation=evaluation, by=members["manager"], prefer_fewer_vendors_pct=Decimal(5)
    )
    loaded.required_total_gpus = 32
    evaluation_update(evaluation=loaded, by=members["procurement"], expected_version=version)
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert stored.required_total_gpus == 32
    assert stored.weights == _weights(support=6)
    assert stored.prefer_fewer_vendors_pct == Decimal(5)


@pytest.mark.django_db
def test_requirements_cannot_decide_an_evaluation(evaluation, members):
    from django.core.exceptions import ValidationError

    loaded = Evaluation.objects.get(pk=evaluation.pk)
    loaded.status = "decided"
    with pytest.raises(ValidationError, match="Record a decision"):
        evaluation_update(evaluation=loaded, by=members["procurement"])
    assert Evaluation.objects.get(pk=evaluation.pk).status != "decided"


@pytest.mark.django_db(transaction=True)
def test_an_api_patch_of_the_name_waiting_for_a_weights_save_keeps_those_weights(
    evaluation, members
):
    """The PATCH loads the evaluation, then waits for the row while weights are saved: it writes
    the name it was sent, not its copy of the rest."""
    from django.urls import reverse
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_login(members["procurement"])
    url = reverse("api-evaluation-detail", kwargs={"evaluation_pk": evaluation.pk})
    outcome: dict = {}

    def patch():
        try:
            outcome["status"] = client.patch(url, {"name": "Renamed"}, format="json").status_code
        finally:
            connection.close()

    outcome_race = _race(
        lambda: Evaluation.objects.select_for_update().get(pk=evaluation.pk),
        patch,
        lambda: evaluation_weights_set(
            evaluation=evaluation, weights=_weights(storage=8), by=members["manager"]
        ),
    )
    assert outcome_race == {"result": "saved"} and outcome == {"status": 200}
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert stored.name == "Renamed" and stored.weights == _weights(storage=8)


# The API: the weights and the requirements carry a version, as the answers do.


def test_the_api_refuses_weights_and_requirements_over_a_newer_save(evaluation, members):
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_login(members["procurement"])
    base = f"/api/v1/evaluations/{evaluation.pk}/"
    loaded = api.get(f"{base}weights/").json()["version"]
    # Percent that make 100 (the API refuses other sums).
    six = {d: 20 for d in ("stability", "network", "storage", "security", "cost")} | {"support": 0}
    other = {**six, "cost": 5, "support": 15}
    first = api.put(f"{base}weights/", {**other, "version": loaded}, format="json")
    assert first.status_code == 200, first.content
    assert first.json()["version"] != loaded
    stale = api.put(f"{base}weights/", {**six, "version": loaded}, format="json")
    assert stale.status_code == 409 and stale.json()["version"] == first.json()["version"]
    assert Evaluation.objects.get(pk=evaluation.pk).weights["cost"] == 5
    ones = [[1] * 6 for _ in range(6)]
    stale = api.post(f"{base}weights/", {"matrix": ones, "version": loaded}, format="json")
    assert stale.status_code == 409
    # Without a version (a script that means to overwrite) the save goes through.
    assert api.put(f"{base}weights/", six, format="json").status_code == 200

    loaded = api.get(base).json()["version"]
    assert api.patch(base, {"name": "A", "version": loaded}, format="json").status_code == 200
    stale = api.patch(base, {"name": "B", "version": loaded}, format="json")
    assert stale.status_code == 409, stale.content
    assert Evaluation.objects.get(pk=evaluation.pk).name == "A"
