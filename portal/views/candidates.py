"""Candidate pages: explanation of the scores, claims against measurements, the questionnaire
and the evidence of one candidate."""

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import FileResponse, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from ..models import (
    Answer,
    AnswerAttachment,
    AnswerType,
    ChecklistItem,
    Dimension,
    EvidenceUpload,
    Measurement,
    UploadStatus,
    VerificationStatus,
)
from ..permissions import CAN_EDIT, CAN_UPLOAD
from ..services.evaluations import answer_attachment_add, answer_save
from .common import member_candidate, member_evaluation

MEASUREMENTS_SHOWN = 300
# Newest uploads listed on a page; the rest are one API call away (uploads/ in the API).
UPLOADS_SHOWN = 100


def _uploads_shown(candidate) -> tuple[list[EvidenceUpload], int]:
    """The candidate's newest uploads without their report JSON (loaded per upload, when
    asked for) and how many uploads the candidate has."""
    uploads = list(
        candidate.uploads.select_related("uploaded_by")
        .defer("report")
        .order_by("-created_at", "-pk")[:UPLOADS_SHOWN]
    )
    total = len(uploads)
    if total == UPLOADS_SHOWN:
        total = candidate.uploads.count()
    return uploads, total


def _upload_context(evaluation, candidate) -> dict:
    uploads, total = _uploads_shown(candidate)
    busy = candidate.uploads.filter(
        status__in=(UploadStatus.QUEUED, UploadStatus.PROCESSING)
    ).exists()
    return {
        "evaluation": evaluation,
        "candidate": candidate,
        "uploads": uploads,
        "uploads_total": total,
        "uploads_hidden": total - len(uploads),
        "busy": busy,
    }


@login_required
def candidate_detail(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk)
    scores = {s.dimension: s for s in candidate.scores.all()}
    answers = {a.item_id: a for a in candidate.answers.select_related("item")}
    verification = candidate.verification or {}
    verdicts = verification.get("items") or {}
    # One row past the page says whether there are more, without counting them all.
    measurements = list(
        Measurement.objects.filter(candidate=candidate)
        .defer("details")
        .order_by("kind", "node_name", "metric", "line", "pk")[: MEASUREMENTS_SHOWN + 1]
    )
    more = len(measurements) > MEASUREMENTS_SHOWN
    measurements = measurements[:MEASUREMENTS_SHOWN]
    items = [
        {"item": item, "answer": answers.get(item.pk), "verdict": verdicts.get(item.key)}
        for item in ChecklistItem.objects.order_by("number")
    ]
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "offering": candidate.offering,
        "dimensions": [{"dimension": d, "score": scores.get(d.value)} for d in Dimension],
        "items": items,
        "bare_metal": verification.get("bare_metal") or {},
        "busbw": verification.get("busbw") or {},
        "faults": verification.get("faults") or [],
        "measured": verification.get("measured") or {},
        "measurements": measurements,
        "measurements_more": more,
        "measurements_shown": MEASUREMENTS_SHOWN,
        "can_edit": membership.role in CAN_EDIT,
        "can_upload": membership.role in CAN_UPLOAD,
        **_upload_context(evaluation, candidate),
        # Candidate pages poll only on the upload page.
        "busy": False,
    }
    return render(request, "portal/candidate_detail.html", context)


