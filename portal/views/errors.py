"""Error answers outside the views: 400, 403, 404 and 500 (JSON under /api/, translated pages
elsewhere) and the stale-CSRF page that gives the user back what they typed."""

import logging
import re
import sys
from urllib.parse import urlsplit

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.views import defaults

from ..middleware import (
    DATABASE_DOWN,
    database_unavailable_response,
    script_wants_json,
    session_ended_message,
)
from ..services.catalogue import CatalogueDenied

logger = logging.getLogger(__name__)

# Posted fields never shown back: the token that failed, the form's loaded version (hidden
# bookkeeping), and anything that looks like a secret.
HIDDEN_FIELDS = frozenset({"csrfmiddlewaretoken", "loaded_version"})
SECRET_PARTS = ("password", "secret", "token")
# What a stale-token page shows at most: a form of the portal has fewer fields, a forged post
# more.
SHOWN_FIELDS_MAX = 200


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


_ITEM_FIELD_RE = re.compile(r"^item-(\d+)-(claim|notes)$")
_WEIGHT_FIELD_RE = re.compile(r"^w_(\w+)$")


def _field_labels() -> dict[str, str]:
    """Each portal model field's name -> its label in the reader's language (the first model
    that has the name): what the forms posting them call them."""
    from django.apps import apps

    labels: dict[str, str] = {}
    # The sign-in form posts the user model's fields (username).
    models = [*apps.get_app_config("portal").get_models(), apps.get_model("auth", "User")]
    for model in models:
        for field in model._meta.get_fields():
            verbose = getattr(field, "verbose_name", None)
            if not isinstance(verbose, Promise):
                # A name Django made from the field's (untranslated): a relation is named by
                # the model it points to.
                related = getattr(field, "related_model", None)
                verbose = related._meta.verbose_name if related is not None else None
            if verbose and field.name not in labels:
                labels[field.name] = capfirst(str(verbose))
    return labels


def field_label(name: str, labels: dict[str, str] | None = None) -> str:
    """A posted field's name as its form labels it, in the reader's language: a checklist
    item's claim or notes, a weight by its dimension, a model field by its verbose name; the
    name itself (spaced) where none is known."""
    from ..models import Dimension

    found = _ITEM_FIELD_RE.match(name)
    if found:
        number, part = found.groups()
        what = _("claim") if part == "claim" else _("notes")
        return _("Checklist item %(number)s: %(part)s") % {"number": number, "part": what}
    found = _WEIGHT_FIELD_RE.match(name)
    if found and found.group(1) in Dimension.values:
        return _("Weight: %(dimension)s") % {"dimension": Dimension(found.group(1)).label}
    labels = _field_labels() if labels is None else labels
    base = name.rsplit("-", 1)[-1]  # a formset's or prefixed form's field: its own name
    return labels.get(base) or capfirst(base.replace("_", " "))


def _sent_from_elsewhere(request: HttpRequest) -> bool:
    """True when the browser says the post came from another site: its ``Origin`` (sent with
    every cross-site POST; "null" when the sender hid it) or, without one, its ``Referer`` names
    another host, or ``Sec-Fetch-Site`` says cross-site."""
    if request.headers.get("Sec-Fetch-Site", "") == "cross-site":
        return True
    here = {request.get_host()}
    for header in ("Origin", "Referer"):
        value = request.headers.get(header)
        if value is not None:
            # Both name an absolute address; anything else ("null", a path) is no proof.
            return not urlsplit(value).netloc or not url_has_allowed_host_and_scheme(
                value, allowed_hosts=here, require_https=request.is_secure()
            )
    return False


def _shown_fields(request: HttpRequest) -> list[tuple[str, str]]:
    """The posted text fields worth giving back, in the order sent (files are not kept), each
    with the label its form shows (field_label). None for a post another site sent: its
    fields, labels and text alike, are whatever that site chose, and the portal's page would
    show them as its own (a security review forged a "sign in again at …" notice)."""
    if _sent_from_elsewhere(request):
        return []
    try:
        posted = request.POST
    except (MultiPartParserError, SuspiciousOperation, OSError):
        return []  # a body that does not parse (or a dropped connection): nothing to give back
    shown = []
    for name, values in posted.lists():
        lowered = name.lower()
        if name in HIDDEN_FIELDS or any(part in lowered for part in SECRET_PARTS):
            continue
        shown += [(name, value) for value in values if value.strip()]
    labels = _field_labels()
    return [(field_label(name, labels), value) for name, value in shown[:SHOWN_FIELDS_MAX]]


def _form_url(request: HttpRequest) -> str:
    """Where the form was: the page that posted it (this site's only), else the address posted
    to."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return request.path


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
        "fields": _shown_fields(request),
        "signed_in": signed_in,
        "form_url": _form_url(request),
    }
    return render(request, "csrf_failure.html", context, status=403)


def session_ended_page(request: HttpRequest) -> HttpResponse:
    """A form posted after its session ended (portal.middleware.JsonSessionEndedMiddleware):
    the CSRF failure page for a signed-out user, saying that nothing was saved, with each text
    field sent shown read-only to copy back and a link to sign in again; 401."""
    context = {
        "fields": _shown_fields(request),
        "signed_in": False,
        "form_url": _form_url(request),
    }
    return render(request, "csrf_failure.html", context, status=401)
