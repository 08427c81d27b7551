"""One write path: every API write endpoint and every page form writes only from inside a
service of portal/services/ (checked on the SQL itself: each INSERT, UPDATE or DELETE must run
with a portal/services/ frame on the Python stack), and the same edit through the page and the
API leaves the same result."""

import re
import sys
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse

from portal.models import (
    AnswerReview,
    Evaluation,
    Membership,
    Offering,
    OfferingPrice,
    OfferingVersion,
    PocPlan,
    ReportPdf,
    Vendor,
)
from portal.services.evidence import evidence_import

from ..test_procurement_pages import evaluation_data, offering_data, price_data
from .test_matrix import ROUTES, covered_routes

pytestmark = pytest.mark.django_db

WRITE = re.compile(r"^\s*(INSERT|UPDATE|DELETE)\b", re.IGNORECASE)
# Sign-in bookkeeping (sessions, last login) and the admin's own log are not portal data.
EXEMPT = ("django_session", "auth_user", "django_admin_log")


class WriteGuard:
    """Records every data-changing statement run outside portal/services/."""

    def __init__(self):
        self.outside: list[str] = []
        self.inside = 0

    def __call__(self, execute, sql, params, many, context):
        if WRITE.match(sql) and not any(f'"{t}"' in sql for t in EXEMPT):
            frame = sys._getframe(1)
            in_service = False
            while frame is not None:
                if "/portal/services/" in frame.f_code.co_filename:
                    in_service = True
                    break
                frame = frame.f_back
            if in_service:
                self.inside += 1
            else:
                self.outside.append(" ".join(sql.split())[:160])
        return execute(sql, params, many, context)


def _call(client, method, url, body):
    if method == "upload":
        return client.post(url, body)
    return getattr(client, method)(url, body, format="json")


