"""Role x endpoint x method: every API route (and the history page) for every persona.

The routes come from the URL configuration itself: a route without an entry in ROUTES fails
the test, so a new endpoint cannot ship without a decision about who may call it. Each request
runs in a savepoint that is rolled back, so one persona's DELETE never hides the row from the
next persona.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from .conftest import World

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
ROLES = ("viewer", "engineer", "manager", "procurement")
PERSONAS = ("anonymous", "upload_token", "outsider", *ROLES)
ALL = frozenset(ROLES)
P = frozenset({"procurement"})
UPLOADERS = frozenset({"engineer", "procurement"})
M = frozenset({"manager"})
# Weights: procurement and the manager, as on the weights page (permissions.CAN_WEIGH).
WEIGHERS = P | M
ALLOWED = {200, 201, 204, 400}  # done, or refused for what the (empty) body says

# How each route's URL is filled in from the test world.
EVALUATION = lambda w: {"evaluation_pk": w.evaluation.pk}  # noqa: E731
CANDIDATE = lambda w: {**EVALUATION(w), "candidate_pk": w.candidate.pk}  # noqa: E731


@dataclass(frozen=True)
class Route:
    """``kind`` decides the outcome for personas without access:

    - ``evaluation``: anonymous 401, upload token 401, outsider 404, a member whose role is not
      in ``methods[method]`` 403, a method the route does not offer 405;
    - ``catalogue``: anonymous and upload token 401; any signed-in user reads; writes need
      procurement somewhere (else 403);
    - ``signed_in``: anonymous and upload token 401, everyone signed in may (``methods`` lists
      only what the route offers);
    - ``public``, ``page``, ``evidence``, ``not_found``: see ``expected()``.
    """

    kind: str
    methods: dict[str, frozenset]
    kwargs: Callable[[World], dict] = field(default=lambda w: {})


ROUTES: dict[str, Route] = {
    "api-me": Route("signed_in", {"get": ALL}),
    "api-checklist": Route("signed_in", {"get": ALL}),
    "api-vendor-list": Route("catalogue", {"get": ALL, "post": P}),
    "api-vendor-detail": Route(
        "catalogue",
        {"get": ALL, "put": P, "patch": P, "delete": P},
        lambda w: {"pk": w.offering.vendor_id},
    ),
    "api-offering-list": Route("catalogue", {"get": ALL, "post": P}),
    "api-offering-detail": Route(
        "catalogue",
        {"get": ALL, "put": P, "patch": P, "delete": P},
        lambda w: {"pk": w.offering.pk},
    ),
    "api-offering-price-list": Route(
        "catalogue", {"get": ALL, "post": P}, lambda w: {"offering_pk": w.offering.pk}
    ),
    "api-offering-price-detail": Route(
        "catalogue",
        {"get": ALL, "put": P, "patch": P, "delete": P},
        lambda w: {"offering_pk": w.offering.pk, "price_pk": w.price.pk},
    ),
    "api-evaluation-list": Route("catalogue", {"get": ALL, "post": P}),
    "api-evaluation-detail": Route("evaluation", {"get": ALL, "patch": P}, EVALUATION),
    "api-member-list": Route("evaluation", {"get": ALL, "post": P}, EVALUATION),
    "api-member-detail": Route(
        "evaluation",
        {"get": ALL, "patch": P, "delete": P},
        lambda w: {**EVALUATION(w), "member_pk": w.membership.pk},
    ),
    "api-candidate-list": Route("evaluation", {"get": ALL, "post": P}, EVALUATION),
    "api-candidate-detail": Route("evaluation", {"get": ALL, "patch": P, "delete": P}, CANDIDATE),
    "api-candidate-catalogue": Route("evaluation", {"get": ALL, "post": P}, CANDIDATE),
    "api-candidate-integrity": Route("evaluation", {"get": ALL}, CANDIDATE),
    "api-answer-list": Route("evaluation", {"get": ALL}, CANDIDATE),
    "api-answer-detail": Route(
        "evaluation", {"get": ALL, "put": P}, lambda w: {**CANDIDATE(w), "item": "gpu_match"}
    ),
    "api-weights": Route("evaluation", {"get": ALL, "put": WEIGHERS, "post": WEIGHERS}, EVALUATION),
    "api-poc-plan": Route("evaluation", {"get": ALL, "put": P}, EVALUATION),
    "api-poc-coverage": Route("evaluation", {"get": ALL}, CANDIDATE),
    "api-upload-token-list": Route("evaluation", {"get": UPLOADERS, "post": P}, EVALUATION),
    "api-upload-token-detail": Route(
        "evaluation",
        {"get": UPLOADERS, "delete": P},
        lambda w: {**EVALUATION(w), "token_pk": w.token.pk},
    ),
    "api-upload-token-revoke": Route(
        "evaluation", {"post": P}, lambda w: {**EVALUATION(w), "token_pk": w.token.pk}
    ),
    "api-upload-list": Route("evaluation", {"get": ALL}, EVALUATION),
    "api-upload-detail": Route(
        "evaluation",
        {"get": ALL, "delete": P},
        lambda w: {**EVALUATION(w), "upload_pk": w.upload.pk},
    ),
    "api-measurement-list": Route("evaluation", {"get": ALL}, EVALUATION),
    "api-score-list": Route("evaluation", {"get": ALL}, EVALUATION),
    "api-ranking": Route("evaluation", {"get": ALL}, EVALUATION),
    "api-robustness": Route("evaluation", {"get": ALL}, EVALUATION),
    "api-decision": Route("evaluation", {"get": ALL, "post": M}, EVALUATION),
    "api-decision-reopen": Route("evaluation", {"post": M}, EVALUATION),
    "api-history": Route("evaluation", {"get": ALL}, EVALUATION),
    "api-portfolio": Route("evaluation", {"get": ALL, "patch": P}, EVALUATION),
    "api-portfolio-decision": Route("evaluation", {"post": M}, EVALUATION),
    "api-workload-list": Route("evaluation", {"get": ALL, "post": P}, EVALUATION),
    "api-workload-detail": Route(
        "evaluation",
        {"get": ALL, "patch": P, "delete": P},
        lambda w: {**EVALUATION(w), "workload_pk": w.workload.pk},
    ),
    "api-evidence-upload": Route("evidence", {"post": UPLOADERS}),
    "api-evidence-nonce": Route("evidence", {"get": frozenset()}),
    "api-evidence-detail": Route("evidence", {"get": ALL}, lambda w: {"pk": w.upload.pk}),
    # The schema and its readers need a signed-in user (API_DOCS_PUBLIC off).
    "api-schema": Route("docs", {"get": ALL}),
    "api-schema-swagger": Route("docs_page", {"get": ALL}),
    "api-schema-redoc": Route("docs_page", {"get": ALL}),
    "api-not-found": Route("not_found", {}, lambda w: {"path": "no-such-endpoint/"}),
    "evaluation-history": Route("page", {"get": ALL}, lambda w: {"pk": w.evaluation.pk}),
}


def _walk(patterns, prefix=""):
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route, pattern.name


def covered_routes() -> list[str]:
    """Names of every route under /api/ (the API, the schema and its readers) and the history
    page, straight from the URL configuration."""
    names = [
        name
        for route, name in _walk(get_resolver().url_patterns)
        if route.startswith("api/") or name == "evaluation-history"
    ]
    assert all(names), "every API route needs a name"
    return sorted(set(names))


def expected(route: Route, persona: str, method: str) -> set[int]:
    offered = method in route.methods
    allowed = route.methods.get(method, frozenset())
    member = persona in ROLES
    if route.kind == "not_found":
        return {404}
    if route.kind == "public":
        return {200} if offered else {405}
    if route.kind in ("docs", "docs_page"):
        if persona in ("anonymous", "upload_token"):
            if route.kind == "docs":
                return {401}
            # A browser is sent to the login page; other methods are refused before dispatch.
            return {302} if method == "get" else {403}
        return {200} if offered else {405}
    if route.kind == "page":
        if persona in ("anonymous", "upload_token"):
            # Sent to the login page; a form posted signed out gets the "nothing was saved"
            # page with its text to copy back (portal.middleware, 401) instead.
            return {401} if method == "post" else {302}
        if not offered:
            return {405}
        return {404} if persona == "outsider" else {200}
    if route.kind == "evidence":
        # These views authorise inside the handler, so a method they lack is 405 for anyone.
        if not offered:
            return {405}
        if persona == "anonymous":
            return {401}
        if persona == "upload_token":
            return {200, 202}
        if method == "get" and not allowed:  # the nonce: upload tokens only
            return {401}
        if persona == "outsider":
            return {404}
        return {200, 202} if persona in allowed else {403}
    if persona in ("anonymous", "upload_token"):
        return {401}
    if route.kind == "signed_in":
        return ALLOWED if offered else {405}
    if route.kind == "catalogue":
        if not offered:
            return {405}
        if method == "get" or persona == "procurement":
            # A permitted DELETE of a catalogue row still in use is refused with 409.
            return ALLOWED | {409} if method == "delete" else ALLOWED
        return {403}
    assert route.kind == "evaluation", route.kind
    if not member:
        return {404}
    if not offered:
        return {405}
    return ALLOWED if persona in allowed else {403}


def _sessions(client, world: World) -> dict[str, str]:
    """A session key per signed-in persona, made once per test: a login per request (a session
    created, the old one deleted, last_login written) was most of what this test spent. A
    request runs in a savepoint that is rolled back, so no request can end another's session."""
    keys = {}
    for persona in PERSONAS:
        if persona not in ("anonymous", "upload_token"):
            client.force_login(world.users[persona])
            keys[persona] = client.cookies[settings.SESSION_COOKIE_NAME].value
            client.cookies = SimpleCookie()
    return keys


