"""The decision record (and reopening), the report and exports; the weights page is in
portal/views/weights.py."""

import csv
import io

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import get_language, gettext_lazy, pgettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from .. import selectors
from ..exports import (
    XLSX_CONTENT_TYPE,
    evaluation_workbook,
    export_filename,
    report_document,
    safe_cell,
)
from ..forms import LongTextarea, loaded_version_field, refuse_stale, sent_version
from ..models import (
    BillingModel,
    ChecklistItem,
    Dimension,
    PdfStatus,
    ReportPdf,
    VerificationStatus,
)
from ..permissions import CAN_DECIDE
from ..services.errors import EvaluationDecided
from ..services.evaluations import (
    DIMENSIONS,
    RankingChanged,
    decision_record,
    evaluation_reopen,
    ranking_version,
)
from ..services.portfolio import portfolio_export_rows
from ..services.reports import ReportPdfLimited, report_pdf_request
from ..templatetags.portal_tags import num
from . import display
from .common import form_status, member_evaluation, require_form_methods, stored_file_response
from .dashboard import catalogue_html, results_context
from .weights import percentages


class DecisionForm(forms.Form):
    candidate = forms.TypedChoiceField(label=gettext_lazy("Chosen candidate"), coerce=int)
    rationale = forms.CharField(
        label=gettext_lazy("Rationale"), widget=LongTextarea(attrs={"rows": 5}), max_length=20_000
    )
    # The ranking the page showed (services.evaluations.ranking_version): a decision is
    # recorded on the figures its manager read, or refused with the input kept.
    loaded_version = loaded_version_field()

    def __init__(self, *args, choices, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["candidate"].choices = choices


class ReopenForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Why is the evaluation reopened?"),
        widget=LongTextarea(attrs={"rows": 3}),
        max_length=20_000,
    )


