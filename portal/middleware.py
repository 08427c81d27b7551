"""Middleware: /healthz/ and /readyz/ answer before anything that could need the database; a
database outage is a clear 503, not a 500; a write refused because the
evaluation is decided is a 409 page; a page's script asking for JSON whose session ended gets a
JSON 401 it can read instead of the login page (a stale CSRF token: portal.views.errors); a
multipart form post cut short before its closing boundary is a 400 that reaches no view."""

import contextlib
import logging
from functools import cache
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user
from django.db import InterfaceError, OperationalError, connections
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render, resolve_url
from django.template.loader import render_to_string
from django.urls import resolve, reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _

from .services.errors import EvaluationDecided

logger = logging.getLogger(__name__)

DATABASE_DOWN = (OperationalError, InterfaceError)
RETRY_AFTER_S = 5


# The views HealthCheckMiddleware runs itself, by URL name.
HEALTH_CHECKS = ("healthz", "readyz")


@cache
def _health_paths() -> frozenset[str]:
    return frozenset(reverse(name) for name in HEALTH_CHECKS)


class HealthCheckMiddleware:
    """/healthz/ and /readyz/ are answered here, by their own views, before the middleware below
    runs: the session, the user, the locale, CSRF, messages, axes and the database outage page.

    A probe must get JSON and the right status whatever is down. Below this, a session or a
    user read from a database that is away, or a Host the portal does not serve (an
    orchestrator probes the container's own address), ended in the portal's HTML error pages.
    /readyz/ still knows a signed-in staff member (who reads why a check failed): the session
    and the user are read lazily, only by that view, and a failure to read them means "not
    staff". An error in either view is a JSON 503, never the HTML 500 page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path not in _health_paths():
            return self.get_response(request)
        match = resolve(request.path_info)
        request.resolver_match = match  # the request metrics name the view
        engine = import_module(settings.SESSION_ENGINE)
        request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
        request.user = SimpleLazyObject(lambda: get_user(request))
        try:
            return match.func(request, *match.args, **match.kwargs)
        except Exception as exc:
            logger.exception("%s failed", request.path)
            return JsonResponse({"status": "unavailable", "error": type(exc).__name__}, status=503)


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
        from .views.form_replay import form_url, shown_fields

        # A form posted: the text it sent, to copy back (the stale-page and ended-session
        # pages give it back too). Rendered without the request, so that no context processor
        # reads the session or the user from the database that is down.
        posted = request.method == "POST"
        context = {
            "message": message,
            "posted": posted,
            "fields": shown_fields(request) if posted else [],
            "form_url": form_url(request) if posted else "",
        }
        response = HttpResponse(render_to_string("database_unavailable.html", context), status=503)
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
    user would think the input is lost. A form posted after the session expired (its CSRF
    cookie still valid, so the CSRF page never sees it) gets the same 401 as a page saying
    nothing was saved, with the text it sent shown read-only to copy back: the redirect to
    the login page dropped every word typed."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # Read before the view: signing out (a POST sent to the login page) is no ended session.
        page = not request.path.startswith("/api/")  # the API answers for itself
        signed_out_post = page and request.method == "POST" and not request.user.is_authenticated
        response = self.get_response(request)
        if response.status_code == 302 and page:
            login = resolve_url(settings.LOGIN_URL)
            if response.get("Location", "").split("?", 1)[0] != login or request.path == login:
                return response
            if script_wants_json(request):
                return JsonResponse(
                    {"detail": session_ended_message(), "code": "session_ended"}, status=401
                )
            if signed_out_post:
                from .views.form_replay import session_ended_page

                return session_ended_page(request)
        return response


class TailStream:
    """A request body stream that keeps the last ``keep`` bytes read through it."""

    def __init__(self, stream, keep: int):
        self._stream = stream
        self.keep = keep
        self.tail = b""

    def _seen(self, data: bytes) -> bytes:
        if data:
            self.tail = (self.tail + data)[-self.keep :]
        return data

    def read(self, *args, **kwargs) -> bytes:
        return self._seen(self._stream.read(*args, **kwargs))

    def readline(self, *args, **kwargs) -> bytes:
        return self._seen(self._stream.readline(*args, **kwargs))

    def drain(self) -> None:
        """Read what the parser left (an epilogue after the closing boundary)."""
        while self.read(64 * 1024):
            pass

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _content_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def incomplete_body_message() -> str:
    return _(
        "The form arrived incomplete (the request was cut off before its end), so nothing was "
        "saved. Send it again."
    )


class CompleteMultipartMiddleware:
    """A multipart form post to a page must end with its closing boundary (``--boundary--``).

    Django's parser takes a body cut short (a dropped connection, a client that stops sending)
    as complete and keeps whatever arrived of the last field, so the form was saved with
    truncated or missing values. Such a post is a 400 here, before any view runs, and nothing
    is saved. Placed after CsrfViewMiddleware, whose check parses the body first. The API's
    uploads are parsed by DRF inside the views and are not checked here."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        boundary = request.content_params.get("boundary", "")
        if (
            request.method == "POST"
            and request.content_type == "multipart/form-data"
            and boundary
            and not request.path.startswith("/api/")
            and _content_length(request) > 0
        ):
            closing = b"--" + boundary.encode("latin-1") + b"--"
            # The closing delimiter, and room for the line break and padding after it.
            request._multipart_tail = TailStream(request._stream, keep=len(closing) + 64)
            request._multipart_closing = closing
            request._stream = request._multipart_tail
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        stream = getattr(request, "_multipart_tail", None)
        if stream is None:
            return None
        request.POST  # noqa: B018 - parse now, so that the whole body has been read
        stream.drain()
        if stream.tail.rstrip(b"\r\n\t ").endswith(request._multipart_closing):
            return None
        logger.warning("multipart body without its closing boundary on %s", request.path)
        message = incomplete_body_message()
        if script_wants_json(request):
            return JsonResponse({"detail": message, "code": "incomplete_body"}, status=400)
        return render(request, "400.html", {"reason": message}, status=400)