def _request(client, world: World, sessions, name: str, route: Route, persona: str, method: str):
    url = reverse(name, kwargs=route.kwargs(world))
    headers = {}
    client.cookies = SimpleCookie()  # what the last response set goes, as with a logout
    if persona == "upload_token":
        headers["HTTP_AUTHORIZATION"] = f"Bearer {world.raw_token}"
    elif persona != "anonymous":
        client.cookies[settings.SESSION_COOKIE_NAME] = sessions[persona]
    if name == "api-evidence-upload" and method == "post":
        data = {"file": SimpleUploadedFile("out.txt", f"{persona} output".encode())}
        if persona != "upload_token":
            data["candidate"] = world.candidate.pk
        return client.post(url, data, **headers)
    if method in ("post", "put", "patch"):
        return getattr(client, method)(url, {}, format="json", **headers)
    return getattr(client, method)(url, **headers)


def test_every_route_has_an_expectation():
    names = covered_routes()
    missing = [name for name in names if name not in ROUTES]
    assert not missing, f"add these routes to ROUTES (who may call them?): {missing}"
    stale = [name for name in ROUTES if name not in names]
    assert not stale, f"these ROUTES entries match no URL any more: {stale}"


def test_the_table_lists_exactly_the_methods_each_view_offers(world):
    from django.urls import resolve

    for name in covered_routes():
        route = ROUTES[name]
        if route.kind in ("not_found", "page"):
            continue
        view = resolve(reverse(name, kwargs=route.kwargs(world))).func
        cls = view.cls
        offered = {m for m in METHODS if hasattr(cls, m)}
        assert offered == set(route.methods), (name, offered)


@pytest.mark.parametrize("name", covered_routes())
def test_who_may_call_what(name, world, api):
    assert name in ROUTES, f"{name} has no entry in ROUTES: decide who may call it"
    route = ROUTES[name]
    failures = []
    sessions = _sessions(api, world)
    for persona in PERSONAS:
        for method in METHODS:
            with transaction.atomic():
                response = _request(api, world, sessions, name, route, persona, method)
                transaction.set_rollback(True)
            want = expected(route, persona, method)
            if response.status_code not in want:
                body = response.content[:200]
                failures.append(f"{persona} {method.upper()}: {response.status_code} {body!r}")
            elif (
                response.status_code >= 400
                and name.startswith("api-")
                and route.kind not in ("public", "docs", "docs_page")
            ):
                assert response["Content-Type"].startswith("application/json"), (
                    name,
                    persona,
                    method,
                )
                assert response.json().get("detail") or response.status_code == 400
    assert not failures, f"{name} ({reverse(name, kwargs=route.kwargs(world))}):\n" + "\n".join(
        failures
    )