def api_steps(world):
    """(route name, method, url kwargs, body, persona) for every API write, in an order that
    leaves each one something to act on."""
    ev = {"evaluation_pk": world.evaluation.pk}
    cand = {**ev, "candidate_pk": world.candidate.pk}
    spare_vendor = Vendor.objects.create(name="Spare vendor")
    spare = Offering.objects.create(
        vendor=spare_vendor,
        name="spare",
        delivery_form="container",
        gpu_model="L4",
        gpus_per_node=1,
        gpu_memory_gib=24,
        nvlink_topology="none",
        fabric="ethernet",
        gpu_form_factor="pcie",
    )
    newcomer = world.users["outsider"]
    full_offering = {
        "vendor": world.offering.vendor_id,
        "name": "API offering",
        "delivery_form": "vgpu",
        "gpu_model": "A10",
        "gpus_per_node": 1,
        "gpu_memory_gib": 24,
        "gpu_form_factor": "pcie",
        "nvlink_topology": "none",
        "fabric": "ethernet",
    }
    ones = [[1] * 6 for _ in range(6)]
    weights = {"stability": 20, "network": 20, "storage": 15, "security": 15, "cost": 15}
    weights["support"] = 15
    return [
        ("api-vendor-list", "post", {}, {"name": "API vendor"}, "procurement"),
        (
            "api-vendor-detail",
            "patch",
            {"pk": world.offering.vendor_id},
            {"mlps_level": 0},
            "procurement",
        ),
        (
            "api-vendor-detail",
            "put",
            {"pk": world.offering.vendor_id},
            {"name": "Test Vendor", "mlps_level": 3},
            "procurement",
        ),
        ("api-offering-list", "post", {}, full_offering, "procurement"),
        (
            "api-offering-detail",
            "patch",
            {"pk": world.offering.pk},
            {"gpu_memory_gib": 96},
            "procurement",
        ),
        (
            "api-offering-detail",
            "put",
            {"pk": spare.pk},
            {**full_offering, "vendor": spare_vendor.pk, "name": "spare2"},
            "procurement",
        ),
        (
            "api-offering-price-list",
            "post",
            {"offering_pk": world.offering.pk},
            {"billing_model": "hourly", "price_per_gpu": "20"},
            "procurement",
        ),
        (
            "api-offering-price-detail",
            "patch",
            {"offering_pk": world.offering.pk, "price_pk": world.price.pk},
            {"price_per_gpu": "11000"},
            "procurement",
        ),
        (
            "api-offering-price-detail",
            "put",
            {"offering_pk": world.offering.pk, "price_pk": world.price.pk},
            {"billing_model": "monthly", "price_per_gpu": "10000"},
            "procurement",
        ),
        (
            "api-offering-price-detail",
            "delete",
            {"offering_pk": world.offering.pk, "price_pk": world.price.pk},
            None,
            "procurement",
        ),
        ("api-offering-detail", "delete", {"pk": spare.pk}, None, "procurement"),
        ("api-vendor-detail", "delete", {"pk": spare_vendor.pk}, None, "procurement"),
        (
            "api-evaluation-list",
            "post",
            {},
            {
                "name": "New",
                "workload_profile": "inference",
                "required_total_gpus": 1,
                "duration_days": 3,
            },
            "procurement",
        ),
        ("api-evaluation-detail", "patch", ev, {"duration_days": 40}, "procurement"),
        (
            "api-member-list",
            "post",
            ev,
            {"user": newcomer.username, "role": "viewer"},
            "procurement",
        ),
        (
            "api-member-detail",
            "patch",
            {**ev, "member_pk": "newcomer"},
            {"role": "engineer"},
            "procurement",
        ),
        ("api-member-detail", "delete", {**ev, "member_pk": "newcomer"}, None, "procurement"),
        (
            "api-candidate-list",
            "post",
            ev,
            {"offering": world.other_candidate.offering_id, "node_count": 1},
            "procurement",
        ),
        ("api-candidate-detail", "patch", cand, {"node_count": 3}, "procurement"),
        ("api-candidate-detail", "delete", {**ev, "candidate_pk": "added"}, None, "procurement"),
        ("api-candidate-catalogue", "post", cand, {"action": "adopt"}, "procurement"),
        ("api-answer-detail", "put", {**cand, "item": "1"}, {"claim": "8"}, "procurement"),
        ("api-weights", "put", ev, weights, "procurement"),
        (
            "api-poc-plan",
            "put",
            ev,
            {"deadline": "2030-01-01T10:00:00Z", "sample_size": 2},
            "procurement",
        ),
        ("api-weights", "post", ev, {"matrix": ones}, "procurement"),
        ("api-upload-token-list", "post", ev, {"candidate": world.candidate.pk}, "procurement"),
        ("api-upload-token-revoke", "post", {**ev, "token_pk": world.token.pk}, {}, "procurement"),
        ("api-upload-token-detail", "delete", {**ev, "token_pk": "issued"}, None, "procurement"),
        ("api-evidence-upload", "upload", {}, "file", "engineer"),
        (
            "api-upload-detail",
            "delete",
            {**ev, "upload_pk": world.upload.pk},
            {"reason": "Uploaded to the wrong candidate."},
            "procurement",
        ),
        (
            "api-decision",
            "post",
            ev,
            {"candidate": world.candidate.pk, "rationale": "Best."},
            "manager",
        ),
        ("api-decision-reopen", "post", ev, {"reason": "New quote."}, "manager"),
        (
            "api-workload-list",
            "post",
            ev,
            {"name": "serving", "profile": "inference", "gpus": 2, "duration_days": 30},
            "procurement",
        ),
        (
            "api-workload-detail",
            "patch",
            {**ev, "workload_pk": world.workload.pk},
            {"gpus": 4},
            "procurement",
        ),
        (
            "api-workload-detail",
            "delete",
            {**ev, "workload_pk": "added_workload"},
            None,
            "procurement",
        ),
        ("api-portfolio", "patch", ev, {"home_country": "CN"}, "procurement"),
        ("api-portfolio-decision", "post", ev, {"rationale": "One workload."}, "manager"),
    ]


def _resolve(kwargs, world, state):
    out = dict(kwargs)
    if out.get("member_pk") == "newcomer":
        out["member_pk"] = Membership.objects.get(
            evaluation=world.evaluation, user=world.users["outsider"]
        ).pk
    if out.get("candidate_pk") == "added":
        out["candidate_pk"] = state["added_candidate"]
    if out.get("workload_pk") == "added_workload":
        out["workload_pk"] = state["added_workload"]
    if out.get("token_pk") == "issued":
        out["token_pk"] = state["issued_token"]
    return out


