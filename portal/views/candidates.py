"""Candidate pages: explanation of the scores, claims against measurements, the questionnaire
and the evidence of one candidate."""

import re
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Case, Count, Exists, F, Max, Min, OuterRef, Value, When
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from .. import evidence_messages, selectors
from ..forms import AnswerForm, claim_currency, questionnaire_forms
from ..forms_procurement import add_service_error
from ..metric_labels import RETIRED_FACTS, measurement_size
from ..models import (
    Answer,
    AnswerAttachment,
    Candidate,
    ChecklistItem,
    Dimension,
    EvidenceUpload,
    Measurement,
    PendingRefresh,
    UploadStatus,
    VerificationStatus,
)
from ..people import person_shown
from ..permissions import CAN_EDIT, CAN_UPLOAD, CAN_VIEW
from ..services.answers import AnswersSaved, answers_save
from ..services.attachments import allowed_types_text
from ..services.catalogue import (
    candidate_offering_adopt,
    candidate_offering_keep,
    catalogue_changes,
)
from ..services.errors import EvaluationDecided
from ..services.evaluations import MAX_ATTACHMENT_BYTES
from ..services.evidence import RetractRefused, evidence_retract, evidence_submit, may_retract
from ..services.fingerprints import (
    candidate_fingerprint,
    candidate_identifiers,
    hardware_reuse,
    node_name_reuse,
)
from . import display
from .common import (
    form_status,
    member_candidate,
    member_evaluation,
    refused_as_decided,
    require_form_methods,
    stored_file_response,
)
from .poc import coverage_context

# The longest node name an upload keeps (EvidenceUpload.node_name; the API's limit too).
NODE_NAME_MAX = 200
# Groups of measurements (kind, node, metric, unit) listed on the candidate page.
MEASUREMENTS_SHOWN = 300
# Newest uploads listed on the uploads page; the rest are one API call away (uploads/ in the
# API).
UPLOADS_SHOWN = 100
# Newest uploads listed on the candidate page, which links to the uploads page for more.
CANDIDATE_UPLOADS_SHOWN = 20


def _uploads_shown(candidate, limit: int) -> tuple[list[EvidenceUpload], int]:
    """The candidate's ``limit`` newest uploads without their report JSON (loaded per upload,
    when asked for) and how many uploads the candidate has."""
    uploads = list(
        candidate.uploads.select_related("uploaded_by", "token")
        .defer("report")
        .order_by("-created_at", "-pk")[:limit]
    )
    total = len(uploads)
    if total == limit:
        total = candidate.uploads.count()
    return uploads, total


def _url_for_pk(name: str, *args) -> Callable[[int], str]:
    """``name``'s URL with any primary key as its last argument, reversed once: a list of
    uploads links every row twice, and reversing each link was a tenth of the list's time."""
    marker = str(2**31 - 1)
    head, tail = reverse(name, args=[*args, marker]).rsplit(marker, 1)
    return lambda pk: f"{head}{int(pk)}{tail}"


