"""The POC plan page: procurement sets the deadline, the fleet sample and each candidate's node
names; every member reads the plan and each candidate's coverage."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring import poc as plan_rules

from ..forms import loaded_version_field, refuse_stale, sent_version
from ..forms_procurement import add_service_error
from ..models import EvaluationStatus, PocCandidateNodes, PocPlan
from ..permissions import CAN_EDIT
from ..services.errors import EvaluationDecided, StaleCopy
from ..services.poc import poc_plan_save, poc_plan_version, stored_coverage
from .common import form_status, member_evaluation, require_form_methods
from .display import poc_note

STATUS_LABELS = {
    plan_rules.COVERED: gettext_lazy("covered"),
    plan_rules.PENDING: gettext_lazy("pending"),
    plan_rules.FAILED: gettext_lazy("failed"),
}
RUN_LABELS = {
    plan_rules.NCCL_ONE_NODE: gettext_lazy("one-node all_reduce (nccl-tests)"),
    plan_rules.NCCL_MULTI_ALL_REDUCE: gettext_lazy("multi-node all_reduce (nccl-tests)"),
    plan_rules.NCCL_MULTI_ALLTOALL: gettext_lazy("multi-node alltoall (nccl-tests)"),
    plan_rules.IB_WRITE_BW: gettext_lazy("ib_write_bw between two nodes"),
    plan_rules.DCGM_DIAG: gettext_lazy("dcgmi diag -r 3"),
    plan_rules.FIO_LOCAL_SEQ: gettext_lazy("fio sequential, local NVMe"),
    plan_rules.FIO_LOCAL_RAND: gettext_lazy("fio random, local NVMe"),
    plan_rules.FIO_SHARED_SEQ: gettext_lazy("fio sequential, shared file system"),
    plan_rules.FIO_SHARED_RAND: gettext_lazy("fio random, shared file system"),
    plan_rules.NVIDIA_SMI_Q: gettext_lazy("nvidia-smi -q"),
    plan_rules.INVENTORY: gettext_lazy("inventory (nvidia-smi -L)"),
}
FLEET_LABELS = {
    "nccl_busbw_gbyte_s": gettext_lazy("one-node all_reduce bus bandwidth (GB/s)"),
    "ib_write_bw_gbit_s": gettext_lazy("ib_write_bw average (Gbit/s)"),
    "fio_read_bw_mbyte_s": gettext_lazy("local fio read (MB/s)"),
}


def coverage_rows(coverage: dict, *, shared_path: str = "", gpus: int = 8) -> list[dict]:
    """The coverage (as stored, see services.poc) as the templates show it, with a command
    that would satisfy each run still open."""
    rows = []
    for run in coverage.get("runs") or ():
        status = run.get("status")
        if status not in STATUS_LABELS or run.get("kind") not in RUN_LABELS:
            continue
        where = run.get("node") or " ↔ ".join(run.get("peers") or ())
        if (run.get("min_nodes") or 1) > 1:
            where = _("at least %(n)s nodes") % {"n": run["min_nodes"]}
        required = plan_rules.RequiredRun(
            run["key"],
            run["kind"],
            node=run.get("node") or "",
            peers=tuple(run.get("peers") or ()),
            min_nodes=run.get("min_nodes") or 1,
        )
        command = plan_rules.suggested_command(required, shared_path=shared_path, gpus=gpus)
        rows.append(
            {
                "key": run["key"],
                "command": "" if status == plan_rules.COVERED else command,
                "label": RUN_LABELS[run["kind"]],
                "where": where,
                "status": status,
                "status_label": STATUS_LABELS[status],
                "evidence": run.get("evidence") or [],
                "missing_at_deadline": status == plan_rules.FAILED and not run.get("evidence"),
                "tool_failed": status == plan_rules.FAILED and bool(run.get("evidence")),
                # Why it failed, or what was set aside (a run on another GPU), worded from its
                # code in the reader's language.
                "note": poc_note({**run, "reason": plan_rules.RUN_FAILED})
                if run.get("note_code")
                else "",
            }
        )
    return rows


def fleet_rows(coverage: dict) -> list[dict]:
    return [
        {"label": FLEET_LABELS[key], **summary}
        for key, summary in (coverage.get("fleet") or {}).items()
        if key in FLEET_LABELS
    ]


def coverage_context(candidate, plan=None, *, lookup: bool = True) -> dict | None:
    """The coverage block of a candidate; ``plan`` is looked up unless ``lookup`` is False."""
    if plan is None and lookup:
        plan = PocPlan.objects.filter(evaluation_id=candidate.evaluation_id).first()
    coverage = stored_coverage(candidate, plan)
    if coverage is None:
        return None
    rows = coverage_rows(
        coverage, shared_path=plan.shared_fs_path, gpus=candidate.offering.gpus_per_node
    )
    return {"summary": coverage, "rows": rows, "fleet": fleet_rows(coverage)}


class PlanForm(forms.Form):
    deadline = forms.DateTimeField(
        label=gettext_lazy("Deadline"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=gettext_lazy("A required run still missing at this time counts as failed."),
    )
    all_nodes_max = forms.IntegerField(
        label=gettext_lazy("Nodes for the multi-node runs"), min_value=2, max_value=4096, initial=2
    )
    sample_size = forms.IntegerField(
        label=gettext_lazy("Sampled nodes per candidate"), min_value=1, max_value=1024, initial=4
    )
    shared_fs_path = forms.CharField(
        label=gettext_lazy("Shared file system path"), required=False, max_length=200
    )
    # The plan as the page loaded it: poc_plan_save refuses a save over someone else's newer
    # save (a deadline moved meanwhile), and the page keeps the input.
    loaded_version = loaded_version_field()

    def __init__(self, *args, candidates=(), names=None, **kwargs):
        super().__init__(*args, **kwargs)
        # The time typed is read in the portal's zone, which the pages name next to every time
        # they show ("18:00 UTC"): named here too, or 18:00 typed in Beijing was 02:00 there.
        self.fields["deadline"].help_text = _(
            "A required run still missing at this time counts as failed. Type the time in %(zone)s."
        ) % {"zone": timezone.get_current_timezone_name()}
        names = names or {}
        self.candidate_fields = []
        for candidate in candidates:
            name = f"nodes_{candidate.pk}"
            self.fields[name] = forms.CharField(
                label=_("Node names of %(candidate)s") % {"candidate": candidate},
                required=False,
                widget=forms.Textarea(attrs={"rows": 3}),
                initial="\n".join(names.get(candidate.pk, [])),
                help_text=_("One per line, as the vendor lists them (host names)."),
            )
            self.candidate_fields.append((candidate, name))

    def node_names(self) -> dict[int, list[str]]:
        return {
            candidate.pk: [
                n.strip() for n in self.cleaned_data[name].replace(",", "\n").splitlines()
            ]
            for candidate, name in self.candidate_fields
        }


@login_required
@require_form_methods
def poc_plan(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    plan = PocPlan.objects.filter(evaluation=evaluation).first()
    candidates = list(evaluation.candidates.select_related("offering", "offering__vendor"))
    rows = {r.candidate_id: r for r in PocCandidateNodes.objects.filter(plan=plan)} if plan else {}
    can_edit = membership.role in CAN_EDIT and evaluation.status != EvaluationStatus.DECIDED
    initial = None
    if plan is not None:
        initial = {
            "deadline": timezone.localtime(plan.deadline),
            "all_nodes_max": plan.all_nodes_max,
            "sample_size": plan.sample_size,
            "shared_fs_path": plan.shared_fs_path,
        }
    names = {cid: row.node_names for cid, row in rows.items()}
    initial = {**(initial or {}), "loaded_version": poc_plan_version(plan)}
    form = PlanForm(candidates=candidates, names=names, initial=initial)
    if request.method == "POST":
        if membership.role not in CAN_EDIT:
            raise PermissionDenied(_("Only procurement edits the POC plan."))
        form = PlanForm(request.POST, candidates=candidates, names=names)
        if evaluation.status == EvaluationStatus.DECIDED:
            # Decided first, whatever was sent: the 409 every decided refusal answers, with
            # the input kept (the service refuses again under the row's lock).
            form.is_valid()
            form.add_error(None, EvaluationDecided())
        elif form.is_valid():
            try:
                poc_plan_save(
                    evaluation=evaluation,
                    by=request.user,
                    deadline=form.cleaned_data["deadline"],
                    all_nodes_max=form.cleaned_data["all_nodes_max"],
                    sample_size=form.cleaned_data["sample_size"],
                    shared_fs_path=form.cleaned_data["shared_fs_path"],
                    node_names=form.node_names(),
                    expected_version=sent_version(form),
                )
            except StaleCopy as exc:
                refuse_stale(form, exc)
            except ValidationError as exc:
                # With its code: a decided refusal stays a 409 (form_status).
                add_service_error(form, exc)
            else:
                messages.success(request, _("POC plan saved."))
                return redirect("evaluation-poc", pk=evaluation.pk)
    per_candidate = [
        {
            "candidate": c,
            "sampled": rows[c.pk].sampled_nodes if c.pk in rows else [],
            "node_total": len(rows[c.pk].node_names) if c.pk in rows else 0,
            "coverage": coverage_context(c, plan, lookup=False),
        }
        for c in candidates
    ]
    status = form_status(form)
    return render(
        request,
        "portal/poc_plan.html",
        {
            "evaluation": evaluation,
            "plan": plan,
            "form": form,
            "can_edit": can_edit,
            "per_candidate": per_candidate,
        },
        status=status,
    )
