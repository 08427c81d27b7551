"""Candidate management pages: procurement adds, edits and removes an evaluation's candidates."""

from decimal import Decimal

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from ..forms import labelled, refuse_stale, sent_version
from ..forms_procurement import CandidateEditForm, add_service_error
from ..permissions import CAN_EDIT
from ..services.errors import EvaluationDecided, StaleCopy
from ..services.evaluations import candidate_add, candidate_remove, candidate_update
from .common import form_status, member_candidate, member_evaluation, require_form_methods


@login_required
@require_form_methods
def candidate_create(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk, CAN_EDIT)
    form = CandidateEditForm(
        request.POST if request.method == "POST" else None, evaluation=evaluation
    )
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            candidate = candidate_add(
                evaluation=evaluation,
                offering=data["offering"],
                node_count=data["node_count"],
                quoted_billing_model=data["quoted_billing_model"],
                quoted_price_per_gpu=data["quoted_price_per_gpu"],
                notes=data["notes"],
                by=request.user,
            )
        except ValidationError as exc:
            add_service_error(form, exc)
        else:
            messages.success(request, _("Candidate “%(name)s” added.") % {"name": candidate})
            return redirect("evaluation-detail", pk=evaluation.pk)
    context = {"evaluation": evaluation, "membership": membership, "form": form}
    return render(request, "portal/candidate_form.html", context, status=form_status(form))


def _stored_now(form, stored) -> str:
    """The candidate as stored now, each field named as the form labels it and shown as its
    inputs show it (a choice by its label)."""
    parts = []
    for name in ("offering", "node_count", "quoted_billing_model", "quoted_price_per_gpu", "notes"):
        field = form.fields[name]
        value = getattr(stored, name)
        if name == "quoted_billing_model":
            value = dict(field.choices).get(value, value) if value else ""
        elif isinstance(value, Decimal):
            value = field.widget.format_value(value)  # as the input shows it: "12000"
        if value in ("", None):
            value = "—"
        parts.append(labelled(field.label, value))
    return " · ".join(parts)


@login_required
@require_form_methods
def candidate_edit(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    form = CandidateEditForm(
        request.POST if request.method == "POST" else None,
        instance=candidate,
        evaluation=evaluation,
    )
    if request.method == "POST" and form.is_valid():
        try:
            candidate = candidate_update(
                candidate=form.instance, by=request.user, expected_version=sent_version(form)
            )
        except StaleCopy as exc:
            refuse_stale(form, exc, _stored_now(form, exc.current))
        except ValidationError as exc:
            add_service_error(form, exc)
        else:
            messages.success(request, _("Candidate “%(name)s” saved.") % {"name": candidate})
            return redirect("evaluation-detail", pk=evaluation.pk)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "form": form,
    }
    return render(request, "portal/candidate_form.html", context, status=form_status(form))


@login_required
@require_form_methods
def candidate_delete(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    errors: list[str] = []
    decided = False
    if request.method == "POST":
        name = str(candidate)
        try:
            candidate_remove(candidate=candidate, by=request.user)
        except ValidationError as exc:
            errors = exc.messages
            decided = isinstance(exc, EvaluationDecided)
        else:
            messages.success(request, _("Candidate “%(name)s” removed.") % {"name": name})
            return redirect("evaluation-detail", pk=evaluation.pk)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "errors": errors,
        "answer_count": candidate.answers.count(),
        "upload_count": candidate.uploads.count(),
        "token_count": candidate.upload_tokens.count(),
    }
    # Decided: the 409 every decided refusal answers (form_status), else 422.
    status = 409 if decided else 422 if errors else 200
    return render(request, "portal/candidate_confirm_remove.html", context, status=status)
