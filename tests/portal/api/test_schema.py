"""The OpenAPI schema: it validates, its readers work offline, and generated requests never get
a 5xx (schemathesis, in process against the WSGI application, as the demo procurement user)."""

import re
import time

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core import signals
from django.core.management import call_command
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, given, settings
from rest_framework.authtoken.models import Token

from portal.models import (
    Candidate,
    Evaluation,
    EvidenceUpload,
    Membership,
    OfferingPrice,
    UploadToken,
    Vendor,
)
from portal.services.portfolio import workload_create
from portal.services.tokens import upload_token_create

pytestmark = pytest.mark.django_db

EXAMPLES_REAL_IDS = 7  # per operation, with path ids of real rows the user may reach
EXAMPLES_ANY_IDS = 3  # per operation, with generated path ids
TIME_BUDGET_S = 90


def test_the_schema_validates_without_warnings(tmp_path):
    # --fail-on-warn: a warning (an unannotated view, an ambiguous enum) fails the build.
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml")
    )
    text = (tmp_path / "schema.yml").read_text()
    assert text.startswith("openapi: 3.")
    for path in (
        "/api/v1/evaluations/{evaluation_pk}/ranking/",
        "/api/v1/evaluations/{evaluation_pk}/candidates/{candidate_pk}/answers/{item}/",
        "/api/v1/evaluations/{evaluation_pk}/decision/",
        "/api/v1/evidence/",
    ):
        assert f"  {path}:" in text


def test_the_schema_is_served_as_yaml_and_json(api, make_user):
    api.as_(make_user("reader"))  # the schema needs a signed-in user (API_DOCS_PUBLIC off)
    assert api.get("/api/schema/").content.startswith(b"openapi: 3.")
    body = api.get("/api/schema/?format=json").json()
    assert body["info"]["title"] == "GPU Procurement Portal API"
    assert "tokenAuth" in body["components"]["securitySchemes"]


@pytest.mark.parametrize("url", ["/api/schema/swagger/", "/api/schema/redoc/"])
def test_the_schema_readers_load_nothing_from_another_host(api, url, make_user):
    api.as_(make_user("reader"))
    page = api.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert "/api/schema/" in html
    # No CDN: no absolute URL and no protocol-relative one anywhere in the page.
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html), html
    assert "googleapis" not in html
    assets = re.findall(r"""(?:src|href)=["'](/static/[^"']+)["']""", html)
    assert assets, "the reader's script comes from our own static files"
    for asset in assets:
        response = api.get(asset)
        assert response.status_code == 200, asset
        b"".join(response.streaming_content) if response.streaming else response.content


@pytest.fixture
def wsgi_app():
    """The real WSGI application, sharing the test's database connection and transaction.

    Django closes "old" connections around each request; inside the test transaction that
    would end it, so (as Django's own test client does) that handler is off meanwhile.
    """
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield get_wsgi_application()
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


def _real_ids() -> dict[str, dict]:
    """Path parameters naming rows the demo procurement user can reach, per path prefix."""
    evaluation = Evaluation.objects.order_by("pk").first()
    candidate = Candidate.objects.filter(evaluation=evaluation).order_by("pk").first()
    offering = candidate.offering
    price = OfferingPrice.objects.filter(offering=offering).first()
    upload = EvidenceUpload.objects.filter(candidate__evaluation=evaluation).first()
    token = UploadToken.objects.filter(evaluation=evaluation).first()
    member = Membership.objects.filter(evaluation=evaluation, role="viewer").first()
    # The demo has no workloads: one, so that the workload routes are fuzzed on a real row.
    workload = workload_create(
        evaluation=evaluation, name="fuzzed", profile="inference", gpus=8, duration_days=30
    )
    scoped = {
        "evaluation_pk": evaluation.pk,
        "candidate_pk": candidate.pk,
        "member_pk": member.pk,
        "token_pk": token.pk,
        "upload_pk": upload.pk if upload else 1,
        "item": "nvlink_topology",
        "workload_pk": workload.pk,
    }
    return {
        "/api/v1/evaluations/": scoped,
        # drf-spectacular names a ``pk`` path parameter ``id``.
        "/api/v1/vendors/": {"id": Vendor.objects.order_by("pk").first().pk},
        "/api/v1/offerings/": {
            "id": offering.pk,
            "offering_pk": offering.pk,
            "price_pk": price.pk if price else 1,
        },
        "/api/v1/evidence/": {"id": upload.pk if upload else 1},
    }


def _fixed_path_parameters(operation, ids) -> dict:
    names = re.findall(r"{(\w+)}", operation.path)
    for prefix, values in ids.items():
        if operation.path.startswith(prefix):
            return {name: values[name] for name in names if name in values}
    return {}


def test_generated_requests_never_get_a_server_error(demo, wsgi_app):
    user = get_user_model().objects.get(username="procurement")
    key = Token.objects.create(user=user).key
    first = Candidate.objects.filter(evaluation__pk=Evaluation.objects.order_by("pk")[0].pk)
    upload_token_create(candidate=first.order_by("pk").first(), created_by=user)
    schema = schemathesis.openapi.from_wsgi(
        "/api/schema/?format=json", wsgi_app, headers={"Authorization": f"Token {key}"}
    )
    ids = _real_ids()
    headers = {"Authorization": f"Token {key}"}
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) > 40
    started = time.monotonic()

    for operation in operations:
        fixed = _fixed_path_parameters(operation, ids)
        for path_parameters, examples in ((fixed, EXAMPLES_REAL_IDS), ({}, EXAMPLES_ANY_IDS)):

            @settings(
                max_examples=examples,
                deadline=None,
                database=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy(path_parameters=path_parameters or None))
            def run(case):
                with transaction.atomic():
                    response = case.call(headers=headers)
                    transaction.set_rollback(True)
                if response.status_code >= 500:
                    failures.append(
                        f"{case.method} {case.formatted_path} -> {response.status_code}: "
                        f"query={case.query} body={case.body!r}"
                    )

            run()
    elapsed = time.monotonic() - started
    assert not failures, "\n".join(failures[:20])
    assert elapsed < TIME_BUDGET_S * 2, f"schemathesis took {elapsed:.0f} s"
