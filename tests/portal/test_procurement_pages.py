"""Procurement pages: the vendor/offering catalogue, candidates, upload tokens, the collector."""

import html
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.forms.models import model_to_dict
from django.urls import reverse

from portal.forms_procurement import OFFERING_FIELDS
from portal.models import (
    BillingModel,
    Candidate,
    EvaluationStatus,
    Membership,
    Offering,
    OfferingPrice,
    Role,
    UploadToken,
    Vendor,
    hash_token,
)
from portal.services.tokens import upload_token_authenticate, upload_token_create

from .conftest import small_offering

pytestmark = pytest.mark.django_db

RAW_TOKEN = re.compile(r"gpt_[A-Za-z0-9_-]{20,}")
WRONG_ROLES = ["manager", "engineer", "viewer"]


def catalogue_read_urls(offering):
    return [
        reverse("vendor-list"),
        reverse("offering-list"),
        reverse("offering-detail", args=[offering.pk]),
    ]


def catalogue_edit_urls(offering):
    return [
        reverse("vendor-create"),
        reverse("vendor-edit", args=[offering.vendor_id]),
        reverse("offering-create"),
        reverse("offering-edit", args=[offering.pk]),
        reverse("offering-delete", args=[offering.pk]),
        reverse("vendor-delete", args=[offering.vendor_id]),
        reverse("evaluation-create"),
    ]


def evaluation_urls(candidate):
    pk, cid = candidate.evaluation_id, candidate.pk
    return [
        reverse("candidate-add", args=[pk]),
        reverse("candidate-edit", args=[pk, cid]),
        reverse("candidate-remove", args=[pk, cid]),
        reverse("upload-token-list", args=[pk, cid]),
        reverse("evaluation-edit", args=[pk]),
    ]


def revoke_url(token):
    return reverse("upload-token-revoke", args=[token.evaluation_id, token.candidate_id, token.pk])


def offering_data(vendor, **overrides) -> dict:
    """POST data of a complete offering form, from the model's defaults."""
    instance = Offering(
        vendor=vendor,
        name="4x L40S PCIe VM",
        delivery_form="passthrough_vm",
        gpu_model="NVIDIA L40S 48GB",
        gpu_form_factor="pcie",
        gpus_per_node=4,
        gpu_memory_gib=48,
        nvlink_topology="none",
        fabric="roce",
        fabric_rate_gbit_s=200,
        root_access=True,
    )
    data = {}
    for name, value in model_to_dict(instance, fields=OFFERING_FIELDS).items():
        if value is None:
            data[name] = ""
        elif value is True:
            data[name] = "on"
        elif value is not False:
            data[name] = str(value)
    data.update(overrides)
    return data


def price_data(rows, existing=()) -> dict:
    """The price formset: ``existing`` (price rows already saved) then ``rows`` of
    (billing model, price) for the new ones."""
    data = {
        "prices-TOTAL_FORMS": str(len(existing) + len(rows)),
        "prices-INITIAL_FORMS": str(len(existing)),
        "prices-MIN_NUM_FORMS": "0",
        "prices-MAX_NUM_FORMS": str(len(BillingModel.values)),
    }
    for i, price in enumerate(existing):
        data[f"prices-{i}-id"] = str(price.pk)
        data[f"prices-{i}-billing_model"] = price.billing_model
        data[f"prices-{i}-price_per_gpu"] = str(price.price_per_gpu)
    for i, (billing_model, price) in enumerate(rows, start=len(existing)):
        data[f"prices-{i}-billing_model"] = billing_model
        data[f"prices-{i}-price_per_gpu"] = price
    return data


def field_errors(response, field_id: str) -> str:
    """The text of the error list Django renders next to the field with ``field_id``."""
    match = re.search(rf'<ul class="errorlist" id="{field_id}_error">(.*?)</ul>', response.text)
    return match.group(1) if match else ""


