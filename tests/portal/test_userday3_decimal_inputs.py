"""Stored decimals show in the inputs as people write them ("12800", "99.9"), not with the
column's places ("12800.0000", "99.900", read as another figure or one to retype); sending the
page back untouched changes nothing."""

import html
import re

import pytest
from django.urls import reverse

from portal.models import Offering, OfferingVersion

pytestmark = pytest.mark.django_db


def _inputs(page: str) -> dict[str, str]:
    data = {}
    for tag in re.findall(r"<input[^>]*>", page):
        name = re.search(r'name="([^"]+)"', tag)
        kind = re.search(r'type="([^"]+)"', tag)
        if not name or (kind and kind.group(1) in ("submit", "file")):
            continue
        if kind and kind.group(1) == "checkbox":
            if "checked" in tag:
                data[name.group(1)] = "on"
            continue
        value = re.search(r'value="([^"]*)"', tag)
        data[name.group(1)] = html.unescape(value.group(1)) if value else ""
    for name, body in re.findall(r'<select[^>]*name="([^"]+)"[^>]*>(.*?)</select>', page, re.S):
        chosen = re.search(r'<option value="([^"]*)"[^>]*selected', body)
        data[name] = html.unescape(chosen.group(1)) if chosen else ""
    for name, body in re.findall(r'<textarea[^>]*name="([^"]+)"[^>]*>(.*?)</textarea>', page, re.S):
        data[name] = html.unescape(body.lstrip("\n"))
    return data


def test_the_offering_form_shows_decimals_as_written_and_an_untouched_save_changes_nothing(
    as_role,
):
    client = as_role("procurement")
    offering = Offering.objects.get(pk=1)
    url = reverse("offering-edit", args=[offering.pk])
    data = _inputs(client.get(url).content.decode())
    shown = {k: v for k, v in data.items() if re.fullmatch(r"-?\d+\.\d*0", v)}
    assert shown == {}, shown  # no "12800.0000", "99.900", "1.00"
    assert data["sla_availability_pct"] == "99.9"
    prices = [v for k, v in data.items() if k.endswith("price_per_gpu") and v]
    assert prices and all("." not in p or not p.endswith("0") for p in prices)

    versions = OfferingVersion.objects.filter(offering=offering).count()
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert OfferingVersion.objects.filter(offering=offering).count() == versions


def test_the_requirements_show_the_budget_as_written(as_role):
    page = as_role("procurement").get(reverse("evaluation-edit", args=[1])).content.decode()
    data = _inputs(page)
    assert data["budget_total"] == "1100000"
    assert data["min_busbw_fraction"] == "0.7"