def _upload_context(
    evaluation, candidate, membership, limit: int = UPLOADS_SHOWN, uploads=None
) -> dict:
    """The upload list's context: the candidate's ``limit`` newest uploads, or ``uploads``
    (the rows of one upload's page) when given."""
    if uploads is None:
        uploads, total = _uploads_shown(candidate, limit)
    else:
        total = len(uploads)
    # Per row: the status's name translated once per status (get_status_display translates
    # every choice's label on each call), and the row's two links.
    statuses = {value: str(label) for value, label in UploadStatus.choices}
    since = selectors.overdue_since()
    download_url = _url_for_pk("upload-download", evaluation.pk)
    report_url = _url_for_pk("candidate-upload-report", evaluation.pk, candidate.pk)
    can_upload = membership.role in CAN_UPLOAD
    for upload in uploads:
        # Retract is offered to whoever may retract the failed upload: its uploader, or the
        # maker of the token a collector sent it with (services.evidence.remove).
        upload.retractable = (
            can_upload
            and upload.status == UploadStatus.FAILED
            and may_retract(
                uploaded_by_id=upload.uploaded_by_id,
                token_creator_id=upload.token.created_by_id if upload.token_id else None,
                user_id=membership.user_id,
            )
        )
        upload.error_shown = evidence_messages.upload_error(
            code=upload.error_code, params=upload.error_params, text=upload.error
        )
        upload.status_shown = statuses.get(upload.status, upload.status)
        upload.node_warning = evidence_messages.upload_node_mismatch(upload.error_params)
        upload.overdue = selectors.upload_overdue(upload, since=since)
        upload.download_url = download_url(upload.pk)
        upload.report_url = report_url(upload.pk)
    # One statement: uploads still importing, and a refresh of the scores still pending (an
    # import in a burst leaves the candidate's re-verification to it: services.scores).
    busy, refreshing = (
        Candidate.objects.filter(pk=candidate.pk)
        .order_by()
        .annotate(
            importing=Exists(
                EvidenceUpload.objects.filter(
                    candidate_id=OuterRef("pk"),
                    status__in=(UploadStatus.QUEUED, UploadStatus.PROCESSING),
                )
            ),
            refreshing=Exists(PendingRefresh.objects.filter(candidate_id=OuterRef("pk"))),
        )
        .values_list("importing", "refreshing")
        .get()
    )
    return {
        "evaluation": evaluation,
        "candidate": candidate,
        "uploads": uploads,
        "uploads_total": total,
        "uploads_hidden": total - len(uploads),
        "busy": busy or refreshing,
        "refreshing": refreshing,
        "can_upload": can_upload,
    }


@login_required
@require_safe
def candidate_detail(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk)
    scores = {s.dimension: s for s in candidate.scores.all()}
    answers = {a.item_id: a for a in candidate.answers.select_related("item")}
    verification = candidate.verification or {}
    verdicts = verification.get("items") or {}
    uploads = _upload_context(evaluation, candidate, membership, CANDIDATE_UPLOADS_SHOWN)
    measurements, more = _measurement_groups([upload.pk for upload in uploads["uploads"]])
    items = [
        {
            "item": item,
            "answer": answers.get(item.pk),
            "verdict": verdicts.get(item.key),
            "tolerance": display.tolerance(verdicts.get(item.key)),
            "poc_note": _poc_note(answers.get(item.pk)),
            "claim": AnswerForm(item=item, answer=answers.get(item.pk)).display_claim(),
        }
        for item in ChecklistItem.objects.order_by("number")
    ]
    candidate.use_pinned_offering()  # the facts it is scored on, not today's catalogue
    identifiers = candidate_identifiers(candidate)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "offering": candidate.offering,
        "catalogue_changes": catalogue_changes(candidate),
        "fingerprint": candidate_fingerprint(candidate, identifiers),
        "reuse": hardware_reuse(candidate, identifiers, viewer=request.user),
        "renamed": node_name_reuse(candidate),
        "can_adopt": membership.role in CAN_EDIT and evaluation.status != "decided",
        "dimensions": [
            {
                "dimension": d,
                "score": scores.get(d.value),
                "contributions": display.contributions(
                    scores[d.value].contributions if d.value in scores else []
                ),
            }
            for d in Dimension
        ],
        "items": items,
        "bare_metal": verification.get("bare_metal") or {},
        "delivery_claim": display.delivery_form_claim(
            _scoring_rubric(evaluation),
            candidate.offering.delivery_form,
            verification.get("measured") or {},
        ),
        "busbw": verification.get("busbw") or {},
        "faults": verification.get("faults") or [],
        "measured": verification.get("measured") or {},
        "measurements": measurements,
        "measurements_more": more,
        "measurements_total": sum(group["readings"] for group in measurements),
        "can_edit": membership.role in CAN_EDIT,
        "can_upload": membership.role in CAN_UPLOAD,
        **uploads,
        "uploads_link": True,
        # Candidate pages poll only on the upload page.
        "busy": False,
        "poc": coverage_context(candidate),
        "tco_basis": _tco_basis(evaluation, candidate),
    }
    return render(request, "portal/candidate_detail.html", context)


