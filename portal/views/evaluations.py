"""Evaluation pages: the list, the dashboard, weights, decision, report and exports."""

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from .. import selectors
from ..models import (
    Candidate,
    EvaluationStatus,
    EvidenceUpload,
    Membership,
    Role,
    UploadStatus,
)
from .common import can_create_evaluation


def awaiting_evidence(user) -> list[Candidate]:
    """Candidates of the undecided evaluations where ``user`` is the engineer that have no
    imported evidence yet, each with its latest upload (``last_upload``, or None)."""
    evaluations = Membership.objects.filter(user=user, role=Role.ENGINEER).values("evaluation")
    candidates = list(
        Candidate.objects.filter(evaluation__in=evaluations)
        .exclude(evaluation__status=EvaluationStatus.DECIDED)
        .exclude(uploads__status=UploadStatus.DONE)
        .select_related("evaluation", "offering", "offering__vendor")
        .prefetch_related(
            Prefetch(
                "uploads",
                queryset=EvidenceUpload.objects.order_by("-created_at"),
                to_attr="upload_rows",
            )
        )
        .order_by("evaluation__name", "offering__vendor__name", "offering__name")
    )
    for candidate in candidates:
        candidate.last_upload = candidate.upload_rows[0] if candidate.upload_rows else None
    return candidates


@login_required
@require_safe
def evaluation_list(request: HttpRequest) -> HttpResponse:
    """Home: the user's evaluations; for engineers first the candidates awaiting evidence."""
    evaluations = selectors.evaluation_list(user=request.user)
    context = {
        "evaluations": evaluations,
        "can_create": can_create_evaluation(request.user),
        "awaiting": awaiting_evidence(request.user),
        "is_engineer": any(m.role == Role.ENGINEER for e in evaluations for m in e.my_memberships),
    }
    return render(request, "portal/evaluation_list.html", context)