def test_every_api_write_endpoint_writes_only_through_services(api, world):
    steps = api_steps(world)
    walked = {(name, "post" if method == "upload" else method) for name, method, *_ in steps}
    wanted = {
        (name, method)
        for name in covered_routes()
        for method in ROUTES[name].methods
        if method in ("post", "put", "patch", "delete") and ROUTES[name].kind != "not_found"
    }
    assert wanted <= walked, f"add a step for: {sorted(wanted - walked)}"
    guard = WriteGuard()
    state = {}
    for name, method, kwargs, body, persona in steps:
        api.as_(world.users[persona])
        url = reverse(name, kwargs=_resolve(kwargs, world, state))
        if body == "file":
            body = {
                "file": SimpleUploadedFile("nvidia-smi.txt", b"GPU 0: H100"),
                "candidate": world.candidate.pk,
            }
        with connection.execute_wrapper(guard):
            response = _call(api, method, url, body)
        assert response.status_code < 300, (name, method, response.status_code, response.content)
        if name == "api-candidate-list":
            state["added_candidate"] = response.json()["id"]
        if name == "api-workload-list":
            state["added_workload"] = response.json()["id"]
        if name == "api-upload-token-list":
            state["issued_token"] = response.json()["id"]
        if name == "api-evidence-upload":
            # No worker runs here: import it as one would (a decision waits for every upload).
            evidence_import(upload_id=response.json()["id"], task_id="write-paths")
    assert guard.outside == [], guard.outside
    assert guard.inside > 0


def test_every_page_form_writes_only_through_services(client, world):
    evaluation, candidate = world.evaluation, world.candidate
    procurement, manager = world.users["procurement"], world.users["manager"]
    pk, cid = evaluation.pk, candidate.pk
    price = world.price
    guard = WriteGuard()

    def post(user, url, data):
        client.force_login(user)
        with connection.execute_wrapper(guard):
            response = client.post(url, data)
        assert response.status_code in (200, 302), (url, response.status_code)
        return response

    post(procurement, reverse("vendor-create"), {"name": "Page vendor", "mlps_level": "1"})
    post(
        procurement,
        reverse("vendor-edit", args=[world.offering.vendor_id]),
        {"name": "Test Vendor", "mlps_level": "0"},
    )
    post(
        procurement,
        reverse("offering-create"),
        {
            **offering_data(world.offering.vendor, name="Page offering"),
            **price_data([("hourly", "3")]),
        },
    )
    post(
        procurement,
        reverse("offering-edit", args=[world.offering.pk]),
        {
            **offering_data(world.offering.vendor, name=world.offering.name, gpus_per_node="8"),
            **price_data([], existing=[price]),
            "prices-0-price_per_gpu": "9000",
        },
    )
    spare = Offering.objects.get(name="Page offering")
    post(procurement, reverse("offering-delete", args=[spare.pk]), {})
    post(
        procurement, reverse("vendor-delete", args=[Vendor.objects.get(name="Page vendor").pk]), {}
    )
    post(procurement, reverse("evaluation-create"), evaluation_data())
    post(
        procurement,
        reverse("evaluation-edit", args=[pk]),
        # Requirements the edited offering meets without POC evidence, so that the decision
        # below is recorded (a form refused with 422 would write nothing and prove nothing).
        evaluation_data(
            name=evaluation.name,
            required_total_gpus="16",
            required_gpu_memory_gib="48",
            min_busbw_fraction="",
            status="open",
        ),
    )
    members = reverse("evaluation-members", args=[pk])
    post(procurement, members, {"action": "add", "add-username": "outsider", "add-role": "viewer"})
    newcomer = Membership.objects.get(evaluation=evaluation, user=world.users["outsider"])
    post(procurement, members, {"action": "role", "member": newcomer.pk, "role": "engineer"})
    post(procurement, members, {"action": "remove", "member": newcomer.pk})
    post(
        procurement,
        reverse("candidate-add", args=[pk]),
        {"offering": world.other_candidate.offering_id, "node_count": "1"},
    )
    added = evaluation.candidates.exclude(pk=cid).get()
    post(
        procurement,
        reverse("candidate-edit", args=[pk, added.pk]),
        {"offering": added.offering_id, "node_count": "2"},
    )
    post(procurement, reverse("candidate-remove", args=[pk, added.pk]), {})
    post(procurement, reverse("candidate-catalogue", args=[pk, cid]), {"action": "adopt"})
    post(procurement, reverse("answer-update", args=[pk, cid, 10]), {"item-10-claim": "5"})
    post(
        procurement,
        reverse("evaluation-weights", args=[pk]),
        {f"w_{d}": "1" for d in ("stability", "network", "storage", "security", "cost", "support")}
        | {"scale": "on"},
    )
    post(
        procurement,
        reverse("upload-token-list", args=[pk, cid]),
        {"expires_in_days": "7", "node_name": "n1", "label": ""},
    )
    post(procurement, reverse("upload-token-revoke", args=[pk, cid, world.token.pk]), {})
    # The pages added with the POC plan, portfolios, document reviews, notifications and the
    # report PDF write through services too.
    post(
        procurement,
        reverse("evaluation-poc", args=[pk]),
        {
            "deadline": "2030-01-01 10:00",
            "all_nodes_max": "2",
            "sample_size": "2",
            "shared_fs_path": "",
            f"nodes_{cid}": "n1\nn2",
        },
    )
    assert PocPlan.objects.filter(evaluation=evaluation).exists()
    portfolio = reverse("evaluation-portfolio", args=[pk])
    post(
        procurement,
        portfolio,
        {
            "action": "settings",
            "s-ops_capacity": "small_team",
            "s-ops_staff_cost_month": "30000",
            "s-data_residency": "none",
            "s-home_country": "CN",
            "s-home_province": "",
            "s-prefer_fewer_vendors_pct": "5",
        },
    )
    assert Evaluation.objects.get(pk=pk).ops_capacity == "small_team"
    post(procurement, reverse("answer-update", args=[pk, cid, 7]), {"item-7-claim": "99.9"})
    post(
        manager,
        reverse("candidate-review", args=[pk, cid]),
        {"item": "7", "review-7-verdict": "verified", "review-7-note": "SLA appendix, page 3."},
    )
    assert AnswerReview.objects.filter(answer__candidate=candidate).exists()
    post(procurement, reverse("notification-settings"), {"import_failed": "on"})
    post(manager, reverse("evaluation-report-pdf", args=[pk]), {})
    assert ReportPdf.objects.filter(evaluation=evaluation).exists()
    post(
        manager, reverse("evaluation-decision", args=[pk]), {"candidate": cid, "rationale": "Best."}
    )
    assert Evaluation.objects.get(pk=pk).status == "decided"
    post(manager, reverse("evaluation-decision", args=[pk]), {"reopen": "1", "reason": "Recheck."})
    assert Evaluation.objects.get(pk=pk).status == "open"
    assert guard.outside == [], guard.outside
    assert guard.inside > 0


