"""What an import holds while it writes (issue #15): the candidate's row and nothing it joins,
and no audit row for the scores it derives."""

import pytest
from django.db import OperationalError, connections, transaction

from portal.services.scores import _lock, candidate_refresh


@pytest.mark.django_db(transaction=True)
def test_the_import_lock_leaves_the_evaluation_offering_and_vendor_rows_free(candidate):
    other = connections.create_connection("default")
    try:
        with transaction.atomic():
            _lock(candidate.pk)
            with other.cursor() as cursor:
                # An upload key-shares its evaluation's row, a weights or requirements save
                # takes it for no-key update; a catalogue edit locks the offering and its
                # vendor. None of them waits for a running import.
                for statement, pk in (
                    (
                        "SELECT id FROM portal_evaluation WHERE id = %s FOR KEY SHARE NOWAIT",
                        candidate.evaluation_id,
                    ),
                    (
                        "SELECT id FROM portal_evaluation WHERE id = %s FOR NO KEY UPDATE NOWAIT",
                        candidate.evaluation_id,
                    ),
                    (
                        "SELECT id FROM portal_offering WHERE id = %s FOR UPDATE NOWAIT",
                        candidate.offering_id,
                    ),
                    (
                        "SELECT id FROM portal_vendor WHERE id = %s FOR UPDATE NOWAIT",
                        candidate.offering.vendor_id,
                    ),
                ):
                    cursor.execute(statement, [pk])
                    assert cursor.fetchone() == (pk,)
                # The candidate's own row stays locked until the import commits, and a
                # decision (it locks the evaluation for update) waits for the import.
                for table, pk in (
                    ("portal_candidate", candidate.pk),
                    ("portal_evaluation", candidate.evaluation_id),
                ):
                    with pytest.raises(OperationalError):  # autocommit: no transaction to undo
                        cursor.execute(
                            f"SELECT id FROM {table} WHERE id = %s FOR UPDATE NOWAIT",  # noqa: S608
                            [pk],
                        )
    finally:
        other.close()


@pytest.mark.django_db
def test_a_refresh_stores_scores_without_an_audit_row_for_the_candidate(candidate):
    before = candidate.history.count()
    candidate_refresh(candidate_id=candidate.pk)
    candidate_refresh(candidate_id=candidate.pk)
    candidate.refresh_from_db()
    assert candidate.scored_at is not None and candidate.scores.count() == 6
    assert candidate.history.count() == before
