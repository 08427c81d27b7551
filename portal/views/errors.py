"""Error answers outside the views: 400, 403, 404 and 500 (JSON under /api/, translated pages
elsewhere) and the stale-CSRF page that gives the user back what they typed."""

import logging
import sys

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views import defaults

from ..middleware import (
    DATABASE_DOWN,
    database_unavailable_response,
    script_wants_json,
    session_ended_message,
)
from ..services.catalogue import CatalogueDenied
from .form_replay import form_url, shown_fields

logger = logging.getLogger(__name__)


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database outage is a 503 (raised outside a view, in a middleware, too);
    JSON under /api/; else templates/500.html rendered without the request, so that the page
    of an error reads nothing (no session, no user, no database)."""
    if isinstance(sys.exc_info()[1], DATABASE_DOWN):
        return database_unavailable_response(request)
    if is_api(request):
        message = _(
            "The server met an error and could not answer. It is logged; try again in a "
            "moment, and tell the administrators if it keeps happening."
        )
        return JsonResponse({"detail": message}, status=500)
    return defaults.server_error(request)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: JSON under /api/ (the API's own "Not found."), templates/404.html else."""
    if is_api(request):
        return JsonResponse({"detail": _("Not found.")}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler403: JSON under /api/, templates/403.html else: the refusal's reason once, and
    what to do next worded for what refused it (the shared catalogue belongs to no evaluation,
    so a role in one is no answer there)."""
    if is_api(request):
        detail = str(exception) or _("You do not have permission to perform this action.")
        return JsonResponse({"detail": detail}, status=403)
    context = {
        "exception": str(exception),
        "scope": "catalogue" if isinstance(exception, CatalogueDenied) else "evaluation",
    }
    return render(request, "403.html", context, status=403)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400 (a body Django could not parse, a suspicious request): JSON under /api/,
    templates/400.html else."""
    if is_api(request):
        return JsonResponse({"detail": _("The request could not be read.")}, status=400)
    return defaults.bad_request(request, exception)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW. A page's fetch asking for JSON gets JSON (signed out: 401, as the
    session ended; signed in with a stale token: 403). A form post gets a page saying that
    nothing was saved and why, with each text field it sent shown read-only (escaped, outside
    any form: copied back by the user, never sent again)."""
    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    if is_api(request) or script_wants_json(request):
        if not signed_in:
            return JsonResponse(
                {"detail": session_ended_message(), "code": "session_ended"}, status=401
            )
        return JsonResponse(
            {
                "detail": _("The page's security token is out of date: press Save again."),
                "code": "csrf_failed",
            },
            status=403,
        )
    logger.info("stale CSRF token on %s: %s", request.path, reason)
    context = {
        "fields": shown_fields(request),
        "signed_in": signed_in,
        "form_url": form_url(request),
    }
    return render(request, "csrf_failure.html", context, status=403)