class AnswerForm(forms.Form):
    """One checklist item's answer; the claim's input follows the item's answer type."""

    claim = forms.CharField(
        label=gettext_lazy("Claim"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    notes = forms.CharField(
        label=gettext_lazy("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 2})
    )
    attachment = forms.FileField(
        label=gettext_lazy("Attach a document"),
        required=False,
        help_text=gettext_lazy("For example the vendor's SLA or a certificate (up to 20 MiB)."),
    )

    def __init__(self, *args, item: ChecklistItem, **kwargs):
        self.item = item
        super().__init__(*args, prefix=f"item-{item.number}", **kwargs)
        if item.answer_type == AnswerType.NUMBER:
            self.fields["claim"] = forms.DecimalField(
                label=_("Claim"), required=False, min_value=0, max_digits=14, decimal_places=2
            )
        elif item.answer_type == AnswerType.CHOICE:
            self.fields["claim"] = forms.ChoiceField(
                label=_("Claim"),
                required=False,
                choices=[("", "—"), *[(c, c) for c in item.choices]],
            )
        elif item.answer_type == AnswerType.BOOLEAN:
            self.fields["claim"] = forms.ChoiceField(
                label=_("Claim"),
                required=False,
                choices=[("", "—"), ("yes", _("Yes")), ("no", _("No"))],
            )
        self.fields["claim"].help_text = item.help_zh if _is_zh() else item.help_en


def _is_zh() -> bool:
    from django.utils.translation import get_language

    return (get_language() or "").startswith("zh")


def _initial(answer: Answer | None) -> dict:
    if answer is None:
        return {}
    claim = answer.value if answer.value not in (None, "") else answer.claim
    return {"claim": claim, "notes": answer.notes}


def _progress(candidate) -> int:
    return candidate.answers.exclude(status=VerificationStatus.UNANSWERED).count()


@login_required
def questionnaire(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk)
    answers = {a.item_id: a for a in candidate.answers.prefetch_related("attachments")}
    entries = [
        {
            "item": item,
            "answer": answers.get(item.pk),
            "form": AnswerForm(item=item, initial=_initial(answers.get(item.pk))),
        }
        for item in ChecklistItem.objects.order_by("number")
    ]
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "entries": entries,
        "answered": _progress(candidate),
        "total": len(entries),
        "can_edit": membership.role in CAN_EDIT and evaluation.status != "decided",
    }
    return render(request, "portal/questionnaire.html", context)


@login_required
@require_POST
def answer_update(request: HttpRequest, pk: int, candidate_pk: int, number: int) -> HttpResponse:
    """Save one answer (a draft: any subset of items may be answered); htmx swaps the entry."""
    evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    item = get_object_or_404(ChecklistItem, number=number)
    form = AnswerForm(request.POST, request.FILES, item=item)
    saved = False
    if form.is_valid():
        claim = form.cleaned_data["claim"]
        value = None
        if item.answer_type == AnswerType.NUMBER and claim is not None:
            value = str(claim)
        elif item.answer_type in (AnswerType.CHOICE, AnswerType.BOOLEAN) and claim:
            value = claim
        try:
            with transaction.atomic():
                answer = answer_save(
                    candidate=candidate,
                    item=item,
                    by=request.user,
                    claim="" if claim is None else str(claim),
                    value=value,
                    notes=form.cleaned_data["notes"],
                )
                if form.cleaned_data.get("attachment"):
                    answer_attachment_add(
                        answer=answer,
                        uploaded_file=form.cleaned_data["attachment"],
                        by=request.user,
                    )
            saved = True
        except ValidationError as exc:
            errors = exc.message_dict if hasattr(exc, "error_dict") else {None: exc.messages}
            for field, messages_ in errors.items():
                form.add_error(field if field in form.fields else None, messages_)
    answer = Answer.objects.filter(candidate=candidate, item=item).first()
    context = {
        "evaluation": evaluation,
        "candidate": candidate,
        "entry": {"item": item, "answer": answer, "form": form},
        "saved": saved,
        "answered": _progress(candidate),
        "total": ChecklistItem.objects.count(),
        "can_edit": True,
    }
    status = 200 if saved or not form.errors else 422
    if request.headers.get("HX-Request"):
        return render(request, "portal/_answer_entry.html", context, status=status)
    return (
        questionnaire(request, pk, candidate_pk)
        if saved
        else render(request, "portal/_answer_entry.html", context, status=status)
    )


@login_required
def evidence_page(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk, CAN_UPLOAD)
    context = {"membership": membership, **_upload_context(evaluation, candidate)}
    return render(request, "portal/evidence_upload.html", context)


@login_required
def upload_list(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    """The candidate's uploads with their status (polled by the upload page while busy)."""
    evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk)
    return render(request, "portal/_upload_list.html", _upload_context(evaluation, candidate))


@login_required
def upload_report(request: HttpRequest, pk: int, candidate_pk: int, upload_pk: int) -> HttpResponse:
    """One upload's per-file report (htmx fragment, loaded when the reader opens it)."""
    _evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk)
    upload = get_object_or_404(candidate.uploads.only("pk", "candidate_id", "report"), pk=upload_pk)
    return render(request, "portal/_upload_report.html", {"upload": upload})


@login_required
def upload_download(request: HttpRequest, pk: int, upload_pk: int) -> FileResponse:
    """The raw evidence exactly as received; members of the evaluation only."""
    evaluation, _membership = member_evaluation(request, pk)
    upload = get_object_or_404(EvidenceUpload, pk=upload_pk, candidate__evaluation=evaluation)
    response = FileResponse(
        upload.file.open("rb"),
        as_attachment=True,
        filename=upload.original_name,
        content_type="application/octet-stream",
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
def attachment_download(request: HttpRequest, pk: int, attachment_pk: int) -> FileResponse:
    """A document attached to an answer; members of the evaluation only."""
    evaluation, _membership = member_evaluation(request, pk)
    attachment = get_object_or_404(
        AnswerAttachment, pk=attachment_pk, answer__candidate__evaluation=evaluation
    )
    response = FileResponse(
        attachment.file.open("rb"),
        as_attachment=True,
        filename=attachment.original_name,
        content_type="application/octet-stream",
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response
