"""Reviews of document-backed answers by a second member, and the quoted cost against the TCO."""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from ..models import (
    DOCUMENT_ITEMS,
    Answer,
    AnswerReview,
    Candidate,
    Membership,
    ReviewVerdict,
    Role,
)
from .answers import answer_version
from .errors import ensure_current
from .evaluations import _with_history_user
from .locks import candidate_lock_open
from .scores import candidate_refresh
from .text import clean_note
from .versions import values_version

REVIEWER_ROLES = frozenset({Role.PROCUREMENT, Role.ENGINEER, Role.MANAGER})
# The vendor's stated monthly cost agrees with the computed TCO within this fraction.
COST_TOLERANCE = Decimal("0.10")


def review_version(answer: Answer, review: AnswerReview | None) -> str:
    """The version of an answer and its review as a reviewer loaded them: a review of a claim
    changed since, or over someone else's newer review, is refused."""
    return values_version(
        [answer_version(answer), review.verdict if review else "", review.note if review else ""]
    )


def _claim_authors(answer: Answer) -> set[int]:
    """The members whose work a review of ``answer`` reads: whoever wrote the claim as it
    stands (the last editor on rows from before that was kept) and whoever attached a document.
    A member who only edited the notes since is not among them, nor is a re-save that changed
    nothing (answer_save records none)."""
    author = answer.claim_by_id if answer.claim_by_id is not None else answer.updated_by_id
    authors = set(
        answer.attachments.exclude(uploaded_by=None).values_list("uploaded_by", flat=True)
    )
    if author is not None:
        authors.add(author)
    return authors


@transaction.atomic
def answer_review(
    *, answer: Answer, verdict: str, note: str, by, expected_version: str | None = None
) -> AnswerReview:
    """Record ``by``'s verdict (verified or contradicted, with a note) on a document-backed
    answer and re-verify the candidate. The reviewer must be a member other than the one who
    wrote the claim under review or attached its documents (``_claim_authors``): a later
    notes-only edit by someone else does not make its author a reviewer; refused on a decided
    evaluation.

    The answer is read again under the candidate's lock (the one answer_save takes), so the
    claim recorded as reviewed is the one stored. With ``expected_version`` (``review_version``
    as the reviewer loaded them), an answer or a review changed since is not overwritten:
    StaleCopy, whose ``current`` is the answer as stored now."""
    candidate = answer.candidate
    # The lock answer_save takes, taken the same way (so two writers cannot lock in opposite
    # orders): the answer and its review cannot change before this review commits.
    candidate_lock_open(candidate.pk)
    answer = Answer.objects.select_related("item", "candidate").get(pk=answer.pk)
    membership = Membership.objects.filter(evaluation=candidate.evaluation, user=by).first()
    if membership is None or membership.role not in REVIEWER_ROLES:
        raise PermissionDenied(_("Your role in this evaluation does not allow reviewing answers."))
    review = AnswerReview.objects.filter(answer=answer).first()
    ensure_current(stored=review_version(answer, review), expected=expected_version, current=answer)
    if answer.item.key not in DOCUMENT_ITEMS:
        raise ValidationError(_("Only items backed by documents are reviewed by a member."))
    if by.pk in _claim_authors(answer):
        raise ValidationError(
            _(
                "A second member reviews an answer: you wrote this claim or attached its "
                "documents, so someone else must."
            )
        )
    if not answer.claim.strip() and answer.value in (None, ""):
        raise ValidationError(_("The item is not answered yet; there is nothing to review."))
    if verdict not in ReviewVerdict.values:
        raise ValidationError(_("Choose verified or contradicted."))
    note = clean_note(note)
    if not note:
        raise ValidationError(_("A review needs a note saying what the document shows."))
    review = review or AnswerReview(answer=answer)
    review.verdict = verdict
    review.note = note
    review.claim_reviewed = answer.claim
    review.value_reviewed = answer.value
    review.reviewed_by = by
    _with_history_user(review, by).save()
    candidate_refresh(candidate_id=candidate.pk)
    review.refresh_from_db()
    return review


@dataclass(frozen=True)
class CostCheck:
    """The vendor's stated monthly cost (item 9) against the computed TCO's monthly figure."""

    stated: Decimal
    computed: Decimal
    billing_model: str
    currency: str
    difference_pct: Decimal
    within_tolerance: bool
    tolerance_pct: Decimal = COST_TOLERANCE * 100


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def _number(value) -> Decimal | None:
    """A typed number, or the first number in a free-text claim ("Approx. 890,000 CNY")."""
    if value is None:
        return None
    if not isinstance(value, int | float | Decimal):
        match = _NUMBER.search(str(value))
        if match is None:
            return None
        value = match.group(0)
    try:
        number = Decimal(str(value).replace(",", ""))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def monthly_cost_check(*, candidate: Candidate, answer: Answer | None, tco) -> CostCheck | None:
    """Compare item 9 with the monthly cost of the recommended billing model (None when
    either side is missing)."""
    if answer is None or tco is None:
        return None
    stated = _number(answer.value if answer.value not in (None, "") else answer.claim)
    model = next((m for m in tco.models if m.billing_model == tco.recommended), None)
    if stated is None or model is None or not model.monthly:
        return None
    computed = Decimal(model.monthly)
    difference = (stated - computed) / computed
    return CostCheck(
        stated=stated,
        computed=computed.quantize(Decimal("1")),
        billing_model=model.billing_model,
        currency=model.currency,
        difference_pct=(difference * 100).quantize(Decimal("0.1")),
        within_tolerance=abs(difference) <= COST_TOLERANCE,
    )
