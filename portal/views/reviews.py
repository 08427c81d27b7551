"""The review page: a second member checks document-backed answers with the attachments open."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from .. import selectors
from ..forms import AnswerForm, LongTextarea, loaded_version_field, refuse_stale, sent_version
from ..models import DOCUMENT_ITEMS, Answer, AnswerReview, ChecklistItem, EvaluationStatus
from ..services.errors import EvaluationDecided, StaleCopy
from ..services.reviews import REVIEWER_ROLES, answer_review, monthly_cost_check, review_version
from .common import form_status, member_candidate, require_form_methods


class ReviewForm(forms.Form):
    verdict = forms.ChoiceField(
        label=gettext_lazy("Verdict"),
        choices=[
            ("verified", gettext_lazy("Verified: the document supports the claim")),
            ("contradicted", gettext_lazy("Contradicted: the document says otherwise")),
        ],
        widget=forms.RadioSelect,
    )
    note = forms.CharField(
        label=gettext_lazy("Note"),
        widget=LongTextarea(attrs={"rows": 3}),
        max_length=5000,
        help_text=gettext_lazy("What the document shows: its title, date, page, clause."),
    )
    # The answer and its review as the page showed them: a review of a claim changed since,
    # or over someone else's newer review, is refused with the input kept.
    loaded_version = loaded_version_field()


def review_prefix(number: int) -> str:
    """Each item's form on the page has its own field names and element ids (``review-9-note``):
    a label of one item's form never points at another's input."""
    return f"review-{number}"


@login_required
@require_form_methods
def candidate_review(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk)
    items = ChecklistItem.objects.filter(key__in=DOCUMENT_ITEMS).order_by("number")
    answers = {
        a.item_id: a
        for a in Answer.objects.filter(candidate=candidate, item__in=items)
        .select_related("item", "updated_by")
        .prefetch_related("attachments")
    }
    reviews = {
        r.answer_id: r
        for r in AnswerReview.objects.filter(answer__in=answers.values()).select_related(
            "reviewed_by"
        )
    }
    decided = evaluation.status == EvaluationStatus.DECIDED
    posted_number = None
    bound = None
    if request.method == "POST":
        # The role first: a reviewer is told that the evaluation is decided, with the input
        # kept, not that the role forbids it.
        if membership.role not in REVIEWER_ROLES:
            raise PermissionDenied(
                _("Your role in this evaluation does not allow reviewing answers.")
            )
        posted_number = (
            int(request.POST.get("item") or 0) if str(request.POST.get("item", "")).isdigit() else 0
        )
        item = get_object_or_404(items, number=posted_number)
        answer = answers.get(item.pk)
        bound = ReviewForm(request.POST, prefix=review_prefix(posted_number))
        if decided:
            bound.add_error(None, EvaluationDecided().messages[0])
        elif answer is None:
            bound.add_error(None, _("The item is not answered yet; there is nothing to review."))
        elif bound.is_valid():
            try:
                answer_review(
                    answer=answer,
                    verdict=bound.cleaned_data["verdict"],
                    note=bound.cleaned_data["note"],
                    by=request.user,
                    expected_version=sent_version(bound),
                )
            except StaleCopy as exc:
                # Named as stored now: the answer the service read under the candidate's lock.
                refuse_stale(bound, exc, AnswerForm(item=item, answer=exc.current).display_claim())
            except EvaluationDecided as exc:
                # A decision recorded since the page was read (the service reads it locked).
                decided = True
                bound.add_error(None, exc.messages[0])
            except ValidationError as exc:
                for message in exc.messages:
                    bound.add_error(None, message)
            else:
                messages.success(request, _("The review is recorded."))
                return redirect("candidate-review", pk, candidate_pk)
    may_review = membership.role in REVIEWER_ROLES and not decided
    ranking, _none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    result = next((r for r in ranking.results if r.candidate_id == candidate.pk), None)
    zh = get_language() == "zh-hans"
    rows = []
    cost_check = None
    for item in items:
        answer = answers.get(item.pk)
        review = reviews.get(answer.pk) if answer else None
        if item.key == "monthly_cost":
            cost_check = monthly_cost_check(
                candidate=candidate, answer=answer, tco=result.tco if result else None
            )
        form = bound if bound is not None and posted_number == item.number else None
        if form is None and answer is not None:
            form = ReviewForm(
                initial={
                    **({"verdict": review.verdict, "note": review.note} if review else {}),
                    "loaded_version": review_version(answer, review),
                },
                prefix=review_prefix(item.number),
            )
        rows.append(
            {
                "item": item,
                "title": item.title_zh if zh else item.title_en,
                "answer": answer,
                "review": review,
                "review_current": bool(review and review.applies_to(answer)),
                "edited_by_me": bool(answer and answer.updated_by_id == request.user.pk),
                "form": form,
            }
        )
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "rows": rows,
        "may_review": may_review,
        "decided": decided,
        "cost_check": cost_check,
    }
    # A decided evaluation's refusal is a 409, as the decided page of other writes.
    status = 409 if bound is not None and decided else form_status(bound)
    return render(request, "portal/candidate_review.html", context, status=status)
