"""The text a form posted, given back when nothing could be saved: the stale-CSRF page and the
page for a form posted after its session ended show each text field read-only, labelled as its
form labels it, so that nothing a user typed is lost (portal.views.errors, portal.middleware)."""

import re
from urllib.parse import urlsplit

from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParserError
from django.shortcuts import render
from django.utils.functional import Promise
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import capfirst
from django.utils.translation import gettext as _

# Posted fields never shown back: the token that failed, the form's loaded version (hidden
# bookkeeping), and anything that looks like a secret.
HIDDEN_FIELDS = frozenset({"csrfmiddlewaretoken", "loaded_version"})
SECRET_PARTS = ("password", "secret", "token")
# What a stale-token page shows at most: a form of the portal has fewer fields, a forged post
# more.
SHOWN_FIELDS_MAX = 200


_ITEM_FIELD_RE = re.compile(r"^item-(\d+)-(claim|notes)$")
_WEIGHT_FIELD_RE = re.compile(r"^w_(\w+)$")


def _model_fields() -> dict:
    """Each portal model field's name -> the field (the first model that has the name)."""
    from django.apps import apps

    fields: dict = {}
    # The sign-in form posts the user model's fields (username).
    models = [*apps.get_app_config("portal").get_models(), apps.get_model("auth", "User")]
    for model in models:
        for field in model._meta.get_fields():
            fields.setdefault(field.name, field)
    return fields


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


def shown_value(name: str, value: str, fields: dict | None = None) -> str:
    """A posted value as the form showed it: a choice by its label in the reader's language
    (not "finetuning" or "0"), a ticked box as yes, and a row picked from a list (posted as its
    number, which means nothing to the reader) said to be chosen again. A row's name is never
    looked up: the page is shown to whoever posted, signed in or not."""
    fields = _model_fields() if fields is None else fields
    field = fields.get(name.rsplit("-", 1)[-1])
    if field is None:
        return value
    if getattr(field, "is_relation", False):
        return _("(chosen from a list: choose it again on the form)")
    if field.get_internal_type() == "BooleanField":
        return _("yes") if value in ("on", "true", "True", "1") else value
    for code, label in getattr(field, "flatchoices", None) or ():
        if str(code) == value:
            return str(label)
    return value


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


def shown_fields(request: HttpRequest) -> list[tuple[str, str]]:
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
    fields = _model_fields()
    return [
        (field_label(name, labels), shown_value(name, value, fields))
        for name, value in shown[:SHOWN_FIELDS_MAX]
    ]


def form_url(request: HttpRequest) -> str:
    """Where the form was: the page that posted it (this site's only), else the address posted
    to."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return referer
    return request.path


def session_ended_page(request: HttpRequest) -> HttpResponse:
    """A form posted after its session ended (portal.middleware.JsonSessionEndedMiddleware):
    the CSRF failure page for a signed-out user, saying that nothing was saved, with each text
    field sent shown read-only to copy back and a link to sign in again; 401."""
    context = {
        "fields": shown_fields(request),
        "signed_in": False,
        "form_url": form_url(request),
    }
    return render(request, "csrf_failure.html", context, status=401)
