"""A refused form says on top which fields to correct, each linked to its input: the offering
form is 5,000 px tall, and its summary said only "Please correct the errors below." while the
two refused fields sat 2,000 and 4,000 px further down. A form refused for a field alone shows
no empty error box above it (the members page did)."""

import re

import pytest
from django.urls import reverse

from .test_procurement_pages import offering_data, price_data

pytestmark = pytest.mark.django_db


def _summary(response) -> str:
    found = re.search(r'<div class="form-errors" role="alert">(.*?)</div>', response.text, re.S)
    assert found, "no error summary"
    return found.group(1)


def test_the_offering_forms_summary_links_each_refused_field(client, members, vendor):
    client.force_login(members["procurement"])
    data = {
        **offering_data(vendor, sla_availability_pct="99.9%"),
        **price_data([("hourly", "12"), ("monthly", "¥8000")]),
    }
    response = client.post(reverse("offering-create"), data)
    assert response.status_code == 422
    summary = _summary(response)
    assert '<a href="#id_sla_availability_pct">SLA availability (%)</a>: ' in summary
    assert "without the % sign" in summary
    assert '<a href="#id_prices-1-price_per_gpu">List price 2, Price per GPU</a>: ' in summary
    assert 'href="#id_prices-0-price_per_gpu"' not in summary  # the row that was right
    # Every link leads to an input of the page.
    for target in re.findall(r'href="#([^"]+)"', summary):
        assert f'id="{target}"' in response.text, target

    client.cookies["django_language"] = "zh-hans"
    summary = _summary(client.post(reverse("offering-create"), data))
    assert re.search(r'<a href="#id_prices-1-price_per_gpu">第 2 条标价，[^<]+</a>：', summary)


def test_the_new_evaluations_summary_links_its_refused_field(client, members):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("evaluation-create"),
        {"name": "Linked", "workload_profile": "inference", "required_total_gpus": "eight"},
    )
    assert response.status_code == 422
    summary = _summary(response)
    assert '<a href="#id_required_total_gpus">Total GPUs required</a>: ' in summary
    assert '<a href="#id_duration_days">Duration (days)</a>: This field is required.' in summary


def test_a_member_refused_for_the_username_alone_gets_no_empty_box(client, members, evaluation):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("evaluation-members", args=[evaluation.pk]),
        {"action": "add", "add-username": "nobody-here", "add-role": "viewer"},
    )
    assert response.status_code == 422
    assert "No active user has this username." in response.text
    boxes = re.findall(r'<div class="form-errors" role="alert">(.*?)</div>', response.text, re.S)
    assert all(box.strip() for box in boxes), boxes