def measurement_groups(upload_ids: list[int]):
    """The measurements of the uploads listed on the candidate page (the newest ones), grouped
    in SQL by kind, node, metric and unit: how many readings each group has and their lowest
    and highest value. Read through the uploads, the page stays flat however long the
    candidate's history grows (the API lists every measurement)."""
    rows = Measurement.objects.filter(upload_id__in=upload_ids)
    # An upload imported before a fact took its metric's name holds the fact under its old name
    # and a copy of the metric without a unit: one reading, read as the fact under the new name.
    for (kind, _old), name in RETIRED_FACTS.items():
        rows = rows.exclude(kind=kind, metric=name, unit="")
    metric = Case(
        *(
            When(kind=kind, metric=old, then=Value(name))
            for (kind, old), name in RETIRED_FACTS.items()
        ),
        default=F("metric"),
    )
    return (
        rows.values("kind", "node_name", "unit", shown_metric=metric)
        .annotate(readings=Count("pk"), low=Min("value"), high=Max("value"))
        .order_by("kind", "node_name", "shown_metric", "unit")
    )


def _measurement_groups(upload_ids: list[int]) -> tuple[list[dict], bool]:
    """The first MEASUREMENTS_SHOWN groups and whether there are more (one row past the page
    says so, without counting them all)."""
    groups = list(measurement_groups(upload_ids)[: MEASUREMENTS_SHOWN + 1])
    for group in groups:
        group["metric"] = group.pop("shown_metric")
        group["size"] = measurement_size(
            group["metric"], group["unit"], group["low"], group["high"]
        )
    return groups[:MEASUREMENTS_SHOWN], len(groups) > MEASUREMENTS_SHOWN


def _poc_note(answer) -> str:
    """The POC's word on an answer (its failed or missing runs) in the reader's language, ""
    when the answer's note is not the POC's: shown beside the evidence verdict, which says
    what the uploads show but not that the POC deadline passed without them."""
    return display.answer_poc_note(answer)


def _scoring_rubric(evaluation):
    from ..selectors import scoring_rubric

    return scoring_rubric(evaluation)


def _tco_basis(evaluation, candidate) -> dict | None:
    """The availability and efficiency behind the candidate's cost per effective GPU-hour, from
    the (cached) ranking the evaluation page shows, with what the cost assumed: the reference
    GPU-hour price it is compared with and the recommended billing model's assumptions."""
    from .. import selectors
    from ..exports import reference_price_note, tco_assumptions

    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation)
    for result in ranking.results:
        if result.candidate_id == candidate.pk:
            basis = display.tco_basis(result.tco)
            if basis is None:
                return None
            # what the figure assumed rather than read, as the report and the XLSX say it
            rubric = selectors.scoring_rubric(evaluation)
            scored = selectors.scoring_input(candidates[candidate.pk])
            basis["reference_note"] = reference_price_note(
                result.tco, scored.offering.gpu_model, rubric
            )
            basis["recommended_assumed"] = tco_assumptions(scored, rubric).get(
                result.tco.recommended, ""
            )
            return basis
    return None


def _progress(candidate, total: int) -> selectors.QuestionnaireProgress:
    return selectors.questionnaire_progress(candidate=candidate, total=total)


def _statuses(candidate, forms_: list[AnswerForm]) -> dict[str, dict[str, str]]:
    """Each item's verification status after a save (re-verified: a review stops applying
    when the answer changes), with its label, for the page's badges and its count."""
    stored = dict(Answer.objects.filter(candidate=candidate).values_list("item_id", "status"))
    labels = dict(VerificationStatus.choices)
    out = {}
    for form in forms_:
        status = stored.get(form.item.pk, VerificationStatus.UNANSWERED)
        out[form.prefix] = {"status": status, "label": str(labels[status])}
    return out


def _errors(forms_: list[AnswerForm]) -> dict[str, list[str]]:
    """Every message keyed by the input's name ("item-3-claim"; "item-3" for the item)."""
    errors = {}
    for form in forms_:
        for field, messages_ in form.errors.items():
            key = form.add_prefix(field) if field != "__all__" else form.prefix
            errors[key] = [str(m) for m in messages_]
    return errors


