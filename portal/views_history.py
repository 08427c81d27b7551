"""The history page of an evaluation: the audit trail, newest first, for every member.

Each change names who made it, when (in the page's language and time zone), the object it
touched (linked to the page that shows it, when that page exists and the reader may open it)
and each changed field by its translated name with the values before and after as the portal's
other pages show them (portal.audit words them). The page only reads; the JSON of the same
trail is the API's (``api-history``)."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from . import audit, selectors
from .models import Candidate, Offering
from .permissions import CAN_EDIT

PAGE_SIZE = 50


def _links(entries, evaluation, membership) -> list[tuple[audit.AuditEntry, str]]:
    """Each entry of one page with the address of the page that shows its object ("" when the
    object is gone or the reader's role may not open that page). Two queries per page."""
    candidates = set(Candidate.objects.filter(evaluation=evaluation).values_list("pk", flat=True))
    offering_ids = {e.object_id for e in entries if e.kind == "offering"}
    price_offerings = {}
    if any(e.kind == "price" for e in entries):
        from .models import OfferingPrice

        price_offerings = dict(
            OfferingPrice.objects.filter(
                pk__in={e.object_id for e in entries if e.kind == "price"}
            ).values_list("pk", "offering_id")
        )
    live_offerings = set(
        Offering.objects.filter(pk__in=offering_ids | set(price_offerings.values())).values_list(
            "pk", flat=True
        )
    )
    pk = evaluation.pk

    def candidate_page(name: str, candidate_id: int | None, anchor: str = "") -> str:
        if candidate_id not in candidates:
            return ""
        return reverse(name, args=[pk, candidate_id]) + anchor

    def link(entry: audit.AuditEntry) -> str:
        kind = entry.kind
        if kind == "evaluation":
            return reverse("evaluation-detail", args=[pk])
        if kind == "member":
            return reverse("evaluation-members", args=[pk])
        if kind == "candidate":
            return candidate_page("candidate-detail", entry.object_id)
        if kind == "answer":
            return candidate_page("candidate-questionnaire", entry.candidate_id)
        if kind == "review":
            return candidate_page("candidate-review", entry.candidate_id)
        if kind in ("upload", "evidence"):
            return candidate_page("candidate-uploads", entry.candidate_id)
        if kind == "token":
            if membership.role not in CAN_EDIT:
                return ""
            return candidate_page("upload-token-list", entry.candidate_id)
        if kind == "offering":
            if entry.object_id not in live_offerings:
                return ""
            return reverse("offering-detail", args=[entry.object_id])
        if kind == "price":
            offering_id = price_offerings.get(entry.object_id)
            if offering_id not in live_offerings:
                return ""
            return reverse("offering-detail", args=[offering_id])
        if kind == "vendor":
            return reverse("vendor-list")
        if kind == "decision":
            return reverse("evaluation-decision", args=[pk])
        if kind in ("poc_plan", "poc_nodes"):
            return reverse("evaluation-poc", args=[pk])
        if kind == "workload":
            return reverse("evaluation-portfolio", args=[pk])
        return ""

    return [(entry, link(entry)) for entry in entries]


@login_required
@require_safe
def evaluation_history(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = selectors.evaluation_get(user=request.user, pk=pk)
    kind = request.GET.get("kind") or ""
    if kind not in audit.KINDS:
        kind = ""
    entries = audit.evaluation_history(evaluation, kinds=[kind] if kind else None, page=True)
    page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "page": page,
        "rows": _links(list(page.object_list), evaluation, membership),
        "kind": kind,
        "kinds": [(key, str(label)) for key, label in audit.KIND_LABELS.items()],
    }
    return render(request, "portal/evaluation_history.html", context)
