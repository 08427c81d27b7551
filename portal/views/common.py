"""Helpers shared by the page views: membership-checked lookups that answer 404 or 403."""

import logging

from django.core.exceptions import PermissionDenied
from django.http import FileResponse, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from .. import selectors
from ..models import Candidate, Evaluation, Membership, Role
from ..permissions import CAN_VIEW, require_role
from ..services import catalogue
from ..services.catalogue import is_catalogue_editor
from ..services.errors import EvaluationDecided

logger = logging.getLogger(__name__)

# The methods a page with a form answers; a page without one takes require_safe (GET, HEAD),
# an action require_POST. Any other method is a 405 with an Allow header, before the view runs.
FORM_METHODS = ["GET", "HEAD", "POST"]
require_form_methods = require_http_methods(FORM_METHODS)


def member_evaluation(request, pk: int, allowed=CAN_VIEW) -> tuple[Evaluation, Membership]:
    """The evaluation if the user is a member (else 404) with an allowed role (else 403)."""
    evaluation, membership = selectors.evaluation_get(user=request.user, pk=pk)
    require_role(membership, allowed)
    return evaluation, membership


def member_candidate(
    request, pk: int, candidate_pk: int, allowed=CAN_VIEW
) -> tuple[Evaluation, Membership, Candidate]:
    evaluation, membership = member_evaluation(request, pk, allowed)
    candidate = get_object_or_404(
        Candidate.objects.select_related("offering", "offering__vendor"),
        pk=candidate_pk,
        evaluation=evaluation,
    )
    # The evaluation just read, not read again by the first ``candidate.evaluation``.
    candidate.evaluation = evaluation
    return evaluation, membership, candidate


def can_edit_catalogue(user) -> bool:
    """Staff, or a holder of the catalogue role: who may edit the shared catalogue. Being a
    member of an evaluation gives no power over the catalogue other evaluations use."""
    return is_catalogue_editor(user)


def require_catalogue_editor(request) -> None:
    """Raise CatalogueDenied (403, worded for the catalogue) unless the user may edit it."""
    catalogue.require_catalogue_editor(request.user)


def can_create_evaluation(user) -> bool:
    """Staff, catalogue editors, or procurement in at least one evaluation."""
    if not user.is_authenticated:
        return False
    return (
        is_catalogue_editor(user)
        or Membership.objects.filter(user=user, role=Role.PROCUREMENT).exists()
    )


def require_evaluation_creator(request) -> None:
    if not can_create_evaluation(request.user):
        raise PermissionDenied(_("Only procurement members may create evaluations."))


def refused_as_decided(*forms) -> bool:
    """Whether a submitted form was refused because the evaluation is decided: the service's
    EvaluationDecided, added to the form with its code (add_service_error keeps it)."""
    for form in forms:
        if form is None or not form.is_bound:
            continue
        errors = form.non_form_errors() if hasattr(form, "non_form_errors") else None
        data = errors.as_data() if errors is not None else form.errors.as_data().get("__all__", [])
        if any(error.code == EvaluationDecided.CODE for error in data):
            return True
    return False


def form_status(*forms) -> int:
    """The status of a page that shows forms: 409 when a submitted one was refused because the
    evaluation is decided (the input is kept on the page), 422 when it was refused otherwise
    (its errors are on the page), else 200. Every form page answers a refusal the same way, so
    a client, a proxy's log or a test tells a refused submission from a page merely shown.
    Accepts forms, formsets and None (a form the request did not submit)."""
    if refused_as_decided(*forms):
        return 409
    for form in forms:
        if form is None or not form.is_bound:
            continue
        count = getattr(form, "total_error_count", None)
        if (count() if count else len(form.errors)) > 0:
            return 422
    return 200


def stored_file_response(request, field_file, *, filename: str, content_type: str) -> HttpResponse:
    """The stored file as a download, or, when it is gone from the media folder (a volume not
    mounted on this web server, files removed by hand), a 404 page saying so instead of a 500;
    the log names the path for the operator."""
    try:
        handle = field_file.open("rb")
    except FileNotFoundError:
        logger.warning("stored file missing from the media folder: %s", field_file.name)
        return render(request, "portal/file_missing.html", {"filename": filename}, status=404)
    response = FileResponse(
        handle, as_attachment=True, filename=filename, content_type=content_type
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response