@login_required
@require_form_methods
def decision(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    record = evaluation.decision
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    choices = [(r.candidate_id, f"{r.label} — {r.total:.1f}") for r in ranking.qualified]
    # Choices whose scores rest on claims alone: no evidence has verified any of their answers.
    unverified = [
        r.label
        for r in ranking.qualified
        if VerificationStatus.VERIFIED not in candidates[r.candidate_id].answer_statuses.values()
    ]
    form = DecisionForm(choices=choices, initial={"loaded_version": ranking_version(ranking)})
    reopen_form = ReopenForm()
    if request.method == "POST":
        if membership.role not in CAN_DECIDE:
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied(_("Only managers record or reopen decisions."))
        if "reopen" in request.POST:
            reopen_form = ReopenForm(request.POST)
            if reopen_form.is_valid():
                try:
                    evaluation_reopen(
                        evaluation=evaluation,
                        reason=reopen_form.cleaned_data["reason"],
                        by=request.user,
                    )
                except ValidationError as exc:
                    if record is None:
                        # Reopened meanwhile (a second press, another manager): the page shows
                        # no reopen form to hold the error, so the reason typed comes back here.
                        return _refused_page(
                            request,
                            evaluation,
                            membership,
                            message=exc.messages[0],
                            label=ReopenForm.base_fields["reason"].label,
                            typed=request.POST.get("reason", ""),
                        )
                    for message in exc.messages:
                        reopen_form.add_error(None, message)
                else:
                    messages.success(
                        request, _("The evaluation is reopened for a new decision round.")
                    )
                    return redirect("evaluation-decision", pk)
            return _decision_page(
                request, evaluation, membership, record, form, reopen_form, ranking, unverified
            )
        if record is not None:
            # Decided since the page was read (a second press, another manager): the decided
            # page shows no decision form, so the rationale typed comes back with the refusal.
            return _refused_page(
                request,
                evaluation,
                membership,
                message=EvaluationDecided().messages[0],
                label=DecisionForm.base_fields["rationale"].label,
                typed=request.POST.get("rationale", ""),
            )
        form = DecisionForm(request.POST, choices=choices)
        if form.is_valid():
            try:
                decision_record(
                    evaluation=evaluation,
                    candidate=candidates[form.cleaned_data["candidate"]],
                    rationale=form.cleaned_data["rationale"],
                    by=request.user,
                    expected_version=sent_version(form),
                )
                messages.success(request, _("The decision is recorded."))
                return redirect("evaluation-decision", pk)
            except RankingChanged as exc:
                # The choices were built from the ranking read at the start of this request;
                # the one the service refused with is newer still when they differ.
                current = [
                    (r.candidate_id, f"{r.label} — {r.total:.1f}") for r in exc.current.qualified
                ]
                form.fields["candidate"].choices = current
                refuse_stale(form, exc)
                ranking = exc.current
            except EvaluationDecided as exc:
                evaluation.refresh_from_db()
                return _refused_page(
                    request,
                    evaluation,
                    membership,
                    message=exc.messages[0],
                    label=DecisionForm.base_fields["rationale"].label,
                    typed=request.POST.get("rationale", ""),
                )
            except ValidationError as exc:
                errors = exc.message_dict if hasattr(exc, "error_dict") else {None: exc.messages}
                for field, messages_ in errors.items():
                    form.add_error(field if field in form.fields else None, messages_)
    return _decision_page(
        request, evaluation, membership, record, form, reopen_form, ranking, unverified
    )


def _refused_page(request, evaluation, membership, *, message, label, typed) -> HttpResponse:
    """The decision page as it is now, answering 409 with why the submission was refused and
    the text it carried shown read-only to copy (never sent again): nothing typed is lost."""
    record = evaluation.decision
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    choices = [(r.candidate_id, f"{r.label} — {r.total:.1f}") for r in ranking.qualified]
    response = _decision_page(
        request,
        evaluation,
        membership,
        record,
        DecisionForm(choices=choices),
        ReopenForm(),
        ranking,
        refused={"message": message, "label": label, "text": typed.strip()},
    )
    response.status_code = 409
    return response


def decision_drift(record, ranking) -> list[str]:
    """The candidates whose figures computed today differ from those the decision recorded
    (total to two places, disqualification, place in the ranking), by their recorded label.
    Empty when they agree or there is no decision. A decided evaluation is scored with the
    rubric it was decided on; this catches what that cannot: a change of the scoring code, or
    a recorded rubric that no longer loads."""
    if record is None:
        return []
    recorded = (record.snapshot or {}).get("ranking") or []
    today = {r.candidate_id: (i, r) for i, r in enumerate(ranking.results)}
    drift = []
    for position, entry in enumerate(recorded):
        found = today.get(entry.get("candidate_id"))
        if (
            found is None
            or found[0] != position
            or round(found[1].total, 2) != round(entry.get("total", 0), 2)
            or bool(found[1].disqualified) != bool(entry.get("disqualified"))
        ):
            drift.append(entry.get("label", ""))
    return drift


def chosen_place(record) -> dict | None:
    """Where the chosen candidate stood in the ranking the decision recorded, when it was
    not first: its place among the qualified, how many there were, the leader and the gap in
    points (two places). None for a leader chosen, a portfolio or a record without a ranking."""
    if record is None or (record.snapshot or {}).get("portfolio"):
        return None
    qualified = [
        r for r in (record.snapshot or {}).get("ranking") or () if not r.get("disqualified")
    ]
    place = next(
        (
            i
            for i, r in enumerate(qualified, start=1)
            if r.get("candidate_id") == record.candidate_id
        ),
        None,
    )
    if place is None or place == 1:
        return None
    leader, chosen = qualified[0], qualified[place - 1]
    gap = round(leader.get("total", 0), 2) - round(chosen.get("total", 0), 2)
    return {
        "place": place,
        "count": len(qualified),
        "leader": leader.get("label", ""),
        "gap": num(gap, 2),
    }


def decision_versions(record) -> dict | None:
    """What produced the recorded ranking, as the record keeps it: its round, the rubric
    (version and the start of its sha256), the scoring model's revision and the parsers'
    version. Records decided before the model and parser versions were kept give "" for them
    (the page says they were not recorded). None without a record."""
    if record is None:
        return None
    snapshot = record.snapshot or {}
    return {
        "round": record.round,
        "rubric_version": snapshot.get("rubric_version", ""),
        "rubric_sha256": (snapshot.get("rubric_sha256") or "")[:12],
        "model_revision": snapshot.get("model_revision", ""),
        "parser_version": snapshot.get("parser_version", ""),
    }


def _snapshot_weights(record) -> dict:
    """The weights a decision record keeps, in the dimensions' order (the snapshot's JSON may
    hold them in any order), each as its share of the six in percent."""
    if record is None:
        return {}
    shares = percentages(record.snapshot.get("weights") or {})
    return {d.value: shares[d.value] for d in Dimension if d.value in shares}


def _earlier_decisions(evaluation):
    """The rounds set aside, newest first, each with what its record keeps beside the totals:
    its weights and what produced its ranking (rubric, model revision, parsers), so the page
    answers for every round as the API does."""
    earlier = list(
        evaluation.decisions.select_related("candidate__offering__vendor", "decided_by")
        .select_related("reopening__reopened_by")
        .filter(reopening__isnull=False)
        .order_by("-round")
    )
    for record in earlier:
        record.versions_shown = decision_versions(record)
        record.weights_shown = _snapshot_weights(record)
    return earlier


def _rounds(evaluation, record) -> tuple[list, list[dict]]:
    """The rounds set aside (_earlier_decisions), each with its evidence lines linked to their
    uploads (or saying they are gone) as ``evidence_shown``, and the evidence lines of the
    current ``record`` (None: no decision): what the Decision page and the report show."""
    earlier = _earlier_decisions(evaluation)
    current_evidence, *earlier_evidence = selectors.decision_evidence(
        [record, *earlier], evaluation
    )
    for earlier_record, evidence in zip(earlier, earlier_evidence, strict=True):
        earlier_record.evidence_shown = evidence
    return earlier, current_evidence


def _catalogue_notice(evaluation, membership):
    """The dashboard's catalogue-change notice ("" when no candidate's offering changed)."""
    _results_fp, catalogue_fp = selectors.results_fingerprints(evaluation)
    return catalogue_html(evaluation, role=membership.role, fingerprint=catalogue_fp)


def _decision_page(
    request, evaluation, membership, record, form, reopen_form, ranking, unverified=(), refused=None
):
    earlier, current_evidence = _rounds(evaluation, record)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "record": record,
        "form": form,
        "reopen_form": reopen_form,
        "can_decide": membership.role in CAN_DECIDE and record is None,
        "can_reopen": membership.role in CAN_DECIDE and record is not None,
        "earlier_decisions": earlier,
        "ranking": ranking,
        # Left out of the form's choices: said beside it, so that a short list is explained.
        "disqualified_count": len(ranking.results) - len(ranking.qualified),
        "unverified_choices": unverified,
        "decision_drift": decision_drift(record, ranking),
        "chosen_place": chosen_place(record),
        "decision_versions": decision_versions(record),
        "decision_evidence": current_evidence,
        "refused": refused,
        # Each weight as a share of the snapshot's six: a record keeps the weights in the unit
        # they were stored in when it was decided (percent now; raw numbers or fractions in
        # records decided before 0034), and a share reads the same for all of them.
        "decision_weights": _snapshot_weights(record),
        "imports_pending": selectors.evaluation_imports_pending(evaluation)
        if record is None
        else 0,
        # A candidate whose offering changed in the catalogue is still scored on the version it
        # pinned: said before the decision, as the dashboard says it, so that it is not made on
        # prices or facts the catalogue no longer states without a word.
        "catalogue_html": _catalogue_notice(evaluation, membership) if record is None else "",
    }
    status = form_status(form, reopen_form)
    return render(request, "portal/evaluation_decision.html", context, status=status)