def flash(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


# --- Who may open what ------------------------------------------------------------------------


def test_anonymous_users_are_sent_to_login(client, candidate, upload_token):
    token, _raw = upload_token
    urls = [
        *catalogue_read_urls(candidate.offering),
        *catalogue_edit_urls(candidate.offering),
        *evaluation_urls(candidate),
    ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    # A post without a session is the "nothing was saved" page with a sign-in link (a 401).
    response = client.post(revoke_url(token))
    assert response.status_code == 401
    assert f'href="{reverse("login")}?next=' in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_at is None


def test_any_logged_in_user_reads_the_catalogue(client, members, offering):
    client.force_login(members["outsider"])
    for url in catalogue_read_urls(offering):
        response = client.get(url)
        assert response.status_code == 200, url
        assert offering.vendor.name in response.text, url
    # Nobody is offered a way to edit what they may not edit.
    assert reverse("vendor-create") not in client.get(reverse("vendor-list")).text


@pytest.mark.parametrize("role", [*WRONG_ROLES, "outsider"])
def test_catalogue_editing_is_refused_without_a_procurement_role(client, members, offering, role):
    client.force_login(members[role])
    for url in catalogue_edit_urls(offering):
        assert client.get(url).status_code == 403, url
        assert client.post(url, {"name": "Changed"}).status_code == 403, url
    offering.refresh_from_db()
    assert offering.name == "8x H100 bare metal"
    assert offering.vendor.name == "Test Vendor"


def test_procurement_of_any_evaluation_and_staff_edit_the_catalogue(
    client, members, offering, make_user
):
    for user in (members["procurement"], make_user("admin", is_staff=True)):
        client.force_login(user)
        for url in catalogue_edit_urls(offering):
            assert client.get(url).status_code == 200, url
        assert reverse("vendor-create") in client.get(reverse("vendor-list")).text


def test_non_members_get_404_on_evaluation_pages(client, members, candidate, upload_token):
    token, _raw = upload_token
    client.force_login(members["outsider"])
    for url in evaluation_urls(candidate):
        assert client.get(url).status_code == 404, url
        assert client.post(url, {}).status_code == 404, url
    assert client.post(revoke_url(token)).status_code == 404


def test_procurement_of_another_evaluation_gets_404(client, members, candidate, evaluation):
    other = type(evaluation).objects.create(
        name="Other", workload_profile="inference", required_total_gpus=8, duration_days=10
    )
    Membership.objects.create(evaluation=other, user=members["outsider"], role=Role.PROCUREMENT)
    client.force_login(members["outsider"])
    for url in evaluation_urls(candidate):
        assert client.get(url).status_code == 404, url
    # Their own evaluation's id with this candidate: the candidate is not found there either.
    response = client.get(reverse("upload-token-list", args=[other.pk, candidate.pk]))
    assert response.status_code == 404


@pytest.mark.parametrize("role", WRONG_ROLES)
def test_wrong_roles_get_403_on_evaluation_pages(client, members, candidate, upload_token, role):
    token, _raw = upload_token
    client.force_login(members[role])
    for url in evaluation_urls(candidate):
        assert client.get(url).status_code == 403, url
        assert client.post(url, {}).status_code == 403, url
    assert client.post(revoke_url(token)).status_code == 403
    assert Candidate.objects.filter(pk=candidate.pk).exists()
    assert UploadToken.objects.count() == 1
    token.refresh_from_db()
    assert token.revoked_at is None


def test_procurement_opens_every_evaluation_page(client, members, candidate):
    client.force_login(members["procurement"])
    for url in evaluation_urls(candidate):
        response = client.get(url)
        assert response.status_code == 200, url
        assert 'name="csrfmiddlewaretoken"' in response.text, url


# --- Catalogue ----------------------------------------------------------------------------------


def test_procurement_creates_a_vendor(client, members):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("vendor-create"),
        {"name": "North GPU Cloud", "regions": "Beijing, Shanghai", "mlps_level": "3"},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("vendor-list")
    vendor = Vendor.objects.get(name="North GPU Cloud")
    assert vendor.mlps_level == 3
    assert vendor.history.first().history_user == members["procurement"]
    assert flash(response) == ["Vendor “North GPU Cloud” saved."]


def test_vendor_errors_are_shown_next_to_the_field(client, members, vendor):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("vendor-create"), {"name": vendor.name, "mlps_level": "0", "website": "nope"}
    )
    assert response.status_code == 422
    assert "already exists" in field_errors(response, "id_name")
    assert "valid URL" in field_errors(response, "id_website")
    assert 'aria-invalid="true"' in response.text
    assert Vendor.objects.count() == 1


def test_vendor_is_edited(client, members, vendor):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("vendor-edit", args=[vendor.pk]),
        {"name": "Renamed Vendor", "mlps_level": "2", "xinchuang": "on"},
    )
    assert response.status_code == 302
    vendor.refresh_from_db()
    assert (vendor.name, vendor.mlps_level, vendor.xinchuang) == ("Renamed Vendor", 2, True)


