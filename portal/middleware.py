"""Middleware: a database outage is a clear 503, not a 500; a write refused because the
evaluation is decided is a 409 page; a page's script asking for JSON whose session ended gets a
JSON 401 it can read instead of the login page (a stale CSRF token: portal.views.errors)."""

import contextlib
import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render, resolve_url
from django.utils.translation import gettext as _

from .services.errors import EvaluationDecided

logger = logging.getLogger(__name__)

DATABASE_DOWN = (OperationalError, InterfaceError)
RETRY_AFTER_S = 5


def database_unavailable_response(request) -> HttpResponse:
    """503 with Retry-After: JSON for the API and clients asking for JSON, HTML otherwise."""
    # Drop broken connections so that the next request opens a fresh one (self-recovery).
    for connection in connections.all(initialized_only=True):
        with contextlib.suppress(DATABASE_DOWN):
            connection.close()
    message = _("The database is unavailable for a moment. Try again in a few seconds.")
    wants_json = request.path.startswith("/api/") or "json" in request.headers.get("Accept", "")
    if wants_json:
        response = JsonResponse({"detail": message}, status=503)
    else:
        title = _("Service unavailable")
        response = HttpResponse(
            f'<!doctype html><html><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><h1>{title}</h1><p>{message}</p></body></html>",
            status=503,
        )
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


class DatabaseUnavailableMiddleware:
    """Turns OperationalError/InterfaceError raised by a view into a 503 (the handler500 in
    portal.views.errors does the same for errors raised in other middleware)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, DATABASE_DOWN):
            logger.warning("database unavailable on %s: %s", request.path, exception)
            return database_unavailable_response(request)
        return None


class EvaluationDecidedMiddleware:
    """A write refused because the evaluation is decided: a 409 page saying so (the API maps
    the same error to a JSON 409 in its exception handler)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, EvaluationDecided):
            return render(
                request,
                "portal/evaluation_decided.html",
                {"message": exception.messages[0]},
                status=409,
            )
        return None


def script_wants_json(request) -> bool:
    """A page's own fetch asking for JSON (the API answers for itself)."""
    return not request.path.startswith("/api/") and "application/json" in request.headers.get(
        "Accept", ""
    )


def session_ended_message() -> str:
    return _("Your session ended: sign in in another tab, then press Save again.")


class JsonSessionEndedMiddleware:
    """A fetch asking for JSON that login_required would send to the login page gets a JSON
    401 instead: following the redirect hands the script an HTML page it cannot read, and the
    user would think the input is lost."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code == 302 and script_wants_json(request):
            login = resolve_url(settings.LOGIN_URL)
            if response.get("Location", "").split("?", 1)[0] == login:
                return JsonResponse(
                    {"detail": session_ended_message(), "code": "session_ended"}, status=401
                )
        return response
