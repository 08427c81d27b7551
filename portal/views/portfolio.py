"""The portfolio page: the demand profile (workloads), buyer-side settings and the proposal."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from .. import portfolio_messages
from ..forms import loaded_version_field, refuse_stale, sent_version
from ..forms_procurement import add_service_error
from ..models import Evaluation, EvaluationStatus, Workload
from ..models.workloads import MAX_REQUIRED_GPU_MEMORY_GIB
from ..permissions import CAN_DECIDE, CAN_EDIT
from ..services.errors import StaleCopy
from ..services.portfolio import (
    PORTFOLIO_SETTING_FIELDS,
    WORKLOAD_FIELDS,
    evaluation_portfolio_settings_set,
    portfolio_decision_record,
    portfolio_propose,
    portfolio_settings_version,
    workload_create,
    workload_delete,
)
from .common import form_status, member_evaluation, require_form_methods


class WorkloadForm(forms.ModelForm):
    required_gpu_memory_gib = forms.IntegerField(
        label=gettext_lazy("GPU memory required (GiB)"),
        min_value=0,
        max_value=MAX_REQUIRED_GPU_MEMORY_GIB,
        required=False,
        help_text=gettext_lazy("Empty: the evaluation's requirement."),
    )

    def workload_fields(self) -> dict:
        data = dict(self.cleaned_data)
        memory = data.pop("required_gpu_memory_gib", None)
        data["requirements"] = {} if memory is None else {"required_gpu_memory_gib": memory}
        return data

    class Meta:
        model = Workload
        # The service's fields but the two JSON ones (weights follow the profile's preset; the
        # one requirement the page sets is the GPU memory above).
        fields = tuple(f for f in WORKLOAD_FIELDS if f not in ("weights", "requirements"))


class PortfolioSettingsForm(forms.ModelForm):
    # The settings as the page loaded them: a save over a newer save is refused, input kept.
    loaded_version = loaded_version_field()

    class Meta:
        model = Evaluation
        fields = PORTFOLIO_SETTING_FIELDS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Read before validation writes the posted values onto the instance.
        self.fields["loaded_version"].initial = portfolio_settings_version(self.instance)


class PortfolioDecisionForm(forms.Form):
    # As the decision page's rationale: NUL characters and runaway lengths are a form error.
    rationale = forms.CharField(max_length=20_000)


@login_required
@require_form_methods
def portfolio(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    can_edit = membership.role in CAN_EDIT and evaluation.status != EvaluationStatus.DECIDED
    workload_form = WorkloadForm(prefix="w")
    settings_form = PortfolioSettingsForm(instance=evaluation, prefix="s")
    decision_errors: list[str] = []
    unknown_action = decided_refused = False
    rationale = ""
    if request.method == "POST" and request.POST.get("action") == "record-portfolio":
        member_evaluation(request, pk, CAN_DECIDE)
        decision_form = PortfolioDecisionForm(request.POST)
        # Shown again as typed when the decision is refused.
        rationale = request.POST.get("rationale", "")
        try:
            if not decision_form.is_valid():
                raise ValidationError(
                    [m for messages_ in decision_form.errors.values() for m in messages_]
                )
            portfolio_decision_record(
                evaluation=evaluation,
                rationale=decision_form.cleaned_data["rationale"],
                by=request.user,
                assignment=_assignment(request.POST, evaluation),
            )
        except ValidationError as exc:
            decision_errors = exc.messages
        else:
            messages.success(request, _("The portfolio is recorded as the decision."))
            return redirect("evaluation-decision", pk=pk)
    elif request.method == "POST" and evaluation.status == EvaluationStatus.DECIDED:
        # Decided first, whatever was sent: the page says so (the 409 every decided refusal
        # answers); the services refuse again under the row's lock.
        member_evaluation(request, pk, CAN_EDIT)
        decided_refused = True
    elif request.method == "POST":
        member_evaluation(request, pk, CAN_EDIT)
        action = request.POST.get("action")
        try:
            if action == "add-workload":
                workload_form = WorkloadForm(request.POST, prefix="w")
                if workload_form.is_valid():
                    workload_create(
                        evaluation=evaluation, by=request.user, **workload_form.workload_fields()
                    )
                    messages.success(request, _("Workload added."))
                    return redirect("evaluation-portfolio", pk=pk)
            elif action == "delete-workload":
                posted = request.POST.get("workload", "")
                workload = get_object_or_404(
                    Workload,
                    pk=int(posted) if posted.isdigit() and len(posted) < 19 else 0,
                    evaluation=evaluation,
                )
                workload_delete(workload=workload, by=request.user)
                messages.success(request, _("Workload removed."))
                return redirect("evaluation-portfolio", pk=pk)
            elif action == "settings":
                settings_form = PortfolioSettingsForm(
                    request.POST, instance=Evaluation.objects.get(pk=pk), prefix="s"
                )
                if settings_form.is_valid():
                    evaluation_portfolio_settings_set(
                        evaluation=evaluation,
                        by=request.user,
                        expected_version=sent_version(settings_form),
                        **{f: settings_form.cleaned_data[f] for f in PORTFOLIO_SETTING_FIELDS},
                    )
                    messages.success(request, _("Portfolio settings saved."))
                    return redirect("evaluation-portfolio", pk=pk)
            else:
                # A post naming no known action (a stale page, a script): said, nothing done.
                unknown_action = True
                messages.error(request, _("Nothing was done: the form sent no known action."))
        except StaleCopy as exc:
            refuse_stale(settings_form, exc)
        except ValidationError as exc:
            add_service_error(settings_form if action == "settings" else workload_form, exc)
    lang_zh = (get_language() or "").startswith("zh")
    proposal = portfolio_propose(evaluation=evaluation, lang_zh=lang_zh)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "can_edit": can_edit,
        "workloads": evaluation.workloads.all(),
        "workload_form": workload_form,
        "settings_form": settings_form,
        "proposal": proposal,
        "rows": _rows(proposal, lang_zh) if proposal else None,
        "lang_zh": lang_zh,
        "can_decide": membership.role in CAN_DECIDE
        and evaluation.status != EvaluationStatus.DECIDED,
        "decision_errors": decision_errors,
        "rationale": rationale,
    }
    if decided_refused:
        status = 409
    elif unknown_action:
        status = 400
    elif decision_errors:
        status = 422
    else:
        status = form_status(workload_form, settings_form)
    return render(request, "portal/evaluation_portfolio.html", context, status=status)


def _assignment(post, evaluation) -> dict[str, tuple[str, str | None]] | None:
    """``assign-<workload pk>`` = ``<candidate pk>:<billing model>`` per workload; None when
    the form keeps the proposal (every field empty)."""
    chosen = {}
    for workload in evaluation.workloads.all():
        value = (post.get(f"assign-{workload.pk}") or "").strip()
        if value:
            candidate, _sep, billing = value.partition(":")
            chosen[workload.name] = (candidate, billing or None)
    if not chosen:
        return None
    if len(chosen) != evaluation.workloads.count():
        raise ValidationError(_("Choose a candidate for every workload, or keep the proposal."))
    return chosen


def _rows(proposal, lang_zh: bool):
    """Table rows: per workload, the proposal's line beside the single choice's line; the
    summary, risks and notes in the reader's language with money in its currency."""
    result = proposal.result
    currency = proposal.currency
    text = (lambda en, zh: zh) if lang_zh else (lambda en, zh: en)
    rows = []
    for view_workload in dict.fromkeys(o.workload for o in proposal.options) or ():
        proposed = result.proposal.line(view_workload) if result.proposal else None
        single = result.single.line(view_workload) if result.single else None
        rows.append(
            {
                "workload": view_workload,
                "proposed": proposed,
                "proposed_label": proposal.labels.get(proposed.candidate_id) if proposed else "",
                "single": single,
                "single_label": proposal.labels.get(single.candidate_id) if single else "",
            }
        )
    return {
        "lines": rows,
        "summary": portfolio_messages.summary(result, proposal.labels, currency),
        "risks": [portfolio_messages.risk_text(r, currency) for r in result.risks],
        "notes": [portfolio_messages.note_text(n, currency) for n in result.notes],
        "method": portfolio_messages.method_label(result.method),
        "unassignable": [
            (u.workload_id, text(u.reasons_en, u.reasons_zh)) for u in result.unassignable
        ],
    }
