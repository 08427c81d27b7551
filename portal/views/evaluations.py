"""Evaluation pages: the list, the dashboard, weights, decision, report and exports."""

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .. import selectors
from ..models import WorkerHeartbeat
from .common import can_create_evaluation


@login_required
def evaluation_list(request: HttpRequest) -> HttpResponse:
    evaluations = selectors.evaluation_list(user=request.user)
    context = {"evaluations": evaluations, "can_create": can_create_evaluation(request.user)}
    return render(request, "portal/evaluation_list.html", context)


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for load balancers and compose: the database answers; the worker's last beat."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    last = WorkerHeartbeat.objects.order_by("-seen_at").values_list("seen_at", flat=True).first()
    return JsonResponse(
        {
            "status": "ok",
            "time": timezone.now().isoformat(),
            "last_worker_heartbeat": last.isoformat() if last else None,
        }
    )
