"""The history page reads as an auditor needs it: who, when (in the page's language and time
zone), which object (linked where the reader may open it), and each changed field by its
translated name with the values as the portal's other pages show them: choices by their labels,
yes/no, money with its currency, weights in percent, times in the page's zone, long texts in full
behind a disclosure. Rendered pages, English and Chinese; the API's JSON is unchanged."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import dateformat, timezone

from portal.models import Answer, UploadToken

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
LONG_NOTE = "The vendor's SLA, section 4.2: " + "credits of 10 % per hour of outage, " * 10


def _url(world) -> str:
    return reverse("evaluation-history", kwargs={"pk": world.evaluation.pk})


def _ev(world, name, **kwargs) -> str:
    return reverse(name, kwargs={"evaluation_pk": world.evaluation.pk, **kwargs})


def _text(html: str) -> str:
    """The page's visible text, one space between tags' contents."""
    html = re.sub(r"<script.*?</script>|<style.*?</style>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")


def _changes(api, world) -> None:
    """A price, an answer (typed choice, long notes), the weights, a vendor's yes/no and a
    revoked token: each through the API, as procurement."""
    api.as_(world.users["procurement"])
    price = reverse(
        "api-offering-price-detail",
        kwargs={"offering_pk": world.offering.pk, "price_pk": world.price.pk},
    )
    assert api.patch(price, {"price_per_gpu": "11500.50"}, format="json").status_code == 200
    answer = _ev(world, "api-answer-detail", candidate_pk=world.candidate.pk, item="2")
    body = {"claim": "full_mesh", "value": "full_mesh"}
    assert api.put(answer, body, format="json").status_code == 200
    body = {"claim": "grouped", "value": "grouped", "notes": LONG_NOTE}
    assert api.put(answer, body, format="json").status_code == 200
    weights = {"stability": 25, "network": 30, "storage": 10, "security": 5, "cost": 20}
    response = api.put(_ev(world, "api-weights"), weights | {"support": 10}, format="json")
    assert response.status_code == 200, response.content
    vendor = reverse("api-vendor-detail", kwargs={"pk": world.offering.vendor_id})
    assert api.patch(vendor, {"xinchuang": True}, format="json").status_code == 200
    token = _ev(world, "api-upload-token-detail", token_pk=world.token.pk)
    assert api.delete(token).status_code in (200, 204)


def test_values_read_as_the_portal_shows_them_in_english(client, api, world):
    _changes(api, world)
    client.force_login(world.users["viewer"])
    html = client.get(_url(world)).content.decode()
    text = _text(html)
    # Money with its currency, grouped as the pages show amounts.
    assert "price per GPU 12,000 CNY → 11,500.5 CNY" in text
    # A typed answer by its choice's label, not its code; the repeat of the typed value is left
    # out (the claim says it).
    assert "Full mesh (all-to-all, NVSwitch) → Grouped (pairs or hybrid cube mesh)" in text, text
    assert "full_mesh" not in text and "typed value" not in text
    # Statuses by their labels, weights in percent, yes/no.
    assert "verification status Claimed" in text
    assert "weight: stability 16.7 % → 25.0 %" in text
    assert "Xinchuang compliant no → yes" in text
    # The pinned offering version by its number, not a row id.
    assert re.search(r"offering version version \d+ ", text), text
    # No JSON anywhere in the changes.
    changes = html[html.index("<tbody>") : html.index("</tbody>")]
    assert "{" not in _text(changes) and "&quot;" not in changes


def test_values_read_as_the_portal_shows_them_in_chinese(client, api, world):
    _changes(api, world)
    client.force_login(world.users["viewer"])
    text = _text(client.get(_url(world), **ZH).content.decode())
    assert "每 GPU 价格 12,000 CNY → 11,500.5 CNY" in text
    assert "验证状态 已声明" in text
    assert "信创合规 否 → 是" in text
    assert "16.7 % → 25.0 %" in text
    assert "全互联（NVSwitch 全对全） → 分组（成对或混合立方体）" in text, text
    assert "Full mesh" not in text and "full_mesh" not in text
    assert "Xinchuang compliant" not in text and "price per GPU" not in text


def test_a_long_text_is_shown_in_full_behind_a_disclosure(client, api, world):
    _changes(api, world)
    client.force_login(world.users["viewer"])
    html = client.get(_url(world)).content.decode()
    disclosures = re.findall(r'<details class="history-text">(.*?)</details>', html, flags=re.S)
    full = [d for d in disclosures if "credits of 10 % per hour of outage" * 1 in d]
    assert full, "the long note sits in a disclosure"
    assert _text(full[0]).count("credits of 10 % per hour of outage") >= 10


@pytest.mark.parametrize(
    ("headers", "shape"),
    [({}, "j M Y, H:i:s"), (ZH, "Y年n月j日 H:i:s")],
)
def test_times_are_in_the_pages_language_and_time_zone(
    client, api, world, settings, headers, shape
):
    settings.TIME_ZONE = "Asia/Shanghai"
    _changes(api, world)
    client.force_login(world.users["viewer"])
    text = _text(client.get(_url(world), **headers).content.decode())
    token = UploadToken.objects.get(pk=world.token.pk)
    local = token.revoked_at.astimezone(ZoneInfo("Asia/Shanghai"))
    with timezone.override("Asia/Shanghai"):
        when = dateformat.format(local, shape)
    # The revocation, both as the entry's time and as the value of "revoked at".
    assert f"{when} Asia/Shanghai" in text
    label = "吊销时间" if headers else "revoked at"
    assert re.search(rf"{label} — → {re.escape(when)} Asia/Shanghai", text), text
    # Not in UTC, nor ISO.
    assert token.revoked_at.isoformat(timespec="seconds") not in text
    if headers:
        assert datetime.now().strftime("%b") not in text.split("Asia/Shanghai")[0][-40:]


def test_objects_link_to_the_pages_the_reader_may_open(client, api, world):
    _changes(api, world)
    client.force_login(world.users["viewer"])
    html = client.get(_url(world)).content.decode()
    evaluation, candidate = world.evaluation.pk, world.candidate.pk
    questionnaire = reverse("candidate-questionnaire", args=[evaluation, candidate])
    assert f'<a href="{questionnaire}">' in html
    offering = reverse("offering-detail", args=[world.offering.pk])
    assert f'<a href="{offering}">' in html  # the offering of the changed price
    tokens = reverse("upload-token-list", args=[evaluation, candidate])
    assert tokens not in html, "a viewer may not open the token page"
    client.force_login(world.users["procurement"])
    assert tokens in client.get(_url(world)).content.decode()


def test_a_removed_candidate_is_named_but_not_linked(client, api, world):
    api.as_(world.users["procurement"])
    Answer.objects.filter(candidate=world.candidate).delete()
    target = _ev(world, "api-candidate-detail", candidate_pk=world.candidate.pk)
    assert api.delete(target).status_code == 204
    client.force_login(world.users["viewer"])
    html = client.get(_url(world), {"kind": "candidate"}).content.decode()
    assert "Test Vendor · 8x H100 bare metal" in html
    assert reverse("candidate-detail", args=[world.evaluation.pk, world.candidate.pk]) not in html


def test_access_stays_as_it_was(client, api, world):
    _changes(api, world)
    client.force_login(world.users["outsider"])
    assert client.get(_url(world)).status_code == 404
    missing = reverse("evaluation-history", kwargs={"pk": world.evaluation.pk + 10_000})
    assert client.get(missing).status_code == 404
    client.logout()
    assert client.get(_url(world)).status_code == 302
    for role in ("viewer", "engineer", "manager", "procurement"):
        client.force_login(world.users[role])
        assert client.get(_url(world)).status_code == 200, role


def test_the_api_keeps_its_values(api, world):
    _changes(api, world)
    api.as_(world.users["viewer"])
    entries = api.get(_ev(world, "api-history"), {"kind": "price"}).json()["results"]
    change = next(c for c in entries[0]["changes"] if c["field"] == "price_per_gpu")
    # Decimals without trailing zeros on both sides (audit 29: "11500.5000" read unlike "12000").
    assert (change["before"], change["after"]) == ("12000", "11500.5")
    assert set(change) == {"field", "label", "before", "after"}


def test_workload_weights_and_poc_nodes_read_without_json(client, world, settings):
    from datetime import UTC

    from portal.services.poc import poc_plan_save
    from portal.services.portfolio import workload_update

    settings.TIME_ZONE = "Asia/Shanghai"
    procurement = world.users["procurement"]
    workload_update(workload=world.workload, by=procurement, weights={"cost": 3, "network": 1})
    deadline = datetime(2030, 1, 2, 10, 0, tzinfo=UTC)
    poc_plan_save(
        evaluation=world.evaluation,
        by=procurement,
        deadline=deadline,
        node_names={world.candidate.pk: ["gpu-a", "gpu-b"]},
        seed=7,
    )
    client.force_login(world.users["viewer"])
    for headers, network, cost, when in (
        ({}, "Network", "Cost", "2 Jan 2030, 18:00:00 Asia/Shanghai"),
        (ZH, "网络", "成本", "2030年1月2日 18:00:00 Asia/Shanghai"),
    ):
        html = client.get(_url(world), **headers).content.decode()
        text = _text(html)
        assert f"{network} 25.0 %; {cost} 75.0 %" in text, text
        assert "gpu-a, gpu-b" in text
        assert when in text
        changes = html[html.index("<tbody>") : html.index("</tbody>")]
        assert "{" not in _text(changes) and "[" not in _text(changes)


@pytest.mark.parametrize("role", ["viewer", "engineer", "manager", "procurement"])
def test_every_link_on_the_page_opens_for_its_reader(client, api, world, role):
    from datetime import UTC

    from portal.services.poc import poc_plan_save

    _changes(api, world)
    poc_plan_save(
        evaluation=world.evaluation,
        by=world.users["procurement"],
        deadline=datetime(2030, 1, 2, 10, 0, tzinfo=UTC),
        node_names={world.candidate.pk: ["gpu-a"]},
    )
    client.force_login(world.users[role])
    html = client.get(_url(world)).content.decode()
    table = html[html.index("<tbody>") : html.index("</tbody>")]
    links = set(re.findall(r'<a href="([^"]+)">', table))
    assert len(links) >= 6, links
    for link in sorted(links):
        assert client.get(link).status_code == 200, (role, link)


def test_a_quote_shows_in_the_currency_of_the_offering_version_it_pinned(client, api, world):
    """A catalogue edit that changes the offering's currency later does not restate the quote
    the candidate made against the version it pinned."""
    api.as_(world.users["procurement"])
    candidate = _ev(world, "api-candidate-detail", candidate_pk=world.candidate.pk)
    body = {"quoted_billing_model": "monthly", "quoted_price_per_gpu": "9800"}
    response = api.patch(candidate, body, format="json")
    assert response.status_code == 200, response.content
    offering = reverse("api-offering-detail", kwargs={"pk": world.offering.pk})
    response = api.patch(offering, {"currency": "USD"}, format="json")
    assert response.status_code == 200, response.content
    world.candidate.refresh_from_db()
    pinned = world.candidate.offering_version
    assert pinned is not None and pinned.facts["currency"] == "CNY"
    client.force_login(world.users["viewer"])
    text = _text(client.get(_url(world)).content.decode())
    assert "9,800 CNY" in text, text
    assert "9,800 USD" not in text