def _save(
    request, candidate, forms_: list[AnswerForm], *, drafts_of_valid: bool = False
) -> AnswersSaved | None:
    """Validate every item, then save them (None: nothing saved, messages land on the forms).
    An item changed by someone else since the page loaded is refused: its form keeps the
    input as typed and shows the newer answer beside it. ``drafts_of_valid`` (the autosave):
    the items that pass are saved even when another is refused, so that one mistyped figure
    does not hold back the drafts of the other nine."""
    valid = [form for form in forms_ if form.is_valid()]
    if len(valid) < len(forms_) and not (drafts_of_valid and valid):
        return None
    try:
        result = answers_save(
            candidate=candidate, drafts=[f.draft() for f in valid], by=request.user
        )
    except ValidationError as exc:
        # Which item's attachment was refused is not known here: the first one with a file.
        # The error keeps its code (a decided evaluation's refusal is a 409: form_status).
        target = next((f for f in forms_ if f.cleaned_data.get("attachment")), forms_[0])
        add_service_error(target, exc)
        return None
    by_item = {f.item.pk: f for f in forms_}
    for conflict in result.conflicts:
        by_item[conflict.draft.item.pk].rebase(conflict.current, conflict.version)
    return result


def _conflict_message(answer) -> str:
    if answer is None:
        return _(
            "This item was cleared after you opened the page. Nothing of yours was saved "
            "for it: keep yours or take the stored one."
        )
    who = person_shown(answer.updated_by) if answer.updated_by else _("someone")
    # As every page writes a time, its zone named: the page's own "Draft saved at" is in the
    # same zone (questionnaire.js), so the two times side by side compare.
    when = date_format(timezone.localtime(answer.updated_at), "Y-m-d H:i T")
    return _(
        "%(who)s changed this item at %(when)s, after you opened the page. Nothing of yours "
        "was saved for it: keep yours or take theirs."
    ) % {"who": who, "when": when}


def _outcome(candidate, forms_: list[AnswerForm], result: AnswersSaved | None) -> dict:
    """The autosave's answer: what was saved, each item's version now, the items someone else
    changed (``refreshed``: the page shows the stored inputs; ``conflicts``: both sides)."""
    progress = _progress(candidate, len(forms_))
    out = {
        "saved": result is not None and not result.conflicts,
        "answered": progress.answered,
        "contradicted": progress.contradicted,
        "total": progress.total,
        "statuses": _statuses(candidate, forms_),
        "errors": _errors(forms_),
        "versions": {},
        "refreshed": {},
        "conflicts": {},
    }
    if result is None:
        return out
    conflicts = {c.draft.item.pk: c for c in result.conflicts}
    stored = {}
    if result.refreshed or conflicts:
        stored = {f.item.pk: f for f in questionnaire_forms(candidate)}
    for form in forms_:
        pk = form.item.pk
        if pk in conflicts:
            theirs = stored[pk]
            out["conflicts"][form.prefix] = {
                "message": _conflict_message(conflicts[pk].current),
                "claim": theirs.display_claim(),
                "notes": theirs.answer.notes if theirs.answer else "",
                "inputs": theirs.initial_inputs(),
                "version": conflicts[pk].version,
            }
            continue
        if pk not in result.versions:
            continue  # refused by its fields: not sent to the save, its version unchanged
        out["versions"][form.prefix] = result.versions[pk]
        if pk in result.refreshed:
            out["refreshed"][form.prefix] = stored[pk].initial_inputs()
    return out


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _files_sent(request: HttpRequest, numbers: set[int]) -> list[str]:
    """The files posted for the items ``numbers``, each as "item N: name"."""
    sent = []
    for name, files in request.FILES.lists():
        found = re.match(r"^item-(\d+)-attachment$", name)
        if found and int(found.group(1)) in numbers:
            sent += [
                _("item %(number)s: %(file)s") % {"number": found.group(1), "file": f.name}
                for f in files
            ]
    return sent