def report_context(evaluation) -> dict:
    """What the report page and its PDF show: the dashboard's results and the document's
    sections (TCO tables, checklist, evidence, weights) and the decision."""
    record = evaluation.decision
    drift = []
    if record is not None:
        ranking, _none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
        drift = decision_drift(record, ranking)
    earlier, current_evidence = _rounds(evaluation, record)
    return {
        "evaluation": evaluation,
        "record": record,
        "decision_drift": drift,
        "chosen_place": chosen_place(record),
        "decision_versions": decision_versions(record),
        # The decisions set aside, newest first: a report of round 2 says round 1 existed,
        # what it chose and why it was reopened, as the Decision page does.
        "earlier_decisions": earlier,
        # Each round's evidence (sha256, file, node, upload), so that a printed report traces
        # the decision to its uploads as the Decision page does.
        "decision_evidence": current_evidence,
        "report": report_document(evaluation),
        **results_context(evaluation),
    }


@login_required
@require_safe
def report(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = member_evaluation(request, pk)
    latest_pdf = selectors.report_pdf_get(
        user=request.user, evaluation=evaluation, language=get_language() or "en"
    )
    context = {
        "membership": membership,
        "latest_pdf": latest_pdf,
        **report_context(evaluation),
    }
    return render(request, "portal/evaluation_report.html", context)


def _billing_label(code: str | None) -> str:
    """A billing model by its label in the reader's language (as the workbook's TCO sheet)."""
    if not code:
        return ""
    return str(dict(BillingModel.choices).get(code, code))


def _delivery_form_by_evidence(rubric, candidate) -> str:
    """What the evidence made of the candidate's delivery form, from the source the candidate
    page words it from (display.delivery_form_claim): the claimed form when the evidence
    confirms it, the form it is scored as when the evidence refutes it, "not conclusive" when
    evidence does not settle it, "" when there is none on it."""
    offering = candidate.offering
    claim = display.delivery_form_claim(
        rubric, offering.delivery_form, candidate.measured_summary or {}
    )
    if claim["status"] == "verified":
        return offering.get_delivery_form_display()
    if claim["status"] == "contradicted" and claim["assumed"]:
        return _(
            "%(form)s (assumed: the evidence shows a hypervisor, not which form runs under it)"
        ) % {"form": claim["scored_as"]}
    if claim["status"] == "contradicted":
        return claim["scored_as"]
    if claim["status"] == "claimed":
        return _("not conclusive")
    return ""


def _comparison_rows(evaluation, ranking, candidates) -> tuple[list[str], list[list]]:
    header = [
        _("Rank"),
        _("Vendor"),
        _("Offering"),
        _("Delivery form"),
        _("Delivery form by the evidence"),
        _("Nodes"),
        _("Total"),
        *[str(d.label) for d in Dimension],
        _("Disqualified"),
        _("Knockouts"),
        _("Recommended billing model"),
        _("Total cost"),
        _("Cheapest billing model"),
        _("Cheapest total cost"),
        _("Currency"),
        _("Cost per effective GPU-hour"),
        _("Reference price per GPU-hour (assumed)"),
        _("Checklist items answered"),
        _("Verified by the evidence"),
        _("Contradicted by the evidence"),
    ]
    reason = "reason_zh" if get_language() == "zh-hans" else "reason_en"
    rubric = selectors.scoring_rubric(evaluation)
    # Counted as the questionnaire page and the dashboard count them: a contradicted item is
    # not answered, and has its own column.
    total = ChecklistItem.objects.count()
    progress = selectors.questionnaire_progress_by_candidate(evaluation=evaluation, total=total)
    no_progress = selectors.QuestionnaireProgress(answered=0, contradicted=0, total=total)
    rows = []
    for index, result in enumerate(ranking.results, start=1):
        candidate = candidates[result.candidate_id]
        tco = result.tco
        statuses = list(candidate.answer_statuses.values())
        answers = progress.get(result.candidate_id, no_progress)
        rows.append(
            [
                "" if result.disqualified else index,
                candidate.offering.vendor.name,
                candidate.offering.name,
                candidate.offering.get_delivery_form_display(),
                _delivery_form_by_evidence(rubric, candidate),
                candidate.node_count,
                round(result.total, 2),
                *[round(result.score(d), 2) for d in DIMENSIONS],
                _("yes") if result.disqualified else _("no"),
                pgettext("between list items", "; ").join(
                    getattr(k, reason) for k in result.knockouts
                ),
                # The recommended model's total, the one the cost score and the budget judge
                # (rubric v2: spot is refused for a long synchronous job, so its cheaper total
                # is not a cost the buyer would pay); the cheapest beside it.
                _billing_label(tco.recommended) if tco else "",
                tco.recommended_total if tco else "",
                _billing_label(tco.cheapest) if tco else "",
                tco.cheapest_total if tco else "",
                tco.currency if tco else "",
                tco.cost_per_effective_gpu_hour if tco else "",
                (
                    rubric.reference_gpu_hour_price(candidate.offering.gpu_model, tco.currency)
                    if tco and tco.cost_per_effective_gpu_hour is not None
                    else ""
                ),
                answers.answered,
                statuses.count(VerificationStatus.VERIFIED),
                answers.contradicted,
            ]
        )
    return header, rows


def _with_recommended(ranking, header: list, rows: list[list]) -> tuple[list, list[list]]:
    """Rubric v2: each row gains why its billing model is recommended and the recommended
    model's minimum-commitment cost (rows are in ranking order; the model itself is a column
    of every export already)."""
    zh = get_language() == "zh-hans"
    extra = []
    for result in ranking.results:
        tco = result.tco
        if tco is None:
            extra.append(["", ""])
            continue
        commitment = dict(tco.model(tco.recommended).components).get("commitment", "")
        extra.append([tco.recommended_reason[1 if zh else 0], commitment])
    header = [*header, _("Why recommended"), _("Commitment")]
    return header, [[*row, *more] for row, more in zip(rows, extra, strict=True)]


def _decision_rows(evaluation, ranking) -> list[list]:
    """Rows for the exports of a decided evaluation, after the comparison: the decision in
    force (round, when, by whom, the scoring model and parsers it was recorded with) and
    whether the figures above, computed today, are those it recorded. An export read months
    later must not pass today's figures off as the decision's. [] while undecided."""
    record = evaluation.decision
    if record is None:
        return []
    versions = decision_versions(record)
    drift = decision_drift(record, ranking)
    if drift:
        agreement = _(
            "The figures above are computed today and differ from those recorded at the "
            "decision for: %(labels)s. The Decision page shows the recorded ones."
        ) % {"labels": ", ".join(drift)}
    else:
        agreement = _("The figures above are computed today and equal those recorded.")
    not_recorded = _("not recorded")
    return [
        [],
        [
            _("Decision"),
            _("Round"),
            _("Decided at"),
            _("Decided by"),
            _("Scoring model revision"),
            _("Evidence parsers"),
            _("Figures"),
        ],
        [
            "",
            record.round,
            record.decided_at.isoformat(timespec="seconds"),
            record.decided_by.get_username(),
            versions["model_revision"] or not_recorded,
            versions["parser_version"] or not_recorded,
            agreement,
        ],
    ]


@login_required
@require_safe
def export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    """The comparison as CSV or XLSX: one row per candidate in ranking order."""
    evaluation, _membership = member_evaluation(request, pk)
    # One ranking read for the comparison, the v2 columns and the decision's rows.
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    header, rows = _comparison_rows(evaluation, ranking, candidates)
    if evaluation.rubric_version != "1":
        header, rows = _with_recommended(ranking, header, rows)
    rows += portfolio_export_rows(evaluation.decision)
    rows += _decision_rows(evaluation, ranking)
    filename = export_filename(evaluation, "comparison", fmt)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow([safe_cell(h) for h in header])
        writer.writerows([safe_cell(v) for v in row] for row in rows)
        # A BOM lets spreadsheet programs read the Chinese names as UTF-8.
        response = HttpResponse(
            "\ufeff" + buffer.getvalue(), content_type="text/csv; charset=utf-8"
        )
    elif fmt == "xlsx":
        # The whole evaluation, one sheet per section (ranking, dimensions, TCO, checklist,
        # evidence, weights, decision).
        filename = export_filename(evaluation, "report", "xlsx")
        response = HttpResponse(
            evaluation_workbook(evaluation, ranking=(header, rows)), content_type=XLSX_CONTENT_TYPE
        )
    else:
        raise Http404
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@login_required
@require_POST
def report_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """POST: queue a PDF of the report in the reader's language, back to the report."""
    evaluation, _membership = member_evaluation(request, pk)
    try:
        pdf = report_pdf_request(
            evaluation=evaluation, by=request.user, language=get_language() or "en"
        )
    except ReportPdfLimited as exc:
        messages.error(request, exc.message)
    else:
        if pdf.status == PdfStatus.DONE:
            messages.success(request, _("A PDF of the report as it is now is ready below."))
        else:
            # Tagged so that report_pdf.js removes it once the PDF is ready or has failed.
            messages.success(
                request,
                _("The PDF is being made; this page shows when it is ready."),
                extra_tags="pdf-pending",
            )
    return redirect("evaluation-report", pk)


def _own_pdf(request, pk: int, pdf_pk: int):
    evaluation, membership = member_evaluation(request, pk)
    pdf = ReportPdf.objects.filter(evaluation=evaluation, pk=pdf_pk).first()
    if pdf is None:
        raise Http404
    return evaluation, membership, pdf


@login_required
@require_safe
def report_pdf_status(request: HttpRequest, pk: int, pdf_pk: int) -> HttpResponse:
    """The PDF's status as a fragment the report page polls (JSON when asked for)."""
    evaluation, _membership, pdf = _own_pdf(request, pk, pdf_pk)
    if "application/json" in request.headers.get("Accept", ""):
        from django.http import JsonResponse

        return JsonResponse({"id": pdf.pk, "status": pdf.status, "error": pdf.error})
    return render(request, "portal/_report_pdf_status.html", {"evaluation": evaluation, "pdf": pdf})


@login_required
@require_safe
def report_pdf_download(request: HttpRequest, pk: int, pdf_pk: int) -> HttpResponse:
    evaluation, _membership, pdf = _own_pdf(request, pk, pdf_pk)
    if pdf.status != "done" or not pdf.file:
        raise Http404
    return stored_file_response(
        request,
        pdf.file,
        filename=export_filename(evaluation, "report", "pdf"),
        content_type="application/pdf",
    )