def test_a_vendor_edit_does_the_same_through_the_page_and_the_api(api, client, world):
    """The drift of issue 11 (page edits never rescored, API edits did) cannot come back: both
    reach the same service and leave the same new version; neither touches a candidate."""
    vendor = world.offering.vendor
    scored = (world.candidate.scored_at, list(world.candidate.scores.values_list("value")))
    client.force_login(world.users["procurement"])
    page = client.post(
        reverse("vendor-edit", args=[vendor.pk]), {"name": vendor.name, "mlps_level": "0"}
    )
    assert page.status_code == 302
    by_page = OfferingVersion.objects.filter(offering=world.offering).order_by("-number").first()
    api.as_(world.users["procurement"])
    assert (
        api.patch(
            reverse("api-vendor-detail", args=[vendor.pk]), {"mlps_level": 2}, format="json"
        ).status_code
        == 200
    )
    assert (
        api.patch(
            reverse("api-vendor-detail", args=[vendor.pk]), {"mlps_level": 0}, format="json"
        ).status_code
        == 200
    )
    by_api = OfferingVersion.objects.filter(offering=world.offering).order_by("-number").first()
    assert by_page.vendor_facts["mlps_level"] == by_api.vendor_facts["mlps_level"] == 0
    assert by_api.number == by_page.number + 2
    assert (by_page.facts, by_page.prices) == (by_api.facts, by_api.prices)
    world.candidate.refresh_from_db()
    assert (world.candidate.scored_at, list(world.candidate.scores.values_list("value"))) == scored
    assert OfferingPrice.objects.get(pk=world.price.pk).price_per_gpu == Decimal("12000")


def test_the_guard_catches_a_write_beside_the_services(world):
    guard = WriteGuard()
    with connection.execute_wrapper(guard):
        Vendor.objects.filter(pk=world.offering.vendor_id).update(notes="behind the back")
        from portal.services.catalogue import vendor_save

        vendor_save(vendor=Vendor(name="Through the service"), by=world.users["procurement"])
    assert len(guard.outside) == 1 and "UPDATE" in guard.outside[0]
    assert guard.inside >= 1
