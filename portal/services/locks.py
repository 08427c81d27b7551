"""The row locks writers share, always taken in one order: the evaluation's row, then a
candidate's. A decision and a reopening lock the evaluation's row for update; a candidate's
writers (imports finishing, answers, reviews, catalogue adoptions) key-share it, so they never
wait for each other across candidates, yet each either sees a decision or makes it wait.

Locks name their own table only (``FOR ... OF``): ``Candidate``'s default ordering joins its
evaluation, offering and vendor, and a lock taken through that join would lock those rows too,
serialising every import of an evaluation and every candidate of a vendor.
"""

from django.db import connection

from ..models import Candidate, Evaluation, EvaluationStatus
from .errors import EvaluationDecided


def evaluation_key_share(evaluation_id: int) -> str | None:
    """Key-share lock the evaluation's row until the transaction ends; its status (None when
    it is gone). Conflicts only with the locks of a decision, a reopening or a deletion."""
    if connection.vendor != "postgresql":
        # SQLite runs one writing transaction at a time: a plain read is as ordered.
        return Evaluation.objects.filter(pk=evaluation_id).values_list("status", flat=True).first()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT status FROM portal_evaluation WHERE id = %s FOR KEY SHARE", [evaluation_id]
        )
        row = cursor.fetchone()
    return row[0] if row else None


def _candidate_evaluation_key_share(candidate_id: int) -> str | None:
    """``evaluation_key_share`` of the candidate's evaluation, found in the same statement."""
    if connection.vendor != "postgresql":
        return (
            Candidate.objects.filter(pk=candidate_id)
            .values_list("evaluation__status", flat=True)
            .first()
        )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e.status FROM portal_evaluation e"
            " JOIN portal_candidate c ON c.evaluation_id = e.id"
            " WHERE c.id = %s FOR KEY SHARE OF e",
            [candidate_id],
        )
        row = cursor.fetchone()
    return row[0] if row else None


def candidate_lock(candidate_id: int) -> str:
    """Key-share the candidate's evaluation, then lock the candidate's row alone (no key
    update: rows referencing it may still be inserted) until the transaction ends; returns
    the evaluation's status. Raises Candidate.DoesNotExist."""
    status = _candidate_evaluation_key_share(candidate_id)
    locked = (
        Candidate.objects.select_for_update(no_key=True, of=("self",))
        .filter(pk=candidate_id)
        .order_by()
        .values_list("pk", flat=True)
    )
    if status is None or not list(locked):
        raise Candidate.DoesNotExist(f"candidate {candidate_id} does not exist")
    return status


def candidate_lock_open(candidate_id: int) -> None:
    """``candidate_lock``, refused (EvaluationDecided) when the evaluation is decided: what a
    writer of the candidate's data takes before it reads what it will change."""
    if candidate_lock(candidate_id) == EvaluationStatus.DECIDED:
        raise EvaluationDecided()
