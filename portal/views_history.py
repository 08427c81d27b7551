"""The history page of an evaluation: the audit trail, newest first, for every member."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from . import audit, selectors

PAGE_SIZE = 50


@login_required
@require_safe
def evaluation_history(request: HttpRequest, pk: int) -> HttpResponse:
    evaluation, membership = selectors.evaluation_get(user=request.user, pk=pk)
    kind = request.GET.get("kind") or ""
    if kind not in audit.KINDS:
        kind = ""
    entries = audit.evaluation_history(evaluation, kinds=[kind] if kind else None)
    page = Paginator(entries, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "evaluation": evaluation,
        "membership": membership,
        "page": page,
        "kind": kind,
        "kinds": [(key, str(label)) for key, label in audit.KIND_LABELS.items()],
    }
    return render(request, "portal/evaluation_history.html", context)