def test_the_offering_form_shows_every_field_with_a_label(client, members, vendor):
    client.force_login(members["procurement"])
    response = client.get(reverse("offering-create"))
    for name in OFFERING_FIELDS:
        assert f'<label for="id_{name}"' in response.text, name
    # One empty price row per billing model, preset to that model.
    for i, billing_model in enumerate(BillingModel.values):
        assert re.search(
            rf'name="prices-{i}-billing_model"[^>]*>.*?<option value="{billing_model}" selected>',
            response.text,
            re.S,
        )


def test_procurement_creates_an_offering_with_prices(client, members, vendor):
    client.force_login(members["procurement"])
    data = {
        **offering_data(vendor),
        **price_data(
            [("hourly", "18.5"), ("monthly", "9800"), ("yearly", ""), ("spot", "")],
        ),
    }
    response = client.post(reverse("offering-create"), data)
    assert response.status_code == 302, field_errors(response, "id_name")
    offering = Offering.objects.get(name="4x L40S PCIe VM")
    assert response["Location"] == reverse("offering-detail", args=[offering.pk])
    assert offering.root_access is True
    assert offering.delivery_form == "passthrough_vm"
    prices = {p.billing_model: p.price_per_gpu for p in offering.prices.all()}
    assert prices == {"hourly": Decimal("18.5"), "monthly": Decimal("9800")}

    page = client.get(response["Location"])
    assert "Hourly (per GPU-hour)" in page.text
    assert "9,800.00 CNY" in page.text  # grouped in threes, as money is on every page
    assert "18.50 CNY" in page.text
    # The offering's other amounts carry the currency too, not a bare 0.00.
    assert "<dd>0.00 CNY</dd>" in page.text
    # Other decimals read as typed, without the column's trailing zeros.
    offering.sla_availability_pct = Decimal("99.900")
    offering.save(update_fields=["sla_availability_pct"])
    page = client.get(response["Location"])
    assert "<dd>99.9</dd>" in page.text and "99.900" not in page.text


def test_a_negative_price_is_refused_next_to_its_field_and_nothing_is_saved(
    client, members, vendor
):
    client.force_login(members["procurement"])
    data = {**offering_data(vendor), **price_data([("hourly", "12"), ("monthly", "-5")])}
    response = client.post(reverse("offering-create"), data)
    assert response.status_code == 422
    assert "greater than or equal to 0" in field_errors(response, "id_prices-1-price_per_gpu")
    assert field_errors(response, "id_prices-0-price_per_gpu") == ""
    assert "Please correct the errors below." in response.text
    assert not Offering.objects.exists()
    assert not OfferingPrice.objects.exists()


def test_one_price_per_billing_model(client, members, vendor):
    client.force_login(members["procurement"])
    data = {**offering_data(vendor), **price_data([("hourly", "12"), ("hourly", "11")])}
    response = client.post(reverse("offering-create"), data)
    assert response.status_code == 422
    assert "one price per billing model" in field_errors(response, "id_prices-1-billing_model")
    assert not Offering.objects.exists()


def test_an_invalid_offering_saves_no_price(client, members, vendor):
    client.force_login(members["procurement"])
    data = {**offering_data(vendor, gpus_per_node="0"), **price_data([("hourly", "12")])}
    response = client.post(reverse("offering-create"), data)
    assert response.status_code == 422
    assert "greater than or equal to 1" in field_errors(response, "id_gpus_per_node")
    assert not Offering.objects.exists()
    assert not OfferingPrice.objects.exists()


def test_editing_an_offering_changes_prices_and_candidates_adopt_them_explicitly(
    client, members, candidate
):
    offering = candidate.offering
    hourly = OfferingPrice.objects.create(
        offering=offering, billing_model="hourly", price_per_gpu=Decimal("20")
    )
    monthly = OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("9000")
    )
    assert candidate.scored_at is None
    client.force_login(members["procurement"])
    data = {
        **offering_data(offering.vendor, name=offering.name, gpus_per_node="8"),
        **price_data([("spot", "7.5")], existing=[hourly, monthly]),
        "prices-0-price_per_gpu": "19",
        "prices-1-DELETE": "on",
    }
    response = client.post(reverse("offering-edit", args=[offering.pk]), data)
    assert response.status_code == 302
    prices = {p.billing_model: p.price_per_gpu for p in offering.prices.all()}
    assert prices == {"hourly": Decimal("19"), "spot": Decimal("7.5")}
    candidate.refresh_from_db()
    assert candidate.scored_at is None  # it keeps its pinned version until it adopts
    from portal.services.catalogue import candidate_offering_adopt

    candidate_offering_adopt(candidate=candidate, by=members["procurement"])
    candidate.refresh_from_db()
    assert candidate.offering_version.price_pairs() == (
        ("hourly", Decimal("19")),
        ("spot", Decimal("7.5")),
    )
    assert candidate.scored_at is not None
    assert candidate.scores.count() == 6


