"""Procurement pages of an evaluation itself: create it, edit its requirements, manage who
is a member with which role. Writes go through the services; the audit trail names the user."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from ..forms import refuse_stale, sent_before, sent_record, sent_version
from ..forms_procurement import (
    EvaluationEditForm,
    MemberAddForm,
    MemberRoleForm,
    add_service_error,
)
from ..models import REQUIREMENT_FIELDS, EvaluationStatus, Membership, Role
from ..permissions import CAN_EDIT, CAN_VIEW
from ..services.errors import EvaluationDecided, StaleCopy
from ..services.evaluations import (
    evaluation_create,
    evaluation_update,
    member_add,
    member_remove,
    member_role_set,
)
from .common import form_status, member_evaluation, require_evaluation_creator, require_form_methods


@login_required
@require_form_methods
def evaluation_create_view(request: HttpRequest) -> HttpResponse:
    """A new evaluation (procurement in any evaluation, or staff); its creator becomes its
    procurement member and it starts with its workload's preset weights."""
    require_evaluation_creator(request)
    form = EvaluationEditForm(request.POST or None, creating=True)
    if request.method == "POST" and (done := sent_before(request, form)):
        messages.info(
            request,
            _(
                "This page was sent before and the evaluation created then: here it is. "
                "Nothing new was created."
            ),
        )
        return redirect(done)
    if request.method == "POST" and form.is_valid():
        try:
            evaluation = evaluation_create(fields=form.cleaned_data, by=request.user)
        except ValidationError as exc:
            add_service_error(form, exc)
        else:
            messages.success(
                request, _("Evaluation “%(name)s” created.") % {"name": evaluation.name}
            )
            url = reverse("evaluation-detail", args=[evaluation.pk])
            sent_record(request, form, url)
            return redirect(url)
    return render(
        request,
        "portal/evaluation_form.html",
        {"form": form, "evaluation": None},
        status=form_status(form),
    )


@login_required
@require_form_methods
def evaluation_edit_view(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk, CAN_EDIT)
    decided = evaluation.status == EvaluationStatus.DECIDED
    form = EvaluationEditForm(request.POST or None, instance=evaluation, with_status=not decided)
    if request.method == "POST" and decided:
        # Decided first: nothing sent could be saved, whatever its fields say (the 409 with
        # the input kept; the service refuses again under the row's lock).
        form.is_valid()
        form.add_error(None, EvaluationDecided())
    elif request.method == "POST" and form.is_valid():
        fields = list(REQUIREMENT_FIELDS)
        if "status" in form.cleaned_data:
            evaluation.status = form.cleaned_data["status"]
            fields.append("status")
        try:
            evaluation_update(
                evaluation=evaluation,
                by=request.user,
                fields=fields,
                expected_version=sent_version(form),
            )
        except StaleCopy as exc:
            refuse_stale(form, exc)
        except ValidationError as exc:
            add_service_error(form, exc)
        else:
            messages.success(request, _("Requirements saved; every candidate was rescored."))
            return redirect("evaluation-detail", pk=evaluation.pk)
    context = {"form": form, "evaluation": evaluation, "membership": membership}
    return render(request, "portal/evaluation_form.html", context, status=form_status(form))


@login_required
@require_form_methods
def evaluation_members_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Every member reads the list; procurement adds members, changes roles, removes them."""
    evaluation, membership = member_evaluation(request, pk, CAN_VIEW)
    can_edit = membership.role in CAN_EDIT
    add_form = MemberAddForm(prefix="add")
    errors: list[str] = []
    if request.method == "POST":
        member_evaluation(request, pk, CAN_EDIT)  # 403 for the other roles
        action = request.POST.get("action")
        try:
            if action == "add":
                add_form = MemberAddForm(request.POST, prefix="add")
                if add_form.is_valid():
                    member = member_add(
                        evaluation=evaluation,
                        user=add_form.cleaned_data["username"],
                        role=add_form.cleaned_data["role"],
                        by=request.user,
                    )
                    messages.success(
                        request,
                        _("%(user)s is now a member as %(role)s.")
                        % {"user": member.user.get_username(), "role": member.get_role_display()},
                    )
                    return redirect("evaluation-members", pk=evaluation.pk)
            elif action in ("role", "remove"):
                # A forged id (not a number, or too long for a row id) is a member not found.
                posted = request.POST.get("member", "")
                member = get_object_or_404(
                    Membership.objects.select_related("user"),
                    pk=int(posted) if posted.isdigit() and len(posted) < 19 else 0,
                    evaluation=evaluation,
                )
                if action == "remove":
                    member_remove(membership=member, by=request.user)
                    messages.success(
                        request,
                        _("%(user)s no longer has access.") % {"user": member.user.get_username()},
                    )
                else:
                    role_form = MemberRoleForm(request.POST)
                    if not role_form.is_valid():
                        raise ValidationError(
                            [m for field in role_form.errors.values() for m in field]
                        )
                    member_role_set(
                        membership=member, role=role_form.cleaned_data["role"], by=request.user
                    )
                    messages.success(request, _("Role changed."))
                return redirect("evaluation-members", pk=evaluation.pk)
        except ValidationError as exc:
            if action == "add":
                add_service_error(add_form, exc)
            else:
                errors = exc.messages
    members = (
        Membership.objects.filter(evaluation=evaluation)
        .select_related("user")
        .order_by("role", "user__username")
    )
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "members": members,
        "roles": Role.choices,
        "can_edit": can_edit,
        "add_form": add_form,
        "errors": errors,
    }
    status = 422 if errors else form_status(add_form)
    return render(request, "portal/evaluation_members.html", context, status=status)