@login_required
@require_form_methods
def questionnaire(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    """The ten items as one form: "Save all" (with attachments) saves every item at once, all
    or nothing; the page's autosave of the drafts (JSON, without files) saves the items that
    pass their checks and answers 422 naming the others."""
    allowed = CAN_EDIT if request.method == "POST" else CAN_VIEW
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk, allowed)
    status = 200
    not_attached: set[int] = set()  # items whose chosen files were not saved
    if request.method == "POST":
        forms_ = questionnaire_forms(candidate, request.POST, request.FILES)
        autosave = "autosave" in request.POST and _wants_json(request)
        result = _save(request, candidate, forms_, drafts_of_valid=autosave)
        incomplete = any(form.errors for form in forms_)
        if autosave and result is not None and incomplete:
            # The items that passed are saved; the others are refused by their fields.
            outcome = _outcome(candidate, forms_, result)
            return JsonResponse({**outcome, "saved": False, "partial": True}, status=422)
        saved = result is not None and not result.conflicts
        if saved and "autosave" not in request.POST:
            messages.success(request, _("All answers saved."))
        refused = form_status(*forms_) if result is None else 409
        if _wants_json(request):
            status = 200 if saved else refused
            return JsonResponse(_outcome(candidate, forms_, result), status=status)
        if saved:
            return redirect("candidate-questionnaire", pk=evaluation.pk, candidate_pk=candidate.pk)
        status = refused
        candidate.refresh_from_db()
        not_attached = {f.item.number for f in forms_}
        if result is not None:
            # Saved but for the conflicts: every other item as stored now.
            status = 409
            conflicted = {c.draft.item.pk for c in result.conflicts}
            not_attached = {c.draft.item.number for c in result.conflicts}
            forms_ = [
                old if old.item.pk in conflicted else new
                for old, new in zip(forms_, questionnaire_forms(candidate), strict=True)
            ]
    else:
        forms_ = questionnaire_forms(candidate)
    verdicts = (candidate.verification or {}).get("items") or {}
    # A decided evaluation's refusal is a 409 too, but not a conflict to resolve item by item.
    decided_refusal = request.method == "POST" and refused_as_decided(*forms_)
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "candidate": candidate,
        "entries": [
            {
                "item": f.item,
                "answer": f.answer,
                "form": f,
                "verdict": verdicts.get(f.item.key),
                "poc_note": _poc_note(f.answer),
            }
            for f in forms_
        ],
        "progress": _progress(candidate, len(forms_)),
        "can_edit": membership.role in CAN_EDIT and evaluation.status != "decided",
        "failed": status == 422 or decided_refusal,
        # The files chosen for items not saved, named: a browser never fills a file input
        # again, so the page says which to choose again.
        "files_not_attached": _files_sent(request, not_attached),
        "conflicted": status == 409 and not decided_refusal,
        "csrf_cookie_name": settings.CSRF_COOKIE_NAME,
        "time_zone": timezone.get_current_timezone_name(),
        "max_attachment_bytes": MAX_ATTACHMENT_BYTES,
        # Named in the browser's refusal of a file of another type (questionnaire.js), as the
        # server's refusal names them.
        "attachment_types": allowed_types_text(),
    }
    return render(request, "portal/questionnaire.html", context, status=status)


@login_required
@require_POST
def answer_update(request: HttpRequest, pk: int, candidate_pk: int, number: int) -> HttpResponse:
    """Save one item (fields left out of the request keep their stored values)."""
    evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    item = get_object_or_404(ChecklistItem, number=number)
    answer = Answer.objects.filter(candidate=candidate, item=item).first()
    currency = claim_currency(candidate)
    form = AnswerForm(request.POST, request.FILES, item=item, answer=answer, currency=currency)
    result = _save(request, candidate, [form])
    saved = result is not None and not result.conflicts
    answer = Answer.objects.filter(candidate=candidate, item=item).first()
    if saved:
        form = AnswerForm(item=item, answer=answer, currency=currency)
    context = {
        "evaluation": evaluation,
        "candidate": candidate,
        "entry": {"item": item, "answer": answer, "form": form},
        "saved": saved,
        "progress": _progress(candidate, ChecklistItem.objects.count()),
        "can_edit": True,
        "standalone": True,
    }
    # A decided evaluation's refusal is the 409 of every decided refusal (form_status).
    status = 200 if saved else 409 if result is not None else form_status(form)
    return render(request, "portal/_answer_entry.html", context, status=status)