def test_an_offering_in_use_is_not_deleted_and_the_page_says_where_it_is_used(
    client, members, candidate
):
    client.force_login(members["procurement"])
    url = reverse("offering-delete", args=[candidate.offering_id])
    page = client.get(url).content.decode()
    assert candidate.evaluation.name in page
    assert 'class="danger"' not in page  # no delete button while it is in use
    response = client.post(url)
    assert response.status_code == 200
    assert "remove it there first" in response.content.decode()
    assert Offering.objects.filter(pk=candidate.offering_id).exists()


def test_procurement_deletes_an_unused_offering_then_its_vendor(client, members, vendor):
    offering = small_offering(vendor, "spare")
    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=9)
    client.force_login(members["procurement"])
    vendor_url = reverse("vendor-delete", args=[vendor.pk])
    assert "spare" in client.get(vendor_url).content.decode()  # listed as what blocks it
    assert (
        reverse("offering-delete", args=[offering.pk])
        in client.get(reverse("offering-detail", args=[offering.pk])).content.decode()
    )

    response = client.post(reverse("offering-delete", args=[offering.pk]))
    assert response.status_code == 302 and response.url == reverse("offering-list")
    assert not Offering.objects.filter(pk=offering.pk).exists()
    assert not OfferingPrice.objects.filter(offering_id=offering.pk).exists()
    assert (
        Offering.history.get(id=offering.pk, history_type="-").history_user
        == members["procurement"]
    )
    response = client.post(vendor_url)
    assert response.status_code == 302 and response.url == reverse("vendor-list")
    assert not Vendor.objects.filter(pk=vendor.pk).exists()
    notes = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("deleted" in note for note in notes)


def test_the_offering_list_filters_by_delivery_form_and_vendor(client, members, offering):
    other_vendor = Vendor.objects.create(name="Other Cloud")
    Offering.objects.create(
        **{
            **{k: getattr(offering, k) for k in ("gpu_model", "gpu_form_factor", "fabric")},
            "vendor": other_vendor,
            "name": "MIG slice",
            "delivery_form": "mig",
            "gpus_per_node": 1,
            "gpu_memory_gib": 40,
            "nvlink_topology": "none",
        }
    )
    client.force_login(members["viewer"])
    url = reverse("offering-list")
    both = client.get(url).text
    assert offering.name in both and "MIG slice" in both
    by_form = client.get(url, {"delivery_form": "mig"}).text
    assert "MIG slice" in by_form and offering.name not in by_form
    by_vendor = client.get(url, {"vendor": offering.vendor_id}).text
    assert offering.name in by_vendor and "MIG slice" not in by_vendor
    nothing = client.get(url, {"delivery_form": "vgpu"}).text
    assert "No offering matches these filters." in nothing
    # A bad filter value filters nothing instead of failing.
    assert client.get(url, {"vendor": "abc"}).status_code == 200


def test_the_demo_catalogue_renders(client, demo):
    client.login(username="procurement", password="procure-gpus-2026")
    response = client.get(reverse("offering-list"))
    assert response.status_code == 200
    offering = Offering.objects.first()
    assert client.get(reverse("offering-detail", args=[offering.pk])).status_code == 200
    assert client.get(reverse("offering-edit", args=[offering.pk])).status_code == 200


# --- Candidates ---------------------------------------------------------------------------------


def test_procurement_adds_a_candidate(client, members, evaluation, offering):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("candidate-add", args=[evaluation.pk]),
        {"offering": offering.pk, "node_count": "2", "quoted_billing_model": "", "notes": ""},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("evaluation-detail", args=[evaluation.pk])
    candidate = Candidate.objects.get(evaluation=evaluation)
    assert (candidate.offering, candidate.node_count) == (offering, 2)
    assert candidate.scored_at is not None
    assert flash(response) == [f"Candidate “{offering}” added."]


