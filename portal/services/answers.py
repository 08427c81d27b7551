"""Writes on questionnaire answers: the whole questionnaire saved at once, all or nothing, and
never over an edit the writer has not seen (each item carries the version it was loaded at)."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from ..models import Answer, Candidate, ChecklistItem
from .evaluations import answer_attachment_add, answer_write
from .locks import candidate_lock_open
from .scores import candidate_refresh
from .text import clean_text
from .versions import values_version


@dataclass(frozen=True)
class AnswerDraft:
    """What the questionnaire holds for one item: the claim as text, its typed value (None
    for free text or a kept legacy text), the notes and an optional new attachment.

    ``base_version`` is the item's version (``answer_version``) when the writer loaded it;
    None saves without that check (a writer that never saw the item, such as a script)."""

    item: ChecklistItem
    claim: str
    value: Any
    notes: str
    attachment: Any = None
    base_version: str | None = None

    def __post_init__(self) -> None:
        # The texts as they would be stored (services.text), so that comparing a draft with
        # the stored answer, or its version with the one loaded, sees what would be saved.
        object.__setattr__(self, "claim", clean_text(self.claim, multiline=True))
        object.__setattr__(self, "notes", clean_text(self.notes, multiline=True))


@dataclass(frozen=True)
class AnswerConflict:
    """An item someone else changed since the writer loaded it: not saved. ``current`` is the
    stored answer (None if it was removed), ``version`` its version now."""

    draft: AnswerDraft
    current: Answer | None
    version: str


@dataclass
class AnswersSaved:
    """The outcome of ``answers_save``: the answers written, the items refused because they
    changed underneath (nothing of theirs written, attachments of the whole save included),
    the items changed by someone else that this writer had left as loaded (kept as stored: the
    page should show them), and every item's version now (item pk -> version)."""

    changed: list[Answer] = field(default_factory=list)
    conflicts: list[AnswerConflict] = field(default_factory=list)
    refreshed: list[int] = field(default_factory=list)
    versions: dict[int, str] = field(default_factory=dict)


def _version(claim: str, value: Any, notes: str) -> str:
    return values_version([claim.strip(), None if value == "" else value, notes])


def answer_version(answer: Answer | None) -> str:
    """A digest of what people typed for an item (claim, typed value, notes; not the
    verification status, which evidence changes): the version a form carries."""
    if answer is None:
        return _version("", None, "")
    return _version(answer.claim, answer.value, answer.notes)


def draft_version(draft: AnswerDraft) -> str:
    return _version(draft.claim, draft.value, draft.notes)


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
def answers_save(*, candidate: Candidate, drafts: Sequence[AnswerDraft], by) -> AnswersSaved:
    """Save every draft that differs from the stored answer (each change recorded as ``by``'s
    in History) with its attachment, then re-verify the candidate once.

    A draft whose ``base_version`` is no longer the stored one is never written over the newer
    answer: if the writer changed that item too it is a conflict (refused, reported with the
    stored answer); if the writer left it as loaded, the stored answer stays (refreshed). The
    other items are saved; when any item conflicts, no attachment is kept (the writer sends
    them again with the resolved save).

    All or nothing otherwise: a refused attachment (ValidationError) leaves every answer as it
    was."""
    # One writer per candidate at a time: an autosave and a "Save all" never interleave, and
    # the versions compared below cannot change before this transaction ends; refused once
    # the evaluation is decided (a decision being recorded waits, or this sees it).
    candidate_lock_open(candidate.pk)
    stored = {a.item_id: a for a in Answer.objects.filter(candidate=candidate)}
    result = AnswersSaved()
    to_save: list[AnswerDraft] = []
    for draft in drafts:
        answer = stored.get(draft.item.pk)
        now = answer_version(answer)
        if draft.base_version is None or draft.base_version == now:
            to_save.append(draft)
            continue
        mine = draft_version(draft)
        if mine == draft.base_version:
            # Left as loaded: someone else's newer answer stays; an attachment still goes on it.
            result.refreshed.append(draft.item.pk)
            if draft.attachment:
                to_save.append(_keeping(answer, draft))
        elif mine == now:
            # Both wrote the same thing: nothing to decide.
            if draft.attachment:
                to_save.append(draft)
        else:
            result.conflicts.append(AnswerConflict(draft=draft, current=answer, version=now))
    if result.conflicts:
        to_save = [_without_attachment(d) for d in to_save]
    kept: list = []
    try:
        _save_drafts(candidate, to_save, stored, by, result.changed, kept)
    except Exception:
        # The rows roll back; the files written before the failure must go with them.
        for attachment in kept:
            attachment.file.delete(save=False)
        raise
    if result.changed:
        candidate_refresh(candidate_id=candidate.pk)
    for answer in Answer.objects.filter(candidate=candidate):
        stored[answer.item_id] = answer
    result.versions = {d.item.pk: answer_version(stored.get(d.item.pk)) for d in drafts}
    return result


def _keeping(answer: Answer | None, draft: AnswerDraft) -> AnswerDraft:
    """``draft`` with the stored texts instead of its own (only its attachment is new)."""
    if answer is None:
        return AnswerDraft(
            item=draft.item, claim="", value=None, notes="", attachment=draft.attachment
        )
    return AnswerDraft(
        item=draft.item,
        claim=answer.claim,
        value=answer.value,
        notes=answer.notes,
        attachment=draft.attachment,
    )


def _without_attachment(draft: AnswerDraft) -> AnswerDraft:
    if not draft.attachment:
        return draft
    return AnswerDraft(
        item=draft.item,
        claim=draft.claim,
        value=draft.value,
        notes=draft.notes,
        base_version=draft.base_version,
    )


def _save_drafts(candidate, drafts, stored, by, changed, kept) -> None:
    for draft in drafts:
        answer = stored.get(draft.item.pk)
        if _unchanged(answer, draft):
            continue
        if answer is None:
            answer = Answer(candidate=candidate, item=draft.item)
        answer_write(answer, claim=draft.claim.strip(), value=draft.value, notes=draft.notes, by=by)
        if draft.attachment:
            kept.append(answer_attachment_add(answer=answer, uploaded_file=draft.attachment, by=by))
        changed.append(answer)