@login_required
@require_form_methods
def evidence_page(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    """The upload page. Its script sends each file to the API; without the script (blocked, or
    not loaded) the form posts here, and each file it holds is stored the same way."""
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk, CAN_UPLOAD)
    status, problem = 200, ""
    if request.method == "POST":
        files = request.FILES.getlist("file")
        if len(request.POST.get("node_name", "")) > NODE_NAME_MAX:
            # Refused as the API refuses it, rather than cut short where nobody sees it.
            status, problem = (
                400,
                _("The node name is longer than %(max)s characters; nothing was uploaded.")
                % {"max": NODE_NAME_MAX},
            )
        elif files:
            _submit_page_files(request, candidate, files)
            return redirect("candidate-evidence", pk=evaluation.pk, candidate_pk=candidate.pk)
        else:
            status, problem = 400, _("Choose at least one file.")
    context = {
        "membership": membership,
        "csrf_cookie_name": settings.CSRF_COOKIE_NAME,
        "upload_problem": problem,
        "node_name": request.POST.get("node_name", "") if request.method == "POST" else "",
        **_upload_context(evaluation, candidate, membership),
    }
    return render(request, "portal/evidence_upload.html", context, status=status)


def _submit_page_files(request: HttpRequest, candidate, files) -> None:
    """Store each file the page's form posted, as the API does, with a message per file: a
    refused file is named with its reason and the others are still stored."""
    node_name = request.POST.get("node_name", "")
    for uploaded in files:
        name = uploaded.name or "upload"
        try:
            upload, created = evidence_submit(
                candidate=candidate, uploaded_file=uploaded, node_name=node_name, user=request.user
            )
        except EvaluationDecided:
            raise  # the decided page (409), as for every write
        except ValidationError as exc:
            reason = " ".join(exc.messages)
            messages.error(
                request,
                _("“%(name)s” was not received: %(reason)s") % {"name": name, "reason": reason},
            )
            continue
        # The node it counts for, said whenever it has one: the same bytes sent for another
        # node are that node's own upload, and a bundle (or a file sent for no node) already
        # received is the node's that sent it first.
        if created and upload.node_name:
            text = _(
                "“%(name)s” was received for node %(node)s: its import is shown in the list below."
            )
        elif created:
            text = _("“%(name)s” was received: its import is shown in the list below.")
        elif upload.requeued and upload.node_name:
            text = _(
                "“%(name)s” was received earlier for node %(node)s, as “%(first)s”, and its "
                "import had failed: it is imported again (see the list below)."
            )
        elif upload.requeued:
            text = _(
                "“%(name)s” was received earlier, as “%(first)s”, and its import had failed: "
                "it is imported again (see the list below)."
            )
        elif upload.node_name:
            text = _(
                "“%(name)s” was received earlier for node %(node)s, as “%(first)s”: see the "
                "list below."
            )
        else:
            text = _("“%(name)s” was received earlier, as “%(first)s”: see the list below.")
        messages.success(
            request,
            text % {"name": name, "first": upload.original_name, "node": upload.node_name},
        )


@login_required
@require_safe
def upload_list(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    """The candidate's newest uploads with their status: a page of its own (linked from the
    candidate page), or the list alone for htmx (polled by the upload page while busy)."""
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk)
    context = {"membership": membership, **_upload_context(evaluation, candidate, membership)}
    if request.headers.get("HX-Request"):
        return render(request, "portal/_upload_list.html", context)
    return render(request, "portal/candidate_uploads.html", context)