def test_a_quote_without_a_price_is_refused_next_to_the_field(
    client, members, evaluation, offering
):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("candidate-add", args=[evaluation.pk]),
        {"offering": offering.pk, "node_count": "2", "quoted_billing_model": "monthly"},
    )
    assert response.status_code == 422
    assert "both a billing model and a price" in field_errors(response, "id_quoted_price_per_gpu")
    assert not Candidate.objects.exists()


def test_an_offering_is_a_candidate_only_once(client, members, candidate):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("candidate-add", args=[candidate.evaluation_id]),
        {"offering": candidate.offering_id, "node_count": "1"},
    )
    assert response.status_code == 422
    assert "already a candidate" in field_errors(response, "id_offering")
    assert Candidate.objects.count() == 1


def test_a_decided_evaluation_refuses_changes_with_a_message(client, members, candidate, vendor):
    evaluation = candidate.evaluation
    type(evaluation).objects.filter(pk=evaluation.pk).update(status=EvaluationStatus.DECIDED)
    other = Offering.objects.create(
        vendor=vendor,
        name="Another",
        delivery_form="vgpu",
        gpu_model="A100",
        gpu_form_factor="pcie",
        gpus_per_node=1,
        gpu_memory_gib=40,
        nvlink_topology="none",
        fabric="ethernet",
    )
    client.force_login(members["procurement"])
    decided = "This evaluation is decided; it can no longer be changed."

    response = client.post(
        reverse("candidate-add", args=[evaluation.pk]), {"offering": other.pk, "node_count": "1"}
    )
    assert response.status_code == 409  # the README: a decided refusal is a 409
    assert response.text.count(decided) == 1
    assert Candidate.objects.count() == 1

    response = client.post(
        reverse("candidate-edit", args=[evaluation.pk, candidate.pk]),
        {"offering": candidate.offering_id, "node_count": "5"},
    )
    assert response.status_code == 409  # the README: a decided refusal is a 409
    assert response.text.count(decided) == 1

    response = client.post(reverse("candidate-remove", args=[evaluation.pk, candidate.pk]))
    assert response.status_code == 409  # the README: a decided refusal is a 409
    assert response.text.count(decided) == 1
    candidate.refresh_from_db()
    assert candidate.node_count == 2


def test_procurement_edits_a_candidate(client, members, candidate):
    client.force_login(members["procurement"])
    url = reverse("candidate-edit", args=[candidate.evaluation_id, candidate.pk])
    assert candidate.offering.name in client.get(url).text
    response = client.post(
        url,
        {
            "offering": candidate.offering_id,
            "node_count": "4",
            "quoted_billing_model": "monthly",
            "quoted_price_per_gpu": "8800",
        },
    )
    assert response.status_code == 302
    candidate.refresh_from_db()
    assert (candidate.node_count, candidate.quoted_price_per_gpu) == (4, Decimal("8800"))
    assert candidate.history.first().history_user == members["procurement"]


