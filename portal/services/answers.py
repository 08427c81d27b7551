"""Writes on questionnaire answers: the whole questionnaire saved at once, all or nothing."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from ..models import Answer, Candidate, ChecklistItem, VerificationStatus
from .evaluations import _not_decided, _with_history_user, answer_attachment_add
from .scores import candidate_refresh


@dataclass(frozen=True)
class AnswerDraft:
    """What the questionnaire holds for one item: the claim as text, its typed value (None
    for free text or a kept legacy text), the notes and an optional new attachment."""

    item: ChecklistItem
    claim: str
    value: Any
    notes: str
    attachment: Any = None


def _unchanged(answer: Answer | None, draft: AnswerDraft) -> bool:
    if draft.attachment:
        return False
    if answer is None:
        return not draft.claim.strip() and draft.value in (None, "") and not draft.notes
    return (answer.claim, answer.value, answer.notes) == (
        draft.claim.strip(),
        draft.value,
        draft.notes,
    )


@transaction.atomic
def answers_save(*, candidate: Candidate, drafts: Sequence[AnswerDraft], by) -> list[Answer]:
    """Save every draft that differs from the stored answer (each change recorded as ``by``'s
    in History) with its attachment, then re-verify the candidate once.

    All or nothing: a refused attachment (ValidationError) leaves every answer as it was.
    Returns the answers that changed."""
    _not_decided(candidate.evaluation)
    # One writer per candidate at a time: an autosave and a "Save all" never interleave.
    Candidate.objects.select_for_update().filter(pk=candidate.pk).first()
    stored = {a.item_id: a for a in Answer.objects.filter(candidate=candidate)}
    changed: list[Answer] = []
    kept: list = []
    try:
        _save_drafts(candidate, drafts, stored, by, changed, kept)
    except Exception:
        # The rows roll back; the files written before the failure must go with them.
        for attachment in kept:
            attachment.file.delete(save=False)
        raise
    if changed:
        candidate_refresh(candidate_id=candidate.pk)
    return changed


def _save_drafts(candidate, drafts, stored, by, changed, kept) -> None:
    for draft in drafts:
        answer = stored.get(draft.item.pk)
        if _unchanged(answer, draft):
            continue
        if answer is None:
            answer = Answer(candidate=candidate, item=draft.item)
        answer.claim = draft.claim.strip()
        answer.value = draft.value
        answer.notes = draft.notes
        answer.updated_by = by
        if answer.status not in (VerificationStatus.VERIFIED, VerificationStatus.CONTRADICTED):
            answer.status = (
                VerificationStatus.CLAIMED
                if answer.claim or answer.value not in (None, "")
                else VerificationStatus.UNANSWERED
            )
        _with_history_user(answer, by).save()
        if draft.attachment:
            kept.append(answer_attachment_add(answer=answer, uploaded_file=draft.attachment, by=by))
        changed.append(answer)
