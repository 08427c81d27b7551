"""Domain errors the services raise; pages show their message, the API maps them to a status."""

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


class EvaluationDecided(ValidationError):
    """The evaluation is decided: nothing in it may change until a manager reopens it.

    A ValidationError, so forms show it like any refused input (with its code, CODE, which
    views.common.form_status answers 409 for); the API answers 409."""

    CODE = "evaluation_decided"

    def __init__(self, message: str | None = None):
        super().__init__(
            message
            or _(
                "This evaluation is decided; it can no longer be changed. A manager can "
                "reopen it, with a reason."
            ),
            code=self.CODE,
        )


def ensure_not_decided(evaluation, *, share_lock: bool = False) -> None:
    """Raise EvaluationDecided when ``evaluation`` is decided (read from the database, so a
    stale instance cannot slip through).

    ``share_lock`` (inside a transaction) keeps the row key-share locked until the caller
    commits (services.locks): a decision being recorded (it locks the row for update) either
    commits first, and this sees it, or waits for the caller's write, and sees that. Writers
    holding such locks do not wait for each other."""
    from ..models import Evaluation, EvaluationStatus

    if share_lock:
        from .locks import evaluation_key_share

        status = evaluation_key_share(evaluation.pk)
    else:
        status = (
            Evaluation.objects.filter(pk=evaluation.pk).values_list("status", flat=True).first()
        )
    if status == EvaluationStatus.DECIDED or evaluation.status == EvaluationStatus.DECIDED:
        raise EvaluationDecided()


class StaleCopy(ValidationError):
    """What the writer loaded is no longer what is stored: someone saved since (the version
    the writer sent is not the stored one, compared under the row's lock). Nothing is written.

    ``version`` is the version stored now, so that saving again is a choice made knowingly;
    ``current`` is what is stored now (the locked row), for a page to name it. The API
    answers 409 with the version."""

    def __init__(
        self,
        version: str,
        *,
        current: Any = None,
        message: str | None = None,
        code: str = "stale_copy",
    ):
        self.version = version
        self.current = current
        super().__init__(
            message
            or _(
                "Someone saved this form after you opened it, so nothing was saved. Your input "
                "is kept below: save again to replace theirs, or reload the page to see it."
            ),
            code=code,
        )


def ensure_current(*, stored: str, expected: str | None, current: Any = None) -> None:
    """Raise StaleCopy when the writer named a version (``expected``) other than the one
    ``stored`` now; a writer that names none (a script) is not checked. Call it on a row
    locked for update, so that the version cannot move before the write commits."""
    if expected is not None and expected != stored:
        raise StaleCopy(stored, current=current)


class AnswerChanged(StaleCopy):
    """The answer changed since the writer read it (its version is not the one the writer
    named): nothing is written; the API answers 409 with the version now stored."""

    def __init__(self, version: str):
        super().__init__(
            version,
            message=_(
                "This answer changed since you read it: read it again (its version is now "
                "%(version)s), then send your change with that version."
            )
            % {"version": version},
            code="answer_changed",
        )