def test_removing_a_candidate_asks_first(client, members, candidate, upload_token):
    client.force_login(members["procurement"])
    url = reverse("candidate-remove", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert "<li>1 upload token</li>" in page.text
    assert Candidate.objects.filter(pk=candidate.pk).exists()

    response = client.post(url)
    assert response.status_code == 302
    assert response["Location"] == reverse("evaluation-detail", args=[candidate.evaluation_id])
    assert not Candidate.objects.filter(pk=candidate.pk).exists()
    assert Offering.objects.filter(pk=candidate.offering_id).exists()
    assert flash(response) == [f"Candidate “{candidate.offering}” removed."]


# --- Upload tokens ------------------------------------------------------------------------------


def test_a_new_token_is_shown_once_and_only_its_hash_is_stored(client, members, candidate):
    client.force_login(members["procurement"])
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    response = client.post(url, {"expires_in_days": "14", "node_name": "gpu-01", "label": "POC"})
    # POST/redirect/GET: reloading the page that shows the token creates no second one.
    assert response.status_code == 302
    assert response["Location"] == f"{url}#new-token"
    assert not RAW_TOKEN.search(response.content.decode())
    shown = client.get(url)
    assert shown.status_code == 200
    assert "no-store" in shown["Cache-Control"]
    raws = set(RAW_TOKEN.findall(shown.text))
    assert len(raws) == 1
    raw = raws.pop()
    # The collector reads the token from the environment: never on its command line, where
    # every user of the node sees it in the process list.
    assert (
        f"export GPU_PORTAL_TOKEN={raw}\n"
        "curl -fsSLO http://testserver/collector/collect.py && python3 collect.py"
        " --portal http://testserver</pre>"
    ) in html.unescape(shown.text)
    assert "--token" not in shown.text

    token = UploadToken.objects.get()
    assert token.token_hash == hash_token(raw)
    assert token.token_prefix == raw[:10]
    assert (token.node_name, token.label, token.created_by) == (
        "gpu-01",
        "POC",
        members["procurement"],
    )
    assert 13 <= (token.expires_at - token.created_at).days <= 14
    stored = " ".join(str(v) for v in UploadToken.objects.values().get().values())
    assert raw not in stored
    # Kept in the session only until the page showed it.
    assert raw not in str(dict(client.session.items()))
    assert upload_token_authenticate(raw) == token

    again = client.get(url)
    assert raw not in again.text
    assert token.token_prefix in again.text
    assert "gpu-01" in again.text
    assert UploadToken.objects.count() == 1


def test_the_token_page_names_the_collector_options_the_poc_needs(client, members, candidate):
    """Every option the hint names is one collect.py accepts, --shared-fs (the POC plan's
    shared file-system run) among them, with the plan's path when it has one."""
    import subprocess
    import sys
    from datetime import timedelta

    from django.utils import timezone

    from portal.services.poc import poc_plan_save

    poc_plan_save(
        evaluation=candidate.evaluation,
        by=members["procurement"],
        deadline=timezone.now() + timedelta(days=14),
        shared_fs_path="/shared/poc",
    )
    client.force_login(members["procurement"])
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(client.post(url, {"expires_in_days": "7"})["Location"]).text
    options = html.unescape(page.split('class="muted collector-options"', 1)[1].split("</ul>")[0])
    named = re.findall(r"<code>(--[a-z-]+)", options)
    assert named == ["--nccl-tests", "--fio-target", "--shared-fs", "--rtt", "--hostfile"]
    assert "the POC plan requires it, at /shared/poc." in options

    usage = subprocess.run(
        [sys.executable, str(settings.BASE_DIR / "collector" / "collect.py"), "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    accepted = set(re.findall(r"(--[a-z-]+)", usage))
    assert set(named) <= accepted


def test_the_chinese_token_page_gives_a_command_whose_collector_speaks_chinese(
    client, members, candidate
):
    """On the page read in Chinese the command carries --lang zh: the node's locale (here C,
    as on most server images) would otherwise make the collector speak English."""
    import shlex
    import subprocess
    import sys

    client.force_login(members["procurement"])
    client.cookies["django_language"] = "zh-hans"
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(client.post(url, {"expires_in_days": "7"})["Location"]).text
    command = html.unescape(page.split('<pre id="collector-command">', 1)[1].split("</pre>")[0])
    python_line = command.splitlines()[-1].split(" && ", 1)[1]
    assert python_line == "python3 collect.py --portal http://testserver --lang zh"
    assert "用 <code>--lang zh</code> 或 <code>--lang en</code> 选择" in page

    # That line as the node runs it, here without the token it exports first: Chinese.
    collector = str(settings.BASE_DIR / "collector" / "collect.py")
    run = subprocess.run(
        [sys.executable, collector, *shlex.split(python_line)[2:]],
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2
    assert "collect.py：错误：上传需要 --portal 和 --token" in run.stderr


def test_reloading_after_creating_a_token_creates_no_other(client, members, candidate):
    client.force_login(members["procurement"])
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    created = client.post(url, {"expires_in_days": "7"})
    first = client.get(created["Location"])
    assert len(set(RAW_TOKEN.findall(first.text))) == 1
    reload = client.get(created["Location"])
    assert not RAW_TOKEN.search(reload.text)
    assert UploadToken.objects.count() == 1


def test_a_new_token_is_not_shown_on_another_candidates_page(
    client, members, candidate, evaluation, vendor
):
    sibling = Candidate.objects.create(
        evaluation=evaluation,
        offering=small_offering(vendor, "Sibling", gpu_model="A100", gpu_memory_gib=40),
        node_count=1,
    )
    client.force_login(members["procurement"])
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    client.post(url, {"expires_in_days": "7"})
    other = client.get(reverse("upload-token-list", args=[evaluation.pk, sibling.pk]))
    assert not RAW_TOKEN.search(other.text)
    assert not RAW_TOKEN.search(client.get(url).text)  # taken out by the first page shown


@pytest.mark.parametrize("days", ["0", "91", "", "x"])
def test_a_token_expiry_outside_1_to_90_days_is_refused(client, members, candidate, days):
    client.force_login(members["procurement"])
    url = reverse("upload-token-list", args=[candidate.evaluation_id, candidate.pk])
    response = client.post(url, {"expires_in_days": days})
    assert response.status_code == 422
    assert field_errors(response, "id_expires_in_days")
    assert not RAW_TOKEN.search(response.text)
    assert not UploadToken.objects.exists()


def test_procurement_revokes_a_token(client, members, candidate):
    token, _raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    client.force_login(members["procurement"])
    assert client.get(revoke_url(token)).status_code == 405
    response = client.post(revoke_url(token))
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "upload-token-list", args=[candidate.evaluation_id, candidate.pk]
    )
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert not token.is_usable
    page = client.get(response["Location"])
    assert "revoked" in page.text
    assert revoke_url(token) not in page.text


def test_a_token_is_revoked_only_through_its_own_candidate(
    client, members, candidate, evaluation, vendor
):
    token, _raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    sibling_offering = small_offering(vendor, "Sibling", gpu_model="A100", gpu_memory_gib=40)
    sibling = Candidate.objects.create(
        evaluation=evaluation, offering=sibling_offering, node_count=1
    )
    client.force_login(members["procurement"])
    url = reverse("upload-token-revoke", args=[evaluation.pk, sibling.pk, token.pk])
    assert client.post(url).status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


# --- Collector ----------------------------------------------------------------------------------


def test_anyone_downloads_the_collector(client):
    response = client.get(reverse("collector-script"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/x-python")
    assert response["Content-Disposition"] == 'attachment; filename="collect.py"'
    body = b"".join(response.streaming_content)
    assert body == (settings.BASE_DIR / "collector" / "collect.py").read_bytes()
    assert reverse("collector-script") == "/collector/collect.py"
    assert client.post(reverse("collector-script")).status_code == 405


# --- Evaluations and members ----------------------------------------------------------------


def evaluation_data(**overrides) -> dict:
    data = {
        "name": "Fine-tune on 16 GPUs",
        "description": "LoRA runs for two months.",
        "workload_profile": "finetuning",
        "required_total_gpus": "16",
        "required_gpu_memory_gib": "80",
        "duration_days": "60",
        "expected_idle_days": "5",
        "budget_total": "900000",
        "budget_currency": "CNY",
        "required_mlps_level": "0",
        "min_busbw_fraction": "0.7",
    }
    data.update(overrides)
    return data


def test_procurement_opens_a_new_evaluation_with_preset_weights(client, members):
    from portal.models import Evaluation
    from scoring.api import preset_weights

    client.force_login(members["procurement"])
    assert reverse("evaluation-create") in client.get(reverse("evaluation-list")).text
    response = client.post(reverse("evaluation-create"), evaluation_data())
    evaluation = Evaluation.objects.get(name="Fine-tune on 16 GPUs")
    assert response.status_code == 302
    assert response.url == reverse("evaluation-detail", args=[evaluation.pk])
    assert (evaluation.required_total_gpus, evaluation.min_busbw_fraction) == (16, Decimal("0.7"))
    preset = preset_weights("finetuning")
    assert float(evaluation.weight_network) == pytest.approx(preset["network"], abs=1e-3)
    member = Membership.objects.get(evaluation=evaluation)
    assert (member.user, member.role) == (members["procurement"], Role.PROCUREMENT)
    assert Evaluation.history.get(id=evaluation.pk).history_user == members["procurement"]
    assert any("created" in note for note in flash(response))


def test_a_bad_requirement_is_shown_at_its_field_and_nothing_is_created(client, members):
    from portal.models import Evaluation

    client.force_login(members["procurement"])
    before = Evaluation.objects.count()
    response = client.post(reverse("evaluation-create"), evaluation_data(required_total_gpus="0"))
    assert response.status_code == 422
    assert field_errors(response, "id_required_total_gpus")
    assert Evaluation.objects.count() == before


@pytest.mark.parametrize("role", WRONG_ROLES)
def test_only_catalogue_editors_open_evaluations(client, members, role, make_user):
    user = make_user(f"only-{role}")
    Membership.objects.create(
        evaluation=members["procurement"].memberships.first().evaluation, user=user, role=role
    )
    client.force_login(user)
    assert client.post(reverse("evaluation-create"), evaluation_data()).status_code == 403
    assert reverse("evaluation-create") not in client.get(reverse("evaluation-list")).text


def test_requirements_are_edited_and_every_candidate_rescored(client, members, candidate):
    evaluation = candidate.evaluation
    client.force_login(members["procurement"])
    url = reverse("evaluation-edit", args=[evaluation.pk])
    assert url in client.get(reverse("evaluation-detail", args=[evaluation.pk])).text
    data = evaluation_data(name=evaluation.name, required_total_gpus="8", status="open")
    response = client.post(url, data)
    assert response.status_code == 302, field_errors(response, "id_required_total_gpus")
    evaluation.refresh_from_db()
    candidate.refresh_from_db()
    assert (evaluation.required_total_gpus, evaluation.status) == (8, EvaluationStatus.OPEN)
    assert candidate.scored_at is not None and candidate.scores.count() == 6
    # "decided" is not offered: a decision is recorded on its own page.
    assert client.post(url, {**data, "status": "decided"}).status_code == 422
    evaluation.refresh_from_db()
    assert evaluation.status == EvaluationStatus.OPEN


def test_members_are_listed_to_every_member_and_managed_by_procurement(
    client, members, evaluation, make_user
):
    url = reverse("evaluation-members", args=[evaluation.pk])
    client.force_login(members["viewer"])
    page = client.get(url).text
    assert "procurement" in page and 'name="action"' not in page
    assert client.post(url, {"action": "add", "add-username": "viewer"}).status_code == 403

    newcomer = make_user("newcomer")
    client.force_login(members["procurement"])
    unknown = client.post(url, {"action": "add", "add-username": "nobody", "add-role": "viewer"})
    assert unknown.status_code == 422
    assert "No active user has this username." in unknown.text
    added = client.post(url, {"action": "add", "add-username": "newcomer", "add-role": "viewer"})
    assert added.status_code == 302
    membership = Membership.objects.get(evaluation=evaluation, user=newcomer)
    twice = client.post(url, {"action": "add", "add-username": "newcomer", "add-role": "manager"})
    assert twice.status_code == 422 and "already a member" in twice.text

    client.post(url, {"action": "role", "member": membership.pk, "role": "engineer"})
    membership.refresh_from_db()
    assert membership.role == Role.ENGINEER
    forged = client.post(url, {"action": "role", "member": membership.pk, "role": "owner"})
    assert forged.status_code == 422 and "owner is not one of the available choices" in forged.text
    membership.refresh_from_db()
    assert membership.role == Role.ENGINEER
    own = Membership.objects.get(evaluation=evaluation, user=members["procurement"])
    demoted = client.post(url, {"action": "role", "member": own.pk, "role": "viewer"})
    assert demoted.status_code == 422
    assert "at least one procurement member" in demoted.text
    own.refresh_from_db()
    assert own.role == Role.PROCUREMENT
    client.post(url, {"action": "remove", "member": membership.pk})
    assert not Membership.objects.filter(pk=membership.pk).exists()
    history = Membership.history.filter(id=membership.pk).order_by("history_date")
    assert [(h.history_type, h.history_user) for h in history] == [
        ("+", members["procurement"]),
        ("~", members["procurement"]),
        ("-", members["procurement"]),
    ]


def test_the_members_page_refuses_a_self_made_manager_and_keeps_the_role(
    client, members, evaluation, make_user
):
    colleague = make_user("second-buyer")
    Membership.objects.create(evaluation=evaluation, user=colleague, role=Role.PROCUREMENT)
    own = Membership.objects.get(evaluation=evaluation, user=members["procurement"])
    client.force_login(members["procurement"])
    url = reverse("evaluation-members", args=[evaluation.pk])
    refused = client.post(url, {"action": "role", "member": own.pk, "role": "manager"})
    assert refused.status_code == 422
    assert "cannot make yourself a manager" in html.unescape(refused.text)
    own.refresh_from_db()
    assert own.role == Role.PROCUREMENT
    client.force_login(colleague)
    assert (
        client.post(url, {"action": "role", "member": own.pk, "role": "manager"}).status_code == 302
    )
    own.refresh_from_db()
    assert own.role == Role.MANAGER
