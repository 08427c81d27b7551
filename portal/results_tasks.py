"""The results read model's warming task (listed in CELERY_IMPORTS): a thin interface that
takes an id and calls the service."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from .services.results import results_warm_due


@shared_task(
    name="portal.results_tasks.results_warm_task",
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=2,
    max_retries=3,
    ignore_result=True,
)
def results_warm_task(evaluation_id: int) -> str:
    """Compute and store an evaluation's results, once its changes have settled."""
    return results_warm_due(evaluation_id=evaluation_id)