@login_required
@require_safe
def upload_detail(request: HttpRequest, pk: int, candidate_pk: int, upload_pk: int) -> HttpResponse:
    """One upload's page: the row the uploads list shows for it (status, node, parser, files
    inside, times, download) and its whole sha256. A decision's evidence lines link here. An
    upload of another candidate or evaluation, or none, is the same 404."""
    evaluation, membership, candidate = member_candidate(request, pk, candidate_pk)
    upload = get_object_or_404(
        candidate.uploads.select_related("uploaded_by", "token").defer("report"), pk=upload_pk
    )
    context = {
        "membership": membership,
        **_upload_context(evaluation, candidate, membership, uploads=[upload]),
        "upload": upload,
        # One finished row: the page does not poll.
        "busy": False,
        "refreshing": False,
    }
    return render(request, "portal/candidate_upload_detail.html", context)


@login_required
@require_safe
def upload_report(request: HttpRequest, pk: int, candidate_pk: int, upload_pk: int) -> HttpResponse:
    """One upload's per-file report (htmx fragment, loaded when the reader opens it)."""
    _evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk)
    upload = get_object_or_404(candidate.uploads.only("pk", "candidate_id", "report"), pk=upload_pk)
    rows = [
        {
            **row,
            "error_shown": evidence_messages.report_error(row),
            "notes_shown": evidence_messages.report_notes(row),
        }
        for row in upload.report
    ]
    return render(request, "portal/_upload_report.html", {"upload": upload, "rows": rows})


@login_required
@require_POST
def upload_retract(request: HttpRequest, pk: int, upload_pk: int) -> HttpResponse:
    """The uploader, or the maker of the token it was sent with, removes a failed upload
    (audited); back to the candidate's upload page."""
    evaluation, _membership = member_evaluation(request, pk, CAN_UPLOAD)
    upload = get_object_or_404(EvidenceUpload, pk=upload_pk, candidate__evaluation=evaluation)
    candidate_pk = upload.candidate_id
    name = upload.original_name
    try:
        evidence_retract(upload=upload, by=request.user)
    except RetractRefused as exc:
        raise PermissionDenied(exc.messages[0]) from exc
    message = _("“%(name)s” was retracted; you can upload it again.") % {"name": name}
    messages.success(request, message)
    return redirect("candidate-evidence", pk=evaluation.pk, candidate_pk=candidate_pk)


@login_required
@require_safe
def upload_download(request: HttpRequest, pk: int, upload_pk: int) -> HttpResponse:
    """The raw evidence exactly as received; members of the evaluation only."""
    evaluation, _membership = member_evaluation(request, pk)
    upload = get_object_or_404(EvidenceUpload, pk=upload_pk, candidate__evaluation=evaluation)
    if not upload.file:
        raise Http404  # a failed upload whose raw file the retention sweep removed
    return stored_file_response(
        request,
        upload.file,
        filename=upload.original_name,
        content_type="application/octet-stream",
    )


@login_required
@require_safe
def attachment_download(request: HttpRequest, pk: int, attachment_pk: int) -> HttpResponse:
    """A document attached to an answer; members of the evaluation only."""
    evaluation, _membership = member_evaluation(request, pk)
    attachment = get_object_or_404(
        AnswerAttachment, pk=attachment_pk, answer__candidate__evaluation=evaluation
    )
    return stored_file_response(
        request,
        attachment.file,
        filename=attachment.original_name,
        content_type="application/octet-stream",
    )


@login_required
@require_POST
def candidate_catalogue(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    """Procurement adopts the catalogue's new version of the offering, or keeps the pinned one."""
    evaluation, _membership, candidate = member_candidate(request, pk, candidate_pk, CAN_EDIT)
    try:
        if request.POST.get("action") == "adopt":
            candidate_offering_adopt(candidate=candidate, by=request.user)
            messages.success(request, _("The candidate now uses the catalogue as it is today."))
        elif request.POST.get("action") == "keep":
            candidate_offering_keep(candidate=candidate, by=request.user)
            messages.success(request, _("The candidate keeps the version it had."))
        else:
            return HttpResponseBadRequest(_("Choose adopt or keep."))
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    return redirect("candidate-detail", pk=evaluation.pk, candidate_pk=candidate.pk)
